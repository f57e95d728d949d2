//! The `keep` binary: parse arguments, run the command, report errors and
//! map them to exit codes (0 ok, 1 not found or partial failure, 2 usage or
//! fatal). A closed stdout (`keep list | head`) is not an error.

use std::process::ExitCode;

use keep::cli::{self, Status};

fn main() -> ExitCode {
    clap_complete::CompleteEnv::with_factory(cli::command).complete();
    let cli = cli::parse();
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
