//! Note ids: inline ids from content hashes, validation, and the
//! percent-decoding of `file://` ids.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::selector::split_selector;
use crate::error::{Invalid, Result};

/// Longest id accepted, in bytes.
pub const MAX_ID_BYTES: usize = 1024;

/// The id of the working-intentions note.
pub const NOW_ID: &str = "now";

/// Hex digest of the sha256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The id of inline text: `%` and the first 12 hex digits of its sha256.
pub fn inline_id(text: &str) -> String {
    format!("%{}", &content_hash(text.as_bytes())[..12])
}

/// The id of inline text put by a caller confined to `scope`: as
/// `inline_id`, with the scope's tags in the digest, so two scopes that
/// store the same text get two notes, and neither learns from the id that
/// the other holds that text. An empty scope gives `inline_id`.
pub fn scoped_inline_id(text: &str, scope: &crate::Tags) -> String {
    if scope.is_empty() {
        return inline_id(text);
    }
    let mut keyed = String::from("scope:");
    for (key, value) in scope.pairs() {
        keyed.push_str(&format!("{key}={value};"));
    }
    keyed.push('\n');
    keyed.push_str(text);
    inline_id(&keyed)
}

/// Ids starting with `.` are system notes, hidden unless asked for.
pub fn is_system_id(id: &str) -> bool {
    id.starts_with('.')
}

/// Checks that `id` can name a note.
pub fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Invalid::new("an id cannot be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(Invalid::new(format!(
            "id is {} bytes long; the limit is {MAX_ID_BYTES}",
            id.len()
        )));
    }
    if id.chars().any(char::is_control) {
        return Err(Invalid::new(format!(
            "id {} contains a control character",
            escape(id)
        )));
    }
    if id.trim() != id {
        return Err(Invalid::new(format!(
            "id {} starts or ends with whitespace",
            escape(id)
        )));
    }
    if split_selector(id).is_some() {
        return Err(Invalid::new(format!(
            "id '{id}' ends with a version or part selector; choose another id"
        )));
    }
    Ok(())
}

/// Text for a one-line message: control characters (a newline in a file
/// name, say) shown escaped, everything else as it is.
pub fn printable(text: &str) -> String {
    if text.chars().any(char::is_control) {
        text.chars()
            .flat_map(|c| {
                let escaped: Vec<char> = if c.is_control() {
                    c.escape_default().collect()
                } else {
                    vec![c]
                };
                escaped
            })
            .collect()
    } else {
        text.to_string()
    }
}

/// Quotes a string for a message; control characters are shown escaped.
pub(crate) fn escape(s: &str) -> String {
    if s.chars().any(char::is_control) {
        format!("{s:?}")
    } else {
        format!("'{s}'")
    }
}

/// Decodes `%XX` escapes (as in URIs); None when the result is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    String::from_utf8(percent_decode_bytes(text)).ok()
}

/// Decodes `%XX` escapes into raw bytes; a stray `%` stays itself.
pub fn percent_decode_bytes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// The path a `file://` id names: the exact bytes, whatever their
/// encoding; None for other ids or a path that is not absolute.
pub fn path_of_file_id(id: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let encoded = id.strip_prefix("file://")?;
    let bytes = percent_decode_bytes(encoded);
    (bytes.first() == Some(&b'/')).then(|| PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// `file://` URI of an absolute path, each byte outside a safe set
/// percent-encoded, so any name a file system allows (UTF-8 or not) has
/// its own id and decodes back to itself.
pub fn file_id(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `path` with `.` and `..` components taken out, without touching the
/// file system.
pub fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_ids_are_lossless_for_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let a = Path::new(std::ffi::OsStr::from_bytes(b"/tmp/bad-utf8-\xff\xfe.txt"));
        let b = Path::new(std::ffi::OsStr::from_bytes(b"/tmp/bad-utf8-\xfe\xff.txt"));
        assert_eq!(file_id(a), "file:///tmp/bad-utf8-%FF%FE.txt");
        assert_ne!(file_id(a), file_id(b));
        assert_eq!(path_of_file_id(&file_id(a)).as_deref(), Some(a));
        assert_eq!(
            path_of_file_id("file:///tmp/a%20b").unwrap(),
            Path::new("/tmp/a b")
        );
        assert_eq!(path_of_file_id("note"), None);
        assert_eq!(path_of_file_id("file://relative"), None);
    }

    #[test]
    fn file_ids_escape_unsafe_characters() {
        assert_eq!(
            file_id(Path::new("/tmp/a b/ü.md")),
            "file:///tmp/a%20b/%C3%BC.md"
        );
    }
    #[test]
    fn percent_decoding_keeps_stray_percents() {
        assert_eq!(percent_decode("a%2Fb%20c").as_deref(), Some("a/b c"));
        assert_eq!(percent_decode("%abc12").as_deref(), None);
        assert_eq!(percent_decode("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decode("%zz%4").as_deref(), Some("%zz%4"));
        assert_eq!(percent_decode("%C3%BC").as_deref(), Some("ü"));
    }

    #[test]
    fn inline_ids_are_percent_and_twelve_hex_digits() {
        let id = inline_id("hello");
        assert_eq!(id, "%2cf24dba5fb0");
    }

    #[test]
    fn ids_are_validated() {
        assert!(validate_id("plain-name").is_ok());
        assert!(validate_id("").is_err());
        assert!(validate_id("a\u{7}b").is_err());
        assert!(validate_id(&"x".repeat(1025)).is_err());
        assert!(validate_id(&"x".repeat(1024)).is_ok());
        assert!(validate_id("a@V{1}").is_err());
    }
}
