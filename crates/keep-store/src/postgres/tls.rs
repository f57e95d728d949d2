//! The link to PostgreSQL: libpq's `sslmode` and certificate files, read
//! from the URL and then the environment (`PGSSLMODE`, `PGSSLROOTCERT`,
//! `PGSSLCERT`, `PGSSLKEY`), turned into the driver's settings and a rustls
//! connector; and the one-line reasons a TLS link failed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How much of the link is encrypted and checked, as libpq names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never encrypted.
    Disable,
    /// Encrypted when the server offers it, the certificate unchecked
    /// (libpq's default; `allow` is read as this too).
    Prefer,
    /// Always encrypted; the certificate checked against a CA only when
    /// one is given (as libpq does when a root certificate exists).
    Require,
    /// Always encrypted, the certificate signed by the CA given.
    VerifyCa,
    /// `VerifyCa`, and the certificate names the host connected to.
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

/// What a URL and the environment ask of the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    pub mode: SslMode,
    /// The CA certificates (PEM) the server's must be signed by; `system`
    /// for the system's bundle.
    pub root_cert: Option<PathBuf>,
    /// The client's certificate and key (PEM), for servers that ask.
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

/// The libpq parameters of the link, by their URL name and environment
/// variable.
const PARAMETERS: &[(&str, &str)] = &[
    ("sslmode", "PGSSLMODE"),
    ("sslrootcert", "PGSSLROOTCERT"),
    ("sslcert", "PGSSLCERT"),
    ("sslkey", "PGSSLKEY"),
];

/// Splits the link's parameters out of `url` (a `postgres://` URL or a
/// `key=value` string): the rest, for the driver, and what they ask.
pub fn split(url: &str) -> Result<(String, Tls), String> {
    let (rest, given) = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        split_query(url)
    } else {
        split_key_values(url)
    };
    let value = |name: &str| {
        given
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mode = match value("sslmode") {
        None => SslMode::Prefer,
        Some(m) => SslMode::parse(&m).ok_or_else(|| {
            format!(
                "sslmode '{m}' is not one of disable, allow, prefer, require, verify-ca, verify-full"
            )
        })?,
    };
    let tls = Tls {
        mode,
        root_cert: value("sslrootcert").map(PathBuf::from),
        cert: value("sslcert").map(PathBuf::from),
        key: value("sslkey").map(PathBuf::from),
    };
    Ok((rest, tls))
}

/// `url` with the link's parameters it leaves out taken from the
/// environment (`var`), and libpq's `~/.postgresql/root.crt` (under
/// `home`) as `sslrootcert` when it exists and none is given: everything
/// the link needs, in the URL that every process of keep is handed.
pub fn complete_url(
    url: &str,
    var: impl Fn(&str) -> Option<String>,
    home: Option<&Path>,
) -> String {
    let is_url = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let (_, given) = if is_url {
        split_query(url)
    } else {
        split_key_values(url)
    };
    let has = |name: &str| given.iter().any(|(k, _)| k == name);
    let mut added: Vec<(&str, String)> = PARAMETERS
        .iter()
        .filter(|(name, _)| !has(name))
        .filter_map(|(name, variable)| Some((*name, var(variable).filter(|v| !v.is_empty())?)))
        .collect();
    if !has("sslrootcert")
        && !added.iter().any(|(n, _)| *n == "sslrootcert")
        && let Some(default) = home
            .map(|h| h.join(".postgresql/root.crt"))
            .filter(|p| p.is_file())
    {
        added.push(("sslrootcert", default.display().to_string()));
    }
    let mut out = url.to_string();
    for (name, value) in added {
        if is_url {
            out.push(if out.contains('?') { '&' } else { '?' });
            out.push_str(&format!("{name}={}", percent_encoded(&value)));
        } else {
            out.push_str(&format!(" {name}={value}"));
        }
    }
    out
}

fn percent_encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `url` without the link's parameters, whatever their values: for
/// naming the server and reading its other settings.
pub fn without_link_parameters(url: &str) -> String {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        split_query(url).0
    } else {
        split_key_values(url).0
    }
}

fn is_link_parameter(name: &str) -> bool {
    PARAMETERS.iter().any(|(p, _)| *p == name)
}

fn split_query(url: &str) -> (String, Vec<(String, String)>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), Vec::new());
    };
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if is_link_parameter(name) {
            taken.push((name.to_string(), percent_decoded(value)));
        } else {
            kept.push(pair);
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (rest, taken)
}

fn split_key_values(text: &str) -> (String, Vec<(String, String)>) {
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some((name, value)) if is_link_parameter(name) => {
                taken.push((name.to_string(), value.trim_matches('\'').to_string()));
            }
            _ => kept.push(word),
        }
    }
    (kept.join(" "), taken)
}

/// `%XX` escapes of a URL's query value decoded (a path may hold them).
fn percent_decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Tls {
    /// The driver's setting for this mode.
    pub fn driver_mode(&self) -> postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        }
    }

    /// The connector: a rustls client that checks what the mode asks.
    pub fn connector(&self) -> Result<MakeRustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let roots = match &self.root_cert {
            Some(file) => Some(root_store(file)?),
            None if self.mode.verifies() => {
                return Err(format!(
                    "sslmode={} needs the certificate of the CA that signed the server's: \
                     sslrootcert=FILE in the URL, PGSSLROOTCERT, or ~/.postgresql/root.crt",
                    self.mode.name()
                ));
            }
            None => None,
        };
        let algorithms = provider.signature_verification_algorithms;
        let verifier: Arc<dyn ServerCertVerifier> = match (self.mode, roots) {
            (SslMode::VerifyFull, Some(roots)) => web_pki(roots, &provider)?,
            (SslMode::Require | SslMode::VerifyCa, Some(roots)) => Arc::new(Lenient {
                chain: Some(web_pki(roots, &provider)?),
                algorithms,
            }),
            _ => Arc::new(Lenient {
                chain: None,
                algorithms,
            }),
        };
        let builder = builder
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let config = match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => builder
                .with_client_auth_cert(certificates(cert)?, private_key(key)?)
                .map_err(|e| {
                    format!(
                        "sslcert {} and sslkey {}: {e}",
                        cert.display(),
                        key.display()
                    )
                })?,
            (Some(_), None) | (None, Some(_)) => {
                return Err("sslcert and sslkey go together: give both or neither".into());
            }
            (None, None) => builder.with_no_client_auth(),
        };
        Ok(MakeRustlsConnect::new(config))
    }
}

fn web_pki(
    roots: RootCertStore,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| format!("the CA certificates: {e}"))
}

/// The system's CA bundle, for `sslrootcert=system`.
fn system_bundle() -> Option<PathBuf> {
    std::env::var_os("SSL_CERT_FILE")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/etc/ssl/certs/ca-certificates.crt",
                "/etc/pki/tls/certs/ca-bundle.crt",
                "/etc/ssl/cert.pem",
            ]
            .map(PathBuf::from),
        )
        .find(|p| p.is_file())
}

fn root_store(file: &Path) -> Result<RootCertStore, String> {
    let file = if file == Path::new("system") {
        system_bundle().ok_or("sslrootcert=system: no CA bundle found on this system")?
    } else {
        file.to_path_buf()
    };
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certificates(&file)?);
    if added == 0 {
        return Err(format!(
            "sslrootcert {}: no certificate in it",
            file.display()
        ));
    }
    Ok(roots)
}

fn certificates(file: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(file)
        .and_then(|c| c.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: not a PEM certificate file ({e})", file.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate in it", file.display()));
    }
    Ok(certs)
}

fn private_key(file: &Path) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_file(file)
        .map_err(|e| format!("{}: not a PEM private key ({e})", file.display()))
}

/// The checks of the modes that ask less than webpki's: none of the
/// certificate (prefer, and require without a CA: the link is encrypted,
/// the server not authenticated), or its chain to the CA but not the name
/// it gives (verify-ca). Handshake signatures are always checked.
#[derive(Debug)]
struct Lenient {
    chain: Option<Arc<WebPkiServerVerifier>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A TLS failure in words a user can act on, or None when `text` (a
/// driver error with its causes) is not one.
pub fn failure(text: &str, tls: &Tls, host: &str) -> Option<String> {
    let root = tls
        .root_cert
        .as_ref()
        .map_or("the CA certificate".to_string(), |p| {
            format!("sslrootcert {}", p.display())
        });
    if text.contains("no encryption") && text.contains("pg_hba.conf") {
        return Some(format!(
            "the server accepts only encrypted connections and sslmode is {}: use sslmode=require, \
             or verify-full with sslrootcert",
            tls.mode.name()
        ));
    }
    if text.contains("server does not support TLS") || text.contains("server does not support SSL")
    {
        return Some(format!(
            "the server does not offer encryption (its ssl setting is off) and sslmode is {}",
            tls.mode.name()
        ));
    }
    if text.contains("NotValidForName") || text.contains("not valid for name") {
        return Some(format!(
            "the server's certificate is not for host '{host}' (sslmode=verify-full checks the \
             name; connect by a name the certificate gives, or use verify-ca)"
        ));
    }
    if text.contains("UnknownIssuer") || text.contains("BadSignature") {
        return Some(format!(
            "the server's certificate is not signed by the CA in {root}"
        ));
    }
    if text.contains("Expired") && text.contains("certificate") {
        return Some("the server's certificate has expired".into());
    }
    if text.contains("invalid peer certificate") {
        return Some(format!("the server's certificate was refused: {text}"));
    }
    None
}

/// Whether `host` is this machine: a Unix socket, a loopback address or
/// `localhost`, where an unencrypted link crosses no network.
pub fn is_local(host: &postgres::config::Host) -> bool {
    match host {
        postgres::config::Host::Unix(_) => true,
        postgres::config::Host::Tcp(name) => {
            name == "localhost"
                || name
                    .trim_matches(|c| c == '[' || c == ']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_parameters_leave_the_url_for_the_driver() {
        let (rest, tls) = split(
            "postgres://keep@db.example/keep?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=5",
        )
        .unwrap();
        assert_eq!(rest, "postgres://keep@db.example/keep?connect_timeout=5");
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert, Some(PathBuf::from("/etc/ca.pem")));
        let (rest, tls) = split("host=db user=keep sslmode=require").unwrap();
        assert_eq!(rest, "host=db user=keep");
        assert_eq!(tls.mode, SslMode::Require);
    }

    #[test]
    fn the_environment_fills_what_the_url_leaves_out_and_prefer_is_the_default() {
        let env = |name: &str| match name {
            "PGSSLMODE" => Some("verify-ca".to_string()),
            "PGSSLROOTCERT" => Some("/env/ca.pem".to_string()),
            _ => None,
        };
        let url = complete_url("postgres://keep@db/keep?sslrootcert=/url/ca.pem", env, None);
        assert_eq!(
            url,
            "postgres://keep@db/keep?sslrootcert=/url/ca.pem&sslmode=verify-ca"
        );
        let (_, tls) = split(&url).unwrap();
        assert_eq!(tls.mode, SslMode::VerifyCa);
        assert_eq!(tls.root_cert, Some(PathBuf::from("/url/ca.pem")));
        let (_, tls) = split("postgres://keep@db/keep").unwrap();
        assert_eq!(tls.mode, SslMode::Prefer);
        let err = split("postgres://keep@db/keep?sslmode=verify").unwrap_err();
        assert!(err.contains("sslmode 'verify'"), "{err}");
    }

    #[test]
    fn a_verifying_mode_without_a_ca_is_refused_before_connecting() {
        let (_, tls) = split("postgres://keep@db/keep?sslmode=verify-full").unwrap();
        let err = tls.connector().err().unwrap();
        assert!(err.contains("needs the certificate of the CA"), "{err}");
    }

    #[test]
    fn loopback_and_sockets_are_local() {
        use postgres::config::Host;
        assert!(is_local(&Host::Tcp("localhost".into())));
        assert!(is_local(&Host::Tcp("127.0.0.1".into())));
        assert!(is_local(&Host::Tcp("::1".into())));
        assert!(is_local(&Host::Unix("/run/postgresql".into())));
        assert!(!is_local(&Host::Tcp("db.example".into())));
        assert!(!is_local(&Host::Tcp("10.0.0.5".into())));
    }
}
