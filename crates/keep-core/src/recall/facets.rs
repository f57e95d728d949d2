//! The pieces of a compound question. "Which came first, the tomatoes or
//! the marigolds?" asks about two things, and so does "Where do I take
//! yoga, and what did the handbag cost?". Their evidence usually sits in
//! different notes, and the whole question's ranking tends to favour the
//! notes that match one piece well. Recall also looks for each piece on
//! its own, so that every piece's best match can reach the first results.

use keep_ingest::summarize::is_stopword;

use super::weights::MAX_FACETS;

/// Words that join two clauses of one question.
const CLAUSE_JOINS: &[&str] = &[
    "and", "or", "but", "before", "after", "while", "whereas", "when", "then", "than", "since",
    "versus", "vs",
];

/// Words that join the alternatives of a list ("Tom or Alex").
const LIST_JOINS: &[&str] = &["and", "or", "versus", "vs"];

/// An alternative of a list is at most this many words.
const MAX_ALTERNATIVE_WORDS: usize = 3;

/// A clause counts as a piece with at least this many content words.
const MIN_CONTENT_WORDS: usize = 2;

/// The pieces of `query`, each to be looked for on its own: one per
/// alternative of a closing list ("..., Tom or Alex?": the rest of the
/// question with each name), else one per clause with enough words of
/// its own. Empty for a question with one piece.
pub fn facets(query: &str) -> Vec<String> {
    let words = words(query);
    let found = alternatives(query, &words).unwrap_or_else(|| clauses(query, &words));
    if found.len() < 2 {
        return Vec::new();
    }
    found.into_iter().take(MAX_FACETS).collect()
}

/// A word of the query with its byte range.
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    /// A comma, semicolon or question mark follows it.
    pause_after: bool,
}

fn words(query: &str) -> Vec<Word<'_>> {
    let mut out: Vec<Word<'_>> = Vec::new();
    let mut start = None;
    for (i, c) in query
        .char_indices()
        .chain(std::iter::once((query.len(), ' ')))
    {
        let in_word = c.is_alphanumeric() || c == '\'' || c == '-';
        match (start, in_word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push(Word {
                    text: &query[s..i],
                    start: s,
                    end: i,
                    pause_after: false,
                });
                start = None;
            }
            _ => {}
        }
        if matches!(c, ',' | ';' | '?' | ':')
            && let Some(last) = out.last_mut()
            && start.is_none()
        {
            last.pause_after = true;
        }
    }
    out
}

fn is_content(word: &str) -> bool {
    word.chars().count() > 2 && !is_stopword(&word.to_lowercase())
}

fn content_words(words: &[Word<'_>]) -> usize {
    words.iter().filter(|w| is_content(w.text)).count()
}

fn is_one_of(word: &str, list: &[&str]) -> bool {
    list.contains(&word.to_lowercase().as_str())
}

/// "..., the tomatoes or the marigolds?": the question before the list
/// with each alternative. The last alternative ends the question; the
/// one before the join has as many words; earlier ones are set off by
/// commas.
fn alternatives(query: &str, words: &[Word<'_>]) -> Option<Vec<String>> {
    let join = words.iter().rposition(|w| is_one_of(w.text, LIST_JOINS))?;
    let last = &words[join + 1..];
    if last.is_empty() || last.len() > MAX_ALTERNATIVE_WORDS || content_words(last) == 0 {
        return None;
    }
    let size = last.len();
    let before_join = join.checked_sub(size)?;
    let mut alternatives = vec![&words[before_join..join], last];
    let set_off = before_join > 0 && words[before_join - 1].pause_after;
    if !alike(alternatives[0], last) && !set_off {
        return None;
    }
    let mut list_start = before_join;
    while list_start > size && words[list_start - 1].pause_after {
        let candidate = &words[list_start - size..list_start];
        if !alike(candidate, last) || content_words(candidate) == 0 {
            break;
        }
        alternatives.insert(0, candidate);
        list_start -= size;
    }
    if alternatives.iter().any(|a| content_words(a) == 0) {
        return None;
    }
    let frame = &words[..list_start];
    if content_words(frame) == 0 {
        return None;
    }
    let frame_text = query[..words[list_start].start].trim_end_matches([' ', ',', ':']);
    Some(
        alternatives
            .into_iter()
            .map(|a| {
                let text = &query[a[0].start..a[a.len() - 1].end];
                format!("{frame_text} {text}")
            })
            .collect(),
    )
}

/// Whether two phrases read as items of one list: both capitalised
/// (names), or beginning with the same word ("the tomatoes", "the
/// marigolds").
fn alike(a: &[Word<'_>], b: &[Word<'_>]) -> bool {
    let capital = |w: &[Word<'_>]| w[0].text.starts_with(char::is_uppercase);
    (capital(a) && capital(b)) || a[0].text.eq_ignore_ascii_case(b[0].text)
}

/// The clauses of `query` split at its joining words, each with at least
/// `MIN_CONTENT_WORDS` content words (a short one stays with the clause
/// before it).
fn clauses(query: &str, words: &[Word<'_>]) -> Vec<String> {
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (i, w) in words.iter().enumerate() {
        if i > start && is_one_of(w.text, CLAUSE_JOINS) {
            pieces.push((start, i));
            start = i + 1;
        }
    }
    pieces.push((start, words.len()));
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in pieces {
        let enough = content_words(&words[s..e]) >= MIN_CONTENT_WORDS;
        match merged.last_mut() {
            Some(last) if !enough || content_words(&words[last.0..last.1]) < MIN_CONTENT_WORDS => {
                last.1 = e;
            }
            _ => merged.push((s, e)),
        }
    }
    if let [.., before, last] = merged.as_mut_slice()
        && content_words(&words[last.0..last.1]) < MIN_CONTENT_WORDS
    {
        before.1 = last.1;
        merged.pop();
    }
    merged
        .into_iter()
        .filter(|(s, e)| e > s)
        .map(|(s, e)| query[words[s].start..words[e - 1].end].to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::facets;

    #[test]
    fn a_closing_list_gives_the_question_with_each_alternative() {
        assert_eq!(
            facets("Which seeds were started first, the tomatoes or the marigolds?"),
            [
                "Which seeds were started first the tomatoes",
                "Which seeds were started first the marigolds"
            ]
        );
        assert_eq!(
            facets("Who became a parent first, Tom or Alex?"),
            [
                "Who became a parent first Tom",
                "Who became a parent first Alex"
            ]
        );
        assert_eq!(
            facets("Who graduated first among Emma, Rachel and Alex?"),
            [
                "Who graduated first among Emma",
                "Who graduated first among Rachel",
                "Who graduated first among Alex"
            ]
        );
    }

    #[test]
    fn clauses_joined_by_and_or_before_are_pieces() {
        assert_eq!(
            facets("Where do I take yoga classes, and how much did I spend on a designer handbag?"),
            [
                "Where do I take yoga classes",
                "how much did I spend on a designer handbag"
            ]
        );
        assert_eq!(
            facets("Did I buy the coffee maker before the stand mixer broke down?"),
            ["Did I buy the coffee maker", "the stand mixer broke down"]
        );
    }

    #[test]
    fn a_question_with_one_piece_has_no_facets() {
        for query in [
            "payment gateway latency",
            "salt and pepper",
            "How much did I spend on a designer handbag?",
            "rock and roll history",
            "",
            "and or",
        ] {
            assert!(facets(query).is_empty(), "{query}: {:?}", facets(query));
        }
    }
}
