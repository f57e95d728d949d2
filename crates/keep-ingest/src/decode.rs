//! Bytes made readable before a format is chosen: gzip unpacked (within a
//! bound, so a bomb is refused), and text that is not UTF-8 decoded from
//! the encoding it declares (an HTML `charset`) or, failing that, from
//! Windows-1252, the superset of ISO-8859-1 that old documentation uses.
//! Bytes that do not read as text in any of these stay as they are.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes a compressed file may unpack to.
pub const MAX_UNPACKED: u64 = 64 * 1024 * 1024;

/// Whether `bytes` are gzip.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1F, 0x8B])
}

/// The unpacked bytes of a gzip file, or why they cannot be had.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(MAX_UNPACKED + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("is a damaged gzip file ({e})"))?;
    if out.len() as u64 > MAX_UNPACKED {
        return Err(format!(
            "unpacks to more than {} MB (a gzip bomb?)",
            MAX_UNPACKED / (1024 * 1024)
        ));
    }
    Ok(out)
}

/// The path a gzip file's content had: `apropos.1.gz` -> `apropos.1`.
pub fn unpacked_path(path: Option<&Path>) -> Option<PathBuf> {
    let path = path?;
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("gz") => Some(path.with_extension("")),
        _ => Some(path.to_path_buf()),
    }
}

/// `bytes` as text when they are not UTF-8 but read as text in a legacy
/// encoding: no NUL bytes, few control characters. None for UTF-8 (which
/// needs no decoding) and for binary data.
pub fn legacy_text(bytes: &[u8]) -> Option<String> {
    if std::str::from_utf8(bytes).is_ok() || !reads_as_legacy_text(bytes) {
        return None;
    }
    let encoding = declared_charset(bytes).unwrap_or(encoding_rs::WINDOWS_1252);
    let (text, _, _) = encoding.decode(bytes);
    Some(text.into_owned())
}

/// No NUL, at most one control character in a thousand (tab, line breaks
/// and form feed aside), and most bytes ASCII.
fn reads_as_legacy_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C))
        .count();
    let high = head.iter().filter(|&&b| b >= 0x80).count();
    controls * 1000 <= head.len() && high * 3 <= head.len()
}

/// The encoding an HTML or XML head declares (`charset=...`,
/// `encoding="..."`), if encoding_rs knows its label.
fn declared_charset(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).to_ascii_lowercase();
    ["charset=", "encoding="].iter().find_map(|key| {
        let at = head.find(key)? + key.len();
        let label: String = head[at..]
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
            .collect();
        encoding_rs::Encoding::for_label(label.as_bytes())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_1_and_windows_1252_read_as_text_and_binary_does_not() {
        let latin =
            b"<html><head><meta charset=\"iso-8859-1\"></head><body>Caf\xe9 cr\xe8me</body></html>";
        assert!(legacy_text(latin).unwrap().contains("Café crème"));
        let cp1252 = b"It\x92s \x93quoted\x94 \x96 and plain.";
        assert_eq!(legacy_text(cp1252).unwrap(), "It’s “quoted” – and plain.");
        assert_eq!(legacy_text("already UTF-8: café".as_bytes()), None);
        assert_eq!(legacy_text(b"\x00\x01\x02\xff\xfe binary"), None);
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i * 7919 % 251) as u8 | 0x80)
            .collect();
        assert_eq!(legacy_text(&noise), None, "mostly high bytes is not text");
    }

    #[test]
    fn gzip_unpacks_within_its_bound() {
        use flate2::{Compression, write::GzEncoder};
        use std::io::Write;
        let mut packed = GzEncoder::new(Vec::new(), Compression::default());
        packed
            .write_all(b"Bash is an sh-compatible shell.")
            .unwrap();
        let packed = packed.finish().unwrap();
        assert!(is_gzip(&packed));
        assert_eq!(gunzip(&packed).unwrap(), b"Bash is an sh-compatible shell.");
        let mut bomb = GzEncoder::new(Vec::new(), Compression::best());
        let zeros = vec![b'a'; 1 << 20];
        for _ in 0..65 {
            bomb.write_all(&zeros).unwrap();
        }
        let bomb = bomb.finish().unwrap();
        assert!(gunzip(&bomb).unwrap_err().contains("gzip bomb"));
        assert!(
            gunzip(&packed[..packed.len() / 2])
                .unwrap_err()
                .contains("damaged gzip")
        );
        assert_eq!(
            unpacked_path(Some(Path::new("/usr/share/man/man1/apropos.1.gz"))),
            Some(PathBuf::from("/usr/share/man/man1/apropos.1"))
        );
    }
}
