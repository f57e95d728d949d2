//! Feedback among a set of notes (rated useful or wrong) and which of them
//! another note supersedes, as SQLite binds a list; one note's ratings are
//! in `store::shared`.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::SqliteDb;
use crate::error::Result;
use crate::model::{Rating, keys};
use crate::store::NoteRid;

fn json_rids(rids: &[NoteRid]) -> String {
    serde_json::to_string(&rids.iter().map(|r| r.0).collect::<Vec<_>>()).expect("ints serialise")
}

impl SqliteDb<'_> {
    /// Ratings of the rated notes among `rids`.
    pub fn feedback_among(&self, rids: &[NoteRid]) -> Result<HashMap<NoteRid, Rating>> {
        if rids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT note, useful, wrong FROM feedback WHERE note IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map([json_rids(rids)], |r| {
            Ok((
                NoteRid(r.get(0)?),
                Rating {
                    useful: r.get(1)?,
                    wrong: r.get(2)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The notes among `rids` that another note supersedes.
    pub fn superseded_among(&self, rids: &[NoteRid]) -> Result<HashSet<NoteRid>> {
        if rids.is_empty() {
            return Ok(HashSet::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT n.rid FROM notes n WHERE n.rid IN (SELECT value FROM json_each(?1))
             AND n.id IN (SELECT target FROM edges WHERE key = ?2)",
        )?;
        let rows = stmt.query_map(params![json_rids(rids), keys::SUPERSEDES], |r| {
            Ok(NoteRid(r.get(0)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
