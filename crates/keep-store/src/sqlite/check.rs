//! The health of a SQLite store beyond SQLite's own check: every index
//! row belongs to a row and every row has its index entries, versions and
//! parts are numbered from 1 without gaps, vectors and their int8 codes
//! match the rows marked embedded; a rebuild that copies the notes' own
//! tables into a fresh file and derives everything else again; and a
//! consistent copy taken while others write.

use crate::prelude::*;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{DB_FILE, SqliteStore, file_uri};
use crate::error::{Error, Result};
use crate::reads::NoteReads;
use crate::vectors::VecKind;

/// Full-text indexes and the rows they index: (index, table, key).
const TEXT_INDEXES: &[(&str, &str, &str)] = &[
    ("notes_fts", "notes", "rid"),
    ("names_fts", "notes", "rid"),
    ("versions_fts", "versions", "vid"),
    ("parts_fts", "parts", "pid"),
];

/// The tables that hold what the notes are (everything else is derived),
/// in an order their references allow.
const OWN_TABLES: &[&str] = &[
    "notes",
    "tags",
    "versions",
    "parts",
    "edges",
    "feedback",
    "watches",
    "leases",
    "file_state",
    "operations",
];

fn count(conn: &Connection, sql: &str) -> Result<i64> {
    Ok(conn.query_row(sql, [], |r| r.get(0))?)
}

/// Problems found in the store's file and its derived data, one line
/// each; empty when all is well.
pub(super) fn problems(conn: &Connection, known_version: i64) -> Result<Vec<String>> {
    let mut found = Vec::new();
    match integrity(conn) {
        Ok(lines) => found.extend(lines.into_iter().map(|l| format!("database file: {l}"))),
        Err(e) => found.push(format!("database file: {e}")),
    }
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != known_version {
        found.push(format!(
            "schema version {version}, this keep's is {known_version}"
        ));
    }
    // The rest reads tables that damage may have made unreadable: each
    // check stands alone.
    let mut each = |label: String, sql: String| tally(&mut found, conn, label, &sql);
    for (index, table, key) in TEXT_INDEXES {
        each(
            format!("row(s) of {table} missing from the keyword index {index}"),
            format!(
                "SELECT count(*) FROM {table} NOT INDEXED WHERE {key} NOT IN (SELECT rowid FROM {index})"
            ),
        );
        each(
            format!("entry(ies) of the keyword index {index} for no row of {table}"),
            format!(
                "SELECT count(*) FROM {index} WHERE rowid NOT IN (SELECT {key} FROM {table} NOT INDEXED)"
            ),
        );
    }
    each(
        "entry(ies) of the full-text index body_fts for no note".into(),
        "SELECT count(*) FROM body_fts WHERE rowid NOT IN (SELECT rid FROM notes NOT INDEXED)"
            .into(),
    );
    each(
        "note(s) miscounted by the store's count of notes".into(),
        "SELECT coalesce(abs((SELECT n FROM counts WHERE name = 'notes') - count(*)), count(*))
         FROM notes"
            .into(),
    );
    for (table, column) in [("versions", "seq"), ("parts", "number")] {
        each(
            format!("note(s) whose {table} are not numbered 1, 2, 3, ..."),
            format!(
                "SELECT count(*) FROM (SELECT note FROM {table} NOT INDEXED GROUP BY note
                 HAVING min({column}) != 1 OR max({column}) != count(*))"
            ),
        );
    }
    if has_vectors(conn)? {
        for kind in VecKind::ALL {
            let (rows, key, vecs, codes) = (
                kind.row_table(),
                kind.key(),
                kind.vec_table(),
                kind.code_table(),
            );
            each(
                format!("row(s) of {rows} marked embedded without a vector"),
                format!(
                    "SELECT count(*) FROM {rows} NOT INDEXED WHERE embedded IS NOT NULL AND {key} NOT IN (SELECT rowid FROM {vecs})"
                ),
            );
            each(
                format!("vector(s) in {vecs} for no row of {rows}"),
                format!(
                    "SELECT count(*) FROM {vecs} WHERE rowid NOT IN (SELECT {key} FROM {rows} NOT INDEXED)"
                ),
            );
            each(
                format!("vector(s) in {vecs} without their int8 code"),
                format!("SELECT count(*) FROM {vecs} WHERE rowid NOT IN (SELECT key FROM {codes})"),
            );
            each(
                format!("int8 code(s) in {codes} for no vector"),
                format!("SELECT count(*) FROM {codes} WHERE key NOT IN (SELECT rowid FROM {vecs})"),
            );
        }
    }
    match foreign_key_problems(conn) {
        Ok(0) => {}
        Ok(n) => found.push(format!("{n} row(s) that point to no note")),
        Err(e) => found.push(format!("references cannot be checked ({e})")),
    }
    Ok(found)
}

/// Adds "N label" to `found` when `sql` counts N > 0 (or says it could
/// not count).
fn tally(found: &mut Vec<String>, conn: &Connection, label: String, sql: &str) {
    match count(conn, sql) {
        Ok(0) => {}
        Ok(n) => found.push(format!("{n} {label}")),
        Err(e) => found.push(format!("{label}: cannot be counted ({e})")),
    }
}

/// What SQLite's integrity check says, less its "ok".
fn integrity(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(20)")?;
    let lines = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(lines
        .into_iter()
        .flat_map(|l| l.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l != "ok" && !l.starts_with("*** in database"))
        .collect())
}

fn foreign_key_problems(conn: &Connection) -> Result<usize> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let mut rows = stmt.query([])?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}

fn has_vectors(conn: &Connection) -> Result<bool> {
    Ok(count(
        conn,
        "SELECT count(*) FROM sqlite_master WHERE name = 'codes_notes'",
    )? > 0
        && count(
            conn,
            "SELECT count(*) FROM sqlite_master WHERE name = 'vec_notes'",
        )? > 0)
}

/// The problems of the SQLite store file `path` (a backup), opened for
/// reading only.
pub fn check_file(path: &Path) -> Result<Vec<String>> {
    super::register_sqlite_vec();
    let conn = Connection::open_with_flags(
        format!("{}?mode=ro", file_uri(path)),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )?;
    problems(&conn, super::MIGRATIONS.last().map_or(0, |m| m.0))
}

/// What a rebuild did.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RebuildReport {
    pub notes: usize,
    pub versions: usize,
    pub parts: usize,
    /// Vectors copied; rows whose vector could not be kept wait for the
    /// model again.
    pub vectors: usize,
    pub vectors_waiting: usize,
    /// Whether the full-text index of the notes' original text was kept
    /// (false: it could not be read, and holds summaries and parts now).
    pub body_index_kept: bool,
    /// Where the old file was put aside.
    pub old_file: PathBuf,
}

impl SqliteStore {
    /// Every problem `problems` finds.
    pub fn check(&self) -> Result<Vec<String>> {
        problems(&self.conn, super::MIGRATIONS.last().map_or(0, |m| m.0))
    }

    /// A consistent copy of the store at `to` (SQLite's VACUUM INTO: one
    /// read transaction, so writers go on meanwhile). `to` must not exist.
    pub fn backup(&self, to: &Path) -> Result<()> {
        if to.exists() {
            return Err(Error::invalid(format!(
                "{}: already exists; give a new file",
                to.display()
            )));
        }
        self.conn
            .execute("VACUUM INTO ?1", [to.to_string_lossy().as_ref()])
            .map_err(|e| super::located(to, e.into()))?;
        Ok(())
    }

    /// Copies the notes' own tables into a fresh file, derives everything
    /// else again (keyword indexes, int8 codes; vectors are copied where
    /// they can be read) and puts the fresh file in place of the old one,
    /// which is kept beside it. `progress` hears notes done of all.
    pub fn rebuild(&mut self, progress: &mut dyn FnMut(usize, usize)) -> Result<RebuildReport> {
        if self.read_only {
            return Err(self.refusal());
        }
        let dir = self.path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let fresh_dir = dir.join(format!(".rebuild-{}", std::process::id()));
        if fresh_dir.exists() {
            std::fs::remove_dir_all(&fresh_dir).map_err(|e| Error::io(&fresh_dir, e))?;
        }
        let result = self.rebuild_into(&fresh_dir, progress);
        let mut report = match result {
            Ok(report) => report,
            Err(e) => {
                // A half-made copy left behind is only disk space; the store is untouched.
                std::fs::remove_dir_all(&fresh_dir).ok();
                return Err(e);
            }
        };
        report.old_file = self.swap_in(&fresh_dir)?;
        Ok(report)
    }

    fn rebuild_into(
        &self,
        fresh_dir: &Path,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<RebuildReport> {
        let fresh = SqliteStore::open(fresh_dir)?;
        let mut report = RebuildReport::default();
        let old = self.db();
        let space = old.vector_space().ok().flatten();
        // Made before the old file is attached, so that no unqualified
        // name can reach it.
        if let Some(space) = &space {
            fresh.db().create_vector_space(space)?;
        }
        fresh.conn.execute(
            "ATTACH ?1 AS old",
            [format!("{}?mode=ro", file_uri(&self.path))],
        )?;
        let conn = &fresh.conn;
        conn.execute_batch("BEGIN")?;
        let copied = (|| -> Result<()> {
            for table in OWN_TABLES {
                conn.execute_batch(&format!(
                    "INSERT INTO main.{table} SELECT * FROM old.{table} NOT INDEXED"
                ))?;
            }
            conn.execute_batch(
                "INSERT OR REPLACE INTO main.meta SELECT * FROM old.meta NOT INDEXED",
            )?;
            report.notes = count(conn, "SELECT count(*) FROM main.notes")? as usize;
            report.versions = count(conn, "SELECT count(*) FROM main.versions")? as usize;
            report.parts = count(conn, "SELECT count(*) FROM main.parts")? as usize;
            reindex_notes(&fresh, report.notes, progress)?;
            report.body_index_kept = copy_body_index(conn).is_ok();
            if !report.body_index_kept {
                index_bodies_from_summaries(conn)?;
            }
            if space.is_some() {
                report.vectors = copy_vectors(conn)?;
                report.vectors_waiting = unmark_missing_vectors(conn)?;
            }
            Ok(())
        })();
        match copied {
            Ok(()) => conn.execute_batch("COMMIT")?,
            Err(e) => {
                // The copy failed: its error is returned, and the fresh file is thrown away.
                conn.execute_batch("ROLLBACK").ok();
                return Err(e);
            }
        }
        conn.execute_batch("DETACH old")?;
        if space.is_some() {
            fresh.db().create_codes()?;
        }
        let left = problems(conn, super::MIGRATIONS.last().map_or(0, |m| m.0))?;
        if !left.is_empty() {
            return Err(Error::invalid(format!(
                "the rebuilt store is not sound either ({}); the store was left as it was",
                left.join("; ")
            )));
        }
        Ok(report)
    }

    /// Puts the fresh file in place, the old one (and its journal) beside
    /// it as `keep.db.before-repair-<time>`; returns that name.
    fn swap_in(&mut self, fresh_dir: &Path) -> Result<PathBuf> {
        let stamp = keep_model::wall_ms();
        let aside = self
            .path
            .with_file_name(format!("{DB_FILE}.before-repair-{stamp}"));
        // This connection goes first, so nothing of it writes to the old
        // file after it moved.
        let placeholder = Connection::open_in_memory()?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        let rename =
            |from: &Path, to: &Path| std::fs::rename(from, to).map_err(|e| Error::io(from, e));
        rename(&self.path, &aside)?;
        for suffix in ["-wal", "-shm"] {
            let journal = PathBuf::from(format!("{}{suffix}", self.path.display()));
            if journal.exists() {
                rename(
                    &journal,
                    &PathBuf::from(format!("{}{suffix}", aside.display())),
                )?;
            }
        }
        rename(&fresh_dir.join(DB_FILE), &self.path)?;
        // The old file is kept beside the store; an empty scratch folder left behind harms nothing.
        std::fs::remove_dir_all(fresh_dir).ok();
        *self = SqliteStore::open(self.path.parent().unwrap_or(Path::new(".")))?;
        Ok(aside)
    }
}

/// Indexes every note's summary and tags for keyword search.
fn reindex_notes(
    fresh: &SqliteStore,
    total: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<()> {
    let db = fresh.db();
    let notes = db.all_notes()?;
    for (done, (rid, note)) in notes.iter().enumerate() {
        db.index_note_text(*rid, &note.summary, &note.tags)?;
        if done % 500 == 0 {
            progress(done, total);
        }
    }
    progress(total, total);
    Ok(())
}

/// Copies the index of the notes' original text (it cannot be made again:
/// the text is not stored) and checks it; an error leaves it empty.
fn copy_body_index(conn: &Connection) -> Result<()> {
    let copied = (|| -> Result<()> {
        for shadow in ["data", "idx", "docsize", "config"] {
            conn.execute_batch(&format!(
                "DELETE FROM main.body_fts_{shadow};
                 INSERT INTO main.body_fts_{shadow} SELECT * FROM old.body_fts_{shadow}"
            ))?;
        }
        conn.execute_batch(
            "INSERT INTO main.body_fts (body_fts) VALUES ('integrity-check');
             DELETE FROM main.body_fts WHERE rowid NOT IN (SELECT rid FROM main.notes)",
        )?;
        Ok(())
    })();
    if copied.is_err() {
        conn.execute_batch("INSERT INTO main.body_fts (body_fts) VALUES ('delete-all')")?;
    }
    copied
}

/// The full-text index made from what is stored: each note's summary and
/// the summaries of its parts.
fn index_bodies_from_summaries(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT INTO main.body_fts (rowid, body)
         SELECT n.rid, n.summary || coalesce(' ' || (SELECT group_concat(p.summary, ' ')
                FROM main.parts p WHERE p.note = n.rid), '')
         FROM main.notes n",
    )?;
    Ok(())
}

/// Copies the vectors of rows marked embedded; returns how many.
fn copy_vectors(conn: &Connection) -> Result<usize> {
    let mut copied = 0;
    for kind in VecKind::ALL {
        let (rows, key, vecs) = (kind.row_table(), kind.key(), kind.vec_table());
        let sql = format!(
            "INSERT INTO main.{vecs} (rowid, embedding)
             SELECT rowid, embedding FROM old.{vecs}
             WHERE rowid IN (SELECT {key} FROM main.{rows} WHERE embedded IS NOT NULL)"
        );
        // Vectors that cannot be read are made again by the model.
        if let Ok(n) = conn.execute(&sql, []) {
            copied += n;
        }
    }
    Ok(copied)
}

/// Rows marked embedded whose vector did not come across wait for the
/// model again; returns how many.
fn unmark_missing_vectors(conn: &Connection) -> Result<usize> {
    let mut waiting = 0;
    for kind in VecKind::ALL {
        let (rows, key, vecs) = (kind.row_table(), kind.key(), kind.vec_table());
        waiting += conn.execute(
            &format!(
                "UPDATE main.{rows} SET embedded = NULL
                 WHERE embedded IS NOT NULL AND {key} NOT IN (SELECT rowid FROM main.{vecs})"
            ),
            [],
        )?;
    }
    Ok(waiting)
}
