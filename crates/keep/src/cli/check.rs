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
///
/// With --residue TEXT it answers instead where TEXT is left in the store:
/// each row that holds it (a summary, a tag, a version, a part, a detail of
/// the operations log) and each file of the store's folder whose bytes hold
/// it as given or in lower case (as the word indexes keep words), with how
/// many times; it exits 1 when TEXT is found anywhere. '--residue -' reads
/// TEXT from the first line of standard input, so that a secret looked for
/// is not on the command line.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where TEXT is left in the store's rows and files ('-': read it from standard input)
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub residue: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    store: String,
    ok: bool,
    problems: &'a [String],
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if let Some(text) = &args.residue {
        return residue(ctx, text);
    }
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

/// `--residue`: where a string is left in the store.
fn residue(ctx: &mut Ctx, asked: &str) -> CliResult {
    let text = if asked == "-" {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(ctx.stdin.reader()), &mut line)
            .map_err(|e| keep_core::Error::invalid(format!("standard input: {e}")))?;
        line.trim_end_matches(['\n', '\r']).to_string()
    } else {
        asked.to_string()
    };
    let keeper = ctx.keeper()?;
    let found = keeper.residue(&text)?;
    let store = keeper.store_path().display().to_string();
    match ctx.format {
        Format::Json => ctx.out.json(&found)?,
        Format::Ids => {}
        Format::Text if found.is_empty() => ctx
            .out
            .line(&format!("nothing: no row and no file of {store} holds it"))?,
        Format::Text => {
            for row in &found.rows {
                ctx.out.line(&format!("row: {row}"))?;
            }
            for file in &found.files {
                ctx.out
                    .line(&format!("file: {} ({} times)", file.path, file.times))?;
            }
        }
    }
    Ok(if found.is_empty() {
        Status::Success
    } else {
        Status::Failed(1)
    })
}
