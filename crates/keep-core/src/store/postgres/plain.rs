//! The plain statements of the queries written once for every database,
//! run on PostgreSQL.

use super::PgDb;
use crate::error::Result;

impl crate::store::plain::PlainQueries for PgDb<'_> {
    fn count(&self, sql: &str) -> Result<i64> {
        Ok(self.one(sql, &[])?.get(0))
    }

    fn rows3(&self, sql: &str) -> Result<Vec<(String, i64, i64)>> {
        Ok(self
            .rows(sql, &[])?
            .into_iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    fn key_texts(&self, sql: &str) -> Result<Vec<(i64, String)>> {
        Ok(self
            .rows(sql, &[])?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    fn bytes(&self) -> Result<i64> {
        Ok(self
            .one("SELECT pg_database_size(current_database())", &[])?
            .get(0))
    }
}

impl PgDb<'_> {
    pub fn census(&self) -> Result<crate::store::census::Census> {
        crate::store::census::take(self)
    }
}
