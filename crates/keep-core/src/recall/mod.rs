//! Recall: what a query asks (`FindQuery`), what it returns (`Hit`), and
//! how notes are ranked: candidates from the keyword and vector indexes
//! (`candidates`), fused by score with parts and versions rolled up to their
//! note and recency decay (`fusion`), a reply's match credited to the
//! message it answers (`replies`), the first results of a compound
//! question chosen to cover each of its pieces (`facets`, `coverage`), then deep recall along edges and
//! distinctive shared tags (`deep`, `graph`). A question's frame ("what do
//! I have about") is set aside before any of it (`question`). Every weight lives in
//! `weights`. The keeper runs these steps; this module holds no state.

pub(crate) mod candidates;
pub(crate) mod coverage;
pub mod deep;
pub mod facets;
pub(crate) mod fusion;
pub(crate) mod graph;
pub mod passage;
pub mod question;
pub(crate) mod relevance;
pub(crate) mod replies;
pub mod weights;
pub(crate) mod when;

#[cfg(test)]
mod tests;

use serde::Serialize;

use keep_model::{Note, NoteFilter};

pub use deep::Via;

/// What to look for: text, or the neighbours in meaning of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Free text, matched by keyword and by meaning.
    Text(String),
    /// The id of a note whose nearest notes by meaning are wanted.
    Like(String),
}

/// A recall query.
#[derive(Debug, Clone)]
pub struct FindQuery {
    pub query: Query,
    pub filter: NoteFilter,
    pub limit: usize,
    /// Also follow edges and shared tags from the top hits...
    pub deep: bool,
    /// ...this many links deep (1 to `MAX_DEEP_HOPS`).
    pub hops: u8,
    /// Recency half-life in days (0 = no decay); None uses the settings.
    pub half_life_days: Option<f64>,
    /// Which candidate lists to use.
    pub mode: RecallMode,
    /// Also return notes that another note supersedes (ranked lower).
    pub include_superseded: bool,
    /// Each part of every note is a result of its own, as the turns of a
    /// conversation always are (else a document's parts roll up to it).
    pub parts: bool,
    /// Turns of the conversation shown before and after each turn found.
    pub around: usize,
    /// Say what made each hit's score (`Hit::explain`).
    pub explain: bool,
    /// The relevance floor (`weights::RELEVANCE_FLOOR` when None): a
    /// search whose every hit is below it returns none; 0 keeps them.
    pub floor: Option<f64>,
}

impl FindQuery {
    /// A hybrid text query with no filter.
    pub fn text(text: impl Into<String>, limit: usize) -> Self {
        FindQuery {
            query: Query::Text(text.into()),
            filter: NoteFilter::default(),
            limit,
            deep: false,
            hops: weights::DEEP_HOPS,
            half_life_days: None,
            mode: RecallMode::Hybrid,
            include_superseded: false,
            parts: false,
            around: 0,
            explain: false,
            floor: None,
        }
    }

    /// The notes nearest in meaning to note `id`, without decay.
    pub fn like(id: impl Into<String>, limit: usize) -> Self {
        FindQuery {
            query: Query::Like(id.into()),
            half_life_days: Some(0.0),
            ..FindQuery::text(String::new(), limit)
        }
    }
}

/// Which candidates `find` ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecallMode {
    /// Keyword and semantic matches fused by score.
    #[default]
    Hybrid,
    /// Keyword (BM25) matches only; no model is loaded.
    Keyword,
    /// Semantic (embedding) matches only.
    Semantic,
}

/// Where inside a note a candidate matched, when not in its current text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(tag = "in", rename_all = "lowercase")]
pub enum Matched {
    /// In part N (`@P{N}`), under the headings of `section`.
    Part {
        part: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        section: Option<String>,
    },
    /// In the archived version N (`@V{N}`, 1 = previous).
    Version { version: i64 },
}

/// A part found as a result of its own (a turn of a conversation, or
/// any part with `parts`): its number, who said it and when, and the
/// turns around it when asked for.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct PartHit {
    /// Its number (`ID@P{N}`).
    pub part: i64,
    /// Who said it, for a turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// When it was said, when the conversation says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said_at: Option<String>,
    /// The parts just before and after it, in order (`around`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub around: Vec<Neighbour>,
}

/// What made a hit's score, when asked (`explain`): the fused score is
/// `keyword + meaning` (each list's weighted share), times each factor;
/// a message lifted by its reply takes the reply's score.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    /// The keyword list's part of the fused score (BM25 over the best,
    /// times the share of the query the note says, weighted).
    pub keyword: f64,
    /// The vector list's part of the fused score (cosine above the floor
    /// over the best, weighted).
    pub meaning: f64,
    /// Recency decay since the note was updated or read.
    pub recency: f64,
    /// Ratings (`useful`, `wrong`).
    pub feedback: f64,
    /// The note's `_importance`.
    pub importance: f64,
    /// A newer note supersedes it.
    pub superseded: f64,
    /// The periods the query names (its dates against the note's).
    pub time: f64,
    /// The share of the query's wording (each word by its rarity) that
    /// its text holds: half of its relevance.
    pub wording: f64,
    /// The reply (`ID` or `ID@P{N}`) whose match was credited to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credited_from: Option<String>,
    /// The link deep recall followed to reach it (then nothing above
    /// applies: its score comes from the hit it was reached from).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached_by: Option<String>,
}

/// A part next to a part found.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Neighbour {
    pub part: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    pub text: String,
}

/// One recalled note (or part of one) and why it ranked where it did.
#[derive(Debug, Clone)]
pub struct Hit {
    pub note: Note,
    pub score: f64,
    pub keyword_rank: Option<usize>,
    pub vector_rank: Option<usize>,
    /// Cosine similarity of the best matching vector (the note, one of
    /// its parts, or an archived version) to the query.
    pub similarity: Option<f64>,
    /// Set when the match was in a part or an archived version.
    pub matched: Option<Matched>,
    /// Set for notes reached by deep recall.
    pub via: Option<Via>,
    /// The sentences of the matched text around the best match, bounded.
    pub passage: String,
    /// How relevant it is to the query on a scale of its own, 0 to 1
    /// (`relevance`): the share of the query's wording it holds and how
    /// close in meaning it is. Unlike `score`, comparable across searches.
    /// None for a note reached through a link or found by likeness.
    pub relevance: Option<f64>,
    /// Below the relevance floor: probably not about the query.
    pub weak: bool,
    /// Set when the result is one part of the note, found on its own.
    pub part: Option<PartHit>,
    /// What made its score, when the query asked (`explain`).
    pub explain: Option<Explanation>,
}

impl Hit {
    /// How to name the result: `ID@P{N}` for a part found on its own,
    /// else the note's id.
    pub fn address(&self) -> String {
        match &self.part {
            Some(p) => format!("{}@P{{{}}}", self.note.id, p.part),
            None => self.note.id.clone(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct FindResult {
    pub hits: Vec<Hit>,
    /// Things the user should know, such as recall falling back to keywords.
    pub notices: Vec<crate::error::Notice>,
    /// The query's words that no note holds (a search about something
    /// not stored names them when it finds nothing relevant).
    pub unheard: Vec<String>,
}
