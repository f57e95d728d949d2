//! MCP over Streamable HTTP for `keep serve`: one `KeepServer` per session
//! over one shared keeper, the bearer token, and the `Host` and `Origin`
//! checks that keep a web page from reaching a server on this machine.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::rights::Caller;
use super::{KeepServer, notify, tools::Context};
use keep_core::SharedModel;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// How long in-flight requests may take to finish after a stop is asked.
const DRAIN: Duration = Duration::from_secs(10);
/// The largest request body taken: a JSON-RPC message, with room for a
/// long text to remember.
pub const MAX_BODY: u64 = 16 * 1024 * 1024;
/// How long a connection may take to send a request's headers; an idle
/// connection is closed after it.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// What `keep serve` asks of the HTTP side.
pub struct HttpOptions {
    pub listen: SocketAddr,
    /// How long a session may go unused before it is closed.
    pub session_idle: Duration,
    /// Who may call, and with what rights.
    pub auth: super::auth::Auth,
    pub ctx: Context,
    /// Lends keepers to the sessions' calls.
    pub lender: Arc<dyn super::Lender>,
    /// Paths served beside MCP.
    pub routes: Arc<dyn Routes>,
    /// TLS for every connection, when set.
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

/// Paths a server answers beside MCP, under the same token and `Host`
/// and `Origin` rules (the JSON API and health of `keep serve`).
pub trait Routes: Send + Sync {
    fn serves(&self, path: &str) -> bool;
    /// The status and JSON body for a request of `caller`; may block.
    fn answer(
        &self,
        caller: &Caller,
        method: &str,
        path: &str,
        query: &str,
        body: &[u8],
    ) -> (u16, Vec<u8>);
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response
}

/// The body length a request declares, if it does.
fn declared_length(request: &Request<Incoming>) -> Option<u64> {
    request
        .headers()
        .get(hyper::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Whether the request's `Host` and `Origin` (when it has one) are
/// loopback names, as a server on a loopback address requires (so that a
/// web page cannot reach it through a name that resolves here).
fn from_this_machine(request: &Request<Incoming>) -> bool {
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|v: &hyper::header::HeaderValue| v.to_str().ok())
    };
    let loopback = |authority: &str| {
        let host = match authority.strip_prefix('[') {
            Some(rest) => rest.split(']').next().map(|h| format!("[{h}]")),
            None => authority.split(':').next().map(str::to_string),
        };
        matches!(host.as_deref(), Some("localhost" | "127.0.0.1" | "[::1]"))
    };
    let host_ok = header(hyper::header::HOST).is_some_and(loopback);
    let origin_ok = match header(hyper::header::ORIGIN) {
        None => true,
        Some(origin) => origin.strip_prefix("http://").is_some_and(loopback),
    };
    host_ok && origin_ok
}

/// Answers a request of the other routes on a thread that may block.
async fn answer_route(
    request: Request<Incoming>,
    routes: Arc<dyn Routes>,
    caller: Caller,
) -> Response<Body> {
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or("").to_string();
    let limited = http_body_util::Limited::new(request.into_body(), MAX_BODY as usize);
    let body = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("a request body may hold at most {MAX_BODY} bytes"),
            );
        }
    };
    let reply =
        tokio::task::spawn_blocking(move || routes.answer(&caller, &method, &path, &query, &body))
            .await;
    match reply {
        Ok((status, body)) => {
            let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json"),
            );
            if status == 403 {
                // The only refusal a route makes: a right the token lacks.
                response.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static(
                        r#"Bearer realm="keep", error="insufficient_scope""#,
                    ),
                );
            }
            response
        }
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "the request failed"),
    }
}

/// Hosts and origins a server on `listen` accepts: loopback names on a
/// loopback address; any host on another address (the token guards it).
fn config(listen: SocketAddr, stop: CancellationToken) -> StreamableHttpServerConfig {
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop;
    if listen.ip().is_loopback() {
        config.allowed_hosts = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        config.allowed_origins = vec![
            "http://localhost:*".into(),
            "http://127.0.0.1:*".into(),
            "http://[::1]:*".into(),
        ];
        config.enforce_origin_validation()
    } else {
        config.allowed_hosts = Vec::new();
        config.allowed_origins = Vec::new();
        config.enforce_origin_validation()
    }
}

/// Counts the sessions opened, for `keep serve --status`.
#[derive(Default)]
pub struct Sessions {
    opened: Mutex<usize>,
    /// Commands answered over the store's socket.
    commands: std::sync::atomic::AtomicUsize,
    changed: tokio::sync::Notify,
}

impl Sessions {
    pub fn opened(&self) -> usize {
        *self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn commands(&self) -> usize {
        self.commands.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn answered_command(&self) {
        self.commands
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.changed.notify_one();
    }

    /// Returns when a session has opened or a command was answered since
    /// the last call.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    fn open(&self) {
        *self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
        self.changed.notify_one();
    }
}

/// Serves HTTP/1.1 on one connection, plain or encrypted, until it ends.
async fn serve_connection<I, S>(io: I, handler: S)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::HttpService<Incoming, ResBody = Body> + Send + 'static,
    S::Future: Send + 'static,
{
    hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(io), handler)
        .await
        .ok();
}

/// Serves MCP on `options.listen` until `stop` is cancelled; `ready` gets
/// the address bound (the port, when 0 was asked) before the first
/// request is taken.
/// Sessions made by this server, to name each one's keepers.
static SESSIONS_MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub async fn serve(
    store_dir: std::path::PathBuf,
    database: Option<String>,
    model: SharedModel,
    listener: TcpListener,
    options: HttpOptions,
    sessions: Arc<Sessions>,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let keepers = super::Keepers::Lent(Arc::clone(&options.lender), None);
    let notifiers = Arc::new(notify::Notifiers::default());
    let _changes = notify::watch_store(&store_dir, database.as_deref(), Arc::clone(&notifiers));
    let idle = Arc::new(super::idle::Idle::default());
    let ctx = Arc::new(options.ctx);
    let factory = {
        let notifiers = Arc::clone(&notifiers);
        let sessions = Arc::clone(&sessions);
        move || {
            let notes = Arc::new(notify::Notifier::new(keepers.clone()));
            notifiers.add(&notes);
            sessions.open();
            let session = SESSIONS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(KeepServer {
                keepers: keepers.for_client(&format!("mcp:{session}")),
                model: model.clone(),
                // Each session's calls in the order it sent them; sessions
                // do not wait for each other.
                order: Arc::default(),
                idle: Arc::clone(&idle),
                ctx: Arc::clone(&ctx),
                notes,
                tasks: super::TaskManager::new(),
            })
        }
    };
    let mut sessions_kept = LocalSessionManager::default();
    sessions_kept.session_config.keep_alive = Some(options.session_idle);
    let service = StreamableHttpService::new(
        factory,
        Arc::new(sessions_kept),
        config(options.listen, stop.child_token()),
    );
    let auth = Arc::new(options.auth);
    let routes = options.routes;
    let loopback = options.listen.ip().is_loopback();
    let tls = options.tls.map(tokio_rustls::TlsAcceptor::from);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (stream, from) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => continue,
            },
            _ = stop.cancelled() => break,
        };
        let service = service.clone();
        let auth = Arc::clone(&auth);
        let routes = Arc::clone(&routes);
        let handler = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let service = service.clone();
            let auth = Arc::clone(&auth);
            let routes = Arc::clone(&routes);
            async move {
                let path = request.uri().path();
                let for_api = routes.serves(path);
                if path != ENDPOINT && !for_api {
                    return Ok::<_, Infallible>(plain(
                        StatusCode::NOT_FOUND,
                        &format!(
                            "keep serves MCP at {ENDPOINT} and a JSON API described at /openapi.json"
                        ),
                    ));
                }
                if for_api && loopback && !from_this_machine(&request) {
                    return Ok(plain(
                        StatusCode::FORBIDDEN,
                        "only loopback Host and Origin headers are accepted",
                    ));
                }
                let caller = match auth.caller(&request, from.ip()).await {
                    Ok(caller) => caller,
                    Err(refusal) => return Ok(refusal.response(plain)),
                };
                if declared_length(&request).is_some_and(|n| n > MAX_BODY) {
                    return Ok(plain(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        &format!("a request body may hold at most {MAX_BODY} bytes"),
                    ));
                }
                if for_api {
                    return Ok(answer_route(request, routes, caller).await);
                }
                request.extensions_mut().insert(caller);
                let closing = request.method() == hyper::Method::DELETE;
                let request =
                    request.map(|body| http_body_util::Limited::new(body, MAX_BODY as usize));
                let mut response = service.handle(request).await;
                if closing && response.status() == StatusCode::ACCEPTED {
                    // The session is gone at once, not later: say so, as
                    // clients expect (the Python SDK warns on 202).
                    *response.status_mut() = StatusCode::OK;
                }
                Ok(response)
            }
        });
        let acceptor = tls.clone();
        connections.spawn(async move {
            // A connection that fails or is dropped by its client concerns
            // that client alone; so does a handshake that fails or stalls.
            match acceptor {
                None => serve_connection(stream, handler).await,
                Some(acceptor) => {
                    if let Ok(Ok(stream)) =
                        tokio::time::timeout(HEADER_TIMEOUT, acceptor.accept(stream)).await
                    {
                        serve_connection(stream, handler).await;
                    }
                }
            }
        });
        while connections.try_join_next().is_some() {}
    }
    // Connections still open after the drain are closed with the server.
    let _ = tokio::time::timeout(DRAIN, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    Ok(())
}
