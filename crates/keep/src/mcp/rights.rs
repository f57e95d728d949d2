//! Who calls over HTTP and what they may do: the store's owner (its own
//! token, or no token from this machine), or a token made with `keep token
//! add`, read-only or confined to tags. The HTTP side finds the caller;
//! every tool, resource and route asks it before it reads or writes.

use std::sync::Arc;

use keep_core::model::Tags;

use super::tools::Context;

/// A client of `keep serve`, as its token says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The token's name; None for the owner.
    pub token: Option<String>,
    /// May only read.
    pub read_only: bool,
    /// Tags every note it reads carries and every note it writes gets.
    pub scope: Tags,
}

impl Caller {
    /// The store's owner: every right, the whole store.
    pub fn owner() -> Self {
        Caller {
            token: None,
            read_only: false,
            scope: Tags::default(),
        }
    }

    /// Why it may not do what tool or route `what` does, which writes;
    /// None when it may.
    pub fn refuses_write(&self, what: &str) -> Option<String> {
        self.read_only.then(|| {
            format!(
                "the token '{}' may only read: {what} writes",
                self.token.as_deref().unwrap_or("owner")
            )
        })
    }

    /// Who the operations log names for its writes: its token's name
    /// (with the name the client gave kept as the entry's detail), or for
    /// the owner the name the client gave.
    pub fn author(&self, declared: &str) -> String {
        match &self.token {
            Some(name) => keep_core::keeper::agent_via(name, declared),
            None => declared.to_string(),
        }
    }

    /// `base` with this caller's scope added to the server's.
    pub fn context(&self, base: &Arc<Context>) -> Arc<Context> {
        if self.scope.is_empty() {
            return Arc::clone(base);
        }
        let mut ctx = base.as_ref().clone();
        for (key, value) in self.scope.pairs() {
            ctx.scope.insert(key, value);
        }
        Arc::new(ctx)
    }
}

/// The caller of an MCP request: what the HTTP side found, else (stdio)
/// the owner.
pub fn caller_of(extensions: &rmcp::model::Extensions) -> Caller {
    extensions
        .get::<hyper::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .unwrap_or_else(Caller::owner)
}
