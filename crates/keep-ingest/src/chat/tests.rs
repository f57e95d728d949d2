use super::*;

fn at(s: &str) -> Option<Timestamp> {
    Some(Timestamp::parse_rfc3339(s).unwrap())
}

#[test]
fn markdown_turns_take_bold_or_bracketed_speakers_and_carry_on_lines() {
    let log = "# Planning call 2023-05-08\n\n**Alice:** Shall we book the venue?\nIt fills up fast.\n**Bob** (2023-05-08 13:57): Yes, today.\n\n## Follow-up\n[2023-05-09T09:00:00Z] Alice: Booked it yesterday.\n";
    let (format, sessions) = read(log).unwrap();
    assert_eq!(format, ChatFormat::Markdown);
    assert_eq!(sessions.len(), 2);
    assert_eq!(
        sessions[0].title.as_deref(),
        Some("Planning call 2023-05-08")
    );
    assert_eq!(sessions[0].started, at("2023-05-08T00:00:00Z"));
    assert_eq!(
        sessions[0].turns[0].text,
        "Shall we book the venue?\nIt fills up fast."
    );
    assert_eq!(sessions[0].turns[1].speaker, "Bob");
    assert_eq!(sessions[0].turns[1].time, at("2023-05-08T13:57:00Z"));
    assert_eq!(sessions[1].turns[0].time, at("2023-05-09T09:00:00Z"));
}

#[test]
fn damaged_files_name_the_line() {
    let jsonl = "{\"session\":\"s1\",\"time\":\"2023-05-08T10:00:00Z\",\"speaker\":\"a\",\"text\":\"hi\"}\n{\"session\":\"s1\",\"speaker\":\"b\"\n";
    assert_eq!(read(jsonl).unwrap_err().line, 2);
    let missing = "{\"session\":\"s1\",\"speaker\":\"a\",\"text\":\"hi\"}\n{\"session\":\"s1\",\"text\":\"x\"}\n";
    let err = read(missing).unwrap_err();
    assert_eq!((err.line, err.reason.as_str()), (2, "no 'speaker'"));
    let json = "[\n {\"uuid\": \"c1\",\n  \"chat_messages\": [ {\"sender\": \"human\", \"text\": \"hi\"} ,,]\n }\n]";
    assert_eq!(read(json).unwrap_err().line, 3);
    assert!(read("just some notes\nwith no speakers\n").is_err());
}
