//! Completion that knows the store, through bash itself: the script that
//! `COMPLETE=bash keep` prints is sourced, and its function is run on
//! partial command lines as bash would run it on Tab.

use crate::common::Env;

/// The candidates bash gets for the last word of `words`.
fn complete(env: &Env, words: &str) -> Vec<String> {
    let script = format!(
        r#"source <(COMPLETE=bash keep)
COMP_WORDS=({words})
COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
COMP_TYPE=9
_clap_complete_keep keep "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#
    );
    let out = env.sh(&script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn bash_completes_ids_selectors_tags_and_themes_from_the_store() {
    let env = Env::new();
    env.ok(&["put", "one", "--id", "doc", "-t", "stage=1"]);
    env.ok(&["put", "two", "--id", "doc", "-t", "topic=sea"]);
    env.ok(&["put", "another", "--id", "docket"]);
    env.ok(&["put", "hidden", "--id", ".tag/stage"]);
    assert_eq!(complete(&env, "keep get do"), ["doc", "docket"]);
    assert_eq!(complete(&env, "keep del 'doc@V'"), ["doc@V{0}", "doc@V{1}"]);
    assert_eq!(complete(&env, "keep get ."), [".tag/stage"]);
    assert_eq!(complete(&env, "keep tag doc -t st"), ["stage="]);
    assert_eq!(complete(&env, "keep find -t topic="), ["topic=sea"]);
    assert_eq!(complete(&env, "keep ui --theme l"), ["light"]);
    assert_eq!(
        complete(&env, "keep re"),
        ["restore", "revert", "reindex", "repair"]
    );
}

#[test]
fn completion_follows_store_on_the_line_and_never_creates_one() {
    let env = Env::new();
    env.ok(&["put", "x", "--id", "in-default"]);
    let other = env.path("other");
    assert!(complete(&env, &format!("keep --store {} get in", other.display())).is_empty());
    assert!(!other.exists(), "completion created a store");
    assert_eq!(complete(&env, "keep get in"), ["in-default"]);
}
