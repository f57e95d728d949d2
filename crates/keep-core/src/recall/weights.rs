//! Every weight of the ranking, in one place, with why it has its value.
//! Changing one changes what `find` returns: the ranking unit tests in
//! `recall::tests` and the real-model recall tests pin the behaviour.

/// The column weights of keyword ranking (summary, tags, a note's name,
/// the body of long documents): the store ranks by them, so they are
/// defined with its keyword search and listed here with the others.
pub use keep_store::keyword::{BM25_SUMMARY, BM25_TAGS, BODY_FACTOR, NAME_FACTOR};
/// Factor on keyword matches in an archived version: an old wording counts
/// for less than the current one, but still finds the note.
pub const OLD_WORDING_KEYWORD_FACTOR: f64 = 0.5;
/// Factor on the similarity of an archived version's vector, for the same
/// reason; milder, since similarities are already compressed near 0.2–0.8.
pub const OLD_WORDING_VECTOR_FACTOR: f64 = 0.9;

/// Fusion adds each note's evidence from both lists, normalised to the
/// best of its list (BM25 over the best BM25; cosine above
/// `SIMILARITY_FLOOR` over the best such cosine), weighted as below.
/// Chosen on `cargo bench --bench quality` (Debian package descriptions,
/// man pages and AppStream entries; stores of 30 related documents, 1,000
/// and 10,000; queries as written and as asked): weights 0.4 / 0.6 with
/// confidence 1 gave the best worst-case gain in R@5 over keyword only,
/// vectors only and reciprocal-rank fusion (grid over vector weight 0.5,
/// 0.6, 0.7, floor 0, 0.2, 0.3, confidence 0, 0.5, 1, 2). Once names were
/// searched, confidence 2 kept that worst case and gained in the two
/// 10,000-note cells (R@5 0.922 -> 0.928 as written, 0.918 -> 0.924 as
/// asked; no cell lower, with or without names). Re-checked once keyword
/// candidates carried their similarity and questions their topic only
/// (60 combinations: vector weight 0.5 to 0.7, floor 0.1 to 0.3,
/// confidence 1 to 4): the best gains one query of 500 at 1,000 notes and
/// two at 10,000, others lose up to seven, so these stay. Scores, unlike
/// ranks, keep a clear keyword match from tying with a weak one, and a
/// close paraphrase from tying with a note that shares one word.
pub const KEYWORD_WEIGHT: f64 = 0.4;
/// Weight of the vector list in fusion.
pub const VECTOR_WEIGHT: f64 = 0.6;
/// Cosine that counts as no evidence at all: MiniLM puts unrelated
/// sentences at about 0.0–0.15.
pub const SIMILARITY_FLOOR: f64 = 0.2;
/// A list whose first score stands well above its fifth knows what it
/// found; its weight grows by up to this factor of itself. A flat list
/// (many notes sharing a common word, near-identical paraphrases) keeps
/// its base weight.
pub const CONFIDENCE_WEIGHT: f64 = 2.0;
/// The place in a list whose score the first is compared with.
pub const CONFIDENCE_DEPTH: usize = 5;

/// A note's keyword evidence (BM25 over the best BM25) is multiplied by
/// the share of the query it holds, each word weighed by its rarity
/// (`candidates::set_coverage`), to this power; the keyword list's
/// confidence by the share its first hit holds. Without it one shared
/// word of a longer query outranked a clear paraphrase: "a kitten resting
/// on a rug" put "The dog chewed the rug in the hallway." above "A small
/// grey cat sleeps on the warm carpet by the fire.". Chosen on `cargo
/// bench --bench quality` against no coverage (R@5 / MRR as written):
/// power 1 lost 0.004 / 0.003 at 30 documents and 0.006 / 0.004 at 1,000;
/// power 1/2 lost 0.004 R@5 at 1,000 and gained 0.002 / 0.005 at 10,000;
/// power 1/3 (keep) is within one query of no coverage at 30 and 1,000
/// and gains at 10,000 (docs/benchmarks.md).
pub const COVERAGE_EXPONENT: f64 = 1.0 / 3.0;
/// A match in a part or an archived version counts at least this share
/// of the query (the note's own text may not hold the words).
pub const HIDDEN_MATCH_COVERAGE: f64 = 0.5;

/// A hit's relevance (`relevance::relevance`) is this share of how much
/// of the query's wording it holds (each word by its rarity) and the rest
/// of how close in meaning it is, its cosine counted above
/// `RELEVANCE_MEANING_FLOOR`. These and the floors below were chosen on
/// the development questions of `cargo bench --bench conversations`
/// (answerable ones asked of a store holding their sessions, unanswerable
/// ones of a store without them): the largest share of unanswerable
/// questions answered with nothing while every answerable one kept its
/// hits (docs/recall.md has the figures, held-out questions included).
pub const RELEVANCE_COVERAGE_WEIGHT: f64 = 0.4;
/// Cosine that counts as no closeness at all in a hit's relevance.
pub const RELEVANCE_MEANING_FLOOR: f64 = 0.1;
/// The relevance floor: hits below it are weak, and a search whose every
/// hit is below it returns none and says that nothing relevant was found.
pub const RELEVANCE_FLOOR: f64 = 0.23;
/// Queries of at most this many topic words are short: also judged by
/// meaning alone...
pub const SHORT_QUERY_WORDS: usize = 2;
/// ...counted above this cosine, so that 0.30 reaches the floor ("kitten"
/// / "The cat sits on the mat." is 0.34; "zebra harpsichord tournament" /
/// "Chess club meets on Thursdays in the library." 0.26).
pub const SHORT_QUERY_MEANING_FLOOR: f64 = 0.09;

/// Vector candidates less similar than this (cosine) are dropped.
pub const MIN_SIMILARITY: f64 = SIMILARITY_FLOOR;
/// Candidates taken from each list (and each of notes, parts, versions)
/// before fusion: enough that fusion can reorder, few enough to stay fast.
pub const CANDIDATES: usize = 50;

/// Default recency half-life, in days (a setting, defined with the others).
pub use keep_model::settings::DEFAULT_HALF_LIFE_DAYS;

/// Deep recall: score kept per hop away from a direct hit.
pub const HOP_DECAY: f64 = 0.5;
/// Deep recall: a shared tag carried by more notes than this says little
/// about a connection.
pub const DISTINCTIVE_TAG_MAX: i64 = 20;
/// Deep recall starts from this many direct hits.
pub const DEEP_SEEDS: usize = 5;
/// Deep recall adds up to this many notes, or the limit if larger.
pub const DEEP_MIN_RESULTS: usize = 10;
/// How many links deep recall follows from its seeds unless asked
/// otherwise, and at most.
pub const DEEP_HOPS: u8 = 2;
pub const MAX_DEEP_HOPS: u8 = 5;
/// Each hop goes on from at most this many notes (the best reached), so
/// five hops cost about what two do.
pub const DEEP_FRONTIER: usize = 50;

/// Factor on a superseded note's score when it is asked for: half, so it
/// ranks below its successor whenever both match about as well.
pub const SUPERSEDED_FACTOR: f64 = 0.5;
/// Largest change feedback makes to a score, either way: enough to reorder
/// near ties, never enough to bury a clearly better match.
pub const FEEDBACK_MAX_BOOST: f64 = 0.25;
/// Net ratings (useful minus wrong) at which feedback reaches about three
/// quarters of its largest effect (tanh(1) = 0.76).
pub const FEEDBACK_SCALE: f64 = 3.0;

/// Largest change a note's importance (1 to 5, 3 by default) makes to
/// its score, either way: importance 5 scores 1.2 times, 1 scores 0.8
/// times what it would at 3. Notes without one are untouched.
pub const IMPORTANCE_MAX_BOOST: f64 = 0.2;
pub const IMPORTANCE_DEFAULT: u8 = 3;
/// A note rated wrong this many times more than useful leaves recall
/// (asked for with `--all-versions` / `include_superseded`, it ranks as
/// feedback puts it).
pub const WRONG_HIDES_AT: i64 = 3;

/// The verdict on text put without an id against the notes nearest in
/// meaning (`facts::judge`). A restatement states the same details (numbers
/// with units, dates, times, versions, identifiers, names) with the same
/// polarity, adds no content word, and says at least half of what the note
/// says; then a cosine from this floor is enough, since the words already
/// agree. Measured with `cargo bench --bench facts` on 610 labelled pairs of
/// real text (testdata/real/facts, see docs/benchmarks.md): the near-miss class stays
/// unmerged at any floor from 0.40 to 0.60, and restatement recall falls
/// from 0.60 up (Debian changelog wordings of one change read as little as
/// 0.5 alike to MiniLM: "Move to compat level 12" / "Bump debhelper compat
/// level to 12").
pub const RESTATEMENT_SIMILARITY: f64 = 0.50;
/// Share of the note's content words the new text must say to restate it:
/// "Video editor" does not restate "non-linear video editor for KDE".
pub const RESTATEMENT_COVERAGE: f64 = 0.5;
/// Cosine from which text that differs from a note in a detail is taken
/// as a probable update of it (stored, and linked with `may-supersede`).
pub const UPDATE_SIMILARITY: f64 = 0.80;
/// ...or from this cosine when the two share at least half the content
/// words of the shorter ("Launch moved to 5 October" / "The launch is on 3
/// October", 0.68).
pub const UPDATE_SUBJECT_SIMILARITY: f64 = 0.60;
/// Nearest notes (by vector, and by keyword) looked at for a restatement
/// or an update; the best verdict among them is taken.
pub const DUPLICATE_CANDIDATES: usize = 16;

/// Score factor of a note that happened when a query says ("in May
/// 2023", "last week").
pub const TIME_MATCH_FACTOR: f64 = 1.5;
/// "Ten days ago" also matches this many days either side.
pub const NEAR_DAY_MARGIN_DAYS: i64 = 2;

/// A compound question is looked for in at most this many pieces.
pub const MAX_FACETS: usize = 4;
/// A piece's best match scores this share of the whole question's best.
pub const FACET_WEIGHT: f64 = 0.95;
/// The first this many matches of each piece join the whole's ranking.
pub const PIECE_TOP: usize = 1;
/// The first this many matches of each piece count towards covering it
/// (`coverage`).
pub const FACET_POOL: usize = 10;
/// The first results of a compound question are chosen from this many
/// times as many (`coverage`).
pub const COVERAGE_POOL: usize = 3;
/// The weight of covering the pieces against a result's own score when
/// the first results of a compound question are chosen (`coverage`).
/// Chosen on the dev questions of `cargo bench --bench conversations`:
/// 0.5 gives the two-part questions all@5 0.113 (0.081 by score alone)
/// with any@5 0.903; 0.7 gives all@5 0.129 but any@5 0.887 and less on
/// the other questions (any@5 of all 0.844 against 0.863).
pub const COVERAGE_SHARE: f64 = 0.5;

/// A reply's score kept once the message it answers is credited with it
/// (`replies`). Chosen on `cargo bench --bench conversations` (assistant
/// turns answer the user's turn before them): 0.5, 0.6 and 0.7 all give
/// recall_all@5 0.211–0.215 on the multi-part questions (0.132 without
/// the credit) and any@5 0.845–0.851, but at 0.5 one of the six questions
/// on what the assistant said loses its evidence (the reply itself) from
/// the first five; 0.6 keeps it and loses no question type, 0.7 gives up
/// temporal questions (0.778 → 0.741).
pub const REPLY_SHARE: f64 = 0.6;

/// The vector list counts for nothing when its best cosine is at most
/// this...
pub const VECTOR_TRUST_FROM: f64 = 0.35;
/// ...and fully from this (linearly between). On the labelled documents
/// the best cosine is 0.65 on average; on long questions put to turns of
/// conversation it is 0.55, and there MiniLM alone finds an evidence turn
/// in its first five for 0.55 of the questions against 0.73 for BM25.
pub const VECTOR_TRUST_FULL: f64 = 0.7;
