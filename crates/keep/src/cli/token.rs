//! `keep token`: tokens for clients of `keep serve`, each with its rights.

use serde::Serialize;

use keep_core::keeper::{Rights, Token};
use keep_core::model::Timestamp;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Tokens for the clients of keep serve, each with its own rights.
///
/// A client of keep serve shows a token (Authorization: Bearer SECRET).
/// The store's owner token (keep serve --token) may do everything; each
/// token made here has a name, which the operations log shows as the
/// author of what its client writes, and rights: --read-only refuses every
/// write, --scope confines it to notes tagged KEY=VALUE (what it writes is
/// tagged so), --expires ends it. Its secret is printed once and only its
/// hash is kept, in the store itself: every server on one PostgreSQL
/// database accepts the same tokens. A revoked, rotated or expired token is
/// refused from its next request.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Make a token and print its secret (shown this once)
    Add {
        /// Its name: the author of what its client writes, in the log
        name: String,
        /// May only read: every tool and route that writes is refused
        #[arg(long)]
        read_only: bool,
        /// Sees and writes only notes tagged KEY=VALUE (repeatable)
        #[arg(long = "scope", value_name = "KEY=VALUE")]
        scope: Vec<String>,
        /// Stops being accepted then: a duration (P30D) or a date
        #[arg(long, value_name = "WHEN")]
        expires: Option<String>,
    },
    /// The tokens: name, rights, scope, when made, last used and expires (never a secret)
    List,
    /// Refuse a token from its next request on
    Revoke { name: String },
    /// Give a token a new secret, its rights unchanged, and print it
    Rotate { name: String },
}

/// A token as `--json` lists it.
#[derive(Serialize)]
struct Listed {
    name: String,
    read_only: bool,
    scope: Vec<String>,
    created: String,
    last_used: Option<String>,
    expires: Option<String>,
    expired: bool,
}

fn listed(token: &Token, now: Timestamp) -> Listed {
    Listed {
        name: token.name.clone(),
        read_only: token.rights.read_only,
        scope: token.rights.scope.clone(),
        created: token.created.to_string(),
        last_used: token.last_used.map(|t| t.to_string()),
        expires: token.rights.expires.map(|t| t.to_string()),
        expired: token.expired(now),
    }
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    match args.action {
        Action::Add {
            name,
            read_only,
            scope,
            expires,
        } => {
            let keeper = ctx.keeper()?;
            let expires = match &expires {
                Some(when) => Some(keep_core::model::time::parse_expiry(when, keeper.now())?),
                None => None,
            };
            let rights = Rights {
                read_only,
                scope,
                expires,
            };
            let secret = keeper.add_token(&name, &rights)?;
            show_secret(ctx, &name, &secret)
        }
        Action::List => list(ctx),
        Action::Revoke { name } => {
            ctx.keeper()?.revoke_token(&name)?;
            ctx.out.warn(&format!(
                "token '{name}' revoked: its next request is refused"
            ));
            Ok(Status::Success)
        }
        Action::Rotate { name } => {
            let secret = ctx.keeper()?.rotate_token(&name)?;
            show_secret(ctx, &name, &secret)
        }
    }
}

/// The secret on stdout (or in JSON), and on stderr that it is shown once.
fn show_secret(ctx: &mut Ctx, name: &str, secret: &str) -> CliResult {
    match ctx.format {
        Format::Json => ctx
            .out
            .json(&serde_json::json!({"name": name, "secret": secret}))?,
        Format::Text | Format::Ids => ctx.out.line(secret)?,
    }
    ctx.out.warn(&format!(
        "token '{name}': its secret is shown this once (a client sends Authorization: Bearer SECRET)"
    ));
    Ok(Status::Success)
}

fn list(ctx: &mut Ctx) -> CliResult {
    let keeper = ctx.keeper()?;
    let now = keeper.now();
    let tokens = keeper.tokens()?;
    match ctx.format {
        Format::Json => {
            let all: Vec<Listed> = tokens.iter().map(|t| listed(t, now)).collect();
            ctx.out.json(&all)?;
        }
        Format::Ids => {
            for t in &tokens {
                ctx.out.line(&t.name)?;
            }
        }
        Format::Text => {
            for t in &tokens {
                ctx.out.line(&text_line(t, now))?;
            }
        }
    }
    Ok(Status::Success)
}

fn text_line(token: &Token, now: Timestamp) -> String {
    let rights = if token.rights.read_only {
        "read-only"
    } else {
        "read-write"
    };
    let scope = if token.rights.scope.is_empty() {
        "whole store".to_string()
    } else {
        format!("scope {}", token.rights.scope.join(","))
    };
    let used = token.last_used.map_or("never used".to_string(), |t| {
        format!("last used {}", t.short())
    });
    let ends = match token.rights.expires {
        Some(at) if at <= now => format!("expired {}", at.short()),
        Some(at) => format!("expires {}", at.short()),
        None => "no expiry".to_string(),
    };
    format!(
        "{}\t{rights}\t{scope}\tmade {}\t{used}\t{ends}",
        token.name,
        token.created.short()
    )
}
