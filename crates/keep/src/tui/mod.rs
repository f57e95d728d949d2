//! The full-screen browser: terminal set-up and restore, and the event
//! loop that feeds messages to `app::update`, hands effects to the runner
//! and draws with `view` when something changed.

pub mod app;
pub mod diff;
pub mod doc;
pub mod keys;
pub mod layout;
pub mod note;
pub mod query;
pub mod runner;
pub mod theme;
pub mod view;

#[cfg(test)]
mod tests;

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use app::{App, Effect, Msg, update};
use runner::{Opener, Runner};
use theme::Theme;

/// How often the status line's facts are refreshed.
const TICK: Duration = Duration::from_secs(2);

type Term = Terminal<CrosstermBackend<io::Stdout>>;

fn enter_screen() -> io::Result<()> {
    enable_raw_mode()?;
    crossterm::execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
}

fn leave_screen() {
    let _ = disable_raw_mode();
    let _ = crossterm::execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped: on quit, on error and on panic.
struct Screen;

impl Drop for Screen {
    fn drop(&mut self) {
        leave_screen();
    }
}

fn restore_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave_screen();
        previous(info);
    }));
}

/// What the browser takes from the resolved configuration.
#[derive(Debug, Clone)]
pub struct UiOptions {
    /// The editor command (`$VISUAL`, `$EDITOR`, else `vi`).
    pub editor: String,
    /// The pager command (`$PAGER`, else `less`).
    pub pager: String,
    /// What opens a file or URL (`$KEEP_OPENER`, else the platform's).
    pub opener: String,
    /// Where to append timings (`KEEP_UI_TRACE`), for the benchmark.
    pub trace: Option<std::path::PathBuf>,
}

/// Timings written to `KEEP_UI_TRACE`, for the benchmark.
struct Trace {
    out: Option<std::fs::File>,
    started: Instant,
    key_at: Option<Instant>,
    first_frame: bool,
}

impl Trace {
    fn new(started: Instant, path: Option<&std::path::Path>) -> Trace {
        let out = path.and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        Trace {
            out,
            started,
            key_at: None,
            first_frame: true,
        }
    }

    fn line(&mut self, text: String) {
        if let Some(out) = &mut self.out {
            let _ = writeln!(out, "{text}");
        }
    }

    fn drawn(&mut self, after: &Msg) {
        if self.out.is_none() {
            return;
        }
        let now = Instant::now();
        if std::mem::take(&mut self.first_frame) {
            let ms = now.duration_since(self.started).as_secs_f64() * 1e3;
            self.line(format!("first-frame-ms {ms:.2}"));
        }
        match after {
            Msg::Key(_) => {
                let us = self
                    .key_at
                    .map_or(0.0, |t| now.duration_since(t).as_secs_f64() * 1e6);
                self.line(format!("key-to-frame-us {us:.0}"));
            }
            Msg::Results { semantic, .. } => {
                let ms = self
                    .key_at
                    .map_or(0.0, |t| now.duration_since(t).as_secs_f64() * 1e3);
                self.line(format!("key-to-results-ms {ms:.2} semantic={semantic}"));
            }
            Msg::Page { .. } if self.key_at.is_none() => {
                let ms = now.duration_since(self.started).as_secs_f64() * 1e3;
                self.line(format!("first-page-ms {ms:.2}"));
            }
            _ => {}
        }
    }
}

/// Reads terminal events on a thread of its own; `paused` hands the
/// terminal to an editor.
fn read_events(tx: Sender<Msg>, paused: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        loop {
            if paused.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            match event::poll(Duration::from_millis(50)) {
                Ok(true) if !paused.load(Ordering::SeqCst) => {}
                Ok(_) => continue,
                Err(_) => return,
            }
            let msg = match event::read() {
                Ok(Event::Key(key)) => Msg::Key(key),
                Ok(Event::Mouse(mouse)) => Msg::Mouse(mouse),
                Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
}

/// Runs the browser until the user quits.
pub fn run(open: Arc<Opener>, theme: Theme, options: UiOptions) -> io::Result<()> {
    let started = Instant::now();
    restore_on_panic();
    enter_screen()?;
    let _screen = Screen;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let (tx, rx) = channel();
    let runner = Runner::spawn(open, tx.clone());
    let paused = Arc::new(AtomicBool::new(false));
    read_events(tx.clone(), paused.clone());

    let size = terminal.size()?;
    let mut app = App::new(size.width, size.height);
    let mut trace = Trace::new(started, options.trace.as_deref());
    for effect in app.start() {
        runner.send(effect);
    }
    terminal.draw(|f| view::view(&app, &theme, f))?;
    trace.drawn(&Msg::Tick);
    let mut next_tick = Instant::now() + TICK;
    loop {
        let wait = next_tick.saturating_duration_since(Instant::now());
        let msg = match rx.recv_timeout(wait) {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => {
                next_tick = Instant::now() + TICK;
                Msg::Tick
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if matches!(msg, Msg::Key(_)) {
            trace.key_at = Some(Instant::now());
        }
        let traced = msg.clone();
        for effect in update(&mut app, msg) {
            match effect {
                Effect::Quit => app.quit = true,
                Effect::Copy(text) => copy_to_clipboard(&text),
                Effect::Edit { id, text } => {
                    paused.store(true, Ordering::SeqCst);
                    let edited = edit_in_editor(&mut terminal, &text, &options.editor);
                    paused.store(false, Ordering::SeqCst);
                    let msg = match edited {
                        Ok(new) => Msg::Edited {
                            id,
                            text: (new.trim_end() != text.trim_end()).then_some(new),
                        },
                        Err(e) => Msg::Failed(format!("editor: {e}")),
                    };
                    let _ = tx.send(msg);
                }
                Effect::Pager(text) => {
                    paused.store(true, Ordering::SeqCst);
                    let shown = show_in_pager(&mut terminal, &text, &options.pager);
                    paused.store(false, Ordering::SeqCst);
                    if let Err(e) = shown {
                        let _ = tx.send(Msg::Failed(format!("pager: {e}")));
                    }
                    app.dirty = true;
                }
                Effect::Open(target) => open_detached(&options.opener, &target, tx.clone()),
                other => runner.send(other),
            }
        }
        if app.quit {
            break;
        }
        if std::mem::take(&mut app.dirty) {
            terminal.draw(|f| view::view(&app, &theme, f))?;
            trace.drawn(&traced);
        }
    }
    Ok(())
}

/// Hands the terminal to `$VISUAL` or `$EDITOR` (default `vi`) on a
/// temporary file holding `text`; returns what was saved. The file is
/// made anew (never through a link another user planted) in a folder of
/// the user's alone under a name nobody can guess, so what the editor
/// writes beside it (swap and backup files) is private too; both are
/// removed after.
fn edit_in_editor(terminal: &mut Term, text: &str, editor: &str) -> io::Result<String> {
    let folder = tempfile::Builder::new().prefix("keep-edit-").tempdir()?;
    let file = tempfile::Builder::new()
        .prefix("note-")
        .suffix(".md")
        .tempfile_in(folder.path())?;
    std::fs::write(file.path(), text)?;
    let path = file.path().to_path_buf();
    leave_screen();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("keep-edit")
        .arg(&path)
        .status();
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path),
        Ok(s) => Err(io::Error::other(format!("{editor} exited with {s}"))),
        Err(e) => Err(io::Error::other(format!("cannot start {editor}: {e}"))),
    };
    drop(file);
    drop(folder);
    enter_screen()?;
    terminal.clear()?;
    result
}

/// Hands the terminal to the pager, `text` on its standard input, and
/// takes it back when the pager exits.
fn show_in_pager(terminal: &mut Term, text: &str, pager: &str) -> io::Result<()> {
    leave_screen();
    let shown = (|| {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(pager)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::other(format!("cannot start {pager}: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A pager that quits before reading everything closes the pipe.
            let _ = stdin.write_all(text.as_bytes());
        }
        let status = child.wait()?;
        match status.code() {
            Some(0) | None => Ok(()),
            Some(127) => Err(io::Error::other(format!("cannot start {pager}"))),
            Some(_) => Err(io::Error::other(format!("{pager} exited with {status}"))),
        }
    })();
    enter_screen()?;
    terminal.clear()?;
    shown
}

/// Starts the opener on `target` without waiting for it (a viewer or a
/// browser keeps running after the browser moves on); a failure to start,
/// or an opener that gives up, is reported when it happens.
fn open_detached(opener: &str, target: &str, tx: Sender<Msg>) {
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{opener} \"$1\""))
        .arg("keep-open")
        .arg(target)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let opener = opener.to_string();
    match child {
        Ok(mut child) => {
            std::thread::spawn(move || {
                let failed = match child.wait() {
                    Ok(status) if status.success() => return,
                    Ok(status) if status.code() == Some(127) => format!("cannot start {opener}"),
                    Ok(status) => format!("{opener} failed ({status})"),
                    Err(e) => format!("{opener}: {e}"),
                };
                let _ = tx.send(Msg::Failed(failed));
            });
        }
        Err(e) => {
            let _ = tx.send(Msg::Failed(format!("cannot start {opener}: {e}")));
        }
    }
}

/// Puts `text` on the clipboard through the terminal (OSC 52), which
/// works over SSH and inside tmux with `set-clipboard on`.
fn copy_to_clipboard(text: &str) {
    let mut out = io::stdout();
    let _ = write!(out, "\x1b]52;c;{}\x07", base64(text.as_bytes()));
    let _ = out.flush();
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
