//! Where a string is left in the rows of the store: summaries, tag
//! values, versions, parts and the operations log's details. Written once
//! for every database, in plain SQL (`Sql`).

use crate::error::Result;
use crate::plain::Sql;

/// Rows that hold a string.
pub trait Residue: Sql {
    /// One line a row holding `text` (`the summary of ID`, `a part of
    /// ID`, `log entry 12 of ID`), in a fixed order.
    fn rows_holding(&self, text: &str) -> Result<Vec<String>> {
        let pattern = format!("%{}%", like_escaped(text));
        let rows = self.query(
            "SELECT 'the summary of ' || id FROM notes WHERE summary LIKE ?1 ESCAPE '\\'
             UNION ALL
             SELECT 'a tag of ' || n.id FROM tags t JOIN notes n ON n.rid = t.note
              WHERE t.value LIKE ?1 ESCAPE '\\'
             UNION ALL
             SELECT 'a version of ' || n.id FROM versions v JOIN notes n ON n.rid = v.note
              WHERE v.summary LIKE ?1 ESCAPE '\\' OR v.tags LIKE ?1 ESCAPE '\\'
             UNION ALL
             SELECT 'a part of ' || n.id FROM parts p JOIN notes n ON n.rid = p.note
              WHERE p.summary LIKE ?1 ESCAPE '\\' OR p.tags LIKE ?1 ESCAPE '\\'
             UNION ALL
             SELECT 'log entry ' || CAST(seq AS TEXT) || ' of ' || note FROM operations
              WHERE detail LIKE ?1 ESCAPE '\\'",
            &[pattern.into()],
        )?;
        let mut lines: Vec<String> = rows
            .iter()
            .map(|row| row[0].text())
            .collect::<Result<_>>()?;
        lines.sort();
        lines.dedup();
        Ok(lines)
    }
}

impl<T: Sql + ?Sized> Residue for T {}

/// `text` with LIKE's wildcards and its escape taken literally.
fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
