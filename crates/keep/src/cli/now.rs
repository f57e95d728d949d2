//! `keep now`: show or replace the working-intentions note.

use clap_complete::ArgValueCompleter;

use super::complete;
use serde_json::Value;

use keep_core::Keeper;
use keep_core::keeper::PutOptions;
use keep_core::model::NoteRef;

use super::output::Format;
use super::put::parse_tags;
use super::{CliResult, Ctx, Status};
use crate::render::json::ViewJson;

/// Show or replace the working-intentions note, 'now'.
///
/// With no TEXT, prints the note. With TEXT ('-' reads standard input), the
/// text becomes the new 'now' and the previous one is kept in its history
/// (see 'keep get now --history' and 'keep move'). --name NAME uses the
/// note 'now:NAME' instead, for one 'now' per project or agent.
#[derive(Debug, Default, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// New text for 'now', or '-' to read standard input
    #[arg(value_name = "TEXT")]
    pub text: Option<String>,

    /// Use the note 'now:NAME'
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub name: Option<String>,

    /// Old name of --name, kept for one release
    #[arg(
        long = "scope",
        value_name = "NAME",
        hide = true,
        conflicts_with = "name"
    )]
    #[serde(default)]
    pub scope: Option<String>,

    /// Add a tag when setting (repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY=VALUE", requires = "text", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let name =
        super::renamed(ctx, "now --scope", "--name", &args.scope).or_else(|| args.name.clone());
    let id = Keeper::now_id(name.as_deref())?;
    if let Some(text) = &args.text {
        let text = if text == "-" {
            ctx.stdin.read_text()?
        } else {
            text.clone()
        };
        let opts = PutOptions {
            id: Some(id.clone()),
            tags: parse_tags(&args.tags)?,
            summary: None,
            ..PutOptions::default()
        };
        ctx.keeper()?.put_text(&text, "inline", opts)?;
    }
    let keeper = ctx.keeper()?;
    if keeper.peek(&id)?.is_none() {
        match ctx.format {
            Format::Json => ctx.out.json(&Value::Null)?,
            Format::Ids => {}
            Format::Text => {
                let scope = name
                    .as_deref()
                    .map_or(String::new(), |s| format!(" --name {s}"));
                ctx.out.warn(&format!(
                    "'{id}' is not set yet; set it with: keep now{scope} TEXT"
                ));
            }
        }
        return Ok(Status::Success);
    }
    let view = keeper.get(&NoteRef::plain(id.clone()))?;
    match ctx.format {
        Format::Json => ctx.out.json(&ViewJson::full(&view))?,
        Format::Ids => ctx.out.line(&id)?,
        Format::Text => ctx.out.note_view(&view)?,
    }
    Ok(Status::Success)
}
