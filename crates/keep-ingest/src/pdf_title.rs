//! A PDF's title read from its first page as a reader sees it: the text set
//! in the largest type, for documents whose information dictionary has no
//! title or a meaningless one ("untitled", "Microsoft Word - x.doc").

use pdf_extract::{Document as PdfDoc, MediaBox, OutputDev, OutputError, Transform};

/// Text within this share of the largest size counts as set in it.
const SAME_SIZE: f64 = 0.92;
/// The largest type must be this much bigger than the page's body text.
const DISPLAY_RATIO: f64 = 1.25;
/// Longest title taken.
const MAX_TITLE_CHARS: usize = 160;
/// Characters read from the first page at most.
const MAX_CHARS: usize = 20_000;

/// The text of the first page with text set in its largest type, when that
/// type stands out from the body; None otherwise.
pub fn largest_text(pdf: &PdfDoc) -> Option<String> {
    let mut page = Glyphs::default();
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pdf_extract::output_doc_page(pdf, &mut page, 1)
    }));
    if !matches!(read, Ok(Ok(()))) && page.glyphs.is_empty() {
        return None;
    }
    page.title()
}

/// Whether a title from the information dictionary says nothing about the
/// document: a placeholder, a file name, a word processor's label.
pub fn is_meaningless(title: &str) -> bool {
    let t = title.trim().to_lowercase();
    const PLACEHOLDERS: [&str; 6] = [
        "untitled", "title", "document", "no title", "none", "slide 1",
    ];
    const FILE_ENDINGS: [&str; 8] = [
        ".doc", ".docx", ".dvi", ".tex", ".pdf", ".ps", ".odt", ".rtf",
    ];
    t.chars().filter(|c| c.is_alphabetic()).count() < 2
        || PLACEHOLDERS.contains(&t.as_str())
        || t.starts_with("microsoft word - ")
        || t.starts_with("microsoft powerpoint - ")
        || FILE_ENDINGS.iter().any(|e| t.ends_with(e))
}

/// A character as set on the page.
struct Glyph {
    size: f64,
    baseline: f64,
    /// Where it starts and ends along the line.
    x: f64,
    end: f64,
    text: String,
}

#[derive(Default)]
struct Glyphs {
    /// The page's characters in the order they are drawn.
    glyphs: Vec<Glyph>,
}

impl Glyphs {
    fn title(&self) -> Option<String> {
        let largest = self.glyphs.iter().map(|g| g.size).fold(0.0, f64::max);
        if largest <= 0.0 {
            return None;
        }
        let body = self.body_size()?;
        if largest < body * DISPLAY_RATIO {
            return None;
        }
        let mut title = String::new();
        let mut last: Option<&Glyph> = None;
        let mut gap = false;
        for g in &self.glyphs {
            if g.size < largest * SAME_SIZE {
                gap = !title.is_empty();
                continue;
            }
            if let Some(prev) = last {
                let new_line = (prev.baseline - g.baseline).abs() > largest * 0.5;
                if gap && (prev.baseline - g.baseline).abs() > largest * 3.0 {
                    break;
                }
                if new_line || g.x > prev.end + g.size * 0.1 || g.x < prev.x {
                    title.push(' ');
                }
            }
            title.push_str(&g.text);
            last = Some(g);
            gap = false;
        }
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let letters = title.chars().filter(|c| c.is_alphabetic()).count();
        (letters >= 3 && title.chars().count() <= MAX_TITLE_CHARS).then_some(title)
    }

    /// The size most characters are set in.
    fn body_size(&self) -> Option<f64> {
        let mut counts: Vec<(i64, usize)> = Vec::new();
        for g in &self.glyphs {
            let key = (g.size * 10.0).round() as i64;
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(_, n)| n)
            .map(|(k, _)| k as f64 / 10.0)
    }
}

impl OutputDev for Glyphs {
    fn begin_page(
        &mut self,
        _: u32,
        _: &MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        Ok(())
    }
    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        let size = font_size * (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        if self.glyphs.len() < MAX_CHARS && size.is_finite() && !char.trim().is_empty() {
            self.glyphs.push(Glyph {
                size,
                baseline: trm.m32,
                x: trm.m31,
                end: trm.m31 + width * size,
                text: char.to_string(),
            });
        }
        Ok(())
    }
    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_file_names_are_not_titles() {
        for junk in [
            "untitled",
            "Microsoft Word - report.doc",
            "paper.dvi",
            "  ",
            "1234",
        ] {
            assert!(is_meaningless(junk), "{junk}");
        }
        assert!(!is_meaningless("Shared MIME-info Database"));
    }
}
