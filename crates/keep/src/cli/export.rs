//! `keep export`: write every note as JSON Lines.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{CliError, CliResult, Ctx, Status};
use keep_core::Error;

/// Export every note, with tags, full history and parts, as JSON Lines.
///
/// The first line is a header ({"format":"keep-export","version":4}, with
/// "vectors": {"model", "dimensions"} when the store has vectors); each
/// following line is one note, ordered by id, system notes included, with
/// the vector of the note, each version and each part ("vector": base64 of
/// little-endian f32), so an import needs no embedding. Then the
/// operations log (see 'keep log'), oldest first, one {"operation": ...}
/// per line. Summaries are exported; original documents are not stored by
/// keep and so are not exported. 'keep import' reads the file back:
/// export, import into an empty store and export again gives the same
/// notes, and the same log followed by the import's own entries. A FILE
/// is written whole or not at all. The store is read a page at a time
/// from one snapshot: memory stays small whatever its size, and writes
/// others make meanwhile are left out whole, never half in.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Output file, or '-' for standard output
    #[arg(value_name = "FILE", default_value = "-")]
    pub file: PathBuf,

    /// Leave the vectors out (a file about a third the size; an import
    /// then embeds everything again)
    #[arg(long)]
    pub no_vectors: bool,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    if args.file.as_os_str() == "-" {
        let mut bar = ctx.out.bars().counting("exporting");
        let mut progress = |done: usize, total: usize| bar.step(done, total);
        let (keeper, out) = ctx.keeper_and_out()?;
        let written = keeper.export(out.raw(), !args.no_vectors, &mut progress);
        bar.finish();
        written?;
        return Ok(Status::Success);
    }
    let count = export_to_file(ctx, &args.file, !args.no_vectors)?;
    ctx.out.note(&format!(
        "exported {count} note(s) to {}",
        args.file.display()
    ));
    Ok(Status::Success)
}

/// Writes a temporary file beside `path` and renames it into place.
fn export_to_file(ctx: &mut Ctx, path: &Path, vectors: bool) -> Result<usize, CliError> {
    let tmp = path.with_file_name(format!(
        ".{}.keep-export-{}",
        path.file_name()
            .map_or("export".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    let result = (|| {
        let file = std::fs::File::create(&tmp).map_err(|e| Error::io(path, e))?;
        let mut w = BufWriter::new(file);
        let mut bar = ctx.out.bars().counting("exporting");
        let mut progress = |done: usize, total: usize| bar.step(done, total);
        let count = ctx.keeper()?.export(&mut w, vectors, &mut progress);
        bar.finish();
        let count = count?;
        w.flush().map_err(|e| Error::io(path, e))?;
        w.get_ref().sync_all().map_err(|e| Error::io(path, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
        Ok::<_, CliError>(count)
    })();
    if result.is_err() {
        // The export's own error is reported; a temporary file that cannot be removed is hidden and harmless.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
