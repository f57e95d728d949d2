//! `keep connect`: the MCP clients keep knows, where each keeps its list of
//! servers (per platform, user-wide or per project), and the entry that
//! starts keep in that list. `merge` puts an entry into a client's file
//! without losing anything else in it; `hooks` does the same for the
//! session hooks of Claude Code's settings.

pub mod hooks;
pub mod merge;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// An MCP client whose configuration `keep connect` writes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Client {
    /// Claude Code (~/.claude.json; project: .mcp.json)
    ClaudeCode,
    /// Claude Desktop (claude_desktop_config.json)
    ClaudeDesktop,
    /// Cursor (~/.cursor/mcp.json; project: .cursor/mcp.json)
    Cursor,
    /// Visual Studio Code (the user's mcp.json; project: .vscode/mcp.json)
    Vscode,
    /// Windsurf (~/.codeium/windsurf/mcp_config.json)
    Windsurf,
    /// Zed (~/.config/zed/settings.json; project: .zed/settings.json)
    Zed,
    /// OpenAI Codex (~/.codex/config.toml; project: .codex/config.toml)
    Codex,
}

/// Every client, in the order the docs list them.
pub const CLIENTS: [Client; 7] = [
    Client::ClaudeCode,
    Client::ClaudeDesktop,
    Client::Cursor,
    Client::Vscode,
    Client::Windsurf,
    Client::Zed,
    Client::Codex,
];

/// How a client's file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON, comments and trailing commas allowed (and kept).
    Json,
    /// TOML.
    Toml,
}

/// The operating systems whose file layouts keep knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux,
    MacOs,
}

impl Platform {
    pub fn current() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Linux
        }
    }
}

/// What locates a client's user-wide file: the home folder and the
/// variables some clients honour.
#[derive(Debug, Clone, Default)]
pub struct Places {
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME`, when set.
    pub xdg_config: Option<PathBuf>,
    /// `CODEX_HOME`, when set.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`, when set.
    pub claude_config: Option<PathBuf>,
}

impl Places {
    /// The `~/.config` of Linux (or `XDG_CONFIG_HOME`).
    fn config(&self) -> PathBuf {
        self.xdg_config
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// macOS's `~/Library/Application Support`.
    fn application_support(&self) -> PathBuf {
        self.home.join("Library").join("Application Support")
    }
}

/// Where an entry goes: the file, its syntax, and the path of keys to the
/// table of servers in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub file: PathBuf,
    pub syntax: Syntax,
    pub servers: &'static [&'static str],
}

/// How the client reaches keep.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// The client starts `program` with `args` and `env`.
    Stdio {
        program: PathBuf,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// The client calls a running `keep serve` at `url`, with a bearer
    /// token when the server is off this machine.
    Http { url: String, token: Option<String> },
}

/// Why an entry cannot be made for a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl Client {
    /// The name on the command line (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Zed => "zed",
            Client::Codex => "codex",
        }
    }

    /// The client's name as people write it.
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::Zed => "Zed",
            Client::Codex => "Codex",
        }
    }

    fn syntax(self) -> Syntax {
        match self {
            Client::Codex => Syntax::Toml,
            _ => Syntax::Json,
        }
    }

    /// The keys leading to the table of servers.
    fn servers(self) -> &'static [&'static str] {
        match self {
            Client::Vscode => &["servers"],
            Client::Zed => &["context_servers"],
            Client::Codex => &["mcp_servers"],
            _ => &["mcpServers"],
        }
    }

    /// The user-wide file on `platform`.
    pub fn user_file(self, platform: Platform, places: &Places) -> PathBuf {
        let home = &places.home;
        match (self, platform) {
            (Client::ClaudeCode, _) => places
                .claude_config
                .clone()
                .unwrap_or_else(|| home.clone())
                .join(".claude.json"),
            (Client::ClaudeDesktop, Platform::Linux) => places
                .config()
                .join("Claude")
                .join("claude_desktop_config.json"),
            (Client::ClaudeDesktop, Platform::MacOs) => places
                .application_support()
                .join("Claude")
                .join("claude_desktop_config.json"),
            (Client::Cursor, _) => home.join(".cursor").join("mcp.json"),
            (Client::Vscode, Platform::Linux) => {
                places.config().join("Code").join("User").join("mcp.json")
            }
            (Client::Vscode, Platform::MacOs) => places
                .application_support()
                .join("Code")
                .join("User")
                .join("mcp.json"),
            (Client::Windsurf, _) => home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            (Client::Zed, Platform::Linux) => places.config().join("zed").join("settings.json"),
            (Client::Zed, Platform::MacOs) => {
                home.join(".config").join("zed").join("settings.json")
            }
            (Client::Codex, _) => places
                .codex_home
                .clone()
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
        }
    }

    /// The settings file that holds the client's session hooks (user-wide,
    /// or in project folder `dir`), for the clients that have them.
    pub fn hooks_file(self, places: &Places, project: Option<&Path>) -> Option<PathBuf> {
        match (self, project) {
            (Client::ClaudeCode, Some(dir)) => Some(dir.join(".claude").join("settings.json")),
            (Client::ClaudeCode, None) => Some(
                places
                    .claude_config
                    .clone()
                    .unwrap_or_else(|| places.home.join(".claude"))
                    .join("settings.json"),
            ),
            _ => None,
        }
    }

    /// The file inside project folder `dir`, for clients that read one.
    pub fn project_file(self, dir: &Path) -> Option<PathBuf> {
        let relative = match self {
            Client::ClaudeCode => ".mcp.json",
            Client::Cursor => ".cursor/mcp.json",
            Client::Vscode => ".vscode/mcp.json",
            Client::Zed => ".zed/settings.json",
            Client::Codex => ".codex/config.toml",
            Client::ClaudeDesktop | Client::Windsurf => return None,
        };
        Some(dir.join(relative))
    }

    /// The target for `file`.
    pub fn target(self, file: PathBuf) -> Target {
        Target {
            file,
            syntax: self.syntax(),
            servers: self.servers(),
        }
    }

    /// The entry that starts (or calls) keep, in this client's words.
    pub fn entry(self, transport: &Transport) -> Result<Value, Unsupported> {
        match transport {
            Transport::Stdio { program, args, env } => Ok(self.stdio_entry(program, args, env)),
            Transport::Http { url, token } => self.http_entry(url, token.as_deref()),
        }
    }

    fn stdio_entry(self, program: &Path, args: &[String], env: &[(String, String)]) -> Value {
        let mut entry = Map::new();
        if matches!(self, Client::ClaudeCode | Client::Vscode) {
            entry.insert("type".into(), json!("stdio"));
        }
        entry.insert("command".into(), json!(program.to_string_lossy()));
        entry.insert("args".into(), json!(args));
        if !env.is_empty() {
            let env: Map<String, Value> = env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            entry.insert("env".into(), Value::Object(env));
        }
        Value::Object(entry)
    }

    fn http_entry(self, url: &str, token: Option<&str>) -> Result<Value, Unsupported> {
        let url_key = match self {
            Client::ClaudeDesktop => {
                return Err(Unsupported(
                    "Claude Desktop starts its servers itself and takes no URL in its file: \
                     leave out --http (keep mcp shares the store with a running keep serve)"
                        .into(),
                ));
            }
            Client::Windsurf => "serverUrl",
            _ => "url",
        };
        let mut entry = Map::new();
        if matches!(self, Client::ClaudeCode | Client::Vscode) {
            entry.insert("type".into(), json!("http"));
        }
        entry.insert(url_key.into(), json!(url));
        if let Some(token) = token {
            let headers_key = match self {
                Client::Codex => "http_headers",
                _ => "headers",
            };
            entry.insert(
                headers_key.into(),
                json!({ "Authorization": format!("Bearer {token}") }),
            );
        }
        Ok(Value::Object(entry))
    }
}

/// Whether `url` names a server on this machine (loopback), which takes
/// no token.
pub fn is_loopback_url(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            home: PathBuf::from("/home/ana"),
            ..Places::default()
        }
    }

    #[test]
    fn each_client_has_its_own_user_file_on_each_platform() {
        let at = |c: Client, p| c.user_file(p, &places()).display().to_string();
        assert_eq!(
            at(Client::ClaudeCode, Platform::Linux),
            "/home/ana/.claude.json"
        );
        assert_eq!(
            at(Client::ClaudeDesktop, Platform::MacOs),
            "/home/ana/Library/Application Support/Claude/claude_desktop_config.json"
        );
        assert_eq!(
            at(Client::ClaudeDesktop, Platform::Linux),
            "/home/ana/.config/Claude/claude_desktop_config.json"
        );
        assert_eq!(
            at(Client::Vscode, Platform::Linux),
            "/home/ana/.config/Code/User/mcp.json"
        );
        assert_eq!(
            at(Client::Vscode, Platform::MacOs),
            "/home/ana/Library/Application Support/Code/User/mcp.json"
        );
        assert_eq!(
            at(Client::Cursor, Platform::MacOs),
            "/home/ana/.cursor/mcp.json"
        );
        assert_eq!(
            at(Client::Windsurf, Platform::Linux),
            "/home/ana/.codeium/windsurf/mcp_config.json"
        );
        assert_eq!(
            at(Client::Zed, Platform::MacOs),
            "/home/ana/.config/zed/settings.json"
        );
        assert_eq!(
            at(Client::Codex, Platform::Linux),
            "/home/ana/.codex/config.toml"
        );
    }

    #[test]
    fn variables_the_clients_honour_move_their_files() {
        let moved = Places {
            xdg_config: Some(PathBuf::from("/x")),
            codex_home: Some(PathBuf::from("/c")),
            claude_config: Some(PathBuf::from("/cc")),
            ..places()
        };
        assert_eq!(
            Client::Zed.user_file(Platform::Linux, &moved),
            PathBuf::from("/x/zed/settings.json")
        );
        assert_eq!(
            Client::Codex.user_file(Platform::Linux, &moved),
            PathBuf::from("/c/config.toml")
        );
        assert_eq!(
            Client::ClaudeCode.user_file(Platform::Linux, &moved),
            PathBuf::from("/cc/.claude.json")
        );
    }

    #[test]
    fn clients_without_a_project_file_have_none() {
        let dir = Path::new("/p");
        assert_eq!(Client::ClaudeDesktop.project_file(dir), None);
        assert_eq!(Client::Windsurf.project_file(dir), None);
        assert_eq!(
            Client::Vscode.project_file(dir),
            Some(PathBuf::from("/p/.vscode/mcp.json"))
        );
    }

    #[test]
    fn entries_speak_each_clients_dialect() {
        let stdio = Transport::Stdio {
            program: PathBuf::from("/usr/local/bin/keep"),
            args: vec!["mcp".into()],
            env: vec![("KEEP_STORE".into(), "/data/keep".into())],
        };
        assert_eq!(
            Client::Vscode.entry(&stdio).unwrap(),
            json!({"type": "stdio", "command": "/usr/local/bin/keep", "args": ["mcp"],
                   "env": {"KEEP_STORE": "/data/keep"}})
        );
        assert_eq!(
            Client::Cursor.entry(&stdio).unwrap()["command"],
            "/usr/local/bin/keep"
        );
        let http = Transport::Http {
            url: "http://host:7377/mcp".into(),
            token: Some("t0k".into()),
        };
        assert_eq!(
            Client::Windsurf.entry(&http).unwrap(),
            json!({"serverUrl": "http://host:7377/mcp", "headers": {"Authorization": "Bearer t0k"}})
        );
        assert_eq!(
            Client::Codex.entry(&http).unwrap()["http_headers"]["Authorization"],
            "Bearer t0k"
        );
        assert_eq!(Client::ClaudeCode.entry(&http).unwrap()["type"], "http");
        assert!(Client::ClaudeDesktop.entry(&http).is_err());
    }

    #[test]
    fn loopback_urls_are_told_from_others() {
        for url in [
            "http://127.0.0.1:7377/mcp",
            "http://localhost:7377/mcp",
            "http://[::1]:7377/mcp",
            "http://LOCALHOST/mcp",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
        for url in [
            "http://10.0.0.2:7377/mcp",
            "http://host.example.org/mcp",
            "http://localhost.example.org/mcp",
            "ftp://127.0.0.1/",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }
}
