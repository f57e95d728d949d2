//! Reads and writes written once for every database, in plain SQL
//! (`plain::Sql`): the store's settings (`meta`) and vector spaces, a
//! note's row, versions and parts, counts, renames and times, edges and
//! tag lookups, ratings, the rows waiting for a vector, watched folders,
//! leases, the last seen state of watched files, and the operations log.
//! A backend holds only what its database does its own way (`Backend`);
//! these come with any store.

use super::operations::{FilterValue, INSERT, Operation, OperationFilter, filter_sql};
use super::plain::{Cell, Sql};
use super::types::{Lease, WatchedDir};
use super::vectors::{
    DIMS_KEY, MODEL_KEY, NEXT_DIMS_KEY, NEXT_MODEL_KEY, PendingText, VectorSpace, clear_next_sql,
    count_where, next_pending_condition, pending_condition, space_of, texts_where,
};
use super::{NoteRid, PartRid, VersionRid};
use crate::error::Result;
use keep_model::time::Timestamp;
use keep_model::{Part, Rating, Tags, Version, keys};

/// The temporary table of the notes a scoped embedding works on; both
/// databases find a temporary table by its bare name.
const PENDING_SCOPE: &str = "pending_scope";

/// The columns of an archived version, as `version_of` reads them.
const VERSION_COLUMNS: &str = "seq, summary, tags, content_hash, created, updated";

/// An archived version from its row (`VERSION_COLUMNS`); tags are kept as
/// JSON text in both databases.
fn version_of(r: &[Cell]) -> Result<Version> {
    Ok(Version {
        seq: r[0].int()?,
        summary: r[1].text()?,
        tags: serde_json::from_str::<Tags>(&r[2].text()?).unwrap_or_default(),
        content_hash: r[3].opt_text()?,
        created: Timestamp::from_millis(r[4].int()?),
        updated: Timestamp::from_millis(r[5].int()?),
    })
}

/// A part from its row (number, summary, tags as JSON text).
fn part_of(r: &[Cell]) -> Result<Part> {
    Ok(Part {
        number: u32::try_from(r[0].int()?).unwrap_or(u32::MAX),
        summary: r[1].text()?,
        tags: serde_json::from_str::<Tags>(&r[2].text()?).unwrap_or_default(),
    })
}

/// The queries every database answers alike.
pub trait Shared: Sql {
    /// The one integer of the first row `sql` selects, if it selects a row.
    fn first_int(&self, sql: &str, params: &[Cell]) -> Result<Option<i64>> {
        self.query(sql, params)?
            .first()
            .map(|r| r[0].int())
            .transpose()
    }

    fn note_rid(&self, id: &str) -> Result<Option<NoteRid>> {
        Ok(self
            .first_int("SELECT rid FROM notes WHERE id = ?1", &[id.into()])?
            .map(NoteRid))
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

    fn delete_edges_with_key(&self, key: &str) -> Result<()> {
        self.execute("DELETE FROM edges WHERE key = ?1", &[key.into()])?;
        Ok(())
    }

    /// Archived versions of a note, oldest first.
    fn versions(&self, rid: NoteRid) -> Result<Vec<Version>> {
        let sql = format!("SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq");
        self.query(&sql, &[rid.0.into()])?
            .iter()
            .map(|r| version_of(r))
            .collect()
    }

    /// The newest archived version of a note.
    fn latest_version(&self, rid: NoteRid) -> Result<Option<Version>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM versions WHERE note = ?1 ORDER BY seq DESC LIMIT 1"
        );
        self.query(&sql, &[rid.0.into()])?
            .first()
            .map(|r| version_of(r))
            .transpose()
    }

    /// A note's parts, in order.
    fn parts(&self, rid: NoteRid) -> Result<Vec<Part>> {
        self.query(
            "SELECT number, summary, tags FROM parts WHERE note = ?1 ORDER BY number",
            &[rid.0.into()],
        )?
        .iter()
        .map(|r| part_of(r))
        .collect()
    }

    fn part(&self, rid: NoteRid, number: u32) -> Result<Option<Part>> {
        self.query(
            "SELECT number, summary, tags FROM parts WHERE note = ?1 AND number = ?2",
            &[rid.0.into(), i64::from(number).into()],
        )?
        .first()
        .map(|r| part_of(r))
        .transpose()
    }

    /// Removes archived version `seq` of a note.
    fn delete_version(&self, rid: NoteRid, seq: i64) -> Result<()> {
        self.execute(
            "DELETE FROM versions WHERE note = ?1 AND seq = ?2",
            &[rid.0.into(), seq.into()],
        )?;
        Ok(())
    }

    /// The note of archived version `vid` and its offset (1 = previous).
    fn version_offset(&self, vid: VersionRid) -> Result<Option<(NoteRid, i64)>> {
        match self
            .query(
                "SELECT v.note, (SELECT count(*) FROM versions w WHERE w.note = v.note AND w.seq >= v.seq)
                 FROM versions v WHERE v.vid = ?1",
                &[vid.0.into()],
            )?
            .first()
        {
            Some(r) => Ok(Some((NoteRid(r[0].int()?), r[1].int()?))),
            None => Ok(None),
        }
    }

    /// Replaces the outgoing edges of note `rid`.
    fn replace_edges(&self, rid: NoteRid, edges: &[(String, String)]) -> Result<()> {
        self.execute("DELETE FROM edges WHERE source = ?1", &[rid.0.into()])?;
        for (key, target) in edges {
            self.add_edge(rid, key, target)?;
        }
        Ok(())
    }

    /// What the store holds: notes by kind, versions, parts, vectors, tag
    /// keys, each agent's writes, bytes on disk.
    fn census(&self) -> Result<super::census::Census> {
        super::census::take(self)
    }

    /// Links note `rid` to `target` by edge `key`, once.
    fn add_edge(&self, rid: NoteRid, key: &str, target: &str) -> Result<()> {
        self.execute(
            "INSERT INTO edges (source, key, target) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            &[rid.0.into(), key.into(), target.into()],
        )?;
        Ok(())
    }

    /// The edges that point at `id`: (key, source id), by key then source.
    fn edges_to(&self, id: &str) -> Result<Vec<(String, String)>> {
        self.query(
            "SELECT e.key, n.id FROM edges e JOIN notes n ON n.rid = e.source
             WHERE e.target = ?1 ORDER BY e.key, n.id",
            &[id.into()],
        )?
        .iter()
        .map(|r| Ok((r[0].text()?, r[1].text()?)))
        .collect()
    }

    /// The edge keys declared by `.tag/KEY` notes, with their inverses.
    /// The ids are read as the range from `.tag/` up to `.tag0` (`0`
    /// follows `/`), which the id index answers whatever the planner
    /// knows of the tables: as a prefix test, PostgreSQL scanned every
    /// note on each call while an import's statistics were stale.
    fn declared_edge_keys(&self) -> Result<Vec<(String, String)>> {
        self.query(
            "SELECT substr(n.id, 6), t.value FROM notes n JOIN tags t ON t.note = n.rid
             WHERE n.id >= '.tag/' AND n.id < '.tag0' AND t.key = ?1 ORDER BY n.id",
            &[keys::INVERSE.into()],
        )?
        .iter()
        .map(|r| Ok((r[0].text()?, r[1].text()?)))
        .collect()
    }

    /// The notes carrying tag `key`, with each value.
    fn notes_tagged_key(&self, key: &str) -> Result<Vec<(NoteRid, String)>> {
        self.query(
            "SELECT note, value FROM tags WHERE key = ?1 ORDER BY note, value",
            &[key.into()],
        )?
        .iter()
        .map(|r| Ok((NoteRid(r[0].int()?), r[1].text()?)))
        .collect()
    }

    /// Up to `limit` notes tagged `key=value`.
    fn rids_with_tag(&self, key: &str, value: &str, limit: usize) -> Result<Vec<NoteRid>> {
        self.query(
            "SELECT note FROM tags WHERE key = ?1 AND value = ?2 LIMIT ?3",
            &[key.into(), value.into(), (limit as i64).into()],
        )?
        .iter()
        .map(|r| Ok(NoteRid(r[0].int()?)))
        .collect()
    }

    /// User tag keys with their values, most used first, at most
    /// `values_per_key` each (for completion).
    fn tag_catalog(&self, values_per_key: usize) -> Result<Vec<(String, Vec<String>)>> {
        let rows = self.query(
            "SELECT key, value, count(*) AS uses FROM tags
             WHERE substr(key, 1, 1) <> '_'
             GROUP BY key, value ORDER BY key, uses DESC, value",
            &[],
        )?;
        let mut catalog: Vec<(String, Vec<String>)> = Vec::new();
        for row in rows {
            let (key, value) = (row[0].text()?, row[1].text()?);
            match catalog.last_mut() {
                Some((k, values)) if *k == key => {
                    if values.len() < values_per_key {
                        values.push(value);
                    }
                }
                _ => catalog.push((key, vec![value])),
            }
        }
        Ok(catalog)
    }

    /// The model and width of the store's vectors, once it has any.
    fn vector_space(&self) -> Result<Option<VectorSpace>> {
        Ok(space_of(self.meta(MODEL_KEY)?, self.meta(DIMS_KEY)?))
    }

    /// The space of the vectors kept beside the store's while it changes
    /// embedding model, if it is changing.
    fn next_vector_space(&self) -> Result<Option<VectorSpace>> {
        Ok(space_of(
            self.meta(NEXT_MODEL_KEY)?,
            self.meta(NEXT_DIMS_KEY)?,
        ))
    }

    /// Begins (or begins again) the vectors of `space` beside the store's.
    fn start_next_space(&self, space: &VectorSpace) -> Result<()> {
        self.clear_next_space()?;
        self.set_meta(NEXT_MODEL_KEY, &space.model)?;
        self.set_meta(NEXT_DIMS_KEY, &space.dims.to_string())
    }

    /// Drops the vectors of the next space and forgets it.
    fn clear_next_space(&self) -> Result<()> {
        self.batch(&clear_next_sql())
    }

    /// Rows with text and no vector, notes first; only of the notes of
    /// `set_pending_scope` when `scoped`.
    fn pending_texts_in(&self, limit: usize, scoped: bool) -> Result<Vec<PendingText>> {
        texts_where(self, limit, |kind| {
            pending_condition(kind, scoped.then_some(PENDING_SCOPE))
        })
    }

    fn count_pending(&self) -> Result<i64> {
        self.count_pending_in(false)
    }

    fn count_pending_in(&self, scoped: bool) -> Result<i64> {
        count_where(self, |kind| {
            pending_condition(kind, scoped.then_some(PENDING_SCOPE))
        })
    }

    /// Rows with a vector of the store's space and none of the next one.
    fn next_pending_texts(&self, limit: usize) -> Result<Vec<PendingText>> {
        texts_where(self, limit, next_pending_condition)
    }

    fn count_next_pending(&self) -> Result<i64> {
        count_where(self, next_pending_condition)
    }

    /// One of the store's settings (its schema version, vector space...).
    fn meta(&self, key: &str) -> Result<Option<String>> {
        let rows = self.query("SELECT value FROM meta WHERE key = ?1", &[key.into()])?;
        rows.first().map(|r| r[0].text()).transpose()
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[key.into(), value.into()],
        )?;
        Ok(())
    }

    /// Adds one rating to note `rid` and returns its totals.
    fn rate(&self, rid: NoteRid, useful: bool, at: Timestamp) -> Result<Rating> {
        let (u, w) = if useful { (1, 0) } else { (0, 1) };
        self.execute(
            "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (note) DO UPDATE SET useful = feedback.useful + ?2,
                 wrong = feedback.wrong + ?3, updated = ?4",
            &[rid.0.into(), u.into(), w.into(), at.millis().into()],
        )?;
        Ok(self.rating(rid)?.unwrap_or_default())
    }

    fn rating(&self, rid: NoteRid) -> Result<Option<Rating>> {
        Ok(self.rating_with_time(rid)?.map(|(rating, _)| rating))
    }

    /// A note's ratings and when it was last rated.
    fn rating_with_time(&self, rid: NoteRid) -> Result<Option<(Rating, Timestamp)>> {
        let rows = self.query(
            "SELECT useful, wrong, updated FROM feedback WHERE note = ?1",
            &[rid.0.into()],
        )?;
        rows.first()
            .map(|r| {
                let rating = Rating {
                    useful: r[0].int()?,
                    wrong: r[1].int()?,
                };
                Ok((rating, Timestamp::from_millis(r[2].int()?)))
            })
            .transpose()
    }

    /// Sets a note's ratings and when it was last rated (an import).
    fn set_rating(&self, rid: NoteRid, rating: &Rating, at: Timestamp) -> Result<()> {
        self.execute(
            "INSERT INTO feedback (note, useful, wrong, updated) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (note) DO UPDATE SET useful = ?2, wrong = ?3, updated = ?4",
            &[
                rid.0.into(),
                rating.useful.into(),
                rating.wrong.into(),
                at.millis().into(),
            ],
        )?;
        Ok(())
    }

    fn add_watch(&self, w: &WatchedDir, now: i64) -> Result<()> {
        let excludes = serde_json::to_string(&w.excludes).expect("strings serialise");
        self.execute(
            "INSERT INTO watches (dir, recursive, excludes, added) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (dir) DO UPDATE SET recursive = ?2, excludes = ?3",
            &[
                w.dir.as_str().into(),
                w.recursive.into(),
                excludes.into(),
                now.into(),
            ],
        )?;
        Ok(())
    }

    /// Removes a registration; true when there was one.
    fn remove_watch(&self, dir: &str) -> Result<bool> {
        Ok(self.execute("DELETE FROM watches WHERE dir = ?1", &[dir.into()])? > 0)
    }

    fn watches(&self) -> Result<Vec<WatchedDir>> {
        self.query(
            "SELECT dir, recursive, excludes FROM watches ORDER BY dir",
            &[],
        )?
        .iter()
        .map(|r| {
            Ok(WatchedDir {
                dir: r[0].text()?,
                recursive: r[1].bool()?,
                excludes: serde_json::from_str(&r[2].text()?).unwrap_or_default(),
            })
        })
        .collect()
    }

    fn lease(&self, name: &str) -> Result<Option<Lease>> {
        let rows = self.query(
            "SELECT holder, pid, since, expires FROM leases WHERE name = ?1",
            &[name.into()],
        )?;
        rows.first()
            .map(|r| {
                Ok(Lease {
                    holder: r[0].text()?,
                    pid: r[1].int()?,
                    since: r[2].int()?,
                    expires: r[3].int()?,
                })
            })
            .transpose()
    }

    /// Takes or renews lease `name` for `holder` unless someone else holds
    /// it unexpired. True when `holder` holds it now.
    fn take_lease(
        &self,
        name: &str,
        holder: &str,
        pid: i64,
        now: i64,
        expires: i64,
    ) -> Result<bool> {
        if let Some(current) = self.lease(name)?
            && current.holder != holder
            && current.expires > now
        {
            return Ok(false);
        }
        self.execute(
            "INSERT INTO leases (name, holder, pid, since, expires) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (name) DO UPDATE SET
               since = CASE WHEN leases.holder = ?2 THEN leases.since ELSE ?4 END,
               holder = ?2, pid = ?3, expires = ?5",
            &[
                name.into(),
                holder.into(),
                pid.into(),
                now.into(),
                expires.into(),
            ],
        )?;
        Ok(true)
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<()> {
        self.execute(
            "DELETE FROM leases WHERE name = ?1 AND holder = ?2",
            &[name.into(), holder.into()],
        )?;
        Ok(())
    }

    /// The size and modification time last seen for a file id.
    fn file_state(&self, id: &str) -> Result<Option<(i64, i64)>> {
        let rows = self.query(
            "SELECT size, mtime FROM file_state WHERE id = ?1",
            &[id.into()],
        )?;
        rows.first()
            .map(|r| Ok((r[0].int()?, r[1].int()?)))
            .transpose()
    }

    fn set_file_state(&self, id: &str, size: i64, mtime: i64) -> Result<()> {
        self.execute(
            "INSERT INTO file_state (id, size, mtime) VALUES (?1, ?2, ?3)
             ON CONFLICT (id) DO UPDATE SET size = ?2, mtime = ?3",
            &[id.into(), size.into(), mtime.into()],
        )?;
        Ok(())
    }

    fn forget_file_state(&self, id: &str) -> Result<()> {
        self.execute("DELETE FROM file_state WHERE id = ?1", &[id.into()])?;
        Ok(())
    }

    /// Appends a write to the operations log, as done by this handle's
    /// agent.
    fn log_operation(
        &self,
        at: Timestamp,
        op: &str,
        note: &str,
        version: i64,
        detail: &str,
    ) -> Result<()> {
        let agent = self.agent();
        self.append_operation(&Operation::by(&agent, at, op, note, version, detail))
    }

    /// Appends an entry to the operations log as it is given (its agent,
    /// its time): a write being logged, or one from an import.
    fn append_operation(&self, entry: &Operation) -> Result<()> {
        self.execute(
            &format!("{INSERT} (?1, ?2, ?3, ?4, ?5, ?6)"),
            &[
                entry.at.millis().into(),
                entry.agent.as_str().into(),
                entry.op.as_str().into(),
                entry.note.as_str().into(),
                entry.version.into(),
                entry.detail.as_str().into(),
            ],
        )?;
        Ok(())
    }

    /// Entries of the operations log, newest first.
    fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let (sql, values) = filter_sql(filter, |n| format!("?{n}"));
        let params: Vec<Cell> = values
            .into_iter()
            .map(|v| match v {
                FilterValue::Text(t) => Cell::Text(t),
                FilterValue::Int(i) => Cell::Int(i),
            })
            .collect();
        self.query(&sql, &params)?
            .iter()
            .map(|r| {
                Ok(Operation {
                    seq: r[0].int()?,
                    at: Timestamp::from_millis(r[1].int()?),
                    agent: r[2].text()?,
                    op: r[3].text()?,
                    note: r[4].text()?,
                    version: r[5].int()?,
                    detail: r[6].text()?,
                })
            })
            .collect()
    }
}

impl<T: Sql + ?Sized> Shared for T {}
