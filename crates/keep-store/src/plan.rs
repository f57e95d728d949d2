//! Keyword search shared by every backend: the text indexed for tags, the
//! words of a query, which of them are worth matching, and how a plan's
//! lists are merged.

use std::collections::HashSet;

use crate::error::Result;
use keep_model::is_stopword;

/// A word is common when it matches more notes than this...
pub(super) const COMMON_MIN_MATCHES: usize = 2_000;
/// ...and more than this share (1 in N) of all notes.
pub(super) const COMMON_SHARE: usize = 50;

/// Text indexed for a note's tags: user tags as "key value" words.
pub(crate) fn tags_index_text(tags: &keep_model::Tags) -> String {
    tags.user_tags()
        .pairs()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many words SQLite's FTS5 (its `unicode61` tokenizer) counts in
/// `text`: runs of letters, digits and private-use characters. BM25 on
/// PostgreSQL weighs a text by this length, so both rank alike.
#[cfg(feature = "postgres")]
pub(crate) fn indexed_length(text: &str) -> i32 {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    let in_word = |c: char| {
        c.is_ascii_alphanumeric()
            || !c.is_ascii()
                && matches!(
                    get_general_category(c),
                    G::UppercaseLetter
                        | G::LowercaseLetter
                        | G::TitlecaseLetter
                        | G::ModifierLetter
                        | G::OtherLetter
                        | G::DecimalNumber
                        | G::LetterNumber
                        | G::OtherNumber
                        | G::PrivateUse
                )
    };
    let (mut count, mut inside) = (0, false);
    for c in text.chars() {
        let word = in_word(c);
        count += i32::from(word && !inside);
        inside = word;
    }
    count
}

/// The words of free text, lower-cased, each once, in order.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// The words of a query worth matching: function words ("what do I have
/// about") would make every note a candidate, so they are left out unless
/// the query has nothing else.
pub fn topic_words(text: &str) -> Vec<String> {
    let all = words(text);
    let topic: Vec<String> = all.iter().filter(|w| !is_stopword(w)).cloned().collect();
    if topic.is_empty() { all } else { topic }
}

/// How many matches make a word common in a store of `total` notes.
pub(super) fn common_threshold(total: i64, min_common: usize) -> usize {
    min_common.max(usize::try_from(total).unwrap_or(0) / COMMON_SHARE)
}

/// How a keyword query runs against every index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeywordPlan {
    /// Ranked by relevance over the notes matching any of these (rarer)
    /// words.
    Ranked { any: Vec<String> },
    /// Newest first: notes with all these words, then notes with any.
    Newest { words: Vec<String> },
}

/// Whether a search wants notes with every word or with any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    All,
    Any,
}

impl KeywordPlan {
    /// A plan from the query's words and those of them that are rare.
    pub(super) fn of(words: Vec<String>, rare: Vec<String>) -> Option<KeywordPlan> {
        if words.is_empty() {
            None
        } else if rare.is_empty() {
            Some(KeywordPlan::Newest { words })
        } else {
            Some(KeywordPlan::Ranked { any: rare })
        }
    }

    pub fn ranked(&self) -> bool {
        matches!(self, KeywordPlan::Ranked { .. })
    }

    /// The searches to run, in order of preference.
    pub(super) fn searches(&self) -> Vec<(&[String], Join)> {
        match self {
            KeywordPlan::Ranked { any } => vec![(any, Join::Any)],
            KeywordPlan::Newest { words } if words.len() == 1 => vec![(words, Join::All)],
            KeywordPlan::Newest { words } => vec![(words, Join::All), (words, Join::Any)],
        }
    }
}

/// Runs `search` for each search of the plan until `limit` distinct hits
/// are found; lists ordered newest first are then scored by position.
pub(super) fn run_plan<T>(
    plan: &KeywordPlan,
    limit: usize,
    mut search: impl FnMut(&[String], Join) -> Result<Vec<T>>,
    same: impl Fn(&T, &T) -> bool,
    score: impl Fn(&mut T) -> &mut f64,
) -> Result<Vec<T>> {
    let mut hits: Vec<T> = Vec::new();
    for (words, join) in plan.searches() {
        for hit in search(words, join)? {
            if !hits.iter().any(|h| same(h, &hit)) {
                hits.push(hit);
            }
        }
        if hits.len() >= limit {
            break;
        }
    }
    hits.truncate(limit);
    if !plan.ranked() {
        for (i, hit) in hits.iter_mut().enumerate() {
            *score(hit) = 1.0 / (1 + i) as f64;
        }
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "postgres")]
    /// How many words FTS5 itself counts in `text`, tokenized as keep's
    /// indexes are.
    fn fts5_length(text: &str) -> i64 {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');",
        )
        .unwrap();
        db.execute("INSERT INTO t (x) VALUES (?1)", [text]).unwrap();
        db.query_row("SELECT count(*) FROM v", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn the_pieces_of_contractions_are_no_topic() {
        assert_eq!(
            topic_words("change a user's password, we'll see"),
            ["change", "user", "password"]
        );
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn lengths_are_counted_as_fts5_counts_them() {
        let page = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/real/mdbook-rust-book-strings.html"
        ))
        .unwrap();
        for text in [
            "",
            " -- ",
            "caribou-migration plan.txt",
            "Jörg's café → 42½ ©2024 snake_case",
            "नमस्ते, Здравствуйте, שָׁלוֹם, こんにちは, 안녕하세요",
            "\u{E000}private\u{F8FF} use",
            page.as_str(),
        ] {
            assert_eq!(
                i64::from(indexed_length(text)),
                fts5_length(text),
                "{text:.60}"
            );
        }
    }

    #[test]
    fn function_words_are_dropped_unless_nothing_else_is_left() {
        assert_eq!(
            topic_words("What do I have about the Payment gateway?"),
            ["payment", "gateway"]
        );
        assert_eq!(topic_words("to be or not to be"), ["to", "be", "or", "not"]);
    }

    #[test]
    fn words_are_lower_cased_once_each_and_never_syntax() {
        assert_eq!(
            words("Hello, \"world\" AND near( hello"),
            ["hello", "world", "and", "near"]
        );
        assert!(words("  ,, ").is_empty());
    }

    #[test]
    fn a_plan_of_common_words_tries_all_then_any() {
        let words = vec!["a".to_string(), "b".to_string()];
        let plan = KeywordPlan::of(words.clone(), Vec::new()).unwrap();
        assert_eq!(
            plan.searches(),
            [(&words[..], Join::All), (&words[..], Join::Any)]
        );
        let one = KeywordPlan::of(vec!["a".into()], Vec::new()).unwrap();
        assert_eq!(one.searches().len(), 1);
        let ranked = KeywordPlan::of(words.clone(), vec!["b".into()]).unwrap();
        assert_eq!(ranked.searches(), [(&words[1..], Join::Any)]);
        assert_eq!(KeywordPlan::of(Vec::new(), Vec::new()), None);
    }
}
