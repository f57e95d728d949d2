//! Markdown chat logs: a heading starts a session (its text is the title,
//! a date in it the session's date); a turn starts with its speaker in
//! bold (`**Alice:** text`, `**Alice** (2023-05-08 13:56): text`) or after
//! a bracketed time (`[2023-05-08 13:56] Alice: text`); other lines carry
//! on the turn before. A time of day alone (`[10:07]`, `(9:05 pm)`) is
//! read on the day of the session's heading, else on the day the file was
//! written when the caller knows it, and without either the turn keeps
//! its place with no time. A line shaped like a turn whose time or
//! speaker cannot be read is refused by its number, never folded into the
//! turn before.

use keep_model::time::{Timestamp, parse_loose};

use super::{ChatError, Session, Turn};

pub(super) fn read(text: &str, file_day: Option<Timestamp>) -> Result<Vec<Session>, ChatError> {
    let mut sessions: Vec<Session> = Vec::new();
    let mut current = empty_session(file_day);
    let mut saw_turn = false;
    for (index, line) in text.lines().enumerate() {
        if let Some(heading) = line.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim().to_string();
            if !current.turns.is_empty() {
                sessions.push(std::mem::replace(&mut current, empty_session(file_day)));
            }
            current.started = date_in(&title).or(file_day);
            current.title = Some(title).filter(|t| !t.is_empty());
        } else if let Some(turn) = turn_line(line, current.started) {
            saw_turn = true;
            current.turns.push(turn);
        } else if let Some(shape) = turn_shape(line) {
            return Err(ChatError::at(
                index + 1,
                format!(
                    "this line starts like a turn ({shape}) but its time or speaker cannot be read: write '[2023-05-08 13:56] Speaker: text' or '**Speaker:** text'"
                ),
            ));
        } else if let Some(turn) = current.turns.last_mut() {
            turn.text.push('\n');
            turn.text.push_str(line);
        }
    }
    if !saw_turn {
        return Err(ChatError::at(
            1,
            "no turn found: a Markdown chat log writes each turn as '**Speaker:** text' or '[TIME] Speaker: text'",
        ));
    }
    sessions.push(current);
    for session in &mut sessions {
        for turn in &mut session.turns {
            turn.text = turn.text.trim().to_string();
        }
        session.turns.retain(|t| !t.text.is_empty());
    }
    Ok(sessions)
}

fn empty_session(file_day: Option<Timestamp>) -> Session {
    Session {
        key: None,
        title: None,
        started: file_day,
        place: None,
        turns: Vec::new(),
    }
}

/// `**Alice:** text`, `**Alice**: text`, `**Alice** (TIME): text` or
/// `[TIME] Alice: text`; a time of day alone is read on `day`.
fn turn_line(line: &str, day: Option<Timestamp>) -> Option<Turn> {
    let line = line.trim_start_matches(['-', ' ']).trim_start();
    if let Some(rest) = line.strip_prefix('[') {
        let (time, rest) = rest.split_once(']')?;
        let time = time_in(time, day)?;
        let (speaker, text) = rest.trim_start().split_once(':')?;
        return speaker_turn(speaker, time, text);
    }
    let rest = line.strip_prefix("**")?;
    let end = rest.find("**")?;
    let (inside, after) = (rest[..end].trim(), rest[end + 2..].trim_start());
    if let Some(speaker) = inside.strip_suffix(':') {
        return speaker_turn(speaker, None, after);
    }
    let (time, after) = match after.strip_prefix('(') {
        Some(inner) => {
            let (time, after) = inner.split_once(')')?;
            (time_in(time, day)?, after.trim_start())
        }
        None => (None, after),
    };
    speaker_turn(inside, time, after.strip_prefix(':')?)
}

/// What makes a line that is not a turn look like one: a bracket opening
/// on a digit and holding a time's or date's separator (`[10:7x] Ana:
/// ...`; a footnote `[1]` is text), or a bold name followed by a time in
/// parentheses (`**Bo** (ten past): ...`).
fn turn_shape(line: &str) -> Option<&'static str> {
    let line = line.trim_start_matches(['-', ' ']).trim_start();
    let bracketed = line.strip_prefix('[').and_then(|rest| rest.split_once(']'));
    if bracketed.is_some_and(|(inside, _)| {
        inside.starts_with(|c: char| c.is_ascii_digit()) && inside.contains([':', '-', '/'])
    }) {
        return Some("a bracketed time");
    }
    let rest = line.strip_prefix("**")?;
    let end = rest.find("**")?;
    let after = rest[end + 2..].trim_start();
    (after.starts_with('(') && after.contains("):")).then_some("a bold speaker and a time")
}

fn speaker_turn(speaker: &str, time: Option<Timestamp>, text: &str) -> Option<Turn> {
    let speaker = speaker.trim();
    let plausible = !speaker.is_empty()
        && speaker.chars().count() <= 40
        && !speaker.contains(['[', ']', '(', ')']);
    plausible.then(|| Turn {
        speaker: speaker.to_string(),
        time,
        text: text.trim().to_string(),
    })
}

/// What a turn's time says: a date and time; a time of day, on `day`
/// when the session has one (else no time); None when it is no time.
fn time_in(text: &str, day: Option<Timestamp>) -> Option<Option<Timestamp>> {
    let text = text.trim();
    if let Some(full) = parse_loose(text) {
        return Some(Some(full));
    }
    let seconds = time_of_day(text)?;
    Some(day.map(|d| {
        let midnight = d.millis() - d.millis().rem_euclid(86_400_000);
        Timestamp::from_millis(midnight + seconds * 1000)
    }))
}

/// Seconds since midnight of `10:07`, `10:07:30`, `9:05 pm` or `9:05PM`.
fn time_of_day(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    let (clock, half) = match lower.trim_end_matches('.').strip_suffix("pm") {
        Some(clock) => (clock.trim(), Some(12)),
        None => match lower.strip_suffix("am") {
            Some(clock) => (clock.trim(), Some(0)),
            None => (lower.as_str(), None),
        },
    };
    let mut fields = clock.split(':');
    let hour: i64 = fields.next()?.trim().parse().ok()?;
    let minute: i64 = fields.next()?.trim().parse().ok()?;
    let second: i64 = match fields.next() {
        Some(s) => s.trim().parse().ok()?,
        None => 0,
    };
    if fields.next().is_some() || minute > 59 || second > 59 {
        return None;
    }
    let hour = match half {
        Some(offset) if (1..=12).contains(&hour) => hour % 12 + offset,
        Some(_) => return None,
        None if hour <= 23 => hour,
        None => return None,
    };
    Some(hour * 3600 + minute * 60 + second)
}

/// A date written in a heading (`## 2023-05-08`, `# Call, 8 May 2023`).
fn date_in(title: &str) -> Option<Timestamp> {
    title
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .find_map(|word| {
            (word.len() >= 10 && word.as_bytes()[4] == b'-')
                .then(|| parse_loose(word))
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_with_a_time_of_day_alone_are_turns_of_their_own() {
        let log = "# Standup 2026-03-02\n[10:05] Bo: the build is green\n**Ana** (10:07): ship it\n[9:15 pm] Bo: shipped\nand tagged\n";
        let sessions = read(log, None).unwrap();
        let turns = &sessions[0].turns;
        let said: Vec<(&str, &str)> = turns
            .iter()
            .map(|t| (t.speaker.as_str(), t.text.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                ("Bo", "the build is green"),
                ("Ana", "ship it"),
                ("Bo", "shipped\nand tagged")
            ]
        );
        let times: Vec<String> = turns
            .iter()
            .map(|t| t.time.map(|t| t.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(
            times,
            [
                "2026-03-02T10:05:00.000Z",
                "2026-03-02T10:07:00.000Z",
                "2026-03-02T21:15:00.000Z"
            ]
        );
    }

    #[test]
    fn without_a_dated_heading_a_time_of_day_leaves_the_turn_undated() {
        let sessions = read("[10:07] Ana: hello\n[10:08] Bo: hi\n", None).unwrap();
        let turns = &sessions[0].turns;
        assert_eq!(turns.len(), 2);
        assert!(turns.iter().all(|t| t.time.is_none()));
        assert!(time_of_day("25:00").is_none() && time_of_day("13:00 pm").is_none());
        assert!(time_in("not a time", None).is_none());
        let day = Timestamp::parse_rfc3339("2026-03-02T00:00:00Z").unwrap();
        let dated = read("[10:07] Ana: hello\n", Some(day)).unwrap();
        assert_eq!(
            dated[0].turns[0].time.map(|t| t.to_string()).as_deref(),
            Some("2026-03-02T10:07:00.000Z"),
            "read on the file's day"
        );
    }

    #[test]
    fn a_line_shaped_like_a_turn_that_cannot_be_read_is_refused_by_its_number() {
        let log = "# Call 2026-03-02\n[10:05] Bo: fine\n[10:7x] Ana: lost?\n";
        let e = read(log, None).unwrap_err();
        assert_eq!(e.line, 3, "{e:?}");
        assert!(e.reason.contains("starts like a turn"), "{e:?}");
        let e = read("**Ana:** hi\n**Bo** (ten past): hello\n", None).unwrap_err();
        assert_eq!(e.line, 2, "{e:?}");
        let kept = read("**Ana:** see [1] below\n[1] a footnote: here\n", None).unwrap();
        assert_eq!(kept[0].turns.len(), 1, "a footnote carries on the turn");
        let prose = read(
            "**Ana:** the **plan** (draft) stands\nand **more** text\n",
            None,
        )
        .unwrap();
        assert_eq!(prose[0].turns.len(), 1);
    }
}
