//! Writes of rows on PostgreSQL: notes and their tags with their word
//! indexes, versions, parts and edges.

use super::PgDb;
use crate::error::Result;
use crate::ids::{NoteRid, VersionRid};
use crate::plan::{indexed_length, tags_index_text};
use crate::prelude::*;
use keep_model::{Note, Part, Tags, Version};

fn json_tags(tags: &Tags) -> String {
    serde_json::to_string(tags).expect("tags serialise")
}

impl PgDb<'_> {
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

    // Versions.

    /// Writes `version` of note `rid` as number `seq`, or after its last.
    fn write_version(
        &self,
        rid: NoteRid,
        seq: Option<i64>,
        version: &Version,
    ) -> Result<VersionRid> {
        let vid: i64 = self
            .one(
                "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated, length, event_at)
                 SELECT $1, coalesce($2::bigint, max(seq) + 1, 1), $3, $4, $5, $6, $7, $8, $9
                 FROM versions WHERE note = $1
                 RETURNING vid",
                &[
                    &rid.0,
                    &seq,
                    &version.summary,
                    &json_tags(&version.tags),
                    &version.content_hash,
                    &version.created.millis(),
                    &version.updated.millis(),
                    &indexed_length(&version.summary),
                    &version.at.millis(),
                ],
            )?
            .get(0);
        Ok(VersionRid(vid))
    }

    // Parts.
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

impl NoteWrites for PgDb<'_> {
    /// Indexed as it is inserted: one statement, and no second row
    /// version from indexing it after.
    fn insert_note(&self, note: &Note) -> Result<NoteRid> {
        self.insert_indexed_note(note)
    }

    fn update_note(&self, rid: NoteRid, note: &Note) -> Result<()> {
        self.exec(
            "UPDATE notes SET summary = $2, content_hash = $3, updated = $4, accessed = $5,
             event_at = $6 WHERE rid = $1",
            &[
                &rid.0,
                &note.summary,
                &note.content_hash,
                &note.updated.millis(),
                &note.accessed.millis(),
                &note.at.millis(),
            ],
        )?;
        self.exec("DELETE FROM tags WHERE note = $1", &[&rid.0])?;
        self.write_tags(rid, &note.tags)
    }

    fn index_note_text(&self, rid: NoteRid, summary: &str, tags: &Tags) -> Result<()> {
        let tags = tags_index_text(tags);
        self.exec(
            "UPDATE notes SET words =
                 setweight(to_tsvector('english', keep_words($2)), 'A')
                 || setweight(to_tsvector('english', keep_words($3)), 'B'),
                 words_length = $4
             WHERE rid = $1",
            &[
                &rid.0,
                &summary,
                &tags,
                &(indexed_length(summary) + indexed_length(&tags)),
            ],
        )?;
        Ok(())
    }

    fn insert_indexed_note(&self, note: &Note) -> Result<NoteRid> {
        let tags_text = tags_index_text(&note.tags);
        let (keys, values): (Vec<&str>, Vec<&str>) = note.tags.pairs().unzip();
        let rid: i64 = self
            .one(
                "WITH n AS (
                     INSERT INTO notes (id, summary, content_hash, created, updated, accessed,
                                        event_at, words, words_length)
                     VALUES ($1, $2, $3, $4, $5, $6, $7,
                             setweight(to_tsvector('english', keep_words($2)), 'A')
                             || setweight(to_tsvector('english', keep_words($8)), 'B'),
                             $9)
                     RETURNING rid),
                 t AS (INSERT INTO tags (note, key, value)
                       SELECT n.rid, k, v FROM n, unnest($10::text[], $11::text[]) AS x(k, v))
                 SELECT rid FROM n",
                &[
                    &note.id,
                    &note.summary,
                    &note.content_hash,
                    &note.created.millis(),
                    &note.updated.millis(),
                    &note.accessed.millis(),
                    &note.at.millis(),
                    &tags_text,
                    &(indexed_length(&note.summary) + indexed_length(&tags_text)),
                    &keys,
                    &values,
                ],
            )?
            .get(0);
        Ok(NoteRid(rid))
    }

    fn index_note_body(&self, rid: NoteRid, body: &str) -> Result<()> {
        if body.is_empty() {
            self.exec("DELETE FROM bodies WHERE note = $1", &[&rid.0])?;
        } else {
            self.exec(
                "INSERT INTO bodies (note, words, length)
                 VALUES ($1, to_tsvector('english', keep_words($2)), $3)
                 ON CONFLICT (note) DO UPDATE SET words = excluded.words, length = excluded.length",
                &[
                    &rid.0,
                    &within_word_index_limit(body),
                    &indexed_length(body),
                ],
            )?;
        }
        Ok(())
    }

    fn append_version(&self, rid: NoteRid, version: &Version) -> Result<VersionRid> {
        self.write_version(rid, None, version)
    }

    fn insert_version(&self, rid: NoteRid, seq: i64, version: &Version) -> Result<()> {
        self.write_version(rid, Some(seq), version).map(|_| ())
    }

    fn replace_parts(&self, rid: NoteRid, parts: &[Part]) -> Result<()> {
        self.exec("DELETE FROM parts WHERE note = $1", &[&rid.0])?;
        if parts.is_empty() {
            return Ok(());
        }
        let numbers: Vec<i64> = parts.iter().map(|p| i64::from(p.number)).collect();
        let summaries: Vec<&str> = parts.iter().map(|p| p.summary.as_str()).collect();
        let tags: Vec<String> = parts.iter().map(|p| json_tags(&p.tags)).collect();
        let lengths: Vec<i32> = parts.iter().map(|p| indexed_length(&p.summary)).collect();
        self.exec(
            "INSERT INTO parts (note, number, summary, tags, length)
             SELECT $1, n, s, t, l FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[]) AS x(n, s, t, l)",
            &[&rid.0, &numbers, &summaries, &tags, &lengths],
        )?;
        Ok(())
    }
}
