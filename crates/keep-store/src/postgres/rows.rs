//! Writes of rows on PostgreSQL: notes and their tags with their word
//! indexes, versions, parts and edges.

use super::PgDb;
use crate::error::Result;
use crate::ids::{NoteRid, PartRid, VersionRid};
use crate::plan::{indexed_length, tags_index_text};
use crate::prelude::*;
use keep_model::{Note, Part, Tags, Version};
use std::collections::HashMap;

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

    /// Notes inserted by one statement with their word indexes and tags;
    /// their row keys in the order given.
    fn insert_indexed_chunk(&self, chunk: &[(Note, Option<String>)]) -> Result<Vec<NoteRid>> {
        let notes: Vec<&Note> = chunk.iter().map(|(n, _)| n).collect();
        let embedded: Vec<Option<&str>> = chunk.iter().map(|(_, e)| e.as_deref()).collect();
        let ids: Vec<&str> = notes.iter().map(|n| n.id.as_str()).collect();
        let summaries: Vec<&str> = notes.iter().map(|n| n.summary.as_str()).collect();
        let hashes: Vec<Option<&str>> = notes.iter().map(|n| n.content_hash.as_deref()).collect();
        let millis = |f: fn(&Note) -> i64| notes.iter().map(|n| f(n)).collect::<Vec<i64>>();
        let created = millis(|n| n.created.millis());
        let updated = millis(|n| n.updated.millis());
        let accessed = millis(|n| n.accessed.millis());
        let at = millis(|n| n.at.millis());
        let tags_texts: Vec<String> = notes.iter().map(|n| tags_index_text(&n.tags)).collect();
        let lengths: Vec<i32> = notes
            .iter()
            .zip(&tags_texts)
            .map(|(n, t)| indexed_length(&n.summary) + indexed_length(t))
            .collect();
        let (mut tag_ids, mut keys, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for note in &notes {
            for (k, v) in note.tags.pairs() {
                tag_ids.push(note.id.as_str());
                keys.push(k);
                values.push(v);
            }
        }
        let rids: HashMap<String, i64> = self
            .rows(
                "WITH x AS (
                     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[],
                                          $6::bigint[], $7::bigint[], $8::text[], $9::int[], $13::text[])
                         AS x(id, summary, content_hash, created, updated, accessed, event_at, tags_text,
                              length, embedded)),
                 n AS (
                     INSERT INTO notes (id, summary, content_hash, created, updated, accessed,
                                        event_at, words, words_length, embedded)
                     SELECT id, summary, content_hash, created, updated, accessed, event_at,
                            setweight(to_tsvector('english', keep_words(summary)), 'A')
                            || setweight(to_tsvector('english', keep_words(tags_text)), 'B'),
                            length, embedded
                     FROM x
                     RETURNING rid, id),
                 t AS (INSERT INTO tags (note, key, value)
                       SELECT n.rid, y.k, y.v
                       FROM unnest($10::text[], $11::text[], $12::text[]) AS y(id, k, v)
                       JOIN n ON n.id = y.id)
                 SELECT id, rid FROM n",
                &[
                    &ids, &summaries, &hashes, &created, &updated, &accessed, &at, &tags_texts,
                    &lengths, &tag_ids, &keys, &values, &embedded,
                ],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        Ok(ids.iter().map(|id| NoteRid(rids[*id])).collect())
    }
}

/// Rows written by one statement of many: their values travel as arrays.
const ROWS_A_BATCH: usize = 1_000;

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

    /// A thousand notes to a statement, their tags with them.
    fn insert_indexed_notes(&self, notes: &[(Note, Option<String>)]) -> Result<Vec<NoteRid>> {
        let mut rids = Vec::with_capacity(notes.len());
        for chunk in notes.chunks(ROWS_A_BATCH) {
            rids.extend(self.insert_indexed_chunk(chunk)?);
        }
        Ok(rids)
    }

    fn insert_versions(
        &self,
        rows: &[(NoteRid, i64, &Version, Option<&str>)],
    ) -> Result<Vec<VersionRid>> {
        let mut vids = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(ROWS_A_BATCH) {
            let notes: Vec<i64> = chunk.iter().map(|r| r.0.0).collect();
            let seqs: Vec<i64> = chunk.iter().map(|r| r.1).collect();
            let summaries: Vec<&str> = chunk.iter().map(|r| r.2.summary.as_str()).collect();
            let tags: Vec<String> = chunk.iter().map(|r| json_tags(&r.2.tags)).collect();
            let hashes: Vec<Option<&str>> =
                chunk.iter().map(|r| r.2.content_hash.as_deref()).collect();
            let created: Vec<i64> = chunk.iter().map(|r| r.2.created.millis()).collect();
            let updated: Vec<i64> = chunk.iter().map(|r| r.2.updated.millis()).collect();
            let lengths: Vec<i32> = chunk.iter().map(|r| indexed_length(&r.2.summary)).collect();
            let at: Vec<i64> = chunk.iter().map(|r| r.2.at.millis()).collect();
            let embedded: Vec<Option<&str>> = chunk.iter().map(|r| r.3).collect();
            let keys: HashMap<(i64, i64), i64> = self
                .rows(
                    "INSERT INTO versions (note, seq, summary, tags, content_hash, created, updated, length,
                                           event_at, embedded)
                     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                                          $6::bigint[], $7::bigint[], $8::int[], $9::bigint[], $10::text[])
                     RETURNING note, seq, vid",
                    &[
                        &notes, &seqs, &summaries, &tags, &hashes, &created, &updated, &lengths, &at,
                        &embedded,
                    ],
                )?
                .iter()
                .map(|r| ((r.get(0), r.get(1)), r.get(2)))
                .collect();
            vids.extend(
                notes
                    .iter()
                    .zip(&seqs)
                    .map(|(n, s)| VersionRid(keys[&(*n, *s)])),
            );
        }
        Ok(vids)
    }

    fn insert_parts(&self, rows: &[(NoteRid, &Part, Option<&str>)]) -> Result<Vec<PartRid>> {
        let mut pids = Vec::with_capacity(rows.len());
        for chunk in rows.chunks(ROWS_A_BATCH) {
            let notes: Vec<i64> = chunk.iter().map(|r| r.0.0).collect();
            let numbers: Vec<i64> = chunk.iter().map(|r| i64::from(r.1.number)).collect();
            let summaries: Vec<&str> = chunk.iter().map(|r| r.1.summary.as_str()).collect();
            let tags: Vec<String> = chunk.iter().map(|r| json_tags(&r.1.tags)).collect();
            let lengths: Vec<i32> = chunk.iter().map(|r| indexed_length(&r.1.summary)).collect();
            let embedded: Vec<Option<&str>> = chunk.iter().map(|r| r.2).collect();
            let keys: HashMap<(i64, i64), i64> = self
                .rows(
                    "INSERT INTO parts (note, number, summary, tags, length, embedded)
                     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::int[],
                                          $6::text[])
                     RETURNING note, number, pid",
                    &[&notes, &numbers, &summaries, &tags, &lengths, &embedded],
                )?
                .iter()
                .map(|r| ((r.get(0), r.get(1)), r.get(2)))
                .collect();
            pids.extend(
                numbers
                    .iter()
                    .zip(&notes)
                    .map(|(p, n)| PartRid(keys[&(*n, *p)])),
            );
        }
        Ok(pids)
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
