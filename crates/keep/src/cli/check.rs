//! `keep check`: is the store sound?

use serde::Serialize;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Verify the store: the database file, indexes, vectors, numbering
///
/// Runs SQLite's full integrity check, then checks that every note,
/// version and part has its keyword index entries and no entry is left
/// without its row, that versions and parts are numbered 1, 2, 3, ...
/// without gaps, that rows marked embedded have their vector and every
/// vector its int8 code, that no row points to a missing note, and that
/// the schema is this keep's; on PostgreSQL, that the word totals keyword
/// ranking reads agree with the rows. Prints one line per problem (or "ok") and
/// exits 1 when there is one; 'keep repair' makes again what is derived.
/// Only reads: it works on a read-only store and while others write.
#[derive(Debug, clap::Args)]
pub struct Args {}

#[derive(Serialize)]
struct Report<'a> {
    store: String,
    ok: bool,
    problems: &'a [String],
}

pub fn run(ctx: &mut Ctx, _args: Args) -> CliResult {
    let keeper = ctx.keeper()?;
    let problems = keeper.check()?;
    let store = keeper.store_path().display().to_string();
    match ctx.format {
        Format::Json => ctx.out.json(&Report {
            store,
            ok: problems.is_empty(),
            problems: &problems,
        })?,
        Format::Ids => {}
        Format::Text if problems.is_empty() => ctx.out.line(&format!("ok: {store}"))?,
        Format::Text => {
            for p in &problems {
                ctx.out.line(p)?;
            }
            ctx.out.warn(&format!(
                "{store}: {} problem(s); 'keep repair' makes the indexes, vectors and codes again (run 'keep backup FILE' first)",
                problems.len()
            ));
        }
    }
    Ok(if problems.is_empty() {
        Status::Success
    } else {
        Status::Failed(1)
    })
}
