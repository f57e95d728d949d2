//! Tokens of `keep serve` in the core: made with their rights (read-only,
//! confined to tags, until a time), listed without their secrets, revoked,
//! given a new secret, and looked up by the secret a client shows. Only a
//! secret's SHA-256 is stored, in the store itself, so every server on one
//! database accepts the same tokens.

use keep_store::TokenRow;
use keep_store::prelude::*;
use std::io::Read;

use sha2::{Digest, Sha256};

use super::Keeper;
use crate::error::{Error, Result, Transactions};
use keep_model::Timestamp;

/// Names keep writes under itself in the operations log, and the owner's.
const RESERVED_NAMES: &[&str] = &["cli", "browser", "watch", "api", "keep", "mcp", "owner"];

/// How often a token's last use is written: a token used in every
/// request does not make every request a write.
const TOUCH_EVERY_MS: i64 = 60_000;

/// What a token may do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rights {
    /// Reads only: every tool, resource and route that writes is refused.
    pub read_only: bool,
    /// Tags (`key=value`) every note it reads carries and every note it
    /// writes gets; empty: the whole store.
    pub scope: Vec<String>,
    /// When it stops being accepted.
    pub expires: Option<Timestamp>,
}

/// A token as listed: its name and rights, never its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub name: String,
    pub rights: Rights,
    pub created: Timestamp,
    pub last_used: Option<Timestamp>,
}

impl Token {
    fn of(row: TokenRow) -> Self {
        Token {
            rights: Rights {
                read_only: row.read_only,
                scope: row.scope,
                expires: row.expires.map(Timestamp::from_millis),
            },
            created: Timestamp::from_millis(row.created),
            last_used: row.last_used.map(Timestamp::from_millis),
            name: row.name,
        }
    }

    /// Whether it is past its expiry at `now`.
    pub fn expired(&self, now: Timestamp) -> bool {
        self.rights.expires.is_some_and(|at| at <= now)
    }
}

/// The SHA-256 of a secret, in hex: what the store keeps.
fn secret_hash(secret: &str) -> String {
    Sha256::digest(secret.trim().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new secret: 32 random bytes in hex after `keep_`.
fn new_secret() -> Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| Error::io("/dev/urandom", e))?;
    Ok(format!(
        "keep_{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

fn check_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(Error::invalid(format!(
            "token name '{}': use 1 to 64 letters, digits, '-', '_' or '.'",
            name.escape_debug()
        )));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(Error::invalid(format!(
            "token name '{name}': keep writes under that name itself; choose another"
        )));
    }
    Ok(())
}

fn check_scope(scope: &[String]) -> Result<()> {
    for pair in scope {
        let (key, _) = keep_model::parse_user_tag(pair)?;
        if key.starts_with('_') {
            return Err(Error::invalid(format!(
                "--scope {pair}: keys starting with '_' are keep's own"
            )));
        }
    }
    Ok(())
}

impl Keeper {
    /// Makes token `name` with `rights`; returns its secret, which is not
    /// kept and cannot be shown again.
    pub fn add_token(&mut self, name: &str, rights: &Rights) -> Result<String> {
        self.caller.must_own("token add")?;
        check_name(name)?;
        check_scope(&rights.scope)?;
        let now = self.now();
        if let Some(at) = rights.expires
            && at <= now
        {
            return Err(Error::invalid(format!(
                "the expiry {at} has already passed"
            )));
        }
        let secret = new_secret()?;
        let row = TokenRow {
            name: name.to_string(),
            hash: secret_hash(&secret),
            read_only: rights.read_only,
            scope: rights.scope.clone(),
            created: now.millis(),
            last_used: None,
            expires: rights.expires.map(Timestamp::millis),
        };
        if !self.store.transact(|db| Ok(db.add_token(&row)?))? {
            return Err(Error::invalid(format!(
                "a token named '{name}' exists: revoke it first, or rotate it for a new secret"
            )));
        }
        Ok(secret)
    }

    /// Every token, by name.
    pub fn tokens(&self) -> Result<Vec<Token>> {
        self.caller.must_own("token list")?;
        Ok(self
            .store
            .db()
            .tokens()?
            .into_iter()
            .map(Token::of)
            .collect())
    }

    /// Revokes token `name`: its next request is refused.
    pub fn revoke_token(&mut self, name: &str) -> Result<()> {
        self.caller.must_own("token revoke")?;
        if !self.store.transact(|db| Ok(db.remove_token(name)?))? {
            return Err(no_such_token(name));
        }
        Ok(())
    }

    /// Gives token `name` a new secret (its rights unchanged); the old
    /// one is refused from its next request. Returns the new secret.
    pub fn rotate_token(&mut self, name: &str) -> Result<String> {
        self.caller.must_own("token rotate")?;
        let secret = new_secret()?;
        let hash = secret_hash(&secret);
        if !self
            .store
            .transact(|db| Ok(db.set_token_hash(name, &hash)?))?
        {
            return Err(no_such_token(name));
        }
        Ok(secret)
    }

    /// Lets every server on this store's database accept the owner's token
    /// of the server at `place` (a machine and its local folder): kept as
    /// token `owner@PLACE` with every right, its hash replaced when the
    /// token is. Names with `@` cannot be made with `add_token`.
    pub fn share_owner_token(&mut self, secret: &str, place: &str) -> Result<()> {
        self.caller.must_own("sharing the owner's token")?;
        let place: String = place
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
            .take(64)
            .collect();
        let name = format!("owner@{place}");
        let row = TokenRow {
            name: name.clone(),
            hash: secret_hash(secret),
            read_only: false,
            scope: Vec::new(),
            created: self.now().millis(),
            last_used: None,
            expires: None,
        };
        self.store.transact(|db| {
            if !db.add_token(&row)? {
                db.set_token_hash(&name, &row.hash)?;
            }
            Ok(())
        })
    }

    /// The unexpired token whose secret is `secret`, noting its use.
    pub fn token_for(&mut self, secret: &str) -> Result<Option<Token>> {
        let hash = secret_hash(secret);
        let Some(row) = self.store.db().token_by_hash(&hash)? else {
            return Ok(None);
        };
        let token = Token::of(row);
        let now = self.now();
        if token.expired(now) {
            return Ok(None);
        }
        let stale = token
            .last_used
            .is_none_or(|at| now.millis() - at.millis() >= TOUCH_EVERY_MS);
        if stale && !self.store.is_read_only() {
            // Its last use is a courtesy for `keep token list`; a store that
            // cannot be written now still lets the token in.
            let _ = self
                .store
                .transact(|db| Ok(db.touch_token(&token.name, now.millis())?));
        }
        Ok(Some(token))
    }
}

/// A token name nothing answers to (exit 1, as a missing note).
fn no_such_token(name: &str) -> Error {
    Error::NoSuch(format!(
        "no token named '{name}' (keep token list shows them)"
    ))
}
