//! `keep serve`: one resident process per store serving MCP over
//! Streamable HTTP, with the folder watcher; its lock, its status file and
//! its token live in the store folder.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{CliError, CliResult, Ctx, Status};
use crate::cli::output::Format;
use crate::mcp::rights::Caller;
use crate::server::auth::{Auth, Lookup};
use crate::server::http::{ENDPOINT, HttpOptions, Sessions};
use crate::server::lock::{Holder, Lock, holder};
use crate::server::{Health, Warm};

/// Serve the store to many MCP clients, scripts and commands at once.
///
/// One process per store: MCP over Streamable HTTP at http://ADDR/mcp for
/// any number of sessions (the same tools, resources and prompt as keep
/// mcp), a JSON API beside it (/v1/find, /v1/notes, /v1/notes/ID and its
/// tags, rate, supersede, trash and restore, /v1/log, /v1/stats,
/// /v1/conflicts; described at /openapi.json), a web page at http://ADDR/
/// for people (find, read, act, the log, stats, conflicts, a note's
/// graph; under the same tokens, with a sign-in form where one is
/// needed), /health, the folder watcher and the embedding backlog in the
/// background. It listens on
/// 127.0.0.1:7377 unless --listen says otherwise. On a loopback address
/// only loopback Host and Origin headers are accepted (a web page cannot
/// reach it), and a request without a token is served as the owner's only
/// when it comes from this user (the kernel names the user of a loopback
/// client's socket) and not through a proxy (Forwarded, X-Forwarded-For);
/// any other account on the machine needs a token. On any other address
/// every request must carry the store's token (Authorization: Bearer
/// TOKEN; see --token). With --tls-cert and
/// --tls-key it speaks HTTPS only (a renewed certificate is served from the
/// next connection on); on an address other machines can reach, give them,
/// or the token and the notes cross the network readable. SIGTERM or
/// Ctrl-C stops it after the requests in flight.
///
/// While it runs, the commands listed below are sent to it over a socket
/// in the store folder, with their working folder and standard input, and
/// print what they would print alone; they work alone when no server
/// answers.
/// On PostgreSQL a lost database is tried again with backoff; give its
/// password in PGPASSWORD, ~/.pgpass or KEEP_PASSWORD_FILE (one given in
/// --store is hidden from ps once read).
///
/// A second keep serve on the same store says which process serves it and
/// exits 1. keep serve --status asks the running one how it is.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address to listen on (port 0: any free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7377")]
    pub listen: SocketAddr,

    /// Let put_file read files under DIR (repeatable)
    #[arg(long = "allow", value_name = "DIR")]
    pub allow: Vec<PathBuf>,

    /// Let put_file read hidden files and folders (names starting with '.') under the folders allowed
    #[arg(long, requires = "allow")]
    pub allow_hidden: bool,

    /// Confine every tool to notes tagged KEY=VALUE, and tag every note written with it (repeatable)
    #[arg(long = "scope", value_name = "KEY=VALUE")]
    pub scope: Vec<String>,

    /// Which tools MCP clients are shown: core (the tools of every session, compact) or all (every tool, with output schemas)
    #[arg(long, value_enum, value_name = "SET", default_value = "core")]
    pub tools: crate::mcp::ToolSet,

    /// Ask for a token on a loopback address too (without it, a request with no token from this user on this machine is the owner's)
    #[arg(long)]
    pub require_token: bool,

    /// Print the store's token (made on first use, kept with mode 0600) and exit
    #[arg(long, conflicts_with = "status")]
    pub token: bool,

    /// Ask the store's server how it is: store reachable, model, backlog, uptime (exit 1 when none answers or the store is unreachable)
    #[arg(long)]
    pub status: bool,

    /// Serve HTTPS with this certificate chain (PEM; read again when it changes)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Close an MCP session after SECONDS without a request
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub session_timeout: u64,
}

const STATUS_FILE: &str = "serve.json";
const TOKEN_FILE: &str = "serve.token";

/// What a running server writes for `--status` and for a second server.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Running {
    pid: u32,
    url: String,
    version: String,
    started: String,
}

pub fn run(ctx: &mut Ctx, args: Args) -> CliResult {
    // The store's folder, without opening the store: --status must answer
    // while its database is down.
    let store = ctx.config.settings()?.store;
    std::fs::create_dir_all(&store).map_err(|e| keep_core::Error::io(&store, e))?;
    if args.token {
        ctx.out.line(&token(&store)?)?;
        return Ok(Status::Success);
    }
    if args.status {
        return status(ctx, &store);
    }
    let mut server_ctx = super::mcp::context(&args.allow, &args.scope)?;
    server_ctx.allow_hidden = args.allow_hidden;
    server_ctx.tools = args.tools;
    if super::secrets::some_were_hidden() {
        ctx.out.warn(
            "the password in --store is hidden from ps now, but every user of this machine could read it while keep started, and your shell keeps it; give it in PGPASSWORD, ~/.pgpass or KEEP_PASSWORD_FILE instead",
        );
    }
    crate::mcp::idle::use_few_heaps();
    let lock = match Lock::take(&store)? {
        Some(lock) => lock,
        None => return Err(CliError::Busy(already_running(&store)?)),
    };
    let owner_token = token(&store)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            Some(crate::server::tls::server_config(cert, key).map_err(CliError::Usage)?)
        }
        _ => None,
    };
    if let Some(key) = &args.tls_key
        && others_may_read(key)
    {
        ctx.out.warn(&format!(
            "--tls-key {}: other users of this machine may read it; chmod 600 it",
            key.display()
        ));
    }
    let listener = std::net::TcpListener::bind(args.listen)
        .map_err(|e| CliError::Usage(format!("cannot listen on {}: {e}", args.listen)))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://{bound}{ENDPOINT}");
    if tls.is_none() && !bound.ip().is_loopback() {
        ctx.out.warn(&format!(
            "{bound} is reachable from other machines and this server speaks plain HTTP: the token and the notes cross the network readable; give --tls-cert and --tls-key"
        ));
    }
    let mut keeper = ctx.take_keeper()?;
    if keeper.settings().database.is_some() {
        // Every server on the database accepts this machine's owner token.
        keeper.share_owner_token(&owner_token, &server_place(&store))?;
    }
    let _background = crate::watch::spawn_background(keeper.settings().clone());
    let running = Running {
        pid: std::process::id(),
        url: url.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        started: keeper.now().to_string(),
    };
    let sessions = Arc::new(Sessions::default());
    let model = keeper.share_model();
    let warm = Arc::new(Warm::new(
        ctx.config.clone(),
        model.clone(),
        Arc::clone(&sessions),
        url.clone(),
        running.started.clone(),
    ));
    let _socket = super::warm::socket::serve(&store, Arc::clone(&warm))?;
    let database = keeper.settings().database.clone();
    drop(keeper);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Caught from here on: a signal sent as soon as the line below is read
    // stops the server as any other does.
    let signals = {
        let _inside = runtime.enter();
        StopSignals::install()?
    };
    let trust_tokenless = bound.ip().is_loopback() && !args.require_token;
    write_status(&store, &running)?;
    let base = url.trim_end_matches("/mcp");
    eprintln!(
        "keep: serving MCP at {url} for {}; the web page at {base}/ and the JSON API at {base}/v1/{}",
        store.display(),
        if trust_tokenless {
            ""
        } else {
            " (bearer token required: keep serve --token, or keep token add)"
        }
    );
    let stop = CancellationToken::new();
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        tokio::spawn(signals.cancel(stop.clone()));
        let options = HttpOptions {
            listen: bound,
            session_idle: std::time::Duration::from_secs(args.session_timeout.max(1)),
            auth: Auth::new(
                owner_token,
                trust_tokenless,
                token_lookup(Arc::clone(&warm)),
            ),
            routes: Arc::new(crate::server::routes::Api {
                warm: Arc::clone(&warm),
                scope: server_ctx.scope.clone(),
            }),
            ctx: server_ctx,
            lender: warm,
            tls,
        };
        crate::server::http::serve(
            store.clone(),
            database,
            model,
            listener,
            options,
            sessions,
            stop,
        )
        .await
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    // A stale status file is taken for a stopped server: its pid is not alive.
    let _ = std::fs::remove_file(store.join(STATUS_FILE));
    drop(lock);
    result?;
    eprintln!("keep: stopped serving {url}");
    Ok(Status::Success)
}

/// Where this server runs, for its owner token's name on a shared
/// database: the machine's name and a short hash of its local folder, so
/// that each machine's (and each local folder's) owner token has one row,
/// replaced when that token is.
fn server_place(store: &Path) -> String {
    use sha2::{Digest, Sha256};
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    let folder = Sha256::digest(store.as_os_str().as_encoded_bytes());
    format!(
        "{host}-{:02x}{:02x}{:02x}{:02x}",
        folder[0], folder[1], folder[2], folder[3]
    )
}

/// Whether users other than the owner may read `file`.
fn others_may_read(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
}

/// Finds the caller a token made with `keep token add` stands for.
fn token_lookup(warm: Arc<Warm>) -> Lookup {
    Arc::new(move |secret: &str| {
        let mut lent = warm.lend().map_err(|e| e.to_string())?;
        let token = lent.keeper().token_for(secret).map_err(|e| e.to_string())?;
        Ok(token.map(|t| {
            let mut scope = keep_core::model::Tags::default();
            for pair in &t.rights.scope {
                if let Some((key, value)) = pair.split_once('=') {
                    scope.insert(key, value);
                }
            }
            Caller {
                token: Some(t.name),
                read_only: t.rights.read_only,
                scope,
            }
        }))
    })
}

/// SIGTERM, SIGINT and SIGHUP, caught from the moment they are installed.
struct StopSignals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Installs the handlers; inside a runtime.
    fn install() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(StopSignals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Cancels `stop` on the first of them.
    async fn cancel(mut self, stop: CancellationToken) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
            _ = self.hup.recv() => {}
        }
        stop.cancel();
    }
}

fn write_status(store: &Path, running: &Running) -> std::io::Result<()> {
    let path = store.join(STATUS_FILE);
    let aside = store.join(format!("{STATUS_FILE}.{}", std::process::id()));
    std::fs::write(&aside, serde_json::to_vec_pretty(running)?)?;
    std::fs::rename(aside, path)
}

fn read_status(store: &Path) -> Option<Running> {
    let text = std::fs::read(store.join(STATUS_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

fn already_running(store: &Path) -> Result<String, CliError> {
    let served = format!("a server already serves {}", store.display());
    Ok(match (read_status(store), holder(store)?) {
        (Some(r), _) => format!("{served}: pid {} at {}", r.pid, r.url),
        (None, Holder::Process(Some(pid))) => {
            format!("{served}: pid {pid} holds its lock (it has written no status yet)")
        }
        (None, _) => format!(
            "{served}: another process holds {}",
            store.join("serve.lock").display()
        ),
    })
}

/// One line on the server that holds `store`, or None when none does.
pub(crate) fn server_state(store: &Path) -> Result<Option<String>, CliError> {
    let pid = match holder(store)? {
        Holder::Nobody => return Ok(None),
        Holder::Process(pid) => pid,
    };
    Ok(Some(match (read_status(store), pid) {
        (Some(r), _) => format!(
            "serving {} · pid {} · version {} · since {}",
            r.url, r.pid, r.version, r.started
        ),
        (None, Some(pid)) => format!("pid {pid} holds this store's server lock (no status yet)"),
        (None, None) => "a server holds this store (its status file is missing)".into(),
    }))
}

fn status(ctx: &mut Ctx, store: &Path) -> CliResult {
    let holds = holder(store)?;
    let held = holds != Holder::Nobody;
    let asked = if held {
        super::warm::remote::health(store)
    } else {
        None
    };
    let running = read_status(store);
    let pid = match (&running, &holds) {
        (Some(r), _) => Some(r.pid),
        (None, Holder::Process(pid)) => *pid,
        (None, Holder::Nobody) => None,
    };
    match ctx.format {
        Format::Json => {
            let value = match &asked {
                Some(Ok(health)) => serde_json::to_value(health).map_err(std::io::Error::other)?,
                Some(Err(why)) => serde_json::json!({
                    "status": "not answering",
                    "error": why,
                    "pid": pid,
                    "url": running.as_ref().map(|r| r.url.clone()),
                }),
                None if held => serde_json::json!({
                    "status": "not answering",
                    "error": "its socket is missing",
                    "pid": pid,
                }),
                None => serde_json::json!({
                    "status": "not running",
                    "backlog": ctx.keeper()?.pending_embeddings()?,
                }),
            };
            ctx.out.json(&value)?;
        }
        Format::Text | Format::Ids => {
            let line = match &asked {
                Some(Ok(health)) => health_line(health),
                Some(Err(why)) => format!(
                    "a server holds this store{} but does not answer: {why}",
                    pid.map_or(String::new(), |pid| format!(" (pid {pid})"))
                ),
                None if held => format!(
                    "a server holds this store{} but its socket is missing",
                    pid.map_or(String::new(), |pid| format!(" (pid {pid})"))
                ),
                None => format!(
                    "no server for {} · {} waiting for embedding",
                    store.display(),
                    ctx.keeper()?.pending_embeddings()?
                ),
            };
            ctx.out.line(&line)?;
        }
    }
    Ok(match &asked {
        Some(Ok(health)) if health.status != "unavailable" => Status::Success,
        _ => Status::Failed(1),
    })
}

/// `keep serve --status` in one line.
fn health_line(h: &Health) -> String {
    let store = if h.store.reachable {
        format!("store {} reachable", h.store.location)
    } else {
        format!(
            "store {} UNREACHABLE: {}",
            h.store.location,
            h.store.error.as_deref().unwrap_or("")
        )
    };
    let name = h.model.name.as_deref().unwrap_or("");
    let model = match (&h.model.id, &h.model.error) {
        (_, Some(why)) => format!("model {name} failed: {why}"),
        (Some(id), None) => format!("model {name} loaded (space {id})"),
        (None, None) => format!("model {name} not loaded yet"),
    };
    let mut backlog = h
        .backlog
        .map_or(String::new(), |n| format!(" · {n} waiting for embedding"));
    if let Some(build) = &h.index_build {
        backlog.push_str(&format!(
            " · vector index of {} being built: {} of {} rows",
            build.kind.as_deref().unwrap_or("vectors"),
            build.done,
            build.total
        ));
    }
    for r in &h.replicas {
        backlog.push_str(" · ");
        backlog.push_str(&crate::render::text::replica_clause(
            &r.server,
            r.lag_seconds,
            r.skipped.as_deref(),
        ));
    }
    format!(
        "{} · serving {} · pid {} · version {} · up {} s · {store} · {model} · {} session(s) opened · {} command(s) answered{backlog}",
        h.status, h.url, h.pid, h.version, h.uptime_seconds, h.sessions, h.commands
    )
}

/// The store's token when one was made.
pub(super) fn stored_token(store: &Path) -> Result<Option<String>, CliError> {
    let path = store.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => Ok(Some(text.trim().to_string())),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(keep_core::error::Error::io(&path, e).into()),
    }
}

/// The store's token, made on first use: 32 random bytes as hex, in a
/// file only its owner can read.
fn token(store: &Path) -> Result<String, CliError> {
    if let Some(token) = stored_token(store)? {
        return Ok(token);
    }
    let path = store.join(TOKEN_FILE);
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| keep_core::error::Error::io("/dev/urandom", e))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| keep_core::error::Error::io(&path, e))?;
    writeln!(file, "{token}").map_err(|e| keep_core::error::Error::io(&path, e))?;
    Ok(token)
}
