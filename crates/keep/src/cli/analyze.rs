//! `keep analyze`: cut a note's text into parts again.

use clap_complete::ArgValueCompleter;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status, complete};

/// Cut a note into meaningful parts with a language model.
///
/// The model configured as [providers.analyze] (else [providers.summarize])
/// in the config file reads the note's text as numbered blocks and answers
/// with parts: the blocks each covers, a title, a one-sentence summary and
/// topic tags. A part's text is always the document's own; the parts are
/// put in order to cover the whole text, and a title, summary or tag that
/// shares no word with its part's text is replaced or dropped. The parts
/// replace the note's old ones (addressed ID@P{1}, ID@P{2}, ...) and are
/// embedded; the note gets _parts_model naming the model.
///
/// With --heuristic, the parts follow headings and paragraphs, as 'keep
/// put' cuts them, and no model is asked.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The note to analyse
    #[arg(value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub id: String,

    /// Cut by headings and paragraphs instead of asking a model
    #[arg(long)]
    pub heuristic: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let keeper = ctx.keeper()?;
    let target = keeper.resolve(&args.id)?;
    if target.selector.is_some() {
        return Err(CliError::Usage(format!(
            "'{}': analyze takes a note, not one of its versions or parts",
            args.id
        )));
    }
    if !args.heuristic && keeper.settings().providers.analyze.is_none() {
        return Err(CliError::Usage(
            "no model is configured to analyse with: add [providers.analyze] (or [providers.summarize]) to the config file, or give --heuristic".into(),
        ));
    }
    let analysis = keeper.analyze(&target.id, args.heuristic)?;
    match ctx.format {
        Format::Json => ctx.out.json(&analysis)?,
        Format::Ids => {
            for part in &analysis.parts {
                ctx.out
                    .line(&format!("{}@P{{{}}}", analysis.id, part.number))?;
            }
        }
        Format::Text => {
            for part in &analysis.parts {
                let mut line = format!("@P{{{}}}  {}", part.number, part.title);
                if !part.summary.is_empty() {
                    line.push_str(&format!(" — {}", part.summary));
                }
                if !part.tags.is_empty() {
                    line.push_str(&format!("  [{}]", part.tags.join(", ")));
                }
                ctx.out.line(&line)?;
            }
            ctx.out.note(&format!(
                "{}: {} part(s){}",
                analysis.id,
                analysis.parts.len(),
                analysis
                    .model
                    .as_ref()
                    .map_or_else(|| " by headings".to_string(), |m| format!(" chosen by {m}"))
            ));
        }
    }
    Ok(Status::Success)
}
