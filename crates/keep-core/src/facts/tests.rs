//! The verdict on the examples people meet: facts that differ in one
//! detail are never the same, restatements are.

use super::*;

/// Similarities as the embedding model gives them for such pairs: near
/// misses read almost the same.
const ALIKE: f64 = 0.97;
const FAIRLY: f64 = 0.70;

fn verdict(old: &str, new: &str, similarity: f64) -> Verdict {
    judge(old, new, similarity).verdict
}

#[test]
fn one_changed_detail_is_another_value_not_the_same_fact() {
    for (old, new) in [
        (
            "The API gateway timeout is 30 seconds.",
            "The API gateway timeout is 30 minutes.",
        ),
        ("The meeting is in Room 4B.", "The meeting is in Room 4C."),
        (
            "The build server is at 192.168.1.10",
            "The build server is at 192.168.1.12",
        ),
        ("The launch is on 3 October.", "The launch is on 5 October."),
        (
            "We run PostgreSQL 15.4 in production",
            "We run PostgreSQL 16.1 in production",
        ),
        (
            "Ana owns the billing service",
            "Anna owns the billing service",
        ),
        (
            "The cache is enabled in staging",
            "The cache is not enabled in staging",
        ),
        (
            "The cache is enabled in staging",
            "The cache is disabled in staging",
        ),
        (
            "The staging password rotates every Monday at 9am",
            "The staging password rotates every Tuesday at 9am",
        ),
        (
            "Backups keep 7 days of history",
            "Backups keep 7 weeks of history",
        ),
        (
            "The guest Wi-Fi password is BlueFalcon-1234",
            "The guest Wi-Fi password is now GreenHeron-2288",
        ),
    ] {
        let j = judge(old, new, ALIKE);
        assert_eq!(j.verdict, Verdict::Update, "{old} / {new}: {j:?}");
        assert!(!j.differences.is_empty(), "{old} / {new}");
    }
}

#[test]
fn restatements_are_the_same_fact() {
    for (old, new, similarity) in [
        (
            "The staging database password rotates every Monday at 9am",
            "Every Monday at 9am the staging DB password is rotated",
            0.90,
        ),
        (
            "The API gateway timeout is 30 seconds.",
            "The API gateway timeout is 30 s",
            ALIKE,
        ),
        (
            "The launch is on 5 October 2026",
            "Launch: 2026-10-05",
            FAIRLY,
        ),
        ("Standup is at 9:30am", "standup at 09:30", FAIRLY),
        (
            "Trim trailing whitespace.",
            "Trailing whitespace trimmed",
            FAIRLY,
        ),
        (
            "Bump Standards-Version to 4.6.1",
            "Update standards version to 4.6.1, no changes needed",
            FAIRLY,
        ),
    ] {
        let j = judge(old, new, similarity);
        assert_eq!(j.verdict, Verdict::Same, "{old} / {new}: {j:?}");
    }
}

#[test]
fn new_words_are_new_information() {
    let j = judge(
        "The staging password rotates every Monday",
        "The staging password rotates every Monday, managed by Vault",
        0.88,
    );
    assert_eq!(j.verdict, Verdict::Update, "{j:?}");
    // Saying less than the note is not news.
    assert_eq!(
        verdict(
            "The staging password rotates every Monday, managed by the ops team",
            "The staging password rotates every Monday",
            0.88
        ),
        Verdict::Same
    );
}

#[test]
fn unrelated_or_loosely_related_text_is_another_fact() {
    assert_eq!(
        verdict(
            "Buy oat milk on the way home",
            "The staging password rotates",
            0.1
        ),
        Verdict::Different
    );
    // A short generic text does not restate a long specific one.
    assert_ne!(
        verdict(
            "non-linear video editor for KDE with effects",
            "Video editor",
            0.7
        ),
        Verdict::Same
    );
    // Words swapped for others of another meaning.
    assert_eq!(
        verdict(
            "Live Systems Documentation (html)",
            "Live Systems Documentation (pdf)",
            0.85
        ),
        Verdict::Update
    );
    assert_eq!(
        verdict(
            "New upstream version 4.5.0",
            "Bump Standards-Version to 4.5.0",
            0.5
        ),
        Verdict::Different
    );
}

#[test]
fn differences_are_named_as_written() {
    let j = judge(
        "The timeout is 30 seconds.",
        "The timeout is 30 minutes.",
        ALIKE,
    );
    assert_eq!(j.differences, ["30 seconds -> 30 minutes"]);
    let j = judge("The cache is on", "The cache is not on", ALIKE);
    assert!(j.differences.iter().any(|d| d.contains("not")), "{j:?}");
}

#[test]
fn a_swapped_word_is_named_both_ways() {
    let j = judge(
        "Ana owns the billing service.",
        "Anna owns the billing service.",
        0.83,
    );
    assert_eq!(j.differences, ["'ana' -> 'anna'"], "{j:?}");
}

#[test]
fn another_wording_of_the_same_fact_is_a_restatement_both_ways() {
    for (a, b) in [
        (
            "We deploy to production every Tuesday.",
            "Production deploys happen every Tuesday.",
        ),
        (
            "The quarterly planning meeting is in Room 4B.",
            "Quarterly planning takes place in room 4B.",
        ),
        (
            "The build uses Node 20 LTS.",
            "Node 20 LTS is used for the build.",
        ),
        ("Add me as uploader", "Added myself to uploaders"),
        ("Trim trailing whitespace.", "Remove trailing white spaces."),
        ("Update the watch file", "d/watch: update"),
        (
            "Drop patches merged upstream",
            "Remove patches already upstream",
        ),
        ("Bump debhelper compat level to 13", "bump dh compat to 13"),
        ("New Upstream Release.", "New upstream version"),
        (
            "The password manager of the team is Bitwarden.",
            "The team uses Bitwarden as its password manager.",
        ),
        (
            "Our CI has two runners.",
            "There are two runners in our CI.",
        ),
    ] {
        for (old, new) in [(a, b), (b, a)] {
            let j = judge(old, new, FAIRLY);
            assert_eq!(j.verdict, Verdict::Same, "{old} / {new}: {j:?}");
        }
    }
}

#[test]
fn other_wording_keeps_a_changed_detail_or_thing_apart() {
    for (old, new) in [
        (
            "Production deploys happen every Tuesday.",
            "We deploy to production every Thursday.",
        ),
        (
            "Quarterly planning takes place in room 4B.",
            "The quarterly planning meeting is in Room 5C.",
        ),
        (
            "The outage happened on Monday.",
            "The deploy was on Monday.",
        ),
        (
            "The build uses Node 20 LTS.",
            "Node 22 LTS is used for the build.",
        ),
        ("Update debian/watch", "Update symbols files"),
        (
            "GNU IPMI - ipmiconsole development package",
            "GNU IPMI - ipmimonitoring development package",
        ),
        (
            "Perl extension for manipulating IPv4 addresses",
            "Perl extension for manipulating IPv4/IPv6 addresses",
        ),
    ] {
        let j = judge(old, new, ALIKE);
        assert_ne!(j.verdict, Verdict::Same, "{old} / {new}: {j:?}");
    }
}

#[test]
fn words_in_any_script_are_compared_without_breaking_them() {
    for (old, new) in [
        ("Le café ouvre à 8h", "Le caféé ouvre à 8h"),
        ("Встреча проходит в комнате 4B", "Встреча в комнате 4B"),
        ("会议在4B室举行", "会议在 4B 室"),
        ("a/ /b // ///", "é/ü/ö"),
    ] {
        // Neither direction breaks a character apart (a panic here).
        judge(old, new, FAIRLY);
        judge(new, old, FAIRLY);
        assert_eq!(verdict(old, old, ALIKE), Verdict::Same, "{old}");
    }
    assert!(words::same_meaning(
        &words::stem("added"),
        &words::stem("add")
    ));
    assert!(!words::same_meaning("café", "caféx"));
}
