//! Sizes as people read them.

/// A size in bytes as people read it: 1.20 GB, 3.4 MB, 512 KB.
pub fn human_bytes(bytes: i64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} KB", b / 1e3)
    }
}
