//! The `keep` binary: parse arguments, run the command, report errors and
//! map them to exit codes (0 ok, 1 not found or partial failure, 2 usage or
//! fatal). A closed stdout (`keep list | head`) is not an error.

use std::process::ExitCode;

use keep::cli::{self, Status};
use keep::config::EXTRACT_COMMAND;
use keep::watch::drain::{self, DRAIN_COMMAND};

/// `keep __extract BYTES`: a child that extracts files for its parent
/// (see keep_core's isolated extraction); not a command for people.
fn run_as_extractor() -> Option<u8> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != EXTRACT_COMMAND {
        return None;
    }
    let limit = args.next().and_then(|a| a.to_str()?.parse().ok());
    let code = keep_core::serve_extraction_worker(limit);
    Some(u8::try_from(code).unwrap_or(1))
}

fn main() -> ExitCode {
    // What keep makes (the store, its index files, tokens, locks, backups,
    // models) is the user's alone, whatever umask it was started with.
    // SAFETY: umask takes a mode and returns the old one; no pointers.
    unsafe {
        libc::umask(0o077);
    }
    if let Some(code) = run_as_extractor() {
        return ExitCode::from(code);
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == DRAIN_COMMAND)
    {
        return ExitCode::from(drain::run_detached());
    }
    clap_complete::CompleteEnv::with_factory(cli::command).complete();
    let cli = cli::parse();
    keep::logging::init(cli.serves());
    match cli::run(cli) {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::Failed(code)) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keep: {e}");
            e.exit_code()
        }
    }
}
