//! Time named in a query ("in May 2023", "last week", "10 days ago"):
//! recall also gathers candidates from that time and prefers notes whose
//! event time, or a day their text speaks of, falls in it.

use keep_model::dates::{self, Spoken, Unit};
use keep_model::{Note, Period, Timestamp, keys};

use super::weights::{NEAR_DAY_MARGIN_DAYS, TIME_MATCH_FACTOR};

const DAY_MS: i64 = 86_400_000;

/// The periods `query` names, resolved against `now`; a single day is
/// widened by `NEAR_DAY_MARGIN_DAYS` each way, since people are loose
/// about "ten days ago".
pub(crate) fn periods(query: &str, now: Timestamp) -> Vec<Period> {
    dates::spoken_dates(query, now)
        .into_iter()
        .map(widened)
        .collect()
}

fn widened(spoken: Spoken) -> Period {
    let period = spoken.period();
    if spoken.unit != Unit::Day {
        return period;
    }
    let margin = NEAR_DAY_MARGIN_DAYS * DAY_MS;
    Period {
        from: period
            .from
            .map(|t| Timestamp::from_millis(t.millis() - margin)),
        until: period
            .until
            .map(|t| Timestamp::from_millis(t.millis() + margin)),
    }
}

/// Whether `note` happened in one of `periods`: its event time, or a day
/// its text speaks of (`_dates`), falls in it.
pub(crate) fn happened_in(note: &Note, periods: &[Period]) -> bool {
    periods.iter().any(|p| {
        let within = |t: Timestamp| {
            p.from.is_none_or(|from| t >= from) && p.until.is_none_or(|until| t <= until)
        };
        let day_within = |day: &str| {
            p.from.is_none_or(|from| day >= from.day().as_str())
                && p.until.is_none_or(|until| day <= until.day().as_str())
        };
        within(note.at) || note.tags.values(keys::DATES).any(day_within)
    })
}

/// The score factor of a note for a query naming `periods`.
pub(crate) fn time_factor(note: &Note, periods: &[Period]) -> f64 {
    if !periods.is_empty() && happened_in(note, periods) {
        TIME_MATCH_FACTOR
    } else {
        1.0
    }
}
