//! The tokens that let clients of `keep serve` in: each by name, with the
//! SHA-256 of its secret and its rights. Written once for every database,
//! in plain SQL (`Sql`).

use crate::error::{Error, Result};
use crate::plain::{Cell, Sql, cells};
use crate::types::TokenRow;

const COLUMNS: &str = "name, hash, read_only, scope, created, last_used, expires";

/// A time that may be absent, as the INSERT below reads it: 0 for none
/// (a typed null binds the same on every database).
fn optional(value: Option<i64>) -> Cell {
    Cell::Int(value.unwrap_or(0))
}

fn optional_int(cell: &Cell) -> Result<Option<i64>> {
    match cell {
        Cell::Null => Ok(None),
        other => other.int().map(Some),
    }
}

fn token_row(row: &[Cell]) -> Result<TokenRow> {
    let [name, hash, read_only, scope, created, last_used, expires] = cells(row)?;
    let name = name.text()?;
    let scope = serde_json::from_str(&scope.text()?).map_err(|e| Error::Corrupt {
        what: format!("the token '{name}'"),
        reason: format!("its scope is not valid JSON ({e})"),
    })?;
    Ok(TokenRow {
        hash: hash.text()?,
        read_only: read_only.bool()?,
        scope,
        created: created.int()?,
        last_used: optional_int(last_used)?,
        expires: optional_int(expires)?,
        name,
    })
}

/// The tokens of `keep serve`.
pub trait Tokens: Sql {
    /// Adds a token; false when one of that name exists (nothing changes).
    fn add_token(&self, token: &TokenRow) -> Result<bool> {
        let scope = serde_json::to_string(&token.scope).expect("strings serialise");
        let added = self.execute(
            "INSERT INTO tokens (name, hash, read_only, scope, created, last_used, expires)
             VALUES (?1, ?2, ?3, ?4, ?5, NULLIF(?6, CAST(0 AS BIGINT)), NULLIF(?7, CAST(0 AS BIGINT)))
             ON CONFLICT (name) DO NOTHING",
            &[
                token.name.as_str().into(),
                token.hash.as_str().into(),
                token.read_only.into(),
                scope.into(),
                token.created.into(),
                optional(token.last_used),
                optional(token.expires),
            ],
        )?;
        Ok(added > 0)
    }

    /// Every token, by name.
    fn tokens(&self) -> Result<Vec<TokenRow>> {
        self.query(&format!("SELECT {COLUMNS} FROM tokens ORDER BY name"), &[])?
            .iter()
            .map(|r| token_row(r))
            .collect()
    }

    /// The token whose secret hashes to `hash`.
    fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRow>> {
        self.query(
            &format!("SELECT {COLUMNS} FROM tokens WHERE hash = ?1"),
            &[hash.into()],
        )?
        .first()
        .map(|r| token_row(r))
        .transpose()
    }

    /// Removes token `name`; false when there is none.
    fn remove_token(&self, name: &str) -> Result<bool> {
        Ok(self.execute("DELETE FROM tokens WHERE name = ?1", &[name.into()])? > 0)
    }

    /// Gives token `name` a new secret's hash; false when there is none.
    fn set_token_hash(&self, name: &str, hash: &str) -> Result<bool> {
        Ok(self.execute(
            "UPDATE tokens SET hash = ?2, last_used = NULL WHERE name = ?1",
            &[name.into(), hash.into()],
        )? > 0)
    }

    /// Notes that token `name` was used at `now`.
    fn touch_token(&self, name: &str, now: i64) -> Result<()> {
        self.execute(
            "UPDATE tokens SET last_used = ?2 WHERE name = ?1",
            &[name.into(), now.into()],
        )?;
        Ok(())
    }
}

impl<T: Sql + ?Sized> Tokens for T {}
