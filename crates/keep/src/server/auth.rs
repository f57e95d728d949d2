//! Who a request to `keep serve` comes from: the bearer token it shows
//! (the owner's, or one `keep token add` made), the token a browser signed
//! in with (kept in a cookie), or none from this machine when the server
//! trusts that; answers a client can act on when it is refused (RFC
//! 6750); failed attempts slowed per client address; and the CSRF token
//! that a browser's writes show, bound to its credential.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::header::{HeaderValue, WWW_AUTHENTICATE};
use hyper::{Request, StatusCode};

use crate::mcp::rights::Caller;

/// The cookie the sign-in form sets, holding the token.
pub const COOKIE: &str = "keep_token";

/// Looks up a token a client shows: its caller, None when no token has
/// that secret (or it expired), or why it could not be looked up. Blocks.
pub type Lookup = Arc<dyn Fn(&str) -> Result<Option<Caller>, String> + Send + Sync>;

/// What the server accepts.
pub struct Auth {
    /// The owner's token (`keep serve --token`).
    pub owner: String,
    /// A request without a token is the owner's (a loopback address
    /// without `--require-token`).
    pub trust_tokenless: bool,
    pub lookup: Lookup,
    failures: Mutex<HashMap<IpAddr, Failures>>,
    /// This server's secret for CSRF tokens (random at each start).
    csrf_key: [u8; 32],
}

/// What a request shows to say who it is.
pub enum Credential {
    /// `Authorization: Bearer TOKEN`.
    Bearer(String),
    /// The token the sign-in form kept in the browser's cookie.
    Cookie(String),
    None,
}

impl Credential {
    /// The bearer token, else the sign-in cookie, else none.
    pub fn of<B>(request: &Request<B>) -> Credential {
        if let Some(token) = bearer(request) {
            return Credential::Bearer(token);
        }
        match signed_in(request) {
            Some(token) => Credential::Cookie(token),
            None => Credential::None,
        }
    }

    fn secret(&self) -> Option<&str> {
        match self {
            Credential::Bearer(s) | Credential::Cookie(s) => Some(s),
            Credential::None => None,
        }
    }
}

/// Failed attempts of one client address.
struct Failures {
    count: u32,
    last: Instant,
}

/// Failures a client may make before each further one waits.
const FREE_FAILURES: u32 = 5;
/// How long a client's failures are remembered.
const FAILURES_KEPT: Duration = Duration::from_secs(600);
/// The longest wait before a refusal.
const MOST_DELAY: Duration = Duration::from_secs(5);

/// A refusal: its status, the `WWW-Authenticate` value and a message.
pub struct Refusal {
    pub status: StatusCode,
    pub challenge: &'static str,
    pub message: String,
}

impl Refusal {
    /// The response for it: plain text, with its challenge.
    pub fn response<B>(
        &self,
        body: impl FnOnce(StatusCode, &str) -> hyper::Response<B>,
    ) -> hyper::Response<B> {
        let mut response = body(self.status, &self.message);
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static(self.challenge));
        response
    }
}

impl Auth {
    pub fn new(owner: String, trust_tokenless: bool, lookup: Lookup) -> Self {
        Auth {
            owner,
            trust_tokenless,
            lookup,
            failures: Mutex::default(),
            csrf_key: random_key(),
        }
    }

    /// The CSRF token of a credential: a keyed hash of it, so a page shows
    /// it and another site cannot compute it.
    pub fn csrf_token(&self, credential: &Credential) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        hash.update(self.csrf_key);
        match credential.secret() {
            Some(secret) => {
                hash.update(b"token:");
                hash.update(secret.as_bytes());
            }
            None => hash.update(b"no token"),
        }
        hash.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The caller a credential shows from `from`, or the refusal to send.
    /// Who `credential` shows, for a client at `from`; `this_user` says
    /// the client runs as this server's user, the one a request without a
    /// token may be trusted from.
    pub async fn check(
        &self,
        credential: &Credential,
        from: IpAddr,
        this_user: bool,
    ) -> Result<Caller, Refusal> {
        let Some(secret) = credential.secret().map(str::to_string) else {
            if self.trust_tokenless && this_user {
                return Ok(Caller::owner());
            }
            return Err(self
                .failed(
                    from,
                    Refusal {
                        status: StatusCode::UNAUTHORIZED,
                        challenge: r#"Bearer realm="keep""#,
                        message: "a bearer token is required (Authorization: Bearer TOKEN)".into(),
                    },
                )
                .await);
        };
        if same_secret(&secret, &self.owner) {
            return Ok(Caller::owner());
        }
        let lookup = Arc::clone(&self.lookup);
        let found = tokio::task::spawn_blocking(move || lookup(&secret))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
        match found {
            Ok(Some(caller)) => Ok(caller),
            Ok(None) => Err(self
                .failed(
                    from,
                    Refusal {
                        status: StatusCode::UNAUTHORIZED,
                        challenge: r#"Bearer realm="keep", error="invalid_token""#,
                        message: "the token is unknown, revoked or expired".into(),
                    },
                )
                .await),
            Err(why) => Err(Refusal {
                status: StatusCode::SERVICE_UNAVAILABLE,
                challenge: r#"Bearer realm="keep""#,
                message: format!("the token could not be checked: {why}"),
            }),
        }
    }

    /// Counts a failure of `from`; past the free ones, waits a second for
    /// each (at most five) before the refusal goes out.
    async fn failed(&self, from: IpAddr, refusal: Refusal) -> Refusal {
        let delay = {
            let mut failures = self
                .failures
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            failures.retain(|_, f| f.last.elapsed() < FAILURES_KEPT);
            let entry = failures.entry(from).or_insert(Failures {
                count: 0,
                last: Instant::now(),
            });
            entry.count += 1;
            entry.last = Instant::now();
            let extra = entry.count.saturating_sub(FREE_FAILURES);
            (Duration::from_secs(u64::from(extra))).min(MOST_DELAY)
        };
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        refusal
    }
}

/// The token of `Authorization: Bearer TOKEN`, if the request shows one.
fn bearer<B>(request: &Request<B>) -> Option<String> {
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// The token of the sign-in cookie, if the request has one.
fn signed_in<B>(request: &Request<B>) -> Option<String> {
    let prefix = format!("{COOKIE}=");
    request
        .headers()
        .get_all(hyper::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            pair.trim()
                .strip_prefix(prefix.as_str())
                .map(str::to_string)
        })
        .map(|v| {
            percent_encoding::percent_decode_str(&v)
                .decode_utf8_lossy()
                .into_owned()
        })
        .filter(|t| !t.is_empty())
}

/// 32 random bytes; a clock-derived hash should the system have none.
fn random_key() -> [u8; 32] {
    use std::io::Read;
    let mut key = [0u8; 32];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key));
    if read.is_err() {
        use sha2::{Digest, Sha256};
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        key.copy_from_slice(&Sha256::digest(seed.as_bytes()));
    }
    key
}

/// Whether two secrets are equal, compared in constant time.
pub fn same_secret(given: &str, known: &str) -> bool {
    let (a, b) = (given.as_bytes(), known.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
