//! Two reads at once on PostgreSQL: a second connection to the primary,
//! kept by the store and lent to another thread, so that a search's
//! keyword and vector candidates are read side by side, each on its own
//! server process.

use super::{Conn, PgDb, PgStore};
use crate::at_once::at_once;

impl PgStore {
    /// Runs `aside` on a second connection, on another thread, while
    /// `here` runs on the store's own; both see every committed write. A
    /// store whose reads go to replicas, or whose second connection cannot
    /// be opened, runs them one after the other on its reader.
    pub fn beside<A: Send, B>(
        &self,
        aside: impl FnOnce(&PgDb<'_>) -> A + Send,
        here: impl FnOnce(&PgDb<'_>) -> B,
    ) -> (A, B) {
        let side = match self.replicas {
            Some(_) => None,
            None => self
                .side
                .take()
                .or_else(|| self.primary.another().map(Box::new)),
        };
        let Some(side) = side else {
            let db = self.reader();
            return (aside(&db), here(&db));
        };
        let agent = self.agent.as_str();
        let (a, b, side) = at_once(side, |side| aside(&side.db(agent)), || here(&self.db()));
        self.side.set(Some(side));
        (a, b)
    }
}

impl Conn {
    /// Another connection to the same server and database, with the same
    /// settings; None when it cannot be opened.
    pub(super) fn another(&self) -> Option<Conn> {
        let (config, connector) = (self.config.clone(), self.connector.clone());
        let client = super::off_runtime(move || config.connect(connector)).ok()?;
        Some(Conn::new(
            client,
            self.shown.clone(),
            self.config.clone(),
            self.connector.clone(),
        ))
    }
}
