//! `keep connect`: print, or merge into its file, the entry that gives an
//! MCP client keep's memory.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};
use crate::connect::hooks;
use crate::connect::merge::{self, Merged, Outcome};
use crate::connect::{CLIENTS, Client, Places, Platform, Target, Transport, is_loopback_url};

/// Give an MCP client (Claude Code, Cursor, VS Code, ...) keep's memory.
///
/// Prints the entry that makes CLIENT start 'keep mcp' (by the absolute
/// path of this keep, so an application whose PATH lacks it still finds
/// it), or with --http call a running 'keep serve', and names the file it
/// belongs in: the user's own by default, a project's with --project.
/// With --write it merges the entry into that file: other servers and
/// settings stay, and so do comments where the file may have them (Zed's
/// and VS Code's JSON, Codex's TOML); the file as it was is kept beside it
/// as FILE.keep.bak; running it again changes nothing. A file that cannot
/// be merged without losing something (it does not parse, or its table of
/// servers is something else) is left untouched: the entry is printed to
/// add by hand, and the exit status is 1.
///
/// --store, KEEP_STORE, KEEP_CONFIG and KEEP_DATA_DIR, when given, are
/// passed on in the entry's env, so the client uses the same store. A
/// password in a database URL is left out: give the client's keep one
/// through ~/.pgpass or a password file.
///
/// An --http URL on this machine (localhost, 127.0.0.1, ::1) needs no
/// token. Any other gets "Authorization: Bearer TOKEN" with the token of
/// KEEP_SERVE_TOKEN, else, for a project file (which may end up in a
/// repository), a token of the project's own: --write makes
/// 'connect-CLIENT-PROJECT' in this store (write rights, --scope when
/// given; again, a new secret) and says how to revoke it, when the store
/// is a database the servers share or a server of this store runs here
/// (else the entry gets no token, and keep says so); else this
/// store's 'keep serve --token' (the server on another machine prints its
/// own). A file that holds a token is written 0600. With --project, a
/// project file that is a symbolic link is refused, not written through.
///
/// --hooks also makes Claude Code run 'keep hook claude-code' at the start
/// of each session (which gives it 'keep context' for its folder), at its
/// end and before each compaction (which import its transcript), merged
/// into its settings.json the same way (--project: the project's
/// .claude/settings.json); for the other clients, which have no session
/// hooks, it prints what to add to their instructions. --remove takes
/// keep's entry (and with --hooks, keep's hooks) out of the files again,
/// each kept as it was beside it.
///
/// With no CLIENT, lists the clients, their files and whether each has an
/// entry named keep.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The client (leave out to list them all)
    #[arg(value_enum, value_name = "CLIENT")]
    pub client: Option<Client>,

    /// Use the client's file in project folder DIR instead of the user's [default DIR: this folder]
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
    pub project: Option<PathBuf>,

    /// Use this file instead of the client's usual one
    #[arg(long, value_name = "FILE", conflicts_with = "project")]
    pub file: Option<PathBuf>,

    /// Merge the entry into the file (the old file kept as FILE.keep.bak) instead of printing it
    #[arg(long)]
    pub write: bool,

    /// Call the keep serve at URL (e.g. http://127.0.0.1:7377/mcp) instead of starting keep mcp
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,

    /// The server's name in the client
    #[arg(long, value_name = "NAME", default_value = "keep")]
    pub name: String,

    /// Let put_file read files under DIR (passed to keep mcp; repeatable)
    #[arg(long = "allow", value_name = "DIR", conflicts_with = "http")]
    pub allow: Vec<PathBuf>,

    /// Confine the server to notes tagged KEY=VALUE (passed to keep mcp; with --http --project, the rights of the project's token; repeatable)
    #[arg(long = "scope", value_name = "KEY=VALUE")]
    pub scope: Vec<String>,

    /// Also run keep at the start and end of each session (Claude Code's hooks; other clients: print what to add to their instructions)
    #[arg(long)]
    pub hooks: bool,

    /// Take keep's entry (and with --hooks, its hooks) out of the client's files
    #[arg(long, conflicts_with_all = ["write", "http", "allow"])]
    pub remove: bool,
}

/// What `--json` prints for one client.
#[derive(Debug, Serialize)]
struct ConnectJson {
    client: &'static str,
    file: String,
    name: String,
    entry: Value,
    /// `added`, `updated` or `unchanged` (what --write did or would do),
    /// or `refused` when the file cannot be merged.
    outcome: &'static str,
    written: bool,
    backup: Option<String>,
    /// Why the file cannot be merged.
    reason: Option<String>,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let places = places(ctx)?;
    let Some(client) = args.client else {
        return list(ctx, &places);
    };
    check_name(&args.name)?;
    let file = file_of(client, &args, &places)?;
    let target = client.target(file);
    if args.remove {
        return remove(ctx, client, &args, &places, &target);
    }
    if args.project.is_some() && target.file.is_symlink() {
        return Err(CliError::Usage(format!(
            "{}: a link in the project; keep does not write through it (it would write where the link points)",
            target.file.display()
        )));
    }
    let transport = transport(ctx, &args, client)?;
    let entry = client.entry(&transport).map_err(|e| CliError::Usage(e.0))?;
    let existing = read_existing(&target.file)?;
    let merged = merge::merge(existing.as_deref(), &target, &args.name, &entry);
    let mut report = ConnectJson {
        client: client.name(),
        file: target.file.display().to_string(),
        name: args.name.clone(),
        entry: entry.clone(),
        outcome: outcome_name(&merged),
        written: false,
        backup: None,
        reason: merged.as_ref().err().map(|e| e.0.clone()),
    };
    let status = match (&merged, args.write) {
        (Err(refused), true) => {
            print_snippet(ctx, &target, &args.name, &entry, &report)?;
            ctx.out.warn(&format!(
                "{}: cannot be merged ({refused}); left untouched: add the entry above by hand",
                target.file.display()
            ));
            Status::Failed(1)
        }
        (Ok(merged), true) if merged.outcome != Outcome::Unchanged => {
            let secret = matches!(transport, Transport::Http { token: Some(_), .. });
            let backup = write_merged(&target.file, merged, secret)?;
            report.written = true;
            report.backup = backup.map(|b| b.display().to_string());
            say_written(ctx, client, &target.file, merged.outcome, &report)?;
            Status::Success
        }
        (Ok(_), true) => {
            say_unchanged(ctx, &target.file, &args.name, &report)?;
            Status::Success
        }
        (_, false) => {
            print_snippet(ctx, &target, &args.name, &entry, &report)?;
            if let Err(refused) = &merged {
                ctx.out.warn(&format!(
                    "{} cannot be merged as it is ({refused}): --write would leave it untouched",
                    target.file.display()
                ));
            }
            Status::Success
        }
    };
    if !args.hooks {
        return Ok(status);
    }
    let hooked = hooks(ctx, client, &args, &places, &transport)?;
    Ok(match (status, hooked) {
        (Status::Success, hooked) => hooked,
        (failed, _) => failed,
    })
}

/// `--hooks`: keep's session hooks merged into (or, without --write,
/// printed for) the client's settings; for a client without hooks, what
/// to add to its instructions.
fn hooks(
    ctx: &mut Ctx,
    client: Client,
    args: &Args,
    places: &Places,
    transport: &Transport,
) -> Result<Status, CliError> {
    let Some(file) = client.hooks_file(places, args.project.as_deref()) else {
        ctx.out
            .raw()
            .write_all(hooks::instructions(client.title()).as_bytes())?;
        return Ok(Status::Success);
    };
    let command = hook_command(transport);
    let existing = read_existing(&file)?;
    let merged = hooks::merge(existing.as_deref(), &command);
    match (merged, args.write) {
        (Err(refused), true) => {
            ctx.out.warn(&format!(
                "{}: cannot be merged ({refused}); left untouched: add keep's hooks by hand (keep connect {} --hooks prints them)",
                file.display(),
                client.name()
            ));
            Ok(Status::Failed(1))
        }
        (Ok(merged), true) if merged.outcome != Outcome::Unchanged => {
            let backup = write_merged(&file, &merged, false)?;
            let backup = backup.map_or(String::new(), |b| {
                format!(" (the file before: {})", b.display())
            });
            ctx.out.note(&format!(
                "added keep's session hooks to {}{backup}: {} runs '{command}' when a session starts, ends or is compacted",
                file.display(),
                client.title()
            ));
            Ok(Status::Success)
        }
        (Ok(_), true) => {
            ctx.out.note(&format!(
                "{} already holds keep's session hooks; nothing changed",
                file.display()
            ));
            Ok(Status::Success)
        }
        (_, false) => {
            ctx.out.note(&format!("hooks for {}:", file.display()));
            let alone = hooks::merge(None, &command)
                .map(|m| m.text)
                .unwrap_or_default();
            ctx.out.raw().write_all(alone.as_bytes())?;
            Ok(Status::Success)
        }
    }
}

/// The command a client's hook runs: this keep, by its absolute path,
/// with the store it uses.
fn hook_command(transport: &Transport) -> String {
    let (program, env) = match transport {
        Transport::Stdio { program, env, .. } => (program.display().to_string(), env.clone()),
        Transport::Http { .. } => (
            std::env::current_exe()
                .and_then(|p| p.canonicalize())
                .map_or_else(|_| "keep".to_string(), |p| p.display().to_string()),
            Vec::new(),
        ),
    };
    let mut words: Vec<String> = env
        .iter()
        .map(|(k, v)| format!("{k}={}", super::shell_quote(v)))
        .collect();
    words.push(super::shell_quote(&program));
    words.push("hook".into());
    words.push("claude-code".into());
    words.join(" ")
}

/// `--remove`: keep's entry taken out of the client's file, and with
/// --hooks its hooks out of the settings.
fn remove(
    ctx: &mut Ctx,
    client: Client,
    args: &Args,
    places: &Places,
    target: &Target,
) -> CliResult {
    let mut status = Status::Success;
    let mut files = vec![(target.file.clone(), false)];
    if args.hooks
        && let Some(file) = client.hooks_file(places, args.project.as_deref())
    {
        files.push((file, true));
    }
    for (file, is_hooks) in files {
        let existing = read_existing(&file)?;
        let removed = if is_hooks {
            hooks::remove(existing.as_deref())
        } else {
            merge::remove(existing.as_deref(), target, &args.name)
        };
        let what = if is_hooks {
            "keep's session hooks".to_string()
        } else {
            format!("the entry {}", args.name)
        };
        match removed {
            Err(refused) => {
                ctx.out.warn(&format!(
                    "{}: cannot be changed ({refused}); left untouched: take {what} out by hand",
                    file.display()
                ));
                status = Status::Failed(1);
            }
            Ok(m) if m.outcome == Outcome::Removed => {
                let backup = write_merged(&file, &m, false)?;
                let backup = backup.map_or(String::new(), |b| {
                    format!(" (the file before: {})", b.display())
                });
                ctx.out
                    .line(&format!("removed {what} from {}{backup}", file.display()))?;
            }
            Ok(_) => ctx.out.line(&format!(
                "{} holds no {what}; nothing changed",
                file.display()
            ))?,
        }
    }
    Ok(status)
}

/// Where clients keep their files on this machine.
fn places(ctx: &Ctx) -> Result<Places, CliError> {
    let home = ctx.config.home.clone().ok_or_else(|| {
        CliError::Usage("no home folder: give the client's file with --file".into())
    })?;
    Ok(Places {
        home,
        xdg_config: ctx.config.client_dirs.xdg_config.clone(),
        codex_home: ctx.config.client_dirs.codex_home.clone(),
        claude_config: ctx.config.client_dirs.claude_config.clone(),
    })
}

/// A server name every client takes as a key: letters, digits, `-`, `_`.
fn check_name(name: &str) -> Result<(), CliError> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if fine {
        Ok(())
    } else {
        Err(CliError::Usage(format!(
            "--name '{name}': use letters, digits, '-' and '_' (at most 64)"
        )))
    }
}

fn file_of(client: Client, args: &Args, places: &Places) -> Result<PathBuf, CliError> {
    if let Some(file) = &args.file {
        return Ok(std::path::absolute(file)?);
    }
    match &args.project {
        Some(dir) => {
            let dir = std::path::absolute(dir)?;
            client.project_file(&dir).ok_or_else(|| {
                let with: Vec<&str> = CLIENTS
                    .iter()
                    .filter(|c| c.project_file(&dir).is_some())
                    .map(|c| c.name())
                    .collect();
                CliError::Usage(format!(
                    "{} has no project file: --project works for {}",
                    client.title(),
                    with.join(", ")
                ))
            })
        }
        None => Ok(client.user_file(Platform::current(), places)),
    }
}

/// How the client reaches keep: this binary over stdio, or a server.
fn transport(ctx: &mut Ctx, args: &Args, client: Client) -> Result<Transport, CliError> {
    if let Some(url) = &args.http {
        return http_transport(ctx, url, args, client);
    }
    super::mcp::context(&args.allow, &args.scope)?;
    let program = std::env::current_exe()?.canonicalize()?;
    let mut mcp_args = vec!["mcp".to_string()];
    for dir in &args.allow {
        let dir = dir
            .canonicalize()
            .map_err(|e| CliError::Usage(format!("--allow {}: {e}", dir.display())))?;
        mcp_args.push("--allow".into());
        mcp_args.push(dir.display().to_string());
    }
    for scope in &args.scope {
        mcp_args.push("--scope".into());
        mcp_args.push(scope.clone());
    }
    let mut env = Vec::new();
    for (name, value) in &ctx.config.locations {
        let value = if *name == "KEEP_STORE" {
            let (url, had_password) = super::secrets::without_password(value);
            if had_password {
                ctx.out.warn(
                    "the store's URL holds a password, which is left out of the entry: \
                     give the client's keep one through ~/.pgpass or KEEP_PASSWORD_FILE",
                );
            }
            url
        } else {
            value.clone()
        };
        env.push((name.to_string(), value));
    }
    Ok(Transport::Stdio {
        program,
        args: mcp_args,
        env,
    })
}

/// The transport to the server at `url`: no token on this machine; off
/// it, the token of KEEP_SERVE_TOKEN, else for a project file a token of
/// the project's own (never the owner's, which a project file may carry
/// into a repository), else the owner's.
fn http_transport(
    ctx: &mut Ctx,
    url: &str,
    args: &Args,
    client: Client,
) -> Result<Transport, CliError> {
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(CliError::Usage(format!(
            "--http {url}: give the server's http:// or https:// URL, e.g. http://127.0.0.1:7377/mcp"
        )));
    }
    let mints = ctx.config.serve_token.is_none() && args.project.is_some() && !is_loopback_url(url);
    if !args.scope.is_empty() && !mints {
        return Err(CliError::Usage(
            "--scope with --http sets the rights of a project file's own token (--project, a server off this machine, no KEEP_SERVE_TOKEN); here it would change nothing".into(),
        ));
    }
    if is_loopback_url(url) {
        return Ok(Transport::Http {
            url: url.to_string(),
            token: None,
        });
    }
    let token = match (&ctx.config.serve_token, &args.project) {
        (Some(token), _) => Some(token.clone()),
        (None, Some(project)) if tokens_reach_the_server(ctx) => {
            Some(project_token(ctx, args, client, project)?)
        }
        (None, Some(_)) => {
            ctx.out.warn(&format!(
                "wrote no token: no server of this store runs here, so a token made in it may not be one {url} knows; give the server's in KEEP_SERVE_TOKEN"
            ));
            return Ok(Transport::Http {
                url: url.to_string(),
                token: None,
            });
        }
        (None, None) => match &ctx.config.store {
            Some(store) => super::serve::stored_token(store)?,
            None => None,
        },
    };
    let token = token.ok_or_else(|| CliError::Hinted {
        message: format!("--http {url}: a server off this machine needs its token"),
        hint: "run 'keep serve --token' where the server runs and give it in KEEP_SERVE_TOKEN"
            .into(),
    })?;
    Ok(Transport::Http {
        url: url.to_string(),
        token: Some(token),
    })
}

/// Whether a token made in this store is one the server at an --http URL
/// knows: the store is a database the servers share, or a server of this
/// store runs here.
fn tokens_reach_the_server(ctx: &Ctx) -> bool {
    ctx.config.database.is_some()
        || ctx
            .config
            .store
            .as_deref()
            .and_then(super::warm::remote::health)
            .is_some_and(|h| h.is_ok())
}

/// A token of the project's own for `client`, named
/// `connect-CLIENT-PROJECT`, with write rights (and `--scope`): made
/// anew, or its secret rotated when it exists; said on stderr with how to
/// revoke it. Printing the entry (without --write) makes no token.
fn project_token(
    ctx: &mut Ctx,
    args: &Args,
    client: Client,
    project: &Path,
) -> Result<String, CliError> {
    let folder = std::path::absolute(project)?;
    let project_name: String = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = format!("connect-{}-{project_name}", client.name());
    if !args.write {
        ctx.out.warn(&format!(
            "a project file does not get the store's own token: --write makes the token '{name}' for it"
        ));
        return Ok("TOKEN".into());
    }
    let keeper = ctx.keeper()?;
    let exists = keeper.tokens()?.iter().any(|t| t.name == name);
    let secret = if exists {
        keeper.rotate_token(&name)?
    } else {
        keeper.add_token(
            &name,
            &keep_core::keeper::Rights {
                read_only: false,
                scope: args.scope.clone(),
                expires: None,
            },
        )?
    };
    let made = if exists {
        "gave a new secret to"
    } else {
        "made"
    };
    ctx.out.warn(&format!(
        "{made} the token '{name}' for this project file; 'keep token revoke {name}' revokes it"
    ));
    Ok(secret)
}

/// The file's text, or None when there is no file yet.
fn read_existing(file: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            CliError::Usage(format!(
                "{}: not UTF-8 text; left untouched",
                file.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(keep_core::error::Error::io(file, e).into()),
    }
}

fn outcome_name(merged: &Result<Merged, merge::Refused>) -> &'static str {
    match merged {
        Ok(m) => match m.outcome {
            Outcome::Added => "added",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "unchanged",
            Outcome::Removed => "removed",
        },
        Err(_) => "refused",
    }
}

/// The entry as the client's file would hold it, alone.
fn snippet(target: &Target, name: &str, entry: &Value) -> String {
    merge::merge(None, target, name, entry)
        .map(|m| m.text)
        .unwrap_or_default()
}

fn print_snippet(
    ctx: &mut Ctx,
    target: &Target,
    name: &str,
    entry: &Value,
    report: &ConnectJson,
) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(report)?,
        Format::Ids => ctx.out.line(&report.file)?,
        Format::Text => {
            let state = match report.outcome {
                "unchanged" => " (it already holds this entry)".to_string(),
                "updated" => format!(" (it holds another entry named {name})"),
                _ => String::new(),
            };
            ctx.out
                .note(&format!("for {}{state}:", target.file.display()));
            ctx.out
                .raw()
                .write_all(snippet(target, name, entry).as_bytes())?;
        }
    }
    Ok(())
}

fn say_written(
    ctx: &mut Ctx,
    client: Client,
    file: &Path,
    outcome: Outcome,
    report: &ConnectJson,
) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(report)?,
        Format::Ids => ctx.out.line(&report.file)?,
        Format::Text => {
            let done = if outcome == Outcome::Added {
                "added"
            } else {
                "updated"
            };
            let backup = report
                .backup
                .as_deref()
                .map_or(String::new(), |b| format!(" (the file before: {b})"));
            ctx.out.line(&format!(
                "{done} {} in {}{backup}; restart {} to load it",
                report.name,
                file.display(),
                client.title()
            ))?;
        }
    }
    Ok(())
}

fn say_unchanged(
    ctx: &mut Ctx,
    file: &Path,
    name: &str,
    report: &ConnectJson,
) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(report)?,
        Format::Ids => ctx.out.line(&report.file)?,
        Format::Text => ctx.out.line(&format!(
            "{} already holds this entry for {name}; nothing changed",
            file.display()
        ))?,
    }
    Ok(())
}

/// Writes the merged text in place of `file` (through a symbolic link to
/// the file it names), atomically, with the old file's permissions (a new
/// one holding a token only its owner may read); returns the backup,
/// written the same way beside it with the old file's mode, so a link
/// planted where the backup goes is replaced, never followed.
fn write_merged(file: &Path, merged: &Merged, secret: bool) -> Result<Option<PathBuf>, CliError> {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let io = |e| -> CliError { keep_core::error::Error::io(&real, e).into() };
    let dir = real.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let old_mode = std::fs::metadata(&real)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let backup = match old_mode {
        Some(mode) => {
            let backup = PathBuf::from(format!("{}.keep.bak", real.display()));
            let old = std::fs::read(&real).map_err(io)?;
            replace(&backup, &old, mode).map_err(io)?;
            Some(backup)
        }
        None => None,
    };
    // A file that holds a token is its owner's alone, whatever it was.
    let mode = if secret {
        0o600
    } else {
        old_mode.unwrap_or(0o644)
    };
    replace(&real, merged.text.as_bytes(), mode).map_err(io)?;
    Ok(backup)
}

/// Puts a file holding `bytes` with `mode` at `path`: written to a new
/// file beside it (made anew, never through a link) and renamed over
/// `path`, which replaces whatever was there (a link too) at once.
fn replace(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let partial = dir.join(format!(
        ".{}.keep-{}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&partial)?;
        out.write_all(bytes)?;
        out.set_permissions(std::fs::Permissions::from_mode(mode))?;
        out.sync_all()?;
        std::fs::rename(&partial, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

/// One line per client: its file and whether it has an entry named keep.
fn list(ctx: &mut Ctx, places: &Places) -> CliResult {
    #[derive(Serialize)]
    struct Row {
        client: &'static str,
        title: &'static str,
        file: String,
        project_file: Option<String>,
        has_keep: bool,
    }
    let rows: Vec<Row> = CLIENTS
        .iter()
        .map(|&client| {
            let file = client.user_file(Platform::current(), places);
            let has_keep = read_existing(&file)
                .ok()
                .flatten()
                .is_some_and(|text| holds_entry(client, &text, "keep"));
            Row {
                client: client.name(),
                title: client.title(),
                file: file.display().to_string(),
                project_file: client
                    .project_file(Path::new(""))
                    .map(|p| p.display().to_string()),
                has_keep,
            }
        })
        .collect();
    match ctx.format {
        Format::Json => ctx.out.json(&rows)?,
        Format::Ids => {
            for row in &rows {
                ctx.out.line(row.client)?;
            }
        }
        Format::Text => {
            for row in &rows {
                let project = row
                    .project_file
                    .as_deref()
                    .map_or(String::new(), |p| format!("  (project: {p})"));
                let mark = if row.has_keep { "keep" } else { "-" };
                ctx.out.line(&format!(
                    "{:<15} {:<5} {}{project}",
                    row.client, mark, row.file
                ))?;
            }
        }
    }
    Ok(Status::Success)
}

/// Whether a client's file text already names a server `name`.
fn holds_entry(client: Client, text: &str, name: &str) -> bool {
    let target = client.target(PathBuf::new());
    let probe = Value::Object(Default::default());
    merge::merge(Some(text), &target, name, &probe).is_ok_and(|m| m.outcome != Outcome::Added)
}
