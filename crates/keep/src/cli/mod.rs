//! The command line: argument definitions (one file per subcommand), the
//! shared context, and dispatch. Commands parse, call `Keeper`, render.

mod analyze;
mod backup;
mod check;
mod complete;
mod conflicts;
mod connect;
mod context;
mod del;
pub mod docs;
mod doctor;
mod export;
mod filter;
pub mod find;
mod get;
pub mod hook;
mod import;
pub mod input;
mod list;
mod log;
pub mod marks;
mod mcp;
mod models;
mod mv;
mod now;
pub mod output;
mod put;
mod rate;
mod reindex;
mod repair;
mod restore;
mod revert;
mod secrets;
mod serve;
mod stats;
mod supersede;
mod tag;
mod token;
mod ui;
pub mod warm;
mod watch;
mod why;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use keep_core::{Error, Keeper};
use output::{Format, Out};
pub use put::NOT_STORED;

use crate::config::{Config, ConfigError, Environment};

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// A local-first, reflective memory for people and agents.
///
/// Notes live in one SQLite database. Each note has an id, a summary, tags
/// (key=value; keys starting with '_' belong to keep), timestamps, an
/// automatic version history and optional parts. Address an archived
/// version with ID@V{N} (0 current, 1 previous, -1 oldest) and a part with
/// ID@P{N}.
///
/// With no command, keep opens the full-screen browser in a terminal and
/// prints the current 'now' note otherwise.
#[derive(Debug, Parser)]
#[command(name = "keep", version, max_term_width = 100)]
pub struct Cli {
    /// Store directory, holding keep.db, or a PostgreSQL URL (postgres://USER@HOST/DB) (or KEEP_STORE) [default: the platform data directory + /keep]
    #[arg(long, global = true, value_name = "DIR|URL", help_heading = GLOBAL)]
    pub store: Option<PathBuf>,

    /// Print one JSON document instead of text
    #[arg(long, global = true, conflicts_with = "ids_only", help_heading = GLOBAL)]
    pub json: bool,

    /// Print only ids, one per line (for xargs)
    #[arg(long = "ids", id = "ids_only", global = true, help_heading = GLOBAL)]
    pub ids_only: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The commands a running server answers for a client.
    #[command(flatten)]
    Delegated(Delegated),
    Reindex(reindex::Args),
    Analyze(analyze::Args),
    Check(check::Args),
    Repair(repair::Args),
    Backup(backup::Args),
    Models(models::Args),
    Doctor(doctor::Args),
    Mcp(mcp::Args),
    Connect(connect::Args),
    Hook(hook::Args),
    Serve(serve::Args),
    Token(token::Args),
    Watch(watch::Args),
    Ui(ui::Args),
}

/// Parses the process's arguments. For `put`, a `--` protects only the
/// argument right after it when options of `put` follow, so text that
/// starts with '-' keeps its options: `keep put -- "-text" --id X`.
/// A password in a database URL is then hidden from `ps`.
impl Cli {
    /// Whether this is `keep serve` running a server (not asking after
    /// one with `--status`).
    pub fn serves(&self) -> bool {
        matches!(&self.command, Some(Command::Serve(args)) if !args.status && !args.token)
    }
}

pub fn parse() -> Cli {
    let cli = Cli::parse_from(protect_text_after_double_dash(
        std::env::args_os().collect(),
    ));
    secrets::hide_passwords();
    cli
}

/// Moves the options that follow `put -- TEXT` before the `--`.
fn protect_text_after_double_dash(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(put) = subcommand_index(&args).filter(|&i| args[i] == "put") else {
        return args;
    };
    let Some(dash) = args[put..].iter().position(|a| a == "--").map(|i| put + i) else {
        return args;
    };
    let options = put_options();
    let trailing = dash + 2;
    let has_option = args.get(trailing..).is_some_and(|rest| {
        rest.iter().any(|a| {
            a.to_str().is_some_and(|a| {
                options
                    .iter()
                    .any(|o| a == o || a.starts_with(&format!("{o}=")))
            })
        })
    });
    if has_option {
        let rest: Vec<_> = args.drain(trailing..).collect();
        args.splice(dash..dash, rest);
    }
    args
}

/// The index of the subcommand: the first argument after the global
/// options (and the value of `--store`).
fn subcommand_index(args: &[std::ffi::OsString]) -> Option<usize> {
    let mut i = 1;
    while i < args.len() {
        match args[i].to_str() {
            Some("--store") => i += 2,
            Some(a) if a.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}

/// `--long` and `-s` forms of every option of `put`.
fn put_options() -> Vec<String> {
    let command = command();
    let Some(put) = command.find_subcommand("put") else {
        return Vec::new();
    };
    put.get_arguments()
        .flat_map(|a| {
            a.get_long()
                .map(|l| format!("--{l}"))
                .into_iter()
                .chain(a.get_short().map(|s| format!("-{s}")))
        })
        .collect()
}

impl Command {
    /// Whether the command may store text without its vector, or find
    /// that some waits (a server, the browser and the watcher drain the
    /// backlog themselves).
    fn may_leave_notes_waiting(&self) -> bool {
        matches!(
            self,
            Command::Delegated(
                Delegated::Put(_)
                    | Delegated::Tag(_)
                    | Delegated::Find(_)
                    | Delegated::Import(_)
                    | Delegated::Revert(_)
                    | Delegated::Restore(_)
                    | Delegated::Move(_)
                    | Delegated::Now(_)
            )
        )
    }

    /// The name of a command that cannot honour --json or --ids.
    fn without_output_formats(&self) -> Option<&'static str> {
        match self {
            Command::Ui(_) => Some("ui"),
            Command::Mcp(_) => Some("mcp"),
            Command::Hook(_) => Some("hook"),
            Command::Serve(args) if !args.status => Some("serve"),
            Command::Delegated(Delegated::Export(_)) => Some("export"),
            Command::Watch(args) if args.remove.is_some() => Some("watch --remove"),
            _ => None,
        }
    }
}

/// The clap definition, for completions and man pages, with the lists
/// that come from the code: the MCP tools, and which commands a running
/// server answers.
pub fn command() -> clap::Command {
    let tools = format!("Tools: {}.", docs::tool_names().join(", "));
    let answered = format!(
        "Commands a running server answers: {}. The others run in their own process: {}.",
        docs::delegated_commands().join(", "),
        docs::own_process_commands().join(", ")
    );
    Cli::command()
        .mut_subcommand("mcp", |c| c.after_long_help(tools.clone()))
        .mut_subcommand("serve", |c| {
            c.after_long_help(format!("{tools}\n\n{answered}"))
        })
}

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Success,
    /// Some arguments failed (already reported on stderr); exit with this code.
    Failed(u8),
}

/// Collects per-argument failures of commands that take several ids: each
/// is reported at once, and the exit code is the worst one seen.
#[derive(Debug, Default)]
pub struct Failures {
    code: u8,
}

impl Failures {
    /// Reports `err`, unless stdout is gone, which ends the command.
    pub fn record(&mut self, out: &mut Out, err: CliError) -> Result<(), CliError> {
        if err.is_broken_pipe() {
            return Err(err);
        }
        out.warn(&err.to_string());
        out.failed(err.kind());
        self.code = self.code.max(err.code());
        Ok(())
    }

    pub fn status(&self) -> Status {
        match self.code {
            0 => Status::Success,
            code => Status::Failed(code),
        }
    }
}

/// Runs `one` on each of `ids`: each outcome is printed as it comes
/// (`print`), each failure as a line of its own; with `--json` the
/// outcomes follow as one array. The status is the worst failure's.
pub fn for_each_id<T: serde::Serialize>(
    ctx: &mut Ctx,
    ids: &[String],
    mut one: impl FnMut(&mut Ctx, &str) -> Result<T, CliError>,
    print: impl Fn(&mut Ctx, &T) -> Result<(), CliError>,
) -> CliResult {
    let mut failures = Failures::default();
    let mut outcomes = Vec::new();
    for id in ids {
        match one(ctx, id) {
            Ok(outcome) => {
                print(ctx, &outcome)?;
                outcomes.push(outcome);
            }
            Err(e) => failures.record(&mut ctx.out, e)?,
        }
    }
    if ctx.format == Format::Json {
        ctx.out.json(&outcomes)?;
    }
    Ok(failures.status())
}

/// An error that ends the command.
#[derive(Debug)]
pub enum CliError {
    Core(Error),
    Io(io::Error),
    Usage(String),
    /// Another process holds what this command needs (exit 1).
    Busy(String),
    /// A usage error with a second line saying what to do instead.
    Hinted {
        message: String,
        hint: String,
    },
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError::Core(e)
    }
}

impl From<keep_core::model::Invalid> for CliError {
    fn from(e: keep_core::model::Invalid) -> Self {
        CliError::Core(e.into())
    }
}

impl From<ConfigError> for CliError {
    fn from(e: ConfigError) -> Self {
        CliError::Usage(e.0)
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError::Io(e)
    }
}

impl CliError {
    /// True when stdout was closed by the reader (`keep list | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    /// 1 when something was not found, 2 for usage and fatal errors.
    pub fn code(&self) -> u8 {
        match self {
            CliError::Core(e) if e.is_not_found() => 1,
            CliError::Busy(_) => 1,
            _ => 2,
        }
    }

    /// Whose fault it is, as the core sorts its own errors.
    pub fn kind(&self) -> keep_core::Kind {
        match self {
            CliError::Core(e) => e.kind(),
            CliError::Usage(_) | CliError::Hinted { .. } => keep_core::Kind::BadInput,
            CliError::Busy(_) => keep_core::Kind::Unavailable,
            CliError::Io(_) => keep_core::Kind::Failed,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code())
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Core(e) => match e.advice() {
                Some(advice) => write!(f, "{e}; {}", crate::render::advice::for_terminal(&advice)),
                None => write!(f, "{e}"),
            },
            CliError::Io(e) => write!(f, "{e}"),
            CliError::Usage(m) | CliError::Busy(m) => write!(f, "{m}"),
            CliError::Hinted { message, hint } => write!(f, "{message}\nhint: {hint}"),
        }
    }
}

pub type CliResult = Result<Status, CliError>;

/// What every command gets: the resolved configuration, how to print,
/// and the keeper, opened on first use.
pub struct Ctx {
    pub config: Config,
    keeper: Option<Keeper>,
    pub format: Format,
    pub out: Out,
    pub stdin: input::Stdin,
}

impl Ctx {
    /// A context for a command of the command line (writes are logged as
    /// `cli`'s).
    pub fn new(
        config: Config,
        mut keeper: Option<Keeper>,
        format: Format,
        out: Out,
        stdin: input::Stdin,
    ) -> Self {
        if let Some(keeper) = &mut keeper {
            keeper.set_agent(CLI_AGENT);
        }
        Ctx {
            config,
            keeper,
            format,
            out,
            stdin,
        }
    }

    /// The keeper, when one was opened.
    pub fn into_keeper(self) -> Option<Keeper> {
        self.keeper
    }

    /// Runs one of the typed commands on the keeper.
    pub fn run<C: keep_commands::Command>(&mut self, command: C) -> Result<C::Output, CliError> {
        let keeper = self.keeper()?;
        Ok(keep_commands::run(command, keeper)?)
    }

    pub fn keeper(&mut self) -> Result<&mut Keeper, CliError> {
        if self.keeper.is_none() {
            let mut keeper = Keeper::open(self.config.settings()?)?;
            keeper.set_agent(CLI_AGENT);
            marks::adopt(&keeper);
            if let (Some(link), Some(url)) = (keeper.database_link(), &self.config.database)
                && let Some(warning) = link.warning(&keep_core::shown_url(url))
            {
                self.out.warn(&warning);
            }
            self.keeper = Some(keeper);
        }
        Ok(self.keeper.as_mut().expect("opened above"))
    }

    /// The keeper, for a command that hands it to a long-running server.
    pub fn take_keeper(&mut self) -> Result<Keeper, CliError> {
        self.keeper()?;
        Ok(self.keeper.take().expect("opened above"))
    }

    /// The keeper and the output at once, for commands that stream.
    pub fn keeper_and_out(&mut self) -> Result<(&mut Keeper, &mut Out), CliError> {
        self.keeper()?;
        Ok((self.keeper.as_mut().expect("opened above"), &mut self.out))
    }
}

/// The value given under an option's old name, after telling the user its
/// new name: `--scope` meant three things, and now names only the tag
/// confinement of `keep mcp` and `keep serve`.
fn renamed(ctx: &mut Ctx, old: &str, new: &str, value: &Option<String>) -> Option<String> {
    let value = value.clone()?;
    ctx.out.warn(&format!(
        "{old} is now {new}; the old name goes in keep 0.2.0"
    ));
    Some(value)
}

pub(crate) use crate::render::text::shell_quote;

/// Who the operations log names for a command of the command line.
pub const CLI_AGENT: &str = "cli";

/// The output form the global options ask for.
fn format_of(cli: &Cli) -> Format {
    if cli.json {
        Format::Json
    } else if cli.ids_only {
        Format::Ids
    } else {
        Format::Text
    }
}

pub fn run(cli: Cli) -> CliResult {
    let format = format_of(&cli);
    let config = Config::resolve(cli.store.clone(), &Environment::capture())?;
    let mut ctx = Ctx::new(
        config.clone(),
        None,
        format,
        Out::stdout(config.no_color),
        input::Stdin::process(),
    );
    if format != Format::Text
        && let Some(name) = cli
            .command
            .as_ref()
            .and_then(Command::without_output_formats)
    {
        return Err(CliError::Usage(format!(
            "'keep {name}' has one output form: --json and --ids do not apply to it"
        )));
    }
    let command = match cli.command {
        Some(command) => match warm::remote::offer(&mut ctx, command) {
            warm::remote::Offered::Answered(result) => return result,
            warm::remote::Offered::Alone(command) => Some(*command),
        },
        None => None,
    };
    let may_leave_backlog = command
        .as_ref()
        .is_some_and(Command::may_leave_notes_waiting);
    let status = dispatch(&mut ctx, command);
    if let Some(keeper) = &ctx.keeper {
        marks::record(keeper);
    }
    let status = status?;
    ctx.out.flush()?;
    if may_leave_backlog && let Some(keeper) = &ctx.keeper {
        crate::watch::drain::start_if_waiting(keeper, &ctx.config);
    }
    Ok(status)
}

/// The commands a running server answers for a client, as they travel.
#[derive(Debug, Subcommand, serde::Serialize, serde::Deserialize)]
pub enum Delegated {
    Put(put::Args),
    Get(get::Args),
    List(list::Args),
    Find(find::Args),
    Tag(tag::Args),
    Del(del::Args),
    Restore(restore::Args),
    Log(log::Args),
    Stats(stats::Args),
    Revert(revert::Args),
    Rate(rate::Args),
    Supersede(supersede::Args),
    Conflicts(conflicts::Args),
    Context(context::Args),
    Now(now::Args),
    Move(mv::Args),
    Export(export::Args),
    Import(import::Args),
    Why(why::Args),
}

impl Delegated {
    /// The command as a server would run it, or the command back when no
    /// server runs it (it needs this process: a terminal, the watcher, a
    /// server of its own, maintenance of the store's files).
    pub fn take(command: Command) -> Result<Delegated, Box<Command>> {
        match command {
            Command::Delegated(delegated) => Ok(delegated),
            other => Err(Box::new(other)),
        }
    }

    /// Whether the command reads standard input.
    pub fn reads_stdin(&self, stdin_is_terminal: bool) -> bool {
        match self {
            Delegated::Put(a) => a.reads_stdin(stdin_is_terminal),
            Delegated::Now(a) => a.text.as_deref() == Some("-"),
            Delegated::Import(a) => a.file.as_os_str() == "-",
            _ => false,
        }
    }
}

impl From<Delegated> for Command {
    fn from(d: Delegated) -> Command {
        Command::Delegated(d)
    }
}

/// Runs one of the commands a server may answer, in `ctx`.
fn run_delegated(ctx: &mut Ctx, command: Delegated) -> CliResult {
    match command {
        Delegated::Put(args) => put::run(ctx, args),
        Delegated::Get(args) => get::run(ctx, args),
        Delegated::List(args) => list::run(ctx, args),
        Delegated::Find(args) => find::run(ctx, args),
        Delegated::Tag(args) => tag::run(ctx, args),
        Delegated::Del(args) => del::run(ctx, args),
        Delegated::Restore(args) => restore::run(ctx, args),
        Delegated::Log(args) => log::run(ctx, args),
        Delegated::Stats(args) => stats::run(ctx, args),
        Delegated::Revert(args) => revert::run(ctx, args),
        Delegated::Rate(args) => rate::run(ctx, args),
        Delegated::Supersede(args) => supersede::run(ctx, args),
        Delegated::Conflicts(args) => conflicts::run(ctx, args),
        Delegated::Context(args) => context::run(ctx, args),
        Delegated::Now(args) => now::run(ctx, args),
        Delegated::Move(args) => mv::run(ctx, args),
        Delegated::Export(args) => export::run(ctx, args),
        Delegated::Import(args) => import::run(ctx, args),
        Delegated::Why(args) => why::run(ctx, args),
    }
}

/// Runs one command in `ctx`.
pub(crate) fn dispatch(ctx: &mut Ctx, command: Option<Command>) -> CliResult {
    match command {
        None if ui::on_terminal() => ui::run(ctx, ui::Args::default()),
        None => now::run(ctx, now::Args::default()),
        Some(Command::Delegated(command)) => run_delegated(ctx, command),
        Some(Command::Reindex(args)) => reindex::run(ctx, args),
        Some(Command::Analyze(args)) => analyze::run(ctx, args),
        Some(Command::Check(args)) => check::run(ctx, args),
        Some(Command::Repair(args)) => repair::run(ctx, args),
        Some(Command::Backup(args)) => backup::run(ctx, args),
        Some(Command::Models(args)) => models::run(ctx, args),
        Some(Command::Token(args)) => token::run(ctx, args),
        Some(Command::Doctor(args)) => doctor::run(ctx, args),
        Some(Command::Mcp(args)) => mcp::run(ctx, args),
        Some(Command::Connect(args)) => connect::run(ctx, args),
        Some(Command::Hook(args)) => hook::run(ctx, args),
        Some(Command::Serve(args)) => serve::run(ctx, args),
        Some(Command::Watch(args)) => watch::run(ctx, args),
        Some(Command::Ui(args)) => ui::run(ctx, args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<std::ffi::OsString> {
        list.iter().map(Into::into).collect()
    }

    #[test]
    fn options_after_put_double_dash_text_are_moved_before_it() {
        assert_eq!(
            protect_text_after_double_dash(args(&["keep", "put", "--", "-text", "--id", "X"])),
            args(&["keep", "put", "--id", "X", "--", "-text"])
        );
        assert_eq!(
            protect_text_after_double_dash(args(&["keep", "--json", "put", "--", "-t", "-t=a=b"])),
            args(&["keep", "--json", "put", "-t=a=b", "--", "-t"])
        );
        for unchanged in [
            &["keep", "put", "--", "-a.txt", "-b.txt"][..],
            &["keep", "get", "--", "-x", "--id"],
            &["keep", "--store", "put", "put", "--", "x"],
        ] {
            assert_eq!(
                protect_text_after_double_dash(args(unchanged)),
                args(unchanged)
            );
        }
    }
}
