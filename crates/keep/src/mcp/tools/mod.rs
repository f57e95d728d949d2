//! The MCP tools. Each tool is one type implementing `ToolDef`: its name,
//! title, description, hints, argument type and result type in one place;
//! the input and output schemas are derived from those types. `REGISTRY`
//! lists them, and `definitions` and `call` both read it, so a tool cannot
//! be listed without being callable or the other way round. Results stay
//! small: summaries rather than full texts by default, a default and a
//! hard maximum on the number of notes, and a byte cap.

mod analyze;
mod conflicts;
mod feedback;
mod forget;
mod get;
mod list;
mod log;
mod move_history;
mod now;
mod put_file;
mod recall;
mod related;
mod remember;
mod restore;
mod revert;
mod schema;
mod stats;
mod supersede;
mod tag;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use keep_core::model::{TagFilter, Tags};
use keep_core::{Error, Keeper};
use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Largest text `remember` accepts; bigger documents go through `put_file`.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;
/// Largest result, as JSON text; longer listings are cut and marked.
pub const MAX_RESULT_BYTES: usize = 256 * 1024;

/// Where a call's progress goes: (done, total if known, what).
pub type ProgressSink = tokio::sync::mpsc::UnboundedSender<(f64, Option<f64>, String)>;

/// Everything a call may use besides the keeper: the server's settings,
/// and this call's progress sink and cancellation flag.
#[derive(Debug, Default, Clone)]
pub struct Context {
    /// Canonical folders `put_file` may read under.
    pub roots: Vec<PathBuf>,
    /// Whether `put_file` may read hidden files and folders under them.
    pub allow_hidden: bool,
    /// The server's scope: every note read must carry these tags, and every
    /// note written gets them. Empty: the whole store.
    pub scope: Tags,
    /// Who calls: the keeper holds every call to its rights, within
    /// `scope` as well.
    pub caller: keep_core::Caller,
    /// Set when the client asked for progress (`_meta.progressToken`).
    pub progress: Option<ProgressSink>,
    /// Set when the client cancels the call.
    pub cancel: Arc<AtomicBool>,
    /// Which tools `tools/list` shows.
    pub tools: ToolSet,
}

impl Context {
    /// The caller the keeper is handed for a call: its own rights, within
    /// the server's scope.
    pub fn caller(&self) -> keep_core::Caller {
        self.caller.clone().within(&self.scope)
    }

    /// Tells the client how far the call is, when it asked.
    pub fn report(&self, done: usize, total: Option<usize>, what: String) {
        if let Some(sink) = &self.progress {
            let _ = sink.send((done as f64, total.map(|t| t as f64), what));
        }
    }

    /// The scope as filters, for listings and writes.
    pub fn scope_filters(&self) -> Vec<TagFilter> {
        self.caller().filters()
    }

    /// True when note tags `tags` lie inside the scope.
    pub fn covers(&self, tags: &Tags) -> bool {
        self.caller().covers(tags)
    }

    /// Fails, as for a note that does not exist, when the caller cannot
    /// see note `id` (the keeper reads only what its caller may).
    pub fn check(&self, keeper: &Keeper, id: &str) -> Result<(), CallError> {
        match keeper.peek(id)? {
            Some(_) => Ok(()),
            None => Err(Error::NotFound(id.to_string()).into()),
        }
    }

    /// User tags for a write, with the scope's tags added. Another value
    /// for a scope key would make the note visible to another scope, so
    /// it is refused.
    pub fn scoped(&self, tags: Tags) -> Result<Tags, CallError> {
        Ok(self.caller().scoped_tags(tags)?)
    }

    /// The scope of the 'now' note: the one asked for, inside the
    /// server's scope when it has one (`project=x/agent`).
    pub fn now_scope(&self, asked: Option<&str>) -> Option<String> {
        let server: Vec<String> = self
            .scope
            .pairs()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        match (server.is_empty(), asked) {
            (true, asked) => asked.map(str::to_string),
            (false, None) => Some(server.join(",")),
            (false, Some(asked)) => Some(format!("{}/{asked}", server.join(","))),
        }
    }
}

/// Why a call did not produce a result.
#[derive(Debug)]
pub enum CallError {
    /// The arguments do not fit the tool's schema (a protocol error).
    BadArguments(String),
    /// The tool ran and failed; the client shows the reason.
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::BadArguments(why) | CallError::Failed(why) => f.write_str(why),
        }
    }
}

impl From<Error> for CallError {
    fn from(e: Error) -> Self {
        CallError::Failed(match e.advice() {
            Some(advice) => format!("{e} ({})", crate::render::advice::for_agent(&advice)),
            None => e.to_string(),
        })
    }
}

impl From<keep_core::model::Invalid> for CallError {
    fn from(e: keep_core::model::Invalid) -> Self {
        CallError::Failed(e.to_string())
    }
}

/// What a tool promises about its effects, for clients to show.
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

impl Hints {
    /// A tool that only reads: asking twice gives the same answer.
    pub const READ_ONLY: Hints = Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
    };
    /// Adds or changes; the same call again changes nothing more.
    pub const IDEMPOTENT_WRITE: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    /// Adds or changes; each call counts.
    pub const WRITE: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: false,
    };
    /// Removes or replaces what was there.
    pub const DESTRUCTIVE: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: false,
    };
}

/// One tool: its definition and its call.
pub trait ToolDef {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const HINTS: Hints;
    /// An example of its arguments, JSON: shown to clients in the input
    /// schema's `examples`, and what the rights test calls it with.
    const EXAMPLE: &'static str;
    /// Left out of the tools a client is shown unless the server was
    /// started with `--tools all` (it can still be called).
    const RARE: bool = false;
    type Args: DeserializeOwned + JsonSchema + 'static;
    type Output: Serialize + JsonSchema + 'static;

    fn call(
        keeper: &mut Keeper,
        ctx: &Context,
        args: Self::Args,
    ) -> Result<Self::Output, CallError>;

    /// Texts the call will embed, so that they can be embedded before it
    /// waits for the store.
    fn texts_to_embed(_args: &Self::Args) -> Vec<String> {
        Vec::new()
    }
}

/// The definition clients see in `tools/list`.
fn definition<T: ToolDef>() -> Tool {
    let annotations = ToolAnnotations::with_title(T::TITLE)
        .read_only(T::HINTS.read_only)
        .destructive(T::HINTS.destructive)
        .idempotent(T::HINTS.idempotent)
        .open_world(false);
    let input = with_example(
        schema::portable(schema_for_type::<T::Args>(), schema::Side::Input),
        T::EXAMPLE,
    );
    let output = schema::portable(schema_for_output::<T::Output>(), schema::Side::Output);
    Tool::new(T::NAME, T::DESCRIPTION, input)
        .with_title(T::TITLE)
        .with_icons(vec![super::icon()])
        .with_annotations(annotations)
        .with_raw_output_schema(object_schema(output))
}

/// The definition the `core` tool set shows: the description and a
/// compact input schema, without the output schema and icon (a client
/// puts every tool's definition into its model's context at every
/// session; structured results still come).
fn compact_definition<T: ToolDef>() -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(T::HINTS.read_only)
        .destructive(T::HINTS.destructive)
        .idempotent(T::HINTS.idempotent)
        .open_world(false);
    let input = with_example(
        schema::compact(schema::portable(
            schema_for_type::<T::Args>(),
            schema::Side::Input,
        )),
        T::EXAMPLE,
    );
    Tool::new(T::NAME, T::DESCRIPTION, input)
        .with_title(T::TITLE)
        .with_annotations(annotations)
}

/// An input schema with `example` (JSON) as its one example.
fn with_example(schema: Arc<JsonObject>, example: &str) -> Arc<JsonObject> {
    let example: Value = serde_json::from_str(example).expect("a tool's example is JSON");
    let mut schema = schema.as_ref().clone();
    schema.insert("examples".into(), json!([example]));
    Arc::new(schema)
}

/// An output schema whose root says `type: object`, as MCP requires; a
/// tagged enum of objects gets it added.
fn object_schema(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    if schema.contains_key("type") {
        return schema;
    }
    let mut schema = schema.as_ref().clone();
    schema.insert("type".into(), json!("object"));
    Arc::new(schema)
}

fn run<T: ToolDef>(keeper: &mut Keeper, ctx: &Context, args: Value) -> Result<Value, CallError> {
    let args: T::Args =
        serde_json::from_value(args).map_err(|e| CallError::BadArguments(e.to_string()))?;
    let started = std::time::Instant::now();
    let called = T::call(keeper, ctx, args);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::debug!(tool = T::NAME, ms, failed = called.is_err(), "called");
    let output = called?;
    let value = serde_json::to_value(output)
        .map_err(|e| CallError::Failed(format!("the result could not be written: {e}")))?;
    fit(value)
}

fn texts_of<T: ToolDef>(args: &Value) -> Vec<String> {
    T::Args::deserialize(args).map_or_else(|_| Vec::new(), |a| T::texts_to_embed(&a))
}

/// A tool's entry in the registry.
struct Entry {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    hints: Hints,
    rare: bool,
    definition: fn() -> Tool,
    compact: fn() -> Tool,
    run: fn(&mut Keeper, &Context, Value) -> Result<Value, CallError>,
    texts_to_embed: fn(&Value) -> Vec<String>,
    #[cfg(test)]
    takes: fn(&Value) -> Result<(), String>,
}

const fn entry<T: ToolDef>() -> Entry {
    Entry {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        hints: T::HINTS,
        rare: T::RARE,
        definition: definition::<T>,
        compact: compact_definition::<T>,
        run: run::<T>,
        texts_to_embed: texts_of::<T>,
        #[cfg(test)]
        takes: |args| {
            T::Args::deserialize(args)
                .map(drop)
                .map_err(|e| e.to_string())
        },
    }
}

/// Every tool, in the order clients see them.
const REGISTRY: &[Entry] = &[
    entry::<remember::Remember>(),
    entry::<recall::Recall>(),
    entry::<get::Get>(),
    entry::<list::List>(),
    entry::<tag::Tag>(),
    entry::<forget::Forget>(),
    entry::<restore::Restore>(),
    entry::<revert::Revert>(),
    entry::<now::Now>(),
    entry::<move_history::Move>(),
    entry::<put_file::PutFile>(),
    entry::<related::Related>(),
    entry::<feedback::Feedback>(),
    entry::<supersede::Supersede>(),
    entry::<conflicts::Conflicts>(),
    entry::<analyze::Analyze>(),
    entry::<log::Log>(),
    entry::<stats::Stats>(),
];

/// A tool as the documentation lists it.
pub struct Summary {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// `read-only`, `idempotent`, `destructive` or empty.
    pub hints: &'static str,
    /// Shown only with `--tools all`.
    pub rare: bool,
}

/// Every tool, in the order clients see them: the source of `keep mcp
/// --help`, its man page and the table of docs/agents.md.
pub fn summaries() -> Vec<Summary> {
    REGISTRY
        .iter()
        .map(|e| Summary {
            name: e.name,
            title: e.title,
            description: e.description,
            hints: match &e.hints {
                h if h.read_only => "read-only",
                h if h.destructive => "destructive",
                h if h.idempotent => "idempotent",
                _ => "",
            },
            rare: e.rare,
        })
        .collect()
}

/// Every tool definition, in a stable order.
#[cfg(test)]
fn definitions() -> Vec<Tool> {
    definitions_for(false, ToolSet::All)
}

/// Which tools a client is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolSet {
    /// The tools agents use every session, in a compact form (about 16 KB)
    #[default]
    Core,
    /// Every tool, with its output schema
    All,
}

/// The tool definitions a caller may call, in a stable order: those that
/// only read when it may only read, of `set`.
pub fn definitions_for(read_only: bool, set: ToolSet) -> Vec<Tool> {
    REGISTRY
        .iter()
        .filter(|e| !read_only || e.hints.read_only)
        .filter(|e| set == ToolSet::All || !e.rare)
        .map(|e| match set {
            ToolSet::All => (e.definition)(),
            ToolSet::Core => (e.compact)(),
        })
        .collect()
}

/// Whether tool `name` writes (every tool says so in its hints).
pub fn writes(name: &str) -> bool {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .is_some_and(|e| !e.hints.read_only)
}

/// Runs tool `name` with `args`; None when there is no such tool.
pub fn call(
    keeper: &mut Keeper,
    ctx: &Context,
    name: &str,
    args: Value,
) -> Option<Result<Value, CallError>> {
    let entry = REGISTRY.iter().find(|e| e.name == name)?;
    Some((entry.run)(keeper, ctx, args))
}

/// The texts a call of tool `name` with `args` will embed (none for
/// arguments it would refuse).
pub fn texts_to_embed(name: &str, args: &Value) -> Vec<String> {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .map_or_else(Vec::new, |e| (e.texts_to_embed)(args))
}

/// True for the names `call` knows.
pub fn exists(name: &str) -> bool {
    REGISTRY.iter().any(|e| e.name == name)
}

/// A listing's `limit`: the default when absent, at most `max`.
/// The tag and time filters a listing or a search asks for, as the
/// commands take them.
fn filters(
    tag: Vec<String>,
    (since, until): (Option<String>, Option<String>),
    as_of: Option<String>,
    when: Option<String>,
    from: Vec<String>,
    all: bool,
) -> keep_commands::Filters {
    keep_commands::Filters {
        tag,
        since,
        until,
        as_of,
        when,
        from,
        all,
    }
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

/// Cuts listings that would exceed `MAX_RESULT_BYTES`, marking them.
fn fit(mut value: Value) -> Result<Value, CallError> {
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

/// How much of each note a listing returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, JsonSchema)]
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

/// A listing of notes or hits, in the format asked for.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Listing<B, F> {
    /// With format `ids`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    /// With format `brief` or `full`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<Listed<B, F>>>,
    /// Things to know, such as recall falling back to keywords.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// Set when the listing was cut to fit the result size limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// With `max_tokens`: the tokens the entries take (each counted on its
    /// JSON form with the embedding model's tokenizer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
    /// With `max_tokens`: how many more results did not fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<usize>,
}

/// One entry of a listing: brief or full.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Listed<B, F> {
    Brief(B),
    Full(F),
}

impl<B, F> Listing<B, F> {
    /// Builds the listing of `items` in `format`.
    fn of<T>(
        items: &[T],
        format: Format,
        id: impl Fn(&T) -> String,
        brief: impl Fn(&T) -> B,
        full: impl Fn(&T) -> F,
    ) -> Self {
        match format {
            Format::Ids => Listing {
                ids: Some(items.iter().map(id).collect()),
                notes: None,
                notices: Vec::new(),
                truncated: false,
                tokens: None,
                left_out: None,
            },
            Format::Brief => Listing {
                ids: None,
                notes: Some(items.iter().map(|i| Listed::Brief(brief(i))).collect()),
                notices: Vec::new(),
                truncated: false,
                tokens: None,
                left_out: None,
            },
            Format::Full => Listing {
                ids: None,
                notes: Some(items.iter().map(|i| Listed::Full(full(i))).collect()),
                notices: Vec::new(),
                truncated: false,
                tokens: None,
                left_out: None,
            },
        }
    }
}

impl<B: Serialize, F: Serialize> Listing<B, F> {
    /// Keeps the first entries that fit in `max_tokens` together and says
    /// how many more there were.
    fn fit(
        &mut self,
        max_tokens: usize,
        counter: &keep_core::embed::TokenCounter,
    ) -> keep_core::Result<()> {
        use crate::render::budget;
        let (tokens, left_out) = if let Some(notes) = self.notes.take() {
            let fitted = budget::fit(notes, max_tokens, counter)?;
            self.notes = Some(fitted.kept);
            (fitted.tokens, fitted.left_out)
        } else if let Some(ids) = self.ids.take() {
            let fitted = budget::fit(ids, max_tokens, counter)?;
            self.ids = Some(fitted.kept);
            (fitted.tokens, fitted.left_out)
        } else {
            return Ok(());
        };
        self.tokens = Some(tokens);
        self.left_out = Some(left_out);
        if left_out > 0 {
            self.notices
                .push(budget::left_out_notice(left_out, max_tokens));
        }
        Ok(())
    }
}

/// A listing of recall hits.
pub type HitListing = Listing<crate::render::json::BriefHit, crate::render::json::HitJson>;

fn hit_listing(result: &keep_core::recall::FindResult, format: Format) -> HitListing {
    use crate::render::json::{BriefHit, HitJson};
    let mut listing = Listing::of(
        &result.hits,
        format,
        |h| h.note.id.clone(),
        |h| BriefHit::from(h),
        |h| HitJson::from(h),
    );
    listing.notices = result
        .notices
        .iter()
        .map(crate::render::advice::notice_for_agent)
        .collect();
    listing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tools_example_is_arguments_it_takes() {
        for (entry, tool) in REGISTRY.iter().zip(definitions()) {
            let example = &tool.input_schema["examples"][0];
            assert!(example.is_object(), "{}", entry.name);
            assert_eq!((entry.takes)(example), Ok(()), "{}", entry.name);
        }
    }

    #[test]
    fn every_tool_has_object_schemas_and_hints() {
        let tools = definitions();
        assert_eq!(tools.len(), REGISTRY.len());
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
            assert!(exists(&t.name));
        }
        assert!(!exists("nonsense"));
    }

    /// The contract clients see: names, descriptions, hints and both
    /// schemas of every tool. A change here is a change for every client.
    #[test]
    fn tools_list_is_stable() {
        let listed = serde_json::to_string_pretty(&definitions()).unwrap();
        insta::assert_snapshot!("tools_list", listed);
    }

    /// What a client puts into its model's context at every session
    /// stays small: the core set, compact, within 16 KB.
    #[test]
    fn the_core_tools_fit_in_sixteen_kilobytes_without_the_rare_ones() {
        let core = definitions_for(false, ToolSet::Core);
        let bytes = serde_json::to_string(&json!({ "tools": core }))
            .unwrap()
            .len();
        assert!(
            bytes <= 16 * 1024,
            "tools/list of the core set: {bytes} bytes"
        );
        let names: Vec<&str> = core.iter().map(|t| t.name.as_ref()).collect();
        for entry in REGISTRY {
            assert_eq!(names.contains(&entry.name), !entry.rare, "{}", entry.name);
        }
        assert!(
            core.iter()
                .all(|t| t.output_schema.is_none() && t.icons.is_none())
        );
        let all = definitions_for(false, ToolSet::All);
        assert_eq!(all.len(), REGISTRY.len());
        assert!(all.iter().all(|t| t.output_schema.is_some()));
    }

    /// A model picks a tool by its description: each says when to use it.
    #[test]
    fn every_description_says_when_to_use_the_tool() {
        for entry in REGISTRY {
            let said = entry.description;
            assert!(
                ["Use it ", "use it ", "call this "]
                    .iter()
                    .any(|cue| said.contains(cue)),
                "{}: {said}",
                entry.name
            );
        }
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
