//! The topic of a question put to a memory. "What do I have about X",
//! "find my notes on X" and "do I have anything on X?" all ask about X:
//! the words before it say only that the memory is being asked. Left in,
//! they pull the query's vector toward every other such question and give
//! keyword search words ("find", "notes") that many notes share.

use keep_ingest::summarize::is_stopword;

/// Words that ask a memory for something rather than name a topic,
/// besides function words.
const REQUEST_WORDS: &[&str] = &[
    "find",
    "get",
    "give",
    "info",
    "information",
    "keep",
    "kept",
    "know",
    "knew",
    "list",
    "look",
    "looking",
    "memory",
    "note",
    "noted",
    "notes",
    "please",
    "recall",
    "record",
    "recorded",
    "remember",
    "remind",
    "save",
    "saved",
    "search",
    "show",
    "store",
    "stored",
    "stuff",
    "tell",
    "write",
    "wrote",
    "written",
];

/// Words after which the topic begins, when every word before them asks.
const TOPIC_MARKERS: &[&str] = &["about", "concerning", "for", "of", "on", "regarding"];

/// The topic of `query`: what follows the first topic marker ("about",
/// "on", ...) when every word before it is a function word or a request
/// word, and something follows it; otherwise the whole query. A closing
/// question mark goes with the frame.
pub fn topic(query: &str) -> &str {
    let mut asked = false;
    for (start, word) in words(query) {
        let lower = word.to_lowercase();
        if asked && TOPIC_MARKERS.contains(&lower.as_str()) {
            let rest = query[start + word.len()..].trim();
            let rest = rest.trim_end_matches('?').trim_end();
            if rest.chars().any(char::is_alphanumeric) {
                return rest;
            }
            return query;
        }
        if !is_stopword(&lower) && !REQUEST_WORDS.contains(&lower.as_str()) {
            return query;
        }
        asked = true;
    }
    query
}

/// The words of `text` (runs of letters, digits and apostrophes) with
/// their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(move |w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
}

#[cfg(test)]
mod tests {
    use super::topic;

    #[test]
    fn questions_to_a_memory_ask_about_what_follows_their_frame() {
        assert_eq!(
            topic("what do I have about text diffing tool"),
            "text diffing tool"
        );
        assert_eq!(
            topic("do I have anything on GNU R predictors?"),
            "GNU R predictors"
        );
        assert_eq!(topic("find my notes about Kerberos 5"), "Kerberos 5");
        assert_eq!(topic("What did I save about the caribou?"), "the caribou");
        assert_eq!(topic("tell me what I know of reindeer"), "reindeer");
        assert_eq!(
            topic("search for payment gateway latency"),
            "payment gateway latency"
        );
        assert_eq!(topic("notes on the history of Rome"), "the history of Rome");
    }

    #[test]
    fn a_query_that_names_its_topic_first_is_left_whole() {
        for query in [
            "text diffing tool",
            "history of Rome",
            "bindings for Qt 6",
            "find the bug about login",
            "keep",
            "notes",
            "what about",
            "what do I have about ?",
            "",
        ] {
            assert_eq!(topic(query), query);
        }
    }
}
