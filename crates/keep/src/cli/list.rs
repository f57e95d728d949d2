//! `keep list`: list notes by recency, id prefix or glob, tags and time.

use super::filter::FilterArgs;
use super::output::Format;
use super::{CliResult, Ctx, Status};
use keep_commands::list::List;
use keep_core::model::ListOrder;

use crate::render::json;

/// List notes, most recently updated first.
///
/// PATTERN is an id prefix (for example 'file:///home/me/notes/') or, if it
/// contains '*', '?' or '[', a glob over whole ids. System notes (ids
/// starting with '.') are hidden unless -a is given or PATTERN starts with
/// '.'. Expired notes are hidden too (-a shows them); --expired lists only
/// them. Notes in the trash are left out; --deleted lists only them, with
/// when and why they were deleted in their tags.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Id prefix or glob
    #[arg(value_name = "PREFIX|GLOB")]
    pub pattern: Option<String>,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// Sort order
    #[arg(long, value_enum, default_value_t = Sort::Updated)]
    pub sort: Sort,

    /// Show at most N notes
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,

    /// Only notes whose expiry time (put --expires) has passed
    #[arg(long)]
    pub expired: bool,

    /// Only notes in the trash (keep del; keep restore brings one back)
    #[arg(long)]
    #[serde(default)]
    pub deleted: bool,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Sort {
    /// Most recently updated first
    Updated,
    /// Most recently read first
    Accessed,
    /// Most recently created first
    Created,
    /// By id
    Id,
}

impl From<Sort> for ListOrder {
    fn from(s: Sort) -> Self {
        match s {
            Sort::Updated => ListOrder::Updated,
            Sort::Accessed => ListOrder::Accessed,
            Sort::Created => ListOrder::Created,
            Sort::Id => ListOrder::Id,
        }
    }
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let notes = ctx
        .run(List {
            pattern: args.pattern,
            filters: args.filter.filters(),
            sort: args.sort.into(),
            limit: args.limit,
            expired: args.expired,
            deleted: args.deleted,
        })?
        .notes;
    match ctx.format {
        Format::Json => ctx.out.json(&json::notes(&notes))?,
        Format::Ids => {
            for n in &notes {
                ctx.out.line(&n.id)?;
            }
        }
        Format::Text => {
            for n in &notes {
                ctx.out.note_line(n, None, "")?;
            }
        }
    }
    Ok(Status::Success)
}
