//! The few plain statements each backend runs for queries written once
//! for every database: no parameters, rows of simple values.

use crate::error::Result;

/// Plain statements a backend runs for the queries written once for
/// every database (a census, the rows waiting for a vector).
pub(crate) trait PlainQueries {
    /// The one integer `sql` selects.
    fn count(&self, sql: &str) -> Result<i64>;
    /// (text, integer, integer) rows of `sql`.
    fn rows3(&self, sql: &str) -> Result<Vec<(String, i64, i64)>>;
    /// (integer, text) rows of `sql`.
    fn key_texts(&self, sql: &str) -> Result<Vec<(i64, String)>>;
    fn bytes(&self) -> Result<i64>;
}
