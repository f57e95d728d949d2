//! Plain rows on PostgreSQL: notes and their tags, versions, parts, edges,
//! feedback, listings and the watcher's tables.

use std::collections::{HashMap, HashSet};

use postgres::Row;

use super::PgDb;
use super::filter::{Query, push_filter, push_listing, with_params};
use crate::error::Result;
use crate::model::time::Timestamp;
use crate::model::{ListOrder, Note, NoteFilter, Part, Rating, Tags, Version, keys};
use crate::store::Shared;
use crate::store::plan::tags_index_text;
use crate::store::{NoteRid, VersionRid};

/// Columns of a note row plus its tags as parallel arrays of keys and
/// values.
pub(super) const NOTE_COLUMNS: &str =
    "n.rid, n.id, n.summary, n.content_hash, n.created, n.updated, n.accessed,
     ARRAY(SELECT t.key FROM tags t WHERE t.note = n.rid ORDER BY t.key, t.value),
     ARRAY(SELECT t.value FROM tags t WHERE t.note = n.rid ORDER BY t.key, t.value)";

/// Reads a row selected with `NOTE_COLUMNS`.
pub(super) fn note_from_row(row: &Row) -> (NoteRid, Note) {
    let keys: Vec<String> = row.get(7);
    let values: Vec<String> = row.get(8);
    (
        NoteRid(row.get(0)),
        Note {
            id: row.get(1),
            summary: row.get(2),
            content_hash: row.get(3),
            created: Timestamp::from_millis(row.get(4)),
            updated: Timestamp::from_millis(row.get(5)),
            accessed: Timestamp::from_millis(row.get(6)),
            tags: keys.into_iter().zip(values).collect(),
        },
    )
}

fn json_tags(tags: &Tags) -> String {
    serde_json::to_string(tags).expect("tags serialise")
}

fn rid_list(rids: &[NoteRid]) -> Vec<i64> {
    rids.iter().map(|r| r.0).collect()
}

impl PgDb<'_> {
    pub fn note(&self, id: &str) -> Result<Option<(NoteRid, Note)>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE n.id = $1");
        Ok(self.row(&sql, &[&id])?.map(|r| note_from_row(&r)))
    }

    pub fn note_by_rid(&self, rid: NoteRid) -> Result<Option<Note>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE n.rid = $1");
        Ok(self.row(&sql, &[&rid.0])?.map(|r| note_from_row(&r).1))
    }

    pub fn insert_note(&self, note: &Note) -> Result<NoteRid> {
        let rid: i64 = self
            .one(
                "INSERT INTO notes (id, summary, content_hash, created, updated, accessed)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING rid",
                &[
                    &note.id,
                    &note.summary,
                    &note.content_hash,
                    &note.created.millis(),
                    &note.updated.millis(),
                    &note.accessed.millis(),
                ],
            )?
            .get(0);
        let rid = NoteRid(rid);
        self.write_tags(rid, &note.tags)?;
        Ok(rid)
    }

    pub fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()> {
        self.exec(
            "UPDATE notes SET summary = $2, content_hash = $3, updated = $4, accessed = $5
             WHERE rid = $1",
            &[
                &rid.0,
                &note.summary,
                &note.content_hash,
                &note.updated.millis(),
                &note.accessed.millis(),
            ],
        )?;
        self.exec("DELETE FROM tags WHERE note = $1", &[&rid.0])?;
        self.write_tags(rid, &note.tags)
    }

    fn write_tags(&self, rid: NoteRid, tags: &Tags) -> Result<()> {
        let (keys, values): (Vec<&str>, Vec<&str>) = tags.pairs().unzip();
        if keys.is_empty() {
            return Ok(());
        }
        self.exec(
            "INSERT INTO tags (note, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS x(k, v)",
            &[&rid.0, &keys, &values],
        )?;
        Ok(())
    }

    pub fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()> {
        self.exec(
            "UPDATE notes SET words =
                 setweight(to_tsvector('english', keep_words($2)), 'A')
                 || setweight(to_tsvector('english', keep_words($3)), 'B')
             WHERE rid = $1",
            &[&rid.0, &summary, &tags_index_text(tags)],
        )?;
        Ok(())
    }

    pub fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()> {
        if body.is_empty() {
            self.exec("DELETE FROM bodies WHERE note = $1", &[&rid.0])?;
        } else {
            self.exec(
                "INSERT INTO bodies (note, words) VALUES ($1, to_tsvector('english', keep_words($2)))
                 ON CONFLICT (note) DO UPDATE SET words = excluded.words",
                &[&rid.0, &within_word_index_limit(body)],
            )?;
        }
        Ok(())
    }

    pub fn all_notes(&self) -> Result<Vec<(NoteRid, Note)>> {
        let sql = format!("SELECT {NOTE_COLUMNS} FROM notes n ORDER BY n.id");
        Ok(self.rows(&sql, &[])?.iter().map(note_from_row).collect())
    }

    // Versions.

    pub fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid> {
        let vid: i64 = self
            .one(
                "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated)
                 SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5, $6 FROM versions WHERE note = $1
                 RETURNING vid",
                &[
                    &rid.0,
                    &version.summary,
                    &json_tags(&version.tags),
                    &version.content_hash,
                    &version.created.millis(),
                    &version.updated.millis(),
                ],
            )?
            .get(0);
        Ok(VersionRid(vid))
    }

    pub fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()> {
        self.exec(
            "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &rid.0,
                &seq,
                &version.summary,
                &json_tags(&version.tags),
                &version.content_hash,
                &version.created.millis(),
                &version.updated.millis(),
            ],
        )?;
        Ok(())
    }

    /// The offset (1 = previous) of the archived version with key `vid`.
    pub(super) fn version_offset(&self, vid: VersionRid) -> Result<Option<(NoteRid, i64)>> {
        Ok(self
            .row(
                "SELECT v.note, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq)
                 FROM versions v WHERE v.vid = $1",
                &[&vid.0],
            )?
            .map(|r| (NoteRid(r.get(0)), r.get(1))))
    }

    // Parts.

    pub fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()> {
        self.exec("DELETE FROM parts WHERE note = $1", &[&rid.0])?;
        if parts.is_empty() {
            return Ok(());
        }
        let numbers: Vec<i64> = parts.iter().map(|p| i64::from(p.number)).collect();
        let summaries: Vec<&str> = parts.iter().map(|p| p.summary.as_str()).collect();
        let tags: Vec<String> = parts.iter().map(|p| json_tags(&p.tags)).collect();
        self.exec(
            "INSERT INTO parts (note, number, summary, tags)
             SELECT $1, n, s, t FROM unnest($2::bigint[], $3::text[], $4::text[]) AS x(n, s, t)",
            &[&rid.0, &numbers, &summaries, &tags],
        )?;
        Ok(())
    }

    // Edges.

    pub fn replace_edges(&self, rid: NoteRid, edges: &[(String, String)]) -> Result<()> {
        self.exec("DELETE FROM edges WHERE source = $1", &[&rid.0])?;
        for (key, target) in edges {
            self.add_edge(rid, key, target)?;
        }
        Ok(())
    }

    // Feedback.

    pub fn feedback_among(&self, rids: &[NoteRid]) -> Result<HashMap<NoteRid, Rating>> {
        if rids.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(self
            .rows(
                "SELECT note, useful, wrong FROM feedback WHERE note = ANY($1)",
                &[&rid_list(rids)],
            )?
            .iter()
            .map(|r| {
                (
                    NoteRid(r.get(0)),
                    Rating {
                        useful: r.get(1),
                        wrong: r.get(2),
                    },
                )
            })
            .collect())
    }

    pub fn superseded_among(&self, rids: &[NoteRid]) -> Result<HashSet<NoteRid>> {
        if rids.is_empty() {
            return Ok(HashSet::new());
        }
        Ok(self
            .rows(
                "SELECT n.rid FROM notes n WHERE n.rid = ANY($1)
                 AND EXISTS (SELECT 1 FROM edges e WHERE e.target = n.id AND e.key = $2)",
                &[&rid_list(rids), &keys::SUPERSEDES],
            )?
            .iter()
            .map(|r| NoteRid(r.get(0)))
            .collect())
    }

    // Listings.

    pub fn list_notes_from(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        offset: usize,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        let mut q = Query::new(format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE TRUE"));
        push_filter(filter, &mut q);
        push_listing(filter, &mut q);
        q.push(crate::store::order::order_by(order));
        let limit = q.arg(limit.map(|l| l as i64));
        let offset = q.arg(offset as i64);
        q.push(&format!(" LIMIT {limit} OFFSET {offset}"));
        let rows = with_params(&q, |sql, params| self.rows(sql, params))?;
        Ok(rows.iter().map(|r| note_from_row(r).1).collect())
    }

    pub fn count_notes(&self, filter: &NoteFilter) -> Result<usize> {
        let mut q = Query::new("SELECT count(*) FROM notes n WHERE TRUE");
        push_filter(filter, &mut q);
        push_listing(filter, &mut q);
        let count: i64 = with_params(&q, |sql, params| self.one(sql, params))?.get(0);
        Ok(usize::try_from(count).unwrap_or(0))
    }

    pub fn ids_starting_with(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT id FROM notes WHERE starts_with(id, $1) ORDER BY id LIMIT $2",
                &[&prefix, &(limit as i64)],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    pub fn notes_passing(
        &self,
        rids: &[NoteRid],
        filter: &NoteFilter,
    ) -> Result<HashMap<NoteRid, Note>> {
        if rids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut q = Query::new(format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE n.rid = ANY("
        ));
        let list = q.arg(rid_list(rids));
        q.push(&format!("{list})"));
        push_filter(filter, &mut q);
        let rows = with_params(&q, |sql, params| self.rows(sql, params))?;
        Ok(rows.iter().map(note_from_row).collect())
    }

    // Watching (the rest is in `store::shared`).

    pub fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT id FROM notes WHERE starts_with(id, $1) ORDER BY id",
                &[&prefix],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
}

/// Bytes of a document's text its word index takes: a `tsvector` holds at
/// most 1 MB, lexemes and positions together.
const MAX_INDEXED_BODY: usize = 512 * 1024;

/// The start of `text` that fits the word index, cut between characters.
fn within_word_index_limit(text: &str) -> &str {
    if text.len() <= MAX_INDEXED_BODY {
        return text;
    }
    let mut end = MAX_INDEXED_BODY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
