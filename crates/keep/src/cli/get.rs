//! `keep get`: show notes, versions and parts.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::get::{Get, History, Parts, Similar, Text};
use keep_core::Keeper;
use keep_core::keeper::{NoteView, parse_filters};
use keep_core::model::{Selector, TagFilter};
use serde_json::Value;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Failures, Status};
use crate::render::json::{HistoryJson, PartsJson};
use crate::render::text::{change_label, first_line};

/// Show notes, an archived version (ID@V{N}) or a part (ID@P{N}).
///
/// Prints each note as frontmatter (id, tags, edges, versions, parts,
/// timestamps) followed by '---' and its summary. Edges list the notes this
/// one links to through edge tags (author, references, ...) and, under the
/// inverse name (authored, referenced-by, ...), the notes that link to it.
/// Reading a note records its access time (not while another writer holds
/// the store: a read never waits). Exits 1 if any id is unknown.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Note ids, optionally with @V{N} or @P{N}
    #[arg(required = true, value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub ids: Vec<String>,

    /// Show version N: 0 current, 1 previous, negative counts from the oldest (-1 = oldest)
    #[arg(
        short = 'V',
        long = "at-version",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub version: Option<i64>,

    /// Show the state that held then (the latest begun by WHEN): a date, a timestamp, a duration back from now or a spoken day
    #[arg(long, value_name = "WHEN", conflicts_with = "version")]
    pub as_of: Option<String>,

    /// List the note's versions (current first) instead of showing it
    #[arg(long, conflicts_with_all = ["version", "as_of"])]
    pub history: bool,

    /// List the note's parts (ID@P{N} and the start of each) instead of showing it
    #[arg(long, conflicts_with_all = ["version", "history", "as_of"])]
    pub parts: bool,

    /// Print each note's whole text (its parts joined by a blank line, or its summary when it has none) instead of showing it; a text of more than 1000 parts (about 1.5 MB) keeps only those, and put said so
    #[arg(long, conflicts_with_all = ["version", "history", "parts", "as_of"])]
    #[serde(default)]
    pub text: bool,

    /// List the notes most similar in meaning to each note instead of showing it
    #[arg(long, conflicts_with_all = ["version", "history", "parts", "text", "as_of"])]
    pub similar: bool,

    /// With --similar, show at most N notes
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        default_value_t = 10,
        requires = "similar"
    )]
    pub limit: usize,

    /// Only show notes that have this tag (KEY or KEY=VALUE, repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY[=VALUE]", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let filters = parse_filters(&args.tags)?;
    let mut failures = Failures::default();
    let mut shown = 0;
    let mut json_items = Vec::new();
    for arg in &args.ids {
        match show_one(ctx, arg, &args, &filters) {
            Ok(None) => {}
            Ok(Some(value)) => {
                shown += 1;
                json_items.push(value);
            }
            Err(e) => failures.record(&mut ctx.out, e)?,
        }
    }
    if ctx.format == Format::Json {
        ctx.out.json(&Value::Array(json_items))?;
    }
    if shown == 0 && failures.status() == Status::Success && !filters.is_empty() {
        return Ok(Status::Failed(1));
    }
    Ok(failures.status())
}

/// Shows one argument; returns its JSON form, or None when filtered out.
fn show_one(
    ctx: &mut Ctx,
    arg: &str,
    args: &Args,
    filters: &[TagFilter],
) -> Result<Option<Value>, CliError> {
    if args.as_of.is_some() && ctx.keeper()?.resolve(arg)?.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{arg}': --as-of picks the version; give the plain id"
        )));
    }
    if !filters.is_empty() && !passes(ctx.keeper()?, arg, args, filters)? {
        return Ok(None);
    }
    if args.history {
        let history = ctx.run(History { id: arg.into() })?;
        print_history(ctx, &history)?;
        return Ok(Some(to_value(&history)));
    }
    if args.parts {
        let parts = ctx.run(Parts { id: arg.into() })?;
        print_parts(ctx, &parts)?;
        return Ok(Some(to_value(&parts)));
    }
    if args.text {
        let whole = ctx.run(Text { id: arg.into() })?;
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&whole.id)?,
            Format::Text => ctx.out.line(&crate::render::text::inert(&whole.text))?,
        }
        return Ok(Some(to_value(&whole)));
    }
    if args.similar {
        let alike = ctx.run(Similar {
            id: arg.into(),
            limit: args.limit,
        })?;
        super::find::print_hits(ctx, &alike.result)?;
        return Ok(Some(to_value(&alike)));
    }
    let viewed = ctx.run(Get {
        id: arg.into(),
        version: args.version,
        as_of: args.as_of.clone(),
    })?;
    warn_if_in_trash(ctx, &viewed.view.note.id, &viewed.view.note.tags);
    match ctx.format {
        Format::Json => {}
        Format::Ids => ctx.out.line(&address(&viewed.view))?,
        Format::Text => ctx.out.note_view(&viewed.view)?,
    }
    Ok(Some(to_value(&viewed)))
}

/// Whether the note `arg` names (the state asked for) carries every tag
/// of `filters`; read without recording an access.
fn passes(
    keeper: &Keeper,
    arg: &str,
    args: &Args,
    filters: &[TagFilter],
) -> Result<bool, CliError> {
    let mut target = keeper.resolve(arg)?;
    if target.selector.is_none() {
        target.selector = args.version.map(Selector::Version);
    }
    let view = match &args.as_of {
        Some(when) if target.selector.is_none() => {
            let at = keep_core::model::dates::parse_instant(when, keeper.now())?;
            keeper.view_as_of(&target.id, at)?
        }
        _ => keeper.view(&target)?,
    };
    Ok(filters.iter().all(|f| f.matches(&view.note.tags)))
}

/// How a view is addressed: `ID`, `ID@V{N}` or `ID@P{N}`.
fn address(view: &NoteView) -> String {
    let id = &view.note.id;
    match (&view.part, view.version) {
        (Some(part), _) => format!("{id}@P{{{}}}", part.number),
        (None, 0) => id.clone(),
        (None, n) => format!("{id}@V{{{n}}}"),
    }
}

/// Says on stderr that a note shown is in the trash, since when and why.
fn warn_if_in_trash(ctx: &mut Ctx, id: &str, tags: &keep_core::model::Tags) {
    use keep_core::model::keys;
    let Some(when) = tags.first(keys::DELETED) else {
        return;
    };
    let why = tags
        .first(keys::DELETED_REASON)
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    ctx.out.warn(&format!(
        "'{id}' is in the trash since {when}{why}; keep restore {} brings it back",
        super::shell_quote(id)
    ));
}

fn print_parts(ctx: &mut Ctx, parts: &PartsJson) -> Result<(), CliError> {
    let id = &parts.id;
    for part in &parts.parts {
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&format!("{id}@P{{{}}}", part.part))?,
            Format::Text => ctx
                .out
                .line(&format!("{id}@P{{{}}}  {}", part.part, part.summary))?,
        }
    }
    Ok(())
}

fn print_history(ctx: &mut Ctx, history: &HistoryJson) -> Result<(), CliError> {
    let id = &history.id;
    for v in &history.versions {
        match ctx.format {
            Format::Json => {}
            Format::Ids => ctx.out.line(&format!("{id}@V{{{}}}", v.version))?,
            Format::Text => ctx.out.line(&format!(
                "{id}@V{{{}}}  {}  {}  [{}]",
                v.version,
                v.updated.short(),
                first_line(&v.summary),
                change_label(&v.changed)
            ))?,
        }
    }
    Ok(())
}

/// The JSON value of one argument's result; `get` prints them as one array.
fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("JSON forms serialise")
}
