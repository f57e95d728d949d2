//! `keep reindex`: give every note, version and part its vector.

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Embed everything that has no vector yet, with the configured model.
///
/// Images and scanned PDFs stored while the OCR models were missing are
/// read again from their files first, so their text is found too.
///
/// Notes stored while no model was available, imported notes and versions
/// get their vectors; a vector is copied from any row with the same text
/// instead of being computed again. If the store's vectors were made by
/// another model (or --all is given), every vector is dropped and made
/// again with the configured one.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Drop every vector and embed everything again
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let bars = ctx.out.bars();
    let mut bar = indicatif::ProgressBar::hidden();
    let report = ctx.keeper()?.reindex(args.all, &mut |done, total| {
        if done == 0 {
            bar = bars.bar(total);
            bar.set_message("embedding");
        }
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    match ctx.format {
        Format::Json => ctx.out.json(&report)?,
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
            if report.ocr_read + report.ocr_waiting > 0 {
                ctx.out.line(&format!(
                    "{} read by OCR, {} still waiting for OCR",
                    report.ocr_read, report.ocr_waiting
                ))?;
            }
        }
    }
    Ok(Status::Success)
}
