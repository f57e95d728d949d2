//! Filter flags shared by `list` and `find`.

use clap_complete::ArgValueCompleter;

use super::complete;
use keep_commands::Filters;

#[derive(Debug, Default, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct FilterArgs {
    /// Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)
    #[arg(short = 't', long = "tag", value_name = "KEY[=VALUE]", add = ArgValueCompleter::new(complete::tag))]
    pub tags: Vec<String>,

    /// Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Only what held then, each note as it stood (superseded and expired ones included while they held): a date, a timestamp, a duration back from now or a spoken day
    #[arg(long, value_name = "WHEN")]
    pub as_of: Option<String>,

    /// Only notes whose event time (put --at), or a date their text speaks of, falls in PERIOD: 2023, 2023-05, 2023-05-07, last week, P7D or FROM..UNTIL
    #[arg(long, value_name = "PERIOD")]
    pub when: Option<String>,

    /// Only notes whose text came from these origins (_origin): typed (by a person on the command line or the browser), agent (put through MCP or the JSON API), document (a file), web (a URL), imported (a chat or an export); comma-separated
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    #[serde(default)]
    pub from: Vec<String>,

    /// Include system notes (ids starting with '.'), expired notes and notes in the trash
    #[arg(short = 'a', long = "all")]
    pub all: bool,
}

impl FilterArgs {
    /// The filters as the commands take them.
    pub fn filters(&self) -> Filters {
        Filters {
            tag: self.tags.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            as_of: self.as_of.clone(),
            when: self.when.clone(),
            from: self.from.clone(),
            all: self.all,
        }
    }
}
