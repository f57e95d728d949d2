//! Filter flags shared by `list` and `find`.

use super::CliError;
use crate::keeper::parse_filters;
use crate::store::NoteFilter;
use crate::time::{Timestamp, parse_bound};

#[derive(Debug, Default, clap::Args)]
pub struct FilterArgs {
    /// Only notes with this tag: KEY or KEY=VALUE (repeatable; all must match)
    #[arg(short = 't', long = "tag", value_name = "KEY[=VALUE]")]
    pub tags: Vec<String>,

    /// Only notes updated since: an ISO 8601 duration back from now (P7D, PT1H), a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only notes updated until: an ISO 8601 duration back from now, a date or a timestamp
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Include system notes (ids starting with '.')
    #[arg(short = 'a', long = "all")]
    pub all: bool,
}

impl FilterArgs {
    pub fn to_filter(
        &self,
        pattern: Option<String>,
        now: Timestamp,
    ) -> Result<NoteFilter, CliError> {
        let bound =
            |text: &Option<String>| text.as_deref().map(|t| parse_bound(t, now)).transpose();
        Ok(NoteFilter {
            pattern,
            include_system: self.all,
            tags: parse_filters(&self.tags)?,
            since: bound(&self.since)?,
            until: bound(&self.until)?,
        })
    }
}
