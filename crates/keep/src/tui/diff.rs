//! A word diff of two summaries, for showing an archived version against
//! the current one.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change<'a> {
    Same(&'a str),
    /// In the newer text only.
    Added(&'a str),
    /// In the older text only.
    Removed(&'a str),
}

/// Beyond this many words on a side, the texts are shown as one removal
/// and one addition instead of being aligned word by word.
const MAX_WORDS: usize = 3000;

/// Word-level differences from `old` to `new` (longest common subsequence).
pub fn words<'a>(old: &'a str, new: &'a str) -> Vec<Change<'a>> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    if a.len() > MAX_WORDS || b.len() > MAX_WORDS {
        let mut out: Vec<Change> = a.into_iter().map(Change::Removed).collect();
        out.extend(b.into_iter().map(Change::Added));
        return out;
    }
    // lcs[i][j]: common length of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * width + j] = if a[i] == b[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push(Change::Same(a[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            out.push(Change::Removed(a[i]));
            i += 1;
        } else {
            out.push(Change::Added(b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|w| Change::Removed(w)));
    out.extend(b[j..].iter().map(|w| Change::Added(w)));
    out
}

#[cfg(test)]
mod tests {
    use super::{Change, words};

    #[test]
    fn marks_replaced_and_added_words() {
        let diff = words("the cat sat", "the dog sat down");
        assert_eq!(
            diff,
            vec![
                Change::Same("the"),
                Change::Removed("cat"),
                Change::Added("dog"),
                Change::Same("sat"),
                Change::Added("down"),
            ]
        );
    }

    #[test]
    fn identical_texts_have_no_changes() {
        assert!(
            words("a b c", "a  b\nc")
                .iter()
                .all(|c| matches!(c, Change::Same(_)))
        );
    }
}
