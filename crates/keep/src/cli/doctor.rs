//! `keep doctor`: what is installed, where, and whether it works, with the
//! command that fixes each problem.

use std::path::Path;
use std::time::Instant;

use keep_core::Keeper;
use keep_core::models::{self, FileState, Kind};
use serde::Serialize;

use super::output::Format;
use super::{CliResult, Ctx, Status};

/// Check the runtime, the models, the store, a server, watched folders and
/// the config file.
///
/// Each line says what was checked, what was found and, for a problem, the
/// command that fixes it: the runtime and models are checked against their
/// pinned sha256 and the embedding model is loaded and run once; the store
/// is opened (on PostgreSQL, connected to), its schema version read and
/// its file checked (SQLite's quick check); vectors made by another model
/// and notes waiting for a vector are counted; in a large SQLite store,
/// each vector index (graph) with the rows changed since it was made, and
/// whether one is due; a word index written in more than 12 segments, due
/// a merge; failures of the session hooks logged in hooks.log. Exits 1
/// when something does not work; warnings (no OCR, a backlog, a hook that
/// failed) do not count.
#[derive(Debug, Default, clap::Args)]
pub struct Args {}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
struct Check {
    name: &'static str,
    outcome: Outcome,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

fn check(name: &'static str, outcome: Outcome, detail: String, fix: Option<&str>) -> Check {
    Check {
        name,
        outcome,
        detail,
        fix: fix.map(str::to_string),
    }
}

pub fn run(ctx: &mut Ctx, _args: Args) -> CliResult {
    let mut checks = vec![config(ctx)];
    checks.extend(components(ctx));
    match ctx.keeper() {
        Ok(_) => {
            let keeper = ctx.keeper()?;
            checks.push(embedding(keeper));
            checks.push(store(keeper));
            checks.extend(link(keeper));
            checks.extend(replicas(keeper));
            checks.push(secrets(keeper.store_dir()));
            checks.push(vector_index(keeper));
            checks.push(server(keeper.store_dir()));
            checks.push(watches(keeper));
            checks.extend(hooks(keeper.store_dir()));
        }
        Err(e) => checks.push(check(
            "store",
            Outcome::Fail,
            format!("cannot be opened: {e}"),
            Some("check --store / KEEP_STORE (a folder or a postgres:// URL) and that the server is reachable"),
        )),
    }
    let failed = checks.iter().any(|c| c.outcome == Outcome::Fail);
    match ctx.format {
        Format::Json => ctx.out.json(&checks)?,
        Format::Text | Format::Ids => {
            for c in &checks {
                let mark = match c.outcome {
                    Outcome::Ok => "ok  ",
                    Outcome::Warn => "warn",
                    Outcome::Fail => "FAIL",
                };
                ctx.out
                    .line(&format!("{mark}  {:<10} {}", c.name, c.detail))?;
                if let Some(fix) = &c.fix {
                    ctx.out.line(&format!("      {:<10} fix: {fix}", ""))?;
                }
            }
        }
    }
    Ok(if failed {
        Status::Failed(1)
    } else {
        Status::Success
    })
}

fn config(ctx: &Ctx) -> Check {
    let store = match (&ctx.config.database, &ctx.config.store) {
        (Some(url), _) => format!("PostgreSQL {}", keep_core::shown_url(url)),
        (None, Some(dir)) => dir.display().to_string(),
        (None, None) => "none".into(),
    };
    let data = ctx
        .config
        .data_dir
        .as_ref()
        .map_or("none".into(), |d| d.display().to_string());
    check(
        "config",
        Outcome::Ok,
        format!("store {store}; data {data}"),
        None,
    )
}

/// The runtime and OCR models, checked against their pins (the embedding
/// model is checked when it is loaded).
fn components(ctx: &Ctx) -> Vec<Check> {
    let Some(data) = &ctx.config.data_dir else {
        return vec![check(
            "models",
            Outcome::Fail,
            "no data directory on this system".into(),
            Some("set KEEP_DATA_DIR"),
        )];
    };
    let mut out = Vec::new();
    for component in models::COMPONENTS
        .iter()
        .filter(|c| c.kind != Kind::Embedding)
    {
        let name = match component.kind {
            Kind::Runtime => "runtime",
            _ => "ocr",
        };
        let fix = format!("keep models install {}", component.name);
        let found = match models::component_status(data, component, true) {
            Ok(s) => s,
            Err(e) => {
                out.push(check(name, Outcome::Fail, e.to_string(), Some(&fix)));
                continue;
            }
        };
        let outcome = match (found.installed, component.kind) {
            (true, _) => Outcome::Ok,
            (false, Kind::Ocr) if !found.damaged => Outcome::Warn,
            _ => Outcome::Fail,
        };
        let detail = if found.installed {
            format!(
                "{} in {} (sha256 verified)",
                component.name,
                found.dir.display()
            )
        } else {
            let bad: Vec<String> = found
                .files
                .iter()
                .filter(|f| f.state != FileState::Ok)
                .map(|f| {
                    let state = match f.state {
                        FileState::Missing => "missing",
                        _ => "not the pinned file",
                    };
                    format!("{} {state}", f.name)
                })
                .collect();
            format!("{}: {}", component.name, bad.join(", "))
        };
        let fix = (outcome != Outcome::Ok).then_some(fix.as_str());
        out.push(check(name, outcome, detail, fix));
    }
    out
}

/// Loads the configured embedding model and embeds one sentence.
fn embedding(keeper: &mut Keeper) -> Check {
    let dir = keeper
        .settings()
        .model
        .model_dir
        .clone()
        .unwrap_or_default();
    let started = Instant::now();
    let result = keeper
        .embedder()
        .and_then(|e| e.embed(&["keep doctor checks the embedding model"]));
    match result {
        Ok(vectors) => check(
            "model",
            Outcome::Ok,
            format!(
                "{} loads and embeds ({} dimensions, {:.0} ms)",
                dir.display(),
                vectors.first().map_or(0, Vec::len),
                started.elapsed().as_secs_f64() * 1000.0
            ),
            None,
        ),
        Err(e) => check(
            "model",
            Outcome::Fail,
            format!("{e}; recall works by keyword only"),
            Some("keep models install"),
        ),
    }
}

fn store(keeper: &mut Keeper) -> Check {
    let health = match keeper.health() {
        Ok(h) => h,
        Err(e) => {
            return check("store", Outcome::Fail, format!("cannot be read: {e}"), None);
        }
    };
    let notes = keeper.count(&Default::default()).unwrap_or(0);
    let waiting = keeper.pending_embeddings().unwrap_or(0);
    let mut detail = format!(
        "{} · schema {} of {} · {notes} note(s) · {waiting} waiting for a vector",
        keeper.store_path().display(),
        health.schema_version,
        health.known_version
    );
    if !health.problems.is_empty() {
        detail.push_str(&format!(" · {}", health.problems.join("; ")));
        return check("store", Outcome::Fail, detail, None);
    }
    let drainer = keeper
        .live_lease(keep_core::keeper::EMBED_LEASE, keep_core::keeper::wall_ms())
        .ok()
        .flatten();
    let model = keeper.vector_model().ok().flatten();
    let ours = keeper.model_id().ok();
    if let (Some(theirs), Some(ours)) = (&model, &ours)
        && theirs != ours
    {
        let to_go = keeper.model_switch_waiting().unwrap_or(0);
        detail.push_str(&format!(
            " · its vectors were made by {theirs}; {ours}, the model configured, is making its own ({to_go} row(s) to go) and find uses the old ones until then"
        ));
        let fix = drainer.is_none().then_some("keep reindex");
        return check("store", Outcome::Warn, detail, fix);
    }
    if let (true, Some(lease)) = (waiting > 0, &drainer) {
        detail.push_str(&format!(" · process {} is embedding them", lease.pid));
    }
    let outcome = if waiting > 0 {
        Outcome::Warn
    } else {
        Outcome::Ok
    };
    let fix = (waiting > 0 && drainer.is_none()).then_some("keep reindex");
    check("store", outcome, detail, fix)
}

/// Whether other users may read the store folder or the owner's token of
/// `keep serve` in it.
fn secrets(dir: &std::path::Path) -> Check {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).ok().map(|m| m.permissions().mode());
    let mut open = Vec::new();
    if mode(dir).is_some_and(|m| m & 0o077 != 0) {
        open.push(format!("{} (chmod 700)", dir.display()));
    }
    let token = dir.join("serve.token");
    if mode(&token).is_some_and(|m| m & 0o077 != 0) {
        open.push(format!("{} (chmod 600)", token.display()));
    }
    if open.is_empty() {
        return check(
            "secrets",
            Outcome::Ok,
            "the store folder and the server's token are the owner's alone".into(),
            None,
        );
    }
    check(
        "secrets",
        Outcome::Warn,
        format!("other users may read {}", open.join(" and ")),
        Some("chmod 700 the store folder; the notes and the owner's token are in it"),
    )
}

/// Each replica that takes reads: how far behind, or why reads skip it
/// (a warning: reads go on, to the primary or another replica).
fn replicas(keeper: &Keeper) -> Vec<Check> {
    keeper
        .replica_states()
        .into_iter()
        .map(|r| match &r.skipped {
            None => check(
                "replica",
                Outcome::Ok,
                format!(
                    "{} takes reads ({})",
                    r.server,
                    crate::render::text::replica_lag(r.lag_seconds)
                ),
                None,
            ),
            Some(why) => check(
                "replica",
                Outcome::Warn,
                format!("{} skipped: {why}", r.server),
                Some("reads go to the primary or another replica meanwhile; see Reads on replicas in docs/configuration.md"),
            ),
        })
        .collect()
}

/// What protects the link to a database server: encrypted (and how far the
/// server's certificate is checked) or not, and whether it leaves the machine.
fn link(keeper: &Keeper) -> Option<Check> {
    let link = keeper.database_link()?;
    let shown = keeper
        .settings()
        .database
        .as_deref()
        .map_or_else(String::new, keep_core::shown_url);
    let checked = match link.mode {
        "verify-full" => "the server's certificate and name checked",
        "verify-ca" => "the server's certificate checked, not its name",
        _ => "the server not authenticated",
    };
    Some(match (&link.encryption, link.warning(&shown)) {
        (Some(version), _) => check(
            "link",
            if matches!(link.mode, "verify-full" | "verify-ca") || link.local {
                Outcome::Ok
            } else {
                Outcome::Warn
            },
            format!("encrypted ({version}, sslmode={}: {checked})", link.mode),
            (!link.local && !matches!(link.mode, "verify-full" | "verify-ca"))
                .then_some("sslmode=verify-full with sslrootcert=CA.pem in the URL"),
        ),
        (None, Some(warning)) => check(
            "link",
            Outcome::Warn,
            warning,
            Some("sslmode=verify-full with sslrootcert=CA.pem in the URL"),
        ),
        (None, None) => check(
            "link",
            Outcome::Ok,
            format!("not encrypted, on this machine (sslmode={})", link.mode),
            None,
        ),
    })
}

/// How far another process's refresh of a graph stands, in words.
pub(crate) fn build_progress(build: &keep_core::GraphBuild) -> String {
    match build.kind {
        Some(kind) if build.total > 0 => format!(
            "{}: {} of {} rows, {}%",
            kind.name(),
            build.done,
            build.total,
            build.done * 100 / build.total
        ),
        Some(kind) => format!("{}: starting", kind.name()),
        None => "starting".into(),
    }
}

/// The graph indexes of a large SQLite store: which kinds have one, how
/// far behind each is, and whether one is due; and the word indexes
/// written in so many pieces that they are due a merge.
fn vector_index(keeper: &Keeper) -> Check {
    let graphs = match keeper.vector_graphs() {
        Ok(g) => g,
        Err(e) => return check("index", Outcome::Fail, e.to_string(), Some("keep repair")),
    };
    if keeper.settings().database.is_some() {
        return check(
            "index",
            Outcome::Ok,
            "PostgreSQL keeps HNSW indexes of the vectors".into(),
            None,
        );
    }
    let from = keeper.settings().vector_index_from;
    let mut parts: Vec<String> = graphs
        .iter()
        .filter_map(|g| match (g.rows, g.signs) {
            (Some(rows), _) => Some(format!(
                "{}: graph of {rows} vector(s), {} changed since",
                g.kind.name(),
                g.changed
            )),
            (None, Some(rows)) => Some(format!(
                "{}: signs of {rows} vector(s), {} changed since",
                g.kind.name(),
                g.changed
            )),
            (None, None) => None,
        })
        .collect();
    if parts.is_empty() {
        parts.push(format!(
            "exact search (an index starts at {from} vectors of a kind)"
        ));
    }
    let due: Vec<&str> = graphs
        .iter()
        .filter(|g| g.due)
        .map(|g| g.kind.name())
        .collect();
    let building = keeper.vector_graph_build().ok().flatten();
    if !due.is_empty() {
        parts.push(format!(
            "the index of {} is due{}",
            due.join(", "),
            match &building {
                Some(build) => format!(
                    " and being brought up to date by another process ({})",
                    build_progress(build)
                ),
                None => String::new(),
            }
        ));
    }
    let words_due = keeper.text_indexes_due().unwrap_or_default();
    for index in &words_due {
        parts.push(format!(
            "the word index of {} is due a merge ({} segments)",
            index.index, index.segments
        ));
    }
    if due.is_empty() && words_due.is_empty() {
        return check("index", Outcome::Ok, parts.join(" · "), None);
    }
    check(
        "index",
        Outcome::Warn,
        parts.join(" · "),
        (building.is_none() || !words_due.is_empty()).then_some("keep reindex"),
    )
}

fn server(store: &Path) -> Check {
    match super::serve::server_state(store) {
        Ok(Some(line)) => check("server", Outcome::Ok, line, None),
        Ok(None) => check(
            "server",
            Outcome::Ok,
            "none running for this store (commands open it themselves)".into(),
            None,
        ),
        Err(e) => check("server", Outcome::Warn, e.to_string(), None),
    }
}

fn watches(keeper: &Keeper) -> Check {
    let dirs = match keeper.watches() {
        Ok(d) => d,
        Err(e) => return check("watch", Outcome::Fail, e.to_string(), None),
    };
    if dirs.is_empty() {
        return check("watch", Outcome::Ok, "no folder registered".into(), None);
    }
    let gone: Vec<&str> = dirs
        .iter()
        .filter(|d| !Path::new(&d.dir).is_dir())
        .map(|d| d.dir.as_str())
        .collect();
    let holder = match keeper.lease(keep_core::keeper::WATCH_LEASE) {
        Ok(Some(lease)) => format!("watched by pid {}", lease.pid),
        _ => "no process watches them now ('keep watch' does)".into(),
    };
    if gone.is_empty() {
        check(
            "watch",
            Outcome::Ok,
            format!("{} folder(s); {holder}", dirs.len()),
            None,
        )
    } else {
        check(
            "watch",
            Outcome::Warn,
            format!(
                "{} folder(s); missing: {}; {holder}",
                dirs.len(),
                gone.join(", ")
            ),
            Some("keep watch --remove DIR, or bring the folder back"),
        )
    }
}

/// The session hooks' failures, when hooks.log holds any: how many, and
/// the last.
fn hooks(store: &Path) -> Option<Check> {
    let log = store.join(super::hook::LOG);
    let text = std::fs::read_to_string(&log).ok()?;
    let failures: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = failures.last()?;
    Some(check(
        "hooks",
        Outcome::Warn,
        format!(
            "{} failure(s) of a session hook in {}; the last: {last}",
            failures.len(),
            log.display()
        ),
        Some("fix what the last line names, then remove the log"),
    ))
}
