//! `keep mcp`: serve the store to MCP clients over stdio.

use std::path::PathBuf;

use super::{CliError, CliResult, Ctx, Status};

/// Serve keep's memory to agents over the Model Context Protocol.
///
/// Speaks MCP (JSON-RPC, one message per line) on standard input and
/// output until the client closes standard input; diagnostics go to
/// standard error. Its tools are listed below. Resources: keep://now and
/// keep://note/{id}. Prompt: keep-reflect. The model loads on the first
/// call that needs it,
/// not at start. Several servers and the command line can use one store at
/// once.
///
/// put_file reads only files under the folders given with --allow (after
/// resolving symbolic links), and of those no hidden file or folder (a
/// name starting with '.') unless --allow-hidden; without --allow it
/// refuses every file. A path outside is refused in the same words
/// whether it exists or not.
///
/// --scope project=x confines the server to one project: every read
/// (recall, list, get, related, the resources) sees only notes tagged
/// project=x, every write tags its note project=x, and a note outside the
/// scope is answered as if it did not exist. The 'now' note is the
/// scope's own.
///
/// 'keep connect CLIENT' prints (or with --write adds) the entry that
/// starts it for Claude Code, Claude Desktop, Cursor, VS Code, Windsurf,
/// Zed or Codex.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Let put_file read files under DIR (repeatable)
    #[arg(long = "allow", value_name = "DIR")]
    pub allow: Vec<PathBuf>,

    /// Let put_file read hidden files and folders (names starting with '.') under the folders allowed
    #[arg(long, requires = "allow")]
    pub allow_hidden: bool,

    /// Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable; all apply)
    #[arg(long = "scope", value_name = "KEY=VALUE")]
    pub scope: Vec<String>,

    /// Which tools clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)
    #[arg(long, value_enum, value_name = "SET", default_value = "core")]
    pub tools: crate::mcp::ToolSet,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let mut server_ctx = context(&args.allow, &args.scope)?;
    server_ctx.allow_hidden = args.allow_hidden;
    server_ctx.tools = args.tools;
    crate::mcp::idle::use_few_heaps();
    let keeper = ctx.take_keeper()?;
    crate::mcp::serve(keeper, server_ctx)?;
    Ok(Status::Success)
}

/// The server's context from `--allow` and `--scope`, shared with
/// `keep serve`.
pub fn context(allow: &[PathBuf], scope: &[String]) -> Result<crate::mcp::Context, CliError> {
    let mut roots = Vec::new();
    for dir in allow {
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
    let tags = keep_core::model::parse_user_tags(scope)
        .map_err(|e| CliError::Usage(format!("--scope: {e}")))?;
    if scope.iter().any(|s| !s.contains('=')) {
        return Err(CliError::Usage("--scope takes KEY=VALUE".into()));
    }
    Ok(crate::mcp::Context {
        roots,
        scope: tags,
        ..crate::mcp::Context::default()
    })
}
