//! The words of a short text as the verdict reads them: tokens with their
//! place in a sentence, stems of the content words, words that say the
//! same (change verbs, abbreviations, stem variants), words too vague to
//! be a fact, and polarity (negations and opposites).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use keep_ingest::summarize::is_stopword;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// A word of a text as written, without the punctuation around it.
#[derive(Debug, Clone)]
pub struct Token {
    pub text: String,
    /// Whether it starts a sentence (or a clause after a colon or a bullet).
    pub start: bool,
}

/// Punctuation that wraps a word rather than belonging to it.
fn is_wrapping(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
            | '«'
            | '»'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '*'
            | '_'
            | '`'
    )
}

fn is_closing(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | ':' | '!' | '?')
}

/// The words of `text`, split at white space, wrapping and closing
/// punctuation removed.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = true;
    for raw in text.split_whitespace() {
        let mut core = raw;
        loop {
            let next = core
                .trim_matches(is_wrapping)
                .trim_end_matches(is_closing)
                .trim_matches(is_wrapping);
            if next == core {
                break;
            }
            core = next;
        }
        let core = core.strip_prefix('=').unwrap_or(core);
        for (i, piece) in split_key_value(core).into_iter().enumerate() {
            if !piece.is_empty() {
                out.push(Token {
                    text: piece.to_string(),
                    start: start && i == 0,
                });
            }
        }
        let ends = raw.trim_end_matches(is_wrapping);
        start = ends.ends_with(['.', '!', '?', ':']) || matches!(raw, "-" | "*" | "•" | "–" | "—");
    }
    out
}

/// `Key:value` as two words (`Rules-Requires-Root:no`); a URL, a time
/// (`9:30`) or a drive stays whole.
fn split_key_value(word: &str) -> Vec<&str> {
    match word.split_once(':') {
        Some((key, value))
            if key.chars().count() > 1
                && key.chars().all(|c| c.is_alphabetic() || c == '-')
                && value.starts_with(|c: char| c.is_alphabetic()) =>
        {
            vec![key, value]
        }
        _ => vec![word],
    }
}

/// The lower-case alphanumeric runs of `text`, with "n't" read as "not".
pub fn plain_words(text: &str) -> Vec<String> {
    let text = text
        .to_lowercase()
        .replace(['’', '‘'], "'")
        .replace("can't", "can not")
        .replace("won't", "will not")
        .replace("n't", " not");
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

pub fn stem(word: &str) -> String {
    STEMMER.stem(&word.to_lowercase()).into_owned()
}

/// Stems of every word of `text`, function words included.
pub fn all_stems(text: &str) -> BTreeSet<String> {
    plain_words(text).iter().map(|w| stem(w)).collect()
}

/// Words that name no fact of their own: "no changes needed", "the
/// latest version", "bump" and "update" of a value the details name,
/// verbs that only say something is or happens ("takes place", "occurs"),
/// reflexive pronouns.
const VAGUE: &[&str] = &[
    "level",
    "version",
    "release",
    "field",
    "fields",
    "file",
    "files",
    "value",
    "setting",
    "option",
    "number",
    "item",
    "entry",
    "entries",
    "thing",
    "things",
    "stuff",
    "change",
    "changes",
    "changed",
    "need",
    "needed",
    "required",
    "necessary",
    "necessarily",
    "further",
    "additional",
    "another",
    "bump",
    "bumped",
    "update",
    "updated",
    "refresh",
    "refreshed",
    "rebase",
    "rebased",
    "upgrade",
    "upgraded",
    "raise",
    "raised",
    "set",
    "import",
    "imported",
    "switch",
    "switched",
    "migrate",
    "migrated",
    "move",
    "moved",
    "list",
    "happen",
    "happened",
    "occur",
    "occurred",
    "take",
    "took",
    "taken",
    "place",
    "already",
    "now",
    "apply",
    "applied",
    "include",
    "included",
    "merge",
    "merged",
    "myself",
    "yourself",
    "himself",
    "herself",
    "itself",
    "ourselves",
    "themselves",
    "date",
    "time",
    "name",
    "address",
    "currently",
    "actually",
    "really",
    "please",
    "note",
];

static VAGUE_STEMS: LazyLock<BTreeSet<String>> =
    LazyLock::new(|| VAGUE.iter().map(|w| stem(w)).collect());

pub fn is_vague(stem: &str) -> bool {
    VAGUE_STEMS.contains(stem)
}

/// Groups of words that say the same in a statement of fact.
const SAME_MEANING: &[&[&str]] = &[
    &[
        "bump", "update", "upgrade", "raise", "set", "increase", "move", "switch", "migrate",
        "change", "use", "import",
    ],
    &["version", "release"],
    &["need", "require", "necessary"],
    &["remove", "drop", "delete", "trim", "strip"],
    &["release", "upload", "publish"],
    &["fix", "correct", "repair"],
    &["add", "introduce"],
    &["database", "db"],
    &["password", "passphrase"],
    &["start", "begin"],
    &["end", "finish"],
    &["big", "large"],
    &["small", "little"],
    &["fast", "quick"],
];

static SAME_MEANING_STEMS: LazyLock<Vec<BTreeSet<String>>> = LazyLock::new(|| {
    SAME_MEANING
        .iter()
        .map(|group| group.iter().map(|w| stem(w)).collect())
        .collect()
});

/// Whether two stems say the same: one group of same meaning, or one a
/// shortening of the other ("compat" for "compatibility").
pub fn same_meaning(a: &str, b: &str) -> bool {
    if a == b || synonyms(a, b) {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    (short.len() >= 4 && long.len() >= short.len() + 3 && long.starts_with(short))
        || doubled_last_letter(short, long)
}

/// A verb that says little of its own, so a sentence that adds it says
/// nothing new ("the team uses Bitwarden as its password manager" after
/// "the password manager of the team is Bitwarden").
pub fn is_light_verb(word: &str) -> bool {
    matches!(
        word,
        "use"
            | "uses"
            | "used"
            | "using"
            | "has"
            | "have"
            | "had"
            | "having"
            | "get"
            | "gets"
            | "got"
            | "getting"
    )
}

/// Whether `text` says that something happens without naming it as a
/// thing: "happens", "occurs", "takes place", "is held".
pub fn says_occurrence(text: &str) -> bool {
    let words = plain_words(text);
    let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
    let event_verb = stems.iter().any(|s| s == "happen" || s == "occur");
    let phrase = words.windows(2).any(|pair| {
        let first = stem(&pair[0]);
        (first == "take" || pair[0] == "took" || pair[0] == "taking") && pair[1] == "place"
            || (matches!(pair[0].as_str(), "is" | "are" | "was" | "were" | "be")
                && pair[1] == "held")
    });
    event_verb || phrase
}

/// Whether two stems are in one group of words of the same meaning.
pub fn synonyms(a: &str, b: &str) -> bool {
    SAME_MEANING_STEMS
        .iter()
        .any(|g| g.contains(a) && g.contains(b))
}

/// Whether `long` is `short` with its last letter doubled: the stemmer
/// reads "added" as "ad" and "add" as "add".
fn doubled_last_letter(short: &str, long: &str) -> bool {
    let Some(last) = short.chars().last() else {
        return false;
    };
    short.chars().count() >= 2 && long.strip_prefix(short) == Some(last.encode_utf8(&mut [0; 4]))
}

/// Whether the content stem `word` of one text is said by `other` in
/// some form: the same stem among all its words (function words
/// included: "used" / "uses"), a word of the same meaning, an
/// abbreviation either way ("dh" / "debhelper"), or one half of a
/// compound ("white spaces" / "whitespaces").
pub fn said_in(word: &str, own: &str, other: &str) -> bool {
    let other_words = plain_words(other);
    let own_stems = all_stems(own);
    let said = |s: &String| {
        s == word || synonyms(s, word) || (!own_stems.contains(s) && same_meaning(s, word))
    };
    if other_words.iter().map(|w| stem(w)).any(|s| said(&s)) {
        return true;
    }
    let written = plain_words(own)
        .into_iter()
        .find(|w| stem(w) == word)
        .unwrap_or_else(|| word.to_string());
    let own_words = plain_words(own);
    let content: Vec<&String> = other_words
        .iter()
        .filter(|w| !is_stopword(w) && !own_words.contains(w))
        .collect();
    let abbreviation = |short: &str, long: &str| {
        short.len() * 2 <= long.len() && !long.starts_with(short) && abbreviates(short, long)
    };
    (!other_words.contains(&written) && content.iter().any(|w| abbreviation(&written, w)))
        || content.iter().any(|w| abbreviation(w, &written))
        || compound_of(&written, &other_words)
        || content.iter().any(|w| splits_into(w, &written, &own_words))
}

/// Whether `word` is two consecutive words of `words` written as one.
fn compound_of(word: &str, words: &[String]) -> bool {
    words
        .windows(2)
        .any(|pair| stem(&format!("{}{}", pair[0], pair[1])) == stem(word))
}

/// Whether `compound` is `word` joined to another of `own_words`, or a
/// compound whose last part is `word` ("whitespace" and "spaces").
fn splits_into(compound: &str, word: &str, own_words: &[String]) -> bool {
    if compound.len() <= word.len() || word.len() < 3 {
        return false;
    }
    let (compound_root, word_root) = (root(compound), root(word));
    if word_root.len() >= 4
        && compound_root.len() > word_root.len() + 2
        && compound_root.ends_with(&word_root)
    {
        return true;
    }
    let rest = if let Some(rest) = compound.strip_prefix(word) {
        rest
    } else if let Some(rest) = compound.strip_suffix(word) {
        rest
    } else {
        return false;
    };
    own_words
        .iter()
        .any(|w| w != word && (w == rest || stem(w) == stem(rest)))
}

/// A word without its plural ending and final "e", to compare the parts
/// of compounds ("spaces" and "whitespace" end alike).
fn root(word: &str) -> String {
    let word = word.to_lowercase();
    let word = word
        .strip_suffix("es")
        .or_else(|| word.strip_suffix('s'))
        .unwrap_or(&word);
    word.strip_suffix('e').unwrap_or(word).to_string()
}

/// Whether `token` reads as a file path: folders in lower case before the
/// file ("debian/control", "d/watch", "/etc/hosts"), not a pair of names
/// ("Win32/POSIX", "IPv4/IPv6") or an address.
pub fn is_path(token: &str) -> bool {
    if token.contains("://") {
        return false;
    }
    let segments: Vec<&str> = token.split('/').filter(|s| !s.is_empty()).collect();
    segments.len() >= 2
        && segments[..segments.len() - 1].iter().all(|folder| {
            folder
                .chars()
                .all(|c| c.is_ascii_lowercase() || matches!(c, '.' | '_' | '-'))
        })
}

/// `text` with the first folder of each relative path left out: in
/// "debian/control" or "d/control" the file is "control", the folder
/// only says where.
pub fn without_path_roots(text: &str) -> String {
    text.split_whitespace()
        .map(|token| {
            let bare = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
            if is_path(bare) {
                let segments: Vec<&str> = bare.split('/').filter(|s| !s.is_empty()).collect();
                segments[1..].join("/")
            } else {
                token.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `short` (2 to 6 letters) abbreviates words of `text`: the
/// initials of consecutive words ("API" for "application programming
/// interface") or the letters of one longer word in order, from its first
/// ("DB" for "database").
pub fn abbreviates(short: &str, text: &str) -> bool {
    let short = short.to_lowercase();
    if !(2..=6).contains(&short.len()) || !short.chars().all(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let words = plain_words(text);
    let one_word = words
        .iter()
        .any(|w| w.len() > short.len() && w.starts_with(&short[..1]) && is_subsequence(&short, w));
    let initials = words.windows(short.len()).any(|run| {
        run.iter()
            .map(|w| w.chars().next().unwrap_or(' '))
            .collect::<String>()
            == short
    });
    one_word || initials
}

fn is_subsequence(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().all(|c| rest.any(|l| l == c))
}

const NEGATIONS: &[&str] = &[
    "not", "no", "never", "cannot", "without", "nor", "none", "nothing", "neither", "nobody",
    "nowhere",
];

pub fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word)
}

/// Words whose swap turns a fact into another ("enabled" / "disabled").
const OPPOSITES: &[(&str, &str)] = &[
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("allow", "deny"),
    ("allow", "disallow"),
    ("allowed", "denied"),
    ("add", "remove"),
    ("add", "drop"),
    ("with", "without"),
    ("install", "uninstall"),
    ("start", "stop"),
    ("include", "exclude"),
    ("on", "off"),
    ("true", "false"),
    ("open", "closed"),
    ("open", "close"),
    ("increase", "decrease"),
    ("before", "after"),
    ("above", "below"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("accept", "reject"),
    ("public", "private"),
    ("internal", "external"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("pass", "fail"),
    ("valid", "invalid"),
    ("lock", "unlock"),
    ("mount", "unmount"),
    ("connect", "disconnect"),
    ("encrypt", "decrypt"),
    ("visible", "hidden"),
    ("required", "optional"),
    ("upper", "lower"),
    ("input", "output"),
    ("import", "export"),
    ("left", "right"),
    ("inbound", "outbound"),
    ("first", "last"),
    ("yes", "no"),
    ("available", "unavailable"),
    ("supported", "unsupported"),
    ("secure", "insecure"),
    ("blocking", "nonblocking"),
    ("up", "down"),
    ("north", "south"),
    ("east", "west"),
    ("early", "late"),
    ("earlier", "later"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("always", "never"),
    ("read-only", "writable"),
    ("online", "offline"),
    ("active", "inactive"),
    ("pass", "block"),
];

static OPPOSITE_STEMS: LazyLock<Vec<(String, String)>> =
    LazyLock::new(|| OPPOSITES.iter().map(|(a, b)| (stem(a), stem(b))).collect());

/// A word of one text whose opposite the other says instead, as
/// (word in `a`, word in `b`).
pub fn opposite_words(a: &str, b: &str) -> Option<(String, String)> {
    let (sa, sb) = (all_stems(a), all_stems(b));
    OPPOSITE_STEMS.iter().find_map(|(x, y)| {
        let swapped = |p: &str, q: &str| {
            sa.contains(p) && sb.contains(q) && !sa.contains(q) && !sb.contains(p)
        };
        if swapped(x, y) {
            Some((x.clone(), y.clone()))
        } else if swapped(y, x) {
            Some((y.clone(), x.clone()))
        } else {
            None
        }
    })
}

/// A negation in `a` of something `b` says without one: the first content
/// word after "not", "never", "isn't" ... is a word of `b`. "No changes
/// needed" beside a text that never speaks of changes negates nothing it
/// says.
pub fn negates(a: &str, b: &str) -> Option<String> {
    let words = plain_words(a);
    if plain_words(b).iter().any(|w| is_negation(w)) {
        return None;
    }
    let said = all_stems(b);
    words.iter().enumerate().find_map(|(i, w)| {
        if !is_negation(w) {
            return None;
        }
        let after = &words[i + 1..];
        let next = after
            .iter()
            .take(3)
            .find(|x| !is_stopword(x) && !is_negation(x))
            .or_else(|| after.first())?;
        said.contains(&stem(next)).then(|| w.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_lose_wrapping_and_know_sentence_starts() {
        let t = tokens("Bump (\"Standards-Version\") to 4.5.0. No changes: Done");
        let words: Vec<(&str, bool)> = t.iter().map(|t| (t.text.as_str(), t.start)).collect();
        assert_eq!(
            words,
            [
                ("Bump", true),
                ("Standards-Version", false),
                ("to", false),
                ("4.5.0", false),
                ("No", true),
                ("changes", false),
                ("Done", true)
            ]
        );
    }

    #[test]
    fn abbreviations_and_shortenings_say_the_same() {
        assert!(abbreviates("DB", "the staging database"));
        assert!(abbreviates("API", "an application programming interface"));
        assert!(!abbreviates("DB", "the staging server"));
        assert!(same_meaning(&stem("compat"), &stem("compatibility")));
        assert!(same_meaning(&stem("bumped"), &stem("updated")));
        assert!(!same_meaning(&stem("speech"), &stem("speechd")));
        assert!(!same_meaning(&stem("html"), &stem("pdf")));
    }

    #[test]
    fn a_negation_counts_only_when_it_negates_what_the_other_says() {
        assert!(negates("The cache isn't enabled", "The cache is enabled").is_some());
        assert!(negates("The password never rotates", "The password rotates").is_some());
        assert!(negates("Bump it to 4.5 (no changes needed)", "Bump it to 4.5").is_none());
        assert!(negates("not here", "not here either").is_none());
        assert_eq!(
            opposite_words("Add the watch file", "Remove the watch file"),
            Some(("add".into(), "remov".into()))
        );
        assert_eq!(opposite_words("Add the file", "Add the file"), None);
    }
}
