//! The full-screen browser driven in a real pseudo-terminal by tmux:
//! keys in with `send-keys`, the screen out with `capture-pane`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::Env;

/// A tmux server of its own, running `keep` in one pane.
struct Pane<'a> {
    env: &'a Env,
    socket: PathBuf,
}

impl<'a> Pane<'a> {
    /// Starts `keep ARGS` in a pane of `width`×`height`; when keep exits,
    /// the pane shows `exited CODE` on the restored screen.
    fn start(env: &'a Env, args: &[&str], width: u16, height: u16) -> Pane<'a> {
        let socket = env.path("tmux.sock");
        let mut command = vec![
            "-S".to_string(),
            socket.display().to_string(),
            "new-session".into(),
            "-d".into(),
            "-x".into(),
            width.to_string(),
            "-y".into(),
            height.to_string(),
            "sh".into(),
            "-c".into(),
            r#""$0" "$@"; echo "exited $?"; sleep 600"#.into(),
            Env::bin().to_string(),
        ];
        command.extend(args.iter().map(|a| a.to_string()));
        let refs: Vec<&str> = command.iter().map(String::as_str).collect();
        let status = env
            .program(Path::new("tmux"), &refs)
            .env("TERM", "xterm-256color")
            .status()
            .expect("tmux is installed (.ci/run installs it)");
        assert!(status.success(), "tmux new-session failed");
        Pane { env, socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let mut all = vec!["-S", self.socket.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = self
            .env
            .program(Path::new("tmux"), &all)
            .env("TERM", "xterm-256color")
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "0"])
    }

    /// Waits until the screen shows `text`; fails with the screen if not.
    fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Pane<'_> {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

#[test]
fn search_tag_and_quit_in_a_real_terminal() {
    let env = Env::with_model();
    let pools = env.put("Tide pools hold anemones and small crabs", &["topic=sea"]);
    env.put(
        "Buy rope and new sails before the storm season",
        &["topic=boat"],
    );
    env.put(
        "The harbour lights were repaired on Tuesday",
        &["topic=sea"],
    );

    let pane = Pane::start(&env, &["ui"], 120, 30);
    pane.wait_for("notes 1/3");
    pane.keys(&["/"]);
    pane.type_text("anemones");
    let screen = pane.wait_for("results 1/1");
    assert!(screen.contains(&pools), "{screen}");
    pane.keys(&["Enter", "t"]);
    pane.wait_for("add tags");
    pane.type_text("mood=calm");
    pane.keys(&["Enter"]);
    pane.wait_for(&format!("tagged {pools}: mood=calm"));
    pane.keys(&["q"]);
    let screen = pane.wait_for("exited 0");
    assert!(
        !screen.contains("notes 1/"),
        "the screen was restored:\n{screen}"
    );

    let note = env.json(&["get", &pools]);
    assert_eq!(note[0]["tags"]["mood"][0], "calm", "{note}");
    assert_eq!(note[0]["tags"]["topic"][0], "sea", "{note}");
}

#[test]
fn keep_alone_opens_the_browser_on_a_terminal_and_survives_a_tiny_one() {
    let env = Env::new();
    env.put("A note to look at", &[]);
    let pane = Pane::start(&env, &[], 20, 5);
    pane.wait_for("too small");
    pane.tmux(&["resize-window", "-t", "0", "-x", "100", "-y", "20"]);
    pane.wait_for("notes 1/1");
    pane.keys(&["?"]);
    pane.wait_for("keys (any key closes)");
    pane.keys(&["Escape", "C-c"]);
    let screen = pane.wait_for("exited 0");
    assert!(
        !screen.contains("notes 1/"),
        "the screen was restored:\n{screen}"
    );
}

#[test]
fn deleting_asks_first_and_an_error_keeps_the_browser_running() {
    let env = Env::new();
    let keep_me = env.put("Keep this one", &[]);
    let pane = Pane::start(&env, &["ui"], 100, 20);
    pane.wait_for("notes 1/1");
    pane.keys(&["D"]);
    pane.wait_for("and its history? y/n");
    pane.keys(&["n"]);
    pane.wait_for("cancelled");
    pane.keys(&["x"]);
    pane.type_text("nosuchkey");
    pane.keys(&["Enter"]);
    // Removing a tag the note lacks changes nothing and is not an error;
    // a system key is refused with a message and the browser stays.
    pane.keys(&["x"]);
    pane.type_text("_source");
    pane.keys(&["Enter"]);
    pane.wait_for("cannot remove '_source'");
    pane.keys(&["q"]);
    let screen = pane.wait_for("exited 0");
    assert!(
        !screen.contains("notes 1/"),
        "the screen was restored:\n{screen}"
    );
    assert_eq!(env.all_ids(), vec![keep_me]);
}

#[test]
fn editing_in_the_editor_stores_a_new_version_with_the_tags_kept() {
    let mut env = Env::new();
    let seen = env.path("seen");
    env.set(
        "VISUAL",
        &format!(
            "f() {{ stat -c '%a %n' \"$1\" > '{}'; sed -i s/Tuesday/Wednesday/ \"$1\"; }}; f",
            seen.display()
        ),
    );
    let id = env.ok(&[
        "put",
        "The lights were fixed on Tuesday",
        "--id",
        "lights",
        "-t",
        "topic=sea",
    ]);
    let pane = Pane::start(&env, &["ui"], 100, 20);
    pane.wait_for("notes 1/1");
    // The note itself loads after the list: 'e' before it says "still loading".
    pane.wait_for("fixed on Tuesday");
    pane.keys(&["e"]);
    pane.wait_for(&format!("{} updated", id.trim()));
    pane.keys(&["["]);
    pane.wait_for("version @V{1} of 1");
    pane.keys(&["q"]);
    pane.wait_for("exited 0");
    let note = env.json(&["get", "lights"]);
    assert_eq!(
        note[0]["summary"], "The lights were fixed on Wednesday",
        "{note}"
    );
    assert_eq!(note[0]["tags"]["topic"][0], "sea", "{note}");
    assert_eq!(
        note[0]["versions"][0]["summary"],
        "The lights were fixed on Tuesday"
    );
    // The editor's file was the user's alone, in a folder of the user's
    // alone, under names nobody could guess, and both are gone.
    let seen = std::fs::read_to_string(&seen).unwrap();
    let (mode, file) = seen.trim().split_once(' ').unwrap();
    assert_eq!(mode, "600", "{seen}");
    let file = std::path::Path::new(file);
    let folder = file.parent().unwrap();
    let folder_name = folder.file_name().unwrap().to_string_lossy().to_string();
    assert!(folder_name.starts_with("keep-edit-"), "{folder_name}");
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    assert!(name.starts_with("note-") && name.ends_with(".md"), "{name}");
    let middle = &folder_name["keep-edit-".len()..];
    assert!(
        !middle.chars().all(|c| c.is_ascii_digit()),
        "not a process id: {folder_name}"
    );
    assert!(!folder.exists(), "{} left behind", folder.display());
}

#[test]
fn a_store_locked_by_another_writer_never_freezes_the_screen() {
    let env = Env::new();
    env.put("First note", &[]);
    env.put("Second note", &[]);
    let pane = Pane::start(&env, &["ui"], 100, 20);
    pane.wait_for("notes 1/2");
    // Another writer takes the write lock and holds it for 3 seconds.
    let locker = env.hold_write_lock(3);
    pane.keys(&["t"]);
    pane.type_text("state=waiting");
    pane.keys(&["Enter"]);
    // The write waits for the lock; the screen still answers keys.
    pane.wait_for("working…");
    pane.keys(&["j"]);
    pane.wait_for("notes 2/2");
    assert!(locker.join().unwrap());
    pane.wait_for("tagged");
    pane.keys(&["q"]);
    pane.wait_for("exited 0");
    let tagged_ids = env.ok(&["list", "--ids", "-t", "state=waiting"]);
    assert_eq!(tagged_ids.lines().count(), 1, "{tagged_ids}");
}

/// Waits until `path` exists; fails with `what` after 30 s.
fn wait_for_file(path: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The store's part `n` of `id`, as `keep get --json` gives it.
fn part_text(env: &Env, id: &str, n: usize) -> String {
    let part = env.json(&["get", &format!("{id}@P{{{n}}}")]);
    part[0]["part"]["text"].as_str().unwrap().to_string()
}

#[test]
fn a_long_document_scrolls_to_its_last_part_which_opens_in_the_pager() {
    let mut env = Env::new();
    let paged = env.path("paged.txt");
    // Written aside, then renamed: the file appears whole.
    env.set(
        "PAGER",
        &format!("cat > '{0}.part' && mv '{0}.part' '{0}'", paged.display()),
    );
    let file = crate::common::repo_root().join("testdata/real/mdbook-rust-book-strings.html");
    let opened = env.path("opened.txt");
    env.set(
        "KEEP_OPENER",
        &format!(
            "sh -c 'printf %s \"$1\" > {0}.part && mv {0}.part {0}' opener",
            opened.display()
        ),
    );
    let id = env.ok(&["put", file.to_str().unwrap()]).trim().to_string();
    let parts = env.json(&["get", &id])[0]["parts"]
        .as_array()
        .unwrap()
        .len();
    assert!(parts >= 10, "a document of many parts: {parts}");

    let pane = Pane::start(&env, &["ui"], 120, 30);
    // The preview is read after the list: Tab moves into it once it is in.
    pane.wait_for("@P{1} ");
    pane.keys(&["Tab"]);
    let screen = pane.wait_for("Esc list");
    assert!(
        !screen.contains(&format!("@P{{{parts}}}")),
        "the last part is below the fold at first:\n{screen}"
    );
    pane.keys(&["G"]);
    pane.wait_for(&format!("@P{{{parts}}} "));
    pane.keys(&["Enter"]);
    wait_for_file(&paged, "the pager never ran");
    pane.wait_for("notes 1/1");
    let shown = std::fs::read_to_string(&paged).unwrap();
    let expected = format!("{id}@P{{{parts}}}\n\n{}\n", part_text(&env, &id, parts));
    assert_eq!(shown, expected);

    // Enter in the list: the whole note, every part in full.
    std::fs::remove_file(&paged).unwrap();
    pane.keys(&["Escape"]);
    pane.wait_for("Tab preview");
    pane.keys(&["Enter"]);
    wait_for_file(&paged, "the pager never ran for the note");
    let whole = std::fs::read_to_string(&paged).unwrap();
    for n in 1..=parts {
        let part = part_text(&env, &id, n);
        assert!(whole.contains(part.trim_end()), "part {n} missing");
    }
    pane.keys(&["o"]);
    wait_for_file(&opened, "the opener never ran");
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        file.to_str().unwrap()
    );
    pane.keys(&["q"]);
    pane.wait_for("exited 0");
}

#[test]
fn marked_notes_are_tagged_together_and_exported() {
    let env = Env::new();
    for text in ["Rope and sails", "Anemones in tide pools", "Harbour lights"] {
        env.put(text, &[]);
    }
    let export = env.path("marked.jsonl");
    let pane = Pane::start(&env, &["ui"], 120, 30);
    pane.wait_for("notes 1/3");
    pane.keys(&["Space", "Space"]);
    pane.wait_for("notes 3/3 · 2 marked");
    pane.keys(&["t"]);
    pane.type_text("batch=one");
    pane.keys(&["Enter"]);
    pane.wait_for("tagged 2 notes: batch=one");
    pane.keys(&["D"]);
    pane.wait_for("delete 2 marked notes and their history? y/n");
    pane.keys(&["n"]);
    pane.wait_for("cancelled");
    pane.keys(&["E", "C-u"]);
    pane.type_text(export.to_str().unwrap());
    pane.keys(&["Enter"]);
    pane.wait_for("exported 2 note(s)");
    pane.keys(&["Escape"]);
    pane.wait_for("unmarked 2");
    pane.keys(&["q"]);
    pane.wait_for("exited 0");

    let tagged = env.ok(&["list", "--ids", "-t", "batch=one"]);
    assert_eq!(tagged.lines().count(), 2, "{tagged}");
    assert_eq!(env.all_ids().len(), 3, "nothing was deleted");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&export)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (log, lines): (Vec<_>, Vec<_>) = lines
        .into_iter()
        .partition(|l: &serde_json::Value| l.get("operation").is_some());
    assert_eq!(lines.len(), 3, "a header and two notes");
    let ids: Vec<&serde_json::Value> = lines[1..].iter().map(|l| &l["id"]).collect();
    assert!(
        log.iter().all(|l| ids.contains(&&l["operation"]["note"])),
        "only the marked notes' log: {log:?}"
    );
    let tagged_here = log
        .iter()
        .filter(|l| l["operation"]["op"] == "tag" && l["operation"]["agent"] == "browser")
        .count();
    assert_eq!(tagged_here, 2, "{log:?}");
    let mut exported: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    exported.sort();
    let mut expected: Vec<&str> = tagged.lines().collect();
    expected.sort();
    assert_eq!(exported, expected);
}

/// The position `notes K/N` the status line shows (once it is not
/// `before`), when the screen also shows the note at that position of a
/// listing of `n0000`..: the newest, `n{N-1}`, first.
fn settled_position(pane: &Pane<'_>, total: usize, before: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let screen = pane.screen();
        let position = screen
            .split("notes ")
            .skip(1)
            .find_map(|s| s.split(&format!("/{total}")).next()?.parse::<usize>().ok());
        // The list's rows: `│ DATE nNNNN ...`, newest first.
        let rows: Vec<usize> = screen
            .lines()
            .filter_map(|l| {
                l.strip_prefix("│ ")?
                    .split_whitespace()
                    .nth(1)?
                    .strip_prefix('n')
            })
            .filter_map(|n| n.parse().ok())
            .collect();
        let consecutive = rows.windows(2).all(|w| w[0] == w[1] + 1);
        if let Some(k) = position
            && k != before
            && consecutive
            && rows.contains(&(total - k))
        {
            return k;
        }
        assert!(
            Instant::now() < deadline,
            "the list never settled:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn paging_far_down_a_long_list_and_back_shows_the_notes_at_each_place() {
    let env = Env::new();
    let total = 600;
    let mut export = String::from("{\"format\":\"keep-export\",\"version\":3}\n");
    for i in 0..total {
        // One minute apart, so the newest is the last written.
        let at = format!("2026-09-20T{:02}:{:02}:00.000Z", i / 60, i % 60);
        export.push_str(&format!(
            "{{\"id\":\"n{i:04}\",\"summary\":\"Entry {i} of the logbook.\",\"tags\":{{}},\
             \"created\":\"{at}\",\"updated\":\"{at}\",\"accessed\":\"{at}\",\"versions\":[],\"parts\":[]}}\n"
        ));
    }
    env.ok_stdin(&["import", "-"], &export);
    let pane = Pane::start(&env, &["ui"], 100, 30);
    pane.wait_for(&format!("notes 1/{total}"));
    assert_eq!(settled_position(&pane, total, 0), 1);
    pane.keys(&["G"]);
    assert_eq!(settled_position(&pane, total, 1), total);
    let mut last = total;
    for _ in 0..12 {
        pane.keys(&["PageUp"]);
        let k = settled_position(&pane, total, last);
        assert!(k < last, "PageUp moved from {last} to {k}");
        last = k;
    }
    for _ in 0..5 {
        pane.keys(&["PageDown"]);
        let k = settled_position(&pane, total, last);
        assert!(k > last, "PageDown moved from {last} to {k}");
        last = k;
    }
    pane.keys(&["g"]);
    assert_eq!(settled_position(&pane, total, last), 1);
    pane.keys(&["q"]);
    pane.wait_for("exited 0");
}

#[test]
fn note_text_cannot_drive_the_terminal_of_the_browser() {
    let env = Env::new();
    env.ok(&[
        "put",
        "--text",
        "Alpha\x1b]52;c;cHduZWQ=\x07 beta\x1b]2;pwned\x07 gamma\x1b[2J\x1b[H delta",
        "--id",
        "hostile",
    ]);
    let pane = Pane::start(&env, &["ui"], 100, 20);
    // tmux would take a clipboard write or a title from the application.
    pane.tmux(&["set", "-g", "set-clipboard", "on"]);
    pane.tmux(&["set", "-g", "allow-rename", "on"]);
    pane.wait_for("notes 1/1");
    let screen = pane.wait_for("delta");
    assert!(
        screen.contains("notes 1/1"),
        "the screen was not cleared:\n{screen}"
    );
    let title = pane.tmux(&["display", "-p", "-t", "0", "#{pane_title}"]);
    assert!(!title.contains("pwned"), "{title}");
    let buffers = pane.tmux(&["list-buffers"]);
    assert!(
        !buffers.contains("pwned") && buffers.trim().is_empty(),
        "{buffers}"
    );
    pane.keys(&["q"]);
    pane.wait_for("exited 0");
}
