//! `keep find`: hybrid recall.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::find::Find;
use keep_core::recall::{FindResult, RecallMode};

use super::filter::FilterArgs;
use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};
use crate::render::{json, text};

/// Find notes by meaning and by keyword, best first.
///
/// Keyword matches (BM25 over summaries, tags, full text, parts and older
/// versions) and semantic matches (nearest embeddings of the local model)
/// are fused by score, then weighted by recency: a note's score halves every
/// half-life since it was last updated or read. Tag and time filters apply
/// before ranking. A hit inside a part or an older version is shown on its
/// note, with where it matched; but each turn of an imported conversation
/// is a result of its own (ID@P{N}, with who said it; --parts does the
/// same for a document's parts), and -C N shows the N turns either side.
/// A reply (an in-reply-to edge, or a turn answering the turn before it)
/// that matches brings up the message it answers just above it. --deep adds notes
/// reached from the top hits through edges and distinctive shared tags,
/// marked with how they were reached. Notes another note supersedes are left out unless
/// --all-versions asks for them, and expired notes are left out. A query
/// put as a question to the memory ("what do I have about X", "find my
/// notes on X") searches for X. Each hit has a relevance from 0 to 1 (the
/// share of the query's wording it holds and how close in meaning it is);
/// when every hit is below the relevance floor, find returns none and says
/// "nothing relevant" on stderr (--floor 0 shows the nearest anyway).
/// Without a model, find uses keywords only and says so on stderr.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// What to look for
    #[arg(value_name = "QUERY", num_args = 0.., required_unless_present = "like")]
    pub query: Vec<String>,

    /// Find notes similar to this note instead of matching a query
    #[arg(long = "id", value_name = "ID", conflicts_with = "query", add = ArgValueCompleter::new(complete::note_id))]
    pub like: Option<String>,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// Only ids matching this prefix or glob
    #[arg(short = 'S', long = "id-pattern", value_name = "PREFIX|GLOB")]
    pub id_pattern: Option<String>,

    /// Old name of --id-pattern, kept for one release
    #[arg(
        long = "scope",
        value_name = "PREFIX|GLOB",
        hide = true,
        conflicts_with = "id_pattern"
    )]
    #[serde(default)]
    pub scope: Option<String>,

    /// Show at most N notes (deep recall adds up to N more, at least 10)
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10)]
    pub limit: usize,

    /// Also follow edges and shared tags from the top hits (two links deep unless --hops says)
    #[arg(long)]
    pub deep: bool,

    /// How many links deep recall follows, 1 to 5 [default: 2]; implies --deep
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=5))]
    #[serde(default)]
    pub hops: Option<u8>,

    /// Which candidates to rank: both fused, keywords only (no model is loaded) or embeddings only
    #[arg(long, value_enum, default_value_t = Mode::Hybrid)]
    pub mode: Mode,

    /// Also find notes superseded by newer ones (ranked below them)
    #[arg(long)]
    pub all_versions: bool,

    /// Return whole results, best first, until their JSON forms reach N tokens of the embedding model's tokenizer; say on stderr how many were left out
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,

    /// Recency half-life in days; 0 turns decay off [default: 30, or half_life_days in the config file]
    #[arg(long, value_name = "DAYS")]
    pub half_life: Option<f64>,

    /// Show N parts before and after each part found (the turns around a turn of a conversation)
    #[arg(short = 'C', long, value_name = "N", default_value_t = 0)]
    #[serde(default)]
    pub around: usize,

    /// Find each part of a document on its own, as each turn of a conversation always is
    #[arg(long)]
    #[serde(default)]
    pub parts: bool,

    /// Say what made each hit's score: its keyword and meaning shares, and each factor (recency, feedback, importance, superseded, time), the reply credited to it or the link that reached it
    #[arg(long)]
    #[serde(default)]
    pub explain: bool,

    /// The relevance floor, 0 to 1: when every hit is below it, none is shown; 0 shows the nearest, however far [default: 0.23]
    #[arg(long, value_name = "R")]
    #[serde(default)]
    pub floor: Option<f64>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Mode {
    Hybrid,
    Keyword,
    Semantic,
}

impl From<Mode> for RecallMode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Hybrid => RecallMode::Hybrid,
            Mode::Keyword => RecallMode::Keyword,
            Mode::Semantic => RecallMode::Semantic,
        }
    }
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let id_pattern = super::renamed(ctx, "find --scope", "--id-pattern", &args.scope)
        .or_else(|| args.id_pattern.clone());
    let found = ctx.run(Find {
        q: args.query.join(" "),
        like: args.like,
        filters: args.filter.filters(),
        id_pattern,
        limit: args.limit,
        deep: args.deep,
        hops: args.hops,
        mode: args.mode.into(),
        all_versions: args.all_versions,
        max_tokens: args.max_tokens,
        half_life: args.half_life,
        around: args.around,
        parts: args.parts,
        explain: args.explain,
        floor: args.floor,
    })?;
    print_hits(ctx, &found.result)?;
    if ctx.format == Format::Json {
        ctx.out.json(&json::hits(&found.result))?;
    }
    Ok(Status::Success)
}

/// Prints notices on stderr, and hits as text or ids (JSON is the caller's).
pub fn print_hits(ctx: &mut Ctx, result: &FindResult) -> Result<(), CliError> {
    for notice in &result.notices {
        ctx.out.notice(notice);
    }
    match ctx.format {
        Format::Json => {}
        Format::Ids => {
            for h in &result.hits {
                ctx.out.line(&h.address())?;
            }
        }
        Format::Text => {
            for h in &result.hits {
                let Some(part) = &h.part else {
                    ctx.out
                        .note_line(&h.note, Some(h.score), &text::hit_remark(h))?;
                    if let Some(why) = &h.explain {
                        ctx.out.line(&text::explanation_line(why))?;
                    }
                    continue;
                };
                // A part found on its own is shown by its address and text.
                let shown = keep_core::model::Note {
                    id: h.address(),
                    summary: h.passage.clone(),
                    ..h.note.clone()
                };
                ctx.out
                    .note_line(&shown, Some(h.score), &text::hit_remark(h))?;
                if let Some(why) = &h.explain {
                    ctx.out.line(&text::explanation_line(why))?;
                }
                for n in &part.around {
                    ctx.out.line(&text::neighbour_line(n))?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[derive(clap::Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: super::Args,
    }

    #[test]
    fn the_help_gives_the_floor_find_uses() {
        let help = Wrapper::command()
            .get_arguments()
            .find(|a| a.get_id() == "floor")
            .and_then(|a| a.get_help().map(ToString::to_string))
            .unwrap_or_default();
        let floor = keep_core::recall::weights::RELEVANCE_FLOOR;
        assert!(help.ends_with(&format!("[default: {floor}]")), "{help}");
    }
}
