//! Telling prose from what is not: code, hex dumps, tables of numbers,
//! page furniture. A summary is made of prose only.

/// Whether `sentence` reads as prose: at least four words, mostly letters,
/// few of the characters code is made of, not mostly numbers or hex, and
/// with some lowercase words.
pub fn is_prose(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    if words.len() < 4 {
        return false;
    }
    let chars = sentence
        .chars()
        .filter(|c| !c.is_whitespace())
        .count()
        .max(1);
    let letters = sentence.chars().filter(|c| c.is_alphabetic()).count();
    let digits = sentence.chars().filter(|c| c.is_ascii_digit()).count();
    let code = sentence
        .chars()
        .filter(|c| {
            matches!(
                c,
                '{' | '}'
                    | ';'
                    | '='
                    | '<'
                    | '>'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '`'
                    | '\\'
                    | '|'
                    | '$'
                    | '_'
                    | '*'
                    | '/'
            )
        })
        .count();
    let hexish = words
        .iter()
        .filter(|w| {
            w.len() >= 2
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
        })
        .count();
    let plain_words = words
        .iter()
        .filter(|w| {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            core.len() >= 2
                && core.chars().all(|c| c.is_alphabetic())
                && core.chars().skip(1).all(char::is_lowercase)
        })
        .count();
    letters * 10 >= chars * 7
        && code * 100 <= chars * 6
        && digits * 4 <= chars
        && hexish * 4 < words.len()
        && plain_words * 2 >= words.len()
}

/// Whether a line of a document is prose text, not structure: not a
/// heading, a table row, a rule or a bare list of words.
pub fn is_text_line(line: &str) -> bool {
    let line = line.trim();
    !(line.is_empty()
        || line.starts_with('#')
        || line.starts_with('|')
        || line.starts_with("---")
        || line.starts_with("```"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_passes_and_code_dumps_and_tables_do_not() {
        for prose in [
            "Queries can access multiple tables at once, or the same table twice.",
            "SQLite is an in-process library that implements a SQL database engine.",
            "The functions in this chapter interact with Python objects regardless of their type.",
        ] {
            assert!(is_prose(prose), "{prose}");
        }
        for not in [
            "0000 4f 2a 9c 11 00 7e 3b 55 a0 ff 12 34",
            "1998 2001 2004 2007 2010 12.5 13.7 14.2",
            "int PyMapping_Check(PyObject *o);",
            "for (i = 0; i < n; i++) { sum += a[i]; }",
            "Small. Fast. Reliable.",
            "Content-type: text/html; charset=UTF-8",
            "Home | About | Download | License",
            "SYNOPSIS",
        ] {
            assert!(!is_prose(not), "{not}");
        }
    }
}
