//! TLS for `keep serve`: the certificate chain and key from PEM files,
//! read again at the next handshake after either file changes, so a
//! renewed certificate is served without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// The server's TLS settings for certificate chain `cert` and key `key`
/// (PEM); fails, naming the file, when either cannot be used.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let resolver = Reloading::new(cert, key, Arc::clone(&provider))?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The files' modification times, to see when either changed.
fn stamps(cert: &Path, key: &Path) -> Stamps {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (modified(cert), modified(key))
}

fn load(cert: &Path, key: &Path, provider: &CryptoProvider) -> Result<CertifiedKey, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|c| c.collect::<Result<_, _>>())
        .map_err(|e| {
            format!(
                "--tls-cert {}: not a PEM certificate file ({e})",
                cert.display()
            )
        })?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no certificate in it",
            cert.display()
        ));
    }
    let key_der = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: not a PEM private key ({e})", key.display()))?;
    let signing = provider
        .key_provider
        .load_private_key(key_der)
        .map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    let certified = CertifiedKey::new(chain, signing);
    certified.keys_match().map_err(|e| {
        format!(
            "--tls-key {} is not the key of --tls-cert {} ({e})",
            key.display(),
            cert.display()
        )
    })?;
    Ok(certified)
}

/// The certificate served, read again when its files change.
#[derive(Debug)]
struct Reloading {
    cert: PathBuf,
    key: PathBuf,
    provider: Arc<CryptoProvider>,
    current: Mutex<Served>,
}

type Stamps = (Option<SystemTime>, Option<SystemTime>);

#[derive(Debug)]
struct Served {
    key: Arc<CertifiedKey>,
    /// The files' times when `key` was read.
    stamps: Stamps,
    /// The times of the last read that failed: not tried again (nor said
    /// again) until the files change once more.
    failed: Option<Stamps>,
}

impl Reloading {
    fn new(cert: &Path, key: &Path, provider: Arc<CryptoProvider>) -> Result<Self, String> {
        let stamps = stamps(cert, key);
        let loaded = load(cert, key, &provider)?;
        Ok(Reloading {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            provider,
            current: Mutex::new(Served {
                key: Arc::new(loaded),
                stamps,
                failed: None,
            }),
        })
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let mut served = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = stamps(&self.cert, &self.key);
        if now != served.stamps && served.failed != Some(now) {
            // A pair caught halfway through being replaced is read again
            // once the files change again; until then the old one is served.
            match load(&self.cert, &self.key, &self.provider) {
                Ok(fresh) => {
                    *served = Served {
                        key: Arc::new(fresh),
                        stamps: now,
                        failed: None,
                    };
                    eprintln!(
                        "keep: serving the renewed certificate {}",
                        self.cert.display()
                    );
                }
                Err(e) => {
                    served.failed = Some(now);
                    eprintln!("keep: kept the previous certificate: {e}");
                }
            }
        }
        Some(Arc::clone(&served.key))
    }
}
