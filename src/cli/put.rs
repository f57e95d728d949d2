//! `keep put`: store text, standard input or a file.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use serde_json::json;

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status};
use crate::keeper::{PutOptions, WriteOutcome};
use crate::note::Tags;

/// Store text, standard input or a text file as a note.
///
/// TEXT is stored under the id %<first 12 hex digits of its sha256>, '-' (or
/// no argument with piped input) reads standard input, and the path of an
/// existing file (or a file:// URI) stores that UTF-8 text or Markdown file
/// under file:///ABSOLUTE/PATH.
///
/// Putting the same content again with new tags makes a new version of the
/// same note; putting it unchanged changes nothing. Tags are added to the
/// note's existing tags. Prints the note's id.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Text to store, '-' for standard input, or a file path
    pub input: Option<String>,

    /// Store under this id instead of the one derived from the content
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,

    /// Add a tag (repeatable)
    #[arg(short = 't', long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,

    /// Use this summary instead of one made from the content
    #[arg(long, value_name = "TEXT")]
    pub summary: Option<String>,
}

enum Input {
    Text(String),
    File(PathBuf),
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let opts = PutOptions {
        id: args.id.clone(),
        tags: parse_tags(&args.tags)?,
        summary: args.summary.clone(),
    };
    let input = read_input(args.input.as_deref())?;
    let keeper = ctx.keeper()?;
    let outcome = match input {
        Input::Text(text) => keeper.put_text(&text, "inline", opts)?,
        Input::File(path) => keeper.put_file(&path, opts)?,
    };
    print_outcome(ctx, &outcome)?;
    Ok(Status::Success)
}

pub fn parse_tags(args: &[String]) -> Result<Tags, CliError> {
    Ok(crate::note::parse_user_tags(args)?)
}

fn read_input(arg: Option<&str>) -> Result<Input, CliError> {
    match arg {
        None if std::io::stdin().is_terminal() => Err(CliError::Usage(
            "nothing to put: give TEXT, a file, or '-' to read standard input".into(),
        )),
        None | Some("-") => read_stdin().map(Input::Text),
        Some(uri) if uri.starts_with("file://") => Ok(Input::File(path_of_file_uri(uri)?)),
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            Err(CliError::Usage(format!(
                "'{url}': fetching URLs is not supported by this version of keep"
            )))
        }
        Some(text) => {
            let path = std::path::Path::new(text);
            if !text.contains('\n') && path.is_dir() {
                Err(CliError::Usage(format!(
                    "'{text}' is a directory: give a file or text"
                )))
            } else if !text.contains('\n') && path.is_file() {
                Ok(Input::File(path.to_path_buf()))
            } else {
                Ok(Input::Text(text.to_string()))
            }
        }
    }
}

/// Reads standard input whole; it must be UTF-8.
pub fn read_stdin() -> Result<String, CliError> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::Usage(format!(
            "standard input is not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn path_of_file_uri(uri: &str) -> Result<PathBuf, CliError> {
    let path = crate::note::percent_decode(&uri["file://".len()..])
        .ok_or_else(|| CliError::Usage(format!("'{uri}' is not a valid file URI")))?;
    if !path.starts_with('/') {
        return Err(CliError::Usage(format!(
            "'{uri}' is not a valid file URI: expected file:///absolute/path"
        )));
    }
    Ok(PathBuf::from(path))
}

pub fn print_outcome(ctx: &mut Ctx, outcome: &WriteOutcome) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(&json!(outcome))?,
        Format::Text | Format::Ids => ctx.out.line(&outcome.id)?,
    }
    Ok(())
}
