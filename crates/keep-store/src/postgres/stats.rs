//! How many rows of an index hold a word, without counting them: keyword
//! ranking weighs each word by its rarity, and counting the matches of a
//! common word costs as much as reading them. PostgreSQL's statistics of
//! each `tsvector` column list its most common lexemes with their shares
//! of rows; a word among them is estimated from its share, any other word
//! is rarer and counted exactly (few rows, found through the index). Tables the
//! statistics have not seen yet are counted exactly. How many rows each
//! index holds comes from the word totals its triggers keep.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::PgDb;
use crate::error::Result;

/// How long statistics read from the server are used before reading them
/// again (they change only when the server analyses the table).
const FRESH_FOR: Duration = Duration::from_secs(60);

/// The most common lexemes of one column, with their shares of rows.
struct Common {
    shares: HashMap<String, f64>,
    rows: f64,
    read: Instant,
}

/// The statistics of one column; None when the server has none yet.
type Listed = Arc<Option<Common>>;

/// Statistics read so far, by table and column, and stems of words.
#[derive(Default)]
pub(super) struct WordStats {
    /// The candidate list size HNSW searches keep, as last set.
    pub(super) ef_search: std::cell::Cell<usize>,
    columns: RefCell<HashMap<(String, String), Listed>>,
    stems: RefCell<HashMap<String, Option<String>>>,
}

impl WordStats {
    /// Forgets the counts read so far: many rows arrived (an import).
    pub(super) fn forget(&self) {
        self.columns.borrow_mut().clear();
    }
}

impl PgDb<'_> {
    /// Rows in `table`, one of the tables keyword search reads, as its
    /// word totals count them (exact, whatever the size).
    pub(super) fn rows_in(&self, table: &str) -> Result<f64> {
        let column = if table == "notes" {
            "words_length"
        } else {
            "length"
        };
        Ok(self.kept_totals(&format!("{table}.{column}"))?.0 as f64)
    }

    /// How many texts `column` of `table` holds and their average length
    /// in words, as the store's triggers keep them (`text_totals`).
    pub(super) fn text_totals(&self, table: &str, column: &str) -> Result<(f64, f64)> {
        let (rows, words) = self.kept_totals(&format!("{table}.{column}"))?;
        let average = if rows > 0 {
            words as f64 / rows as f64
        } else {
            0.0
        };
        Ok((rows as f64, average))
    }

    /// The texts and words of the length column `name` ("table.column"),
    /// as its rows of totals sum.
    pub(super) fn kept_totals(&self, name: &str) -> Result<(i64, i64)> {
        let row = self.one(
            "SELECT coalesce(sum(rows), 0)::bigint, coalesce(sum(words), 0)::bigint
             FROM text_totals WHERE name = $1",
            &[&name],
        )?;
        Ok((row.get(0), row.get(1)))
    }

    /// The lexeme a word is indexed under; None for a word the index
    /// leaves out (a stop word).
    pub(super) fn stem(&self, word: &str) -> Result<Option<String>> {
        if let Some(stem) = self.conn.words.stems.borrow().get(word) {
            return Ok(stem.clone());
        }
        let stem: Option<String> = self
            .one(
                "SELECT (tsvector_to_array(to_tsvector('english', $1)))[1]",
                &[&word],
            )?
            .get(0);
        self.conn
            .words
            .stems
            .borrow_mut()
            .insert(word.to_string(), stem.clone());
        Ok(stem)
    }

    fn common(&self, table: &str, column: &str) -> Result<Listed> {
        let key = (table.to_string(), column.to_string());
        if let Some(found) = self.conn.words.columns.borrow().get(&key)
            && found
                .as_ref()
                .as_ref()
                .is_none_or(|c| c.read.elapsed() < FRESH_FOR)
        {
            return Ok(Arc::clone(found));
        }
        // A column the server has analysed lists its common lexemes, or
        // none when no lexeme is common (or the column is empty, as the
        // names of inline notes are): every word is then rare.
        let row = self.row(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs
             FROM pg_stats WHERE schemaname = current_schema()
             AND tablename = $1 AND attname = $2",
            &[&table, &column],
        )?;
        let common = match row {
            Some(row) => {
                let lexemes: Option<Vec<String>> = row.get(0);
                let shares: Option<Vec<f32>> = row.get(1);
                Some(Common {
                    shares: lexemes
                        .unwrap_or_default()
                        .into_iter()
                        .zip(shares.unwrap_or_default().iter().map(|&f| f64::from(f)))
                        .collect(),
                    rows: self.rows_in(table)?,
                    read: Instant::now(),
                })
            }
            None => None,
        };
        let common = Arc::new(common);
        self.conn
            .words
            .columns
            .borrow_mut()
            .insert(key, Arc::clone(&common));
        Ok(common)
    }

    /// How many rows of `table` hold `word` in `column`, counting at most
    /// `cap`: estimated from the statistics for a common word, counted
    /// for a rare one.
    pub(super) fn rows_holding(
        &self,
        table: &str,
        column: &str,
        word: &str,
        cap: i64,
    ) -> Result<f64> {
        let Some(stem) = self.stem(word)? else {
            return self.rows_in(table);
        };
        let matches = format!("{column} @@ to_tsquery('simple', quote_literal($1))");
        let count: i64 = match self.common(table, column)?.as_ref() {
            Some(common) => {
                if let Some(share) = common.shares.get(&stem) {
                    return Ok(share * common.rows);
                }
                // Not listed, so rare: counting all its rows is cheap, and a
                // limit would tempt the planner to scan the whole table.
                let sql = format!("SELECT count(*) FROM {table} WHERE {matches}");
                self.one(&sql, &[&stem])?.get(0)
            }
            None => {
                let sql = format!(
                    "SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {matches} LIMIT $2) AS x"
                );
                self.one(&sql, &[&stem, &cap])?.get(0)
            }
        };
        Ok(count as f64)
    }
}
