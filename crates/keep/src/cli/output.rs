//! Where the command line prints: stdout, buffered, as text, JSON or bare
//! ids. Colour only on a terminal and never with NO_COLOR.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};

use keep_core::keeper::NoteView;
use keep_core::model::Note;
use serde::Serialize;

use crate::render::text::{self, Painter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    bars: Bars,
    /// The kind of the first per-argument failure reported, for a front
    /// end that answers by kind (the JSON API's status).
    failure: Option<keep_core::Kind>,
}

/// Where progress bars are drawn.
#[derive(Clone)]
pub enum Bars {
    Hidden,
    /// This process's stderr, a terminal.
    Stderr,
    /// The terminal of another process, through `sink`.
    Sent {
        sink: SharedSink,
        width: u16,
    },
}

/// A writer several owners share.
pub type SharedSink = Arc<Mutex<dyn Write + Send>>;

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
            bars: if io::stderr().is_terminal() {
                Bars::Stderr
            } else {
                Bars::Hidden
            },
            failure: None,
        }
    }

    /// An `Out` whose output and notices are kept for another process.
    pub fn captured(color: bool) -> (Self, Captured, Captured) {
        let (out, err) = (Captured::default(), Captured::default());
        let this = Out::to(
            Box::new(out.clone()),
            Box::new(err.clone()),
            color,
            Bars::Hidden,
        );
        (this, out, err)
    }

    /// An `Out` printing to `out` and `err`, drawing bars on `bars`.
    pub fn to(
        out: Box<dyn Write + Send>,
        err: Box<dyn Write + Send>,
        color: bool,
        bars: Bars,
    ) -> Self {
        Out {
            w: BufWriter::new(out),
            err,
            color,
            bars,
            failure: None,
        }
    }

    /// Records the kind of a per-argument failure (the first one stays).
    pub fn failed(&mut self, kind: keep_core::Kind) {
        self.failure.get_or_insert(kind);
    }

    /// The kind of the first per-argument failure, if any.
    pub fn failure(&self) -> Option<keep_core::Kind> {
        self.failure
    }

    /// Where this output draws progress bars.
    pub fn bars(&self) -> Bars {
        self.bars.clone()
    }

    pub fn color(&self) -> bool {
        self.color
    }

    /// `keep: TEXT` on stderr (or where this `Out` keeps its notices).
    pub fn warn(&mut self, text: &str) {
        let _ = writeln!(self.err, "keep: {}", text::inert(text));
    }

    /// A notice of the core, with what would put it right, on stderr.
    pub fn notice(&mut self, notice: &keep_core::Notice) {
        self.warn(&crate::render::advice::notice_for_terminal(notice));
    }

    /// A line on stderr as it is, for reports that are not warnings.
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.err, "{}", text::inert(text));
    }

    /// A line of text output, made inert for a terminal (`text::inert`).
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.w, "{}", text::inert(text))
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
        writeln!(self.w, "{}", text::inert(&line))
    }

    /// The frontmatter view used by `get` and `now`.
    pub fn note_view(&mut self, view: &NoteView) -> io::Result<()> {
        let text = text::inert(&text::view_text(view, self.color));
        self.w.write_all(text.as_bytes())
    }
}

/// A bar drawn once work tells its first step and how many there are
/// (the core's `progress(done, total)` callbacks).
pub struct Counting {
    bars: Bars,
    bar: indicatif::ProgressBar,
    message: &'static str,
}

impl Counting {
    /// Step `done` of `total`; step 0 draws the bar.
    pub fn step(&mut self, done: usize, total: usize) {
        if done == 0 {
            self.bar = self.bars.bar(total);
            self.bar.set_message(self.message);
        }
        self.bar.set_position(done as u64);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Bars {
    /// A bar saying `message` for work that tells its steps as it goes.
    pub fn counting(&self, message: &'static str) -> Counting {
        Counting {
            bars: self.clone(),
            bar: indicatif::ProgressBar::hidden(),
            message,
        }
    }

    /// A bar for `total` steps: done / total, rate, time left, a message.
    /// Hidden when there is no terminal to draw on, or for fewer than two
    /// steps.
    pub fn bar(&self, total: usize) -> indicatif::ProgressBar {
        use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
        let target = match self {
            _ if total < 2 => return ProgressBar::hidden(),
            Bars::Hidden => return ProgressBar::hidden(),
            Bars::Stderr => ProgressDrawTarget::stderr(),
            Bars::Sent { sink, width } => ProgressDrawTarget::term_like(Box::new(SentTerminal {
                sink: Arc::clone(sink),
                width: *width,
            })),
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len}  {per_sec:1}  {eta} left  {wide_msg}",
            )
            .expect("valid template"),
        );
        bar
    }
}

/// Another process's terminal, written to as escape sequences.
struct SentTerminal {
    sink: SharedSink,
    width: u16,
}

impl std::fmt::Debug for SentTerminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SentTerminal({} columns)", self.width)
    }
}

impl SentTerminal {
    fn send(&self, text: &str) -> io::Result<()> {
        self.sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(text.as_bytes())
    }

    fn moved(&self, n: usize, code: char) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.send(&format!("\x1b[{n}{code}"))
    }
}

impl indicatif::TermLike for SentTerminal {
    fn width(&self) -> u16 {
        self.width
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        self.moved(n, 'A')
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        self.moved(n, 'B')
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        self.moved(n, 'C')
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        self.moved(n, 'D')
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.send(&format!("{s}\n"))
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.send(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        self.send("\r\x1b[2K")
    }

    fn flush(&self) -> io::Result<()> {
        self.sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .flush()
    }
}
