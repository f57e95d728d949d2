//! The details a text states: quantities with their units, plain numbers,
//! dates, days, times, versions and identifiers, and proper names. Each is
//! kept in a canonical form, so "30 seconds" and "30 s", "5 October" and
//! "October 5th", "9am" and "09:00" are the same detail, and "30 minutes",
//! "Room 4C" and "Ana" against "Anna" are not.

use super::words::{Token, tokens};

/// One detail, canonical in `key`, as written in `text`.
#[derive(Debug, Clone)]
pub struct Detail {
    pub key: Key,
    /// The words it was read from, for messages.
    pub text: String,
}

/// What a detail is, in a form where equal means the same fact.
#[derive(Debug, Clone)]
pub enum Key {
    /// A number with a unit, in the unit's base (seconds, bytes, metres).
    Quantity {
        dimension: &'static str,
        value: f64,
    },
    /// A number without a unit, as written without thousands separators.
    Number(String),
    /// A day of a month (month 1-12, day 1-31), with its year when given.
    Date {
        month: u8,
        day: u8,
        year: Option<u16>,
    },
    Month(u8),
    Year(u16),
    /// A named day: a weekday, today, tomorrow, ...
    Day(String),
    /// Minutes after midnight.
    Time(u16),
    /// A version, path, address, code or anything else with digits or
    /// inner punctuation, lower-cased.
    Identifier(String),
    /// A capitalised word inside a sentence, lower-cased.
    Name(String),
}

impl PartialEq for Key {
    /// Equal details; a date without its year equals the same day of any
    /// year.
    fn eq(&self, other: &Key) -> bool {
        use Key::*;
        match (self, other) {
            (
                Date { month, day, year },
                Date {
                    month: m,
                    day: d,
                    year: y,
                },
            ) => month == m && day == d && (year.is_none() || y.is_none() || year == y),
            (
                Quantity { dimension, value },
                Quantity {
                    dimension: d,
                    value: v,
                },
            ) => dimension == d && (value - v).abs() <= 1e-9 * value.abs().max(1.0),
            (Number(a), Number(b)) | (Identifier(a), Identifier(b)) | (Name(a), Name(b)) => a == b,
            (Day(a), Day(b)) => a == b,
            (Month(a), Month(b)) => a == b,
            (Year(a), Year(b)) => a == b,
            (Time(a), Time(b)) => a == b,
            _ => false,
        }
    }
}

impl Key {
    /// Names and identifiers may be matched by the other text's words
    /// (written lower-case, at a sentence start, abbreviated).
    pub fn is_word_like(&self) -> bool {
        matches!(self, Key::Identifier(_) | Key::Name(_))
    }
}

struct Unit {
    names: &'static [&'static str],
    dimension: &'static str,
    factor: f64,
}

const UNITS: &[Unit] = &[
    unit(
        &["ms", "msec", "millisecond", "milliseconds"],
        "time",
        0.001,
    ),
    unit(&["s", "sec", "secs", "second", "seconds"], "time", 1.0),
    unit(&["min", "mins", "minute", "minutes"], "time", 60.0),
    unit(&["h", "hr", "hrs", "hour", "hours"], "time", 3600.0),
    unit(&["d", "day", "days"], "time", 86_400.0),
    unit(&["wk", "wks", "week", "weeks"], "time", 604_800.0),
    unit(&["month", "months"], "months", 1.0),
    unit(&["yr", "yrs", "year", "years"], "months", 12.0),
    unit(&["b", "byte", "bytes"], "bytes", 1.0),
    unit(&["kb", "kilobyte", "kilobytes"], "bytes", 1e3),
    unit(&["mb", "megabyte", "megabytes"], "bytes", 1e6),
    unit(&["gb", "gigabyte", "gigabytes"], "bytes", 1e9),
    unit(&["tb", "terabyte", "terabytes"], "bytes", 1e12),
    unit(&["kib"], "bytes", 1024.0),
    unit(&["mib"], "bytes", 1_048_576.0),
    unit(&["gib"], "bytes", 1_073_741_824.0),
    unit(&["tib"], "bytes", 1_099_511_627_776.0),
    unit(&["%", "percent", "per cent", "pct"], "percent", 1.0),
    unit(
        &[
            "mm",
            "millimetre",
            "millimetres",
            "millimeter",
            "millimeters",
        ],
        "length",
        0.001,
    ),
    unit(
        &[
            "cm",
            "centimetre",
            "centimetres",
            "centimeter",
            "centimeters",
        ],
        "length",
        0.01,
    ),
    unit(&["m", "metre", "metres", "meter", "meters"], "length", 1.0),
    unit(
        &["km", "kilometre", "kilometres", "kilometer", "kilometers"],
        "length",
        1000.0,
    ),
    unit(&["hz"], "frequency", 1.0),
    unit(&["khz"], "frequency", 1e3),
    unit(&["mhz"], "frequency", 1e6),
    unit(&["ghz"], "frequency", 1e9),
    unit(&["$", "usd", "dollar", "dollars"], "usd", 1.0),
    unit(&["€", "eur", "euro", "euros"], "eur", 1.0),
    unit(&["£", "gbp", "pound", "pounds"], "gbp", 1.0),
    unit(
        &["kg", "kilogram", "kilograms", "kilo", "kilos"],
        "mass",
        1000.0,
    ),
    unit(&["g", "gram", "grams"], "mass", 1.0),
    unit(&["°c", "celsius"], "celsius", 1.0),
    unit(&["°f", "fahrenheit"], "fahrenheit", 1.0),
];

const fn unit(names: &'static [&'static str], dimension: &'static str, factor: f64) -> Unit {
    Unit {
        names,
        dimension,
        factor,
    }
}

/// A unit by any of its names (lower-case).
fn unit_named(name: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|u| u.names.contains(&name))
}

/// Units of one letter are also words or initials ("a", "m", "s" after a
/// number rarely means anything else, "d" and "g" often do), so a
/// separate one-letter word counts as a unit only for these.
const SEPARATE_SHORT_UNITS: &[&str] = &["s", "h", "m", "b", "%"];

const MONTHS: &[(&str, u8)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

const DAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "today",
    "tomorrow",
    "yesterday",
    "tonight",
    "weekday",
    "weekdays",
    "weekend",
    "weekends",
];

const NUMBER_WORDS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("eleven", "11"),
    ("twelve", "12"),
    ("twenty", "20"),
    ("thirty", "30"),
    ("forty", "40"),
    ("fifty", "50"),
    ("hundred", "100"),
    ("thousand", "1000"),
    ("once", "1x"),
    ("twice", "2x"),
    ("half", "0.5"),
    ("dozen", "12"),
];

/// Words that stand at the start of a sentence capitalised, and say
/// nothing about who or what: never taken as names anywhere.
const NOT_NAMES: &[&str] = &["i", "ok", "okay"];

fn month_named(word: &str) -> Option<u8> {
    let lower = word.to_lowercase();
    MONTHS.iter().find(|(m, _)| *m == lower).map(|(_, n)| *n)
}

/// Every detail `text` states, in order.
pub fn details(text: &str) -> Vec<Detail> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (detail, used) = detail_at(&tokens, i);
        if let Some(mut d) = detail {
            d.text = tokens[i..i + used]
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            found.push(d);
        }
        i += used.max(1);
    }
    found
}

fn detail(key: Key) -> Option<Detail> {
    Some(Detail {
        key,
        text: String::new(),
    })
}

/// The detail starting at token `i` and how many tokens it takes (a
/// detail of None still moves on by the count given).
fn detail_at(tokens: &[Token], i: usize) -> (Option<Detail>, usize) {
    let token = &tokens[i];
    let lower = token.text.to_lowercase();
    let next = tokens.get(i + 1).map(|t| t.text.to_lowercase());
    let next = next.as_deref().unwrap_or("");
    if let Some(found) = iso_date(&lower) {
        return (found, 1);
    }
    if let Some((minutes, used)) = time_of_day(&lower, next) {
        return (detail(Key::Time(minutes)), used);
    }
    if let Some(found) = date_at(tokens, i) {
        return found;
    }
    if DAYS.contains(&lower.as_str()) {
        return (detail(Key::Day(lower.trim_end_matches('s').to_string())), 1);
    }
    if let Some(found) = quantity_at(tokens, i) {
        return found;
    }
    if let Some((_, n)) = NUMBER_WORDS.iter().find(|(w, _)| *w == lower) {
        return (detail(Key::Number((*n).to_string())), 1);
    }
    if is_identifier(&token.text) {
        return (detail(Key::Identifier(identifier_key(&lower))), 1);
    }
    if is_name(token) {
        return (detail(Key::Name(lower)), 1);
    }
    (None, 1)
}

/// `2026-10-05`.
fn iso_date(lower: &str) -> Option<Option<Detail>> {
    let b = lower.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year: u16 = lower[0..4].parse().ok()?;
    let month: u8 = lower[5..7].parse().ok()?;
    let day: u8 = lower[8..10].parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    Some(detail(Key::Date {
        month,
        day,
        year: Some(year),
    }))
}

/// `9am`, `9 am`, `9:30`, `21:00`, `9.30pm`, `noon`, `midnight`:
/// minutes after midnight and the tokens used.
fn time_of_day(lower: &str, next: &str) -> Option<(u16, usize)> {
    match lower {
        "noon" | "midday" => return Some((12 * 60, 1)),
        "midnight" => return Some((0, 1)),
        _ => {}
    }
    let (clock, suffix) = split_meridiem(lower);
    let (suffix, used) = match suffix {
        Some(s) => (Some(s), 1),
        None => match split_meridiem(next) {
            ("", Some(s)) => (Some(s), 2),
            _ => (None, 1),
        },
    };
    let (hours, minutes) = match clock.split_once([':', '.']) {
        Some((h, m)) if m.len() == 2 => (h.parse::<u16>().ok()?, m.parse::<u16>().ok()?),
        Some(_) => return None,
        None if suffix.is_some() => (clock.parse::<u16>().ok()?, 0),
        None => return None,
    };
    if clock.contains('.') && suffix.is_none() {
        return None;
    }
    if hours > 24 || minutes > 59 || clock.is_empty() || clock.len() > 5 {
        return None;
    }
    let hours = match suffix {
        Some(true) if hours < 12 => hours + 12,
        Some(false) if hours == 12 => 0,
        Some(_) if hours > 12 => return None,
        _ => hours,
    };
    Some((hours * 60 + minutes, used))
}

/// `9pm` -> ("9", Some(true)); `am` -> ("", Some(false)); `9` -> ("9", None).
fn split_meridiem(word: &str) -> (&str, Option<bool>) {
    for (suffix, pm) in [("a.m", false), ("p.m", true), ("am", false), ("pm", true)] {
        if let Some(clock) = word.strip_suffix(suffix)
            && clock
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
        {
            return (clock, Some(pm));
        }
    }
    (word, None)
}

/// `5 October`, `5th of October`, `October 5`, `Oct 5th, 2026`,
/// `October 2026`, `October`: a month name counts when capitalised (and
/// "May" not at a sentence start).
fn date_at(tokens: &[Token], i: usize) -> Option<(Option<Detail>, usize)> {
    let token = &tokens[i];
    let lower = token.text.to_lowercase();
    let word = |k: usize| tokens.get(k).map(|t| t.text.as_str()).unwrap_or("");
    let is_month = |t: &Token| {
        t.text.starts_with(|c: char| c.is_uppercase())
            && month_named(&t.text).is_some()
            && !(t.text == "May" && t.start)
    };
    if let Some(day) = day_number(&lower) {
        let mut k = i + 1;
        if word(k).eq_ignore_ascii_case("of") {
            k += 1;
        }
        if let Some(t) = tokens.get(k).filter(|t| is_month(t)) {
            let month = month_named(&t.text)?;
            let year = year_number(word(k + 1));
            let used = k + 1 - i + usize::from(year.is_some());
            return Some((detail(Key::Date { month, day, year }), used));
        }
        return None;
    }
    if !is_month(token) {
        return None;
    }
    let month = month_named(&token.text)?;
    if let Some(day) = day_number(&word(i + 1).to_lowercase()) {
        let year = year_number(word(i + 2));
        let used = 2 + usize::from(year.is_some());
        return Some((detail(Key::Date { month, day, year }), used));
    }
    Some((detail(Key::Month(month)), 1))
}

/// A four-digit year.
fn year_number(word: &str) -> Option<u16> {
    let year: u16 = word.parse().ok()?;
    (word.len() == 4 && (1000..3000).contains(&year)).then_some(year)
}

/// `5`, `5th`, `21st` as a day of a month.
fn day_number(lower: &str) -> Option<u8> {
    let digits = lower
        .strip_suffix("st")
        .or_else(|| lower.strip_suffix("nd"))
        .or_else(|| lower.strip_suffix("rd"))
        .or_else(|| lower.strip_suffix("th"))
        .unwrap_or(lower);
    let day: u8 = digits.parse().ok()?;
    (digits.len() <= 2 && (1..=31).contains(&day)).then_some(day)
}

/// A number, with the unit written before it (`$5`), attached (`30s`,
/// `5GB`, `10%`) or as the next word (`30 seconds`); a year on its own
/// (`2026`) is a year.
fn quantity_at(tokens: &[Token], i: usize) -> Option<(Option<Detail>, usize)> {
    let lower = tokens[i].text.to_lowercase();
    let (prefix, rest) = match lower.chars().next() {
        Some(c @ ('$' | '€' | '£')) => (Some(c.to_string()), &lower[c.len_utf8()..]),
        _ => (None, lower.as_str()),
    };
    let digits_end = rest
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '+' | '-')))
        .map_or(rest.len(), |(k, _)| k);
    let (number, suffix) = rest.split_at(digits_end);
    let value = parse_number(number)?;
    let canonical = canonical_number(number);
    let next = tokens.get(i + 1).map(|t| t.text.to_lowercase());
    let unit = match (prefix.as_deref(), suffix) {
        (Some(p), "") => Some((unit_named(p)?, 1)),
        (None, "") => next
            .as_deref()
            .and_then(|n| {
                let u = unit_named(n)?;
                (n.chars().count() > 1 || SEPARATE_SHORT_UNITS.contains(&n)).then_some(u)
            })
            .map(|u| (u, 2)),
        (None, s) if attached_unit(s, &tokens[i].text) => Some((unit_named(s)?, 1)),
        (None, _) => return None,
        (Some(_), _) => return None,
    };
    match unit {
        Some((u, used)) => Some((
            detail(Key::Quantity {
                dimension: u.dimension,
                value: round(value * u.factor),
            }),
            used,
        )),
        None if canonical.len() == 4
            && !canonical.contains('.')
            && (1900..2200).contains(&(value as i64)) =>
        {
            Some((detail(Key::Year(value as u16)), 1))
        }
        None => Some((detail(Key::Number(canonical)), 1)),
    }
}

/// Whether `suffix` (lower-case), written right after a number in
/// `written`, is a unit: `30s`, `5GB`, `10%`, but not the letter of `4B`
/// or `3D`.
fn attached_unit(suffix: &str, written: &str) -> bool {
    if unit_named(suffix).is_none() {
        return false;
    }
    if suffix.chars().count() > 1 {
        return true;
    }
    let last = written.chars().last().unwrap_or(' ');
    matches!(suffix, "s" | "h" | "m" | "%") && !last.is_uppercase()
}

/// Words that belong to a detail (units, months, days, number words,
/// "am"/"pm"), not to what a text is about.
pub fn is_detail_word(word: &str) -> bool {
    unit_named(word).is_some()
        || month_named(word).is_some()
        || DAYS.contains(&word)
        || NUMBER_WORDS.iter().any(|(w, _)| *w == word)
        || matches!(word, "am" | "pm" | "noon" | "midnight" | "midday")
}

/// A plain decimal number (thousands separated by commas allowed); not a
/// version (`1.2.3`) nor a range.
fn parse_number(text: &str) -> Option<f64> {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    if body.is_empty() || body.contains(['+', '-']) || body.matches('.').count() > 1 {
        return None;
    }
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let grouped = int.contains(',');
    if grouped {
        let mut groups = int.split(',');
        let first = groups.next()?;
        if first.is_empty() || first.len() > 3 || !groups.all(|g| g.len() == 3) {
            return None;
        }
    }
    if !int.replace(',', "").chars().all(|c| c.is_ascii_digit())
        || int.is_empty()
        || !frac.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    text.replace(',', "").parse().ok()
}

fn canonical_number(text: &str) -> String {
    text.replace(',', "").trim_start_matches('+').to_string()
}

fn round(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

/// A word with a digit (`4B`, `v2.3`, `192.168.1.10`, `CVE-2023-1`), inner
/// punctuation between letters (`/etc/hosts`, `a.b`, `user@host`), mixed
/// case (`GreenHeron`, `iPhone`) or all capitals (`API`, `DB`).
fn is_identifier(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    if chars.iter().any(char::is_ascii_digit) {
        return true;
    }
    if text.starts_with('/') || text.starts_with("~/") || text.contains("://") {
        return true;
    }
    let inner_mark = chars.windows(3).any(|w| {
        w[0].is_alphanumeric()
            && matches!(w[1], '.' | '/' | '_' | '@' | '\\' | '#')
            && w[2].is_alphanumeric()
    });
    let letters: Vec<&char> = chars.iter().filter(|c| c.is_alphabetic()).collect();
    let all_caps = letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase());
    let mixed = chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase());
    inner_mark || all_caps || mixed
}

/// `v2.3` and `2.3` are one version.
fn identifier_key(lower: &str) -> String {
    match lower.strip_prefix('v') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest.to_string(),
        _ => lower.to_string(),
    }
}

/// A capitalised word that does not start a sentence.
fn is_name(token: &Token) -> bool {
    !token.start
        && token.text.starts_with(|c: char| c.is_uppercase())
        && !NOT_NAMES.contains(&token.text.to_lowercase().as_str())
        && !keep_ingest::summarize::is_stopword(&token.text.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<Key> {
        details(text).into_iter().map(|d| d.key).collect()
    }

    #[test]
    fn units_are_read_in_any_spelling() {
        assert_eq!(keys("30 seconds"), keys("30 s"));
        assert_eq!(keys("30 seconds"), keys("30s"));
        assert_eq!(
            keys("half a minute is 30 sec"),
            keys("half a minute is 30s")
        );
        assert_ne!(keys("30 seconds"), keys("30 minutes"));
        assert_eq!(keys("5GB disk"), keys("5 gb disk"));
        assert_eq!(keys("costs $5"), keys("costs 5 dollars"));
        assert_eq!(keys("1,000 users"), keys("1000 users"));
        assert_eq!(keys("1,000 users"), [Key::Number("1000".into())]);
    }

    #[test]
    fn dates_and_times_are_read_in_any_order() {
        assert_eq!(keys("on 5 October"), keys("on October 5th"));
        assert_eq!(keys("on 5th of October"), keys("on Oct 5"));
        assert_ne!(keys("on 5 October"), keys("on 3 October"));
        assert_eq!(
            keys("2026-10-05"),
            [Key::Date {
                month: 10,
                day: 5,
                year: Some(2026)
            }]
        );
        assert_eq!(keys("on 5 October 2026"), keys("on 2026-10-05"));
        assert_eq!(keys("on October 5, 2026"), keys("on 2026-10-05"));
        assert_eq!(keys("on October 5"), keys("on 2026-10-05"));
        assert_ne!(keys("on 5 October 2026"), keys("on 2027-10-05"));
        assert_eq!(keys("at 9am"), keys("at 9 am"));
        assert_eq!(keys("at 9am"), keys("at 09:00"));
        assert_eq!(keys("at 9pm"), keys("at 21:00"));
        assert_ne!(keys("at 9am"), keys("at 10am"));
        assert_eq!(keys("every Monday"), [Key::Day("monday".into())]);
        assert_eq!(keys("May I ask"), Vec::<Key>::new());
        assert_eq!(keys("due in March 2027"), [Key::Month(3), Key::Year(2027)]);
    }

    #[test]
    fn identifiers_and_names_are_details() {
        assert_eq!(keys("Room 4B"), [Key::Identifier("4b".into())]);
        assert_eq!(
            keys("host 192.168.1.10"),
            [Key::Identifier("192.168.1.10".into())]
        );
        assert_eq!(keys("release v2.3.1"), keys("release 2.3.1"));
        assert_eq!(
            keys("see /etc/hosts"),
            [Key::Identifier("/etc/hosts".into())]
        );
        assert_eq!(
            keys("the API key is GreenHeron"),
            [
                Key::Identifier("api".into()),
                Key::Identifier("greenheron".into())
            ]
        );
        assert_eq!(keys("ask Ana about it"), [Key::Name("ana".into())]);
        assert_eq!(keys("Ana asked"), Vec::<Key>::new());
        assert_eq!(keys("three servers"), [Key::Number("3".into())]);
    }
}
