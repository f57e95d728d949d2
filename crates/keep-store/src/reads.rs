//! Reads of notes written once for every database: one note by id or row,
//! every note for export, pages of a listing and their count, the notes of
//! a set that pass a filter, ids by prefix, and the ratings and supersedes
//! among a set. What the dialects spell differently comes from `Dialect`.

use std::collections::{HashMap, HashSet};

use super::dialect::Dialect;
use super::filter::{push_filter, push_listing, starts_with};
use super::order::push_page;
use super::plain::{Cell, Query, Sql, cells};
use crate::error::{Error, Result};
use crate::ids::NoteRid;
use keep_model::time::Timestamp;
use keep_model::{ListOrder, Note, NoteFilter, PageFrom, Rating, Tags, keys};

/// How many notes a SQLite store holds: the count its triggers keep, or every
/// note counted should that row be lost.
pub(crate) const SQLITE_NOTE_TOTAL: &str =
    "SELECT coalesce((SELECT n FROM counts WHERE name = 'notes'),
                                              (SELECT count(*) FROM notes))";

/// A note from its row (`Dialect::note_columns`); its tags come as a
/// JSON list of pairs, and tags that cannot be read are an error naming
/// the note.
fn note_of(r: &[Cell]) -> Result<(NoteRid, Note)> {
    let [rid, id, summary, hash, created, updated, accessed, at, tags] = cells(r)?;
    let id = id.text()?;
    let tags = match tags.opt_text()? {
        Some(json) => serde_json::from_str::<Vec<(String, String)>>(&json)
            .map_err(|e| Error::Corrupt {
                what: format!("note '{id}'"),
                reason: format!("its tags are not valid JSON ({e})"),
            })?
            .into_iter()
            .collect::<Tags>(),
        None => Tags::default(),
    };
    Ok((
        NoteRid(rid.int()?),
        Note {
            id,
            summary: summary.text()?,
            content_hash: hash.opt_text()?,
            created: Timestamp::from_millis(created.int()?),
            updated: Timestamp::from_millis(updated.int()?),
            accessed: Timestamp::from_millis(accessed.int()?),
            at: Timestamp::from_millis(at.int()?),
            tags,
        },
    ))
}

fn rid_list(rids: &[NoteRid]) -> Vec<i64> {
    rids.iter().map(|r| r.0).collect()
}

/// A limit as both databases take it: all rows when there is none.
fn limit_value(limit: Option<usize>) -> i64 {
    limit.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX))
}

/// The select of notes aliased `n`, up to its `WHERE`.
fn note_select(d: Dialect) -> Query {
    Query::new(format!("SELECT {} FROM notes n WHERE ", d.note_columns()))
}

/// A page of a listing: the notes passing `filter` in `order`, `limit` of
/// them from `from`; true when the rows come last first.
pub(super) fn listing_query(
    d: Dialect,
    filter: &NoteFilter,
    order: ListOrder,
    from: &PageFrom,
    limit: Option<usize>,
) -> (Query, bool) {
    let mut q = note_select(d);
    q.push("TRUE");
    push_filter(d, filter, &mut q);
    push_listing(d, filter, &mut q);
    let backwards = push_page(order, from, &mut q);
    let limit = q.arg(limit_value(limit));
    q.push(&format!(" LIMIT {limit}"));
    (q, backwards)
}

/// The reads of notes every database answers alike.
pub trait NoteReads: Sql {
    /// The notes a select begun by `note_select` finds.
    fn notes_where(&self, q: Query) -> Result<Vec<(NoteRid, Note)>> {
        self.rows_of(&q)?.iter().map(|r| note_of(r)).collect()
    }

    fn note(&self, id: &str) -> Result<Option<(NoteRid, Note)>> {
        let mut q = note_select(self.dialect());
        let id = q.arg(id);
        q.push(&format!("n.id = {id}"));
        Ok(self.notes_where(q)?.into_iter().next())
    }

    fn note_by_rid(&self, rid: NoteRid) -> Result<Option<Note>> {
        let mut q = note_select(self.dialect());
        let rid = q.arg(rid.0);
        q.push(&format!("n.rid = {rid}"));
        Ok(self.notes_where(q)?.into_iter().next().map(|(_, n)| n))
    }

    /// Every note, ordered by id.
    fn all_notes(&self) -> Result<Vec<(NoteRid, Note)>> {
        let mut q = note_select(self.dialect());
        q.push("TRUE ORDER BY n.id");
        self.notes_where(q)
    }

    /// At most `limit` notes ordered by id, those after id `after` (from
    /// the first when None): a store read a page at a time, for export.
    fn notes_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<(NoteRid, Note)>> {
        let mut q = note_select(self.dialect());
        match after {
            Some(id) => {
                let id = q.arg(id);
                q.push(&format!("n.id > {id}"));
            }
            None => q.push("TRUE"),
        }
        let limit = q.arg(limit_value(Some(limit)));
        q.push(&format!(" ORDER BY n.id LIMIT {limit}"));
        self.notes_where(q)
    }

    /// The notes passing `filter` in `order`, at most `limit` of them from
    /// `from`, in the listing's order.
    fn list_notes_from(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        from: &PageFrom,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        let (q, backwards) = listing_query(self.dialect(), filter, order, from, limit);
        let mut notes: Vec<Note> = self.notes_where(q)?.into_iter().map(|(_, n)| n).collect();
        if backwards {
            notes.reverse();
        }
        Ok(notes)
    }

    /// How many notes pass `filter`, as a listing shows them.
    fn count_notes(&self, filter: &NoteFilter) -> Result<usize> {
        let plain = NoteFilter {
            as_of: None,
            ..filter.clone()
        } == NoteFilter::default();
        if plain {
            return self.count_listed(filter);
        }
        let mut q = Query::new("SELECT count(*) FROM notes n WHERE TRUE");
        push_filter(self.dialect(), filter, &mut q);
        push_listing(self.dialect(), filter, &mut q);
        self.count_of(&q)
    }

    /// How many notes a listing with no filter shows: all but those it
    /// hides, which are read through the indexes of ids (system notes) and
    /// tags (deleted, expiring and stub notes). Counting every note that
    /// passes took a second at a million notes; this reads the few hidden.
    fn count_listed(&self, filter: &NoteFilter) -> Result<usize> {
        let d = self.dialect();
        let hidden_keys = [keys::DELETED, keys::EXPIRES, keys::STUB];
        let candidates = |q: &mut Query| {
            let system = starts_with(d, q, "m.id", ".");
            let keys: Vec<String> = hidden_keys.iter().map(|k| q.arg(*k)).collect();
            q.push(&format!(
                " AND n.rid IN (SELECT m.rid FROM notes m WHERE {system}
                                UNION SELECT t.note FROM tags t WHERE t.key IN ({}))",
                keys.join(", ")
            ));
        };
        let mut all = Query::new("SELECT count(*) FROM notes n WHERE TRUE");
        candidates(&mut all);
        let mut shown = Query::new("SELECT count(*) FROM notes n WHERE TRUE");
        candidates(&mut shown);
        push_filter(d, filter, &mut shown);
        push_listing(d, filter, &mut shown);
        let total = match d {
            Dialect::Sqlite => SQLITE_NOTE_TOTAL,
            Dialect::Postgres => "SELECT count(*) FROM notes",
        };
        let hidden = self.count_of(&all)? - self.count_of(&shown)?;
        Ok(self.count_of(&Query::new(total))?.saturating_sub(hidden))
    }

    /// How many notes the store holds, system notes, stubs and the trash
    /// included.
    fn note_count(&self) -> Result<usize> {
        self.count_of(&Query::new(match self.dialect() {
            Dialect::Sqlite => SQLITE_NOTE_TOTAL,
            Dialect::Postgres => "SELECT count(*) FROM notes",
        }))
    }

    /// The count a `SELECT count(*)` query answers.
    fn count_of(&self, q: &Query) -> Result<usize> {
        let count = match self.rows_of(q)?.first() {
            Some(row) => row[0].int()?,
            None => 0,
        };
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The notes among `rids` that pass `filter`, by rid.
    fn notes_passing(
        &self,
        rids: &[NoteRid],
        filter: &NoteFilter,
    ) -> Result<HashMap<NoteRid, Note>> {
        if rids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut q = note_select(self.dialect());
        let list = q.arg(rid_list(rids));
        q.push(&self.dialect().among("n.rid", &list));
        push_filter(self.dialect(), filter, &mut q);
        Ok(self.notes_where(q)?.into_iter().collect())
    }

    /// The notes holding a tag of `key`, read from the tags' index: for a
    /// key few notes hold, where a filter on it would test every note.
    fn rids_tagged(&self, key: &str) -> Result<Vec<NoteRid>> {
        let mut q = Query::default();
        let key = q.arg(key);
        q.push(&format!(
            "SELECT DISTINCT note FROM tags WHERE key = {key} ORDER BY note"
        ));
        self.rows_of(&q)?
            .iter()
            .map(|r| Ok(NoteRid(r[0].int()?)))
            .collect()
    }

    /// Every note passing `filter`, by rid.
    fn rids_passing(&self, filter: &NoteFilter) -> Result<Vec<i64>> {
        let mut q = Query::new("SELECT n.rid FROM notes n WHERE TRUE");
        push_filter(self.dialect(), filter, &mut q);
        q.push(" ORDER BY n.rid");
        self.rows_of(&q)?.iter().map(|r| r[0].int()).collect()
    }

    /// Ids starting with `prefix`, in order, at most `limit`: a range scan
    /// of the id index.
    fn ids_starting_with(&self, prefix: &str, limit: Option<usize>) -> Result<Vec<String>> {
        let mut q = Query::new("SELECT id FROM notes WHERE ");
        let starts = starts_with(self.dialect(), &mut q, "id", prefix);
        q.push(&starts);
        let limit = q.arg(limit_value(limit));
        q.push(&format!(" ORDER BY id LIMIT {limit}"));
        self.rows_of(&q)?.iter().map(|r| r[0].text()).collect()
    }

    /// Ratings of the rated notes among `rids`.
    fn feedback_among(&self, rids: &[NoteRid]) -> Result<HashMap<NoteRid, Rating>> {
        if rids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut q = Query::new("SELECT note, useful, wrong FROM feedback WHERE ");
        let list = q.arg(rid_list(rids));
        q.push(&self.dialect().among("note", &list));
        self.rows_of(&q)?
            .iter()
            .map(|r| {
                let [note, useful, wrong] = cells(r)?;
                let rating = Rating {
                    useful: useful.int()?,
                    wrong: wrong.int()?,
                };
                Ok((NoteRid(note.int()?), rating))
            })
            .collect()
    }

    /// The notes among `rids` that another note supersedes.
    fn superseded_among(&self, rids: &[NoteRid]) -> Result<HashSet<NoteRid>> {
        if rids.is_empty() {
            return Ok(HashSet::new());
        }
        let mut q = Query::new("SELECT n.rid FROM notes n WHERE ");
        let list = q.arg(rid_list(rids));
        let key = q.arg(keys::SUPERSEDES);
        q.push(&format!(
            "{} AND EXISTS (SELECT 1 FROM edges e WHERE e.target = n.id AND e.key = {key})",
            self.dialect().among("n.rid", &list)
        ));
        self.rows_of(&q)?
            .iter()
            .map(|r| Ok(NoteRid(r[0].int()?)))
            .collect()
    }
}

impl<T: Sql + ?Sized> NoteReads for T {}
