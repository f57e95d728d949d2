//! The JSON API beside MCP, for scripts, programs in any language and the
//! web page. Each route of the catalogue (`catalog`) runs one typed
//! command: the request (its query, or its body and the id in its path)
//! is read straight into the command's arguments, the command runs on a
//! keeper that holds the caller's rights, and its typed result is the
//! answer (the shapes of `--json`). Errors answer with the status of
//! their kind. `/openapi.json` is generated from the same types
//! (`openapi`), and `/health` says whether the server works.

mod catalog;
mod openapi;

use std::sync::Arc;

use serde_json::{Value, json};

use super::Warm;
pub use super::query::{Query, decode};
pub use catalog::{Route, routes};
use keep_commands::Command;

use crate::mcp::rights::Caller;
use keep_core::model::Tags;

/// The prefix of the API's paths.
pub(super) const PREFIX: &str = "/v1/";

/// Who the operations log names for a write through the JSON API.
pub(super) const API_AGENT: &str = "api";

/// Whether `path` is one this module answers.
pub fn serves(path: &str) -> bool {
    path == "/health" || path == "/openapi.json" || path.starts_with(PREFIX)
}

/// An answer: HTTP status and JSON body.
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body, an error naming request `id` (as `X-Request-Id` does).
    pub fn naming(self, id: &str) -> Vec<u8> {
        if self.status < 400 {
            return self.body;
        }
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(mut error)) => {
                error.insert("request_id".into(), Value::String(id.to_string()));
                Reply::json(self.status, &Value::Object(error)).body
            }
            _ => self.body,
        }
    }

    pub fn json(status: u16, value: &Value) -> Reply {
        let mut body = serde_json::to_vec_pretty(value).unwrap_or_default();
        body.push(b'\n');
        Reply { status, body }
    }

    pub(super) fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": message }))
    }

    /// The answer to a core error: its message, with the status of its
    /// kind.
    fn failed(e: &keep_core::Error) -> Reply {
        let (status, message) = refusal(e);
        Reply::error(status, &message)
    }
}

/// The server as one caller reaches it: its keepers, who the log names
/// for the caller's writes, and the caller's rights.
pub struct Serving<'a> {
    pub warm: &'a Arc<Warm>,
    pub author: &'a str,
    pub caller: &'a Caller,
    /// The server's own scope, which the caller's adds to.
    pub scope: &'a Tags,
}

impl Serving<'_> {
    /// Runs `command` as this caller, on a keeper lent for it.
    pub fn run<C: Command>(&self, command: C) -> Result<C::Output, keep_core::Error> {
        let mut lent = self.warm.lend_to(Some(&format!("api:{}", self.author)))?;
        let keeper = lent.keeper();
        keeper.set_caller(self.caller.clone().within(self.scope));
        keeper.set_agent(self.author);
        keep_commands::run(command, keeper)
    }
}

/// What a request asks, read from its method, path, query and body.
pub struct Asked<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub body: &'a [u8],
}

/// The status and message that answer core error `e`.
pub fn refusal(e: &keep_core::Error) -> (u16, String) {
    let message = match e.advice() {
        Some(advice) => format!("{e}; {}", crate::render::advice::for_agent(&advice)),
        None => e.to_string(),
    };
    (status_of(e.kind()), message)
}

/// The HTTP status that answers an error of `kind`.
pub(super) fn status_of(kind: keep_core::Kind) -> u16 {
    use keep_core::Kind;
    match kind {
        Kind::NotFound => 404,
        Kind::Refused => 403,
        Kind::Conflict => 409,
        Kind::BadInput => 400,
        Kind::Unavailable => 503,
        Kind::Failed => 500,
    }
}

/// Answers one request; runs on a thread that may block.
pub fn answer(serving: &Serving<'_>, asked: &Asked<'_>) -> Reply {
    match (asked.method, asked.path) {
        ("GET", "/health") => health(serving),
        ("GET", "/openapi.json") => Reply::json(200, &openapi::document()),
        (_, "/health" | "/openapi.json") => not_allowed(),
        _ => match catalog::find(asked.method, asked.path) {
            catalog::Found::Route(route, id) => match arguments(route, asked, id) {
                Ok(args) => (route.run)(serving, args, route.ok),
                Err(reply) => reply,
            },
            catalog::Found::OtherMethod => not_allowed(),
            catalog::Found::Nothing => Reply::error(404, "no such path: see /openapi.json"),
        },
    }
}

/// Whether the server, its store and its model work; where the store is,
/// the process and its work are the owner's to see.
fn health(serving: &Serving<'_>) -> Reply {
    let health = serving.warm.health();
    let status = if health.status == "unavailable" {
        503
    } else {
        200
    };
    let shown = if serving.caller.is_owner() {
        serde_json::to_value(health).unwrap_or_default()
    } else {
        json!({ "status": health.status, "version": health.version })
    };
    Reply::json(status, &shown)
}

fn not_allowed() -> Reply {
    Reply::error(405, "method not allowed here: see /openapi.json")
}

/// A route's arguments as one JSON object: the query's parameters for a
/// read, the body for a write (none is `{}`), and the note id of the path.
fn arguments(route: &Route, asked: &Asked<'_>, id: Option<String>) -> Result<Value, Reply> {
    let mut args = if route.method == "GET" {
        keep_commands::wire::query_object(Query::parse(asked.query).pairs())
    } else if asked.body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(asked.body)
            .map_err(|e| Reply::error(400, &format!("the request body is not JSON: {e}")))?
    };
    let Value::Object(fields) = &mut args else {
        return Err(Reply::error(400, "the request body is not a JSON object"));
    };
    if let Some(id) = id {
        if fields.contains_key("id") {
            return Err(Reply::error(
                400,
                "the note's id is the path's, not the body's",
            ));
        }
        fields.insert("id".into(), Value::String(id));
    }
    Ok(args)
}

/// Runs command `C` with `args` as `serving`'s caller; the answer is its
/// result, with the status `ok` gives it.
fn run<C: Command>(serving: &Serving<'_>, args: Value, ok: catalog::Status) -> Reply {
    let command: C = match keep_commands::arguments(args) {
        Ok(command) => command,
        Err(e) => {
            return Reply::error(
                400,
                &format!("the request is not what this call takes: {e}"),
            );
        }
    };
    match serving.run(command).map(serde_json::to_value) {
        Ok(Ok(value)) => Reply::json(ok(&value), &value),
        Ok(Err(e)) => Reply::error(500, &e.to_string()),
        Err(e) => Reply::failed(&e),
    }
}
