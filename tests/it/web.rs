//! keep serve's web page, driven in a real headless Chromium against a
//! real server: search as one types, a note with its versions, parts,
//! edges and log, the log, stats, conflicts and graph views, the keyboard
//! and a phone-sized window; writes under tokens and CSRF; hostile notes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::browser::Browser;
use crate::common::{Env, repo_root};
use crate::serve::Server;

/// One raw HTTP request: the whole answer, head and body.
fn raw(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

fn text_of(browser: &mut Browser, selector: &str) -> String {
    let value = browser.eval(&format!(
        "(document.querySelector({selector:?}) || {{}}).textContent || ''"
    ));
    value.as_str().unwrap_or("").to_string()
}

/// Submits the form `selector` finds as its button would, and waits for
/// the page it leads to.
fn submit(browser: &mut Browser, selector: &str) {
    browser.before_leaving();
    browser.eval(&format!(
        "document.querySelector({selector:?}).requestSubmit()"
    ));
    browser.settle();
}

/// Whether the page fits a window `width` pixels wide (nothing scrolls
/// sideways but what scrolls itself).
fn fits(browser: &mut Browser, width: u32) -> bool {
    let scroll = browser.eval("document.documentElement.scrollWidth");
    scroll.as_u64().is_some_and(|w| w <= u64::from(width))
}

#[test]
fn the_page_finds_as_one_types_reads_a_note_whole_and_shows_the_log_stats_conflicts_and_graph() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "The lighthouse keeper polishes the brass lantern every evening before dusk.",
        "--id",
        "lighthouse",
        "--tag",
        "author=ana",
        "--tag",
        "topic=coast",
    ]);
    env.ok(&[
        "put",
        "Tide tables list the heights of the sea along the coast.",
        "--id",
        "tides",
        "--tag",
        "topic=coast",
    ]);
    env.ok(&[
        "put",
        "The ferry to the island leaves at seven from the north pier.",
        "--id",
        "ferry",
    ]);
    env.ok(&["tag", "lighthouse", "--tag", "reviewed=yes"]);
    env.ok(&[
        "put",
        "The office Wi-Fi password is BlueOtter-7731",
        "--id",
        "wifi",
    ]);
    env.ok(&["put", "The office Wi-Fi password is GreenHeron-2288"]);
    let document = repo_root().join("testdata/real/sqlite-about.html");
    env.ok(&["put", document.to_str().unwrap()]);
    let doc_id = format!("file://{}", document.display());
    let parts = env.json(&["get", &doc_id, "--parts"])[0]["parts"]
        .as_array()
        .unwrap()
        .len();
    assert!(parts >= 2, "the document has parts to show");
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let base = format!("http://{}", server.addr);
    let mut browser = Browser::start(1200, 900);

    // Find as one types: the right note first, from the page's own search.
    browser.open(&format!("{base}/"));
    assert_eq!(browser.eval("document.activeElement.id"), "q");
    browser.type_text("brass lantern");
    let first = browser.wait_for(
        "document.querySelector('#results[data-query=\"brass lantern\"] a.note-link').getAttribute('href')",
    );
    assert_eq!(browser.eval("location.search"), "?q=brass+lantern");
    assert_eq!(first, "/note/lighthouse");
    let hit = text_of(&mut browser, "#results li");
    assert!(
        hit.contains("topic=coast") && hit.contains("lighthouse"),
        "{hit}"
    );
    assert!(
        browser
            .eval("performance.getEntriesByName('keep:results').length")
            .as_u64()
            .unwrap()
            >= 2,
        "the typed search marks its results"
    );

    // By keyboard alone: tab to the first result and open it.
    let mut on_result = false;
    for _ in 0..8 {
        browser.press("Tab");
        if browser.eval("document.activeElement.matches('#results a.note-link')") == true {
            on_result = true;
            break;
        }
    }
    assert!(on_result, "Tab reaches the results");
    browser.before_leaving();
    browser.press("Enter");
    browser.settle();
    assert_eq!(browser.eval("location.pathname"), "/note/lighthouse");
    assert!(text_of(&mut browser, "h1").contains("brass lantern"));
    assert_eq!(
        text_of(&mut browser, "#author"),
        "cli (typed)",
        "who wrote it and where its text came from"
    );
    let versions = text_of(&mut browser, "#versions");
    assert!(
        versions.contains("@V{1}")
            && versions.contains("+reviewed=yes")
            && versions.contains("created"),
        "{versions}"
    );
    // An archived version, read as it was.
    browser.open(&format!("{base}/note/lighthouse%40V%7B1%7D"));
    assert!(!text_of(&mut browser, "#tags").contains("reviewed=yes"));
    assert!(text_of(&mut browser, "tr.shown").contains("@V{1}"));
    assert_eq!(
        browser.eval("document.querySelectorAll('form.act').length"),
        0,
        "an old version is read, not acted on"
    );
    browser.open(&format!("{base}/note/lighthouse"));
    let edges = text_of(&mut browser, "#edges");
    assert!(edges.contains("author → ana"), "{edges}");
    let log = text_of(&mut browser, "#log");
    assert!(
        log.contains("create") && log.contains("tag") && log.contains("cli"),
        "{log}"
    );

    // A long document: its parts in order.
    browser.open(&format!("{base}/note/{}", urlencode(&doc_id)));
    let shown = browser.eval("document.querySelectorAll('#parts > li').length");
    assert_eq!(shown.as_u64(), Some(parts as u64));
    let order =
        browser.eval("[...document.querySelectorAll('#parts > li')].map(li => li.id).join(' ')");
    let expected: Vec<String> = (1..=parts).map(|n| format!("p{n}")).collect();
    assert_eq!(order, expected.join(" "));

    // The log, filtered by agent; stats; conflicts; the graph.
    browser.open(&format!("{base}/log?agent=cli"));
    let rows = browser.eval("document.querySelectorAll('#log tbody tr').length");
    assert!(rows.as_u64().unwrap() >= 7, "{rows}");
    browser.open(&format!("{base}/log?agent=nobody"));
    assert!(text_of(&mut browser, "#log").contains("No entries"));
    let stats = env.json(&["stats", "--waiting", "20"]);
    browser.open(&format!("{base}/stats"));
    assert_eq!(
        text_of(&mut browser, "dd[data-key=notes]"),
        stats["notes"].to_string()
    );
    let waiting =
        browser.eval("[...document.querySelectorAll('#waiting a')].map(a => a.textContent)");
    assert_eq!(waiting, stats["waiting"], "the notes waiting for a vector");
    browser.open(&format!("{base}/conflicts"));
    let conflicts = text_of(&mut browser, "#conflicts");
    assert!(
        conflicts.contains("wifi") && conflicts.contains("BlueOtter-7731"),
        "{conflicts}"
    );
    browser.open(&format!("{base}/graph/lighthouse"));
    let nodes = browser
        .strings("[...document.querySelectorAll('#graph a')].map(a => a.getAttribute('href'))");
    for expected in [
        "/note/lighthouse",
        "/note/ana",
        "/?tag=topic%3Dcoast",
        "/note/tides",
    ] {
        assert!(
            nodes.iter().any(|n| n == expected),
            "{expected} in {nodes:?}"
        );
    }
    assert!(
        browser
            .eval("document.querySelectorAll('#graph line').length")
            .as_u64()
            .unwrap()
            >= 3
    );

    // A phone-sized window: nothing runs off the side.
    browser.resize(390, 844);
    for path in [
        "/?q=lighthouse".to_string(),
        "/note/lighthouse".into(),
        format!("/note/{}", urlencode(&doc_id)),
        "/log".into(),
        "/graph/lighthouse?hops=2".into(),
    ] {
        browser.open(&format!("{base}{path}"));
        assert!(fits(&mut browser, 390), "{path} is wider than 390 pixels");
    }
    // Weak hits are marked, and every score stays in one column.
    browser.resize(1200, 900);
    browser.open(&format!("{base}/?q=evening+ferry"));
    browser.wait_for("document.querySelector('#results li .score') && 1");
    let weak = browser.eval("document.querySelectorAll('#results li.weak').length");
    assert!(weak.as_u64().unwrap() >= 1, "some hits are weak: {weak}");
    let rights = browser.eval(
        "[...document.querySelectorAll('#results li .score')].map(s => Math.round(s.getBoundingClientRect().right))",
    );
    let rights: Vec<i64> = rights
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(
        rights.len() >= 2 && rights.iter().all(|r| *r == rights[0]),
        "scores of weak and other hits line up: {rights:?}"
    );
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn writes_from_the_page_go_as_the_token_allows_and_only_with_the_csrf_token() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "The ferry to the island leaves at seven from the north pier.",
        "--id",
        "ferry",
    ]);
    env.ok(&[
        "put",
        "The office Wi-Fi password is BlueOtter-7731",
        "--id",
        "wifi",
    ]);
    env.ok(&["put", "The office Wi-Fi password is GreenHeron-2288"]);
    let newer = env.json(&["conflicts"])[0]["newer"]
        .as_str()
        .unwrap()
        .to_string();
    let writer = env.ok(&["token", "add", "writer"]).trim().to_string();
    let reader = env
        .ok(&["token", "add", "reader", "--read-only"])
        .trim()
        .to_string();
    let server = Server::start(&env, &["--listen", "0.0.0.0:0"]);
    let base = format!("http://{}", server.addr);
    let mut browser = Browser::start(1200, 900);

    // No token: the sign-in form, and a wrong token is refused there.
    browser.open(&format!("{base}/note/ferry"));
    assert!(browser.eval("!!document.getElementById('token')") == true);
    browser.eval("document.getElementById('token').value = 'not-a-token'");
    submit(&mut browser, "form[action='/signin']");
    assert!(
        text_of(&mut browser, ".error").contains("unknown"),
        "{}",
        text_of(&mut browser, "body")
    );
    browser.eval(&format!(
        "document.getElementById('token').value = {writer:?}"
    ));
    submit(&mut browser, "form[action='/signin']");
    assert_eq!(
        browser.eval("document.cookie"),
        "",
        "the token's cookie is not for scripts"
    );
    assert!(text_of(&mut browser, ".who").contains("token writer"));

    // Each write, from the page, as the writer.
    browser.open(&format!("{base}/note/ferry"));
    submit(&mut browser, "form.rate-useful");
    assert!(text_of(&mut browser, "#rating").contains("useful 1"));
    assert_eq!(env.json(&["get", "ferry"])[0]["rating"]["useful"], 1);
    browser.eval("document.querySelector('form.tag-add input[name=add]').value = 'reviewed=yes'");
    submit(&mut browser, "form.tag-add");
    assert!(text_of(&mut browser, "#tags").contains("reviewed=yes"));
    assert_eq!(env.json(&["get", "ferry"])[0]["tags"]["reviewed"][0], "yes");
    browser.before_leaving();
    browser.eval("[...document.querySelectorAll('form.untag')].find(f => f.dataset.body.includes('reviewed=yes')).requestSubmit()");
    browser.settle();
    assert!(!text_of(&mut browser, "#tags").contains("reviewed=yes"));
    assert!(
        env.json(&["get", "ferry"])[0]["tags"]
            .get("reviewed")
            .is_none()
    );
    browser.eval(
        "document.querySelector('form.trash input[name=reason]').value = 'timetable changed'",
    );
    submit(&mut browser, "form.trash");
    assert!(text_of(&mut browser, "#trashed").contains("timetable changed"));
    assert!(
        env.ok(&["list", "--deleted", "--ids"])
            .lines()
            .any(|l| l == "ferry")
    );
    submit(&mut browser, "form.restore");
    assert_eq!(browser.eval("!!document.getElementById('trashed')"), false);
    assert!(env.ok(&["list", "--ids"]).lines().any(|l| l == "ferry"));
    browser.open(&format!("{base}/conflicts"));
    submit(&mut browser, "form.supersede");
    assert!(text_of(&mut browser, "#conflicts").contains("No conflicts"));
    assert_eq!(
        env.json(&["get", "wifi"])[0]["replaced_by"][0],
        newer.as_str()
    );
    let log = env.json(&["log", "-n", "20"]);
    let by_writer = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["agent"].as_str().is_some_and(|a| a.starts_with("writer")))
        .count();
    assert!(by_writer >= 5, "the log names the token: {log}");
    let ops: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["op"].as_str())
        .collect();
    for op in ["tag", "trash", "restore"] {
        assert!(ops.contains(&op), "{op} in {ops:?}");
    }

    // Without the CSRF token, or with another, a write is refused.
    let status_of = |browser: &mut Browser, header: &str| {
        browser.eval(&format!(
            "fetch('/v1/notes/ferry/rate', {{method: 'POST', headers: {{'Content-Type': 'application/json'{header}}}, body: '{{\"rating\": \"wrong\"}}'}}).then(r => r.status)"
        ))
    };
    assert_eq!(status_of(&mut browser, ""), 403);
    for (route, body) in [
        ("tags", r#"{"add": ["x=y"]}"#),
        ("supersede", "{}"),
        ("trash", "{}"),
        ("restore", "{}"),
    ] {
        let status = browser.eval(&format!(
            "fetch('/v1/notes/ferry/{route}', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: {body:?}}}).then(r => r.status)"
        ));
        assert_eq!(status, 403, "{route} without the CSRF token");
    }
    assert!(env.json(&["get", "ferry"])[0]["tags"].get("x").is_none());
    let posted = browser.eval(
        "fetch('/v1/notes', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"text\": \"forged\"}'}).then(r => r.status)",
    );
    assert_eq!(posted, 403, "a new note without the CSRF token");
    assert_eq!(
        status_of(
            &mut browser,
            ", 'X-Keep-CSRF': '0123456789abcdef0123456789abcdef'"
        ),
        403
    );
    assert_eq!(env.json(&["get", "ferry"])[0]["rating"]["wrong"], 0);
    assert_eq!(
        status_of(
            &mut browser,
            ", 'X-Keep-CSRF': document.querySelector('meta[name=keep-csrf]').content"
        ),
        200
    );
    assert_eq!(env.json(&["get", "ferry"])[0]["rating"]["wrong"], 1);
    // The same from outside a browser, with the cookie and no CSRF token.
    let cookie = format!("keep_token={writer}");
    let answer = raw(
        &server.addr,
        &format!(
            "POST /v1/notes/ferry/rate HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nContent-Type: application/json\r\nContent-Length: 19\r\nConnection: close\r\n\r\n{{\"rating\":\"wrong\"}}",
            server.addr
        ),
    );
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(
        answer.contains(r#""error":"a write from a browser must show the page's CSRF token"#),
        "{answer}"
    );
    // A sign-in posted from another site is refused.
    let answer = raw(
        &server.addr,
        &format!(
            "POST /signin HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\ntoken={writer}",
            server.addr,
            writer.len() + 6
        ),
    );
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");

    // A read-only token: a page without writes, and a write refused.
    submit(&mut browser, "form[action='/signout']");
    assert!(browser.eval("!!document.getElementById('token')") == true);
    browser.eval(&format!(
        "document.getElementById('token').value = {reader:?}"
    ));
    submit(&mut browser, "form[action='/signin']");
    browser.open(&format!("{base}/note/ferry"));
    assert!(text_of(&mut browser, ".who").contains("read-only"));
    assert_eq!(
        browser.eval("document.querySelectorAll('form.act').length"),
        0
    );
    assert!(text_of(&mut browser, "h1").contains("ferry"));
    let refused = browser.eval(
        "fetch('/v1/notes/ferry/rate', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Keep-CSRF': document.querySelector('meta[name=keep-csrf]').content}, body: '{\"rating\": \"useful\"}'}).then(async r => [r.status, (await r.json()).error])",
    );
    assert_eq!(refused[0], 403, "{refused}");
    assert!(
        refused[1].as_str().unwrap().contains("may only read"),
        "{refused}"
    );
    assert_eq!(env.json(&["get", "ferry"])[0]["rating"]["useful"], 1);
}

#[test]
fn hostile_notes_render_as_inert_text_in_every_view() {
    let env = Env::new();
    let script = "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\"> lighthouse <a href=\"javascript:window.pwned=5\">click</a>";
    env.ok(&[
        "put",
        script,
        "--id",
        "hostile",
        "--tag",
        "references=javascript:window.pwned=3",
        "--tag",
        "quote=\"><img src=x onerror=window.pwned=4>",
    ]);
    env.ok(&[
        "put",
        "A note named like markup.",
        "--id",
        "<b onmouseover=window.pwned=6>x</b>",
        "--tag",
        "references=hostile",
    ]);
    let mut big = String::from("lighthouse ");
    let mut n = 0;
    while big.len() < 1_000_000 {
        big.push_str(&format!(
            "<i>line {n}</i> of a very long note about harbours. "
        ));
        if n % 20 == 0 {
            big.push('\n');
        }
        n += 1;
    }
    env.ok_stdin(&["put", "--id", "big", "-"], &big);
    let server = Server::start(&env, &["--listen", "127.0.0.1:0"]);
    let base = format!("http://{}", server.addr);
    let head = raw(
        &server.addr,
        &format!(
            "GET /note/hostile HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        ),
    );
    let head = head.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
    assert!(
        head.contains("content-security-policy: default-src 'none'; script-src 'self'"),
        "{head}"
    );
    assert!(head.contains("x-frame-options: deny"), "{head}");
    let mut browser = Browser::start(1200, 900);
    for path in [
        "/?q=lighthouse",
        "/note/hostile",
        "/note/%3Cb%20onmouseover%3Dwindow.pwned%3D6%3Ex%3C%2Fb%3E",
        "/note/javascript%3Awindow.pwned%3D3",
        "/graph/hostile?hops=2",
        "/log",
        "/stats",
        "/note/big",
    ] {
        browser.open(&format!("{base}{path}"));
        let inert = browser.inert();
        assert_eq!(inert["pwned"], Value::Null, "{path}: {inert}");
        assert_eq!(inert["handlers"], serde_json::json!([]), "{path}: {inert}");
        assert_eq!(inert["foreign"], serde_json::json!([]), "{path}: {inert}");
        // Hovering and clicking what a note made cannot run it either.
        browser.eval("document.querySelectorAll('b, img').forEach(e => e.dispatchEvent(new MouseEvent('mouseover')))");
        assert_eq!(browser.eval("window.pwned === undefined"), true, "{path}");
    }
    browser.open(&format!("{base}/note/hostile"));
    let text = text_of(&mut browser, "main");
    assert!(
        text.contains("<script>window.pwned=1</script>"),
        "the markup shows as text: {text}"
    );
    assert!(
        text.contains("quote=\"><img src=x onerror=window.pwned=4>"),
        "{text}"
    );
    let edges = text_of(&mut browser, "#edges");
    assert!(edges.contains("javascript:window.pwned=3"), "{edges}");
    // Without a model every note waits for its vector, and is named.
    browser.open(&format!("{base}/stats"));
    let waiting =
        browser.strings("[...document.querySelectorAll('#waiting a')].map(a => a.textContent)");
    for id in ["hostile", "big", "<b onmouseover=window.pwned=6>x</b>"] {
        assert!(waiting.iter().any(|w| w == id), "{id} in {waiting:?}");
    }
    browser.open(&format!("{base}/note/big"));
    let length = browser.eval("document.querySelector('main').textContent.length");
    assert!(
        length.as_u64().unwrap() > 1_000_000,
        "the long note is there whole: {length}"
    );
    assert!(fits(&mut browser, 1200));
}
