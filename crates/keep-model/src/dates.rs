//! Dates spoken of in text ("yesterday", "last Tuesday", "in two weeks",
//! "May 7, 2023"), resolved against the time the text was said, and the
//! periods people type for event-time filters (`2023-05`, `last week`,
//! `2023-01..2023-03`).

use std::collections::VecDeque;

use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;
use jiff::{Span, ToSpan};

use super::error::{Invalid, Result};
use super::filter::Period;
use super::time::Timestamp;

/// How much time a date spoken of covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Day,
    Week,
    Month,
    Year,
}

/// A date a text speaks of: the first day of the day, week, month or year
/// it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spoken {
    pub start: Date,
    pub unit: Unit,
}

impl Spoken {
    /// The last day the date covers.
    pub fn end(self) -> Date {
        let span = match self.unit {
            Unit::Day => return self.start,
            Unit::Week => 7.days(),
            Unit::Month => 1.month(),
            Unit::Year => 1.year(),
        };
        self.start
            .checked_add(span)
            .and_then(|d| d.yesterday())
            .unwrap_or(self.start)
    }

    /// The whole days the date covers, as a period of event time.
    pub fn period(self) -> Period {
        Period {
            from: Some(start_of(self.start)),
            until: Some(end_of(self.end())),
        }
    }
}

/// At most this many dates are kept from one text.
const MAX_DATES: usize = 16;

/// The dates `text` speaks of, resolved against `said` (when the text was
/// said or written), in the order first spoken, without repeats.
pub fn spoken_dates(text: &str, said: Timestamp) -> Vec<Spoken> {
    let anchor = day_of(said);
    let mut words = words(text);
    // The words from the one looked at on: a phrase reads only forward,
    // so a long text is never held as words whole.
    let mut window: VecDeque<String> = words.by_ref().take(PHRASE_WORDS).collect();
    let mut found: Vec<Spoken> = Vec::new();
    while !window.is_empty() && found.len() < MAX_DATES {
        let step = match phrase_at(window.make_contiguous(), 0, anchor) {
            Some((spoken, used)) => {
                if !found.contains(&spoken) {
                    found.push(spoken);
                }
                used.max(1)
            }
            None => 1,
        };
        window.drain(..step.min(window.len()));
        window.extend(words.by_ref().take(PHRASE_WORDS - window.len()));
    }
    found
}

/// The words a phrase that speaks of a date may take, at most (with room
/// to spare: "the day before yesterday" is four).
const PHRASE_WORDS: usize = 16;

/// The UTC day of a timestamp.
fn day_of(t: Timestamp) -> Date {
    jiff::Timestamp::from_millisecond(t.millis())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_zoned(TimeZone::UTC)
        .date()
}

/// Lower-case words and numbers; a date written `2023-05-07` stays one
/// word, "7th" becomes "7", an amount keeps its currency sign ("$25" is
/// no day), other punctuation goes.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '\'' | '$' | '€' | '£')))
        .map(|w| w.trim_matches(|c| c == '-' || c == '\'').to_lowercase())
        .map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w))
        .map(|w| ordinal_number(&w).unwrap_or(w))
        .filter(|w| !w.is_empty())
}

/// "7th", "1st", "22nd" as "7", "1", "22".
fn ordinal_number(word: &str) -> Option<String> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    (!digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && matches!(suffix, "st" | "nd" | "rd" | "th"))
    .then(|| digits.to_string())
}

/// The date the phrase starting at word `i` speaks of, and how many words
/// it takes.
fn phrase_at(w: &[String], i: usize, anchor: Date) -> Option<(Spoken, usize)> {
    let word = |k: usize| w.get(i + k).map(String::as_str).unwrap_or("");
    let day = |d: Option<Date>| {
        d.map(|start| Spoken {
            start,
            unit: Unit::Day,
        })
    };
    match (word(0), word(1), word(2), word(3)) {
        ("the", "day", "before", "yesterday") => {
            return day(shift(anchor, -2.days())).map(|s| (s, 4));
        }
        ("the", "day", "after", "tomorrow") => return day(shift(anchor, 2.days())).map(|s| (s, 4)),
        ("today" | "tonight", ..) => return day(Some(anchor)).map(|s| (s, 1)),
        ("this", "morning" | "afternoon" | "evening", ..) => {
            return day(Some(anchor)).map(|s| (s, 2));
        }
        ("yesterday", ..) => return day(anchor.yesterday().ok()).map(|s| (s, 1)),
        ("last", "night", ..) => return day(anchor.yesterday().ok()).map(|s| (s, 2)),
        ("tomorrow", ..) => return day(anchor.tomorrow().ok()).map(|s| (s, 1)),
        _ => {}
    }
    if let Some(found) = relative_to_anchor(w, i, anchor) {
        return Some(found);
    }
    if let Some(found) = counted(w, i, anchor) {
        return Some(found);
    }
    written_date(w, i, anchor)
}

fn shift(date: Date, span: Span) -> Option<Date> {
    date.checked_add(span).ok()
}

/// "last Tuesday", "next week", "this month", "last May", "next weekend".
fn relative_to_anchor(w: &[String], i: usize, anchor: Date) -> Option<(Spoken, usize)> {
    let step: i64 = match w.get(i)?.as_str() {
        "last" | "past" | "previous" => -1,
        "this" | "coming" => 0,
        "next" => 1,
        _ => return None,
    };
    let what = w.get(i + 1)?.as_str();
    if let Some(weekday) = weekday(what) {
        return Some((
            Spoken {
                start: nth_weekday(anchor, weekday, step)?,
                unit: Unit::Day,
            },
            2,
        ));
    }
    if let Some(month) = month(what) {
        let start = nth_month(anchor, month, step)?;
        return Some((
            Spoken {
                start,
                unit: Unit::Month,
            },
            2,
        ));
    }
    let (start, unit) = match what {
        "week" => (
            week_start(anchor).checked_add((7 * step).days()).ok()?,
            Unit::Week,
        ),
        "weekend" => {
            let saturday = nth_weekday(anchor, Weekday::Saturday, step)?;
            (saturday, Unit::Day)
        }
        "month" => (
            anchor.first_of_month().checked_add(step.months()).ok()?,
            Unit::Month,
        ),
        "year" => (
            Date::new(anchor.year() + step as i16, 1, 1).ok()?,
            Unit::Year,
        ),
        _ => return None,
    };
    Some((Spoken { start, unit }, 2))
}

/// The Monday of `date`'s week.
fn week_start(date: Date) -> Date {
    let back = i64::from(date.weekday().to_monday_zero_offset());
    date.checked_sub(back.days()).unwrap_or(date)
}

/// `weekday` before the anchor's day (`step` -1), after it (1), or in its
/// week (0, Monday to Sunday).
fn nth_weekday(anchor: Date, weekday: Weekday, step: i64) -> Option<Date> {
    match step {
        -1 => anchor.nth_weekday(-1, weekday).ok(),
        1 => anchor.nth_weekday(1, weekday).ok(),
        _ => {
            let offset = i64::from(weekday.to_monday_zero_offset());
            week_start(anchor).checked_add(offset.days()).ok()
        }
    }
}

/// The first day of `month` last year's or this year's (`step` -1: the
/// latest such month before the anchor's), this year's (0) or the next to
/// come (1).
fn nth_month(anchor: Date, month: i8, step: i64) -> Option<Date> {
    let year = match step {
        -1 if month < anchor.month() => anchor.year(),
        -1 => anchor.year() - 1,
        1 if month > anchor.month() => anchor.year(),
        1 => anchor.year() + 1,
        _ => anchor.year(),
    };
    Date::new(year, month, 1).ok()
}

/// "3 days ago", "two weeks ago", "a month ago", "in 2 weeks", "in a
/// year", "10 days from now", "a couple of days ago".
fn counted(w: &[String], i: usize, anchor: Date) -> Option<(Spoken, usize)> {
    let ahead = w.get(i)? == "in";
    let start = if ahead { i + 1 } else { i };
    let (count, used) = count_at(w, start)?;
    let unit_word = w.get(start + used)?.as_str();
    let (unit, span) = match unit_word.trim_end_matches('s') {
        "day" => (Unit::Day, count.days()),
        "week" => (Unit::Week, (7 * count).days()),
        "month" => (Unit::Month, count.months()),
        "year" => (Unit::Year, count.years()),
        _ => return None,
    };
    let after = start + used + 1;
    let (forward, taken) = if ahead {
        (true, after - i)
    } else if w.get(after).map(String::as_str) == Some("ago") {
        (false, after + 1 - i)
    } else if w.get(after).map(String::as_str) == Some("from")
        && w.get(after + 1).map(String::as_str) == Some("now")
    {
        (true, after + 2 - i)
    } else {
        return None;
    };
    let day = if forward {
        anchor.checked_add(span).ok()?
    } else {
        anchor.checked_sub(span).ok()?
    };
    // "Two weeks ago" is a day two weeks back, not the whole week.
    let unit = if unit == Unit::Week { Unit::Day } else { unit };
    let start = match unit {
        Unit::Month => day.first_of_month(),
        Unit::Year => Date::new(day.year(), 1, 1).ok()?,
        _ => day,
    };
    Some((Spoken { start, unit }, taken))
}

/// A count written in digits or words ("3", "three", "a", "a couple of").
fn count_at(w: &[String], i: usize) -> Option<(i64, usize)> {
    let word = w.get(i)?.as_str();
    if (word == "a" || word == "an") && w.get(i + 1).map(String::as_str) == Some("couple") {
        let of = usize::from(w.get(i + 2).map(String::as_str) == Some("of"));
        return Some((2, 2 + of));
    }
    let n = match word {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        _ => word.parse::<i64>().ok().filter(|n| (1..=400).contains(n))?,
    };
    Some((n, 1))
}

/// "2023-05-07", "May 7, 2023", "7 May 2023", "May 2023", "May 7" (the
/// nearest such day to the anchor).
fn written_date(w: &[String], i: usize, anchor: Date) -> Option<(Spoken, usize)> {
    let first = w.get(i)?.as_str();
    if first.len() == 10
        && let Ok(date) = first.parse::<Date>()
    {
        return Some((
            Spoken {
                start: date,
                unit: Unit::Day,
            },
            1,
        ));
    }
    let number = |k: usize| w.get(i + k).and_then(|x| x.parse::<i16>().ok());
    let year_at = |k: usize| number(k).filter(|y| (1000..=2999).contains(y));
    let day_at = |k: usize| number(k).filter(|d| (1..=31).contains(d));
    if let Some(m) = month(first) {
        if let Some(d) = day_at(1) {
            let day = d as i8;
            return match year_at(2) {
                Some(y) => Date::new(y, m, day).ok().map(|date| {
                    (
                        Spoken {
                            start: date,
                            unit: Unit::Day,
                        },
                        3,
                    )
                }),
                None => nearest_day(anchor, m, day).map(|date| {
                    (
                        Spoken {
                            start: date,
                            unit: Unit::Day,
                        },
                        2,
                    )
                }),
            };
        }
        if let Some(y) = year_at(1) {
            return Some((
                Spoken {
                    start: Date::new(y, m, 1).ok()?,
                    unit: Unit::Month,
                },
                2,
            ));
        }
        let step = match (
            w.get(i + 1).map(String::as_str),
            w.get(i + 2).map(String::as_str),
        ) {
            (Some("last"), Some("year")) => -1,
            (Some("this"), Some("year")) => 0,
            (Some("next"), Some("year")) => 1,
            _ => return None,
        };
        let start = Date::new(anchor.year() + step, m, 1).ok()?;
        return Some((
            Spoken {
                start,
                unit: Unit::Month,
            },
            3,
        ));
    }
    let d = day_at(0)?;
    let m = month(w.get(i + 1)?)?;
    // "... 25 May 6th ...": the day belongs to the month after it.
    if year_at(2).is_none() && day_at(2).is_some() {
        return None;
    }
    match year_at(2) {
        Some(y) => Date::new(y, m, d as i8).ok().map(|date| {
            (
                Spoken {
                    start: date,
                    unit: Unit::Day,
                },
                3,
            )
        }),
        None => nearest_day(anchor, m, d as i8).map(|date| {
            (
                Spoken {
                    start: date,
                    unit: Unit::Day,
                },
                2,
            )
        }),
    }
}

/// Of the day `month`/`day` in the anchor's year and the years either
/// side, the one nearest the anchor.
fn nearest_day(anchor: Date, month: i8, day: i8) -> Option<Date> {
    (-1..=1)
        .filter_map(|k| Date::new(anchor.year() + k, month, day).ok())
        .min_by_key(|d| anchor.until(*d).map_or(i32::MAX, |s| s.get_days().abs()))
}

/// Whether a lower-case word names a time on its own: a year (1900 to
/// 2199), a month or a day of the week.
pub fn names_a_time(word: &str) -> bool {
    let year = word.len() == 4
        && word.chars().all(|c| c.is_ascii_digit())
        && (1900..2200).contains(&word.parse::<u32>().unwrap_or(0));
    year || month(word).is_some() || weekday(word).is_some()
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" => Weekday::Monday,
        "tuesday" => Weekday::Tuesday,
        "wednesday" => Weekday::Wednesday,
        "thursday" => Weekday::Thursday,
        "friday" => Weekday::Friday,
        "saturday" => Weekday::Saturday,
        "sunday" => Weekday::Sunday,
        _ => return None,
    })
}

fn month(word: &str) -> Option<i8> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let index = NAMES.iter().position(|name| {
        *name == word || (word.len() == 3 && word != "may" && name.starts_with(word))
    })?;
    // "may" alone is a verb far more often than a month: only with a day
    // or a year next to it, which the callers require.
    Some(index as i8 + 1)
}

/// Parses a period of event time: `2023`, `2023-05`, `2023-05-07`, a
/// timestamp, an ISO 8601 duration back from now (`P7D`: the last seven
/// days), a spoken date (`yesterday`, `last week`, `May 2023`), or two of
/// these as `FROM..UNTIL` (either end may be left open).
pub fn parse_period(text: &str, now: Timestamp) -> Result<Period> {
    let text = text.trim();
    if let Some((from, until)) = text.split_once("..") {
        let from = (!from.trim().is_empty())
            .then(|| one_period(from, now))
            .transpose()?;
        let until = (!until.trim().is_empty())
            .then(|| one_period(until, now))
            .transpose()?;
        return Ok(Period {
            from: from.and_then(|p| p.from),
            until: until.and_then(|p| p.until),
        });
    }
    one_period(text, now)
}

fn one_period(text: &str, now: Timestamp) -> Result<Period> {
    let text = text.trim();
    let bad = || {
        Invalid::new(format!(
            "bad period '{text}': expected a year (2023), a month (2023-05), a day (2023-05-07), a timestamp, a duration back from now (P7D), a spoken date (yesterday, last week, May 2023) or FROM..UNTIL"
        ))
    };
    if text.to_ascii_uppercase().starts_with('P') {
        let from = super::time::parse_bound(text, now).map_err(|_| bad())?;
        return Ok(Period {
            from: Some(from),
            until: Some(now),
        });
    }
    let whole = |start: Date, unit: Unit| Spoken { start, unit }.period();
    if let Ok(year) = text.parse::<i16>()
        && text.len() == 4
    {
        return Ok(whole(Date::new(year, 1, 1).map_err(|_| bad())?, Unit::Year));
    }
    if text.len() == 7
        && let Ok(date) = format!("{text}-01").parse::<Date>()
    {
        return Ok(whole(date, Unit::Month));
    }
    if text.len() == 10
        && let Ok(date) = text.parse::<Date>()
    {
        return Ok(whole(date, Unit::Day));
    }
    if let Ok(at) = Timestamp::parse_rfc3339(text) {
        return Ok(Period {
            from: Some(at),
            until: Some(at),
        });
    }
    let spoken = spoken_dates(text, now);
    match spoken.as_slice() {
        [one] => Ok(whole(one.start, one.unit)),
        _ => Err(bad()),
    }
}

/// Parses an instant: what `--since` takes (a duration back from now, a
/// date, a timestamp) or a spoken day (`yesterday`, `last Tuesday`: its
/// end, so the whole day counts).
pub fn parse_instant(text: &str, now: Timestamp) -> Result<Timestamp> {
    if let Ok(at) = super::time::parse_bound(text, now) {
        return Ok(at);
    }
    match spoken_dates(text, now).as_slice() {
        [one] => Ok(end_of(one.end())),
        _ => Err(Invalid::new(format!(
            "bad time '{}': expected an ISO 8601 duration (P7D), a date (2026-11-01), a timestamp (2026-11-01T12:00:00Z) or a spoken date (yesterday, last Tuesday)",
            text.trim()
        ))),
    }
}

/// Parses when something happened (`put --at`): a duration back from now,
/// a date, a timestamp, or a spoken day (its start: `yesterday` is
/// yesterday at midnight UTC).
pub fn parse_event_time(text: &str, now: Timestamp) -> Result<Timestamp> {
    if let Ok(at) = super::time::parse_bound(text, now) {
        return Ok(at);
    }
    match spoken_dates(text, now).as_slice() {
        [one] => Ok(start_of(one.start)),
        _ => Err(Invalid::new(format!(
            "bad time '{}': expected an ISO 8601 duration back from now (P2D), a date (2026-11-01), a timestamp (2026-11-01T12:00:00Z) or a spoken date (yesterday, last Tuesday)",
            text.trim()
        ))),
    }
}

/// Midnight UTC at the start of `date`.
fn start_of(date: Date) -> Timestamp {
    let ts = date
        .to_zoned(TimeZone::UTC)
        .map(|z| z.timestamp())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    Timestamp::from_millis(ts.as_millisecond())
}

/// The last millisecond of `date`, UTC.
fn end_of(date: Date) -> Timestamp {
    let next = date.tomorrow().unwrap_or(date);
    Timestamp::from_millis(start_of(next).millis() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse_rfc3339(s).unwrap()
    }

    fn days(text: &str, said: &str) -> Vec<String> {
        spoken_dates(text, at(said))
            .into_iter()
            .map(|s| s.start.to_string())
            .collect()
    }

    #[test]
    fn near_days_resolve_against_when_they_were_said() {
        let said = "2023-05-08T13:56:00Z"; // a Monday
        assert_eq!(
            days("I went to the support group yesterday.", said),
            ["2023-05-07"]
        );
        assert_eq!(days("See you tomorrow!", said), ["2023-05-09"]);
        assert_eq!(days("the day before yesterday", said), ["2023-05-06"]);
        assert_eq!(days("We met last Tuesday", said), ["2023-05-02"]);
        assert_eq!(days("Let's talk next Friday", said), ["2023-05-12"]);
        assert_eq!(
            days("nothing dated here, may I ask?", said),
            Vec::<String>::new()
        );
    }

    #[test]
    fn counted_spans_cross_month_and_year_boundaries() {
        assert_eq!(
            days("three days ago", "2023-03-02T09:00:00Z"),
            ["2023-02-27"]
        );
        assert_eq!(days("in two weeks", "2022-12-24T09:00:00Z"), ["2023-01-07"]);
        assert_eq!(
            days("a couple of days ago", "2024-01-01T09:00:00Z"),
            ["2023-12-30"]
        );
        assert_eq!(days("next month", "2022-12-15T09:00:00Z"), ["2023-01-01"]);
        assert_eq!(days("last year", "2023-01-03T09:00:00Z"), ["2022-01-01"]);
        assert_eq!(
            days("10 days from now", "2023-12-28T00:00:00Z"),
            ["2024-01-07"]
        );
    }

    #[test]
    fn written_dates_are_read() {
        let said = "2023-05-08T13:56:00Z";
        assert_eq!(days("on May 7, 2023", said), ["2023-05-07"]);
        assert_eq!(
            days("on 7 May 2023 and 2023-06-01", said),
            ["2023-05-07", "2023-06-01"]
        );
        assert_eq!(
            days("back on Dec 30th", "2024-01-02T00:00:00Z"),
            ["2023-12-30"]
        );
        assert_eq!(days("in March 2022", said), ["2022-03-01"]);
        assert_eq!(days("since November last year", said), ["2022-11-01"]);
        assert_eq!(
            days(
                "April 1st, Earth Day Market, $25; May 6th, Downtown Farmers Market, $350",
                said
            ),
            ["2023-04-01", "2023-05-06"]
        );
        assert_eq!(days("Arts Fair, 25 May 6th", said), ["2023-05-06"]);
    }

    #[test]
    fn periods_cover_whole_days_months_and_years() {
        let now = at("2026-11-27T12:00:00Z");
        let p = parse_period("2023-05", now).unwrap();
        assert_eq!(p.from, Some(at("2023-05-01T00:00:00Z")));
        assert_eq!(p.until, Some(at("2023-05-31T23:59:59.999Z")));
        let p = parse_period("2022..2023-02", now).unwrap();
        assert_eq!(p.from, Some(at("2022-01-01T00:00:00Z")));
        assert_eq!(p.until, Some(at("2023-02-28T23:59:59.999Z")));
        let p = parse_period("yesterday", now).unwrap();
        assert_eq!(p.from, Some(at("2026-11-26T00:00:00Z")));
        let p = parse_period("last week", now).unwrap();
        assert_eq!(p.from, Some(at("2026-11-16T00:00:00Z")));
        assert_eq!(p.until, Some(at("2026-11-22T23:59:59.999Z")));
        assert!(parse_period("whenever", now).is_err());
    }
}
