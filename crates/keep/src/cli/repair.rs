//! `keep repair`: make again what is derived from the notes.

use keep_core::keeper::{EMBED_LEASE, WATCH_LEASE, wall_ms};

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};

/// Make the indexes, vectors and codes again, without changing a note
///
/// A SQLite store is copied, table by table, into a fresh file: its
/// keyword indexes and int8 codes are made again, vectors are kept where
/// they can be read (the others wait for the model), and a damaged page
/// of an index does not come along. The old file is kept beside it as
/// keep.db.before-repair-TIME. On PostgreSQL every index of keep's tables is
/// rebuilt. Run it when no other keep uses the store (no server, no
/// watcher); 'keep check' says whether it is needed.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(ctx: &mut Ctx, _args: Args) -> CliResult {
    let keeper = ctx.keeper()?;
    if let Ok(Some(server)) = super::serve::server_state(keeper.store_dir()) {
        return Err(CliError::Busy(format!(
            "a server uses this store ({server}): stop it, then run 'keep repair'"
        )));
    }
    for (lease, what) in [
        (WATCH_LEASE, "watches folders"),
        (EMBED_LEASE, "embeds notes"),
    ] {
        if let Some(l) = keeper.live_lease(lease, wall_ms())? {
            return Err(CliError::Busy(format!(
                "process {} {what} in this store: stop it (or let it finish), then run 'keep repair'",
                l.pid
            )));
        }
    }
    let bars = ctx.out.bars();
    let mut bar = bars.counting("indexing");
    let done = ctx
        .keeper()?
        .repair(&mut |done, total| bar.step(done, total))?;
    bar.finish();
    let problems = ctx.keeper()?.check()?;
    match ctx.format {
        Format::Json => ctx.out.json(&serde_json::json!({
            "done": done,
            "problems": problems,
        }))?,
        Format::Ids => {}
        Format::Text => {
            for line in &done {
                ctx.out.line(line)?;
            }
            for p in &problems {
                ctx.out.warn(&format!("still wrong: {p}"));
            }
        }
    }
    Ok(if problems.is_empty() {
        Status::Success
    } else {
        Status::Failed(1)
    })
}
