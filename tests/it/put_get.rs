//! put and get: ids, summaries, versions, parts of the output.

use crate::common::Env;

const HELLO: &str = "%b94d27b9934d";

#[test]
fn put_prints_the_content_id_and_get_shows_frontmatter() {
    let env = Env::new();
    assert_eq!(env.put("hello world", &["project=keep"]), HELLO);
    assert_eq!(
        env.ok(&["get", HELLO]),
        "---\n\
         id: \"%b94d27b9934d\"\n\
         tags:\n  _agent: cli\n  _content_type: text/plain\n  _origin: typed\n  _source: inline\n  project: keep\n\
         created: 2026-11-22T10:00:00.000Z\n\
         updated: 2026-11-22T10:00:00.000Z\n\
         ---\n\
         hello world\n"
    );
}

#[test]
fn same_content_with_new_tags_is_a_new_version_of_the_same_note() {
    let mut env = Env::new();
    env.put("hello world", &["project=keep"]);
    env.at("2026-11-22T11:00:00Z");
    assert_eq!(env.put("hello world", &["topic=a", "topic=b"]), HELLO);
    assert_eq!(
        env.ok(&["get", HELLO]),
        "---\n\
         id: \"%b94d27b9934d\"\n\
         tags:\n  _agent: cli\n  _content_type: text/plain\n  _origin: typed\n  _source: inline\n  project: keep\n  topic: [a, b]\n\
         versions:\n  1: 2026-11-22 10:00  hello world\n\
         created: 2026-11-22T10:00:00.000Z\n\
         updated: 2026-11-22T11:00:00.000Z\n\
         ---\n\
         hello world\n"
    );
    // Unchanged content and tags: nothing new.
    env.put("hello world", &["topic=a"]);
    let v = env.json(&["get", HELLO]);
    assert_eq!(v[0]["versions"].as_array().unwrap().len(), 1);
    let out = env.json(&["put", "hello world"]);
    assert_eq!(out["status"], "unchanged");
}

#[test]
fn versions_are_addressed_by_selector_and_flag() {
    let mut env = Env::new();
    env.ok(&["put", "first", "--id", "doc"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "second", "--id", "doc"]);
    env.at("2026-11-22T12:00:00Z");
    env.ok(&["put", "third", "--id", "doc"]);
    let summary = |args: &[&str]| env.json(args)[0]["summary"].as_str().unwrap().to_string();
    assert_eq!(summary(&["get", "doc@V{0}"]), "third");
    assert_eq!(summary(&["get", "doc@V{1}"]), "second");
    assert_eq!(summary(&["get", "doc@V{2}"]), "first");
    assert_eq!(summary(&["get", "doc@V{-1}"]), "first");
    assert_eq!(summary(&["get", "doc@V{-2}"]), "second");
    assert_eq!(summary(&["get", "doc", "-V", "1"]), "second");
    assert_eq!(summary(&["get", "doc", "-V", "-1"]), "first");
    assert_eq!(summary(&["get", "doc", "-V", "0"]), "third");
    let v1 = env.ok(&["get", "doc@V{1}"]);
    assert_eq!(
        v1,
        "---\nid: doc\nversion: 1\ntags:\n  _agent: cli\n  _content_type: text/plain\n  _origin: typed\n  _source: inline\n\
         until: 2026-11-22T12:00:00.000Z\n\
         created: 2026-11-22T10:00:00.000Z\nupdated: 2026-11-22T11:00:00.000Z\n---\nsecond\n"
    );
    assert_eq!(
        env.ok(&["get", "doc", "--history"]),
        "doc@V{0}  2026-11-22 12:00  third  [content; summary]\n\
         doc@V{1}  2026-11-22 11:00  second  [content; summary]\n\
         doc@V{2}  2026-11-22 10:00  first  [created]\n"
    );
    assert_eq!(
        env.ok(&["get", "doc", "--history", "--ids"]),
        "doc@V{0}\ndoc@V{1}\ndoc@V{2}\n"
    );
    let history = env.json(&["get", "doc", "--history"]);
    assert_eq!(history[0]["versions"][2]["summary"], "first");
}

#[test]
fn stdin_and_files_are_stored() {
    let env = Env::new();
    let id = env.ok_stdin(&["put", "-", "-t", "src=pipe"], "piped text\n");
    assert_eq!(id.trim(), "%77f821ae7ce8");
    let note = &env.json(&["get", id.trim()])[0];
    assert_eq!(note["summary"], "piped text");
    assert_eq!(note["tags"]["src"][0], "pipe");

    std::fs::write(env.path("notes.md"), "# Title\n\nSome *markdown* text.\n").unwrap();
    let id = env.ok(&["put", "notes.md", "-t", "kind=doc"]);
    let expected = format!("file://{}", env.path("notes.md").display());
    assert_eq!(id.trim(), expected);
    let note = &env.json(&["get", &expected])[0];
    assert_eq!(note["summary"], "# Title\n\nSome *markdown* text.");
    assert_eq!(note["tags"]["_content_type"][0], "text/markdown");
    assert_eq!(note["tags"]["_source"][0], "file");
    // The file:// form of the argument names the same file.
    assert_eq!(env.ok(&["put", &expected]).trim(), expected);
    // A changed file becomes a new version of the same note.
    std::fs::write(env.path("notes.md"), "# Title\n\nChanged.\n").unwrap();
    env.ok(&["put", "notes.md"]);
    let note = &env.json(&["get", &expected])[0];
    assert_eq!(note["summary"], "# Title\n\nChanged.");
    assert_eq!(note["versions"].as_array().unwrap().len(), 1);
    assert_eq!(note["tags"]["kind"][0], "doc");
}

#[test]
fn summary_and_id_can_be_given() {
    let env = Env::new();
    env.ok(&[
        "put",
        "the full text of a thought",
        "--id",
        "thought",
        "--summary",
        "short",
    ]);
    let note = &env.json(&["get", "thought"])[0];
    assert_eq!(note["summary"], "short");
    assert!(env.ok(&["find", "full"]).contains("thought"));
}

#[test]
fn long_text_is_summarised_and_its_full_text_stays_findable() {
    let env = Env::new();
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    ];
    let mut text = String::from("Keep stores notes in one SQLite database.\n\n");
    for (i, a) in words.iter().enumerate() {
        for b in &words[i + 1..] {
            text.push_str(&format!("Keep note {a} {b} stays in the SQLite store. "));
        }
    }
    text.push_str("\n\nThe word zanzibar appears only at the very end.");
    let id = env.ok(&["put", &text]).trim().to_string();
    let note = &env.json(&["get", &id])[0];
    let summary = note["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Keep stores notes in one SQLite database."),
        "{summary}"
    );
    assert!(summary.chars().count() <= 602, "{summary}");
    assert!(!summary.contains("zanzibar"), "{summary}");
    assert_eq!(env.ok(&["find", "zanzibar", "--ids"]).trim(), id);
}

#[test]
fn parts_are_addressed_with_p_selectors() {
    let env = Env::new();
    let export = "{\"format\":\"keep-export\",\"version\":1}\n\
        {\"id\":\"book\",\"summary\":\"A book\",\"tags\":{},\"created\":\"2026-11-22T10:00:00.000Z\",\"updated\":\"2026-11-22T10:00:00.000Z\",\"accessed\":\"2026-11-22T10:00:00.000Z\",\"parts\":[{\"number\":1,\"summary\":\"Chapter one\",\"tags\":{}},{\"number\":2,\"summary\":\"Chapter two\",\"tags\":{\"pov\":[\"ann\"]}}]}\n";
    std::fs::write(env.path("book.jsonl"), export).unwrap();
    env.ok(&["import", "book.jsonl"]);
    let out = env.ok(&["get", "book@P{2}"]);
    assert_eq!(
        out,
        "---\nid: book\npart: 2\ncreated: 2026-11-22T10:00:00.000Z\nupdated: 2026-11-22T10:00:00.000Z\n---\nChapter two\n"
    );
    let whole = env.ok(&["get", "book"]);
    assert!(
        whole.contains("parts:\n  1: Chapter one\n  2: Chapter two\n"),
        "{whole}"
    );
    let err = env.fails(&["get", "book@P{3}"], 2);
    assert_eq!(err, "keep: 'book@P{3}': the note has 2 part(s)\n");
}

#[test]
fn get_with_tag_filter_shows_only_tagged_notes() {
    let env = Env::new();
    let a = env.put("alpha", &["project=x"]);
    let b = env.put("beta", &["project=y"]);
    let out = env.ok(&["get", &a, &b, "-t", "project=x", "--ids"]);
    assert_eq!(out, format!("{a}\n"));
    env.fails(&["get", &b, "-t", "project=x"], 1);
}

#[test]
fn get_records_access_time() {
    let mut env = Env::new();
    let id = env.put("hello world", &[]);
    env.at("2026-11-23T09:00:00Z");
    env.ok(&["get", &id]);
    let note = &env.json(&["list"])[0];
    assert_eq!(note["accessed"], "2026-11-23T09:00:00.000Z");
    assert_eq!(note["updated"], "2026-11-22T10:00:00.000Z");
}

#[test]
fn get_while_another_writer_holds_the_store_answers_at_once_without_recording() {
    let mut env = Env::new();
    let id = env.put("hello world", &[]);
    env.at("2026-11-23T09:00:00Z");
    let writer = env.hold_write_lock(6);
    let out = env.ok(&["get", &id]);
    assert!(out.contains("hello world"), "{out}");
    assert!(
        !writer.is_finished(),
        "get answered while the other writer still held the store"
    );
    assert!(writer.join().unwrap(), "the other writer kept its turn");
    let note = &env.json(&["list"])[0];
    assert_eq!(
        note["accessed"], "2026-11-22T10:00:00.000Z",
        "the read is not recorded while the store is held"
    );
    env.ok(&["get", &id]);
    assert_eq!(
        env.json(&["list"])[0]["accessed"],
        "2026-11-23T09:00:00.000Z"
    );
}

#[test]
fn get_text_gives_back_a_long_note_whole() {
    let env = Env::new();
    let path = crate::common::repo_root().join("testdata/real/linked/nodejs/pull-requests.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let start: String = original.chars().take(4_000).collect();
    let start = start.trim_end();
    let id = env.put(start, &[]);
    // Kept as parts, shown as a summary, and given back whole.
    let parts = env.json(&["get", "--parts", &id]);
    assert!(parts[0]["parts"].as_array().unwrap().len() > 1, "{parts}");
    let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let text = env.ok(&["get", "--text", &id]);
    assert_eq!(words(&text), words(start));
    let json = env.json(&["get", "--text", &id]);
    assert_eq!(json[0]["id"], id.as_str());
    assert_eq!(words(json[0]["text"].as_str().unwrap()), words(start));
    // A short note's text is its summary; a part or version is refused.
    let short = env.put("A short note.", &[]);
    assert_eq!(env.ok(&["get", "--text", &short]), "A short note.\n");
    let err = env.fails(&["get", "--text", &format!("{id}@P{{1}}")], 2);
    assert!(err.contains("give the plain id"), "{err}");
}
