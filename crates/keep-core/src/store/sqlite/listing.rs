//! What SQLite says of itself for listings: whether another connection
//! wrote since the last look (the listings themselves are in
//! `store::reads`).

use super::SqliteDb;
use crate::error::Result;

impl SqliteDb<'_> {
    /// Changes whenever another connection commits to the database.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ListOrder, NoteFilter};
    use crate::store::Sql;
    use crate::store::dialect::Dialect;
    use crate::store::reads::listing_query;
    use crate::store::sqlite::SqliteStore as Store;

    /// The first page of a listing reads notes in the order of an index
    /// and stops after the page, whatever the order: no sort of every
    /// note (which a bulk import sharing one date made cost a second at a
    /// million notes).
    #[test]
    fn a_listing_page_walks_an_index_in_its_order_without_sorting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let filter = NoteFilter {
            as_of: Some(crate::model::Timestamp::from_millis(0)),
            ..NoteFilter::default()
        };
        for order in [
            ListOrder::Updated,
            ListOrder::Created,
            ListOrder::Accessed,
            ListOrder::Id,
        ] {
            let q = listing_query(Dialect::Sqlite, &filter, order, 0, Some(20));
            let plan: Vec<String> = store
                .db()
                .query(&format!("EXPLAIN QUERY PLAN {}", q.sql), &q.args)
                .unwrap()
                .iter()
                .map(|r| r[3].text().unwrap())
                .collect();
            assert!(
                plan.iter()
                    .any(|step| step.starts_with("SCAN n USING INDEX"))
                    && !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                "{order:?}: {plan:?}"
            );
        }
    }
}
