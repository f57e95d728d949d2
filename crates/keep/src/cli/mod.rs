//! The command line: argument definitions (one file per subcommand), the
//! shared context, and dispatch. Commands parse, call `Keeper`, render.

mod del;
pub mod docs;
mod export;
mod filter;
pub mod find;
mod get;
mod import;
mod list;
mod mcp;
mod mv;
mod now;
pub mod output;
mod put;
mod reindex;
mod revert;
mod tag;
mod ui;
mod watch;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use keep_core::{Error, Keeper};
use output::{Format, Out};

use crate::config::{Config, ConfigError, Environment};

/// Environment variable naming the store directory.
pub const STORE_ENV: &str = "KEEP_STORE";

/// keep: a local-first, reflective memory for people and agents.
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
    /// Store directory (holds keep.db) [default: the platform data directory + /keep]
    #[arg(long, global = true, value_name = "DIR", env = STORE_ENV)]
    pub store: Option<PathBuf>,

    /// Print one JSON document instead of text
    #[arg(long, global = true, conflicts_with = "ids_only")]
    pub json: bool,

    /// Print only ids, one per line (for xargs)
    #[arg(long = "ids", id = "ids_only", global = true)]
    pub ids_only: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Put(put::Args),
    Get(get::Args),
    List(list::Args),
    Find(find::Args),
    Tag(tag::Args),
    Del(del::Args),
    Revert(revert::Args),
    Now(now::Args),
    Move(mv::Args),
    Export(export::Args),
    Import(import::Args),
    Reindex(reindex::Args),
    Mcp(mcp::Args),
    Watch(watch::Args),
    Ui(ui::Args),
}

/// The clap definition, for completions and man pages.
pub fn command() -> clap::Command {
    Cli::command()
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
    pub fn record(&mut self, err: CliError) -> Result<(), CliError> {
        if err.is_broken_pipe() {
            return Err(err);
        }
        eprintln!("keep: {err}");
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

/// An error that ends the command.
#[derive(Debug)]
pub enum CliError {
    Core(Error),
    Io(io::Error),
    Usage(String),
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError::Core(e)
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
            _ => 2,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code())
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Core(e) => write!(f, "{e}"),
            CliError::Io(e) => write!(f, "{e}"),
            CliError::Usage(m) => write!(f, "{m}"),
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
}

impl Ctx {
    pub fn keeper(&mut self) -> Result<&mut Keeper, CliError> {
        if self.keeper.is_none() {
            self.keeper = Some(Keeper::open(self.config.settings()?)?);
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

pub fn run(cli: Cli) -> CliResult {
    let format = if cli.json {
        Format::Json
    } else if cli.ids_only {
        Format::Ids
    } else {
        Format::Text
    };
    let config = Config::resolve(cli.store, &Environment::capture())?;
    let mut ctx = Ctx {
        out: Out::stdout(config.no_color),
        config,
        keeper: None,
        format,
    };
    let status = match cli.command {
        None if ui::on_terminal() => ui::run(&mut ctx, ui::Args::default()),
        None => now::run(&mut ctx, now::Args::default()),
        Some(Command::Put(args)) => put::run(&mut ctx, args),
        Some(Command::Get(args)) => get::run(&mut ctx, args),
        Some(Command::List(args)) => list::run(&mut ctx, args),
        Some(Command::Find(args)) => find::run(&mut ctx, args),
        Some(Command::Tag(args)) => tag::run(&mut ctx, args),
        Some(Command::Del(args)) => del::run(&mut ctx, args),
        Some(Command::Revert(args)) => revert::run(&mut ctx, args),
        Some(Command::Now(args)) => now::run(&mut ctx, args),
        Some(Command::Move(args)) => mv::run(&mut ctx, args),
        Some(Command::Export(args)) => export::run(&mut ctx, args),
        Some(Command::Import(args)) => import::run(&mut ctx, args),
        Some(Command::Reindex(args)) => reindex::run(&mut ctx, args),
        Some(Command::Mcp(args)) => mcp::run(&mut ctx, args),
        Some(Command::Watch(args)) => watch::run(&mut ctx, args),
        Some(Command::Ui(args)) => ui::run(&mut ctx, args),
    }?;
    ctx.out.flush()?;
    Ok(status)
}
