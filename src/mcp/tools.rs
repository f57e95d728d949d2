//! The MCP tools: their definitions (description, input schema from the
//! argument types, output schema, hints) and their calls on `Keeper`.
//! Results stay small: summaries rather than full texts by default, a
//! default and a hard maximum on the number of notes, and a byte cap.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::Error;
use crate::ingest::walk::WalkOptions;
use crate::json::{hit_json, note_json, tags_json, view_json};
use crate::keeper::{
    FilterSpec, FindQuery, FindResult, Hit, IngestOptions, Keeper, PutOptions, RecallMode, TagEdit,
    Target,
};
use crate::note::{self, NoteRef};
use crate::store::ListOrder;

/// Largest text `remember` accepts; bigger documents go through `put_file`.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;
/// Largest result, as JSON text; longer listings are cut and marked.
pub const MAX_RESULT_BYTES: usize = 256 * 1024;
/// Characters of a summary shown in the brief format.
const BRIEF_CHARS: usize = 300;
const RECALL_DEFAULT: usize = 10;
const RECALL_MAX: usize = 50;
const LIST_DEFAULT: usize = 20;
const LIST_MAX: usize = 200;

/// Why a call did not produce a result.
#[derive(Debug)]
pub enum CallError {
    /// The arguments do not fit the tool's schema (a protocol error).
    BadArguments(String),
    /// The tool ran and failed; the client shows the reason.
    Failed(String),
}

impl From<Error> for CallError {
    fn from(e: Error) -> Self {
        CallError::Failed(e.to_string())
    }
}

type Outcome = Result<Value, CallError>;

/// How much of each note a listing returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Only the ids, to fetch the interesting ones with `get`.
    Ids,
    /// Id, the start of the summary, tags, the update time and the score.
    #[default]
    Brief,
    /// Everything: full summary, all timestamps, ranks and similarity.
    Full,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Keyword and semantic matches fused by rank.
    #[default]
    Hybrid,
    /// Keyword (BM25) matches only.
    Keyword,
    /// Semantic (embedding) matches only.
    Semantic,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Most recently updated first.
    #[default]
    Updated,
    /// Most recently read first.
    Accessed,
    /// Most recently created first.
    Created,
    /// By id.
    Id,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// The text to remember. Short text is kept whole; long text is summarised and its full text indexed for search.
    pub text: String,
    /// A name for the note, such as "decision/storage-engine". Without one, the id is '%' plus a hash of the text, so the same text is stored once.
    pub id: Option<String>,
    /// Tags as "key=value" strings, e.g. ["project=keep", "type=decision"]. Keys starting with '_' are reserved.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A summary to store instead of one made from the text.
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// What to look for, in natural language or keywords.
    pub query: Option<String>,
    /// Instead of a query: the id of a note whose neighbours by meaning are wanted.
    pub like: Option<String>,
    /// Only notes with these tags: "key" or "key=value"; all must match.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only notes updated since: an ISO 8601 duration back from now ("P7D", "PT2H"), a date or a timestamp.
    pub since: Option<String>,
    /// Only notes updated until: a duration back from now, a date or a timestamp.
    pub until: Option<String>,
    /// Only ids matching this prefix or glob, e.g. "file:///home/me/notes/*".
    pub scope: Option<String>,
    /// How many notes (default 10, at most 50).
    pub limit: Option<usize>,
    /// Also return notes linked to the top hits by edges or shared tags, each marked with how it was reached.
    #[serde(default)]
    pub deep: bool,
    /// Which matching to use (default hybrid).
    #[serde(default)]
    pub mode: Mode,
    /// How much of each note to return (default brief).
    #[serde(default)]
    pub format: Format,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// The note's id. Append "@V{N}" for an older version (1 = previous) or "@P{N}" for a part (1-based).
    pub id: String,
    /// Include the list of older versions.
    #[serde(default)]
    pub history: bool,
    /// Include up to this many notes most similar in meaning (at most 50).
    pub similar: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only notes with these tags: "key" or "key=value"; all must match.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only notes updated since: an ISO 8601 duration back from now ("P7D"), a date or a timestamp.
    pub since: Option<String>,
    /// Only notes updated until: a duration back from now, a date or a timestamp.
    pub until: Option<String>,
    /// Only ids matching this prefix or glob.
    pub scope: Option<String>,
    /// How many notes (default 20, at most 200).
    pub limit: Option<usize>,
    /// Sort order (default updated).
    #[serde(default)]
    pub order: Order,
    /// Include system notes (ids starting with '.').
    #[serde(default)]
    pub include_system: bool,
    /// How much of each note to return (default brief).
    #[serde(default)]
    pub format: Format,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TagArgs {
    /// The note's id.
    pub id: String,
    /// Tags to add, as "key=value".
    #[serde(default)]
    pub add: Vec<String>,
    /// Tags to remove: "key" removes every value of the key, "key=value" one value.
    #[serde(default)]
    pub remove: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// The note's id.
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetArgs {
    /// The note's id, or "ID@V{N}" to delete only that older version.
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NowArgs {
    /// New text for the 'now' note. Leave out to read it.
    pub text: Option<String>,
    /// Use a separate 'now' note for this scope (a project or agent name).
    pub scope: Option<String>,
    /// Tags to set with the new text, as "key=value".
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PutFileArgs {
    /// Absolute path of a file or folder under one of the folders the server allows.
    pub path: String,
    /// For a folder: also take the files in its subfolders.
    #[serde(default)]
    pub recursive: bool,
    /// Tags to add, as "key=value".
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedArgs {
    /// The note's id.
    pub id: String,
    /// How many notes (default 10, at most 50).
    pub limit: Option<usize>,
    /// How much of each note to return (default brief).
    #[serde(default)]
    pub format: Format,
}

/// Everything a call may use besides the keeper.
pub struct Context {
    /// Canonical folders `put_file` may read under.
    pub roots: Vec<PathBuf>,
}

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "remember",
        title: "Remember",
        description: "Store a note in long-term memory: a fact, decision, observation or anything worth recalling later. Returns the note's id and whether it was created, updated (an earlier state is kept as a version) or unchanged. Give an id to update a named note; give tags (\"key=value\") to make it easy to filter later.",
        read_only: false,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "recall",
        title: "Recall",
        description: "Search memory by meaning and keywords together, best first, favouring recent notes. Narrow with tags, since/until and an id scope. Returns brief notes (id, start of summary, tags, score) by default; fetch a whole note with get. Set deep to also follow links and shared tags from the top hits.",
        read_only: true,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "get",
        title: "Get a note",
        description: "Fetch one note in full: summary, tags, dates, parts, and its links to and from other notes. \"ID@V{1}\" reads the previous version, \"ID@P{2}\" the second part. Optionally include its version history and its most similar notes.",
        read_only: true,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "list",
        title: "List notes",
        description: "List notes without a query, most recently updated first by default, filtered by tags, time window and id scope. Use it to browse what is in memory; use recall to search.",
        read_only: true,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "tag",
        title: "Tag a note",
        description: "Add or remove tags on a note. Tags are \"key=value\"; a key may hold several values. Tags whose key is a link (such as references, author, from, to) connect notes. The previous state is kept as a version.",
        read_only: false,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "forget",
        title: "Forget a note",
        description: "Delete a note with its whole history, or only one older version with \"ID@V{N}\". This cannot be undone.",
        read_only: false,
        destructive: true,
        idempotent: false,
    },
    Spec {
        name: "revert",
        title: "Revert a note",
        description: "Undo the last change to a note: its previous version becomes current. A note without history is deleted.",
        read_only: false,
        destructive: true,
        idempotent: false,
    },
    Spec {
        name: "now",
        title: "Now",
        description: "Read or replace the 'now' note: the current intentions and state of work, to pick up where you left off. Setting it keeps the previous text as a version. Use a scope for a separate 'now' per project or agent. Returns the note, or null when it was never set.",
        read_only: false,
        destructive: false,
        idempotent: false,
    },
    Spec {
        name: "put_file",
        title: "Remember a file",
        description: "Store a file, or the files of a folder, as notes whose ids are their file:// URIs: text, Markdown, HTML, PDF, DOCX, audio tags and images (with OCR). A changed file becomes a new version; an unchanged one is skipped. Returns the ids added, updated and unchanged, and each failure with its reason. Only paths under the folders the user allowed when starting the server can be read.",
        read_only: false,
        destructive: false,
        idempotent: true,
    },
    Spec {
        name: "related",
        title: "Related notes",
        description: "Notes connected to a note: its links in both directions and notes sharing a distinctive tag, then its nearest neighbours by meaning. Each is marked with how it is related.",
        read_only: true,
        destructive: false,
        idempotent: true,
    },
];

/// The tool definitions, in a stable order.
pub fn definitions() -> Vec<Tool> {
    SPECS
        .iter()
        .map(|spec| {
            let annotations = ToolAnnotations::with_title(spec.title)
                .read_only(spec.read_only)
                .destructive(spec.destructive)
                .idempotent(spec.idempotent)
                .open_world(false);
            let tool = Tool::new(spec.name, spec.description, input_schema(spec.name))
                .with_title(spec.title)
                .with_annotations(annotations);
            tool.with_raw_output_schema(output_schema(spec.name))
        })
        .collect()
}

fn input_schema(name: &str) -> Arc<JsonObject> {
    use rmcp::handler::server::common::schema_for_type;
    match name {
        "remember" => schema_for_type::<RememberArgs>(),
        "recall" => schema_for_type::<RecallArgs>(),
        "get" => schema_for_type::<GetArgs>(),
        "list" => schema_for_type::<ListArgs>(),
        "tag" => schema_for_type::<TagArgs>(),
        "forget" => schema_for_type::<ForgetArgs>(),
        "revert" => schema_for_type::<IdArgs>(),
        "now" => schema_for_type::<NowArgs>(),
        "put_file" => schema_for_type::<PutFileArgs>(),
        "related" => schema_for_type::<RelatedArgs>(),
        _ => unreachable!("every spec has a schema"),
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are objects"),
    }
}

fn output_schema(name: &str) -> Arc<JsonObject> {
    let note = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "summary": { "type": "string" },
            "tags": { "type": "object" },
            "updated": { "type": "string" },
            "score": { "type": "number" }
        },
        "required": ["id"]
    });
    let listing = json!({
        "type": "object",
        "properties": {
            "notes": { "type": "array", "items": note },
            "ids": { "type": "array", "items": { "type": "string" } },
            "notices": { "type": "array", "items": { "type": "string" } },
            "truncated": { "type": "boolean" }
        }
    });
    let write = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "status": { "type": "string", "enum": ["created", "updated", "unchanged"] }
        },
        "required": ["id", "status"]
    });
    object(match name {
        "recall" | "list" | "related" => listing,
        "remember" => write,
        "put_file" => json!({
            "type": "object",
            "properties": {
                "added": { "type": "array", "items": { "type": "string" } },
                "updated": { "type": "array", "items": { "type": "string" } },
                "unchanged": { "type": "array", "items": { "type": "string" } },
                "failed": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": { "path": { "type": "string" }, "reason": { "type": "string" } }
                    }
                },
                "ocr_pending": { "type": "array", "items": { "type": "string" } }
            },
            "required": ["added", "updated", "unchanged", "failed"]
        }),
        "tag" => json!({
            "type": "object",
            "properties": {
                "id": { "type": "string" },
                "status": { "type": "string" },
                "tags": { "type": "object" }
            },
            "required": ["id", "status", "tags"]
        }),
        "get" => json!({
            "type": "object",
            "properties": {
                "note": note,
                "similar": { "type": "array", "items": note }
            },
            "required": ["note"]
        }),
        "now" => json!({
            "type": "object",
            "properties": { "note": { "anyOf": [note, { "type": "null" }] } },
            "required": ["note"]
        }),
        "forget" => json!({
            "type": "object",
            "properties": {
                "deleted": { "type": "string", "enum": ["note", "version"] },
                "id": { "type": "string" }
            },
            "required": ["deleted", "id"]
        }),
        "revert" => json!({
            "type": "object",
            "properties": {
                "reverted": { "type": "string", "enum": ["restored", "deleted"] },
                "id": { "type": "string" }
            },
            "required": ["reverted", "id"]
        }),
        _ => unreachable!("every spec has an output schema"),
    })
}

/// Runs tool `name` with `args`. Unknown names are the caller's to reject.
pub fn call(keeper: &mut Keeper, ctx: &Context, name: &str, args: Value) -> Outcome {
    let value = match name {
        "remember" => remember(keeper, parse(args)?),
        "recall" => recall(keeper, parse(args)?),
        "get" => get(keeper, parse(args)?),
        "list" => list(keeper, parse(args)?),
        "tag" => tag(keeper, parse(args)?),
        "forget" => forget(keeper, parse(args)?),
        "revert" => revert(keeper, parse(args)?),
        "now" => now(keeper, parse(args)?),
        "put_file" => put_file(keeper, ctx, parse(args)?),
        "related" => related(keeper, parse(args)?),
        _ => return Err(CallError::BadArguments(format!("unknown tool '{name}'"))),
    }?;
    fit(value)
}

/// True for the names `call` knows.
pub fn exists(name: &str) -> bool {
    SPECS.iter().any(|s| s.name == name)
}

fn parse<T: DeserializeOwned>(args: Value) -> Result<T, CallError> {
    serde_json::from_value(args).map_err(|e| CallError::BadArguments(e.to_string()))
}

fn limit(asked: Option<usize>, default: usize, max: usize) -> Result<usize, CallError> {
    match asked {
        None => Ok(default),
        Some(0) => Err(CallError::Failed("limit must be at least 1".into())),
        Some(n) => Ok(n.min(max)),
    }
}

/// Parses an id argument, refusing version and part selectors.
fn plain_id(keeper: &Keeper, arg: &str, action: &str) -> Result<String, CallError> {
    let target = keeper.resolve(arg)?;
    if target.selector.is_some() {
        return Err(CallError::Failed(format!(
            "'{arg}': only the current version of a note can be {action}"
        )));
    }
    Ok(target.id)
}

fn remember(keeper: &mut Keeper, args: RememberArgs) -> Outcome {
    if args.text.trim().is_empty() {
        return Err(CallError::Failed("the text is empty".into()));
    }
    if args.text.len() > MAX_TEXT_BYTES {
        return Err(CallError::Failed(format!(
            "the text is {} bytes; the limit is {MAX_TEXT_BYTES} (store big documents with put_file)",
            args.text.len()
        )));
    }
    if let Some(id) = &args.id {
        note::validate_id(id)?;
    }
    let opts = PutOptions {
        id: args.id,
        tags: note::parse_user_tags(&args.tags)?,
        summary: args.summary,
    };
    let outcome = keeper.put_text(&args.text, "inline", opts)?;
    Ok(json!(outcome))
}

fn recall(keeper: &mut Keeper, args: RecallArgs) -> Outcome {
    let text = args.query.filter(|q| !q.trim().is_empty());
    if text.is_none() && args.like.is_none() {
        return Err(CallError::Failed(
            "give a query, or the id of a note in 'like'".into(),
        ));
    }
    if text.is_some() && args.like.is_some() {
        return Err(CallError::Failed(
            "give either a query or 'like', not both".into(),
        ));
    }
    let filter = keeper.filter(&FilterSpec {
        tags: &args.tags,
        since: args.since.as_deref(),
        until: args.until.as_deref(),
        scope: args.scope.as_deref(),
        include_system: false,
    })?;
    let like = match &args.like {
        Some(id) => Some(plain_id(keeper, id, "compared")?),
        None => None,
    };
    let result = keeper.find(&FindQuery {
        text,
        like,
        filter,
        limit: limit(args.limit, RECALL_DEFAULT, RECALL_MAX)?,
        deep: args.deep,
        half_life_days: None,
        mode: match args.mode {
            Mode::Hybrid => RecallMode::Hybrid,
            Mode::Keyword => RecallMode::Keyword,
            Mode::Semantic => RecallMode::Semantic,
        },
    })?;
    Ok(hits_listing(&result, args.format))
}

fn get(keeper: &mut Keeper, args: GetArgs) -> Outcome {
    let target = keeper.resolve(&args.id)?;
    let view = keeper.get(&target)?;
    let mut note = view_json(&view);
    if !args.history
        && let Some(obj) = note.as_object_mut()
    {
        obj.remove("versions");
        obj.insert("version_count".into(), json!(view.history.len()));
    }
    let mut out = json!({ "note": note });
    if let Some(n) = args.similar {
        let n = limit(Some(n), RECALL_DEFAULT, RECALL_MAX)?;
        let result = keeper.similar(&target.id, n)?;
        out["similar"] = Value::Array(result.hits.iter().map(brief_hit).collect());
    }
    Ok(out)
}

fn list(keeper: &mut Keeper, args: ListArgs) -> Outcome {
    let filter = keeper.filter(&FilterSpec {
        tags: &args.tags,
        since: args.since.as_deref(),
        until: args.until.as_deref(),
        scope: args.scope.as_deref(),
        include_system: args.include_system,
    })?;
    let order = match args.order {
        Order::Updated => ListOrder::Updated,
        Order::Accessed => ListOrder::Accessed,
        Order::Created => ListOrder::Created,
        Order::Id => ListOrder::Id,
    };
    let limit = limit(args.limit, LIST_DEFAULT, LIST_MAX)?;
    let notes = keeper.list(&filter, order, Some(limit))?;
    Ok(match args.format {
        Format::Ids => json!({ "ids": notes.iter().map(|n| &n.id).collect::<Vec<_>>() }),
        Format::Brief => json!({ "notes": notes.iter().map(brief_note).collect::<Vec<_>>() }),
        Format::Full => json!({ "notes": notes.iter().map(note_json).collect::<Vec<_>>() }),
    })
}

fn tag(keeper: &mut Keeper, args: TagArgs) -> Outcome {
    if args.add.is_empty() && args.remove.is_empty() {
        return Err(CallError::Failed(
            "nothing to do: give tags to add or remove".into(),
        ));
    }
    let id = plain_id(keeper, &args.id, "tagged")?;
    let mut edit = TagEdit {
        add: note::parse_user_tags(&args.add)?,
        ..TagEdit::default()
    };
    for arg in &args.remove {
        match arg.split_once('=') {
            Some(_) => edit.remove_values.push(note::parse_user_tag(arg)?),
            None => {
                note::validate_tag_key(arg, arg)?;
                edit.remove_keys.push(arg.clone());
            }
        }
    }
    let outcome = keeper.tag(&id, &edit)?;
    let tags = keeper
        .peek(&id)?
        .map(|n| tags_json(&n.tags))
        .unwrap_or(Value::Null);
    Ok(json!({ "id": outcome.id, "status": outcome.status, "tags": tags }))
}

fn forget(keeper: &mut Keeper, args: ForgetArgs) -> Outcome {
    let target = keeper.resolve(&args.id)?;
    Ok(json!(keeper.delete(&target)?))
}

fn revert(keeper: &mut Keeper, args: IdArgs) -> Outcome {
    let id = plain_id(keeper, &args.id, "reverted")?;
    Ok(json!(keeper.revert(&id)?))
}

fn now(keeper: &mut Keeper, args: NowArgs) -> Outcome {
    let id = Keeper::now_id(args.scope.as_deref())?;
    if let Some(text) = &args.text {
        if text.len() > MAX_TEXT_BYTES {
            return Err(CallError::Failed(format!(
                "the text is {} bytes; the limit is {MAX_TEXT_BYTES}",
                text.len()
            )));
        }
        let opts = PutOptions {
            id: Some(id.clone()),
            tags: note::parse_user_tags(&args.tags)?,
            summary: None,
        };
        keeper.put_text(text, "inline", opts)?;
    } else if !args.tags.is_empty() {
        return Err(CallError::Failed("tags are set together with text".into()));
    }
    if keeper.peek(&id)?.is_none() {
        return Ok(json!({ "note": null }));
    }
    let view = keeper.get(&NoteRef::plain(id))?;
    let mut note = view_json(&view);
    if let Some(obj) = note.as_object_mut() {
        obj.remove("versions");
        obj.insert("version_count".into(), json!(view.history.len()));
    }
    Ok(json!({ "note": note }))
}

fn put_file(keeper: &mut Keeper, ctx: &Context, args: PutFileArgs) -> Outcome {
    let path = allowed_path(&ctx.roots, Path::new(&args.path))?;
    let opts = IngestOptions {
        walk: WalkOptions {
            recursive: args.recursive,
            ..WalkOptions::default()
        },
        tags: note::parse_user_tags(&args.tags)?,
        roots: ctx.roots.clone(),
        ..IngestOptions::default()
    };
    let report = keeper.ingest(&[Target::Path(path)], &opts, &mut |_| {})?;
    Ok(json!(report))
}

/// The canonical form of `path` when it lies under one of `roots`.
pub fn allowed_path(roots: &[PathBuf], path: &Path) -> Result<PathBuf, CallError> {
    if roots.is_empty() {
        return Err(CallError::Failed(
            "file access is off: start the server with 'keep mcp --allow DIR' to allow a folder"
                .into(),
        ));
    }
    if !path.is_absolute() {
        return Err(CallError::Failed(format!(
            "'{}' is not an absolute path",
            path.display()
        )));
    }
    let real = path
        .canonicalize()
        .map_err(|e| CallError::Failed(format!("{}: {e}", path.display())))?;
    if roots.iter().any(|root| real.starts_with(root)) {
        Ok(real)
    } else {
        Err(CallError::Failed(format!(
            "'{}' is outside the allowed folders",
            path.display()
        )))
    }
}

fn related(keeper: &mut Keeper, args: RelatedArgs) -> Outcome {
    let id = plain_id(keeper, &args.id, "related")?;
    let result = keeper.related(&id, limit(args.limit, RECALL_DEFAULT, RECALL_MAX)?)?;
    Ok(hits_listing(&result, args.format))
}

fn hits_listing(result: &FindResult, format: Format) -> Value {
    let mut out = match format {
        Format::Ids => json!({ "ids": result.hits.iter().map(|h| &h.note.id).collect::<Vec<_>>() }),
        Format::Brief => json!({ "notes": result.hits.iter().map(brief_hit).collect::<Vec<_>>() }),
        Format::Full => json!({ "notes": result.hits.iter().map(hit_json).collect::<Vec<_>>() }),
    };
    if !result.notices.is_empty() {
        out["notices"] = json!(result.notices);
    }
    out
}

fn brief_note(n: &note::Note) -> Value {
    let mut summary: String = n.summary.chars().take(BRIEF_CHARS).collect();
    if summary.len() < n.summary.len() {
        summary = format!("{} …", summary.trim_end());
    }
    json!({
        "id": n.id,
        "summary": summary,
        "tags": tags_json(&n.tags),
        "updated": n.updated,
    })
}

fn brief_hit(h: &Hit) -> Value {
    let mut v = brief_note(&h.note);
    v["score"] = json!(h.score);
    match h.matched {
        Some(crate::search::Matched::Part { part }) => {
            v["matched"] = json!(format!("@P{{{part}}}"))
        }
        Some(crate::search::Matched::Version { version }) => {
            v["matched"] = json!(format!("@V{{{version}}}"))
        }
        None => {}
    }
    if let Some(via) = &h.via {
        v["via"] = json!(via);
    }
    v
}

/// Cuts listings that would exceed `MAX_RESULT_BYTES`, marking them.
fn fit(mut value: Value) -> Outcome {
    let size = |v: &Value| v.to_string().len();
    if size(&value) <= MAX_RESULT_BYTES {
        return Ok(value);
    }
    if let Some(Value::Array(notes)) = value.get_mut("notes") {
        while notes.len() > 1 {
            notes.pop();
            let total: usize = notes.iter().map(size).sum();
            if total + 1024 <= MAX_RESULT_BYTES {
                break;
            }
        }
        value["truncated"] = json!(true);
        if size(&value) <= MAX_RESULT_BYTES {
            return Ok(value);
        }
    }
    Err(CallError::Failed(format!(
        "the result is larger than {MAX_RESULT_BYTES} bytes; ask for fewer notes or the brief format"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_schemas_and_hints() {
        let tools = definitions();
        assert_eq!(tools.len(), SPECS.len());
        for t in &tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            let out = t.output_schema.as_ref().expect("output schema");
            assert_eq!(out.get("type"), Some(&json!("object")), "{}", t.name);
            assert!(t.annotations.as_ref().unwrap().read_only_hint.is_some());
        }
    }

    #[test]
    fn paths_outside_the_roots_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let root_path = root.path().canonicalize().unwrap();
        let inside = root_path.join("a.txt");
        std::fs::write(&inside, "x").unwrap();
        let roots = vec![root_path.clone()];
        assert!(allowed_path(&roots, &inside).is_ok());
        let escape = root_path
            .join("..")
            .join(root_path.file_name().unwrap())
            .join("..");
        assert!(allowed_path(&roots, &escape).is_err());
        assert!(allowed_path(&[], &inside).is_err());
        assert!(allowed_path(&roots, Path::new("a.txt")).is_err());
    }

    #[test]
    fn oversized_listings_are_cut_and_marked() {
        let big = "x".repeat(10_000);
        let notes: Vec<Value> = (0..100)
            .map(|i| json!({ "id": i.to_string(), "summary": big }))
            .collect();
        let value = fit(json!({ "notes": notes })).unwrap();
        assert!(value.to_string().len() <= MAX_RESULT_BYTES);
        assert_eq!(value["truncated"], json!(true));
        assert!(value["notes"].as_array().unwrap().len() > 1);
    }
}
