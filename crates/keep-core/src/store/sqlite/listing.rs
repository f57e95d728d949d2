//! Listings: pages of notes in an order, counts, and the tag catalogue.

use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::SqliteDb;
use super::filter::push_filter_sql;
use super::notes::{NOTE_COLUMNS, note_from_row};
use crate::error::Result;
use crate::model::{ListOrder, Note, NoteFilter, keys};

/// Listings also hide stub notes (made by edges, with no text of their
/// own) unless system notes are asked for; recall still reaches them.
fn push_listing_sql(filter: &NoteFilter, sql: &mut String, args: &mut Vec<Value>) {
    let asks_stubs = filter.tags.iter().any(|t| t.key == keys::STUB);
    if !filter.include_system && !asks_stubs {
        sql.push_str(" AND n.rid NOT IN (SELECT t.note FROM tags t WHERE t.key = ?)");
        args.push(Value::Text(keys::STUB.into()));
    }
}

/// The query of a page of a listing: the notes passing `filter` in
/// `order`, `limit` of them after the first `offset`.
fn listing_query(
    filter: &NoteFilter,
    order: ListOrder,
    offset: usize,
    limit: Option<usize>,
) -> (String, Vec<Value>) {
    let mut sql = format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE 1");
    let mut args = Vec::new();
    push_filter_sql(filter, &mut sql, &mut args);
    push_listing_sql(filter, &mut sql, &mut args);
    sql.push_str(crate::store::order::order_by(order));
    sql.push_str(" LIMIT ? OFFSET ?");
    args.push(Value::Integer(limit.map_or(-1, |l| l as i64)));
    args.push(Value::Integer(offset as i64));
    (sql, args)
}

impl SqliteDb<'_> {
    /// The notes passing `filter` in `order`, skipping the first `offset`,
    /// at most `limit`.
    pub fn list_notes_from(
        &self,
        filter: &NoteFilter,
        order: ListOrder,
        offset: usize,
        limit: Option<usize>,
    ) -> Result<Vec<Note>> {
        let (sql, args) = listing_query(filter, order, offset, limit);
        let mut stmt = self.conn.prepare(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .map(|r| r.map(|(_, n)| n))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(notes)
    }

    /// How many notes pass `filter`.
    pub fn count_notes(&self, filter: &NoteFilter) -> Result<usize> {
        let mut sql = "SELECT count(*) FROM notes n WHERE 1".to_string();
        let mut args = Vec::new();
        push_filter_sql(filter, &mut sql, &mut args);
        push_listing_sql(filter, &mut sql, &mut args);
        let count: i64 = self
            .conn
            .query_row(&sql, params_from_iter(args), |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// Ids starting with `prefix`, in order, at most `limit`: a range scan
    /// of the id index.
    pub fn ids_starting_with(&self, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let end = format!("{prefix}\u{10FFFF}");
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM notes WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        )?;
        let rows = stmt.query_map(rusqlite::params![prefix, end, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Changes whenever another connection commits to the database.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            let (sql, args) = listing_query(&filter, order, 0, Some(20));
            let mut stmt = store
                .conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap();
            let plan: Vec<String> = stmt
                .query_map(params_from_iter(args), |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert!(
                plan.iter()
                    .any(|step| step.starts_with("SCAN n USING INDEX"))
                    && !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                "{order:?}: {plan:?}"
            );
        }
    }
}
