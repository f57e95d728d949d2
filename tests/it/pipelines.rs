//! Shell pipelines, as shown in docs/scripting.md.

use crate::common::Env;

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn list_ids_into_xargs_tag() {
    let env = Env::new();
    let a = env.put("alpha", &["project=x"]);
    let b = env.put("beta", &["project=x"]);
    let c = env.put("gamma", &["project=y"]);
    stdout(&env.sh("keep list --ids -t project=x | xargs keep tag -t reviewed=yes"));
    let reviewed = env.ok(&["list", "--ids", "-t", "reviewed=yes", "--sort", "id"]);
    let mut expected = [a, b];
    expected.sort();
    assert_eq!(reviewed, format!("{}\n{}\n", expected[0], expected[1]));
    assert!(!reviewed.contains(&c));
}

#[test]
fn diff_of_a_version_against_the_current_note() {
    let mut env = Env::new();
    env.ok(&["put", "draft one", "--id", "essay"]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "draft two", "--id", "essay"]);
    let out = env.sh("diff <(keep get 'essay@V{1}') <(keep get essay) || true");
    let diff = stdout(&out);
    assert!(diff.contains("< draft one"), "{diff}");
    assert!(diff.contains("> draft two"), "{diff}");
    assert!(diff.contains("< version: 1"), "{diff}");
}

#[test]
fn echo_into_put_with_tags() {
    let env = Env::new();
    let id = stdout(&env.sh("echo text | keep put - -t src=pipe"));
    assert_eq!(id, "%982d9e3eb996\n");
    let note = &env.json(&["get", id.trim()])[0];
    assert_eq!(note["summary"], "text");
    assert_eq!(note["tags"]["src"][0], "pipe");
    // Piped input works without '-' too.
    let id2 = stdout(&env.sh("printf 'more text' | keep put"));
    assert_eq!(env.json(&["get", id2.trim()])[0]["summary"], "more text");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let env = Env::new();
    for i in 0..300 {
        env.ok(&[
            "put",
            &format!("note number {i}"),
            "--id",
            &format!("n{i:03}"),
        ]);
    }
    let out = env.sh("keep list | head -n 1");
    assert_eq!(stdout(&out).lines().count(), 1);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn json_output_is_one_document_per_command() {
    let env = Env::new();
    let id = env.put("hello world", &["project=keep"]);
    for args in [
        vec!["list"],
        vec!["find", "hello"],
        vec!["get", id.as_str()],
        vec!["tag", id.as_str(), "-t", "a=b"],
        vec!["put", "more"],
        vec!["now"],
    ] {
        let mut all = vec!["--json"];
        all.extend(args.iter().copied());
        let text = env.ok(&all);
        serde_json::from_str::<serde_json::Value>(&text)
            .unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"));
    }
}
