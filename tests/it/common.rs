//! A hermetic environment for running the real binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const T0: &str = "2026-11-22T10:00:00Z";

pub struct Env {
    /// The PostgreSQL database of this test's store, when tests run there.
    database: Option<crate::backend::Database>,
    dir: tempfile::TempDir,
    clock: String,
    model: Option<(PathBuf, PathBuf)>,
    ocr: Option<PathBuf>,
    vars: Vec<(String, String)>,
}

/// The data directory `./scripts/setup.sh` installs into.
fn data_dir() -> PathBuf {
    std::env::var_os("KEEP_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::data_dir().map(|d| d.join("keep")))
        .expect("a data directory")
}

/// The OCR models installed by `./scripts/setup.sh`.
fn installed_ocr() -> PathBuf {
    let dir = data_dir().join("models").join("ppocrv6");
    assert!(
        dir.join("PP-OCRv6_rec_small.rten").is_file(),
        "the OCR models are not installed in {}: run ./scripts/setup.sh (or keep models install)",
        dir.display()
    );
    dir
}

/// The model and runtime installed by `./scripts/setup.sh`.
fn installed_model() -> (PathBuf, PathBuf) {
    let data = data_dir();
    let model = data.join("models").join(keep_core::models::DEFAULT_MODEL);
    let lib = data.join("runtime").join("libonnxruntime.so");
    assert!(
        model.join("model.onnx").is_file() && lib.is_file(),
        "the embedding model is not installed in {}: run ./scripts/setup.sh (or keep models install)",
        data.display()
    );
    (model, lib)
}

impl Env {
    pub fn new() -> Self {
        Self::on(crate::backend::postgres())
    }

    /// An environment whose store is on PostgreSQL or in a folder,
    /// whichever backend the suite runs on.
    pub fn on(postgres: bool) -> Self {
        Env {
            database: postgres.then(crate::backend::Database::create),
            dir: tempfile::tempdir().expect("temp dir"),
            clock: T0.to_string(),
            model: None,
            ocr: None,
            vars: Vec::new(),
        }
    }

    /// Uses the real OCR models from now on.
    pub fn install_ocr(&mut self) {
        self.ocr = Some(installed_ocr());
    }

    /// Sets an environment variable for following commands.
    pub fn set(&mut self, key: &str, value: &str) {
        self.vars.push((key.to_string(), value.to_string()));
    }

    /// An environment with the real embedding model.
    pub fn with_model() -> Self {
        let mut env = Env::new();
        env.model = Some(installed_model());
        env
    }

    /// Uses the real model from now on.
    pub fn install_model(&mut self) {
        self.model = Some(installed_model());
    }

    /// The store's folder: the one holding `keep.db`, or the local folder
    /// of a store on PostgreSQL.
    pub fn store(&self) -> PathBuf {
        match &self.database {
            Some(db) => keep::config::server_store_dir(&self.dir.path().join("data"), &db.url),
            None => self.dir.path().join("store"),
        }
    }

    /// What `--store` names: the folder, or the database URL.
    pub fn store_arg(&self) -> String {
        match &self.database {
            Some(db) => db.url.clone(),
            None => self.store().display().to_string(),
        }
    }

    /// Whether this test's store is on PostgreSQL.
    pub fn on_postgres(&self) -> bool {
        self.database.is_some()
    }

    /// Takes the store's write lock from another connection (as another
    /// writer would) and holds it for `seconds`; returns once it is held.
    /// The returned handle ends true when the lock was released cleanly.
    pub fn hold_write_lock(&self, seconds: u64) -> std::thread::JoinHandle<bool> {
        let (held, taken) = std::sync::mpsc::channel();
        let hold = std::time::Duration::from_secs(seconds);
        let handle = match &self.database {
            Some(db) => {
                let url = db.url.clone();
                std::thread::spawn(move || {
                    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                    client
                        .batch_execute("BEGIN; SELECT pg_advisory_xact_lock(1801807216)")
                        .unwrap();
                    held.send(()).unwrap();
                    std::thread::sleep(hold);
                    client.batch_execute("ROLLBACK").is_ok()
                })
            }
            None => {
                let path = self.store().join("keep.db");
                std::thread::spawn(move || {
                    let mut conn = rusqlite::Connection::open(path).unwrap();
                    conn.busy_timeout(std::time::Duration::from_secs(10))
                        .unwrap();
                    let tx = conn
                        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                        .unwrap();
                    held.send(()).unwrap();
                    std::thread::sleep(hold);
                    tx.rollback().is_ok()
                })
            }
        };
        taken.recv().expect("the lock is taken");
        handle
    }

    /// The count a `SELECT count(*) ...` gives on the store's database.
    pub fn sql_count(&self, sql: &str) -> i64 {
        match &self.database {
            Some(db) => postgres::Client::connect(&db.url, postgres::NoTls)
                .expect("connect to the test database")
                .query_one(sql, &[])
                .expect(sql)
                .get(0),
            None => rusqlite::Connection::open(self.store().join("keep.db"))
                .unwrap()
                .query_row(sql, [], |r| r.get(0))
                .expect(sql),
        }
    }

    /// Runs SQL statements directly on the store's database, whichever it
    /// is, as another program (or a fault) would.
    pub fn sql(&self, sql: &str) {
        match &self.database {
            Some(db) => {
                let mut client = postgres::Client::connect(&db.url, postgres::NoTls)
                    .expect("connect to the test database");
                client.batch_execute(sql).expect(sql);
            }
            None => {
                let conn = rusqlite::Connection::open(self.store().join("keep.db")).unwrap();
                conn.execute_batch(sql).expect(sql);
            }
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Sets the fixed clock used by following commands.
    pub fn at(&mut self, clock: &str) {
        self.clock = clock.to_string();
    }

    pub fn bin() -> &'static str {
        env!("CARGO_BIN_EXE_keep")
    }

    fn prepare(&self, cmd: &mut Command) {
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("KEEP_") {
                cmd.env_remove(&key);
            }
        }
        cmd.env("KEEP_STORE", self.store_arg())
            .env("KEEP_CLOCK", &self.clock)
            .env("HOME", self.dir.path())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("NO_COLOR", "1")
            .env("KEEP_CONFIG", self.dir.path().join("config.toml"))
            // No background embedding unless a test asks for it: each test
            // decides when its notes get vectors.
            .env("KEEP_BACKGROUND_EMBED", "0")
            .env_remove("RUST_BACKTRACE")
            .env_remove("PGPASSWORD")
            .env_remove("PGPASSFILE")
            .env_remove("PGSSLMODE")
            .env_remove("PGSSLROOTCERT")
            .env_remove("PGSSLCERT")
            .env_remove("PGSSLKEY")
            // Where MCP clients keep their files: the test's home only.
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(self.dir.path());
        if let Some((model, lib)) = &self.model {
            cmd.env("KEEP_MODEL_DIR", model).env("KEEP_ORT_LIB", lib);
        }
        if let Some(ocr) = &self.ocr {
            cmd.env("KEEP_OCR_DIR", ocr);
        }
        for (key, value) in &self.vars {
            cmd.env(key, value);
        }
    }

    /// Any program, in this environment.
    pub fn program(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args);
        self.prepare(&mut cmd);
        cmd
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(Self::bin());
        cmd.args(args);
        self.prepare(&mut cmd);
        cmd
    }

    pub fn run_with_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        let mut cmd = self.cmd(args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn keep");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input)
            .expect("write stdin");
        child.wait_with_output().expect("wait keep")
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, b"")
    }

    /// Runs a command that must succeed; returns its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "keep {args:?} failed with {:?}\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    pub fn ok_stdin(&self, args: &[&str], input: &str) -> String {
        let out = self.run_with_stdin(args, input.as_bytes());
        assert!(
            out.status.success(),
            "keep {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// Runs a command that must exit with `code`; returns its stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "keep {args:?}: expected exit {code}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stderr).expect("utf-8 stderr")
    }

    /// Puts inline text and returns its id.
    pub fn put(&self, text: &str, tags: &[&str]) -> String {
        let mut args = vec!["put", text];
        for t in tags {
            args.push("-t");
            args.push(t);
        }
        self.ok(&args).trim().to_string()
    }

    /// Runs a bash script with `keep` on PATH and this environment.
    pub fn sh(&self, script: &str) -> Output {
        let bin_dir = Path::new(Self::bin()).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(format!("set -euo pipefail\n{script}"));
        self.prepare(&mut cmd);
        cmd.env("PATH", path);
        cmd.output().expect("run bash")
    }

    /// The JSON document printed by a command.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(&all)).expect("valid JSON")
    }

    /// `keep list --ids -a` as a vector, sorted by id.
    pub fn all_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .ok(&["list", "--ids", "-a", "--sort", "id"])
            .lines()
            .map(String::from)
            .collect();
        ids.sort();
        ids
    }

    /// A full export, as the fingerprint of everything in the store.
    pub fn export(&self) -> String {
        self.ok(&["export"])
    }
}

impl Env {
    /// The JSON document printed by a command fed `input` on stdin.
    pub fn json_stdin(&self, args: &[&str], input: &str) -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok_stdin(&all, input)).expect("valid JSON")
    }
}

/// The repository's root (the workspace), where `testdata/`, `target/`
/// and the checked-in docs live.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}
