//! Benchmark: recall over real multi-session conversations. Every turn of
//! the LongMemEval sample (testdata/real/longmemeval: 97 questions, 186
//! dated sessions, 2,176 turns, MIT) is a note dated by its session and
//! tagged with it (an assistant's turn also `in-reply-to` the user's turn
//! it answers, as keep links a reply), so each question's haystack is its
//! own sessions plus the other 180-odd as distractors. Two sets of questions are asked of it, each at its own
//! date (relative times such as "10 days ago" count from there):
//!
//! - `longmemeval`: the 97 questions as written, with their evidence
//!   turns (`has_answer`) and sessions;
//! - `built`: questions made here from the same dated sessions, in the
//!   two forms the first set has too few of: *dated* (a question whose
//!   evidence lies in one month, asked "In May 2023, ..."), and *two-part*
//!   (two questions on different sessions asked as one; both pieces are
//!   evidence).
//!
//! For each set and question type it prints recall_any@5 and @10 (an
//! evidence turn among the first 5 or 10), recall_all@5 (every evidence
//! turn among the first 5), NDCG@10 and session recall@5 (an evidence
//! session among the sessions of the first 5) for Okapi BM25 over the
//! turns, dense (MiniLM, keep's vector list), plain reciprocal-rank fusion
//! of those two lists, keep's own keyword list, keep's `find` and `find
//! --deep`, and the median and 95th-percentile time of a query.
//!
//!     cargo bench --bench conversations
//!
//! With `KEEP_BENCH_STORES=DIR` the store is kept in `DIR/conversations`
//! and reused. With `KEEP_CONVERSATIONS_MISSES=FILE` every question keep
//! misses in its first five is written to FILE with its ranking.
//! Needs the model from ./scripts/setup.sh --models-only.

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use keep::config::{Config, Environment};
use keep_core::Keeper;
use keep_core::embed::ModelPaths;
use keep_core::keeper::PutOptions;
use keep_core::model::{Clock, Tags, Timestamp};
use keep_core::recall::FindQuery;
use serde_json::Value;
use support::{ms, percentile, plain_fusion};

/// Results looked at per method.
const DEPTH: usize = 10;

struct Turn {
    id: String,
    session: String,
    /// The turn this one answers: an assistant's reply to the user's turn
    /// before it.
    answers: Option<String>,
    text: String,
    at: Timestamp,
}

#[derive(Clone)]
struct Question {
    set: &'static str,
    kind: String,
    text: String,
    now: Timestamp,
    evidence: HashSet<String>,
    sessions: HashSet<String>,
}

fn sample_path() -> PathBuf {
    support::repo().join("testdata/real/longmemeval/longmemeval_oracle_sample_seed_42.json")
}

/// "2023/04/11 (Tue) 07:47" as a timestamp (UTC).
fn parse_date(text: &str) -> Timestamp {
    let mut parts = text.split_whitespace();
    let day = parts.next().unwrap().replace('/', "-");
    let time = parts.last().unwrap();
    Timestamp::parse_rfc3339(&format!("{day}T{time}:00Z")).unwrap()
}

/// The turns of every session and the questions as written.
fn load() -> (Vec<Turn>, Vec<Question>) {
    let data: Vec<Value> =
        serde_json::from_slice(&std::fs::read(sample_path()).expect("sample")).expect("json");
    let mut turns = Vec::new();
    let mut seen = HashSet::new();
    let mut questions = Vec::new();
    for q in &data {
        let mut evidence = HashSet::new();
        let ids = q["haystack_session_ids"].as_array().unwrap();
        let dates = q["haystack_dates"].as_array().unwrap();
        let sessions = q["haystack_sessions"].as_array().unwrap();
        for ((sid, date), session) in ids.iter().zip(dates).zip(sessions) {
            let sid = sid.as_str().unwrap();
            let start = parse_date(date.as_str().unwrap());
            let fresh = seen.insert(sid.to_string());
            for (k, turn) in session.as_array().unwrap().iter().enumerate() {
                let id = format!("lme/{sid}/{k}");
                if turn["has_answer"].as_bool() == Some(true) {
                    evidence.insert(id.clone());
                }
                let answers =
                    (k > 0 && turn["role"] == "assistant" && session[k - 1]["role"] == "user")
                        .then(|| format!("lme/{sid}/{}", k - 1));
                if fresh {
                    turns.push(Turn {
                        id,
                        session: sid.to_string(),
                        answers,
                        text: turn["content"].as_str().unwrap().to_string(),
                        at: Timestamp::from_millis(start.millis() + 60_000 * k as i64),
                    });
                }
            }
        }
        questions.push(Question {
            set: "longmemeval",
            kind: q["question_type"].as_str().unwrap().to_string(),
            text: q["question"].as_str().unwrap().to_string(),
            now: parse_date(q["question_date"].as_str().unwrap()),
            evidence,
            sessions: q["answer_session_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect(),
        });
    }
    (turns, questions)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `text` with its first letter lower-cased (unless it is "I ...") and
/// its closing question mark dropped.
fn as_clause(text: &str) -> String {
    let text = text.trim().trim_end_matches('?');
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if !text.starts_with("I ") && !text.starts_with("I'") => {
            c.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// The questions built from the same sessions: dated and two-part.
fn built(questions: &[Question], turns: &[Turn]) -> Vec<Question> {
    let session_at: HashMap<&str, Timestamp> =
        turns.iter().map(|t| (t.session.as_str(), t.at)).collect();
    let month_of = |t: Timestamp| t.day()[..7].to_string();
    let mut out = Vec::new();
    for q in questions {
        let months: HashSet<String> = q
            .sessions
            .iter()
            .map(|s| month_of(session_at[s.as_str()]))
            .collect();
        if months.len() == 1 {
            let month = months.into_iter().next().unwrap();
            let (year, m) = month.split_once('-').unwrap();
            let name = MONTHS[m.parse::<usize>().unwrap() - 1];
            out.push(Question {
                set: "built",
                kind: "dated".into(),
                text: format!("In {name} {year}, {}?", as_clause(&q.text)),
                ..q.clone()
            });
        }
    }
    let n = questions.len();
    for step in [1, 2] {
        for i in 0..n {
            let (a, b) = (&questions[i], &questions[(i + step * 7) % n]);
            if a.sessions.iter().any(|s| b.sessions.contains(s)) {
                continue;
            }
            out.push(Question {
                set: "built",
                kind: "two-part".into(),
                text: format!(
                    "{}, and {}?",
                    a.text.trim_end_matches('?'),
                    as_clause(&b.text)
                ),
                now: Timestamp::from_millis(a.now.millis().max(b.now.millis())),
                evidence: a.evidence.union(&b.evidence).cloned().collect(),
                sessions: a.sessions.union(&b.sessions).cloned().collect(),
            });
        }
    }
    out
}

/// Opens (or builds) the store of every turn, each a note dated by its
/// session and tagged with it.
fn open_store(config: &Config, paths: &ModelPaths, dir: PathBuf, turns: &[Turn]) -> Keeper {
    let reused = dir.join("keep.db").is_file();
    let mut keeper = support::keeper_at(config, paths, dir);
    if !reused {
        let start = Instant::now();
        for turn in turns {
            let mut tags = Tags::new();
            tags.insert("session", &turn.session);
            if let Some(message) = &turn.answers {
                tags.insert("in-reply-to", message);
            }
            let opts = PutOptions {
                id: Some(turn.id.clone()),
                tags,
                at: Some(turn.at),
                ..PutOptions::default()
            };
            keeper.put_text(&turn.text, "inline", opts).expect("put");
        }
        keeper.embed_pending(None).expect("embed");
        println!(
            "{} turns put and embedded in {:.0} s",
            turns.len(),
            start.elapsed().as_secs_f64()
        );
    }
    keeper
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) over the turns, words lower-cased and
/// split at anything not a letter or digit, no stemming or stop words:
/// the usual baseline, independent of keep's own keyword search.
struct Bm25 {
    ids: Vec<String>,
    lengths: Vec<f64>,
    average: f64,
    postings: HashMap<String, Vec<(usize, f64)>>,
}

fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

impl Bm25 {
    fn new(turns: &[Turn]) -> Self {
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, turn) in turns.iter().enumerate() {
            let mut counts: HashMap<String, f64> = HashMap::new();
            for t in tokens(&turn.text) {
                *counts.entry(t).or_default() += 1.0;
            }
            lengths.push(counts.values().sum());
            for (t, n) in counts {
                postings.entry(t).or_default().push((i, n));
            }
        }
        let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Bm25 {
            ids: turns.iter().map(|t| t.id.clone()).collect(),
            lengths,
            average,
            postings,
        }
    }

    fn search(&self, query: &str, depth: usize) -> Vec<(String, f64)> {
        let (k1, b) = (1.2, 0.75);
        let n = self.ids.len() as f64;
        let mut score = vec![0.0; self.ids.len()];
        let terms: HashSet<String> = tokens(query).collect();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let norm = k1 * (1.0 - b + b * self.lengths[doc] / self.average);
                score[doc] += idf * tf * (k1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = score
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(depth)
            .map(|(i, s)| (self.ids[i].clone(), s))
            .collect()
    }
}

const METHODS: [&str; 6] = [
    "BM25",
    "dense",
    "RRF",
    "keep keyword",
    "keep",
    "keep --deep",
];

#[derive(Default, Clone)]
struct Score {
    n: usize,
    any5: f64,
    any10: f64,
    all5: f64,
    ndcg10: f64,
    session5: f64,
}

impl Score {
    fn add(&mut self, q: &Question, ranking: &[String]) {
        let top = |k: usize| &ranking[..k.min(ranking.len())];
        let found = |k: usize| top(k).iter().filter(|id| q.evidence.contains(*id)).count();
        self.n += 1;
        self.any5 += f64::from(u8::from(found(5) > 0));
        self.any10 += f64::from(u8::from(found(10) > 0));
        self.all5 += f64::from(u8::from(found(5) == q.evidence.len()));
        let dcg: f64 = top(10)
            .iter()
            .enumerate()
            .filter(|(_, id)| q.evidence.contains(*id))
            .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        let ideal: f64 = (0..q.evidence.len().min(10))
            .map(|i| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        self.ndcg10 += dcg / ideal;
        self.session5 += f64::from(u8::from(
            top(5).iter().any(|id| q.sessions.contains(session_of(id))),
        ));
    }

    fn row(&self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        format!(
            "  {label:<13} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
            self.any5 / n,
            self.any10 / n,
            self.all5 / n,
            self.ndcg10 / n,
            self.session5 / n
        )
    }
}

/// The session of turn note `lme/SESSION/K`.
fn session_of(id: &str) -> &str {
    id.split('/').nth(1).unwrap_or_default()
}

/// Every method's first results for `q`, and the time keep's two took.
fn rankings(keeper: &mut Keeper, bm25: &Bm25, q: &Question) -> ([Vec<String>; 6], [Duration; 2]) {
    let lists = keeper.candidate_lists(&q.text).expect("candidates");
    let okapi = bm25.search(&q.text, 50);
    let mut times = [Duration::ZERO; 2];
    let mut keep = |deep: bool, slot: &mut Duration| {
        let t = Instant::now();
        let found = keeper
            .find(&FindQuery {
                deep,
                ..FindQuery::text(q.text.clone(), DEPTH)
            })
            .expect("find");
        *slot = t.elapsed();
        found
            .hits
            .into_iter()
            .map(|h| h.note.id)
            .take(DEPTH)
            .collect::<Vec<_>>()
    };
    let [plain, deep] = &mut times;
    let keep_plain = keep(false, plain);
    let keep_deep = keep(true, deep);
    let ids = |list: &[(String, f64)]| list.iter().map(|(id, _)| id.clone()).collect();
    (
        [
            ids(&okapi),
            ids(&lists.vector),
            plain_fusion(&okapi, &lists.vector),
            ids(&lists.keyword),
            keep_plain,
            keep_deep,
        ],
        times,
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let config = Config::resolve(None, &Environment::capture()).expect("settings");
    let paths = ModelPaths::from_settings(&config.model).expect("model paths");
    let (turns, mut questions) = load();
    let extra = built(&questions, &turns);
    questions.extend(extra);
    let sessions: HashSet<&str> = turns.iter().map(|t| t.session.as_str()).collect();
    println!(
        "{} turns in {} sessions; {} questions ({} as written, {} built)",
        turns.len(),
        sessions.len(),
        questions.len(),
        questions.iter().filter(|q| q.set == "longmemeval").count(),
        questions.iter().filter(|q| q.set == "built").count(),
    );
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = std::env::var_os("KEEP_BENCH_STORES")
        .map_or_else(|| temp.path().to_path_buf(), PathBuf::from)
        .join("conversations");
    let mut keeper = open_store(&config, &paths, dir, &turns);
    let bm25 = Bm25::new(&turns);
    let mut misses = std::env::var_os("KEEP_CONVERSATIONS_MISSES")
        .map(|path| std::io::BufWriter::new(std::fs::File::create(path).expect("misses file")));

    // (set, kind) -> a score per method; "all" rows too.
    let mut table: BTreeMap<(String, String), Vec<Score>> = BTreeMap::new();
    let mut multi_part = vec![Score::default(); METHODS.len()];
    let mut times: [Vec<Duration>; 2] = Default::default();
    for q in &questions {
        keeper = keeper.with_clock(Clock::Fixed(q.now));
        let (lists, took) = rankings(&mut keeper, &bm25, q);
        times[0].push(took[0]);
        times[1].push(took[1]);
        for key in [
            (q.set.to_string(), q.kind.clone()),
            (q.set.to_string(), "all".to_string()),
            ("both".to_string(), "all".to_string()),
        ] {
            let scores = table
                .entry(key)
                .or_insert_with(|| vec![Score::default(); METHODS.len()]);
            for (score, ranking) in scores.iter_mut().zip(&lists) {
                score.add(q, ranking);
            }
        }
        if q.evidence.len() > 1 {
            for (score, ranking) in multi_part.iter_mut().zip(&lists) {
                score.add(q, ranking);
            }
        }
        if let Some(out) = &mut misses
            && !lists[4].iter().take(5).any(|id| q.evidence.contains(id))
        {
            let line = serde_json::json!({
                "kind": q.kind, "question": q.text, "evidence": q.evidence,
                "keep": lists[4], "rrf": lists[2],
            });
            writeln!(out, "{line}").expect("misses");
        }
    }
    println!(
        "\n  {:<13} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "method", "any@5", "any@10", "all@5", "ndcg10", "sess@5"
    );
    for ((set, kind), scores) in &table {
        println!("{set} / {kind} ({} questions)", scores[0].n);
        for (score, name) in scores.iter().zip(METHODS) {
            println!("{}", score.row(name));
        }
    }
    println!(
        "multi-part: evidence in 2 or more turns ({} questions)",
        multi_part[0].n
    );
    for (score, name) in multi_part.iter().zip(METHODS) {
        println!("{}", score.row(name));
    }
    for (name, samples) in ["keep", "keep --deep"].iter().zip(&mut times) {
        let p50 = percentile(samples, 0.5);
        let p95 = percentile(samples, 0.95);
        println!(
            "time of a query, {name} (query embedding included): p50 {}, p95 {}",
            ms(p50),
            ms(p95)
        );
    }
}
