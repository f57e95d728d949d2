//! Timestamps (milliseconds since the Unix epoch, UTC), the clock, and the
//! parsing of `--since` / `--until` values: ISO 8601 durations or dates.

use std::fmt;

use jiff::tz::TimeZone;
use jiff::{Span, civil};

use crate::error::{Invalid, Result};

/// Milliseconds since the epoch by the wall clock (leases and upkeep are
/// about real time, whatever clock a keeper's notes use).
pub fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub fn from_millis(ms: i64) -> Self {
        Timestamp(ms)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    fn to_jiff(self) -> jiff::Timestamp {
        jiff::Timestamp::from_millisecond(self.0).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    fn from_jiff(ts: jiff::Timestamp) -> Self {
        Timestamp(ts.as_millisecond())
    }

    /// Parses RFC 3339 (`2026-11-22T10:00:00Z`, offsets allowed).
    pub fn parse_rfc3339(text: &str) -> Result<Self> {
        text.parse::<jiff::Timestamp>()
            .map(Timestamp::from_jiff)
            .map_err(|e| Invalid::new(format!("bad timestamp '{text}': {e}")))
    }

    /// The UTC day, `YYYY-MM-DD`.
    pub fn day(self) -> String {
        self.to_jiff().strftime("%Y-%m-%d").to_string()
    }

    /// `YYYY-MM-DD HH:MM` in UTC, for compact listings.
    pub fn short(self) -> String {
        self.to_jiff().strftime("%Y-%m-%d %H:%M").to_string()
    }

    /// Days (fractional) from `self` to `later`.
    pub fn days_until(self, later: Timestamp) -> f64 {
        (later.0 - self.0) as f64 / 86_400_000.0
    }
}

/// RFC 3339 in UTC with millisecond precision, so a round trip is exact.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_jiff().strftime("%Y-%m-%dT%H:%M:%S%.3fZ"))
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&text).map_err(serde::de::Error::custom)
    }
}

/// An RFC 3339 string in JSON.
impl schemars::JsonSchema for Timestamp {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date-time" })
    }
}

/// Where "now" comes from: the system clock, or a fixed instant.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    System,
    Fixed(Timestamp),
}

impl Clock {
    pub fn now(&self) -> Timestamp {
        match self {
            Clock::System => Timestamp::from_jiff(jiff::Timestamp::now()),
            Clock::Fixed(t) => *t,
        }
    }
}

/// A positive ISO 8601 duration (`P7D`, `PT1H`, `p1m`).
fn parse_span(text: &str) -> Result<Span> {
    let span: Span = text
        .to_ascii_uppercase()
        .parse()
        .map_err(|_| {
            Invalid::new(format!(
                "bad duration '{text}': expected an ISO 8601 duration such as P30D or PT1H, of at most a few thousand years"
            ))
        })?;
    if span.is_negative() || span.is_zero() {
        return Err(Invalid::new(format!(
            "bad duration '{text}': it must be positive"
        )));
    }
    Ok(span)
}

/// Parses an `--expires` time: an ISO 8601 duration counted forward from
/// `now` (`P30D`), a date or a timestamp; it must lie after `now`.
pub fn parse_expiry(text: &str, now: Timestamp) -> Result<Timestamp> {
    parse_expiry_from(text, now, None)
}

/// As `parse_expiry`, for a note that began at `began` (`put --at`): a
/// duration counts from then, and the end must lie after it (it may have
/// passed: a note about the past can say when it stopped holding).
pub fn parse_expiry_from(
    text: &str,
    now: Timestamp,
    began: Option<Timestamp>,
) -> Result<Timestamp> {
    let text = text.trim();
    let start = began.unwrap_or(now);
    let at = if text.to_ascii_uppercase().starts_with('P') {
        let zoned = start.to_jiff().to_zoned(TimeZone::UTC);
        let later = zoned
            .checked_add(parse_span(text)?)
            .map_err(|_| Invalid::new(format!("bad duration '{text}': too far ahead")))?;
        Timestamp::from_jiff(later.timestamp())
    } else {
        parse_bound(text, now)?
    };
    match began {
        None if at <= now => Err(Invalid::new(format!(
            "bad expiry '{text}': {at} has already passed"
        ))),
        Some(began) if at <= began => Err(Invalid::new(format!(
            "bad expiry '{text}': {at} is not after the note's time {began}"
        ))),
        _ => Ok(at),
    }
}

/// A time as metadata writes it: RFC 3339, a local date and time without
/// a zone (read as UTC), or a date; `None` for anything else.
pub fn parse_loose(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(Timestamp::from_jiff(ts));
    }
    if let Ok(dt) = text.parse::<civil::DateTime>() {
        return dt
            .to_zoned(TimeZone::UTC)
            .ok()
            .map(|z| Timestamp::from_jiff(z.timestamp()));
    }
    let date = text.get(..10)?.parse::<civil::Date>().ok()?;
    date.to_zoned(TimeZone::UTC)
        .ok()
        .map(|z| Timestamp::from_jiff(z.timestamp()))
}

/// Parses a `--since`/`--until` bound: an ISO 8601 duration counted back
/// from `now` (`P7D`, `PT1H`, `P1M2D`), a date (`2026-11-01`, midnight UTC)
/// or a full RFC 3339 timestamp.
pub fn parse_bound(text: &str, now: Timestamp) -> Result<Timestamp> {
    let text = text.trim();
    if text.to_ascii_uppercase().starts_with('P') {
        let zoned = now.to_jiff().to_zoned(TimeZone::UTC);
        let then = zoned
            .checked_sub(parse_span(text)?)
            .map_err(|e| Invalid::new(format!("bad duration '{text}': {e}")))?;
        return Ok(Timestamp::from_jiff(then.timestamp()));
    }
    if let Ok(date) = text.parse::<civil::Date>()
        && text.len() == 10
    {
        let ts = date
            .to_zoned(TimeZone::UTC)
            .map_err(|e| Invalid::new(format!("bad date '{text}': {e}")))?
            .timestamp();
        return Ok(Timestamp::from_jiff(ts));
    }
    Timestamp::parse_rfc3339(text).map_err(|_| {
        Invalid::new(format!(
            "bad time '{text}': expected an ISO 8601 duration (P7D, PT1H), a date (2026-11-01) or a timestamp (2026-11-01T12:00:00Z)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        Timestamp::parse_rfc3339(s).unwrap()
    }

    #[test]
    fn display_round_trips_with_milliseconds() {
        let t = ts("2026-11-22T10:00:00.123Z");
        assert_eq!(t.to_string(), "2026-11-22T10:00:00.123Z");
        assert_eq!(ts(&t.to_string()), t);
    }

    #[test]
    fn durations_count_back_from_now() {
        let now = ts("2026-11-22T10:00:00Z");
        assert_eq!(parse_bound("P7D", now).unwrap(), ts("2026-11-15T10:00:00Z"));
        assert_eq!(
            parse_bound("PT1H", now).unwrap(),
            ts("2026-11-22T09:00:00Z")
        );
        assert_eq!(parse_bound("p1m", now).unwrap(), ts("2026-10-22T10:00:00Z"));
    }

    #[test]
    fn expiry_counts_forward_and_must_be_ahead() {
        let now = ts("2026-11-22T10:00:00Z");
        assert_eq!(
            parse_expiry("P30D", now).unwrap(),
            ts("2026-12-22T10:00:00Z")
        );
        assert_eq!(
            parse_expiry("2027-01-01", now).unwrap(),
            ts("2027-01-01T00:00:00Z")
        );
        assert!(parse_expiry("2026-11-01", now).is_err());
        assert!(parse_expiry("soon", now).is_err());
        for huge in ["P99999999D", "P9999999Y"] {
            let err = parse_expiry(huge, now).unwrap_err().to_string();
            assert!(err.contains("ISO 8601 duration such as P30D"), "{err}");
        }
    }

    #[test]
    fn dates_and_timestamps_parse() {
        let now = ts("2026-11-22T10:00:00Z");
        assert_eq!(
            parse_bound("2026-11-01", now).unwrap(),
            ts("2026-11-01T00:00:00Z")
        );
        assert_eq!(
            parse_bound("2026-11-01T12:30:00+01:00", now).unwrap(),
            ts("2026-11-01T11:30:00Z")
        );
        assert!(parse_bound("yesterday", now).is_err());
        assert!(parse_bound("P", now).is_err());
        assert!(parse_bound("P0D", now).is_err());
    }
}
