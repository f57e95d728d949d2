//! `keep import`: read notes from a `keep export` file.

use std::io::BufReader;
use std::path::PathBuf;

use super::output::Format;
use super::{CliResult, Ctx, Status};
use keep_core::Error;

/// Import notes from a file written by 'keep export'.
///
/// The whole file is checked first; a malformed line stops the import with
/// its line number and nothing is written. Notes land with their tags,
/// timestamps, history and parts, in one transaction. Ids already in the
/// store are left untouched and counted as skipped (-v lists them).
///
/// Vectors in the file are loaded when they come from the store's model
/// (or the store has none yet), so nothing needs embedding; vectors of
/// another model, or of the wrong length, are refused with one line each
/// on stderr and those notes wait for embedding ('keep reindex').
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Export file, or '-' for standard input
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Also list the ids that were skipped, one per line on stderr
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let name = args.file.display().to_string();
    let bars = ctx.out.bars();
    let mut bar = indicatif::ProgressBar::hidden();
    let mut progress = |done: usize, total: usize| {
        if done == 0 {
            bar = bars.bar(total);
            bar.set_message("importing");
        }
        bar.set_position(done as u64);
    };
    let outcome = if args.file.as_os_str() == "-" {
        ctx.keeper()?;
        let mut input = BufReader::new(ctx.stdin.reader());
        ctx.keeper
            .as_mut()
            .expect("opened above")
            .import(&mut input, "<stdin>", &mut progress)
    } else {
        let file = std::fs::File::open(&args.file).map_err(|e| Error::io(&args.file, e))?;
        ctx.keeper()?
            .import(&mut BufReader::new(file), &name, &mut progress)
    };
    bar.finish_and_clear();
    let outcome = outcome?;
    for notice in &outcome.notices {
        ctx.out.notice(notice);
    }
    match ctx.format {
        Format::Json => ctx.out.json(&outcome)?,
        Format::Ids => {}
        Format::Text => {
            let log = match outcome.log_entries {
                0 => String::new(),
                n => format!(" with {n} log entr{}", if n == 1 { "y" } else { "ies" }),
            };
            ctx.out.line(&format!(
                "imported {} note(s){log}; {} already present and skipped; {} vector(s) loaded, {} waiting for embedding",
                outcome.imported,
                outcome.skipped.len(),
                outcome.vectors,
                outcome.waiting
            ))?;
            if args.verbose {
                for id in &outcome.skipped {
                    ctx.out
                        .warn(&format!("skipped '{id}': a note with this id exists"));
                }
            }
        }
    }
    Ok(Status::Success)
}
