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
    started: Instant,
    last_draw: Instant,
    enabled: bool,
    drawn: bool,
}

/// `secs` as `1h02m`, `3m05s` or `42s`.
fn duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
    }
}

/// The bar's line: counts, percent, rate and the time left at that rate.
fn line(label: &str, done: u64, total: u64, elapsed: Duration) -> String {
    let percent = (done * 100).checked_div(total).unwrap_or(100);
    let secs = elapsed.as_secs_f64();
    let mut text = format!("{label}: {done}/{total} ({percent}%)");
    if secs >= 0.5 && done > 0 {
        let rate = done as f64 / secs;
        let left = (total.saturating_sub(done) as f64 / rate).round() as u64;
        text.push_str(&format!(", {rate:.0}/s, {} left", duration(left)));
    }
    text
}

impl Bar {
    /// A bar for `total` steps of `label`.
    pub fn new(label: &str, total: u64) -> Bar {
        let enabled = !is_quiet() && std::io::stderr().is_terminal() && total > 0;
        to_sink(label, 0, total);
        let now = Instant::now();
        Bar { label: label.to_owned(), total, done: 0, started: now, last_draw: now, enabled, drawn: false }
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
            let text = line(&self.label, self.done, self.total, self.started.elapsed());
            let _ = write!(std::io::stderr().lock(), "\r{text}\x1b[K");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_counts_rate_and_time_left() {
        assert_eq!(line("parsing", 0, 10, Duration::ZERO), "parsing: 0/10 (0%)");
        assert_eq!(line("parsing", 250, 1000, Duration::from_secs(5)), "parsing: 250/1000 (25%), 50/s, 15s left");
        assert_eq!(line("parsing", 10, 4000, Duration::from_secs(1)), "parsing: 10/4000 (0%), 10/s, 6m39s left");
        assert_eq!(duration(7322), "2h02m");
    }
}
