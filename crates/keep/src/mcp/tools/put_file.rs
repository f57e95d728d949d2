//! `put_file`: store a file, or the files of a folder, under an allowed
//! folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keep_core::Keeper;
use keep_core::keeper::{IngestOptions, IngestReport, Progress, Target, WalkOptions};
use keep_core::model;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallError, Context, Hints, ToolDef};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Absolute path of a file or folder under one of the folders the server allows.
    pub path: String,
    /// For a folder: also take the files in its subfolders.
    #[serde(default)]
    pub recursive: bool,
    /// Tags to add, as "key=value".
    #[serde(default)]
    pub tags: Vec<String>,
}

pub struct PutFile;

impl ToolDef for PutFile {
    const NAME: &'static str = "put_file";
    const TITLE: &'static str = "Remember a file";
    const DESCRIPTION: &'static str = "Store a file, or the files of a folder, as notes whose ids are their file:// URIs: text, Markdown, HTML, PDF, PostScript, DOCX, PPTX, ODT, ODP, audio tags and images (with OCR). A changed file becomes a new version; an unchanged one is skipped. Returns the ids added, updated and unchanged, and each failure with its reason. Only paths under the folders the user allowed when starting the server can be read.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;
    const EXAMPLE: &'static str = r#"{"path": "/home/me/notes/runbook.md", "tags": ["topic=ops"]}"#;
    type Args = Args;
    type Output = IngestReport;

    fn call(keeper: &mut Keeper, ctx: &Context, args: Args) -> Result<IngestReport, CallError> {
        let path = allowed_path(&ctx.roots, Path::new(&args.path))?;
        let opts = IngestOptions {
            walk: WalkOptions {
                recursive: args.recursive,
                ..WalkOptions::default()
            },
            tags: ctx.scoped(model::parse_user_tags(&args.tags)?)?,
            within: ctx.scope_filters(),
            roots: ctx.roots.clone(),
            cancel: Some(Arc::clone(&ctx.cancel)),
            ..IngestOptions::default()
        };
        // One rising count: the files read, then the texts embedded.
        let mut files = 0;
        Ok(
            keeper.ingest(&[Target::Path(path)], &opts, &mut |p| match p {
                Progress::Planned { total } => {
                    files = total;
                    ctx.report(0, Some(total), format!("{total} file(s) to read"));
                }
                Progress::Finished { done, total, name } => {
                    ctx.report(done, Some(total), format!("read {name}"));
                }
                Progress::Embedding { done, total } => ctx.report(
                    files + done,
                    Some(files + total),
                    format!("embedded {done} of {total} text(s)"),
                ),
            })?,
        )
    }
}

/// The canonical form of `path` when it lies under one of `roots`.
pub fn allowed_path(roots: &[PathBuf], path: &Path) -> Result<PathBuf, CallError> {
    if roots.is_empty() {
        return Err(CallError::Failed(
            "file access is off: start the server with 'keep mcp --allow DIR' to allow a folder"
                .into(),
        ));
    }
    if !path.is_absolute() {
        return Err(CallError::Failed(format!(
            "'{}' is not an absolute path",
            path.display()
        )));
    }
    let real = path
        .canonicalize()
        .map_err(|e| CallError::Failed(format!("{}: {e}", path.display())))?;
    if roots.iter().any(|root| real.starts_with(root)) {
        Ok(real)
    } else {
        Err(CallError::Failed(format!(
            "'{}' is outside the allowed folders",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_roots_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let root_path = root.path().canonicalize().unwrap();
        let inside = root_path.join("a.txt");
        std::fs::write(&inside, "x").unwrap();
        let roots = vec![root_path.clone()];
        assert!(allowed_path(&roots, &inside).is_ok());
        let escape = root_path
            .join("..")
            .join(root_path.file_name().unwrap())
            .join("..");
        assert!(allowed_path(&roots, &escape).is_err());
        assert!(allowed_path(&[], &inside).is_err());
        assert!(allowed_path(&roots, Path::new("a.txt")).is_err());
    }
}
