//! Plain SQL (`store::plain`) run on PostgreSQL.

use postgres::Row;
use postgres::types::{ToSql, Type};

use super::PgDb;
use crate::dialect::Dialect;
use crate::error::{Error, Result};
use crate::plain::{Cell, Query, Sql};

fn param(cell: &Cell) -> Box<dyn ToSql + Sync> {
    match cell {
        Cell::Null => Box::new(Option::<String>::None),
        Cell::Int(i) => Box::new(*i),
        Cell::Real(r) => Box::new(*r),
        Cell::Text(t) => Box::new(t.clone()),
        Cell::Bool(b) => Box::new(*b),
        Cell::Ints(list) => Box::new(list.clone()),
    }
}

/// Column `i` of `row` as a cell, by the column's type.
fn cell(row: &Row, i: usize) -> Result<Cell> {
    let ty = row.columns()[i].type_();
    let cell = match *ty {
        Type::INT8 => row.get::<_, Option<i64>>(i).map(Cell::Int),
        Type::INT4 => row.get::<_, Option<i32>>(i).map(|v| Cell::Int(v.into())),
        Type::INT2 => row.get::<_, Option<i16>>(i).map(|v| Cell::Int(v.into())),
        Type::FLOAT8 => row.get::<_, Option<f64>>(i).map(Cell::Real),
        Type::FLOAT4 => row.get::<_, Option<f32>>(i).map(|v| Cell::Real(v.into())),
        Type::BOOL => row.get::<_, Option<bool>>(i).map(Cell::Bool),
        Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => {
            row.get::<_, Option<String>>(i).map(Cell::Text)
        }
        _ => {
            return Err(Error::invalid(format!(
                "a column of type {ty} cannot be read as plain SQL"
            )));
        }
    };
    Ok(cell.unwrap_or(Cell::Null))
}

fn cells_of(rows: &[Row]) -> Result<Vec<Vec<Cell>>> {
    rows.iter()
        .map(|row| (0..row.len()).map(|i| cell(row, i)).collect())
        .collect()
}

impl Sql for PgDb<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&self, sql: &str, params: &[Cell]) -> Result<u64> {
        let values: Vec<Box<dyn ToSql + Sync>> = params.iter().map(param).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        self.exec(&numbered_dollars(sql), &refs)
    }

    fn query(&self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>> {
        let values: Vec<Box<dyn ToSql + Sync>> = params.iter().map(param).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        cells_of(&self.rows(&numbered_dollars(sql), &refs)?)
    }

    /// Prepared afresh, so the server plans it for these arguments rather
    /// than reusing a plan made for any.
    fn rows_planned_for(&self, q: &Query) -> Result<Vec<Vec<Cell>>> {
        let values: Vec<Box<dyn ToSql + Sync>> = q.args.iter().map(param).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        let sql = numbered_dollars(&q.sql);
        cells_of(&self.rows_unprepared(&sql, &refs)?)
    }

    fn batch(&self, sql: &str) -> Result<()> {
        PgDb::batch(self, sql)
    }

    fn agent(&self) -> String {
        self.agent.to_string()
    }

    fn bytes(&self) -> Result<i64> {
        Ok(self
            .one("SELECT pg_database_size(current_database())", &[])?
            .get(0))
    }
}

/// `sql` with PostgreSQL's placeholders: `?N` becomes `$N`.
fn numbered_dollars(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_renumbered_for_postgres() {
        assert_eq!(
            numbered_dollars("SELECT a FROM t WHERE b = ?1 AND c = ?12 AND d = '?'"),
            "SELECT a FROM t WHERE b = $1 AND c = $12 AND d = '?'"
        );
    }
}
