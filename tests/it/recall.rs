//! Hybrid recall with the real embedding model.

use crate::common::Env;

fn ids(out: &str) -> Vec<String> {
    out.lines().map(String::from).collect()
}

fn find_ids(env: &Env, args: &[&str]) -> Vec<String> {
    let mut all = vec!["find", "--ids"];
    all.extend_from_slice(args);
    ids(&env.ok(&all))
}

#[test]
fn a_paraphrase_sharing_no_words_is_found() {
    let env = Env::with_model();
    let target = env.put(
        "The physician prescribed antibiotics for the infection",
        &[],
    );
    env.put("Quarterly tax filing deadlines for small businesses", &[]);
    env.put("Tuning the carburettor of a motorcycle", &[]);
    let query = "doctor gave medicine to treat bacteria";
    assert!(find_ids(&env, &["--mode", "keyword", query]).is_empty());
    assert_eq!(find_ids(&env, &[query])[0], target);
    let hit = &env.json(&["find", query])[0];
    assert!(hit["similarity"].as_f64().unwrap() > 0.3, "{hit}");
    assert_eq!(hit["keyword_rank"], serde_json::Value::Null);
    assert_eq!(hit["vector_rank"], 1);
}

/// Mean reciprocal rank of the expected note over the labelled queries.
fn mrr(env: &Env, mode: &str, labelled: &[(&str, &str)]) -> f64 {
    let mut total = 0.0;
    for (query, expected) in labelled {
        let found = find_ids(env, &["--mode", mode, "--half-life", "0", query]);
        if let Some(i) = found.iter().position(|id| id == expected) {
            total += 1.0 / (i as f64 + 1.0);
        }
    }
    total / labelled.len() as f64
}

#[test]
fn hybrid_ranking_beats_keywords_alone_and_embeddings_alone() {
    let env = Env::with_model();
    let notes = [
        (
            "pay-e1234",
            "Checkout fails with error E1234 when the payment gateway times out",
        ),
        (
            "pay-peak",
            "Payment gateway latency rises during peak shopping hours",
        ),
        (
            "pay-retry",
            "Retry failed card payments with exponential backoff",
        ),
        ("dog", "Our dog loves long walks in the park every morning"),
        (
            "garden",
            "Tomatoes need full sun and regular watering in summer",
        ),
        (
            "sql",
            "Use WAL mode so SQLite readers never block the writer",
        ),
        ("flight", "The flight to Lisbon was delayed by three hours"),
        ("piano", "Practise piano scales slowly before playing fast"),
        (
            "k8s",
            "Pod OOMKilled after the memory limit was lowered to 256Mi",
        ),
        ("mem", "Memory usage of the service grows until it crashes"),
    ];
    for (id, text) in notes {
        env.ok(&["put", text, "--id", id]);
    }
    let labelled = [
        // A bare word with little meaning of its own: keywords find it.
        ("lowered", "k8s"),
        ("puppy enjoys strolling outdoors", "dog"),
        ("growing vegetables in the backyard", "garden"),
        ("airplane arrived late", "flight"),
        ("gateway timeout error at checkout", "pay-e1234"),
    ];
    let hybrid = mrr(&env, "hybrid", &labelled);
    let keyword = mrr(&env, "keyword", &labelled);
    let semantic = mrr(&env, "semantic", &labelled);
    eprintln!("MRR hybrid {hybrid:.3} keyword {keyword:.3} semantic {semantic:.3}");
    assert!(hybrid > keyword, "hybrid {hybrid} keyword {keyword}");
    assert!(hybrid > semantic, "hybrid {hybrid} semantic {semantic}");
}

#[test]
fn tag_filters_apply_before_ranking() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "Notes on sourdough starter feeding",
        "--id",
        "a",
        "-t",
        "project=home",
    ]);
    env.ok(&[
        "put",
        "Sourdough starter feeding schedule and flour ratios",
        "--id",
        "b",
        "-t",
        "project=work",
    ]);
    env.ok(&[
        "put",
        "Bread baking temperatures for a crusty loaf",
        "--id",
        "c",
        "-t",
        "project=work",
    ]);
    let query = "sourdough starter feeding schedule";
    assert_eq!(find_ids(&env, &["-n", "1", query]).len(), 1);
    // The filter applies before ranking and the limit: each project gets
    // its best note, never nothing.
    assert_eq!(
        find_ids(&env, &["-n", "1", "-t", "project=home", query]),
        ["a"]
    );
    assert_eq!(
        find_ids(&env, &["-n", "1", "-t", "project=work", query]),
        ["b"]
    );
    let work = find_ids(&env, &["-t", "project=work", "bread"]);
    assert!(!work.contains(&"a".to_string()));
}

#[test]
fn recency_decay_orders_equally_relevant_notes() {
    let mut env = Env::with_model();
    env.at("2026-09-01T00:00:00Z");
    env.ok(&[
        "put",
        "Budget meeting notes for the design team",
        "--id",
        "old",
    ]);
    env.at("2026-11-20T00:00:00Z");
    env.ok(&[
        "put",
        "Budget meeting notes for the design team.",
        "--id",
        "new",
    ]);
    env.at("2026-11-22T00:00:00Z");
    assert_eq!(find_ids(&env, &["budget meeting notes"])[0], "new");
    let json = env.json(&["find", "budget meeting notes"]);
    let (a, b) = (
        json[0]["score"].as_f64().unwrap(),
        json[1]["score"].as_f64().unwrap(),
    );
    assert!(
        a > 2.0 * b,
        "decay over ~80 days with a 30-day half-life: {a} vs {b}"
    );
    let flat = env.json(&["find", "--half-life", "0", "budget meeting notes"]);
    let (a, b) = (
        flat[0]["score"].as_f64().unwrap(),
        flat[1]["score"].as_f64().unwrap(),
    );
    assert!(
        (a - b).abs() < 0.03 * a,
        "without decay the scores are close: {a} vs {b}"
    );
}

#[test]
fn deep_recall_follows_edges_and_shared_tags() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "Design review of the storage engine write path",
        "--id",
        "review",
        "-t",
        "author=alice",
        "-t",
        "sprint=42",
    ]);
    env.ok(&[
        "put",
        "Alice leads the infrastructure team in Berlin",
        "--id",
        "alice",
    ]);
    env.ok(&[
        "put",
        "Order more coffee beans for the office",
        "--id",
        "coffee",
        "-t",
        "sprint=42",
    ]);
    env.ok(&["put", "Holiday schedule for December", "--id", "holiday"]);
    let plain = find_ids(&env, &["-n", "1", "storage engine write path design"]);
    assert_eq!(plain, ["review"]);
    let json = env.json(&[
        "find",
        "-n",
        "1",
        "--deep",
        "storage engine write path design",
    ]);
    let hits = json.as_array().unwrap();
    let alice = hits
        .iter()
        .find(|h| h["id"] == "alice")
        .expect("alice reached");
    assert_eq!(alice["via"]["link"], "author");
    assert_eq!(alice["via"]["from"], "review");
    assert_eq!(alice["via"]["hop"], 1);
    let coffee = hits
        .iter()
        .find(|h| h["id"] == "coffee")
        .expect("coffee reached");
    assert_eq!(coffee["via"]["link"], "tag sprint=42");
    assert!(!hits.iter().any(|h| h["id"] == "holiday"));
    let text = env.ok(&[
        "find",
        "-n",
        "1",
        "--deep",
        "storage engine write path design",
    ]);
    assert!(text.contains("[via author of review, hop 1]"), "{text}");
}

#[test]
fn a_reply_that_matches_brings_up_the_message_it_answers() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "We finally brought her home from the shelter last spring",
        "--id",
        "said",
    ]);
    env.ok(&[
        "put",
        "Congratulations on adopting Luna! A rescue cat settles in within a few weeks; keep her litter box somewhere quiet.",
        "--id",
        "reply",
        "-t",
        "in-reply-to=said",
        "-t",
        "chat=yes",
    ]);
    env.ok(&[
        "put",
        "Feeding schedule for the neighbour's dog while they travel",
        "--id",
        "dog",
    ]);
    env.ok(&["put", "Luna moth sightings by the lake", "--id", "moth"]);
    let query = "when did I adopt my cat Luna";
    let hits = env.json(&["find", query]);
    let order: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(order[..2], ["said", "reply"], "{hits}");
    assert_eq!(hits[0]["via"]["link"], "in-reply-to");
    assert_eq!(hits[0]["via"]["from"], "reply");
    assert_eq!(hits[1]["via"], serde_json::Value::Null);
    let text = env.ok(&["find", query]);
    assert!(text.contains("[via in-reply-to of reply, hop 1]"), "{text}");
    // A message the query may not show stays out, and its reply keeps
    // its place.
    assert_eq!(find_ids(&env, &["-t", "chat=yes", query]), ["reply"]);
    // A reply to a note never stored brings up no empty stub.
    env.ok(&[
        "put",
        "Luna the cat chased the laser pointer for an hour",
        "--id",
        "orphan",
        "-t",
        "in-reply-to=never-stored",
    ]);
    let hits = env.json(&["find", "Luna the cat laser pointer"]);
    assert_eq!(hits[0]["id"], "orphan", "{hits}");
    assert!(
        !hits
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == "never-stored"),
        "{hits}"
    );
    // Without the link the reply comes first again.
    env.ok(&["tag", "reply", "--remove", "in-reply-to"]);
    assert_eq!(find_ids(&env, &["-n", "1", query]), ["reply"]);
}

/// review → alice → bob → carol → dave, each naming the next as author.
fn chain_of_authors(env: &Env) {
    let chain = [
        ("review", "Design review of the storage engine write path"),
        ("alice", "Alice leads the infrastructure team in Berlin"),
        ("bob", "Bob maintains the build farm"),
        ("carol", "Carol writes the release notes"),
        ("dave", "Dave answers the support queue"),
    ];
    for (i, (id, text)) in chain.iter().enumerate() {
        let mut args = vec!["put", text, "--id", id];
        let author;
        if let Some((next, _)) = chain.get(i + 1) {
            author = format!("author={next}");
            args.extend(["-t", author.as_str()]);
        }
        env.ok(&args);
    }
}

#[test]
fn deep_recall_follows_as_many_links_as_asked() {
    let env = Env::new();
    chain_of_authors(&env);
    let reached = |hops: &str| -> Vec<(String, u64)> {
        let json = env.json(&[
            "find",
            "-n",
            "1",
            "--mode",
            "keyword",
            "--hops",
            hops,
            "storage engine write path",
        ]);
        let hits = json.as_array().unwrap();
        assert_eq!(hits[0]["id"], "review");
        hits[1..]
            .iter()
            .map(|h| {
                (
                    h["id"].as_str().unwrap().to_string(),
                    h["via"]["hop"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let names = |r: &[(String, u64)]| r.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    assert_eq!(names(&reached("1")), ["alice"], "--hops implies --deep");
    assert_eq!(names(&reached("3")), ["alice", "bob", "carol"]);
    let five = reached("5");
    assert_eq!(names(&five), ["alice", "bob", "carol", "dave"]);
    assert_eq!(five[3].1, 4, "dave is four links away");
    let default = env.json(&[
        "find",
        "-n",
        "1",
        "--mode",
        "keyword",
        "--deep",
        "storage engine write path",
    ]);
    assert_eq!(
        default.as_array().unwrap().len(),
        3,
        "two links unless asked: {default}"
    );
    for bad in ["0", "6", "two"] {
        let err = env.fails(&["find", "--hops", bad, "storage"], 2);
        assert!(
            err.lines().next().unwrap().contains("for '--hops <N>'"),
            "{err}"
        );
    }
}

#[test]
fn versions_and_parts_roll_up_to_their_note() {
    let mut env = Env::with_model();
    env.ok(&[
        "put",
        "Migration patterns of zebras across the Serengeti",
        "--id",
        "doc",
    ]);
    env.at("2026-11-22T11:00:00Z");
    env.ok(&["put", "Notes about something else entirely", "--id", "doc"]);
    let json = env.json(&["find", "zebra migration"]);
    assert_eq!(json[0]["id"], "doc");
    assert_eq!(
        json[0]["matched"],
        serde_json::json!({"in": "version", "version": 1})
    );
    let export = "{\"format\":\"keep-export\",\"version\":1}\n\
        {\"id\":\"book\",\"summary\":\"A book of essays\",\"tags\":{},\"created\":\"2026-11-22T10:00:00.000Z\",\"updated\":\"2026-11-22T10:00:00.000Z\",\"accessed\":\"2026-11-22T10:00:00.000Z\",\"parts\":[{\"number\":1,\"summary\":\"Chapter on mountaineering in the Alps\",\"tags\":{}},{\"number\":2,\"summary\":\"Chapter on deep sea diving and coral reefs\",\"tags\":{}}]}\n";
    std::fs::write(env.path("book.jsonl"), export).unwrap();
    env.ok(&["import", "book.jsonl"]);
    let json = env.json(&["find", "--mode", "semantic", "scuba under the ocean"]);
    assert_eq!(json[0]["id"], "book");
    assert_eq!(
        json[0]["matched"],
        serde_json::json!({"in": "part", "part": 2})
    );
    let text = env.ok(&[
        "find",
        "--mode",
        "semantic",
        "-n",
        "1",
        "scuba under the ocean",
    ]);
    assert!(text.contains("[in @P{2}]"), "{text}");
}

#[test]
fn without_a_model_keep_stores_and_finds_by_keyword_then_reindex_fills_in() {
    let mut env = Env::new();
    let id = env.put(
        "The physician prescribed antibiotics for the infection",
        &[],
    );
    let out = env.run(&["find", "physician"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.starts_with("keep: semantic recall is off (embedding model not found: looked for "),
        "{err}"
    );
    assert!(err.contains("showing keyword matches only"), "{err}");
    assert_eq!(err.lines().count(), 1);
    // Asked for meaning alone, it cannot answer: it says so and fails,
    // rather than printing nothing as if nothing matched.
    let out = env.run(&["find", "physician", "--mode", "semantic"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.starts_with("keep: recall by meaning needs the embedding model: embedding model not found: looked for "),
        "{err}"
    );
    assert!(!err.contains("keyword"), "{err}");
    assert_eq!(err.lines().count(), 1);
    env.install_model();
    assert_eq!(
        env.ok(&["reindex"]),
        "1 embedded, 0 copied from identical text, 0 waiting (all-MiniLM-L6-v2-int8:22928619, 384 dimensions)\n"
    );
    assert_eq!(
        find_ids(&env, &["doctor gave medicine to treat bacteria"])[0],
        id
    );
    // Identical text is never embedded twice.
    env.ok(&[
        "put",
        "The physician prescribed antibiotics for the infection",
        "--id",
        "copy",
    ]);
    let report = env.json(&["reindex"]);
    assert_eq!(report["embedded"], 0);
    assert_eq!(report["copied"], 1);
}

#[test]
fn a_missing_runtime_is_one_clear_line() {
    let env = Env::with_model();
    env.put("hello world", &[]);
    let mut cmd = env.cmd(&["reindex"]);
    cmd.env("KEEP_ORT_LIB", "/nonexistent/libonnxruntime.so");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "keep: ONNX Runtime not found: looked for /nonexistent/libonnxruntime.so; install it with 'keep models install runtime' (or point KEEP_ORT_LIB at a libonnxruntime.so)\n"
    );
}

#[test]
fn vectors_of_another_model_are_not_mixed() {
    let env = Env::with_model();
    env.put("The cat sits on the mat.", &[]);
    env.ok(&["reindex"]);
    env.sql("UPDATE meta SET value = 'other-model:1' WHERE key = 'vector_model'");
    let out = env.run(&["find", "kitten"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the store's vectors were made by other-model:1"),
        "{err}"
    );
    assert!(err.contains("keep reindex"), "{err}");
    let report = env.json(&["reindex"]);
    assert_eq!(report["rebuilt"], true);
    assert_eq!(report["embedded"], 1);
    let out = env.run(&["find", "kitten"]);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn similar_notes_and_empty_queries() {
    let env = Env::with_model();
    env.ok(&["put", "The cat sits on the mat.", "--id", "cat"]);
    env.ok(&["put", "A kitten is resting on the rug.", "--id", "kitten"]);
    env.ok(&["put", "Quarterly tax filing deadlines", "--id", "tax"]);
    let similar = ids(&env.ok(&["get", "cat", "--similar", "--ids"]));
    assert_eq!(similar, ["kitten"]);
    assert_eq!(find_ids(&env, &["--id", "cat"]), ["kitten"]);
    assert_eq!(env.fails(&["find", " "], 2), "keep: the query is empty\n");
    env.fails(&["find", "--id", "nope"], 1);
}

#[test]
fn meaning_beats_one_incidental_shared_word() {
    let env = Env::with_model();
    let cat = env.put(
        "A small grey cat sleeps on the warm carpet by the fire.",
        &[],
    );
    let dog = env.put("The dog chewed the rug in the hallway.", &[]);
    let found = env.ok(&["find", "--ids", "a kitten resting on a rug"]);
    assert_eq!(
        found.lines().collect::<Vec<_>>(),
        [cat.as_str(), dog.as_str()]
    );
    // The word alone still finds the note that says it.
    let found = env.ok(&["find", "--ids", "rug"]);
    assert_eq!(found.lines().next(), Some(dog.as_str()));
}

#[test]
fn a_query_about_nothing_stored_finds_nothing_relevant_and_says_so() {
    let env = Env::with_model();
    env.put(
        "A small grey cat sleeps on the warm carpet by the fire.",
        &[],
    );
    env.put("Chess club meets on Thursdays in the library.", &[]);
    env.put("The ferry to the island leaves at nine from pier two.", &[]);
    // Near in meaning only loosely: nothing is returned, and it is said
    // with the words nothing holds, the best relevance and the floor.
    let out = env.run(&["--json", "find", "zebra harpsichord tournament"]);
    assert!(out.status.success(), "{out:?}");
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits, serde_json::json!([]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "keep: nothing relevant: no note holds 'zebra', 'harpsichord' or 'tournament'; the closest, %"
        ),
        "{err}"
    );
    assert!(err.ends_with("(floor 0.23); --floor 0 shows it\n"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // --floor 0 shows the nearest anyway, each marked weak with its relevance.
    let hits = env.json(&["find", "--floor", "0", "zebra harpsichord tournament"]);
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    for hit in hits {
        let relevance = hit["relevance"].as_f64().unwrap();
        assert!((0.0..0.23).contains(&relevance), "{hit}");
        assert_eq!(hit["weak"], true, "{hit}");
    }
    // A question about what is stored is answered, relevant.
    let hits = env.json(&["find", "when does the ferry to the island leave the pier"]);
    assert!(
        hits[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("The ferry"),
        "{hits}"
    );
    assert!(hits[0]["relevance"].as_f64().unwrap() >= 0.23, "{hits}");
    assert_eq!(hits[0]["weak"], false, "{hits}");
    // A short query about a note is kept though its words are new.
    let hits = env.json(&["find", "kitten"]);
    assert!(
        hits[0]["summary"].as_str().unwrap().contains("cat"),
        "{hits}"
    );
    assert_eq!(hits[0]["weak"], false, "{hits}");
    // Keywords only: every match holds a word of the query, kept unless
    // a floor is asked for.
    let found = env.ok(&["find", "--ids", "--mode", "keyword", "chess tournament"]);
    assert_eq!(found.lines().count(), 1, "{found}");
    let out = env.run(&[
        "find",
        "--mode",
        "keyword",
        "--floor",
        "0.9",
        "chess tournament",
    ]);
    assert!(out.stdout.is_empty(), "{out:?}");
    // A floor outside 0 to 1 is refused, saying what it should be.
    let out = env.run(&["find", "--floor", "2", "kitten"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "keep: the relevance floor is a number from 0 to 1\n"
    );
    // Nothing near at all: nothing found, and said.
    let out = env.run(&["find", "quarterly tax filing deadline"]);
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing"));
}

#[test]
fn explain_says_what_made_each_score() {
    let mut env = Env::with_model();
    env.ok(&[
        "put",
        "The harbour light is lit at dusk by the keeper.",
        "--id",
        "light",
    ]);
    env.ok(&[
        "put",
        "Ferries leave the harbour every hour.",
        "--id",
        "ferry",
    ]);
    env.ok(&["rate", "ferry", "useful"]);
    env.at("2026-12-22T10:00:00Z");
    let hits = env.json(&["find", "--explain", "harbour light"]);
    let hits = hits.as_array().unwrap();
    assert!(hits.len() >= 2, "{hits:?}");
    for hit in hits {
        let why = &hit["explain"];
        let product = (why["keyword"].as_f64().unwrap() + why["meaning"].as_f64().unwrap())
            * ["recency", "feedback", "importance", "superseded", "time"]
                .iter()
                .map(|f| why[*f].as_f64().unwrap())
                .product::<f64>();
        let score = hit["score"].as_f64().unwrap();
        assert!((product - score).abs() < 1e-6, "{hit}");
        assert!(why["recency"].as_f64().unwrap() < 1.0, "a month on: {why}");
    }
    let light = hits.iter().find(|h| h["id"] == "light").unwrap();
    assert!(
        light["explain"]["keyword"].as_f64().unwrap() > 0.0,
        "{light}"
    );
    let ferry = hits.iter().find(|h| h["id"] == "ferry").unwrap();
    assert!(
        ferry["explain"]["feedback"].as_f64().unwrap() > 1.0,
        "{ferry}"
    );
    // Without --explain, no such field; as text, a line under each hit.
    let plain = env.json(&["find", "harbour light"]);
    assert!(plain[0].get("explain").is_none(), "{plain}");
    let text = env.ok(&["find", "--explain", "harbour light"]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("    keyword ") && l.contains("× recency")),
        "{text}"
    );
}

#[test]
fn why_says_where_a_note_stands_for_a_search() {
    let env = Env::with_model();
    env.ok(&[
        "put",
        "Rotate the database password every month on the vault host.",
        "--id",
        "vault",
        "-t",
        "topic=ops",
    ]);
    env.ok(&[
        "put",
        "The staging database password lives in the team vault.",
        "--id",
        "staging",
    ]);
    env.ok(&[
        "put",
        "Zebras graze on the savanna at dawn.",
        "--id",
        "zebra",
    ]);
    let why = |args: &[&str]| {
        let mut all = vec!["why"];
        all.extend(args);
        env.ok(&all).trim().to_string()
    };
    let first = find_ids(&env, &["database password", "-n", "1"]).remove(0);
    let second = if first == "vault" { "staging" } else { "vault" };
    assert!(
        why(&[&first, "database password", "-n", "1"])
            .starts_with(&format!("{first}: hit 1, score ")),
    );
    assert_eq!(
        env.json(&["why", second, "database password", "-n", "1"])["stage"],
        "below_cut"
    );
    let said = why(&[second, "database password", "-n", "1"]);
    assert!(
        said.contains("ranked 2, below the 1 shown") && said.ends_with("-n 2 shows it"),
        "{said}"
    );
    let said = why(&["vault", "database password", "-t", "topic=finance"]);
    assert!(
        said.ends_with("left out by the tag filter topic=finance"),
        "{said}"
    );
    env.ok(&["supersede", "staging", "vault"]);
    let said = why(&["vault", "database password"]);
    assert!(
        said.ends_with("left out by being superseded by a newer note"),
        "{said}"
    );
    assert!(why(&["vault", "database password", "--all-versions"]).contains(": hit "));
    let standing = env.json(&["why", "zebra", "database password"]);
    assert_eq!(standing["stage"], "not_candidate", "{standing}");
    assert_eq!(standing["shares_words"], false, "{standing}");
    assert!(standing["similarity"].as_f64().unwrap() < 0.2, "{standing}");
    let said = why(&["zebra", "database password"]);
    assert!(
        said.contains("no word of the query is in it")
            && said.contains("below the 0.20 that counts as related"),
        "{said}"
    );
    // A note without its vector yet, and no word of the query.
    env.cmd(&[
        "put",
        "Penguins huddle together through the polar night.",
        "--id",
        "penguin",
    ])
    .env("KEEP_BACKGROUND_EMBED", "0")
    .output()
    .unwrap();
    let said = why(&["penguin", "database password"]);
    assert!(
        said.ends_with(
            "not indexed yet: it has no vector and no word of the query ('keep reindex' embeds it)"
        ),
        "{said}"
    );
    assert_eq!(
        env.fails(&["why", "nowhere", "database password"], 1),
        "keep: no note 'nowhere'\n"
    );
}
