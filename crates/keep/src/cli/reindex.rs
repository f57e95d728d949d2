//! `keep reindex`: give every note, version and part its vector.

use keep_core::{GraphWork, REFRESH_AFTER, TextMerge, VecKind};

use super::output::{Bars, Format};
use super::{CliResult, Ctx, Status};

/// Embed everything that has no vector yet, with the configured model.
///
/// Images and scanned PDFs stored while the OCR models were missing are
/// read again from their files first, so their text is found too. When
/// providers are configured, the transcripts and summaries they owe are
/// made first, and reindex waits until none is left.
///
/// Notes stored while no model was available, imported notes and versions
/// get their vectors; a vector is copied from any row with the same text
/// instead of being computed again. If the store's vectors were made by
/// another model, the configured one makes its own beside them while the
/// old ones still answer find, and they replace the old ones when all are
/// made; a stopped reindex keeps what it made. --all drops every vector
/// and embeds everything again.
///
/// Last, in a SQLite store with 50,000 or more vectors of a kind
/// (`vector_index_from`), the index of those vectors (the signs of each,
/// one bit a dimension; a graph from 2,000,000) is written, or
/// brought up to date with the rows changed since it was made once there
/// are 2,000 of them (fewer are searched beside it, each by its code:
/// folding them in rewrites the whole index); and a word index written
/// in more than 12 segments is merged into one. While
/// another process builds the index, reindex waits for it (a bar shows
/// how far the other is) and then does only what is left.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Drop every vector and embed everything again
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let bars = ctx.out.bars();
    let waiting = ctx.keeper()?.provider_work_waiting()?;
    let bar = bars.bar(waiting);
    let mut done = 0;
    let providers = ctx.keeper()?.work_providers(None, None, &mut |what, id| {
        bar.set_position(done);
        bar.set_message(format!("{what} {id}"));
        done += 1;
    });
    bar.finish_and_clear();
    let (providers, unreachable) = match providers {
        Ok(work) => (work, None),
        Err(e @ keep_core::Error::ProviderUnreachable { .. }) => (Default::default(), Some(e)),
        Err(e) => return Err(e.into()),
    };
    for (id, reason) in &providers.failed {
        ctx.out.warn(&format!("{id}: kept as it was: {reason}"));
    }
    if let Some(e) = &unreachable {
        ctx.out.warn(&format!("{e}; the work waits for it"));
    }
    let mut bar = bars.counting("embedding");
    let report = ctx
        .keeper()?
        .reindex(args.all, &mut |done, total| bar.step(done, total))?;
    bar.finish();
    let graphs = refresh_graphs(ctx, &bars)?;
    let merged = merge_text_indexes(ctx, &bars)?;
    match ctx.format {
        Format::Json => {
            let mut value = serde_json::to_value(&report).map_err(std::io::Error::other)?;
            value["providers"] = serde_json::to_value(&providers).map_err(std::io::Error::other)?;
            value["vector_index"] = graphs.iter().map(graph_json).collect();
            value["word_indexes_merged"] =
                serde_json::to_value(&merged.merged).map_err(std::io::Error::other)?;
            ctx.out.json(&value)?
        }
        Format::Ids => {}
        Format::Text => {
            ctx.out.line(&format!(
                "{} embedded, {} copied from identical text, {} waiting ({}, {} dimensions{})",
                report.work.embedded,
                report.work.copied,
                report.work.remaining,
                report.model,
                report.dimensions,
                if report.rebuilt { ", rebuilt" } else { "" }
            ))?;
            if let Some(from) = &report.switched_from {
                ctx.out.line(&format!(
                    "every vector made again with {} (was {from})",
                    report.model
                ))?;
            }
            if providers.summarized + providers.transcribed + providers.remaining > 0
                || !providers.failed.is_empty()
            {
                ctx.out.line(&format!(
                    "{} summarised, {} transcribed by providers, {} failed, {} waiting",
                    providers.summarized,
                    providers.transcribed,
                    providers.failed.len(),
                    providers.remaining
                ))?;
            }
            for line in graphs.iter().filter_map(graph_line) {
                ctx.out.line(&line)?;
            }
            for index in &merged.merged {
                ctx.out.line(&format!(
                    "word index of {} merged from {} segments into one",
                    index.index, index.segments
                ))?;
            }
            if report.ocr_read + report.ocr_waiting > 0 {
                ctx.out.line(&format!(
                    "{} read by OCR, {} still waiting for OCR",
                    report.ocr_read, report.ocr_waiting
                ))?;
            }
        }
    }
    if unreachable.is_some() {
        return Ok(Status::Failed(1));
    }
    Ok(Status::Success)
}

/// One bar at a time for a job of stages (a kind of vector, a word
/// index), each replacing the last.
struct StageBar<'a> {
    bars: &'a Bars,
    current: Option<(String, indicatif::ProgressBar)>,
}

impl<'a> StageBar<'a> {
    fn new(bars: &'a Bars) -> Self {
        StageBar {
            bars,
            current: None,
        }
    }

    /// Shows `done` of `total` for `stage`, with `message` when the stage
    /// is new.
    fn show(&mut self, stage: &str, message: impl FnOnce() -> String, done: usize, total: usize) {
        if self.current.as_ref().is_none_or(|(s, _)| s != stage) {
            let bar = self.bars.bar(total);
            bar.set_message(message());
            if let Some((_, old)) = self.current.replace((stage.to_string(), bar)) {
                old.finish_and_clear();
            }
        }
        if let Some((_, bar)) = &self.current {
            bar.set_position(done as u64);
        }
    }

    fn finish(self) {
        if let Some((_, bar)) = self.current {
            bar.finish_and_clear();
        }
    }
}

/// Brings the vector index of a large store up to date, with a bar per
/// kind of vector while rows are added.
fn refresh_graphs(
    ctx: &mut Ctx,
    bars: &Bars,
) -> Result<Vec<(VecKind, GraphWork)>, super::CliError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bar = std::cell::RefCell::new(StageBar::new(bars));
    let graphs = ctx.keeper()?.refresh_vector_graphs(
        threads,
        &mut |kind, done, total| {
            let message = || format!("indexing the vectors of {}", kind.name());
            bar.borrow_mut().show(kind.name(), message, done, total);
            true
        },
        &mut |build| {
            let name = build.kind.map_or("vectors", VecKind::name);
            let stage = format!("waiting {name}");
            let message = || format!("waiting for another process indexing the vectors of {name}");
            bar.borrow_mut()
                .show(&stage, message, build.done, build.total.max(1));
            true
        },
    )?;
    bar.into_inner().finish();
    Ok(graphs)
}

/// Merges the word indexes written in many pieces, with a bar while an
/// index is merged.
fn merge_text_indexes(ctx: &mut Ctx, bars: &Bars) -> Result<TextMerge, super::CliError> {
    let mut bar = StageBar::new(bars);
    let merged = ctx
        .keeper()?
        .merge_text_indexes(&mut |index, done, pages| {
            let message = || format!("merging the word index of {index}");
            bar.show(index, message, done, pages);
            true
        })?;
    bar.finish();
    Ok(merged)
}

/// A line for a vector index that was built or changed; none otherwise.
fn graph_line((kind, work): &(VecKind, GraphWork)) -> Option<String> {
    let kind = kind.name();
    match work {
        GraphWork::Built { vectors } => Some(format!(
            "vector index of {kind} built over {vectors} vectors"
        )),
        GraphWork::Updated { vectors, changed } => Some(format!(
            "vector index of {kind} updated: {changed} changed, {vectors} vectors"
        )),
        GraphWork::Busy => Some(format!(
            "vector index of {kind}: another process is bringing it up to date"
        )),
        GraphWork::Recent { vectors, changed } => Some(format!(
            "vector index of {kind}: {vectors} vectors, {changed} changed since and searched beside it until {REFRESH_AFTER} are folded in"
        )),
        GraphWork::Waited { vectors } => Some(format!(
            "vector index of {kind} brought up to date by another process, waited for: {vectors} vectors"
        )),
        GraphWork::Small { .. } | GraphWork::Current { .. } | GraphWork::Stopped => None,
    }
}

fn graph_json((kind, work): &(VecKind, GraphWork)) -> serde_json::Value {
    let (status, vectors, changed) = match *work {
        GraphWork::Small { vectors } => ("not needed", Some(vectors), None),
        GraphWork::Current { vectors } => ("current", Some(vectors), None),
        GraphWork::Waited { vectors } => ("waited", Some(vectors), None),
        GraphWork::Built { vectors } => ("built", Some(vectors), None),
        GraphWork::Updated { vectors, changed } => ("updated", Some(vectors), Some(changed)),
        GraphWork::Recent { vectors, changed } => ("recent", Some(vectors), Some(changed)),
        GraphWork::Busy => ("busy", None, None),
        GraphWork::Stopped => ("stopped", None, None),
    };
    serde_json::json!({ "kind": kind.name(), "status": status, "vectors": vectors, "changed": changed })
}
