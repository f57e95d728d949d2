//! Plain rows the store hands back: search hits, watched folders,
//! leases, and what protects the link to a database server.

use crate::ids::NoteRid;

/// A keyword hit: the note and its relevance score (higher is better).
#[derive(Debug, Clone)]
pub struct FtsHit {
    pub rid: NoteRid,
    pub score: f64,
}

/// A keyword or vector match inside a part or an archived version,
/// reported against its note.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubHit {
    pub rid: NoteRid,
    /// Part number, or version offset (1 = previous).
    pub number: i64,
    pub score: f64,
}

/// A registered folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchedDir {
    pub dir: String,
    pub recursive: bool,
    pub excludes: Vec<String>,
}

/// Who holds a lease, and until when (milliseconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub holder: String,
    pub pid: i64,
    pub since: i64,
    pub expires: i64,
}

/// What a store's own check finds: its schema version against the newest
/// this keep knows, and any problem.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Health {
    pub schema_version: i64,
    pub known_version: i64,
    pub problems: Vec<String>,
}

/// A token of `keep serve` as stored: never its secret, only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub name: String,
    /// The SHA-256 of the secret, in hex.
    pub hash: String,
    pub read_only: bool,
    /// The tags (`key=value`) every note it reads or writes carries.
    pub scope: Vec<String>,
    /// Milliseconds since the epoch.
    pub created: i64,
    pub last_used: Option<i64>,
    pub expires: Option<i64>,
}

/// A replica of a PostgreSQL store, as last asked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplicaState {
    /// The server and database, without a password.
    pub server: String,
    /// Whether reads go to it now.
    pub reads: bool,
    /// How far it trails the primary, at most, in seconds (None when it
    /// could not be asked).
    pub lag_seconds: Option<f64>,
    /// Why reads skip it, when they do.
    pub skipped: Option<String>,
}

/// What protects the link to the server, as connected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The sslmode asked for ("prefer", "verify-full", ...).
    pub mode: &'static str,
    /// The TLS version in use, or None when the link is not encrypted.
    pub encryption: Option<String>,
    /// Whether the server is this machine (a socket or a loopback address).
    pub local: bool,
}

impl Link {
    /// A line for whoever should know that notes cross a network in the
    /// clear, or None when they do not.
    pub fn warning(&self, shown: &str) -> Option<String> {
        (self.encryption.is_none() && !self.local).then(|| {
            format!(
                "the link to {shown} is not encrypted (sslmode={}): notes, queries and the \
                 password cross the network readable; use sslmode=verify-full with sslrootcert",
                self.mode
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Link;

    #[test]
    fn only_a_plain_link_that_leaves_the_machine_is_warned_of() {
        let link = |encryption: Option<&str>, local| Link {
            mode: "prefer",
            encryption: encryption.map(str::to_string),
            local,
        };
        let said = link(None, false)
            .warning("postgres://keep@db.example/keep")
            .unwrap();
        assert!(
            said.starts_with(
                "the link to postgres://keep@db.example/keep is not encrypted (sslmode=prefer)"
            ),
            "{said}"
        );
        assert_eq!(link(None, true).warning("x"), None);
        assert_eq!(link(Some("TLSv1.3"), false).warning("x"), None);
    }
}
