//! `keep mcp`: serve the store to MCP clients over stdio.

use std::path::PathBuf;

use super::{CliError, CliResult, Ctx, Status};

/// Serve keep's memory to agents over the Model Context Protocol.
///
/// Speaks MCP (JSON-RPC, one message per line) on standard input and
/// output until the client closes standard input; diagnostics go to
/// standard error. Tools: remember, recall, get, list, tag, forget, revert,
/// now, put_file and related. Resources: keep://now and keep://note/{id}.
/// Prompt: keep-reflect. The model loads on the first call that needs it,
/// not at start. Several servers and the command line can use one store at
/// once.
///
/// put_file reads only files under the folders given with --allow (after
/// resolving symbolic links); without --allow it refuses every file.
///
/// Claude Code: claude mcp add keep -- keep mcp
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Let put_file read files under DIR (repeatable)
    #[arg(long = "allow", value_name = "DIR")]
    pub allow: Vec<PathBuf>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let mut roots = Vec::new();
    for dir in &args.allow {
        let root = dir
            .canonicalize()
            .map_err(|e| CliError::Usage(format!("--allow {}: {e}", dir.display())))?;
        if !root.is_dir() {
            return Err(CliError::Usage(format!(
                "--allow {}: not a folder",
                dir.display()
            )));
        }
        roots.push(root);
    }
    let keeper = ctx.take_keeper()?;
    crate::mcp::serve(keeper, roots)?;
    Ok(Status::Success)
}
