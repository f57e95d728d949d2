//! Plain SQL, the same text for every database: a statement with
//! placeholders `?1`, `?2`, ... and values of a few simple kinds, rows
//! read back as the same kinds. Each backend runs it (`Sql`); the
//! queries written once for every database (`shared`, `census`, the rows
//! waiting for a vector) are built on it.

use crate::error::{Error, Result};

/// Rows written or looked up by one statement of many rows: 500 rows of
/// six values stay far below the placeholders either database allows.
pub const ROWS_A_STATEMENT: usize = 500;

/// A value bound to a statement or read from a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
    /// A list of integers (row keys), bound as the database takes a list:
    /// JSON text on SQLite, an array on PostgreSQL (`Dialect::among`).
    Ints(Vec<i64>),
}

impl Cell {
    pub fn int(&self) -> Result<i64> {
        match self {
            Cell::Int(i) => Ok(*i),
            Cell::Bool(b) => Ok(i64::from(*b)),
            other => Err(unexpected("an integer", other)),
        }
    }

    pub fn text(&self) -> Result<String> {
        match self {
            Cell::Text(t) => Ok(t.clone()),
            other => Err(unexpected("text", other)),
        }
    }

    /// Text, or None for a null.
    pub fn opt_text(&self) -> Result<Option<String>> {
        match self {
            Cell::Null => Ok(None),
            other => other.text().map(Some),
        }
    }

    /// A number, whichever kind the database answered with.
    pub fn real(&self) -> Result<f64> {
        match self {
            Cell::Real(r) => Ok(*r),
            Cell::Int(i) => Ok(*i as f64),
            other => Err(unexpected("a number", other)),
        }
    }

    /// A truth value: a boolean, or an integer as SQLite keeps one.
    pub fn bool(&self) -> Result<bool> {
        match self {
            Cell::Bool(b) => Ok(*b),
            Cell::Int(i) => Ok(*i != 0),
            other => Err(unexpected("a truth value", other)),
        }
    }
}

impl From<i64> for Cell {
    fn from(i: i64) -> Self {
        Cell::Int(i)
    }
}

impl From<f64> for Cell {
    fn from(r: f64) -> Self {
        Cell::Real(r)
    }
}

impl From<bool> for Cell {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}

impl From<&str> for Cell {
    fn from(t: &str) -> Self {
        Cell::Text(t.to_string())
    }
}

impl From<Vec<i64>> for Cell {
    fn from(list: Vec<i64>) -> Self {
        Cell::Ints(list)
    }
}

impl From<String> for Cell {
    fn from(t: String) -> Self {
        Cell::Text(t)
    }
}

fn unexpected(wanted: &str, found: &Cell) -> Error {
    Error::invalid(format!(
        "the store answered {found:?} where {wanted} was expected"
    ))
}

/// The first `N` cells of a row, to be bound by name:
/// `let [id, summary] = cells(row)?;`. A row with fewer cells is an error
/// (a statement and its reader that disagree).
pub fn cells<const N: usize>(row: &[Cell]) -> Result<&[Cell; N]> {
    row.get(..N).and_then(|r| r.try_into().ok()).ok_or_else(|| {
        Error::invalid(format!(
            "the store answered a row of {} cell(s) where {N} were expected",
            row.len()
        ))
    })
}

/// Tags kept as JSON text, read back; `what` names the note they are of
/// when they cannot be read.
pub fn tags_from_json(json: &str, what: impl FnOnce() -> String) -> Result<keep_model::Tags> {
    serde_json::from_str(json).map_err(|e| Error::Corrupt {
        what: what(),
        reason: format!("its tags are not valid JSON ({e})"),
    })
}

/// A statement built at run time: its text and the values of its
/// placeholders, numbered as they are added.
#[derive(Debug, Default)]
pub struct Query {
    pub sql: String,
    pub args: Vec<Cell>,
}

impl Query {
    pub fn new(sql: impl Into<String>) -> Self {
        Query {
            sql: sql.into(),
            args: Vec::new(),
        }
    }

    /// Adds a value; returns its placeholder (`?N`).
    pub fn arg(&mut self, value: impl Into<Cell>) -> String {
        self.args.push(value.into());
        format!("?{}", self.args.len())
    }

    pub fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }
}

/// What a backend runs for the queries written once for every database.
pub trait Sql {
    /// How this database spells what the two spell differently.
    fn dialect(&self) -> super::dialect::Dialect;
    /// Runs `sql` with `params`; how many rows it changed.
    fn execute(&self, sql: &str, params: &[Cell]) -> Result<u64>;
    /// Runs statements without parameters, one after another.
    fn batch(&self, sql: &str) -> Result<()>;
    /// The rows of `sql` with `params`, each as its cells.
    fn query(&self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>>;
    /// The store's size on disk.
    fn bytes(&self) -> Result<i64>;
    /// Who this handle's writes are by, for the operations log.
    fn agent(&self) -> String;

    /// The rows of a built statement.
    fn rows_of(&self, q: &Query) -> Result<Vec<Vec<Cell>>> {
        self.query(&q.sql, &q.args)
    }

    /// The rows of `q`, planned for its own arguments. A plan made once
    /// for any arguments does not know how many rows they match, and may
    /// walk a whole table newest first for words that are rare together.
    fn rows_planned_for(&self, q: &Query) -> Result<Vec<Vec<Cell>>> {
        self.rows_of(q)
    }
}

/// Plain reads made of `Sql`: the first integer of a row, rows of simple
/// values.
pub trait PlainQueries: Sql {
    /// The one integer of the first row `sql` selects, if it selects a row.
    fn first_int(&self, sql: &str, params: &[Cell]) -> Result<Option<i64>> {
        self.query(sql, params)?
            .first()
            .map(|r| r[0].int())
            .transpose()
    }

    /// The one integer `sql` selects.
    fn count(&self, sql: &str) -> Result<i64> {
        match self.query(sql, &[])?.first().and_then(|r| r.first()) {
            Some(cell) => cell.int(),
            None => Ok(0),
        }
    }

    /// (text, integer, integer) rows of `sql`.
    fn rows3(&self, sql: &str) -> Result<Vec<(String, i64, i64)>> {
        self.query(sql, &[])?
            .iter()
            .map(|r| {
                let [text, a, b] = cells(r)?;
                Ok((text.text()?, a.int()?, b.int()?))
            })
            .collect()
    }

    /// (integer, text) rows of `sql`.
    fn key_texts(&self, sql: &str) -> Result<Vec<(i64, String)>> {
        self.query(sql, &[])?
            .iter()
            .map(|r| Ok((r[0].int()?, r[1].text()?)))
            .collect()
    }
}

impl<T: Sql + ?Sized> PlainQueries for T {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_what_they_hold() {
        assert!(Cell::Int(1).bool().unwrap());
        assert_eq!(Cell::Bool(false).int().unwrap(), 0);
        assert!(Cell::Null.text().is_err());
        assert!(Cell::Text("x".into()).int().is_err());
    }
}
