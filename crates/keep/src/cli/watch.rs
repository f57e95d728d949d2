//! `keep watch`: keep registered folders indexed, list or remove them.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::json;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};
use crate::watch::{self, WatchEvent};

/// Keep the registered folders indexed until interrupted.
///
/// Register a folder with 'keep put DIR --watch' (with -r and -x as for
/// put). Watching starts with a catch-up scan of every folder, so changes
/// made while nothing watched are picked up; then new files become notes,
/// changed files new versions, and a file moved or renamed within a folder
/// keeps its note and history under the new id. A deleted file's note is
/// kept, tagged _deleted with the time, and hidden from find and list
/// unless -a is given ('keep del' removes it for good). Editors' temporary
/// files are ignored, so a save is one version.
///
/// One process watches at a time: it holds a lease in the store that
/// expires 15 s after the holder dies; others wait. 'keep mcp' watches in
/// the background while it runs. Each change is printed as a line:
/// added, updated, moved or deleted, with the id.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// List the watched folders and which process holds the watch
    #[arg(long, conflicts_with = "remove")]
    pub list: bool,

    /// Stop watching DIR (its notes stay)
    #[arg(long, value_name = "DIR")]
    pub remove: Option<PathBuf>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if args.list {
        return list(ctx);
    }
    if let Some(dir) = &args.remove {
        if !ctx.keeper()?.remove_watch(dir)? {
            return Err(CliError::Core(keep_core::Error::NotFound(format!(
                "{} (not a watched folder)",
                dir.display()
            ))));
        }
        return Ok(Status::Success);
    }
    let keeper = ctx.keeper()?;
    if keeper.watches()?.is_empty() {
        return Err(CliError::Usage(
            "no folder is registered: add one with 'keep put DIR --watch'".into(),
        ));
    }
    let settings = keeper.settings().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed))
        .map_err(|e| CliError::Usage(format!("cannot handle interrupts: {e}")))?;
    let format = ctx.format;
    watch::run(&settings, &stop, &mut |event| print_event(format, &event))?;
    Ok(Status::Success)
}

fn print_event(format: Format, event: &WatchEvent) {
    let mut out = std::io::stdout().lock();
    match event {
        WatchEvent::Message(m) => eprintln!("keep: {m}"),
        WatchEvent::Synced { dir, report } => {
            for notice in &report.notices {
                eprintln!(
                    "keep: {}",
                    crate::render::advice::notice_for_terminal(notice)
                );
            }
            for f in &report.failed {
                eprintln!("keep: {}: {}", f.path, f.reason);
            }
            // The output was closed (a pipe to head): watching goes on, reporting to nobody.
            let _ = match format {
                Format::Json => writeln!(out, "{}", json!({ "dir": dir, "report": report })),
                Format::Ids => report
                    .added
                    .iter()
                    .chain(&report.updated)
                    .chain(report.moved.iter().map(|(_, to)| to))
                    .chain(&report.deleted)
                    .try_for_each(|id| writeln!(out, "{id}")),
                Format::Text => {
                    let lines = report
                        .added
                        .iter()
                        .map(|id| format!("added    {id}"))
                        .chain(report.updated.iter().map(|id| format!("updated  {id}")))
                        .chain(
                            report
                                .moved
                                .iter()
                                .map(|(a, b)| format!("moved    {a} -> {b}")),
                        )
                        .chain(report.deleted.iter().map(|id| format!("deleted  {id}")));
                    lines.into_iter().try_for_each(|l| writeln!(out, "{l}"))
                }
            };
            // The output was closed (a pipe to head): watching goes on, reporting to nobody.
            let _ = out.flush();
        }
    }
}

fn list(ctx: &mut Ctx) -> CliResult {
    let keeper = ctx.keeper()?;
    let watches = keeper.watches()?;
    let lease = keeper.lease(keep_core::keeper::WATCH_LEASE)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let holder = lease.filter(|l| l.expires > now);
    match ctx.format {
        Format::Json => ctx.out.json(&json!({
            "folders": watches.iter().map(|w| json!({
                "dir": w.dir, "recursive": w.recursive, "excludes": w.excludes,
            })).collect::<Vec<_>>(),
            "watcher": holder.as_ref().map(|l| json!({
                "pid": l.pid,
                "since": keep_core::model::time::Timestamp::from_millis(l.since),
                "expires": keep_core::model::time::Timestamp::from_millis(l.expires),
            })),
        }))?,
        Format::Ids => {
            for w in &watches {
                ctx.out.line(&w.dir)?;
            }
        }
        Format::Text => {
            for w in &watches {
                let mut line = w.dir.clone();
                if w.recursive {
                    line.push_str("  -r");
                }
                for x in &w.excludes {
                    line.push_str(&format!("  -x {x}"));
                }
                ctx.out.line(&line)?;
            }
            ctx.out.line(&match &holder {
                Some(l) => format!(
                    "watched by process {} since {}",
                    l.pid,
                    keep_core::model::time::Timestamp::from_millis(l.since)
                ),
                None => "no process is watching".to_string(),
            })?;
        }
    }
    Ok(Status::Success)
}
