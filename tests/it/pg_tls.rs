//! The link to PostgreSQL, encrypted: a real server (Debian's PostgreSQL
//! from `./scripts/setup.sh`) with `ssl = on` that accepts network
//! connections only over TLS (`hostssl`), as managed servers do, with a CA
//! and certificates made here with openssl. Each sslmode does what libpq's
//! does; a refusal is one line that says why.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Env, repo_root};

/// A CA (`ca.crt`), a second CA (`other-ca.crt`), a server's key and
/// certificate for `localhost` only signed by the first (`server.*`) and
/// one signed by the second (`renewed.*`), and a client's for role
/// `certuser` (`client.*`), made in `dir`.
pub(crate) fn certificates(dir: &Path) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl (a dependency of Debian's PostgreSQL packages)");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let new_key = |name: &str, subject: &str, self_signed: bool| {
        let (key, out) = (
            format!("{name}.key"),
            format!("{name}.{}", if self_signed { "crt" } else { "csr" }),
        );
        let mut args = vec![
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        if self_signed {
            args.extend(["-x509", "-days", "2"]);
        }
        args.extend(["-keyout", &key, "-out", &out, "-subj", subject]);
        openssl(&args);
    };
    let signed = |name: &str, by: &str, extensions: &str| {
        let ext = format!("{name}.ext");
        std::fs::write(dir.join(&ext), extensions).unwrap();
        let (csr, crt) = (format!("{name}.csr"), format!("{name}.crt"));
        let (ca_crt, ca_key) = (format!("{by}.crt"), format!("{by}.key"));
        openssl(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca_crt,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-out",
            &crt,
            "-days",
            "2",
            "-extfile",
            &ext,
        ]);
    };
    new_key("ca", "/CN=keep test CA", true);
    new_key("other-ca", "/CN=another CA", true);
    let for_localhost = "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n";
    new_key("server", "/CN=localhost", false);
    signed("server", "ca", for_localhost);
    new_key("renewed", "/CN=localhost", false);
    signed("renewed", "other-ca", for_localhost);
    new_key("client", "/CN=certuser", false);
    signed(
        "client",
        "ca",
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n",
    );
}

/// A private server listening on 127.0.0.1 with TLS only, where role
/// `certuser` logs in with its certificate; stopped when dropped.
struct TlsServer {
    dir: tempfile::TempDir,
    port: u16,
}

impl TlsServer {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).unwrap();
        certificates(&certs);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let out = Command::new(repo_root().join("scripts/pg.sh"))
            .args(["start"])
            .arg(dir.path().join("pg"))
            .env("KEEP_PG_TLS", &certs)
            .env("KEEP_PG_PORT", port.to_string())
            .env("KEEP_PG_CERT_USER", "certuser")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "PostgreSQL with TLS did not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        TlsServer { dir, port }
    }

    fn cert(&self, name: &str) -> PathBuf {
        self.dir.path().join("certs").join(name)
    }

    /// The URL of database `keep` at `host`, with `query`.
    fn url(&self, host: &str, query: &str) -> String {
        let base = format!("postgres://keep@{host}:{}/keep", self.port);
        if query.is_empty() {
            base
        } else {
            format!("{base}?{query}")
        }
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = Command::new(repo_root().join("scripts/pg.sh"))
            .arg("stop")
            .arg(self.dir.path().join("pg"))
            .output();
    }
}

/// A keep whose store is `url`.
fn keep_at(url: &str) -> Env {
    let mut env = Env::on(false);
    env.set("KEEP_STORE", url);
    env
}

/// What `keep doctor` says (it fails here for want of models).
fn doctor_says(env: &Env) -> String {
    String::from_utf8(env.run(&["doctor"]).stdout).unwrap()
}

/// The one line a command that cannot reach the store prints.
fn refusal(url: &str) -> String {
    let out = keep_at(url).run(&["stats"]);
    assert!(!out.status.success(), "{url} was reached");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn each_sslmode_does_what_libpq_does_and_each_refusal_says_why() {
    let server = TlsServer::start();
    let ca = server.cert("ca.crt");
    let ca = ca.to_str().unwrap();
    let other = server.cert("other-ca.crt");
    let other = other.to_str().unwrap();

    // Checked all the way: the notes go through and back.
    let full = server.url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    let env = keep_at(&full);
    let id = env.put("The ferry leaves the harbour at nine.", &[]);
    assert!(env.ok(&["get", &id]).contains("ferry leaves"));
    let doctor = doctor_says(&env);
    assert!(
        doctor.contains("link       encrypted (TLSv1.3, sslmode=verify-full: the server's certificate and name checked)"),
        "{doctor}"
    );

    // The default, as libpq's: encrypted when the server offers it.
    let prefer = keep_at(&server.url("localhost", ""));
    assert_eq!(prefer.ok(&["list", "--ids"]).trim(), id);
    let doctor = doctor_says(&prefer);
    assert!(
        doctor.contains("encrypted (TLSv1.3, sslmode=prefer"),
        "{doctor}"
    );
    assert!(
        prefer.run(&["list"]).stderr.is_empty(),
        "no warning on this machine"
    );

    // The environment, as libpq reads it, for a URL that says nothing.
    let mut from_env = keep_at(&server.url("localhost", ""));
    from_env.set("PGSSLMODE", "verify-full");
    from_env.set("PGSSLROOTCERT", ca);
    assert!(doctor_says(&from_env).contains("sslmode=verify-full"));
    from_env.set("PGSSLROOTCERT", other);
    let out = from_env.run(&["stats"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not signed by the CA"));

    // The name is checked by verify-full only.
    let by_address =
        |mode: &str| server.url("127.0.0.1", &format!("sslmode={mode}&sslrootcert={ca}"));
    let said = refusal(&by_address("verify-full"));
    assert!(
        said.contains("the server's certificate is not for host '127.0.0.1'"),
        "{said}"
    );
    assert_eq!(
        keep_at(&by_address("verify-ca"))
            .ok(&["list", "--ids"])
            .trim(),
        id
    );

    // Each refusal in one line that says which.
    let said = refusal(&server.url("localhost", "sslmode=disable"));
    assert!(
        said.contains("the server accepts only encrypted connections and sslmode is disable"),
        "{said}"
    );
    let said = refusal(&server.url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={other}"),
    ));
    assert!(
        said.contains(&format!(
            "the server's certificate is not signed by the CA in sslrootcert {other}"
        )),
        "{said}"
    );
    let said = refusal(&server.url("localhost", "sslmode=verify-full"));
    assert!(
        said.contains("sslmode=verify-full needs the certificate of the CA"),
        "{said}"
    );
    let said = refusal(&server.url("localhost", "sslmode=verify"));
    assert!(
        said.contains("sslmode 'verify' is not one of disable, allow, prefer"),
        "{said}"
    );
    let missing = server.dir.path().join("no-such-ca.crt");
    let said = refusal(&server.url(
        "localhost",
        &format!("sslmode=verify-ca&sslrootcert={}", missing.display()),
    ));
    assert!(
        said.contains("no-such-ca.crt: not a PEM certificate file"),
        "{said}"
    );
}

#[test]
fn a_client_certificate_logs_in_where_the_server_asks_for_one() {
    let server = TlsServer::start();
    let ca = server.cert("ca.crt");
    let (cert, key) = (server.cert("client.crt"), server.cert("client.key"));
    let url = |extra: &str| {
        format!(
            "postgres://certuser@localhost:{}/keep?sslmode=verify-full&sslrootcert={}{extra}",
            server.port,
            ca.display()
        )
    };
    let said = refusal(&url(""));
    assert!(said.contains("certificate"), "{said}");
    let with_cert = url(&format!(
        "&sslcert={}&sslkey={}",
        cert.display(),
        key.display()
    ));
    let env = keep_at(&with_cert);
    let id = env.put("Signed in by certificate.", &[]);
    assert_eq!(env.ok(&["list", "--ids"]).trim(), id);
    // The same through the environment, as libpq reads it.
    let mut from_env = keep_at(&url(""));
    from_env.set("PGSSLCERT", cert.to_str().unwrap());
    from_env.set("PGSSLKEY", key.to_str().unwrap());
    assert_eq!(from_env.ok(&["list", "--ids"]).trim(), id);
    let said = refusal(&url(&format!("&sslcert={}", cert.display())));
    assert!(said.contains("sslcert and sslkey go together"), "{said}");
}
