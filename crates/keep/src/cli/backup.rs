//! `keep backup`: a consistent copy of the store.

use std::path::PathBuf;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Write a consistent copy of the store to a new file
///
/// The copy is taken in one read (SQLite's VACUUM INTO), so other keep
/// processes may go on writing meanwhile; it is then opened and checked
/// as 'keep check' does. The copy is a store of its own: give its folder
/// to --store after renaming it keep.db. A store on PostgreSQL is backed
/// up with the server's tools (pg_dump) or 'keep export'.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The file to write (it must not exist)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let keeper = ctx.keeper()?;
    let started = std::time::Instant::now();
    keeper.backup(&args.file)?;
    let problems = keep_core::Keeper::check_file(&args.file)?;
    let bytes = std::fs::metadata(&args.file).map_or(0, |m| m.len());
    match ctx.format {
        Format::Json => ctx.out.json(&serde_json::json!({
            "file": args.file,
            "bytes": bytes,
            "seconds": started.elapsed().as_secs_f64(),
            "problems": problems,
        }))?,
        Format::Ids => {}
        Format::Text => {
            ctx.out.line(&format!(
                "{}: {:.1} MB in {:.1} s, {}",
                args.file.display(),
                bytes as f64 / 1e6,
                started.elapsed().as_secs_f64(),
                if problems.is_empty() {
                    "checked: ok".to_string()
                } else {
                    format!("{} problem(s) in the copy", problems.len())
                }
            ))?;
            for p in &problems {
                ctx.out.warn(p);
            }
        }
    }
    Ok(if problems.is_empty() {
        Status::Success
    } else {
        Status::Failed(1)
    })
}
