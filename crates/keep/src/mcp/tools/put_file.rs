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
    const DESCRIPTION: &'static str = "Use it when the user asks to keep a document or a folder: stores a file, or the files of a folder, as notes whose ids are their file:// URIs: text, Markdown, HTML, PDF, PostScript, DOCX, PPTX, ODT, ODP, audio tags and images (with OCR). A changed file becomes a new version; an unchanged one is skipped. Returns the ids added, updated and unchanged, and each failure with its reason. Only paths under the folders the user allowed when starting the server can be read.";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;
    const EXAMPLE: &'static str = r#"{"path": "/home/me/notes/runbook.md", "tags": ["topic=ops"]}"#;
    type Args = Args;
    type Output = IngestReport;

    fn call(keeper: &mut Keeper, ctx: &Context, args: Args) -> Result<IngestReport, CallError> {
        let path = allowed_path(&ctx.roots, Path::new(&args.path))?;
        if !ctx.allow_hidden && hidden_below_root(&ctx.roots, &path) {
            return Err(CallError::Failed(format!(
                "'{}' is hidden (a name starting with '.'): the server reads hidden files only when started with --allow-hidden",
                args.path
            )));
        }
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

/// Whether a part of `path` below the root it lies under is hidden (its
/// name starts with '.').
fn hidden_below_root(roots: &[PathBuf], path: &Path) -> bool {
    let below = roots
        .iter()
        .find_map(|root| path.strip_prefix(root).ok())
        .unwrap_or(path);
    below
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
}

/// The canonical form of `path` when it lies under one of `roots`. A path
/// outside them is refused in the same words whether it exists or not, so
/// the answer says nothing of the files outside.
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
    let outside = || {
        CallError::Failed(format!(
            "'{}' is outside the allowed folders",
            path.display()
        ))
    };
    let under_a_root = |p: &Path| roots.iter().any(|root| p.starts_with(root));
    match path.canonicalize() {
        Ok(real) if under_a_root(&real) => Ok(real),
        Ok(_) => Err(outside()),
        Err(e) if under_a_root(&model::lexically_normal(path)) => {
            Err(CallError::Failed(format!("{}: {e}", path.display())))
        }
        Err(_) => Err(outside()),
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
        // Outside, a file that exists and one that does not are refused alike.
        let said = |p: &Path| allowed_path(&roots, p).err().unwrap().to_string();
        let there = Path::new("/etc/passwd");
        let not_there = Path::new("/etc/no-such-file-here");
        assert_eq!(said(there), "'/etc/passwd' is outside the allowed folders");
        assert_eq!(
            said(not_there),
            "'/etc/no-such-file-here' is outside the allowed folders"
        );
        assert!(said(&root_path.join("missing.txt")).contains("missing.txt: "));
        // Hidden names below the root, not above it.
        assert!(hidden_below_root(&roots, &root_path.join(".env")));
        assert!(hidden_below_root(
            &roots,
            &root_path.join(".ssh/id_ed25519")
        ));
        assert!(!hidden_below_root(&roots, &inside));
    }
}
