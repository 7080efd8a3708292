//! Progress and notes on stderr: only when stderr is a terminal for bars, always for notes
//! unless quiet. stdout carries results and nothing else.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences notes and progress (for `--quiet`, MCP stdio and tests).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether notes are silenced.
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A one-line note on stderr, prefixed with the program's name.
pub fn note(message: &str) {
    if !is_quiet() {
        let _ = writeln!(std::io::stderr().lock(), "codecompass: {message}");
    }
}

type Sink = Box<dyn Fn(&str, u64, u64)>;

thread_local! {
    static SINK: std::cell::RefCell<Option<Sink>> = const { std::cell::RefCell::new(None) };
}

/// Runs `work` with `sink` receiving every progress step (`label`, done, total) made on this
/// thread: how the MCP server turns index progress into notifications.
pub fn with_sink<T>(sink: impl Fn(&str, u64, u64) + 'static, work: impl FnOnce() -> T) -> T {
    SINK.with_borrow_mut(|s| *s = Some(Box::new(sink)));
    let result = work();
    SINK.with_borrow_mut(|s| *s = None);
    result
}

fn to_sink(label: &str, done: u64, total: u64) {
    SINK.with_borrow(|s| {
        if let Some(sink) = s {
            sink(label, done, total);
        }
    });
}

/// A counter drawn on one stderr line, redrawn at most ten times a second, on a terminal only.
pub struct Bar {
    label: String,
    total: u64,
    done: u64,
    last_draw: Instant,
    enabled: bool,
    drawn: bool,
}

impl Bar {
    /// A bar for `total` steps of `label`.
    pub fn new(label: &str, total: u64) -> Bar {
        let enabled = !is_quiet() && std::io::stderr().is_terminal() && total > 0;
        to_sink(label, 0, total);
        Bar { label: label.to_owned(), total, done: 0, last_draw: Instant::now(), enabled, drawn: false }
    }

    /// Advances by `n` steps.
    pub fn inc(&mut self, n: u64) {
        self.done += n;
        let tick = self.last_draw.elapsed() > Duration::from_millis(100) || self.done == self.total;
        if !tick {
            return;
        }
        self.last_draw = Instant::now();
        to_sink(&self.label, self.done, self.total);
        if self.enabled {
            self.drawn = true;
            let percent = (self.done * 100).checked_div(self.total).unwrap_or(100);
            let _ =
                write!(std::io::stderr().lock(), "\r{}: {}/{} ({percent}%)\x1b[K", self.label, self.done, self.total);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if self.drawn {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
    }
}
