//! `keep context`: the block a session starts with.

use std::path::{Path, PathBuf};

use keep_commands::context::{Context, DEFAULT_MAX_TOKENS};

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Print what a session should start with, within a token budget.
///
/// One block of text for the start of an agent's session: the 'now' note,
/// what changed since the last session (--since: notes written or changed,
/// what they supersede, conflicts among them), and the notes most relevant
/// to the project, found by its name (--project, else the name of the
/// working folder's git repository and the folders below it). The whole
/// block stays within --max-tokens, counted as 'find --max-tokens' counts;
/// the most wanted lines go in first (now, then changes newest first, then
/// the relevant notes best first), and each section lists its lines by
/// event time, then id. The same store gives the same bytes: nothing is
/// recorded (no access times) and nothing decays with the clock, so a
/// client's prompt cache keeps hitting. When nothing is relevant to the
/// project, one line says so. MCP clients get the same block as the
/// prompt 'keep-context' and the resource keep://context/{project}, and
/// 'keep connect claude-code --hooks' gives it to each session as it
/// starts.
#[derive(Debug, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct Args {
    /// Look for the notes of this project (words; default: the git repository's name and the folders below it)
    #[arg(long, value_name = "WORDS")]
    pub project: Option<String>,

    /// List what changed since the last session: a date, a timestamp or a duration back (P1D)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Keep the whole block within N tokens
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TOKENS)]
    pub max_tokens: usize,

    /// Use the note 'now:NAME' instead of 'now'
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let project = args.project.clone().or_else(|| {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| project_words(&cwd))
    });
    let context = ctx.run(Context {
        project,
        since: args.since,
        max_tokens: Some(args.max_tokens),
        now_name: args.name,
    })?;
    match ctx.format {
        Format::Json => ctx.out.json(&context)?,
        Format::Ids => {
            let lines = context
                .now
                .iter()
                .chain(&context.changed)
                .chain(&context.relevant);
            for line in lines {
                ctx.out.line(&line.address)?;
            }
        }
        Format::Text => ctx.out.raw().write_all(context.text.as_bytes())?,
    }
    Ok(Status::Success)
}

/// Folder names that say nothing of a project.
const PLAIN_FOLDERS: &[&str] = &[
    "src", "lib", "crates", "packages", "app", "apps", "cmd", "internal",
];

/// Words of a project for `cwd`: the name of its git repository's folder
/// and of the folders from there down to `cwd` (or the folder's own name
/// outside a repository), without the ones every project has.
pub fn project_words(cwd: &Path) -> Option<String> {
    let root = git_root(cwd);
    let from = root.as_deref().unwrap_or(cwd);
    let mut words: Vec<String> = Vec::new();
    let named = from.file_name().into_iter();
    let below = cwd
        .strip_prefix(from)
        .ok()
        .into_iter()
        .flat_map(|rel| rel.iter());
    for name in named.chain(below) {
        let name = name.to_string_lossy();
        if PLAIN_FOLDERS.contains(&name.as_ref()) || words.iter().any(|w| *w == name) {
            continue;
        }
        words.push(name.into_owned());
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// The nearest folder at or above `cwd` that holds `.git`.
fn git_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_words_name_the_repository_and_the_folders_below() {
        let dir = tempfile::tempdir().expect("a folder");
        let repo = dir.path().join("garden-planner");
        let deep = repo.join("src").join("beds");
        std::fs::create_dir_all(repo.join(".git")).expect("made");
        std::fs::create_dir_all(&deep).expect("made");
        assert_eq!(project_words(&deep).as_deref(), Some("garden-planner beds"));
        assert_eq!(project_words(&repo).as_deref(), Some("garden-planner"));
        let outside = dir.path().join("notes");
        std::fs::create_dir_all(&outside).expect("made");
        assert_eq!(project_words(&outside).as_deref(), Some("notes"));
    }
}
