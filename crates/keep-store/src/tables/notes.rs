//! A note's row: its key, counts of its versions and parts, tag counts, deletion, access time, renames, and what the store holds in all (`census`).
//! Written once for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use crate::plain::{Cell, PlainQueries, ROWS_A_STATEMENT, Sql};
use keep_model::time::Timestamp;
use std::collections::HashMap;

/// A note's row: its key, counts of its versions and parts, tag counts, deletion, access time, renames, and what the store holds in all (`census`).
pub trait NoteRows: Sql {
    fn note_rid(&self, id: &str) -> Result<Option<NoteRid>> {
        Ok(self
            .first_int("SELECT rid FROM notes WHERE id = ?1", &[id.into()])?
            .map(NoteRid))
    }

    /// The row keys of those of `ids` the store holds, looked up a few
    /// hundred to a statement.
    fn note_rids(&self, ids: &[&str]) -> Result<HashMap<String, NoteRid>> {
        let mut found = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(ROWS_A_STATEMENT) {
            let list = (1..=chunk.len())
                .map(|n| format!("?{n}"))
                .collect::<Vec<_>>()
                .join(", ");
            let params: Vec<Cell> = chunk.iter().map(|&id| id.into()).collect();
            for row in self.query(
                &format!("SELECT id, rid FROM notes WHERE id IN ({list})"),
                &params,
            )? {
                found.insert(row[0].text()?, NoteRid(row[1].int()?));
            }
        }
        Ok(found)
    }

    fn version_count(&self, rid: NoteRid) -> Result<i64> {
        Ok(self
            .first_int(
                "SELECT count(*) FROM versions WHERE note = ?1",
                &[rid.0.into()],
            )?
            .unwrap_or(0))
    }

    fn part_count(&self, rid: NoteRid) -> Result<i64> {
        Ok(self
            .first_int(
                "SELECT count(*) FROM parts WHERE note = ?1",
                &[rid.0.into()],
            )?
            .unwrap_or(0))
    }

    /// The row of archived version `seq` (1 = oldest) of a note.
    fn version_key(&self, rid: NoteRid, seq: i64) -> Result<Option<VersionRid>> {
        Ok(self
            .first_int(
                "SELECT vid FROM versions WHERE note = ?1 AND seq = ?2",
                &[rid.0.into(), seq.into()],
            )?
            .map(VersionRid))
    }

    fn part_key(&self, rid: NoteRid, number: u32) -> Result<Option<PartRid>> {
        Ok(self
            .first_int(
                "SELECT pid FROM parts WHERE note = ?1 AND number = ?2",
                &[rid.0.into(), i64::from(number).into()],
            )?
            .map(PartRid))
    }

    /// How many notes carry the tag `key=value`.
    fn tag_count(&self, key: &str, value: &str) -> Result<i64> {
        Ok(self
            .first_int(
                "SELECT count(*) FROM tags WHERE key = ?1 AND value = ?2",
                &[key.into(), value.into()],
            )?
            .unwrap_or(0))
    }

    /// Removes a note; its tags, versions, parts and edges go with it.
    fn delete_note(&self, rid: NoteRid) -> Result<()> {
        self.execute("DELETE FROM notes WHERE rid = ?1", &[rid.0.into()])?;
        Ok(())
    }

    fn touch_accessed(&self, rid: NoteRid, at: Timestamp) -> Result<()> {
        self.execute(
            "UPDATE notes SET accessed = ?2 WHERE rid = ?1",
            &[rid.0.into(), at.millis().into()],
        )?;
        Ok(())
    }

    fn rename_note(&self, rid: NoteRid, new_id: &str) -> Result<()> {
        self.execute(
            "UPDATE notes SET id = ?2 WHERE rid = ?1",
            &[rid.0.into(), new_id.into()],
        )?;
        Ok(())
    }

    fn set_created(&self, rid: NoteRid, created: Timestamp) -> Result<()> {
        self.execute(
            "UPDATE notes SET created = ?2 WHERE rid = ?1",
            &[rid.0.into(), created.millis().into()],
        )?;
        Ok(())
    }

    /// What the store holds: notes by kind, versions, parts, vectors, tag
    /// keys, each agent's writes, bytes on disk.
    /// Ids of up to `limit` notes whose text (or a version's or part's)
    /// waits for a vector, the most recently updated first.
    fn waiting_for_vectors(&self, limit: usize) -> Result<Vec<String>> {
        crate::census::waiting(self, limit)
    }

    fn census(&self) -> Result<crate::census::Census> {
        crate::census::take(self)
    }
}

impl<T: Sql + ?Sized> NoteRows for T {}
