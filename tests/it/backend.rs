//! The database every test's store lives in: a folder (SQLite) by default,
//! or with `KEEP_TEST_BACKEND=postgres` a database of its own on a private
//! PostgreSQL server that this test process starts in a temporary folder
//! (from `./scripts/setup.sh`) and stops when it exits.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which database the tests run on.
pub fn postgres() -> bool {
    std::env::var("KEEP_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The server: its folder and the URL of its `keep` database.
struct Server {
    dir: PathBuf,
    url: String,
}

static SERVER: OnceLock<Server> = OnceLock::new();

extern "C" fn stop_server() {
    if let Some(server) = SERVER.get() {
        let _ = Command::new(repo().join("scripts/pg.sh"))
            .arg("stop")
            .arg(&server.dir)
            .output();
        let _ = std::fs::remove_dir_all(&server.dir);
    }
}

fn server() -> &'static Server {
    SERVER.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("keep-it-pg-{}", std::process::id()));
        let out = Command::new(repo().join("scripts/pg.sh"))
            .arg("start")
            .arg(&dir)
            .output()
            .expect("run scripts/pg.sh");
        assert!(
            out.status.success(),
            "could not start PostgreSQL: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // SAFETY: registers a plain function without arguments to run at exit.
        unsafe { libc::atexit(stop_server) };
        Server {
            dir,
            url: String::from_utf8(out.stdout).unwrap().trim().to_string(),
        }
    })
}

/// A database of one test, dropped with it.
pub struct Database {
    pub name: String,
    pub url: String,
}

impl Database {
    pub fn create() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let server = server();
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        admin(server, &format!("CREATE DATABASE {name}"));
        let (base, query) = server.url.split_once('?').expect("a socket URL");
        let (prefix, _) = base.rsplit_once('/').expect("a database in the URL");
        Database {
            url: format!("{prefix}/{name}?{query}"),
            name,
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Some(server) = SERVER.get() {
            admin(
                server,
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            );
        }
    }
}

fn admin(server: &Server, sql: &str) {
    let mut client = postgres::Client::connect(&server.url, postgres::NoTls)
        .expect("connect to the test server");
    client.batch_execute(sql).expect(sql);
}

/// A PostgreSQL server of one test's own, in `dir`, which the test may
/// stop and start again (a restart of the database under keep).
pub struct PrivateServer {
    dir: PathBuf,
    pub url: String,
}

impl PrivateServer {
    pub fn start(dir: &Path) -> PrivateServer {
        let url = pg(&["start"], dir);
        PrivateServer {
            dir: dir.to_path_buf(),
            url,
        }
    }

    pub fn stop(&self) {
        pg(&["stop"], &self.dir);
    }

    /// A hot standby of `primary` in `dir` (pg_basebackup, streaming
    /// replication), started.
    pub fn standby_of(primary: &PrivateServer, dir: &Path) -> PrivateServer {
        let out = Command::new(repo().join("scripts/pg.sh"))
            .arg("standby")
            .arg(dir)
            .arg(&primary.dir)
            .output()
            .expect("run scripts/pg.sh");
        assert!(
            out.status.success(),
            "pg.sh standby: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        PrivateServer {
            dir: dir.to_path_buf(),
            url: String::from_utf8(out.stdout).unwrap().trim().to_string(),
        }
    }

    /// The first column of the first row of `sql`, as text.
    pub fn value(&self, sql: &str) -> String {
        let mut client =
            postgres::Client::connect(&self.url, postgres::NoTls).expect("connect as superuser");
        let rows = client.simple_query(sql).expect(sql);
        rows.iter()
            .find_map(|m| match m {
                postgres::SimpleQueryMessage::Row(row) => {
                    Some(row.get(0).unwrap_or("").to_string())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    pub fn restart(&self) {
        pg(&["start"], &self.dir);
    }

    /// Runs `sql` as the server's superuser.
    pub fn sql(&self, sql: &str) {
        let mut client =
            postgres::Client::connect(&self.url, postgres::NoTls).expect("connect as superuser");
        client.batch_execute(sql).expect(sql);
    }

    /// The server's `pg_hba.conf`.
    pub fn hba(&self) -> PathBuf {
        self.dir.join("data/pg_hba.conf")
    }

    /// The folder of its socket, which its URL names.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = Command::new(repo().join("scripts/pg.sh"))
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

fn pg(action: &[&str], dir: &Path) -> String {
    let out = Command::new(repo().join("scripts/pg.sh"))
        .args(action)
        .arg(dir)
        .output()
        .expect("run scripts/pg.sh");
    assert!(
        out.status.success(),
        "pg.sh {action:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
