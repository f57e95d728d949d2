//! Feedback on notes (rated useful or wrong) and which notes another note
//! supersedes: the facts recall weighs beyond text and time.

use std::collections::{HashMap, HashSet};

use rusqlite::{OptionalExtension, params};

use super::SqliteDb;
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::model::{Rating, keys};
use crate::store::NoteRid;

fn json_rids(rids: &[NoteRid]) -> String {
    serde_json::to_string(&rids.iter().map(|r| r.0).collect::<Vec<_>>()).expect("ints serialise")
}

impl SqliteDb<'_> {
    /// Adds one rating to note `rid` and returns its totals.
    pub fn rate(&self, rid: NoteRid, useful: bool, at: Timestamp) -> Result<Rating> {
        let (u, w) = if useful { (1, 0) } else { (0, 1) };
        self.conn
            .prepare_cached(
                "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(note) DO UPDATE SET useful = useful + ?2, wrong = wrong + ?3, updated = ?4",
            )?
            .execute(params![rid, u, w, at.millis()])?;
        Ok(self.rating(rid)?.unwrap_or_default())
    }

    /// A note's ratings and when it was last rated.
    pub fn rating_with_time(&self, rid: NoteRid) -> Result<Option<(Rating, Timestamp)>> {
        Ok(self
            .conn
            .prepare_cached("SELECT useful, wrong, updated FROM feedback WHERE note = ?1")?
            .query_row([rid], |r| {
                Ok((
                    Rating {
                        useful: r.get(0)?,
                        wrong: r.get(1)?,
                    },
                    Timestamp::from_millis(r.get(2)?),
                ))
            })
            .optional()?)
    }

    /// Sets a note's ratings and when it was last rated (an import).
    pub fn set_rating(&self, rid: NoteRid, rating: &Rating, at: Timestamp) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(note) DO UPDATE SET useful = ?2, wrong = ?3, updated = ?4",
            )?
            .execute(params![rid, rating.useful, rating.wrong, at.millis()])?;
        Ok(())
    }

    pub fn rating(&self, rid: NoteRid) -> Result<Option<Rating>> {
        Ok(self
            .conn
            .prepare_cached("SELECT useful, wrong FROM feedback WHERE note = ?1")?
            .query_row([rid], |r| {
                Ok(Rating {
                    useful: r.get(0)?,
                    wrong: r.get(1)?,
                })
            })
            .optional()?)
    }

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
