//! Ingestion of the fixtures in testdata/: every format, folders, broken
//! files, OCR and its queue, and URLs from a local server.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::Env;

fn testdata(dir: &str) -> PathBuf {
    crate::common::repo_root().join("testdata").join(dir)
}

/// Copies a fixture folder into the environment; returns the copy.
fn copy_fixtures(env: &Env, dir: &str) -> PathBuf {
    let to = env.path(dir);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(testdata(dir)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    to
}

fn file_id(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn get(env: &Env, id: &str) -> Value {
    env.json(&["get", id])[0].clone()
}

fn tag<'a>(note: &'a Value, key: &str) -> &'a str {
    note["tags"][key][0]
        .as_str()
        .unwrap_or_else(|| panic!("no tag {key} in {note}"))
}

#[test]
fn every_fixture_is_extracted_with_its_text_and_tags() {
    let mut env = Env::new();
    env.install_ocr();
    let dir = copy_fixtures(&env, "ingest");
    let report = env.json(&["put", dir.to_str().unwrap()]);
    let mut expected: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| file_id(&e.unwrap().path()))
        .collect();
    expected.sort();
    assert_eq!(report["added"], serde_json::json!(expected), "{report}");
    assert_eq!(report["failed"], serde_json::json!([]));
    let id = |name: &str| file_id(&dir.join(name));

    let note = get(&env, &id("note.txt"));
    assert!(
        note["summary"]
            .as_str()
            .unwrap()
            .starts_with("Lighthouse keepers log the weather")
    );
    assert_eq!(tag(&note, "_content_type"), "text/plain");
    assert_eq!(tag(&note, "_source"), "file");

    let readme = get(&env, &id("readme.md"));
    assert_eq!(tag(&readme, "title"), "Harbour Guide");
    assert_eq!(tag(&readme, "_content_type"), "text/markdown");

    let page = get(&env, &id("page.html"));
    assert_eq!(tag(&page, "title"), "Tide Tables for Port Ellen");
    let text = page["summary"].as_str().unwrap();
    assert!(
        text.contains("High water at Port Ellen is at 06:12"),
        "{text}"
    );
    for hidden in ["tracking", "Enable scripts", "color: red"] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }

    let report = get(&env, &id("report.pdf"));
    assert_eq!(tag(&report, "title"), "Annual Lighthouse Report");
    assert_eq!(tag(&report, "author"), "Morag Campbell");
    let text = report["summary"].as_str().unwrap();
    assert!(
        text.contains("Rubha Reidh was replaced") && text.contains("Page two lists"),
        "{text}"
    );

    let memo = get(&env, &id("memo.docx"));
    assert_eq!(tag(&memo, "title"), "Ferry Timetable Memo");
    assert_eq!(tag(&memo, "author"), "Iain MacLeod");
    let text = memo["summary"].as_str().unwrap();
    assert!(
        text.contains("winter timetable starts") && text.contains("Bookings open a month ahead"),
        "{text}"
    );
    // A table row is not prose: it is found, never spliced into the summary.
    assert!(!text.contains('|'), "{text}");
    let found = env.ok(&["find", "Craignure", "--ids"]);
    assert!(found.contains("memo.docx"), "{found}");

    let song = get(&env, &id("shanty.mp3"));
    for (key, value) in [
        ("title", "Morning Ferry"),
        ("artist", "The Harbour Singers"),
        ("album", "Songs of the Sea"),
        ("year", "2023"),
        ("duration", "0:03"),
        ("_content_type", "audio/mpeg"),
    ] {
        assert_eq!(tag(&song, key), value);
    }
    assert!(
        song["summary"]
            .as_str()
            .unwrap()
            .starts_with("Morning Ferry by The Harbour Singers")
    );
    let ogg = get(&env, &id("foghorn.ogg"));
    assert_eq!(tag(&ogg, "genre"), "Folk");
    assert_eq!(tag(&ogg, "artist"), "Coastguard Choir");

    let photo = get(&env, &id("photo.jpg"));
    assert_eq!(tag(&photo, "camera"), "Canon EOS 5D");
    assert_eq!(tag(&photo, "taken"), "2024-05-01T12:30:00");
    assert_eq!(tag(&photo, "gps"), "56.500000,-6.250000");
    assert_eq!(tag(&photo, "dimensions"), "320x240");

    for scan in ["scan.png", "scan.pdf"] {
        let note = get(&env, &id(scan));
        // A PDF's first line is its title; the summary is the rest.
        let text = format!(
            "{} {}",
            note["tags"]["title"][0].as_str().unwrap_or(""),
            note["summary"].as_str().unwrap()
        );
        for words in [
            "Harbour Notice",
            "The pier closes at nine tonight.",
            "Keep clear of the slipway.",
        ] {
            assert!(
                text.contains(words),
                "OCR of {scan} lacks {words:?}: {text}"
            );
        }
        assert!(note["tags"]["_ocr"].is_null());
    }
    // An image that holds writing is summarised by it; its size is a tag.
    let scan = get(&env, &id("scan.png"));
    let summary = scan["summary"].as_str().unwrap();
    assert!(summary.starts_with("Harbour Notice"), "{summary}");
    assert_eq!(tag(&scan, "dimensions"), "1100x520");
    let photo_summary = photo["summary"].as_str().unwrap();
    assert!(
        photo_summary.starts_with("Image, 320x240"),
        "{photo_summary}"
    );
    let found = env.ok(&["find", "slipway", "--ids"]);
    assert!(
        found.contains("scan.png") && found.contains("scan.pdf"),
        "{found}"
    );
}

#[test]
fn long_documents_get_parts_and_part_hits_show_the_part() {
    let env = Env::new();
    let dir = copy_fixtures(&env, "ingest");
    let id = file_id(&dir.join("tidal-pools.md"));
    env.ok(&["put", dir.join("tidal-pools.md").to_str().unwrap()]);
    let note = get(&env, &id);
    let summary = note["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Field Notes on Tidal Pools"),
        "{summary}"
    );
    assert!(summary.chars().count() < 700, "{summary}");
    let parts = env.ok(&["get", &id, "--parts", "--ids"]);
    let parts: Vec<&str> = parts.lines().collect();
    assert!(parts.len() >= 2, "{parts:?}");
    assert_eq!(parts[0], format!("{id}@P{{1}}"));
    let last = env.ok(&["get", parts[parts.len() - 1]]);
    assert!(last.contains("quartz pebble"), "{last}");
    let hit = env.ok(&["find", "quartz pebble"]);
    assert!(
        hit.contains(&id)
            && hit.contains(&format!(
                "[in @P{{{}}} Field Notes on Tidal Pools > ",
                parts.len()
            )),
        "{hit}"
    );
}

#[test]
fn user_tags_win_over_tags_read_from_the_file() {
    let env = Env::new();
    let dir = copy_fixtures(&env, "ingest");
    let readme = dir.join("readme.md");
    let id = env.ok(&[
        "put",
        readme.to_str().unwrap(),
        "-t",
        "title=My harbour",
        "-t",
        "kind=guide",
    ]);
    let note = get(&env, id.trim());
    assert_eq!(note["tags"]["title"], serde_json::json!(["My harbour"]));
    assert_eq!(tag(&note, "kind"), "guide");
}

#[test]
fn rerunning_a_folder_changes_nothing_and_an_edit_makes_a_version() {
    let env = Env::new();
    let dir = env.path("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "First note about ropes.").unwrap();
    std::fs::write(dir.join("b.md"), "# Knots\n\nA bowline holds.").unwrap();
    let d = dir.to_str().unwrap();
    assert_eq!(env.json(&["put", d])["added"].as_array().unwrap().len(), 2);
    let again = env.json(&["put", d]);
    assert_eq!(again["unchanged"].as_array().unwrap().len(), 2, "{again}");
    assert!(again["added"].as_array().unwrap().is_empty());
    std::fs::write(dir.join("a.txt"), "First note about ropes, now longer.").unwrap();
    let edited = env.json(&["put", d]);
    let a = file_id(&dir.join("a.txt"));
    assert_eq!(edited["updated"], serde_json::json!([a]), "{edited}");
    let history = env.ok(&["get", &a, "--history"]);
    assert_eq!(history.lines().count(), 2, "{history}");
    assert!(
        env.ok(&["get", &format!("{a}@V{{1}}")])
            .contains("First note about ropes.")
    );
}

#[test]
fn folder_walks_skip_hidden_and_ignored_files_and_honour_excludes() {
    let env = Env::new();
    let dir = env.path("tree");
    for (path, body) in [
        ("a.md", "alpha"),
        (".hidden.md", "hidden"),
        ("sub/b.md", "bravo"),
        ("sub/c.log", "log line"),
        ("ignored/d.md", "ignored"),
        (".gitignore", "ignored/\n"),
    ] {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    let d = dir.to_str().unwrap();
    let flat = env.ok(&["put", d]);
    assert_eq!(
        flat.lines().collect::<Vec<_>>(),
        [file_id(&dir.join("a.md"))]
    );
    let deep = env.ok(&["put", d, "-r", "-x", "*.log"]);
    assert_eq!(
        deep.lines().collect::<Vec<_>>(),
        [file_id(&dir.join("a.md")), file_id(&dir.join("sub/b.md"))]
    );
    assert_eq!(env.all_ids().len(), 2);
}

#[test]
fn broken_files_fail_alone_and_the_rest_lands() {
    let env = Env::new();
    let kept = env.put("A note from before, which must survive.", &["topic=old"]);
    let before = env.export();
    let dir = copy_fixtures(&env, "broken");
    let big = std::fs::File::create(dir.join("huge.txt")).unwrap();
    big.set_len(2 * 1024 * 1024 * 1024).unwrap();
    std::os::unix::fs::symlink(dir.join("nowhere.txt"), dir.join("dangling.txt")).unwrap();
    let out = env.run(&["put", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim(), file_id(&dir.join("good.txt")));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let expect = [
        ("bomb.docx", "looks like a zip bomb"),
        ("dangling.txt", "is a dangling link"),
        ("encrypted.pdf", "is an encrypted PDF"),
        ("fake.jpg", "is named as JPEG but its content is not JPEG"),
        ("huge.txt", "files over 256 MB are not read"),
        ("noise.bin", "is a binary file of a type keep does not read"),
        ("truncated.docx", "is not a readable DOCX"),
        ("truncated.pdf", "is not a readable PDF"),
        ("truncated.pptx", "is not a readable PPTX"),
        ("fake.odt", "is named as ODT but its content is not ODT"),
        ("deep.odp", "nests its XML over 256 elements deep"),
        (
            "refcard.dvi.gz",
            "is a TeX DVI file, which keep does not read",
        ),
        ("bundle.tar", "is a tar archive"),
    ];
    let failures: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(dir.to_str().unwrap()))
        .collect();
    for (name, reason) in expect {
        let line = failures
            .iter()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no failure line for {name}:\n{stderr}"));
        assert!(
            line.starts_with("keep: ") && line.contains(reason),
            "{line}"
        );
    }
    assert_eq!(failures.len(), expect.len(), "{stderr}");
    let ids = env.all_ids();
    assert_eq!(ids, vec![kept.clone(), file_id(&dir.join("good.txt"))]);
    let after = env.export();
    let old_line = |export: &str| {
        export
            .lines()
            .find(|l| l.contains(&kept))
            .map(str::to_string)
    };
    assert_eq!(old_line(&before), old_line(&after));
}

#[test]
fn ocr_waits_for_its_models_then_reindex_reads_the_image() {
    let mut env = Env::new();
    let dir = copy_fixtures(&env, "ingest");
    let scan = dir.join("scan.png");
    let id = file_id(&scan);
    let out = env.run(&["put", scan.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("without the text in their images"),
        "{stderr}"
    );
    let note = get(&env, &id);
    assert_eq!(tag(&note, "_ocr"), "pending");
    assert_eq!(note["summary"], "Image, 1100x520");
    env.install_ocr();
    env.install_model();
    let reindex = env.ok(&["reindex"]);
    assert!(
        reindex.contains("1 read by OCR, 0 still waiting"),
        "{reindex}"
    );
    let note = get(&env, &id);
    assert!(note["tags"]["_ocr"].is_null(), "{note}");
    assert!(
        note["summary"]
            .as_str()
            .unwrap()
            .contains("pier closes at nine"),
        "{note}"
    );
    assert_eq!(env.ok(&["find", "slipway", "--ids"]).trim(), id);
}

/// Serves `/page` (HTML), `/missing` (404) and `/slow` (never answers).
fn serve_locally() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut request = String::new();
                BufReader::new(&stream).read_line(&mut request).unwrap();
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                let reply = match path.as_str() {
                    "/page" => {
                        let body = "<html><head><title>Pier Report</title></head><body><p>The pier reopened on Monday.</p></body></html>";
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    }
                    "/slow" => {
                        std::thread::sleep(std::time::Duration::from_secs(10));
                        return;
                    }
                    _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_string(),
                };
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

#[test]
fn urls_are_fetched_normalised_and_bounded_in_time() {
    let mut env = Env::new();
    env.set("KEEP_FETCH_TIMEOUT", "1");
    let port = serve_locally();
    let url = format!("HTTP://127.0.0.1:{port}/page#top");
    let id = env
        .ok(&["put", &url, "-t", "topic=piers"])
        .trim()
        .to_string();
    assert_eq!(id, format!("http://127.0.0.1:{port}/page"));
    let note = get(&env, &id);
    assert_eq!(tag(&note, "title"), "Pier Report");
    assert_eq!(tag(&note, "_source"), "url");
    assert_eq!(tag(&note, "topic"), "piers");
    assert_eq!(note["summary"], "The pier reopened on Monday.");
    let missing = env.fails(&["put", &format!("http://127.0.0.1:{port}/missing")], 1);
    assert!(missing.contains("HTTP 404"), "{missing}");
    let slow = env.fails(&["put", &format!("http://127.0.0.1:{port}/slow")], 1);
    assert!(slow.contains("timed out after 1 s"), "{slow}");
    assert_eq!(env.all_ids(), vec![id]);
}

#[test]
fn an_unchanged_file_still_takes_new_tags() {
    let env = Env::new();
    let file = env.path("notes.md");
    std::fs::write(&file, "# Notes\n\nThe deploy runs from the infra repo.\n").unwrap();
    let path = file.to_str().unwrap();
    let id = env.ok(&["put", path]).trim().to_string();
    let out = env.run(&["put", path, "-t", "team=infra"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("content unchanged; its tags were updated"),
        "{err}"
    );
    let view = &env.json(&["get", &id])[0];
    assert_eq!(view["tags"]["team"], serde_json::json!(["infra"]));
    assert_eq!(view["versions"].as_array().map(Vec::len), Some(1), "{view}");
    // Asked again, nothing changes.
    let report = env.json(&["put", path, "-t", "team=infra"]);
    assert_eq!(report["unchanged"], serde_json::json!([id]));
}

#[test]
fn a_folder_put_says_where_its_time_went() {
    let mut env = Env::new();
    env.install_ocr();
    let dir = copy_fixtures(&env, "ingest");
    let out = env.run(&["put", dir.to_str().unwrap(), "--timings"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("keep: timings: wall "))
        .unwrap_or_else(|| panic!("no timings line:\n{stderr}"));
    let seconds = |stage: &str| -> f64 {
        let at = line
            .find(stage)
            .unwrap_or_else(|| panic!("{stage} missing: {line}"));
        line[at + stage.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    // The scans are read by OCR, which is part of extraction.
    assert!(seconds("OCR ") > 0.0, "{line}");
    assert!(
        seconds("extraction (worker threads) ") >= seconds("OCR "),
        "{line}"
    );
    for stage in ["summarising ", "storing ", "embedding "] {
        seconds(stage);
    }
    let quiet = env.run(&["put", dir.to_str().unwrap()]);
    assert!(!String::from_utf8(quiet.stderr).unwrap().contains("timings"));
}

#[test]
fn a_text_past_the_parts_limit_says_what_is_found_by_keyword_only() {
    let env = Env::new();
    let file = env.path("long.txt");
    let text: Vec<String> = (0..60_000)
        .map(|i| {
            format!(
                "Sentence number {i} says the lamp at post {} was checked.",
                i * 7
            )
        })
        .collect();
    std::fs::write(&file, text.join(" ")).unwrap();
    let out = env.run(&["put", file.to_str().unwrap()]);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("its first 1000 parts are kept as parts and embedded; the last 2.3 MB of its text are found by keyword only"),
        "{said}"
    );
    // The end of the text is still found by its words.
    let found = env.ok(&["find", "--mode", "keyword", "--ids", "post 419993"]);
    assert_eq!(found.trim(), file_id(&file), "{found}");
}
