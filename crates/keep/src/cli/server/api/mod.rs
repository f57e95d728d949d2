//! The JSON API beside MCP, for scripts, programs in any language and the
//! web page: `find`, `get`, `list`, `put`, `tag`, `rate`, `supersede`,
//! trash and restore, `log`, `stats` and `conflicts` as the command line
//! runs them with `--json` (the same shapes), `/health`, and the OpenAPI
//! document that describes them (`/openapi.json`).

mod actions;
mod activity;

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::Warm;
pub use super::query::{Query, decode};
use crate::cli::input::Stdin;
use crate::cli::output::{Format, Out};
use crate::cli::{Cli, CliError, Ctx, NOT_STORED, Status, dispatch};

use crate::mcp::rights::Caller;
use keep_core::model::Tags;

/// The OpenAPI 3.1 document of this API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// The prefix of the API's paths.
pub(super) const PREFIX: &str = "/v1/";

/// What a GET of an API path gives: its JSON, or the status and message
/// of its error (for the web page, which reads through the same routes).
pub fn read(serving: &Serving<'_>, path: &str, query: &str) -> Result<Value, (u16, String)> {
    let reply = answer(
        serving,
        &Asked {
            method: "GET",
            path,
            query,
            body: &[],
        },
    );
    let value: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    if reply.status == 200 {
        Ok(value)
    } else {
        let message = value["error"].as_str().unwrap_or("the request failed");
        Err((reply.status, message.to_string()))
    }
}

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

    /// The one item of an array answer, as a command that takes many ids
    /// gives for one.
    fn only_one(self) -> Reply {
        if self.status == 200
            && let Ok(Value::Array(mut items)) = serde_json::from_slice::<Value>(&self.body)
            && items.len() == 1
        {
            return Reply::json(200, &items.remove(0));
        }
        self
    }

    pub fn json(status: u16, value: &Value) -> Reply {
        let mut body = serde_json::to_vec_pretty(value).unwrap_or_default();
        body.push(b'\n');
        Reply { status, body }
    }

    pub(super) fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, &json!({ "error": message }))
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

/// What a request asks, read from its method, path, query and body.
pub struct Asked<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub body: &'a [u8],
}

/// Answers one request; runs on a thread that may block.
/// Who the operations log names for a write through the JSON API.
pub(super) const API_AGENT: &str = "api";

pub fn answer(warm: &Serving<'_>, asked: &Asked<'_>) -> Reply {
    let query = Query::parse(asked.query);
    let route = asked.path.strip_prefix(PREFIX);
    match (asked.method, asked.path, route) {
        ("GET", "/health", _) => {
            let health = warm.warm.health();
            let status = if health.status == "unavailable" {
                503
            } else {
                200
            };
            // Where the store is, the process and its work are the owner's
            // to see.
            let shown = if warm.caller.is_owner() {
                serde_json::to_value(health).unwrap_or_default()
            } else {
                json!({ "status": health.status, "version": health.version })
            };
            Reply::json(status, &shown)
        }
        ("GET", "/openapi.json", _) => Reply {
            status: 200,
            body: OPENAPI.as_bytes().to_vec(),
        },
        ("GET", _, Some("find")) => find(warm, &query),
        ("GET", _, Some("notes")) => list(warm, &query),
        ("POST", _, Some("notes")) => put(warm, asked.body),
        ("GET", _, Some("log")) => activity::log(warm, &query),
        ("GET", _, Some("stats")) => activity::stats(warm, &query),
        ("GET", _, Some("conflicts")) => activity::conflicts(warm, &query),
        (method, _, Some(rest)) if rest.starts_with("notes/") => {
            note_route(warm, method, &rest["notes/".len()..], asked.body)
        }
        (_, _, Some("find" | "notes" | "log" | "stats" | "conflicts"))
        | (_, "/health" | "/openapi.json", _) => not_allowed(),
        _ => Reply::error(404, "no such path: see /openapi.json"),
    }
}

/// What a note's path does: `notes/ID` reads it, `notes/ID/history` lists
/// its versions, `notes/ID/ACTION` (tags, rate, supersede, trash, restore)
/// writes it.
fn note_route(warm: &Serving<'_>, method: &str, rest: &str, body: &[u8]) -> Reply {
    let action = rest
        .rsplit_once('/')
        .filter(|(_, action)| *action == "history" || actions::ACTIONS.contains(action));
    match (method, action) {
        ("GET", None) => get(warm, &decode(rest)),
        ("GET", Some((id, "history"))) => history(warm, &decode(id)),
        ("POST", Some((id, action))) => {
            let id = decode(id);
            match action {
                "tags" => tag(warm, &id, body),
                other => actions::act(warm, other, &id, body),
            }
        }
        _ => not_allowed(),
    }
}

fn not_allowed() -> Reply {
    Reply::error(405, "method not allowed here: see /openapi.json")
}

const FILTERS: [(&str, &str); 6] = [
    ("tag", "tag"),
    ("since", "since"),
    ("until", "until"),
    ("as_of", "as-of"),
    ("when", "when"),
    ("limit", "limit"),
];

fn find(warm: &Serving<'_>, query: &Query) -> Reply {
    let Some(text) = query.one("q").filter(|q| !q.trim().is_empty()) else {
        return Reply::error(400, "find needs a query: ?q=TEXT");
    };
    let mut args = vec!["find".to_string()];
    query.options(&FILTERS, &mut args);
    query.options(
        &[("mode", "mode"), ("hops", "hops"), ("around", "around")],
        &mut args,
    );
    query.flag("deep", "deep", &mut args);
    query.flag("parts", "parts", &mut args);
    query.flag("explain", "explain", &mut args);
    args.extend(["--".into(), text.into()]);
    run(warm, args).reply(200)
}

fn list(warm: &Serving<'_>, query: &Query) -> Reply {
    let mut args = vec!["list".to_string()];
    query.options(&FILTERS, &mut args);
    query.options(&[("sort", "sort")], &mut args);
    if let Some(pattern) = query.one("pattern") {
        args.extend(["--".into(), pattern.into()]);
    }
    run(warm, args).reply(200)
}

/// One id asked, one note given: the note itself.
fn get(warm: &Serving<'_>, id: &str) -> Reply {
    run(warm, vec!["get".into(), "--".into(), id.into()])
        .reply(200)
        .only_one()
}

/// Every version of a note, the current first, each with what it changed.
fn history(warm: &Serving<'_>, id: &str) -> Reply {
    let args = vec!["get".into(), "--history".into(), "--".into(), id.into()];
    run(warm, args).reply(200).only_one()
}

/// A note to put, as a request body gives it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewNote {
    text: String,
    id: Option<String>,
    #[serde(default)]
    tags: TagList,
    summary: Option<String>,
    at: Option<String>,
    expires: Option<String>,
    #[serde(default)]
    supersedes: Vec<String>,
    #[serde(default)]
    update: bool,
    #[serde(default)]
    allow_duplicate: bool,
}

/// Tags as `["k=v", ...]` or `{"k": "v" | ["v", ...]}`.
#[derive(Deserialize, Default)]
#[serde(untagged)]
enum TagList {
    #[default]
    None,
    Pairs(Vec<String>),
    Map(std::collections::BTreeMap<String, OneOrMany>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl TagList {
    fn pairs(self) -> Vec<String> {
        match self {
            TagList::None => Vec::new(),
            TagList::Pairs(pairs) => pairs,
            TagList::Map(map) => map
                .into_iter()
                .flat_map(|(k, v)| {
                    let values = match v {
                        OneOrMany::One(v) => vec![v],
                        OneOrMany::Many(vs) => vs,
                    };
                    values.into_iter().map(move |v| format!("{k}={v}"))
                })
                .collect(),
        }
    }
}

pub(super) fn body<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Reply> {
    serde_json::from_slice(bytes).map_err(|e| {
        Reply::error(
            400,
            &format!("the request body is not what this call takes: {e}"),
        )
    })
}

fn put(warm: &Serving<'_>, bytes: &[u8]) -> Reply {
    let note: NewNote = match body(bytes) {
        Ok(note) => note,
        Err(reply) => return reply,
    };
    let mut args = vec!["put".to_string(), format!("--text={}", note.text)];
    for tag in note.tags.pairs() {
        args.push(format!("--tag={tag}"));
    }
    let options = [
        ("id", note.id),
        ("summary", note.summary),
        ("at", note.at),
        ("expires", note.expires),
    ];
    for (name, value) in options {
        if let Some(value) = value {
            args.push(format!("--{name}={value}"));
        }
    }
    for old in note.supersedes {
        args.push(format!("--supersedes={old}"));
    }
    if note.update {
        args.push("--update".into());
    }
    if note.allow_duplicate {
        args.push("--allow-duplicate".into());
    }
    let ran = run(warm, args);
    let created = serde_json::from_slice::<Value>(&ran.stdout)
        .is_ok_and(|v| v["status"] == "created" || v["status"] == "possible_update");
    ran.reply(if created { 201 } else { 200 })
}

/// A change of a note's tags.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TagEdit {
    #[serde(default)]
    add: TagList,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    remove_value: Vec<String>,
}

fn tag(warm: &Serving<'_>, id: &str, bytes: &[u8]) -> Reply {
    let edit: TagEdit = match body(bytes) {
        Ok(edit) => edit,
        Err(reply) => return reply,
    };
    let mut args = vec!["tag".to_string()];
    for tag in edit.add.pairs() {
        args.push(format!("--tag={tag}"));
    }
    for key in edit.remove {
        args.push(format!("--remove={key}"));
    }
    for pair in edit.remove_value {
        args.push(format!("--remove-value={pair}"));
    }
    args.extend(["--".into(), id.into()]);
    run(warm, args).reply(200).only_one()
}

/// What a command printed and how it ended.
pub(super) struct Ran {
    stdout: Vec<u8>,
    stderr: String,
    ended: Result<Status, CliError>,
    /// The kind of the first per-argument failure the command reported.
    failure: Option<keep_core::Kind>,
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

impl Ran {
    /// A command that ended before it ran.
    fn failed(e: CliError) -> Ran {
        Ran {
            stdout: Vec::new(),
            stderr: String::new(),
            ended: Err(e),
            failure: None,
        }
    }

    /// The HTTP answer: `ok` with what the command printed when it
    /// succeeded (or found a duplicate, which its JSON says), else an
    /// error whose status says whose fault it is.
    pub(super) fn reply(self, ok: u16) -> Reply {
        let said = || {
            self.stderr
                .lines()
                .map(|l| l.strip_prefix("keep: ").unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let status = match &self.ended {
            Ok(Status::Success) | Ok(Status::Failed(NOT_STORED)) => {
                return Reply {
                    status: ok,
                    body: self.stdout,
                };
            }
            Ok(Status::Failed(code)) => match self.failure {
                Some(kind) => status_of(kind),
                None if *code == 1 => 404,
                None => 400,
            },
            Err(e) => status_of(e.kind()),
        };
        let message = match &self.ended {
            Err(e) => e.to_string(),
            Ok(_) => said(),
        };
        Reply::error(status, &message)
    }
}

/// Runs `keep --json ARGS` with a warm keeper, keeping what it prints.
pub(super) fn run(warm: &Serving<'_>, args: Vec<String>) -> Ran {
    use clap::Parser;
    let line = ["keep", "--json"].into_iter().map(String::from).chain(args);
    let cli = match Cli::try_parse_from(line) {
        Ok(cli) => cli,
        Err(e) => {
            let message = e.to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            return Ran::failed(CliError::Usage(first.to_string()));
        }
    };
    let mut lent = match warm.warm.lend_to(Some(&format!("api:{}", warm.author))) {
        Ok(lent) => lent,
        Err(e) => return Ran::failed(e),
    };
    // Every read and write of the command is held to the caller's rights.
    lent.keeper()
        .set_caller(warm.caller.clone().within(warm.scope));
    let (out, stdout, stderr) = Out::captured(false);
    let mut ctx = Ctx::new(
        warm.warm.config.clone(),
        Some(lent.take()),
        Format::Json,
        out,
        Stdin::sent(Box::new(std::io::empty()), false),
    );
    if let Ok(keeper) = ctx.keeper() {
        keeper.set_agent(warm.author);
    }
    let ended = dispatch(&mut ctx, cli.command);
    let failure = ctx.out.failure();
    // The answer's own status is returned below; a client gone cannot read it anyway.
    ctx.out.flush().ok();
    if let Some(keeper) = ctx.into_keeper() {
        lent.put_back(keeper);
    }
    Ran {
        stdout: stdout.take(),
        stderr: String::from_utf8_lossy(&stderr.take()).into_owned(),
        ended,
        failure,
    }
}
