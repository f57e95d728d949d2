//! `keep why`: where a note stands for a search, and why.

use clap_complete::ArgValueCompleter;

use keep_commands::find::Find;
use keep_commands::why::Why;
use keep_core::keeper::Why as Standing;

use super::complete;
use super::filter::FilterArgs;
use super::find::Mode;
use super::output::Format;
use super::{CliResult, Ctx, Status};
use crate::render::text::explanation_line;

/// Say why a note is, or is not, among the hits of a search.
///
/// Runs the search QUERY with the filters given, as `keep find` would, and
/// says where note ID stands: shown at its rank (with what made its
/// score, as `find --explain` says it), ranked below the N hits shown,
/// left out by a filter (each one named: a tag, the update or event time,
/// --as-of, being superseded, its expiry, the trash), never a candidate
/// (no word of the query in it, and farther in meaning than the farthest
/// candidate, with both similarities), or not indexed yet (no vector, and
/// no word of the query). With --json, "stage" says which. Exits 1 when
/// there is no note ID.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// The note
    #[arg(value_name = "ID", add = ArgValueCompleter::new(complete::note_id))]
    pub id: String,

    /// The search
    #[arg(value_name = "QUERY", num_args = 1.., required = true)]
    pub query: Vec<String>,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// Only ids matching this prefix or glob
    #[arg(short = 'S', long = "id-pattern", value_name = "PREFIX|GLOB")]
    pub id_pattern: Option<String>,

    /// How many hits the search shows
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10)]
    pub limit: usize,

    /// Which candidates to rank: both fused, keywords only or embeddings only
    #[arg(long, value_enum, default_value_t = Mode::Hybrid)]
    pub mode: Mode,

    /// Also find notes superseded by newer ones
    #[arg(long)]
    pub all_versions: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let standing = ctx.run(Why {
        id: args.id.clone(),
        find: Find {
            filters: args.filter.filters(),
            id_pattern: args.id_pattern,
            limit: args.limit,
            mode: args.mode.into(),
            all_versions: args.all_versions,
            ..Find::text(args.query.join(" "))
        },
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&standing)?,
        Format::Ids => ctx.out.line(&args.id)?,
        Format::Text => {
            for line in said(&args.id, &standing) {
                ctx.out.line(&line)?;
            }
        }
    }
    Ok(Status::Success)
}

/// What `standing` says of note `id`, in lines.
fn said(id: &str, standing: &Standing) -> Vec<String> {
    match standing {
        Standing::Shown {
            rank,
            score,
            explain,
        } => {
            let mut lines = vec![format!("{id}: hit {rank}, score {score:.4}")];
            lines.extend(explain.as_ref().map(explanation_line));
            lines
        }
        Standing::BelowCut {
            rank,
            limit,
            score,
            last_shown,
        } => vec![format!(
            "{id}: ranked {rank}, below the {limit} shown (score {score:.4}; hit {limit} has {last_shown:.4}); -n {rank} shows it"
        )],
        Standing::Filtered { by } => {
            vec![format!(
                "{id}: a hit without the filters; left out by {}",
                by.join("; ")
            )]
        }
        Standing::NotCandidate {
            shares_words,
            similarity,
            farthest_candidate,
            floor,
        } => {
            let words = if *shares_words {
                "words of the query are in it, but too few to rank among the keyword candidates"
            } else {
                "no word of the query is in it"
            };
            let meaning = match (similarity, farthest_candidate) {
                (Some(s), _) if s < floor => format!(
                    "its similarity in meaning, {s:.3}, is below the {floor:.2} that counts as related"
                ),
                (Some(s), Some(f)) => format!(
                    "its similarity in meaning, {s:.3}, is below the farthest candidate's {f:.3}"
                ),
                (Some(s), None) => format!("its similarity in meaning is {s:.3}"),
                (None, _) => "it was not compared by meaning".into(),
            };
            vec![format!("{id}: not a candidate: {words}, and {meaning}")]
        }
        Standing::NotIndexed => vec![format!(
            "{id}: not indexed yet: it has no vector and no word of the query ('keep reindex' embeds it)"
        )],
    }
}
