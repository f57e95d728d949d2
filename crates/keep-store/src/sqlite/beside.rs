//! Two reads at once: a second connection to the same database, kept by
//! the store and lent to another thread, so that a search's keyword and
//! vector candidates are read side by side rather than one after the
//! other.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{BUSY_TIMEOUT, SqliteDb, SqliteStore, file_uri};
use crate::at_once::at_once;
use crate::operations::DEFAULT_AGENT;

impl SqliteStore {
    /// Runs `aside` on a second connection, on another thread, while
    /// `here` runs on this store's own; both see every committed write.
    /// A store opened for reading only, or one whose second connection
    /// cannot be opened, runs them one after the other.
    pub fn beside<A: Send, B>(
        &self,
        aside: impl FnOnce(&SqliteDb<'_>) -> A + Send,
        here: impl FnOnce(&SqliteDb<'_>) -> B,
    ) -> (A, B) {
        let Some(side) = self.side.take().or_else(|| self.open_side()) else {
            return (aside(&self.db()), here(&self.db()));
        };
        let codes = self.codes.clone();
        let (a, b, side) = at_once(
            side,
            move |side| {
                aside(&SqliteDb {
                    conn: side,
                    codes: &codes,
                    agent: DEFAULT_AGENT,
                })
            },
            || here(&self.db()),
        );
        self.side.set(Some(side));
        (a, b)
    }

    /// A connection that can only read, for `beside`; None for a store
    /// opened for reading (it may be a snapshot that a second connection
    /// would not see the same way).
    fn open_side(&self) -> Option<Box<Connection>> {
        if self.read_only {
            return None;
        }
        open_for_reads(&self.path).map(Box::new)
    }
}

fn open_for_reads(path: &Path) -> Option<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(format!("{}?mode=ro", file_uri(path)), flags).ok()?;
    conn.busy_timeout(BUSY_TIMEOUT).ok()?;
    Some(conn)
}

#[cfg(test)]
mod tests {
    use crate::backend::NoteWrites;
    use crate::reads::NoteReads;
    use crate::sqlite::SqliteStore;
    use crate::store::test_note;
    use keep_model::NoteFilter;
    use keep_model::time::Timestamp;

    fn note(id: &str) -> keep_model::Note {
        test_note(id, id, Timestamp::from_millis(0))
    }

    #[test]
    fn both_connections_read_the_latest_writes_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(dir.path()).unwrap();
        store
            .write(|db| db.insert_note(&note("first")).map(|_| ()))
            .unwrap();
        let threads = |store: &SqliteStore| {
            store.beside(
                |db| {
                    (
                        std::thread::current().id(),
                        db.count_notes(&NoteFilter::default()).unwrap(),
                    )
                },
                |db| {
                    (
                        std::thread::current().id(),
                        db.count_notes(&NoteFilter::default()).unwrap(),
                    )
                },
            )
        };
        let ((aside, counted_aside), (here, counted_here)) = threads(&store);
        assert_ne!(aside, here, "the second read runs on another thread");
        assert_eq!((counted_aside, counted_here), (1, 1));
        // The second connection is kept, and sees what is written after.
        store
            .write(|db| db.insert_note(&note("second")).map(|_| ()))
            .unwrap();
        let ((_, counted_aside), (_, counted_here)) = threads(&store);
        assert_eq!((counted_aside, counted_here), (2, 2));
    }
}
