//! Ranking as a unit: a real store (SQLite with FTS5 and sqlite-vec) and
//! the deterministic test embedder, so a change to candidates, fusion,
//! roll-up, decay or deep recall shows here without the real model.

use crate::embed::TestEmbedder;
use crate::keeper::{PutOptions, TagEdit};
use crate::recall::{FindQuery, Matched, Query, RecallMode};
use crate::{Keeper, Settings};
use keep_model::{Clock, NoteFilter, TagFilter, Tags, Timestamp};

const DAY: i64 = 86_400_000;

fn at(days: i64) -> Clock {
    Clock::Fixed(Timestamp::from_millis(1_800_000_000_000 + days * DAY))
}

/// A keeper over a temporary store with the test embedder.
fn keeper(dir: &tempfile::TempDir) -> Keeper {
    let settings = Settings {
        clock: at(0),
        ..Settings::for_store(dir.path())
    };
    Keeper::open(settings)
        .unwrap()
        .with_embedder(Box::new(TestEmbedder))
}

fn put(k: &mut Keeper, id: &str, text: &str, tags: &[(&str, &str)]) {
    let mut t = Tags::new();
    for (key, value) in tags {
        t.insert(*key, *value);
    }
    let opts = PutOptions {
        id: Some(id.into()),
        tags: t,
        summary: None,
        ..PutOptions::default()
    };
    k.put_text(text, "inline", opts).unwrap();
}

fn ids(k: &mut Keeper, query: &FindQuery) -> Vec<String> {
    k.find(query)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.note.id)
        .collect()
}

fn text(q: &str) -> FindQuery {
    FindQuery {
        half_life_days: Some(0.0),
        ..FindQuery::text(q, 10)
    }
}

#[test]
fn a_note_found_both_ways_ranks_above_notes_found_one_way() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "both", "harbour crane lifts containers", &[]);
    put(&mut k, "keyword", "crane", &[]);
    put(&mut k, "other", "violet meadow sunrise", &[]);
    k.embed_pending(None).unwrap();
    let hits = k
        .find(&text("harbour crane lifts containers"))
        .unwrap()
        .hits;
    assert_eq!(hits[0].note.id, "both");
    assert!(hits[0].keyword_rank.is_some() && hits[0].vector_rank.is_some());
    assert!(hits[0].score > hits[1].score);
}

#[test]
fn a_hit_in_a_part_rolls_up_to_its_note_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    let filler = "Tide tables list the heights of the sea along the coast. ".repeat(40);
    let long = format!("{filler}\n\nThe lighthouse keeper polished the brass lantern every dusk.");
    put(&mut k, "long", &long, &[]);
    put(&mut k, "short", "a note about gardens", &[]);
    k.embed_pending(None).unwrap();
    let query = FindQuery {
        mode: RecallMode::Keyword,
        ..text("lighthouse lantern")
    };
    let hits = k.find(&query).unwrap().hits;
    assert_eq!(hits.len(), 1, "one note, however many of its parts match");
    assert_eq!(hits[0].note.id, "long");
    assert!(matches!(hits[0].matched, Some(Matched::Part { .. })));
}

#[test]
fn an_old_wording_finds_the_note_but_below_a_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "renamed", "the quokka colony census", &[]);
    k.set_summary("renamed", "island wildlife survey").unwrap();
    put(&mut k, "current", "quokka colony census", &[]);
    let query = FindQuery {
        mode: RecallMode::Keyword,
        ..text("quokka census")
    };
    let hits = k.find(&query).unwrap().hits;
    let order: Vec<&str> = hits.iter().map(|h| h.note.id.as_str()).collect();
    assert_eq!(order, ["current", "renamed"]);
    assert_eq!(hits[1].matched, Some(Matched::Version { version: 1 }));
}

#[test]
fn recency_decay_favours_the_note_touched_last_and_zero_turns_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "a-old", "pelican migration notes", &[]);
    let mut k = k.with_clock(at(60));
    put(&mut k, "b-new", "pelican migration notes!", &[]);
    let keyword = |half_life| FindQuery {
        mode: RecallMode::Keyword,
        half_life_days: half_life,
        ..FindQuery::text("pelican migration", 10)
    };
    let hits = k.find(&keyword(Some(30.0))).unwrap().hits;
    assert_eq!(hits[0].note.id, "b-new");
    // 60 days at a 30-day half-life: a quarter of the score.
    let ratio = hits[1].score / hits[0].score;
    assert!((ratio - 0.25).abs() < 0.05, "{ratio}");
    // Without decay only the ranks differ: 1/61 against 1/62.
    let flat = k.find(&keyword(Some(0.0))).unwrap().hits;
    assert!(flat[1].score / flat[0].score > 0.98);
}

#[test]
fn tag_filters_apply_before_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "best", "otter otter otter", &[("project", "x")]);
    put(&mut k, "wanted", "otter", &[("project", "y")]);
    let query = FindQuery {
        mode: RecallMode::Keyword,
        filter: NoteFilter {
            tags: vec![TagFilter::parse("project=y").unwrap()],
            ..NoteFilter::default()
        },
        limit: 1,
        ..text("otter")
    };
    assert_eq!(ids(&mut k, &query), ["wanted"]);
}

#[test]
fn deep_recall_follows_an_edge_from_a_top_hit() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(
        &mut k,
        "paper",
        "glacier retreat measurements",
        &[("author", "ana")],
    );
    put(&mut k, "ana", "a field researcher", &[]);
    let query = FindQuery {
        mode: RecallMode::Keyword,
        deep: true,
        ..text("glacier retreat")
    };
    let hits = k.find(&query).unwrap().hits;
    assert_eq!(hits[0].note.id, "paper");
    let reached = hits.iter().find(|h| h.note.id == "ana").expect("reached");
    let via = reached.via.as_ref().expect("via");
    assert_eq!(
        (via.link.as_str(), via.from.as_str(), via.hop),
        ("author", "paper", 1)
    );
}

#[test]
fn find_reads_only_and_says_how_many_notes_wait() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "one", "walrus tusks", &[]);
    k.embed_pending(None).unwrap();
    put(&mut k, "two", "walrus colony", &[]);
    let before = k.pending_embeddings().unwrap();
    assert_eq!(before, 1);
    let result = k.find(&text("walrus")).unwrap();
    assert_eq!(
        k.pending_embeddings().unwrap(),
        before,
        "find wrote vectors"
    );
    assert!(
        result
            .notices
            .iter()
            .any(|n| n.text.contains("1 note(s) still wait"))
    );
    let found: Vec<&str> = result.hits.iter().map(|h| h.note.id.as_str()).collect();
    assert!(
        found.contains(&"two"),
        "the waiting note is found by keyword"
    );
}

#[test]
fn like_finds_neighbours_but_never_the_note_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "seed", "copper kettle whistles", &[]);
    put(&mut k, "near", "copper kettle boils", &[]);
    put(&mut k, "far", "snowy owl hunting", &[]);
    k.embed_pending(None).unwrap();
    let found = ids(&mut k, &FindQuery::like("seed", 10));
    assert_eq!(found.first().map(String::as_str), Some("near"));
    assert!(!found.contains(&"seed".to_string()));
    assert!(matches!(
        k.find(&FindQuery {
            query: Query::Like("missing".into()),
            ..FindQuery::like("x", 1)
        }),
        Err(crate::Error::NotFound(_))
    ));
}

#[test]
fn tags_count_as_keywords() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "tagged", "an untitled note", &[]);
    k.tag(
        "tagged",
        &TagEdit {
            add: [("topic".to_string(), "astronomy".to_string())]
                .into_iter()
                .collect(),
            ..TagEdit::default()
        },
    )
    .unwrap();
    let query = FindQuery {
        mode: RecallMode::Keyword,
        ..text("astronomy")
    };
    assert_eq!(ids(&mut k, &query), ["tagged"]);
}

#[test]
fn a_word_in_the_title_or_summary_outranks_the_same_word_in_a_body() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    let mut long = String::new();
    for n in 0..12 {
        long.push_str(&format!(
            "Item {n} of the harbour committee: mooring {n}, the dredging of berth {n} and its fees.\n\n"
        ));
    }
    for n in 0..40 {
        long.push_str(&format!(
            "Paragraph {n}: the committee heard again about the zeppelin mast that once stood by the pier, \
             and about the fees for visiting boats in the summer months.\n\n"
        ));
    }
    let opts = PutOptions {
        id: Some("minutes".into()),
        summary: Some("Minutes of the harbour committee, winter 1937.".into()),
        ..PutOptions::default()
    };
    k.put_text(&long, "inline", opts).unwrap();
    for n in 0..4 {
        let opts = PutOptions {
            id: Some(format!("report{n}")),
            summary: Some(format!("Harbour report {n}.")),
            ..PutOptions::default()
        };
        let body = format!("Berth {n} was dredged and the crane repaired. ").repeat(60);
        k.put_text(&body, "inline", opts).unwrap();
    }
    for n in 0..6 {
        put(
            &mut k,
            &format!("other{n}"),
            &format!("Tide table {n} for the inner harbour."),
            &[],
        );
    }
    put(
        &mut k,
        "summary",
        "The zeppelin mast by the pier was taken down in 1938.",
        &[],
    );
    put(
        &mut k,
        "titled",
        "Opening hours and tickets for the airship museum.",
        &[("title", "Zeppelin museum")],
    );
    let query = FindQuery {
        mode: RecallMode::Keyword,
        ..text("zeppelin")
    };
    let found = ids(&mut k, &query);
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(
        found.last().map(String::as_str),
        Some("minutes"),
        "{found:?}"
    );
}

/// A word other than `word` that the test embedder puts in the same
/// dimension, so notes of such words are as near as the query can be.
fn same_dimension_as(word: &str) -> String {
    let dimension = |w: &str| keep_model::content_hash(w.as_bytes())[..2].to_string();
    let wanted = dimension(word);
    (0..)
        .map(|i| format!("w{i}"))
        .find(|w| dimension(w) == wanted)
        .unwrap()
}

#[test]
fn a_keyword_hit_beyond_the_nearest_vectors_keeps_its_similarity() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    let decoy = format!(
        "{} {}",
        same_dimension_as("amber"),
        same_dimension_as("lantern")
    );
    for i in 0..120 {
        put(&mut k, &format!("decoy-{i}"), &decoy, &[]);
    }
    put(&mut k, "target", "amber lantern chronicle", &[]);
    k.embed_pending(None).unwrap();
    let hits = k.find(&text("amber lantern")).unwrap().hits;
    assert_eq!(hits[0].note.id, "target");
    assert!(hits[0].keyword_rank == Some(1));
    let similarity = hits[0].similarity.expect("its similarity is looked up");
    assert!(
        (similarity - (2.0f64 / 3.0).sqrt()).abs() < 0.01,
        "{similarity}"
    );
}

#[test]
fn a_question_to_the_memory_searches_only_its_topic() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    put(&mut k, "caribou", "caribou migration routes", &[]);
    put(&mut k, "meeting", "meeting notes to find later", &[]);
    k.embed_pending(None).unwrap();
    let hits = k.find(&text("find my notes about caribou?")).unwrap().hits;
    assert_eq!(hits[0].note.id, "caribou");
    assert!(
        hits.iter()
            .all(|h| h.note.id != "meeting" || h.keyword_rank.is_none()),
        "\"find\" and \"notes\" ask; they are not the topic"
    );
}

#[test]
fn a_time_named_in_the_query_ranks_what_happened_then_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = keeper(&dir);
    let may = Timestamp::parse_rfc3339("2023-05-10T09:00:00Z").unwrap();
    let june = Timestamp::parse_rfc3339("2023-06-10T09:00:00Z").unwrap();
    for (id, when) in [("june", june), ("may", may)] {
        let opts = PutOptions {
            id: Some(id.into()),
            at: Some(when),
            ..PutOptions::default()
        };
        k.put_text("planted the tomatoes in the garden", "inline", opts)
            .unwrap();
    }
    k.embed_pending(None).unwrap();
    assert_eq!(ids(&mut k, &text("tomatoes garden"))[0], "june");
    assert_eq!(
        ids(&mut k, &text("in May 2023, tomatoes in the garden"))[0],
        "may"
    );
    assert_eq!(
        ids(&mut k, &text("tomatoes in the garden in June 2023"))[0],
        "june"
    );
}
