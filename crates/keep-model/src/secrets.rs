//! Secrets in text: what looks like a credential (a private key block, a
//! token of a known shape, a password in a URL, a configuration line that
//! assigns a password, secret, token or key) and the text with each one
//! replaced by a marker naming its kind and a fingerprint of 4 hex digits
//! of its SHA-256 (`[secret: aws-access-key 3f2a]`). Prose about a
//! password ("the Wi-Fi password is BlueOtter-7731") is not an assignment
//! and is kept; hashes, UUIDs and checksums are not secrets.

use sha2::{Digest, Sha256};
use std::ops::Range;

/// One secret found and replaced.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Redaction {
    /// What it looked like: `private-key`, `aws-access-key`,
    /// `github-token`, `gitlab-token`, `slack-token`, `stripe-key`,
    /// `google-api-key`, `jwt`, `bearer-token`, `url-password`,
    /// `password`, `secret`.
    pub kind: &'static str,
    /// The first 4 hex digits of its SHA-256: the same secret gives the
    /// same fingerprint, and none of its characters is kept.
    pub fingerprint: String,
    /// Where it was: `text`, `summary`, `part 3`, `tag 'token'`.
    pub place: String,
}

/// `text` with every secret replaced by its marker, and what was replaced
/// (in order of place in the text, `place` set to `place`).
pub fn redact(text: &str, place: &str) -> (String, Vec<Redaction>) {
    let found = find(text);
    if found.is_empty() {
        return (text.to_string(), Vec::new());
    }
    let mut out = String::with_capacity(text.len());
    let mut redactions = Vec::with_capacity(found.len());
    let mut at = 0;
    for (span, kind) in found {
        let fingerprint = fingerprint(&text[span.clone()]);
        out.push_str(&text[at..span.start]);
        out.push_str(&format!("[secret: {kind} {fingerprint}]"));
        at = span.end;
        redactions.push(Redaction {
            kind,
            fingerprint,
            place: place.to_string(),
        });
    }
    out.push_str(&text[at..]);
    (out, redactions)
}

/// Whether `text` holds a secret.
pub fn holds_secret(text: &str) -> bool {
    !find(text).is_empty()
}

/// The spans of `text` that are secrets, in order, none overlapping.
pub fn find(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let mut spans = private_keys(text);
    spans.extend(opened(text));
    spans.extend(assignments(text));
    spans.sort_by(|a, b| a.0.start.cmp(&b.0.start).then(b.0.end.cmp(&a.0.end)));
    let mut kept: Vec<(Range<usize>, &'static str)> = Vec::with_capacity(spans.len());
    for (span, kind) in spans {
        match kept.last_mut() {
            Some((last, _)) if span.start < last.end => last.end = last.end.max(span.end),
            _ => kept.push((span, kind)),
        }
    }
    kept
}

fn fingerprint(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    format!("{:02x}{:02x}", digest[0], digest[1])
}

/// `-----BEGIN ... PRIVATE KEY-----` (and PGP's private key block) to its
/// END line, or to the end of the text when it is cut off.
fn private_keys(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find("-----BEGIN ") {
        let start = from + offset;
        let head_end = match text[start + 11..].find("-----") {
            Some(e) => start + 11 + e,
            None => break,
        };
        let label = &text[start + 11..head_end];
        if !label.ends_with("PRIVATE KEY") && !label.ends_with("PRIVATE KEY BLOCK") {
            from = head_end;
            continue;
        }
        let end = match text[head_end..].find("-----END ") {
            Some(e) => {
                let tail = head_end + e + 9;
                text[tail..]
                    .find("-----")
                    .map_or(text.len(), |close| tail + close + 5)
            }
            None => text.len(),
        };
        spans.push((start..end, "private-key"));
        from = end;
    }
    spans
}

/// A token shape: its prefixes, the characters of its body and the body's
/// least and greatest length.
struct Shape {
    kind: &'static str,
    prefixes: &'static [&'static str],
    body: fn(u8) -> bool,
    least: usize,
    most: usize,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn upper_alnum(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn url_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

const SHAPES: &[Shape] = &[
    Shape {
        kind: "aws-access-key",
        prefixes: &["AKIA", "ASIA", "ABIA", "ACCA"],
        body: upper_alnum,
        least: 16,
        most: 16,
    },
    Shape {
        kind: "github-token",
        prefixes: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        body: alnum,
        least: 36,
        most: 255,
    },
    Shape {
        kind: "github-token",
        prefixes: &["github_pat_"],
        body: word,
        least: 22,
        most: 255,
    },
    Shape {
        kind: "gitlab-token",
        prefixes: &["glpat-", "gldt-", "glrt-"],
        body: url_safe,
        least: 20,
        most: 255,
    },
    Shape {
        kind: "slack-token",
        prefixes: &["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-"],
        body: url_safe,
        least: 10,
        most: 255,
    },
    Shape {
        kind: "stripe-key",
        prefixes: &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        body: alnum,
        least: 16,
        most: 255,
    },
    Shape {
        kind: "google-api-key",
        prefixes: &["AIza"],
        body: url_safe,
        least: 35,
        most: 35,
    },
];

/// What a secret found by its opening starts with.
#[derive(Clone, Copy)]
enum Opening {
    /// The prefix (of this length) of a token of `SHAPES[shape]`.
    Token { shape: usize, prefix: usize },
    /// `eyJ`, a JSON Web Token's.
    Jwt,
    /// `://`, a URL's, which may hold a password.
    Url,
    /// `Bearer `, a token's.
    Bearer,
}

/// One automaton for every opening, so a text is read once for all.
fn openings() -> &'static (aho_corasick::AhoCorasick, Vec<Opening>) {
    static OPENINGS: std::sync::OnceLock<(aho_corasick::AhoCorasick, Vec<Opening>)> =
        std::sync::OnceLock::new();
    OPENINGS.get_or_init(|| {
        let mut patterns: Vec<&str> = Vec::new();
        let mut kinds = Vec::new();
        for (shape, s) in SHAPES.iter().enumerate() {
            for prefix in s.prefixes {
                patterns.push(prefix);
                kinds.push(Opening::Token {
                    shape,
                    prefix: prefix.len(),
                });
            }
        }
        for (pattern, kind) in [
            ("eyJ", Opening::Jwt),
            ("://", Opening::Url),
            ("Bearer ", Opening::Bearer),
        ] {
            patterns.push(pattern);
            kinds.push(kind);
        }
        let automaton = aho_corasick::AhoCorasick::new(patterns).expect("fixed patterns");
        (automaton, kinds)
    })
}

/// The secrets found from their openings: tokens of a known shape, JSON
/// Web Tokens, URL passwords and bearer tokens.
fn opened(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let (automaton, kinds) = openings();
    let bytes = text.as_bytes();
    automaton
        .find_overlapping_iter(text)
        .filter_map(|m| match kinds[m.pattern().as_usize()] {
            Opening::Token { shape, prefix } => {
                shaped_token(bytes, m.start(), &SHAPES[shape], prefix)
            }
            Opening::Jwt => jwt(bytes, m.start()),
            Opening::Url => url_password(text, m.start()),
            Opening::Bearer => bearer_token(text, m.start()),
        })
        .collect()
}

/// A token of `shape` whose prefix starts at `start`, standing alone (no
/// letter or digit touching either end).
fn shaped_token(
    bytes: &[u8],
    start: usize,
    shape: &Shape,
    prefix: usize,
) -> Option<(Range<usize>, &'static str)> {
    if start > 0 && word(bytes[start - 1]) {
        return None;
    }
    let body = start + prefix;
    let end = body + run(&bytes[body..], shape.body);
    let stands_alone = end == bytes.len() || !alnum(bytes[end]);
    ((shape.least..=shape.most).contains(&(end - body)) && stands_alone)
        .then_some((start..end, shape.kind))
}

fn jwt(bytes: &[u8], start: usize) -> Option<(Range<usize>, &'static str)> {
    if start > 0 && url_safe(bytes[start - 1]) {
        return None;
    }
    jwt_end(bytes, start).map(|end| (start..end, "jwt"))
}

fn run(bytes: &[u8], class: fn(u8) -> bool) -> usize {
    bytes.iter().take_while(|&&b| class(b)).count()
}

/// The end of a JWT at `start`: three base64url segments of 8 or more,
/// joined by dots, the second also a JSON object (`eyJ`).
fn jwt_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    for segment in 0..3 {
        if segment == 1 && !bytes[at..].starts_with(b"eyJ") {
            return None;
        }
        let length = run(&bytes[at..], url_safe);
        if length < 8 {
            return None;
        }
        at += length;
        if segment < 2 {
            if bytes.get(at) != Some(&b'.') {
                return None;
            }
            at += 1;
        }
    }
    Some(at)
}

/// The password of `scheme://user:password@host`, the `://` at `at`.
fn url_password(text: &str, at: usize) -> Option<(Range<usize>, &'static str)> {
    let bytes = text.as_bytes();
    let authority = at + 3;
    let length = bytes[authority..]
        .iter()
        .take_while(|&&b| !b.is_ascii_whitespace() && !b"/?\"'<>()[]`".contains(&b))
        .count();
    let user_at = text[authority..authority + length].rfind('@')?;
    let credentials = &text[authority..authority + user_at];
    let colon = credentials.find(':')?;
    let password = &credentials[colon + 1..];
    let start = authority + colon + 1;
    (!password.is_empty() && !placeholder(password))
        .then_some((start..start + password.len(), "url-password"))
}

/// The token after `Bearer ` at `at` (an `Authorization` header, a curl
/// line).
fn bearer_token(text: &str, at: usize) -> Option<(Range<usize>, &'static str)> {
    let start = at + 7;
    let length = run(&text.as_bytes()[start..], |b| {
        url_safe(b) || b == b'.' || b == b'~' || b == b'+' || b == b'/' || b == b'='
    });
    let token = &text[start..start + length];
    (length >= 16 && looks_random(token)).then_some((start..start + length, "bearer-token"))
}

/// The values that configuration assigns to a secret: a line
/// `DB_PASSWORD=...`, `api_key: ...`, `export X=...`, and inside a line
/// `"token": "..."` (JSON), `--password=...`, `?api_key=...&`.
fn assignments(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let mut spans = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let found = line_assignment(line)
            .into_iter()
            .chain(inline_assignments(line));
        spans.extend(
            found.map(|(span, kind)| (line_start + span.start..line_start + span.end, kind)),
        );
        line_start += line.len();
    }
    spans
}

/// A line that is one assignment, `KEY=value` or `key: value`, with
/// nothing after the value but a comment.
fn line_assignment(line: &str) -> Option<(Range<usize>, &'static str)> {
    let bytes = line.as_bytes();
    let mut key_start = line.len() - line.trim_start_matches([' ', '\t', '-', '*', '>']).len();
    if line[key_start..].starts_with("export ") {
        key_start += 7;
    }
    if line[key_start..].starts_with(['"', '\'']) {
        key_start += 1;
    }
    let key_len = run(&bytes[key_start..], key_char);
    if key_len == 0 {
        return None;
    }
    let key = &line[key_start..key_start + key_len];
    let mut at = key_start + key_len;
    if matches!(bytes.get(at), Some(b'"' | b'\'')) {
        at += 1;
    }
    while bytes.get(at) == Some(&b' ') {
        at += 1;
    }
    match bytes.get(at) {
        Some(b'=') => at += 1,
        Some(b':') if bytes.get(at + 1) != Some(&b'/') => at += 1,
        _ => return None,
    }
    let (value, quoted) = value_at(line, at, b"")?;
    let rest = line[value.end..]
        .trim_start_matches(['"', '\'', ',', ';'])
        .trim();
    if !quoted && !rest.is_empty() && !rest.starts_with('#') {
        return None;
    }
    secret_value(key, &line[value.clone()]).map(|kind| (value, kind))
}

/// Assignments inside a line: a quoted key and `:` (JSON, YAML flow), or
/// a key and `=` with no space between (an option, a query string, where
/// a bare `key=` names a document, not a credential).
fn inline_assignments(line: &str) -> Vec<(Range<usize>, &'static str)> {
    let bytes = line.as_bytes();
    let mut spans = Vec::new();
    for at in memchr::memchr2_iter(b'=', b':', bytes) {
        let quoted_key = at > 0 && matches!(bytes[at - 1], b'"' | b'\'');
        if bytes[at] == b':' && !quoted_key {
            continue;
        }
        let key_end = at - usize::from(quoted_key);
        let key_len = bytes[..key_end]
            .iter()
            .rev()
            .take_while(|&&b| key_char(b))
            .count();
        if key_len == 0 {
            continue;
        }
        let key_start = key_end - key_len;
        let opens = key_start
            .checked_sub(1)
            .map(|i| bytes[i])
            .is_none_or(|b| b" \t\"'{,&?;-(".contains(&b));
        let Some((value, quoted)) = value_at(line, at + 1, b",;&\"'") else {
            continue;
        };
        if !opens || (bytes[at] == b':' && !quoted) {
            continue;
        }
        let key = &line[key_start..key_end];
        let in_query = key_start > 0 && matches!(bytes[key_start - 1], b'?' | b'&');
        if in_query && secret_key_kind(key) == Some("key") {
            continue;
        }
        if let Some(kind) = secret_value(key, &line[value.clone()]) {
            spans.push((value, kind));
        }
    }
    spans
}

fn key_char(b: u8) -> bool {
    word(b) || b == b'-' || b == b'.'
}

/// The value that starts at `at` (after spaces): inside its quotes, or
/// up to a space or one of `stops` (inside a line, less a sentence's
/// closing stop; a line's whole value is kept to its end); and whether it
/// was quoted.
fn value_at(line: &str, mut at: usize, stops: &[u8]) -> Option<(Range<usize>, bool)> {
    let bytes = line.as_bytes();
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    let quote = bytes.get(at).copied().filter(|b| matches!(b, b'"' | b'\''));
    if quote.is_some() {
        at += 1;
    }
    let length = match quote {
        Some(q) => bytes[at..].iter().position(|&b| b == q)?,
        None => bytes[at..]
            .iter()
            .take_while(|&&b| !b.is_ascii_whitespace() && !stops.contains(&b))
            .count(),
    };
    let length = match quote {
        Some(_) => length,
        None if stops.is_empty() => length,
        None => line[at..at + length]
            .trim_end_matches(['.', ',', ';', '!', '?'])
            .len(),
    };
    (length > 0).then_some((at..at + length, quote.is_some()))
}

/// The kind of secret `value` is when assigned to `key`, if it is one.
fn secret_value(key: &str, value: &str) -> Option<&'static str> {
    let kind = secret_key_kind(key)?;
    let plausible = !value.contains(char::is_whitespace)
        && !value.contains(['(', ')'])
        && value.matches(':').count() < 2
        && !placeholder(value)
        && !names_a_file(value)
        && !value
            .split('/')
            .any(|piece| piece.len() >= 3 && metavariable(piece));
    let secret = plausible
        && match kind {
            "key" => looks_random(value) && !hex_or_uuid(value) && encoded(value),
            _ => password_like(value),
        };
    secret.then_some(if kind == "password" {
        "password"
    } else {
        "secret"
    })
}

/// What a configuration key names: `password` (password, passwd,
/// passphrase), `secret` (secret, token, credential, an API or access
/// key), `key` (another key, whose value must also look random), or
/// nothing keep reads as secret (a key naming a file, a length, a time).
fn secret_key_kind(key: &str) -> Option<&'static str> {
    let words = key_words(key);
    let last = words.last()?.as_str();
    const NOT_THE_SECRET: &[&str] = &[
        "file",
        "path",
        "dir",
        "length",
        "len",
        "min",
        "max",
        "size",
        "type",
        "mode",
        "expiry",
        "expires",
        "ttl",
        "timeout",
        "age",
        "days",
        "command",
        "cmd",
        "env",
        "name",
        "id",
        "ids",
        "hash",
        "policy",
        "format",
        "prompt",
        "field",
        "header",
        "method",
        "algorithm",
        "bits",
        "url",
        "uri",
        "endpoint",
        "enabled",
        "required",
        "store",
        "helper",
        "program",
        "user",
        "username",
        "count",
        "chars",
        "rounds",
        "warn",
        "check",
        "server",
        "host",
        "port",
        "hashed",
        "salt",
    ];
    if NOT_THE_SECRET.contains(&last) {
        return None;
    }
    let has = |w: &str| words.iter().any(|x| x == w);
    if ["password", "passwd", "passphrase", "pwd", "pass"]
        .iter()
        .any(|w| has(w))
    {
        return Some("password");
    }
    if has("public") || words == ["pwd"] {
        return None;
    }
    if ["secret", "token", "apikey", "accesskey", "privatekey"]
        .iter()
        .any(|w| has(w))
    {
        return Some("secret");
    }
    let pairs = words.windows(2).any(|w| {
        w[1] == "key"
            && [
                "api",
                "access",
                "private",
                "client",
                "signing",
                "encryption",
                "master",
                "auth",
                "license",
                "session",
            ]
            .contains(&w[0].as_str())
    });
    if pairs {
        return Some("secret");
    }
    has("key").then_some("key")
}

/// A key's words, lower case: `AWS_SECRET_ACCESS_KEY`, `apiKey`,
/// `client.secret` and `x-api-key` split into theirs.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// A value a password line holds when it is a password: six characters
/// or more, not a plain word (letters with at most the first a capital),
/// not a number, not a reference to
/// something else (a variable, a path, a file).
fn password_like(value: &str) -> bool {
    let chars = value.chars().count();
    let word = value.trim_end_matches(['.', ',', ';', '!', '?']);
    let not_a_plain_word =
        word.chars().any(|c| !c.is_alphabetic()) || word.chars().skip(1).any(|c| c.is_uppercase());
    chars >= 6
        && not_a_plain_word
        && !value.chars().all(|c| c.is_ascii_digit())
        && !value.starts_with(['/', '~', '.', '$', '%', '@', '<', '{', '[', '('])
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "none" | "null"
        )
        && !value.contains("://")
}

/// A value written in base64 or a URL-safe alphabet, as keys are.
fn encoded(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=_-".contains(&b))
}

/// A file name (`key.json`, `tpm2-pcr-private.pem`): a key's file, not
/// the key.
fn names_a_file(value: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        "json", "pem", "key", "crt", "cer", "der", "p12", "pfx", "pub", "gpg", "asc", "txt",
        "yaml", "yml", "toml", "conf", "cfg", "ini", "env", "jks", "keystore",
    ];
    value.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// A string that reads as random: 16 characters or more, letters and
/// digits both, and at least 3 bits of entropy a character.
fn looks_random(value: &str) -> bool {
    value.len() >= 16
        && value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_alphabetic())
        && entropy(value) >= 3.0
}

fn entropy(value: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// A name that stands for a value in a synopsis (`HASHED_PASSWORD`,
/// `ID:VALUE`): no lower-case letter and no digit.
fn metavariable(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_uppercase())
        && !value
            .chars()
            .any(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// Letters or digits that count up in each run (`abcd_efgh`, `abc123`,
/// `1234-5678`): a made-up example, not a secret.
fn counts_up(lower: &str) -> bool {
    let runs: Vec<&[u8]> = lower
        .as_bytes()
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|r| !r.is_empty())
        .collect();
    let counting = |run: &[u8]| {
        let mut pieces = run.chunk_by(|a, b| a.is_ascii_digit() == b.is_ascii_digit());
        pieces.all(|p| p.len() >= 3 && p.windows(2).all(|w| w[1] == w[0] + 1))
    };
    !runs.is_empty() && runs.iter().all(|r| counting(r))
}

/// Hex digits alone (a hash, a key id, a fingerprint) or a UUID.
fn hex_or_uuid(value: &str) -> bool {
    let value = value.strip_prefix("0x").unwrap_or(value);
    value
        .bytes()
        .all(|b| b.is_ascii_hexdigit() || b == b'-' || b == b':')
}

/// A value that stands for a secret in an example: `password`, `****`,
/// `<token>`, `${TOKEN}`, `your-password`, `changeme`, `xxx`; a value
/// that reads as random is no stand-in, even with `EXAMPLE` in it (a
/// vendor's documented sample key is a key's shape and is redacted).
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let first = lower.chars().next();
    if lower.is_empty() || lower.chars().all(|c| Some(c) == first) {
        return true;
    }
    if lower.starts_with(['<', '{', '$', '%', '[', '*', '`']) {
        return true;
    }
    if metavariable(value) || counts_up(&lower) {
        return true;
    }
    const STAND_INS: &[&str] = &[
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "apikey",
        "api_key",
        "changeme",
        "example",
        "foobar",
        "foo",
        "bar",
        "dummy",
        "test",
        "redacted",
        "hidden",
        "xxxxxx",
        "mypassword",
        "mysecret",
        "yourpassword",
        "yoursecret",
        "yourtoken",
    ];
    if looks_random(value) {
        return false;
    }
    STAND_INS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.starts_with("my_")
        || lower.starts_with("my-")
        || lower.contains("xxxx")
        || lower.contains("example")
        || lower.contains("placeholder")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        find(text).into_iter().map(|(_, k)| k).collect()
    }

    #[test]
    fn known_shapes_are_found_and_replaced_by_kind_and_fingerprint() {
        let (out, found) = redact("The AWS key is AKIAIOSFODNN7EXAMPLE for backups.", "text");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, "aws-access-key");
        assert_eq!(found[0].fingerprint, fingerprint("AKIAIOSFODNN7EXAMPLE"));
        assert_eq!(
            out,
            format!(
                "The AWS key is [secret: aws-access-key {}] for backups.",
                found[0].fingerprint
            )
        );
        assert!(!out.contains("AKIA"));
        let (again, more) = redact(&out, "text");
        assert_eq!((again, more.len()), (out, 0), "a marker is not a secret");
    }

    #[test]
    fn each_kind_is_told() {
        let gh = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A");
        assert_eq!(kinds(&format!("token {gh} here")), ["github-token"]);
        assert_eq!(kinds("glpat-xY12ab34CD56ef78GH90"), ["gitlab-token"]);
        assert_eq!(kinds("xoxb-1234567890-abcdefABCDEF"), ["slack-token"]);
        assert_eq!(kinds("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), ["stripe-key"]);
        assert_eq!(
            kinds("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
            ["google-api-key"]
        );
        assert_eq!(
            kinds(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
            ),
            ["jwt"]
        );
        assert_eq!(
            kinds("https://ana:s3cr3t-Pw@db.example.org/x"),
            ["url-password"]
        );
        assert_eq!(
            kinds(
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
            ),
            ["private-key"]
        );
        assert_eq!(kinds("DB_PASSWORD=hunter2x\n"), ["password"]);
        let (out, _) = redact("DB_PASSWORD=Sup3rS3cret!\n", "text");
        assert!(!out.contains('!'), "a line's value is kept whole: {out}");
        assert_eq!(
            kinds("{\"id\": \"web\", \"client_secret\": \"Zr8q2LmW9x4TnB7v\"}"),
            ["secret"]
        );
        assert_eq!(kinds("mysql --password=Zr8q2LmW9x -h db"), ["password"]);
        assert_eq!(
            kinds("GET /v1?api_key=Zr8q2LmW9x4TnB7vK1pD&page=2"),
            ["secret"]
        );
        assert_eq!(kinds("export GITHUB_TOKEN=\"q8Wz3Lp0Xv7N\"\n"), ["secret"]);
        assert_eq!(
            kinds("  \"apiKey\": \"Zr8q2LmW9x4TnB7vK1pD\",\n"),
            ["secret"]
        );
        assert_eq!(
            kinds("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"),
            ["secret"],
            "the documented sample secret is a secret"
        );
        assert_eq!(
            kinds("Authorization: Bearer 9f8e7d6c5b4a39281706fAbCdEf"),
            ["bearer-token"]
        );
    }

    #[test]
    fn prose_hashes_uuids_placeholders_and_paths_are_not_secrets() {
        for text in [
            "The office Wi-Fi password is BlueOtter-7731.",
            "passwd: files systemd",
            "password required pam_unix.so nullok",
            "PASS_MAX_DAYS=99999",
            "sha256sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "key: 0x8B48AD6246925553",
            "keyid = A1B2C3D4E5F6A7B8C9D0",
            "uuid=123e4567-e89b-12d3-a456-426614174000",
            "password = <your password>",
            "password: ${DB_PASSWORD}",
            "ssl_key_file = /etc/ssl/private/ssl-cert-snakeoil.key",
            "password_file: /run/secrets/db",
            "ftp://user:password@ftp.example.org/",
            "https://user@host/path and http://host:8080/x",
            "token: true",
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
            "the primary key is id",
            "secret_santa: Andrea",
            "(Note: should change all uses of ${PWD=`pwd`} to ${PWD}",
            "  - 118_arm_pass_all.dpatch: Regenerated.",
            "  * signing-key: Updated.",
            "export GOOGLE_APPLICATION_CREDENTIALS=key.json",
            "loginPageUri: https://test.com/?apiKey=abcd_efgh",
            "--root-password-hashed=HASHED_PASSWORD Sets the password",
            "--set-credential=firstboot.locale:de_DE.UTF-8",
            "--private-key=tpm2-pcr-private.pem --public-key=tpm2-pcr-public.pem",
            "Token=static:::1a:2b:3c:4d",
            "https://docs.google.com/spreadsheet/ccc?key=0Ao1yRmX6PQQzdG5wSFlrZl9HRWNET3ZyN0hnaGo5ZFE&usp=sharing",
            "--validation-shared-key='secret_version=projects/PROJECT/secrets/SECRET/versions/VERSION'",
            "PublicKey=RDf+LSpeEre7YEIKaxg+wbpsNV7du+ktR99uBEtIiCA=",
            "LoadCredential=ID[:PATH], SetCredential=ID:VALUE",
            "rd.luks.key=b40f1abf-2a53-400a-889a-2eccc27eaa40=/keyfile:LABEL=keydev.",
            "ghp_short",
            "key: fs.readFileSync('test/fixtures/keys/agent2-key.pem'),",
            "password: urllib.request.HTTPPasswordMgrWithDefaultRealm()",
            "AKIAshort",
        ] {
            assert!(find(text).is_empty(), "{text:?}: {:?}", find(text));
        }
    }

    #[test]
    fn key_words_split_every_way_keys_are_written() {
        assert_eq!(
            key_words("AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
        assert_eq!(key_words("apiKey"), ["api", "key"]);
        assert_eq!(key_words("x-api-key"), ["x", "api", "key"]);
    }
}
