//! Filter flags shared by `list` and `find`.

use clap_complete::ArgValueCompleter;

use super::CliError;
use super::complete;
use keep_core::keeper::{FilterSpec, Keeper};
use keep_core::model::{Expired, NoteFilter};

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

    /// Include system notes (ids starting with '.'), expired notes and notes in the trash
    #[arg(short = 'a', long = "all")]
    pub all: bool,
}

impl FilterArgs {
    pub fn to_filter(&self, keeper: &Keeper, scope: Option<&str>) -> Result<NoteFilter, CliError> {
        Ok(keeper.filter(&FilterSpec {
            tags: &self.tags,
            since: self.since.as_deref(),
            until: self.until.as_deref(),
            scope,
            include_system: self.all,
            expired: Expired::Hidden,
        })?)
    }
}
