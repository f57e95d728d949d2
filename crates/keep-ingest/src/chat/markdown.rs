//! Markdown chat logs: a heading starts a session (its text is the title,
//! a date in it the session's date); a turn starts with its speaker in
//! bold (`**Alice:** text`, `**Alice** (2023-05-08 13:56): text`) or after
//! a bracketed time (`[2023-05-08 13:56] Alice: text`); other lines carry
//! on the turn before.

use keep_model::time::{Timestamp, parse_loose};

use super::{ChatError, Session, Turn};

pub(super) fn read(text: &str) -> Result<Vec<Session>, ChatError> {
    let mut sessions: Vec<Session> = Vec::new();
    let mut current = empty_session();
    let mut saw_turn = false;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix('#') {
            let title = heading.trim_start_matches('#').trim().to_string();
            if !current.turns.is_empty() {
                sessions.push(std::mem::replace(&mut current, empty_session()));
            }
            current.started = date_in(&title);
            current.title = Some(title).filter(|t| !t.is_empty());
        } else if let Some(turn) = turn_line(line) {
            saw_turn = true;
            current.turns.push(turn);
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

fn empty_session() -> Session {
    Session {
        key: None,
        title: None,
        started: None,
        turns: Vec::new(),
    }
}

/// `**Alice:** text`, `**Alice**: text`, `**Alice** (TIME): text` or
/// `[TIME] Alice: text`.
fn turn_line(line: &str) -> Option<Turn> {
    let line = line.trim_start_matches(['-', ' ']).trim_start();
    if let Some(rest) = line.strip_prefix('[') {
        let (time, rest) = rest.split_once(']')?;
        let time = parse_loose(time.trim())?;
        let (speaker, text) = rest.trim_start().split_once(':')?;
        return speaker_turn(speaker, Some(time), text);
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
            (Some(parse_loose(time.trim())?), after.trim_start())
        }
        None => (None, after),
    };
    speaker_turn(inside, time, after.strip_prefix(':')?)
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
