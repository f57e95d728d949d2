//! Benchmark: recall over real multi-session conversations, brought in
//! as a user brings them. The sessions of the LongMemEval sample
//! (testdata/real/longmemeval: 97 questions, 186 dated sessions, 2,176
//! turns, MIT) are written as one chat export in JSON Lines (`session`,
//! `time`, `speaker`, `text`; each session renamed `c0001`, ..., so no
//! name says which sessions hold an answer) and go in through `keep
//! import --format chat`, then `keep reindex`: each session one note, each
//! turn a part, and no tag a user's import would not make. Each
//! question's haystack is its own sessions plus the other 180-odd as
//! distractors. Two sets of questions are asked of it, each at its own
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
//! The questions are split in two by a seeded hash of their LongMemEval
//! id: `dev` (for tuning) and `held-out` (for reporting); a built question
//! goes where its source questions go (two-part questions pair questions
//! of one split only). A result counts when it is
//! an evidence turn (`ID@P{N}`). For each split, set and question type it
//! prints recall_any@5 and @10 (an evidence turn among the first 5 or 10),
//! recall_all@5 (every evidence turn among the first 5: the whole story),
//! NDCG@10 and session recall@5 for Okapi BM25 over the turns, dense
//! (MiniLM, keep's vector list), plain reciprocal-rank fusion of those
//! two, keep's own keyword list, keep's `find` and `find --deep` over the
//! import, and keep's `find` over a second store where each turn was put
//! as a note of its own (`keep turns`); and the median and
//! 95th-percentile time of a query. Then the relevance floor: a third
//! store holds the sessions of one seeded half, and each question is
//! asked of it: one whose sessions are all there should keep its hits,
//! one whose sessions are all elsewhere should be told nothing is
//! relevant. Last, what a session is given within one budget of 1,500
//! tokens: the block `keep context --project QUESTION` prints against
//! `find QUESTION --max-tokens 1500` (its JSON results, as a client gets
//! them): the share of questions with an evidence turn in it, and of those
//! with all of it.
//!
//!     cargo bench --bench conversations
//!
//! With `KEEP_BENCH_STORES=DIR` the stores are kept in `DIR` and reused.
//! With `KEEP_CONVERSATIONS_MISSES=FILE` every question keep misses in its
//! first five is written to FILE with its ranking. Needs the model
//! (`keep models install`).

// A benchmark or test harness: a failed step is its report.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use keep::config::{Config, Environment};
use keep_core::Keeper;
use keep_core::embed::ModelPaths;
use keep_core::keeper::PutOptions;
use keep_core::model::{Clock, Timestamp};
use keep_core::recall::FindQuery;
use serde_json::Value;
use sha2::{Digest, Sha256};
use support::{ms, percentile, plain_fusion};

/// Results looked at per method.
const DEPTH: usize = 10;
/// The seed of the development/held-out split.
const SPLIT_SEED: &str = "keep-conversations-1";

struct Turn {
    /// Its address after the import: `chat/jsonl/SESSION@P{N}`.
    id: String,
    /// The renamed session (`c0001`).
    session: String,
    speaker: String,
    text: String,
    at: Timestamp,
}

#[derive(Clone)]
struct Question {
    set: &'static str,
    split: &'static str,
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

/// `dev` or `held-out`, by a seeded hash of the question's id.
fn split_of(question_id: &str) -> &'static str {
    let digest = Sha256::digest(format!("{SPLIT_SEED}/{question_id}").as_bytes());
    if digest[0] % 2 == 0 {
        "dev"
    } else {
        "held-out"
    }
}

/// The address the import gives turn `k` (0-based) of renamed session
/// `session`.
fn address(session: &str, k: usize) -> String {
    format!("chat/jsonl/{session}@P{{{}}}", k + 1)
}

/// The turns of every session and the questions as written; sessions
/// are renamed in the order they first appear.
fn load() -> (Vec<Turn>, Vec<Question>) {
    let data: Vec<Value> =
        serde_json::from_slice(&std::fs::read(sample_path()).expect("sample")).expect("json");
    let mut turns = Vec::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut questions = Vec::new();
    for q in &data {
        let mut evidence = HashSet::new();
        let ids = q["haystack_session_ids"].as_array().unwrap();
        let dates = q["haystack_dates"].as_array().unwrap();
        let sessions = q["haystack_sessions"].as_array().unwrap();
        for ((sid, date), session) in ids.iter().zip(dates).zip(sessions) {
            let sid = sid.as_str().unwrap();
            let fresh = !renamed.contains_key(sid);
            let next = format!("c{:04}", renamed.len() + 1);
            let name = renamed.entry(sid.to_string()).or_insert(next).clone();
            let start = parse_date(date.as_str().unwrap());
            for (k, turn) in session.as_array().unwrap().iter().enumerate() {
                if turn["has_answer"].as_bool() == Some(true) {
                    evidence.insert(address(&name, k));
                }
                if fresh {
                    turns.push(Turn {
                        id: address(&name, k),
                        session: name.clone(),
                        speaker: turn["role"].as_str().unwrap().to_string(),
                        text: turn["content"].as_str().unwrap().trim().to_string(),
                        at: Timestamp::from_millis(start.millis() + 60_000 * k as i64),
                    });
                }
            }
        }
        questions.push(Question {
            set: "longmemeval",
            split: split_of(q["question_id"].as_str().unwrap()),
            kind: q["question_type"].as_str().unwrap().to_string(),
            text: q["question"].as_str().unwrap().to_string(),
            now: parse_date(q["question_date"].as_str().unwrap()),
            evidence,
            sessions: q["answer_session_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| renamed[s.as_str().unwrap()].clone())
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
            if a.split != b.split || a.sessions.iter().any(|s| b.sessions.contains(s)) {
                continue;
            }
            out.push(Question {
                set: "built",
                split: a.split,
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

/// The turns as a chat export in JSON Lines, as a user's would be.
fn chat_export(turns: &[Turn]) -> String {
    turns
        .iter()
        .map(|t| {
            let line = serde_json::json!({
                "session": t.session,
                "time": t.at.to_string(),
                "speaker": t.speaker,
                "text": t.text,
            });
            format!("{line}\n")
        })
        .collect()
}

/// Runs the keep binary on the store in `dir`, as a user would.
fn keep_command(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keep"))
        .args(args)
        .env("KEEP_STORE", dir)
        .output()
        .expect("run keep");
    assert!(
        out.status.success(),
        "keep {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Opens (or builds) the store the chat export was imported into, with
/// `keep import --format chat` and `keep reindex`.
fn imported_store(config: &Config, paths: &ModelPaths, dir: PathBuf, turns: &[Turn]) -> Keeper {
    if !dir.join("keep.db").is_file() {
        let start = Instant::now();
        std::fs::create_dir_all(&dir).expect("store folder");
        let export = dir.join("conversations.jsonl");
        std::fs::write(&export, chat_export(turns)).expect("export");
        keep_command(
            &dir,
            &["import", "--format", "chat", export.to_str().unwrap()],
        );
        keep_command(&dir, &["reindex"]);
        println!(
            "{} turns imported as a chat export and embedded in {:.0} s",
            turns.len(),
            start.elapsed().as_secs_f64()
        );
    }
    support::keeper_at(config, paths, dir)
}

/// The id of turn `address` put as a note of its own: `turn/SESSION/N`.
fn turn_note_id(address: &str) -> String {
    let rest = address.trim_start_matches("chat/jsonl/");
    let (session, part) = rest.split_once("@P{").unwrap();
    format!("turn/{session}/{}", part.trim_end_matches('}'))
}

/// The address a turn note `turn/SESSION/N` stands for.
fn address_of_turn_note(id: &str) -> String {
    let mut parts = id.splitn(3, '/').skip(1);
    let (session, n) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    format!("chat/jsonl/{session}@P{{{n}}}")
}

/// Opens (or builds) the store where each turn is a note of its own,
/// dated by its session, with no tag of the bench's.
fn turns_store(config: &Config, paths: &ModelPaths, dir: PathBuf, turns: &[Turn]) -> Keeper {
    let reused = dir.join("keep.db").is_file();
    let mut keeper = support::keeper_at(config, paths, dir);
    if !reused {
        let start = Instant::now();
        for turn in turns {
            let opts = PutOptions {
                id: Some(turn_note_id(&turn.id)),
                at: Some(turn.at),
                ..PutOptions::default()
            };
            let text = format!("{}: {}", turn.speaker, turn.text);
            keeper.put_text(&text, "inline", opts).expect("put");
        }
        keeper.embed_pending(None).expect("embed");
        println!(
            "{} turns put as notes and embedded in {:.0} s",
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

const METHODS: [&str; 7] = [
    "BM25",
    "dense",
    "RRF",
    "keep keyword",
    "keep",
    "keep --deep",
    "keep turns",
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

/// The session of a result: `chat/jsonl/SESSION@P{N}` or the session's
/// note `chat/jsonl/SESSION`.
fn session_of(id: &str) -> &str {
    let rest = id.strip_prefix("chat/jsonl/").unwrap_or_default();
    rest.split("@P{").next().unwrap_or_default()
}

/// The seed of which sessions the store for unanswerable questions holds.
const ABSTAIN_SEED: &str = "keep-abstain-1";

/// Whether the store for unanswerable questions holds `session`: about
/// half the sessions, by a seeded hash of the renamed session.
fn in_half_store(session: &str) -> bool {
    Sha256::digest(format!("{ABSTAIN_SEED}/{session}").as_bytes())[0] % 2 == 0
}

/// How the relevance floor does on one split: answerable questions (all
/// their evidence sessions in the half store) that kept their hits, and
/// unanswerable ones (none of them there) that got none.
#[derive(Default)]
struct Abstention {
    answerable: usize,
    answered: usize,
    answered_any5: usize,
    unanswerable: usize,
    abstained: usize,
}

impl Abstention {
    fn row(&self, split: &str) -> String {
        let share = |a: usize, n: usize| a as f64 / n.max(1) as f64;
        format!(
            "{split}: answerable {} (kept their hits {:.3}, any@5 {:.3}); unanswerable {} (said nothing relevant {:.3})",
            self.answerable,
            share(self.answered, self.answerable),
            share(self.answered_any5, self.answerable),
            self.unanswerable,
            share(self.abstained, self.unanswerable),
        )
    }
}

/// Asks every question of the store that holds about half the sessions:
/// one whose sessions are all there should keep its hits, one whose
/// sessions are all elsewhere should be told nothing is relevant. With
/// `KEEP_CONVERSATIONS_FLOOR=FILE` each question's hits (with the floor
/// at 0) are written to FILE with their wording share and similarity.
fn abstention(mut half: Keeper, questions: &[Question]) -> BTreeMap<&'static str, Abstention> {
    let mut dump = std::env::var_os("KEEP_CONVERSATIONS_FLOOR")
        .map(|path| std::io::BufWriter::new(std::fs::File::create(path).expect("floor file")));
    let mut out: BTreeMap<&'static str, Abstention> = BTreeMap::new();
    for q in questions {
        let held = q.sessions.iter().filter(|s| in_half_store(s)).count();
        let answerable = held == q.sessions.len();
        if !answerable && held > 0 {
            continue;
        }
        half = half.with_clock(Clock::Fixed(q.now));
        let found = half
            .find(&FindQuery::text(q.text.clone(), DEPTH))
            .expect("find");
        let row = out.entry(q.split).or_default();
        if answerable {
            row.answerable += 1;
            row.answered += usize::from(!found.hits.is_empty());
            row.answered_any5 += usize::from(
                found
                    .hits
                    .iter()
                    .take(5)
                    .any(|h| q.evidence.contains(&h.address())),
            );
        } else {
            row.unanswerable += 1;
            row.abstained += usize::from(found.hits.is_empty());
        }
        if let Some(file) = &mut dump {
            let all = half
                .find(&FindQuery {
                    explain: true,
                    floor: Some(0.0),
                    ..FindQuery::text(q.text.clone(), DEPTH)
                })
                .expect("find");
            let hits: Vec<Value> = all
                .hits
                .iter()
                .map(|h| {
                    serde_json::json!({
                        "evidence": q.evidence.contains(&h.address()),
                        "wording": h.explain.as_ref().map(|e| e.wording),
                        "similarity": h.similarity,
                        "relevance": h.relevance,
                    })
                })
                .collect();
            let line = serde_json::json!({
                "split": q.split, "set": q.set, "kind": q.kind, "answerable": answerable,
                "question": q.text, "hits": hits, "unheard": all.unheard,
            });
            writeln!(file, "{line}").expect("floor file");
        }
    }
    out
}

/// Every method's first results for `q`, and the time keep's two took.
fn rankings(
    keeper: &mut Keeper,
    turn_notes: &mut Keeper,
    bm25: &Bm25,
    q: &Question,
) -> ([Vec<String>; 7], [Duration; 2]) {
    let lists = keeper.candidate_lists(&q.text).expect("candidates");
    let okapi = bm25.search(&q.text, 50);
    let mut times = [Duration::ZERO; 2];
    let find = |keeper: &mut Keeper, deep: bool, slot: &mut Duration| {
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
            .iter()
            .map(|h| h.address())
            .take(DEPTH)
            .collect::<Vec<_>>()
    };
    let [plain, deep] = &mut times;
    let keep_plain = find(keeper, false, plain);
    let keep_deep = find(keeper, true, deep);
    let mut untimed = Duration::ZERO;
    let keep_turns = find(turn_notes, false, &mut untimed)
        .into_iter()
        .map(|id| address_of_turn_note(&id))
        .collect();
    let ids = |list: &[(String, f64)]| list.iter().map(|(id, _)| id.clone()).collect();
    (
        [
            ids(&okapi),
            ids(&lists.vector),
            plain_fusion(&okapi, &lists.vector),
            ids(&lists.keyword),
            keep_plain,
            keep_deep,
            keep_turns,
        ],
        times,
    )
}

/// The budget of a block a session is given.
const BLOCK_TOKENS: usize = 1_500;

/// Questions with an evidence turn in a block, and with all of it.
#[derive(Default)]
struct InBlock {
    n: usize,
    any: usize,
    all: usize,
    lines: usize,
}

impl InBlock {
    fn add(&mut self, q: &Question, addresses: &[String]) {
        let held = addresses.iter().filter(|a| q.evidence.contains(*a)).count();
        self.n += 1;
        self.any += usize::from(held > 0);
        self.all += usize::from(held == q.evidence.len());
        self.lines += addresses.len();
    }

    fn row(&self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        format!(
            "  {label:<30} any {:.3}  all {:.3}  {:.1} results a block",
            self.any as f64 / n,
            self.all as f64 / n,
            self.lines as f64 / n
        )
    }
}

/// What fits in `BLOCK_TOKENS` for each question: `keep context` with the
/// question as its project, and `find` with the budget.
fn blocks(mut keeper: Keeper, questions: &[Question]) -> BTreeMap<&'static str, [InBlock; 2]> {
    let mut out: BTreeMap<&'static str, [InBlock; 2]> = BTreeMap::new();
    for q in questions {
        keeper = keeper.with_clock(Clock::Fixed(q.now));
        let context = keep_commands::run(
            keep_commands::context::Context {
                project: Some(q.text.clone()),
                max_tokens: Some(BLOCK_TOKENS),
                ..Default::default()
            },
            &mut keeper,
        )
        .expect("context");
        let from_context: Vec<String> =
            context.relevant.iter().map(|l| l.address.clone()).collect();
        let found = keep_commands::run(
            keep_commands::find::Find {
                limit: 50,
                max_tokens: Some(BLOCK_TOKENS),
                ..keep_commands::find::Find::text(q.text.clone())
            },
            &mut keeper,
        )
        .expect("find");
        let from_find: Vec<String> = found.result.hits.iter().map(|h| h.address()).collect();
        let [by_context, by_find] = out.entry(q.split).or_default();
        by_context.add(q, &from_context);
        by_find.add(q, &from_find);
    }
    out
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
    let sessions_count = sessions.len();
    println!(
        "{} turns in {} sessions; {} questions ({} as written, {} built)",
        turns.len(),
        sessions.len(),
        questions.len(),
        questions.iter().filter(|q| q.set == "longmemeval").count(),
        questions.iter().filter(|q| q.set == "built").count(),
    );
    let temp = tempfile::tempdir().expect("temp dir");
    let stores = std::env::var_os("KEEP_BENCH_STORES")
        .map_or_else(|| temp.path().to_path_buf(), PathBuf::from);
    let mut keeper = imported_store(&config, &paths, stores.join("conversations"), &turns);
    let mut turn_notes = turns_store(&config, &paths, stores.join("conversation-turns"), &turns);
    let bm25 = Bm25::new(&turns);
    let mut misses = std::env::var_os("KEEP_CONVERSATIONS_MISSES")
        .map(|path| std::io::BufWriter::new(std::fs::File::create(path).expect("misses file")));

    // (set, kind) -> a score per method; "all" rows too.
    let mut table: BTreeMap<(String, String), Vec<Score>> = BTreeMap::new();
    let mut multi_part: BTreeMap<&str, Vec<Score>> = BTreeMap::new();
    let mut times: [Vec<Duration>; 2] = Default::default();
    for q in &questions {
        keeper = keeper.with_clock(Clock::Fixed(q.now));
        turn_notes = turn_notes.with_clock(Clock::Fixed(q.now));
        let (lists, took) = rankings(&mut keeper, &mut turn_notes, &bm25, q);
        times[0].push(took[0]);
        times[1].push(took[1]);
        for key in [
            (format!("{} / {}", q.split, q.set), q.kind.clone()),
            (format!("{} / {}", q.split, q.set), "all".to_string()),
            (format!("{} / both", q.split), "all".to_string()),
        ] {
            let scores = table
                .entry(key)
                .or_insert_with(|| vec![Score::default(); METHODS.len()]);
            for (score, ranking) in scores.iter_mut().zip(&lists) {
                score.add(q, ranking);
            }
        }
        if q.evidence.len() > 1 {
            let scores = multi_part
                .entry(q.split)
                .or_insert_with(|| vec![Score::default(); METHODS.len()]);
            for (score, ranking) in scores.iter_mut().zip(&lists) {
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
    for (split, scores) in &multi_part {
        println!(
            "{split} / multi-part: evidence in 2 or more turns ({} questions)",
            scores[0].n
        );
        for (score, name) in scores.iter().zip(METHODS) {
            println!("{}", score.row(name));
        }
    }
    let held: Vec<Turn> = turns
        .into_iter()
        .filter(|t| in_half_store(&t.session))
        .collect();
    let half = imported_store(&config, &paths, stores.join("conversations-half"), &held);
    println!(
        "\nthe relevance floor, on a store of {} of the {} sessions:",
        held.iter()
            .map(|t| t.session.as_str())
            .collect::<HashSet<_>>()
            .len(),
        sessions_count,
    );
    for (split, row) in abstention(half, &questions) {
        println!("{}", row.row(split));
    }
    println!("\nwithin a block of {BLOCK_TOKENS} tokens:");
    for (split, [by_context, by_find]) in blocks(keeper, &questions) {
        println!("{split} ({} questions)", by_context.n);
        println!("{}", by_context.row("keep context --project Q"));
        println!("{}", by_find.row("find Q --max-tokens"));
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
