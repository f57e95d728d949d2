//! MCP over Streamable HTTP for `keep serve`: one `KeepServer` per session
//! over one shared keeper, the bearer token or the signed-in browser's
//! cookie, the `Host` and `Origin` checks that keep a foreign web page
//! from reaching a server on this machine, and the CSRF token every
//! write from a browser shows.

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

use super::auth::{Auth, Credential};
use super::connections::{Answering, Connections, State};
use crate::mcp::rights::Caller;
use crate::mcp::{Context, KeepServer, Lender};
use crate::render::text::printable;
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
/// How long a request's body may take to arrive once its headers have.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The first and the longest pause after a failed accept (no file left
/// for a connection): the loop waits instead of spinning.
const ACCEPT_PAUSE: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// What `keep serve` asks of the HTTP side.
pub struct HttpOptions {
    pub listen: SocketAddr,
    /// How long a session may go unused before it is closed.
    pub session_idle: Duration,
    /// Who may call, and with what rights.
    pub auth: super::auth::Auth,
    pub ctx: Context,
    /// Lends keepers to the sessions' calls.
    pub lender: Arc<dyn Lender>,
    /// Paths served beside MCP.
    pub routes: Arc<dyn Routes>,
    /// TLS for every connection, when set.
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

/// Paths a server answers beside MCP, under the same token and `Host`
/// and `Origin` rules (the web page, the JSON API and health of `keep
/// serve`).
pub trait Routes: Send + Sync {
    fn serves(&self, path: &str) -> bool;
    /// Whether `path` is a page a person opens: without a credential it
    /// gets the sign-in form rather than a bare refusal.
    fn is_page(&self, path: &str) -> bool;
    /// The answer to a request of `visit`'s caller; may block.
    fn answer(&self, visit: &Visit, method: &str, path: &str, query: &str, body: &[u8]) -> Answer;
    /// The sign-in form, with why it is shown again when it is.
    fn sign_in(&self, failed: Option<&str>) -> Answer;
}

/// Who asks, and what a page needs to write on their behalf.
pub struct Visit {
    pub caller: Caller,
    /// The request's id, returned in `X-Request-Id` and named in errors.
    pub request_id: String,
    /// The CSRF token a write from this browser must show
    /// (`X-Keep-CSRF`).
    pub csrf: String,
    /// Signed in through the page (a cookie holds the token).
    pub signed_in: bool,
}

/// A route's answer: status, content type and body.
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(status: u16, body: Vec<u8>) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body,
        }
    }

    pub fn html(status: u16, body: String) -> Answer {
        Answer {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
        }
    }
}

/// The header a write from a browser carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-keep-csrf";
pub use super::auth::COOKIE;
/// How long a sign-in lasts, in seconds (30 days).
const SIGNED_IN_FOR: u64 = 30 * 24 * 3600;
/// What a page may load and run: its own scripts, styles and images,
/// nothing inline, nothing from elsewhere, never framed.
const CONTENT_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response
}

/// An error as the JSON API gives one: `{"error": "..."}`.
fn json_error(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({ "error": message }).to_string();
    let mut response = Response::new(Full::new(Bytes::from(format!("{body}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
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

/// Reads a body, at most `limit` bytes, within `BODY_TIMEOUT`.
async fn read_limited(body: Incoming, limit: u64) -> Result<Bytes, Response<Body>> {
    let limited = http_body_util::Limited::new(body, limit as usize);
    match tokio::time::timeout(BODY_TIMEOUT, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(_)) => Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a request body may hold at most {limit} bytes"),
        )),
        Err(_) => {
            let mut response = plain(
                StatusCode::REQUEST_TIMEOUT,
                &format!(
                    "the request body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            );
            response.headers_mut().insert(
                hyper::header::CONNECTION,
                hyper::header::HeaderValue::from_static("close"),
            );
            Err(response)
        }
    }
}

/// Reads a request's body, at most `limit` bytes, within `BODY_TIMEOUT`.
async fn read_body(request: Request<Incoming>, limit: u64) -> Result<Bytes, Response<Body>> {
    read_limited(request.into_body(), limit).await
}

/// Answers a request of the other routes on a thread that may block.
async fn answer_route(
    request: Request<Incoming>,
    routes: Arc<dyn Routes>,
    visit: Visit,
    conn: &Conn,
) -> Response<Body> {
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or("").to_string();
    let body = match read_body(request, MAX_BODY).await {
        Ok(body) => body,
        Err(response) => return conn.named_if_slow(response),
    };
    let _answering = Answering::start(&conn.state, &conn.connections);
    let answer =
        tokio::task::spawn_blocking(move || routes.answer(&visit, &method, &path, &query, &body))
            .await;
    match answer {
        Ok(answer) => response_of(answer),
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "the request failed"),
    }
}

/// The response for a route's answer, with the headers its kind needs.
fn response_of(answer: Answer) -> Response<Body> {
    use hyper::header::{self, HeaderValue};
    let refused = answer.status == 403 && answer.content_type == "application/json";
    let page = answer.content_type.starts_with("text/html");
    let mut response = Response::new(Full::new(Bytes::from(answer.body)).boxed());
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if page {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if refused {
        // The API's only refusal: a right the token lacks.
        headers.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(r#"Bearer realm="keep", error="insufficient_scope""#),
        );
    }
    response
}

/// A response that sends the browser to `location`, setting `cookie`.
fn see_other(location: &'static str, cookie: &str) -> Response<Body> {
    use hyper::header::{self, HeaderValue};
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = StatusCode::SEE_OTHER;
    response
        .headers_mut()
        .insert(header::LOCATION, HeaderValue::from_static(location));
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// The `Set-Cookie` value that keeps `token` (encoded) in the browser, or
/// with no token forgets it.
fn cookie_of(token: Option<&str>, tls: bool) -> String {
    let secure = if tls { "; Secure" } else { "" };
    match token {
        Some(token) => format!(
            "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={SIGNED_IN_FOR}{secure}",
            percent_encoding::utf8_percent_encode(token, percent_encoding::NON_ALPHANUMERIC)
        ),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
    }
}

/// The value of a field of a form body (`application/x-www-form-urlencoded`).
fn form_field(body: &[u8], name: &str) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    text.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| {
            percent_encoding::percent_decode_str(&value.replace('+', " "))
                .decode_utf8_lossy()
                .trim()
                .to_string()
        })
    })
}

/// Whether the request's `Origin`, when it has one, is the server it is
/// sent to (its `Host`): a form posted from another site is not.
fn same_origin<B>(request: &Request<B>) -> bool {
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|v: &hyper::header::HeaderValue| v.to_str().ok())
    };
    match header(hyper::header::ORIGIN) {
        None => true,
        Some(origin) => {
            let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
            header(hyper::header::HOST) == Some(authority)
        }
    }
}

/// Whether a request comes from a browser and shows no token of its own,
/// so that a write must carry the page's CSRF token: a signed-in cookie,
/// or (on a loopback address that trusts requests without a token) any
/// sign of a browser (an `Origin`, `Sec-Fetch-Site` or `Cookie` header).
fn needs_csrf<B>(request: &Request<B>, credential: &Credential) -> bool {
    match credential {
        Credential::Bearer(_) => false,
        Credential::Cookie(_) => true,
        Credential::None => {
            let headers = request.headers();
            headers.contains_key(hyper::header::ORIGIN)
                || headers.contains_key("sec-fetch-site")
                || headers.contains_key(hyper::header::COOKIE)
        }
    }
}

/// Whether the request came through a proxy that says so: then whoever
/// connected is the proxy, not the client.
fn forwarded<B>(request: &Request<B>) -> bool {
    let headers = request.headers();
    headers.contains_key(hyper::header::FORWARDED) || headers.contains_key("x-forwarded-for")
}

/// Whether the request shows the CSRF token `expected`.
fn shows_csrf<B>(request: &Request<B>, expected: &str) -> bool {
    request
        .headers()
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|given| super::auth::same_secret(given, expected))
}

/// What the browser's sign-in form posts: a token, checked as any other
/// (failures slow the address down); kept in a cookie when it is good.
async fn sign_in(
    request: Request<Incoming>,
    auth: &Auth,
    routes: &Arc<dyn Routes>,
    from: std::net::IpAddr,
    tls: bool,
) -> Response<Body> {
    if !same_origin(&request) {
        return plain(StatusCode::FORBIDDEN, "a sign-in from another site");
    }
    let body = match read_body(request, 8 * 1024).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let token = form_field(&body, "token").unwrap_or_default();
    if token.is_empty() {
        return response_of(with_status(routes.sign_in(Some("give a token")), 400));
    }
    let credential = Credential::Cookie(token.clone());
    match auth.check(&credential, from, false).await {
        Ok(_) => see_other("/", &cookie_of(Some(&token), tls)),
        Err(refusal) => response_of(with_status(
            routes.sign_in(Some(&refusal.message)),
            refusal.status.as_u16(),
        )),
    }
}

/// Signs the browser out: its cookie is forgotten (the form shows the
/// CSRF token, so another site cannot sign a person out).
async fn sign_out(
    request: Request<Incoming>,
    auth: &Auth,
    credential: Credential,
    tls: bool,
) -> Response<Body> {
    let body = match read_body(request, 8 * 1024).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let expected = auth.csrf_token(&credential);
    let given = form_field(&body, "csrf").unwrap_or_default();
    if !super::auth::same_secret(&given, &expected) {
        return plain(
            StatusCode::FORBIDDEN,
            "the sign-out form's CSRF token is missing or stale: reload the page",
        );
    }
    see_other("/", &cookie_of(None, tls))
}

fn with_status(mut answer: Answer, status: u16) -> Answer {
    answer.status = status;
    answer
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
pub async fn serve(
    store_dir: std::path::PathBuf,
    database: Option<String>,
    model: SharedModel,
    listener: TcpListener,
    options: HttpOptions,
    sessions: Arc<Sessions>,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let (factory, _changes) = crate::mcp::over_http(
        Arc::clone(&options.lender),
        &store_dir,
        database.as_deref(),
        model,
        options.ctx,
        {
            let sessions = Arc::clone(&sessions);
            move || sessions.open()
        },
    );
    let mut sessions_kept = LocalSessionManager::default();
    sessions_kept.session_config.keep_alive = Some(options.session_idle);
    let sessions_kept = Arc::new(sessions_kept);
    let service = StreamableHttpService::new(
        factory,
        Arc::clone(&sessions_kept),
        config(options.listen, stop.child_token()),
    );
    let shared = Arc::new(Shared {
        service,
        owners: SessionOwners::new(sessions_kept),
        auth: Arc::new(options.auth),
        routes: options.routes,
        loopback: options.listen.ip().is_loopback(),
        tls: options.tls.is_some(),
    });
    let tls = options.tls.map(tokio_rustls::TlsAcceptor::from);
    let held = Connections::for_this_process();
    let mut connections = tokio::task::JoinSet::new();
    let mut pause = ACCEPT_PAUSE.0;
    loop {
        tokio::select! {
            _ = held.room() => {}
            _ = stop.cancelled() => break,
        }
        let (stream, from) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    held.name_slow(
                        std::net::IpAddr::from([0, 0, 0, 0]),
                        &format!("accepting a connection failed ({e}); retrying after a pause"),
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(pause) => {}
                        _ = stop.cancelled() => break,
                    }
                    pause = (pause * 2).min(ACCEPT_PAUSE.1);
                    continue;
                }
            },
            _ = stop.cancelled() => break,
        };
        pause = ACCEPT_PAUSE.0;
        let place = held.hold();
        let conn = Conn {
            state: Arc::clone(&place.state),
            connections: Arc::clone(&held),
            from: from.ip(),
            ends: stream.local_addr().ok().map(|local| (local, from)),
            this_user: Arc::default(),
        };
        let shared = Arc::clone(&shared);
        let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
            let shared = Arc::clone(&shared);
            let conn = conn.clone();
            async move { Ok::<_, Infallible>(logged(request, &shared, &conn).await) }
        });
        let acceptor = tls.clone();
        connections.spawn(async move {
            // A connection that fails or is dropped by its client concerns
            // that client alone; so does a handshake that fails or stalls;
            // one closed to make room ends here.
            let close = place.close.clone();
            let served = async move {
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
            };
            tokio::select! {
                _ = served => {}
                _ = close.cancelled() => {}
            }
            drop(place);
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

/// What every request of a server shares.
struct Shared {
    service: StreamableHttpService<KeepServer, LocalSessionManager>,
    /// Who opened each MCP session.
    owners: SessionOwners,
    auth: Arc<Auth>,
    routes: Arc<dyn Routes>,
    loopback: bool,
    tls: bool,
}

/// The connection a request came on.
#[derive(Clone)]
struct Conn {
    state: Arc<State>,
    connections: Arc<Connections>,
    from: std::net::IpAddr,
    /// This server's end and the client's.
    ends: Option<(SocketAddr, SocketAddr)>,
    /// Whether the client runs as this server's user, once asked.
    this_user: Arc<std::sync::OnceLock<bool>>,
}

impl Conn {
    /// Whether the client runs as this server's user (the kernel says the
    /// client's socket is this user's), asked of the kernel once per
    /// connection and only for a request without a token.
    fn is_this_user(&self) -> bool {
        *self.this_user.get_or_init(|| {
            self.ends
                .is_some_and(|(local, peer)| super::peer::is_this_user(local, peer))
        })
    }

    /// `response`, after naming the client on stderr (once) when it is
    /// the answer to a body that did not arrive in time.
    fn named_if_slow(&self, response: Response<Body>) -> Response<Body> {
        if response.status() == StatusCode::REQUEST_TIMEOUT {
            self.connections
                .name_slow(self.from, "a request body did not arrive in time");
        }
        response
    }
}

/// Requests answered by this process, for their ids.
static REQUESTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A new request id: unique within this server's life, and unlike those
/// of another server process.
fn request_id() -> String {
    let n = REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{:x}-{n:x}", std::process::id())
}

/// Answers one request, with its id in `X-Request-Id`, and writes its
/// access line (`keep::access`): who, what, the status, how long and the
/// request's id (never a secret, a query string or note text).
async fn logged(request: Request<Incoming>, shared: &Shared, conn: &Conn) -> Response<Body> {
    let started = std::time::Instant::now();
    let id = request_id();
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let mut who = String::from("-");
    let mut what = path.clone();
    let mut response = handle(request, shared, conn, &id, &mut who, &mut what).await;
    if let Ok(value) = hyper::header::HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    tracing::info!(
        target: crate::logging::ACCESS,
        request_id = %id,
        "{} {method} {} {} {:.1}ms",
        printable(&who),
        printable(&what),
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0,
    );
    response
}

/// What the MCP message `body` asks, for the access line: its method,
/// and a tool's, prompt's or resource's name.
fn mcp_method(body: &[u8]) -> Option<String> {
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let method = message["method"].as_str()?;
    let params = &message["params"];
    let named = params["name"]
        .as_str()
        .or_else(|| params["uri"].as_str().map(|_| "resource"));
    Some(match named {
        Some(name) => format!("{method}:{name}"),
        None => method.to_string(),
    })
}

/// Answers one request; `who` gets the caller's name once known, and
/// `what` the MCP method asked.
async fn handle(
    mut request: Request<Incoming>,
    shared: &Shared,
    conn: &Conn,
    request_id: &str,
    who: &mut String,
    what: &mut String,
) -> Response<Body> {
    let (auth, routes) = (&shared.auth, &shared.routes);
    let path = request.uri().path().to_string();
    let for_routes = routes.serves(&path);
    if path != ENDPOINT && !for_routes {
        return plain(
            StatusCode::NOT_FOUND,
            &format!(
                "keep serves a web page at /, MCP at {ENDPOINT} and a JSON API described at /openapi.json"
            ),
        );
    }
    if for_routes && shared.loopback && !from_this_machine(&request) {
        return plain(
            StatusCode::FORBIDDEN,
            "only loopback Host and Origin headers are accepted",
        );
    }
    let post = request.method() == hyper::Method::POST;
    if for_routes && post && path == "/signin" {
        return sign_in(request, auth, routes, conn.from, shared.tls).await;
    }
    let credential = Credential::of(&request);
    let trusted = matches!(credential, Credential::None)
        && shared.loopback
        && !forwarded(&request)
        && conn.is_this_user();
    let caller = match auth.check(&credential, conn.from, trusted).await {
        Ok(caller) => caller,
        Err(refusal) => {
            let browsing =
                request.method() == hyper::Method::GET && for_routes && routes.is_page(&path);
            if browsing {
                let mut response = response_of(with_status(
                    routes.sign_in(match credential {
                        Credential::Cookie(_) => Some(&refusal.message),
                        _ => None,
                    }),
                    refusal.status.as_u16(),
                ));
                if let Ok(value) =
                    hyper::header::HeaderValue::from_str(&cookie_of(None, shared.tls))
                {
                    response
                        .headers_mut()
                        .insert(hyper::header::SET_COOKIE, value);
                }
                return response;
            }
            return refusal.response(plain);
        }
    };
    *who = caller.name().to_string();
    if declared_length(&request).is_some_and(|n| n > MAX_BODY) {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a request body may hold at most {MAX_BODY} bytes"),
        );
    }
    if for_routes {
        if post && path == "/signout" {
            return sign_out(request, auth, credential, shared.tls).await;
        }
        let csrf = auth.csrf_token(&credential);
        let reads = matches!(
            *request.method(),
            hyper::Method::GET | hyper::Method::HEAD | hyper::Method::OPTIONS
        );
        if !reads && needs_csrf(&request, &credential) && !shows_csrf(&request, &csrf) {
            return json_error(
                StatusCode::FORBIDDEN,
                "a write from a browser must show the page's CSRF token (X-Keep-CSRF): reload the page",
            );
        }
        let visit = Visit {
            caller,
            request_id: request_id.to_string(),
            csrf,
            signed_in: matches!(credential, Credential::Cookie(_)),
        };
        return answer_route(request, Arc::clone(routes), visit, conn).await;
    }
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    match &session {
        Some(id) if !shared.owners.opened_by(id, &caller).await => {
            // Another caller's session answers as one that does not exist.
            return json_error(StatusCode::NOT_FOUND, "no such session");
        }
        None if post && shared.owners.count_of(&caller).await >= SESSIONS_PER_CALLER => {
            return json_error(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "'{}' has {SESSIONS_PER_CALLER} MCP sessions open: close one (DELETE {ENDPOINT}) or wait until one has been idle long enough to close",
                    caller.name()
                ),
            );
        }
        _ => {}
    }
    let opener = caller.clone();
    request.extensions_mut().insert(caller);
    let closing = request.method() == hyper::Method::DELETE;
    let mut response = if post {
        let (parts, body) = request.into_parts();
        let body = match read_limited(body, MAX_BODY).await {
            Ok(body) => body,
            Err(response) => return conn.named_if_slow(response),
        };
        if let Some(method) = mcp_method(&body) {
            *what = format!("{path} {method}");
        }
        let _answering = Answering::start(&conn.state, &conn.connections);
        shared
            .service
            .handle(Request::from_parts(parts, Full::new(body)))
            .await
    } else {
        let _answering = Answering::start(&conn.state, &conn.connections);
        let request = request.map(|body| http_body_util::Limited::new(body, MAX_BODY as usize));
        shared.service.handle(request).await
    };
    if closing && response.status() == StatusCode::ACCEPTED {
        // The session is gone at once, not later: say so, as clients
        // expect (the Python SDK warns on 202).
        *response.status_mut() = StatusCode::OK;
    }
    if session.is_none()
        && let Some(opened) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    {
        shared.owners.opened(opened, &opener);
    }
    response
}

/// The header naming an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";
/// MCP sessions one caller (a token, or the owner) may hold open at once.
const SESSIONS_PER_CALLER: usize = 64;

/// Who opened each MCP session: a session answers only the caller that
/// opened it, and a caller holds at most `SESSIONS_PER_CALLER`.
struct SessionOwners {
    owners: Mutex<std::collections::HashMap<String, Caller>>,
    live: Arc<LocalSessionManager>,
}

impl SessionOwners {
    fn new(live: Arc<LocalSessionManager>) -> Self {
        SessionOwners {
            owners: Mutex::new(std::collections::HashMap::new()),
            live,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Caller>> {
        self.owners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn opened(&self, id: &str, caller: &Caller) {
        self.lock().insert(id.to_string(), caller.clone());
    }

    /// Whether session `id` may be used by `caller`: it opened it (a
    /// session unknown here is left to the session manager to refuse).
    async fn opened_by(&self, id: &str, caller: &Caller) -> bool {
        self.forget_closed().await;
        self.lock().get(id).is_none_or(|owner| owner == caller)
    }

    /// How many live sessions `caller` opened.
    async fn count_of(&self, caller: &Caller) -> usize {
        self.forget_closed().await;
        self.lock()
            .values()
            .filter(|owner| *owner == caller)
            .count()
    }

    /// Forgets the sessions the manager has closed.
    async fn forget_closed(&self) {
        let live = self.live.sessions.read().await;
        self.lock().retain(|id, _| live.contains_key(id.as_str()));
    }
}
