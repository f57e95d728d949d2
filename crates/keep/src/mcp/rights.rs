//! Who calls over HTTP, as the server sees it: the store's owner (its own
//! token, or no token from this machine), or a token made with `keep token
//! add`, read-only or confined to tags. The HTTP side finds the caller;
//! the keeper of each request is handed it and refuses what it may not
//! do. What is left here is how a front end names and frames it.

use std::sync::Arc;

pub use keep_core::Caller;

use super::tools::Context;

/// What the server's front ends ask of a caller.
pub trait CallerRights {
    /// Why it may not do what tool or route `what` does, which writes;
    /// None when it may (said before any work starts).
    fn refuses_write(&self, what: &str) -> Option<String>;

    /// Who the operations log names for its writes: its token's name
    /// (with the name the client gave kept as the entry's detail), or for
    /// the owner the name the client gave.
    fn author(&self, declared: &str) -> String;

    /// `base` with this caller in it, its scope added to the server's.
    fn context(&self, base: &Arc<Context>) -> Arc<Context>;
}

impl CallerRights for Caller {
    fn refuses_write(&self, what: &str) -> Option<String> {
        self.may_write(what).err().map(|e| e.to_string())
    }

    fn author(&self, declared: &str) -> String {
        match &self.token {
            Some(name) => keep_core::keeper::agent_via(name, declared),
            None => declared.to_string(),
        }
    }

    fn context(&self, base: &Arc<Context>) -> Arc<Context> {
        if self.is_owner() {
            return Arc::clone(base);
        }
        let mut ctx = base.as_ref().clone();
        for (key, value) in self.scope.pairs() {
            ctx.scope.insert(key, value);
        }
        ctx.caller = self.clone();
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
