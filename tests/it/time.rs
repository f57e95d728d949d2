//! Time in memory: when things happened (`put --at`), what held as of a
//! date (`--as-of`), event-time filters (`--when`) with the dates a text
//! speaks of, and conversations imported from chat exports. The text is
//! LongMemEval's real dated dialogue (testdata/real/longmemeval).

use serde_json::{Value, json};

use crate::common::{Env, repo_root};
use crate::mcp::{call, exchange, handshake};

/// The LongMemEval oracle sample: questions with their dated sessions.
fn longmemeval() -> Vec<Value> {
    let path = repo_root().join("testdata/real/longmemeval/longmemeval_oracle_sample_seed_42.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A session of the sample by its id: its date (RFC 3339) and its turns
/// (role, text).
fn session(data: &[Value], id: &str) -> (String, Vec<(String, String)>) {
    for q in data {
        let ids = q["haystack_session_ids"].as_array().unwrap();
        if let Some(i) = ids.iter().position(|s| s == id) {
            let date = rfc3339(q["haystack_dates"][i].as_str().unwrap());
            let turns = q["haystack_sessions"][i]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["role"].as_str().unwrap().to_string(),
                        t["content"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            return (date, turns);
        }
    }
    panic!("no session {id}")
}

/// `2023/04/11 (Tue) 07:47` as `2023-04-11T07:47:00Z`.
fn rfc3339(date: &str) -> String {
    let day = date[..10].replace('/', "-");
    let time = &date[date.len() - 5..];
    format!("{day}T{time}:00Z")
}

/// Seconds since the epoch of an RFC 3339 time, plus `minutes`.
fn epoch(at: &str, minutes: i64) -> i64 {
    let t: jiff::Timestamp = at.parse().unwrap();
    t.as_second() + minutes * 60
}

/// The text of turn `i` of a session.
fn turn(data: &[Value], id: &str, i: usize) -> String {
    session(data, id).1[i].1.clone()
}

fn ids(out: &str) -> Vec<String> {
    out.lines().map(str::to_string).collect()
}

#[test]
fn a_supersede_history_is_answered_as_of_three_dates() {
    let data = longmemeval();
    let env = Env::new();
    let (first_at, _) = session(&data, "answer_f25c32f5_1");
    let (second_at, _) = session(&data, "answer_f25c32f5_2");
    env.ok(&[
        "put",
        "--id",
        "pets/luna-2023-08",
        "--at",
        &first_at,
        "--text",
        &turn(&data, "answer_f25c32f5_1", 10),
    ]);
    env.ok(&[
        "put",
        "--id",
        "pets/luna-2023-11",
        "--at",
        &second_at,
        "--supersedes",
        "pets/luna-2023-08",
        "--text",
        &turn(&data, "answer_f25c32f5_2", 6),
    ]);
    let asked = |as_of: &str| {
        ids(&env.ok(&[
            "find",
            "how long have I had my cat Luna",
            "--as-of",
            as_of,
            "--ids",
        ]))
    };
    assert!(
        asked("2023-07-01").is_empty(),
        "nothing held before either was said"
    );
    assert_eq!(asked("2023-09-01"), ["pets/luna-2023-08"]);
    assert_eq!(asked("2023-12-15"), ["pets/luna-2023-11"]);
    assert_eq!(
        ids(&env.ok(&["find", "how long have I had my cat Luna", "--ids"])),
        ["pets/luna-2023-11"]
    );
    // The superseded note says until when it held, and the hit says when.
    let old = &env.json(&["get", "pets/luna-2023-08"])[0];
    assert_eq!(old["at"], "2023-08-11T21:17:00.000Z");
    assert_eq!(old["until"], "2023-11-30T11:13:00.000Z");
    let hits = env.json(&["find", "cat Luna months", "--as-of", "2023-09-01"]);
    assert_eq!(hits[0]["at"], "2023-08-11T21:17:00.000Z");
    let text = env.ok(&["find", "cat Luna months"]);
    assert!(text.contains("(at 2023-11-30 11:13)"), "{text}");
}

#[test]
fn versions_expiry_and_supersedes_are_seen_through_list_and_get_as_of() {
    let data = longmemeval();
    let env = Env::new();
    let (three_at, _) = session(&data, "answer_2cec623b_1");
    let (five_at, _) = session(&data, "answer_2cec623b_2");
    let three = turn(&data, "answer_2cec623b_1", 4);
    let five = turn(&data, "answer_2cec623b_2", 0);
    env.ok(&[
        "put",
        "--id",
        "shopping/hm-tops",
        "--at",
        &three_at,
        "--text",
        &three,
    ]);
    env.ok(&[
        "put",
        "--id",
        "shopping/hm-tops",
        "--at",
        &five_at,
        "--text",
        &five,
    ]);
    // The days off were planned for one week: the note stops holding after it.
    let (plan_at, _) = session(&data, "answer_feb5f98a_1");
    env.ok(&[
        "put",
        "--id",
        "work/days-off",
        "--at",
        &plan_at,
        "--expires",
        "P12D",
        "--text",
        &turn(&data, "answer_feb5f98a_1", 2),
    ]);
    let (luna_old, _) = session(&data, "answer_f25c32f5_1");
    let (luna_new, _) = session(&data, "answer_f25c32f5_2");
    env.ok(&[
        "put",
        "--id",
        "pets/luna-old",
        "--at",
        &luna_old,
        "--text",
        &turn(&data, "answer_f25c32f5_1", 10),
    ]);
    env.ok(&[
        "put",
        "--id",
        "pets/luna-new",
        "--at",
        &luna_new,
        "--supersedes",
        "pets/luna-old",
        "--text",
        &turn(&data, "answer_f25c32f5_2", 6),
    ]);

    let listed = |as_of: &str| {
        let mut ids = ids(&env.ok(&["list", "--as-of", as_of, "--ids"]));
        ids.sort();
        ids
    };
    assert_eq!(listed("2023-05-01"), Vec::<String>::new());
    assert_eq!(listed("2023-05-30"), ["work/days-off"]);
    assert_eq!(
        listed("2023-06-10"),
        Vec::<String>::new(),
        "the days off had expired"
    );
    assert_eq!(listed("2023-09-01"), ["pets/luna-old", "shopping/hm-tops"]);
    assert_eq!(listed("2023-12-15"), ["pets/luna-new", "shopping/hm-tops"]);
    // Today the expired note is left out, as before; the superseded one
    // is listed (list hides only what recall does not trust), as before.
    assert_eq!(listed("2026-11-22"), ["pets/luna-new", "shopping/hm-tops"]);

    // A listing as of a date shows each note as it stood then.
    let then = env.json(&["list", "--as-of", "2023-09-01", "-t", "_source"]);
    let hm = then
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "shopping/hm-tops")
        .unwrap();
    assert!(
        hm["summary"].as_str().unwrap().contains("three tops"),
        "{hm}"
    );

    let got = |as_of: &str| env.json(&["get", "shopping/hm-tops", "--as-of", as_of])[0].clone();
    let before = got("2023-09-01");
    assert_eq!(before["version"], 1);
    assert!(before["summary"].as_str().unwrap().contains("three tops"));
    assert_eq!(before["until"], "2023-09-30T22:38:00.000Z");
    let after = got("2023-10-01");
    assert_eq!(after["version"], 0);
    assert!(after["summary"].as_str().unwrap().contains("five tops"));
    let err = env.fails(&["get", "shopping/hm-tops", "--as-of", "2023-08-01"], 2);
    assert!(
        err.contains("had not begun on 2023-08-01") && err.contains("2023-08-11T16:44"),
        "{err}"
    );
    let err = env.fails(
        &["get", "shopping/hm-tops@V{1}", "--as-of", "2023-08-01"],
        2,
    );
    assert!(err.contains("--as-of picks the version"), "{err}");
}

#[test]
fn relative_dates_resolve_across_a_month_and_a_year_boundary() {
    let data = longmemeval();
    let env = Env::new();
    // Said the first morning of a year: yesterday was the last day of the one before.
    env.ok(&[
        "put",
        "--id",
        "sport/final",
        "--at",
        "2023-01-01T09:00:00Z",
        "--text",
        &turn(&data, "answer_e6c20e52_2", 2),
    ]);
    // "last month", said on 29 March: February.
    let (march_29, _) = session(&data, "answer_124f5dc3_1");
    env.ok(&[
        "put",
        "--id",
        "gifts/neighbour",
        "--at",
        &march_29,
        "--text",
        &turn(&data, "answer_124f5dc3_1", 4),
    ]);
    // "about three weeks ago", said on 22 May: 1 May.
    let (may_22, _) = session(&data, "answer_c4e5d969_1");
    env.ok(&[
        "put",
        "--id",
        "kitchen/coffee-maker",
        "--at",
        &may_22,
        "--text",
        &turn(&data, "answer_c4e5d969_1", 0),
    ]);
    // "last year", said on 3 March 2023: 2022.
    let (march_3, _) = session(&data, "answer_e3aa84c4_1");
    env.ok(&[
        "put",
        "--id",
        "travel/flights",
        "--at",
        &march_3,
        "--text",
        &turn(&data, "answer_e3aa84c4_1", 8),
    ]);

    let dates = |id: &str| env.json(&["get", id])[0]["tags"]["_dates"].clone();
    assert_eq!(dates("sport/final"), json!(["2022-12-31"]));
    assert_eq!(dates("gifts/neighbour"), json!(["2023-02-01"]));
    assert_eq!(dates("kitchen/coffee-maker"), json!(["2023-05-01"]));
    // "since November last year ... the last trip being on January 20th"
    assert_eq!(dates("travel/flights"), json!(["2022-11-01", "2023-01-20"]));
    // The text itself is unchanged.
    assert!(
        env.ok(&["get", "sport/final"])
            .contains("at home yesterday")
    );

    let when = |period: &str| {
        let mut ids = ids(&env.ok(&["list", "--when", period, "--ids"]));
        ids.sort();
        ids
    };
    assert_eq!(when("2022-12"), ["sport/final"]);
    assert_eq!(
        when("2023-01-01"),
        ["sport/final"],
        "its own day counts too"
    );
    assert_eq!(when("2023-02"), ["gifts/neighbour"]);
    assert_eq!(when("2023-05-01"), ["kitchen/coffee-maker"]);
    assert_eq!(when("2022"), ["sport/final", "travel/flights"]);
    assert_eq!(when("2023-01-20"), ["travel/flights"]);
    assert_eq!(
        ids(&env.ok(&[
            "find",
            "coffee maker",
            "--when",
            "2023-04-25..2023-05-05",
            "--ids"
        ])),
        ["kitchen/coffee-maker"]
    );
    let err = env.fails(&["list", "--when", "around then"], 2);
    assert!(err.contains("bad period 'around then'"), "{err}");
}

/// A session of the sample: its id, its date and its turns (role, text).
type Dated<'a> = (&'a str, String, Vec<(String, String)>);

/// A ChatGPT `conversations.json` of sessions (id, date, turns): the
/// messages as a chain in `mapping`, each a minute after the one before.
fn chatgpt_export(sessions: &[Dated<'_>]) -> String {
    let conversations: Vec<Value> = sessions
        .iter()
        .map(|(id, date, turns)| {
            let root = format!("{id}-root");
            let mut mapping = serde_json::Map::new();
            mapping.insert(
                root.clone(),
                json!({"id": root, "message": null, "parent": null, "children": []}),
            );
            let mut parent = root;
            // A system prompt, hidden: not a turn.
            let system = format!("{id}-system");
            mapping.insert(
                system.clone(),
                json!({
                "id": system,
                "message": {"id": system, "author": {"role": "system"}, "create_time": null,
                    "content": {"content_type": "text", "parts": [""]},
                    "metadata": {"is_visually_hidden_from_conversation": true}},
                "parent": parent, "children": []}),
            );
            mapping[&parent]["children"]
                .as_array_mut()
                .unwrap()
                .push(json!(system));
            parent = system;
            for (i, (role, text)) in turns.iter().enumerate() {
                let node = format!("{id}-{i}");
                mapping.insert(
                    node.clone(),
                    json!({
                    "id": node,
                    "message": {"id": node, "author": {"role": role, "name": null, "metadata": {}},
                        "create_time": epoch(date, i as i64) as f64 + 0.25,
                        "content": {"content_type": "text", "parts": [text]},
                        "status": "finished_successfully", "metadata": {}},
                    "parent": parent, "children": []}),
                );
                mapping[&parent]["children"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!(node));
                parent = node;
            }
            json!({
                "title": format!("Conversation of {}", &date[..10]),
                "create_time": epoch(date, 0) as f64,
                "update_time": epoch(date, turns.len() as i64) as f64,
                "mapping": mapping,
                "current_node": parent,
                "conversation_id": id,
                "id": id,
                "moderation_results": [],
            })
        })
        .collect();
    serde_json::to_string_pretty(&conversations).unwrap()
}

/// Claude's `conversations.json`.
fn claude_export(sessions: &[Dated<'_>]) -> String {
    let conversations: Vec<Value> = sessions
        .iter()
        .map(|(id, date, turns)| {
            let time = |i: usize| {
                jiff::Timestamp::from_second(epoch(date, i as i64))
                    .unwrap()
                    .to_string()
            };
            json!({
                "uuid": id,
                "name": format!("Conversation of {}", &date[..10]),
                "created_at": time(0),
                "updated_at": time(turns.len()),
                "account": {"uuid": "00000000-0000-4000-8000-000000000000"},
                "chat_messages": turns.iter().enumerate().map(|(i, (role, text))| json!({
                    "uuid": format!("{id}-{i}"),
                    "text": "",
                    "content": [{"type": "text", "text": text}],
                    "sender": if role == "user" { "human" } else { "assistant" },
                    "created_at": time(i),
                    "updated_at": time(i),
                    "attachments": [],
                    "files": [],
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&conversations).unwrap()
}

/// JSON Lines of turns.
fn jsonl_export(sessions: &[Dated<'_>]) -> String {
    let mut out = String::new();
    for (id, date, turns) in sessions {
        for (i, (role, text)) in turns.iter().enumerate() {
            let time = jiff::Timestamp::from_second(epoch(date, i as i64))
                .unwrap()
                .to_string();
            out.push_str(
                &json!({"session": id, "time": time, "speaker": role, "text": text}).to_string(),
            );
            out.push('\n');
        }
    }
    out
}

/// A Markdown chat log: a heading per session, a bracketed time per turn.
fn markdown_export(sessions: &[Dated<'_>]) -> String {
    let mut out = String::new();
    for (_, date, turns) in sessions {
        out.push_str(&format!("# Chat {}\n\n", &date[..10]));
        for (i, (role, text)) in turns.iter().enumerate() {
            let time = jiff::Timestamp::from_second(epoch(date, i as i64)).unwrap();
            out.push_str(&format!(
                "[{}] {role}: {text}\n\n",
                time.strftime("%Y-%m-%d %H:%M")
            ));
        }
    }
    out
}

type Export = fn(&[Dated<'_>]) -> String;

/// Imports two sessions through `export`, then again (nothing changes),
/// then a longer export of the second (it gains a version), and checks
/// ids, speakers, times and turn-level recall.
fn imports_and_reimports(format: &str, export: Export, session_ids: [&str; 2], query: &str) {
    let data = longmemeval();
    let env = Env::with_model();
    let [first, second] = session_ids.map(|id| {
        let (date, turns) = session(&data, id);
        (id, date, turns)
    });
    let mut shorter = second.clone();
    shorter.2.truncate(second.2.len() - 2);
    let file = env.path("export");
    std::fs::write(&file, export(&[first.clone(), shorter])).unwrap();
    let file = file.to_str().unwrap();
    let imported = env.json(&["import", "--format", "chat", file]);
    assert_eq!(imported["format"], format);
    let sessions = imported["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{imported}");
    assert!(
        sessions.iter().all(|s| s["status"] == "created"),
        "{imported}"
    );
    let ids: Vec<String> = sessions
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    if format != "markdown" {
        assert_eq!(ids[0], format!("chat/{format}/{}", first.0));
        assert_eq!(ids[1], format!("chat/{format}/{}", second.0));
    }
    assert!(
        ids.iter()
            .all(|id| id.starts_with(&format!("chat/{format}/"))),
        "{ids:?}"
    );

    let note = &env.json(&["get", &ids[0]])[0];
    let millis = if format == "chatgpt" { "250" } else { "000" };
    assert_eq!(
        note["at"],
        format!("{}.{millis}Z", first.1.trim_end_matches('Z'))
    );
    let speakers = note["tags"]["speaker"].clone();
    let expected = if format == "claude" {
        json!(["assistant", "human"])
    } else {
        json!(["assistant", "user"])
    };
    assert_eq!(speakers, expected, "{note}");
    let parts = note["parts"].as_array().unwrap();
    assert_eq!(parts.len(), first.2.len(), "one part per turn");
    let third = &parts[2];
    // ChatGPT writes times with fractions of a second; they are kept.
    let millis = if format == "chatgpt" { "250" } else { "000" };
    let said = jiff::Timestamp::from_second(epoch(&first.1, 2)).unwrap();
    assert_eq!(
        third["tags"]["_at"],
        json!([format!("{}.{millis}Z", said.strftime("%Y-%m-%dT%H:%M:%S"))])
    );
    assert_eq!(
        third["tags"]["speaker"],
        json!([if format == "claude" && first.2[2].0 == "user" {
            "human"
        } else {
            first.2[2].0.as_str()
        }])
    );
    assert!(
        third["summary"]
            .as_str()
            .unwrap()
            .contains(&first.2[2].1[..40]),
        "{third}"
    );

    // The same export again: nothing changes.
    let again = env.json(&["import", "--format", "chat", file]);
    assert!(
        again["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "unchanged"),
        "{again}"
    );
    assert_eq!(env.json(&["get", &ids[0]])[0]["versions"], json!([]));

    // A longer export of the same conversations: the second gains its new
    // turns, and only those (and its synopsis) wait for vectors.
    env.ok(&["reindex"]);
    std::fs::write(file, export(&[first.clone(), second.clone()])).unwrap();
    let longer = env.json(&["import", "--format", "chat", file]);
    let statuses: Vec<&str> = longer["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["unchanged", "updated"]);
    let grown = &env.json(&["get", &ids[1]])[0];
    assert_eq!(grown["parts"].as_array().unwrap().len(), second.2.len());
    assert_eq!(
        grown["versions"].as_array().unwrap().len(),
        1,
        "the shorter conversation is kept as a version"
    );
    assert_eq!(
        env.json(&["stats"])["waiting_for_vectors"],
        3,
        "two new turns and the synopsis"
    );
    assert_eq!(
        env.all_ids()
            .iter()
            .filter(|id| id.starts_with("chat/"))
            .count(),
        2
    );

    // Recall (the real model and keywords) finds the turn that says it.
    env.ok(&["reindex"]);
    let hits = env.json(&["find", query, "-n", "3"]);
    let top = &hits[0];
    assert!(top["matched"]["part"].as_u64().is_some(), "{top}");
    let part = top["matched"]["part"].as_u64().unwrap();
    let shown = env.ok(&[
        "get",
        &format!("{}@P{{{part}}}", top["id"].as_str().unwrap()),
    ]);
    assert!(shown.contains("speaker:"), "{shown}");
}

#[test]
fn chatgpt_exports_import_as_sessions_of_turns() {
    imports_and_reimports(
        "chatgpt",
        chatgpt_export,
        ["answer_c9f5693c_1", "answer_c9f5693c_2"],
        "earned $420 at the Downtown Farmers Market",
    );
}

#[test]
fn claude_exports_import_as_sessions_of_turns() {
    imports_and_reimports(
        "claude",
        claude_export,
        ["answer_e1403127_1", "answer_e1403127_2"],
        "century ride on my road bike after 2,000 miles",
    );
}

#[test]
fn json_lines_of_turns_import_as_sessions() {
    imports_and_reimports(
        "jsonl",
        jsonl_export,
        ["answer_f25c32f5_1", "answer_f25c32f5_2"],
        "get Luna microchipped",
    );
}

#[test]
fn markdown_chat_logs_import_as_sessions() {
    imports_and_reimports(
        "markdown",
        markdown_export,
        ["answer_2cec623b_1", "answer_2cec623b_2"],
        "loyalty program or rewards card at H&M",
    );
}

#[test]
fn a_markdown_log_of_times_of_day_is_read_on_its_files_day_and_an_unreadable_turn_is_refused() {
    let env = Env::new();
    let log = env.path("standup.md");
    std::fs::write(
        &log,
        "# Standup\n[10:05] Bo: the build is green\n**Ana** (10:07): ship it\n[9:15 pm] Bo: shipped\n",
    )
    .unwrap();
    let written = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_772_409_600); // 2026-03-02
    std::fs::File::options()
        .write(true)
        .open(&log)
        .unwrap()
        .set_modified(written)
        .unwrap();
    let imported = env.json(&[
        "import",
        "--format",
        "chat",
        log.to_str().unwrap(),
        "--json",
    ]);
    let id = imported["sessions"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(imported["sessions"][0]["turns"], 3, "{imported}");
    let parts = env.json(&["get", &id, "--parts", "--json"]);
    let said: Vec<String> = parts[0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {}", p["tags"]["speaker"][0], p["tags"]["_at"][0]))
        .collect();
    assert_eq!(
        said,
        [
            "\"Bo\" \"2026-03-02T10:05:00.000Z\"",
            "\"Ana\" \"2026-03-02T10:07:00.000Z\"",
            "\"Bo\" \"2026-03-02T21:15:00.000Z\""
        ],
        "{parts}"
    );
    std::fs::write(&log, "# Standup\n[10:05] Bo: fine\n[10:7x] Ana: lost?\n").unwrap();
    let refused = env.fails(&["import", "--format", "chat", log.to_str().unwrap()], 2);
    assert!(
        refused.contains("line 3") && refused.contains("starts like a turn"),
        "{refused}"
    );
}

#[test]
fn a_damaged_chat_export_is_refused_naming_the_line_and_nothing_is_written() {
    let data = longmemeval();
    let env = Env::new();
    let (date, turns) = session(&data, "answer_c9f5693c_1");
    let whole = chatgpt_export(&[("answer_c9f5693c_1", date.clone(), turns.clone())]);
    let cut = &whole[..whole.len() / 2];
    let file = env.path("cut.json");
    std::fs::write(&file, cut).unwrap();
    let err = env.fails(&["import", "--format", "chat", file.to_str().unwrap()], 2);
    let lines = cut.lines().count();
    assert!(
        err.contains(&format!("line {lines}:")) && err.contains("not valid JSON"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let jsonl = jsonl_export(&[("s1", date, turns)]);
    let mut broken: Vec<&str> = jsonl.lines().collect();
    broken[4] = r#"{"session": "s1", "speaker": "user"}"#;
    let file = env.path("turns.jsonl");
    std::fs::write(&file, broken.join("\n")).unwrap();
    let err = env.fails(&["import", "--format", "chat", file.to_str().unwrap()], 2);
    assert!(err.contains("line 5: no 'text'"), "{err}");
    assert!(env.all_ids().is_empty(), "nothing was written");
}

#[test]
fn an_agent_remembers_with_times_supersedes_and_recalls_as_of_a_date() {
    let data = longmemeval();
    let env = Env::new();
    let (first_at, _) = session(&data, "answer_f2f998c7_1");
    let (second_at, _) = session(&data, "answer_f2f998c7_2");
    let mut lines = handshake();
    lines.extend([
        call(
            2,
            "remember",
            json!({
                "id": "games/ticket-to-ride-best",
                "text": turn(&data, "answer_f2f998c7_1", 2),
                "at": first_at,
            }),
        ),
        call(
            3,
            "remember",
            json!({
                "id": "games/ticket-to-ride-best-new",
                "text": turn(&data, "answer_f2f998c7_2", 8),
                "at": second_at,
                "supersedes": ["games/ticket-to-ride-best"],
            }),
        ),
        call(
            4,
            "recall",
            json!({"query": "highest score in Ticket to Ride", "as_of": "2023-05-27"}),
        ),
        call(
            5,
            "recall",
            json!({"query": "highest score in Ticket to Ride"}),
        ),
        call(
            6,
            "get",
            json!({"id": "games/ticket-to-ride-best", "as_of": "2023-05-26"}),
        ),
        call(
            7,
            "recall",
            json!({"query": "Ticket to Ride", "when": "2023-05-30"}),
        ),
    ]);
    let responses = exchange(&env, &lines);
    let result = |id: &str| responses[id][0]["result"]["structuredContent"].clone();
    let first_hit = |id: &str| {
        result(id)["notes"][0]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        first_hit("4"),
        "games/ticket-to-ride-best",
        "{}",
        result("4")
    );
    assert_eq!(result("4")["notes"].as_array().unwrap().len(), 1);
    assert_eq!(first_hit("5"), "games/ticket-to-ride-best-new");
    assert_eq!(result("5")["notes"][0]["at"], "2023-05-30T16:19:00.000Z");
    assert_eq!(result("6")["note"]["until"], "2023-05-30T16:19:00.000Z");
    assert_eq!(first_hit("7"), "games/ticket-to-ride-best-new");
    assert_eq!(result("7")["notes"].as_array().unwrap().len(), 1);
}

#[test]
fn the_json_api_puts_with_a_time_and_answers_as_of_a_date() {
    use crate::serve::{Server, curl};
    let data = longmemeval();
    let env = Env::new();
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let base = server.url.replace("/mcp", "");
    let (old_at, _) = session(&data, "answer_77f32504_1");
    let (new_at, _) = session(&data, "answer_77f32504_2");
    let post = |body: Value| {
        curl(
            &[
                "-X",
                "POST",
                "-H",
                "Content-Type: application/json",
                "--data-binary",
                &body.to_string(),
            ],
            &format!("{base}/v1/notes"),
        )
    };
    let (code, said) = post(json!({
        "id": "learning/python-videos", "at": old_at,
        "text": turn(&data, "answer_77f32504_1", 0),
    }));
    assert_eq!(code, 0, "{said}");
    let (code, said) = post(json!({
        "id": "learning/python-videos-now", "at": new_at, "supersedes": ["learning/python-videos"],
        "text": turn(&data, "answer_77f32504_2", 2),
    }));
    assert_eq!(code, 0, "{said}");
    let found = |query: &str| {
        let (code, body) = curl(
            &[],
            &format!("{base}/v1/find?q=Corey%20Schafer%20videos&{query}"),
        );
        assert_eq!(code, 0, "{body}");
        let hits: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        hits.as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["id"].as_str().unwrap().to_string(),
                    h["at"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found("as_of=2023-05-22"),
        [(
            "learning/python-videos".to_string(),
            "2023-05-21T15:59:00.000Z".to_string()
        )]
    );
    assert_eq!(found("when=2023-05-24")[0].0, "learning/python-videos-now");
    server.terminate();
}

/// The sessions of the sample's first `n` questions plus `extra`, as JSON
/// Lines of turns, imported; every turn embedded.
fn import_sessions(env: &Env, data: &[Value], n: usize, extra: &[&str]) {
    let mut wanted: Vec<String> = data[..n]
        .iter()
        .flat_map(|q| q["haystack_session_ids"].as_array().unwrap().clone())
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    wanted.extend(extra.iter().map(|s| s.to_string()));
    wanted.sort();
    wanted.dedup();
    let sessions: Vec<Dated<'_>> = wanted
        .iter()
        .map(|id| {
            let (date, turns) = session(data, id);
            (id.as_str(), date, turns)
        })
        .collect();
    let file = env.path("sessions.jsonl");
    std::fs::write(&file, jsonl_export(&sessions)).unwrap();
    env.ok(&["import", "--format", "chat", file.to_str().unwrap()]);
    env.ok(&["reindex"]);
}

fn first_ids(found: &Value, n: usize) -> Vec<String> {
    found
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_month_named_in_the_question_brings_the_state_of_that_month_first() {
    // The bikes a person owns, told in February 2023 and again in
    // October 2023: the month in the question decides which comes first.
    let data = longmemeval();
    let env = Env::with_model();
    let (old, new) = ("answer_e1403127_1", "answer_e1403127_2");
    import_sessions(&env, &data, 12, &[old, new]);
    for (month, wanted, other) in [("February 2023", old, new), ("October 2023", new, old)] {
        let question = format!("In {month}, how many bikes did I own?");
        let found = env.json(&["find", &question, "--json", "-n", "5"]);
        let first = &found[0];
        assert_eq!(
            first["id"],
            format!("chat/jsonl/{wanted}"),
            "{question}: {found}"
        );
        let (date, _) = session(&data, wanted);
        assert!(
            first["at"].as_str().unwrap().starts_with(&date[..7]),
            "the hit says when it was: {first}"
        );
        assert!(
            first_ids(&found, 5).contains(&format!("chat/jsonl/{other}")),
            "the other month's state still follows: {found}"
        );
    }
}

#[test]
fn both_pieces_of_a_compound_question_are_in_the_first_results() {
    // Two questions about two different sessions, asked as one: the
    // first three results hold a turn that answers each. Two sessions
    // say what the designer handbag cost (the handbag question's, and a
    // question on luxury spending whose first turn names the Gucci
    // handbag's $1,200); either answers that piece.
    let data = longmemeval();
    let env = Env::with_model();
    let (yoga, handbag) = ("answer_9398da02", "answer_7cb94507");
    import_sessions(&env, &data, 12, &[yoga, handbag, "answer_ef74281f_1"]);
    let question = "Where do I take yoga classes, and how much did I spend on a designer handbag?";
    let found = env.json(&["find", question, "--json", "-n", "5"]);
    let first: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|h| h["address"].as_str().or(h["id"].as_str()).unwrap())
        .collect();
    let answers_yoga = |a: &&str| a.starts_with(&format!("chat/jsonl/{yoga}"));
    let handbag_cost = [
        format!("chat/jsonl/{handbag}@P{{3}}"),
        "chat/jsonl/answer_ef74281f_1@P{1}".to_string(),
    ];
    assert!(first.iter().any(answers_yoga), "no yoga turn in {first:?}");
    assert!(
        first.iter().any(|a| handbag_cost.iter().any(|h| h == a)),
        "no turn saying what the handbag cost in {first:?}"
    );
}

#[test]
fn each_turn_of_an_imported_conversation_is_a_result_of_its_own() {
    let data = longmemeval();
    let env = Env::with_model();
    let ids = [
        "answer_d8a1af6c_4",
        "answer_f25c32f5_1",
        "answer_f25c32f5_2",
        "answer_2cec623b_1",
        "answer_2cec623b_2",
    ];
    let sessions: Vec<Dated<'_>> = ids
        .iter()
        .map(|id| {
            let (date, turns) = session(&data, id);
            (*id, date, turns)
        })
        .collect();
    let file = env.path("export.jsonl");
    std::fs::write(&file, jsonl_export(&sessions)).unwrap();
    env.ok(&["import", "--format", "chat", file.to_str().unwrap()]);
    env.ok(&["reindex"]);
    let question = "What was the airline that I flied with on Valentine's day?";
    let hits = env.json(&["find", "-n", "10", question]);
    let hits = hits.as_array().unwrap();
    let valentine = "chat/jsonl/answer_d8a1af6c_4";
    assert_eq!(hits[0]["id"], valentine, "{hits:?}");
    // Turns of one conversation, each with its address and speaker.
    let turns: Vec<&Value> = hits
        .iter()
        .filter(|h| h["id"] == valentine && h["part"].is_i64())
        .collect();
    assert!(turns.len() >= 2, "several turns of one session: {hits:?}");
    // The session's own entry (its synopsis) gives way to its turns.
    assert!(
        !hits
            .iter()
            .any(|h| h["id"] == valentine && h["part"].is_null()),
        "the synopsis beside its turns: {hits:?}"
    );
    let mut parts = Vec::new();
    for turn in &turns {
        let part = turn["part"].as_i64().unwrap();
        assert_eq!(turn["address"], format!("{valentine}@P{{{part}}}"));
        assert!(["user", "assistant"].contains(&turn["speaker"].as_str().unwrap()));
        parts.push(part);
    }
    parts.sort_unstable();
    parts.dedup();
    assert_eq!(parts.len(), turns.len(), "each turn once: {parts:?}");
    // The evidence (the first and fifth turns) is in the first three.
    let top: Vec<i64> = hits[..3]
        .iter()
        .filter(|h| h["id"] == valentine)
        .filter_map(|h| h["part"].as_i64())
        .collect();
    assert!(top.contains(&1) || top.contains(&5), "{hits:?}");
    // -C 1: the turns either side of each turn found.
    let around = env.json(&["find", "-n", "3", "-C", "1", question]);
    for hit in around
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["part"].is_i64())
    {
        let part = hit["part"].as_i64().unwrap();
        let shown: Vec<i64> = hit["around"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["part"].as_i64().unwrap())
            .collect();
        let expected: Vec<i64> = [part - 1, part + 1]
            .into_iter()
            .filter(|p| *p >= 1)
            .collect();
        assert_eq!(shown, expected, "{hit}");
    }
    // --ids names each turn by its address, which get reads.
    let listed = env.ok(&["find", "--ids", "-n", "3", question]);
    let first = listed.lines().next().unwrap();
    assert_eq!(first, hits[0]["address"].as_str().unwrap());
    let turn = env.json(&["get", first]);
    assert_eq!(turn[0]["id"], valentine, "{turn}");
}
