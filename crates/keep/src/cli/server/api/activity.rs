//! What the store's writers did and what it holds: the operations log,
//! `stats` and the conflicts list, as the command line gives them (the
//! keeper confines each to what the caller may see).

use super::{Query, Reply, Serving, run};

/// The most log entries one request gives.
const MOST_ENTRIES: usize = 500;

pub fn log(warm: &Serving<'_>, query: &Query) -> Reply {
    let limit = match query.one("limit").map(str::parse::<usize>) {
        None => 50,
        Some(Ok(n)) if (1..=MOST_ENTRIES).contains(&n) => n,
        Some(_) => {
            return Reply::error(400, &format!("limit is a number from 1 to {MOST_ENTRIES}"));
        }
    };
    let mut args = vec!["log".to_string(), format!("--limit={limit}")];
    query.options(&[("agent", "agent"), ("since", "since")], &mut args);
    if let Some(id) = query.one("id") {
        args.extend(["--".into(), id.into()]);
    }
    run(warm, args).reply(200)
}

pub fn stats(warm: &Serving<'_>, query: &Query) -> Reply {
    let mut args = vec!["stats".to_string()];
    query.options(&[("waiting", "waiting")], &mut args);
    run(warm, args).reply(200)
}

pub fn conflicts(warm: &Serving<'_>, query: &Query) -> Reply {
    let mut args = vec!["conflicts".to_string()];
    query.options(&[("tag", "tag"), ("limit", "limit")], &mut args);
    run(warm, args).reply(200)
}
