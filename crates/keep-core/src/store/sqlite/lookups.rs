//! Lookups that recall needs: which of a set of notes pass a filter, the
//! nearest notes among those, tag counts, and version offsets.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::SqliteDb;
use super::filter::push_filter_sql;
use super::notes::{NOTE_COLUMNS, note_from_row};

use crate::error::Result;
use crate::model::{Note, NoteFilter};
use crate::store::Shared;
use crate::store::{NoteRid, VecKind, VersionRid};

impl SqliteDb<'_> {
    /// The notes among `rids` that pass `filter`, by rid.
    pub fn notes_passing(
        &self,
        rids: &[NoteRid],
        filter: &NoteFilter,
    ) -> Result<std::collections::HashMap<NoteRid, Note>> {
        let mut out = std::collections::HashMap::new();
        if rids.is_empty() {
            return Ok(out);
        }
        let mut sql = format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE n.rid IN (SELECT value FROM json_each(?))"
        );
        let mut args = vec![Value::Text(
            serde_json::to_string(&rids.iter().map(|r| r.0).collect::<Vec<_>>())
                .expect("ints serialise"),
        )];
        push_filter_sql(filter, &mut sql, &mut args);
        let mut stmt = self.conn.prepare(&sql)?;
        for row in stmt.query_map(params_from_iter(args), note_from_row)? {
            let (rid, note) = row?;
            out.insert(rid, note);
        }
        Ok(out)
    }

    /// Cosine distances to the notes passing `filter`, nearest first.
    pub fn nearest_filtered(
        &self,
        query: &[f32],
        filter: &NoteFilter,
        k: usize,
    ) -> Result<Vec<(NoteRid, f64)>> {
        if self.vector_space()?.is_none() {
            return Ok(Vec::new());
        }
        let mut sql = String::from("SELECT n.rid FROM notes n WHERE 1");
        let mut args = Vec::new();
        push_filter_sql(filter, &mut sql, &mut args);
        sql.push_str(" ORDER BY n.rid");
        let rids = self
            .conn
            .prepare(&sql)?
            .query_map(params_from_iter(args), |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(self
            .nearest_among(VecKind::Note, query, &rids, k)?
            .into_iter()
            .map(|(key, d)| (NoteRid(key), d))
            .collect())
    }

    /// The offset (1 = previous) of the archived version with key `vid`.
    pub fn version_offset(&self, vid: VersionRid) -> Result<Option<(NoteRid, i64)>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .prepare_cached(
                "SELECT v.note, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq)
                 FROM versions v WHERE v.vid = ?1",
            )?
            .query_row([vid], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }
}
