//! Every route of the JSON API, each one typed command: its method and
//! path, what it does, an example of what it takes and the status it
//! answers with. Answering, the OpenAPI document and the rights test all
//! read this list, so no route is served undescribed or untested.

use std::sync::LazyLock;

use keep_commands::{
    Command, conflicts::Conflicts, find::Find, get, list::List, log::Log, put::Put, rate::Rate,
    restore::Restore, stats::Stats, supersede::Supersede, tag::Tag, trash::Trash, why::Why,
};
use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use super::{Reply, Serving, decode, run};

/// The status a successful answer gets, from the answer.
pub(super) type Status = fn(&Value) -> u16;

/// How a route runs: as a caller, with its arguments and success status.
pub(super) type Runs = fn(&Serving<'_>, Value, Status) -> Reply;

/// One route: a command behind a method and a path.
pub struct Route {
    pub method: &'static str,
    /// The path; `{id}` stands for a note's id, percent-encoded.
    pub path: &'static str,
    pub operation: &'static str,
    pub summary: &'static str,
    /// What a successful answer holds.
    pub answers: &'static str,
    /// An example of what the route takes: the body of a write, the query
    /// parameters of a read (the path's id left out).
    pub example: &'static str,
    pub(super) run: Runs,
    pub(super) ok: Status,
    /// The schemas of its arguments and of its answer.
    pub(super) schemas: fn(&mut SchemaGenerator, &mut SchemaGenerator) -> (Schema, Schema),
}

impl Route {
    /// The note id of `path`, when `path` is this route's (`Some(None)`
    /// for a route without one).
    fn id_of(&self, path: &str) -> Option<Option<String>> {
        match self.path.split_once("{id}") {
            None => (path == self.path).then_some(None),
            Some((before, after)) => {
                let id = path.strip_prefix(before)?.strip_suffix(after)?;
                (!id.is_empty()).then(|| Some(decode(id)))
            }
        }
    }

    /// Whether the path names a note.
    pub fn takes_id(&self) -> bool {
        self.path.contains("{id}")
    }
}

fn route<C: Command>(
    (method, path, operation): (&'static str, &'static str, &'static str),
    summary: &'static str,
    answers: &'static str,
    example: &'static str,
) -> Route {
    Route {
        method,
        path,
        operation,
        summary,
        answers,
        example,
        run: run::<C>,
        ok: |_| 200,
        schemas: |takes, gives| {
            (
                takes.subschema_for::<C>(),
                gives.subschema_for::<C::Output>(),
            )
        },
    }
}

/// 201 for a note stored anew, 200 for the rest.
fn created(answer: &Value) -> u16 {
    match answer["status"].as_str() {
        Some("created" | "possible_update") => 201,
        _ => 200,
    }
}

/// The routes, in the order the document lists them.
pub fn routes() -> &'static [Route] {
    static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
        vec![
            route::<Find>(
                ("GET", "/v1/find", "find"),
                "Find notes by meaning and keyword, best first, as keep find",
                "the hits, best first",
                r#"{"q": "backup password", "limit": 5}"#,
            ),
            route::<List>(
                ("GET", "/v1/notes", "list"),
                "List notes, most recently updated first, as keep list",
                "the notes, in order",
                r#"{"sort": "updated", "limit": 20}"#,
            ),
            Route {
                ok: created,
                ..route::<Put>(
                    ("POST", "/v1/notes", "put"),
                    "Store text as a note, as keep put --text",
                    "nothing new stored: unchanged, updated (a new version), or duplicate (a note says it already)",
                    r#"{"text": "The API gateway timeout is 30 seconds.", "tags": {"topic": "infra"}}"#,
                )
            },
            route::<get::Get>(
                ("GET", "/v1/notes/{id}", "get"),
                "A note, an archived version (ID@V{N}) or a part (ID@P{N}), as keep get",
                "the note with its history, parts and links",
                "{}",
            ),
            route::<get::History>(
                ("GET", "/v1/notes/{id}/history", "history"),
                "Every version of a note, the current first, as keep get --history",
                "the versions, each with what it changed",
                "{}",
            ),
            route::<get::Parts>(
                ("GET", "/v1/notes/{id}/parts", "parts"),
                "The parts of a note, as keep get --parts",
                "the parts, in order",
                "{}",
            ),
            route::<get::Text>(
                ("GET", "/v1/notes/{id}/text", "text"),
                "The whole text of a note (its parts joined by a blank line), as keep get --text",
                "the note's id and text",
                "{}",
            ),
            route::<get::Similar>(
                ("GET", "/v1/notes/{id}/similar", "similar"),
                "The notes nearest in meaning to a note, as keep get --similar",
                "the notes, nearest first",
                r#"{"limit": 5}"#,
            ),
            route::<Why>(
                ("GET", "/v1/notes/{id}/why", "why"),
                "Where a note stands for a search and what keeps it from the hits, as keep why",
                "the stage: shown, below_cut, filtered, not_candidate or not_indexed",
                r#"{"q": "backup password", "limit": 5}"#,
            ),
            route::<Tag>(
                ("POST", "/v1/notes/{id}/tags", "tag"),
                "Add and remove a note's tags, as keep tag",
                "whether the note changed",
                r#"{"add": {"status": "checked"}, "remove": ["draft"]}"#,
            ),
            route::<Rate>(
                ("POST", "/v1/notes/{id}/rate", "rate"),
                "Rate a note useful or wrong, as keep rate",
                "the note's totals",
                r#"{"rating": "useful"}"#,
            ),
            route::<Supersede>(
                ("POST", "/v1/notes/{id}/supersede", "supersede"),
                "Accept a note as the successor of older ones, as keep supersede",
                "the newer note",
                r#"{"olds": []}"#,
            ),
            route::<Trash>(
                ("POST", "/v1/notes/{id}/trash", "trash"),
                "Put a note in the trash, as keep del",
                "what was deleted",
                r#"{"reason": "done"}"#,
            ),
            route::<Restore>(
                ("POST", "/v1/notes/{id}/restore", "restore"),
                "Take a note out of the trash, as keep restore",
                "the note restored",
                "{}",
            ),
            route::<Log>(
                ("GET", "/v1/log", "log"),
                "The operations log, newest first, as keep log",
                "the entries, newest first",
                r#"{"limit": 50}"#,
            ),
            route::<Stats>(
                ("GET", "/v1/stats", "stats"),
                "What the store holds and who wrote it, as keep stats",
                "the counts",
                r#"{"waiting": 5}"#,
            ),
            route::<Conflicts>(
                ("GET", "/v1/conflicts", "conflicts"),
                "Live notes that give two values for one subject, as keep conflicts",
                "the pairs, newer first",
                r#"{"limit": 20}"#,
            ),
        ]
    });
    &ROUTES
}

/// What a method and path reach.
pub enum Found {
    /// A route, with the note id of the path.
    Route(&'static Route, Option<String>),
    /// A path of the API, but not with this method.
    OtherMethod,
    Nothing,
}

/// The route `method` and `path` reach: of the routes whose path it is,
/// the most specific (`/v1/notes/{id}/history` before `/v1/notes/{id}`).
pub fn find(method: &str, path: &str) -> Found {
    let matching: Vec<(&'static Route, Option<String>)> = routes()
        .iter()
        .filter_map(|r| r.id_of(path).map(|id| (r, id)))
        .collect();
    let Some(most) = matching.iter().map(|(r, _)| r.path.len()).max() else {
        return Found::Nothing;
    };
    matching
        .into_iter()
        .filter(|(r, _)| r.path.len() == most)
        .find(|(r, _)| r.method == method)
        .map_or(Found::OtherMethod, |(r, id)| Found::Route(r, id))
}
