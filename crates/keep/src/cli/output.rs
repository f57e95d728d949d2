//! Where the command line prints: stdout, buffered, as text, JSON or bare
//! ids. Colour only on a terminal and never with NO_COLOR.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use keep_core::keeper::NoteView;
use keep_core::model::Note;
use serde::Serialize;

use crate::render::text::{self, Painter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Ids,
}

pub struct Out {
    w: BufWriter<Box<dyn Write + Send>>,
    /// Where notices and per-argument errors go.
    err: Box<dyn Write + Send>,
    color: bool,
}

/// Bytes written to a captured `Out`, shared with whoever reads them.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Out {
    /// Stdout; colour when it is a terminal and `no_color` is not set.
    pub fn stdout(no_color: bool) -> Self {
        let stdout = io::stdout();
        let color = stdout.is_terminal() && !no_color;
        Out {
            w: BufWriter::new(Box::new(stdout)),
            err: Box::new(io::stderr()),
            color,
        }
    }

    /// An `Out` whose output and notices are kept for another process.
    pub fn captured(color: bool) -> (Self, Captured, Captured) {
        let (out, err) = (Captured::default(), Captured::default());
        let this = Out {
            w: BufWriter::new(Box::new(out.clone())),
            err: Box::new(err.clone()),
            color,
        };
        (this, out, err)
    }

    pub fn color(&self) -> bool {
        self.color
    }

    /// `keep: TEXT` on stderr (or where this `Out` keeps its notices).
    pub fn warn(&mut self, text: &str) {
        let _ = writeln!(self.err, "keep: {text}");
    }

    pub fn line(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.w, "{text}")
    }

    pub fn raw(&mut self) -> &mut dyn Write {
        &mut self.w
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// Any value with a JSON form, pretty-printed.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.w, value)?;
        writeln!(self.w)
    }

    fn painter(&self) -> Painter {
        Painter { color: self.color }
    }

    /// `ID  DATE  first line` (with a score, and a remark, when given).
    pub fn note_line(&mut self, note: &Note, score: Option<f64>, remark: &str) -> io::Result<()> {
        let line = text::note_line(note, score, remark, self.painter());
        writeln!(self.w, "{line}")
    }

    /// The frontmatter view used by `get` and `now`.
    pub fn note_view(&mut self, view: &NoteView) -> io::Result<()> {
        let text = text::view_text(view, self.color);
        self.w.write_all(text.as_bytes())
    }
}

/// A progress bar on stderr when it is a terminal (hidden otherwise, and
/// for fewer than two steps): done / total, rate, time left, a message.
pub fn progress_bar(total: usize) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    if !io::stderr().is_terminal() || total < 2 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len}  {per_sec:1}  {eta} left  {wide_msg}")
            .expect("valid template"),
    );
    bar
}
