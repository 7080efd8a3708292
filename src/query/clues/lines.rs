//! Pass 2 of [`extract`](super::extract): each line read as a stack frame, an exception or
//! error line, a version banner, noise, or prose.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Lines that say nothing a search can use: trace headers, elisions and markers.
pub(super) static NOISE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?x)^\s*(?:
        Traceback\ \(most\ recent\ call\ last\):?
        | During\ handling\ of\ the\ above\ exception,\ another\ exception\ occurred:?
        | The\ above\ exception\ was\ the\ direct\ cause\ of\ the\ following\ exception:?
        | stack\ backtrace:
        | note:\ run\ with\ `?RUST_BACKTRACE=.*
        | note:\ Some\ details\ are\ omitted.*
        | goroutine\ [0-9]+\ \[[^\]]*\]:?
        | \.\.\.\ [0-9]+\ (?:more|common\ frames\ omitted)
        | exit\ status\ [0-9]+
        | \[signal\ [^\]]*\]
        | [~^]+
        | Process\ finished\ with\ exit\ code\ -?[0-9]+
        | ={3,}.*={3,}
        | (?:rootdir|cachedir|configfile|testpaths|plugins):\ .*
        | collected\ [0-9]+\ items?.*
    )\s*$")
});

/// A source excerpt in a compiler or linter report (`24 |     let x = load(path)?;`) or a
/// note under it (`   |     ^^^ value moved here`).
pub(super) static GUTTER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*([0-9]*)\s+\|(.*)$"));
pub(super) static PYTHON_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s*File "([^"]+)", line ([0-9]+)(?:, in (\S.*?))?\s*$"#));
pub(super) static PYTHON_EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([A-Za-z_][A-Za-z0-9_.]*)(?::\s*(.*?))?\s*$"));
pub(super) static RUST_PANIC_OLD: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s*thread '[^']*' panicked at (?:'(.*)'|"(.*)"), (\S+?):(\d+)(?::\d+)?\s*$"#));
pub(super) static RUST_PANIC_NEW: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*thread '[^']*' panicked at (\S+?):([0-9]+)(?::[0-9]+)?:?\s*$"));
pub(super) static RUST_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*[0-9]+:\s+(?:0x[0-9a-fA-F]+ - )?(\S.*?)\s*$"));
pub(super) static RUST_AT: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+at\s+(\S.*?):([0-9]+)(?::[0-9]+)?\s*$"));
pub(super) static RUST_HASH: LazyLock<Regex> = LazyLock::new(|| re(r"::h[0-9a-f]{16}$"));
pub(super) static GO_LOCATION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+(\S+\.(?:go|s)):([0-9]+)(?:\s+\+0x[0-9a-fA-F]+)?\s*$"));
pub(super) static GO_SUFFIX: LazyLock<Regex> = LazyLock::new(|| re(r"\s+in goroutine [0-9]+\s*$"));
pub(super) static JVM_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*at\s+(?:[A-Za-z0-9_$.@-]*/)*([A-Za-z0-9_$.<>-]+)\(([^()]*)\)(?:\s*~?\[[^\]]*\])?\s*$"));
pub(super) static JVM_SOURCE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([A-Za-z0-9_$.-]+\.(java|kt|kts|scala|groovy|clj|cljc))(?::([0-9]+))?$"));
pub(super) static CSHARP_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*at\s+([A-Za-z0-9_.`<>$\[\],|+]+?)\(([^()]*)\)(?:\s+in\s+(.+?):line\s+([0-9]+))?\s*$"));
pub(super) static JS_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*at\s+(?:async\s+)?(?:new\s+)?(\S.*?)\s+\((.*)\)\s*$"));
pub(super) static JS_BARE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*at\s+(?:async\s+)?(\S+?):([0-9]+)(?::[0-9]+)?\s*$"));
pub(super) static JS_FIREFOX: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*([A-Za-z0-9_$.<>/\[\]*-]*)@(\S*/\S*?):([0-9]+)(?::[0-9]+)?\s*$"));
pub(super) static LOCATION: LazyLock<Regex> = LazyLock::new(|| re(r"^(.*?):([0-9]+)(?::[0-9]+)?$"));
pub(super) static RUBY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:from\s+)?(\S+?\.rb):([0-9]+):in\s+[`'‘]([^'’]+)['’](?::\s*(.*?))?\s*$"));
pub(super) static RUBY_MESSAGE: LazyLock<Regex> = LazyLock::new(|| re(r"^(.*?)\s+\(([A-Z][A-Za-z0-9_:]*)\)$"));
pub(super) static PHP_FRAME: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*#[0-9]+\s+(\S+?)\(([0-9]+)\):\s+(\S.*?)\s*$"));
pub(super) static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"(?x)^\s*(?:E\s+)?
        (?:Uncaught\s+(?:exception\s+)?|Caused\ by:\s*|Suppressed:\s*|Exception\ in\ thread\ "[^"]*"\s+
          |Unhandled\ exception\.\s*|Fatal\ error:\s*Uncaught\s+)?
        ((?:[A-Za-z_][A-Za-z0-9_$]*(?:\.|::|\$))*[A-Za-z_][A-Za-z0-9_$]*
          (?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault|Throwable|Iteration|Timeout|Rejection|Panic))
        (?::\s*(.*?))?\s*$"#)
});
pub(super) static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*\[?(?:error|Error|ERROR|fatal|Fatal|FATAL|panic|PANIC|critical|CRITICAL|Exception)(?:\[[A-Za-z0-9_-]+\])?\]?\s*:\s*(\S.*)$",
    )
});
pub(super) static PYTHON_LOGGING: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:ERROR|CRITICAL|FATAL):[A-Za-z0-9_.]+:(\S.*)$"));
pub(super) static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*(?:(?:\S*[0-9]\S*|\[[^\]]*\])\s+){0,4}\[?(?:ERROR|FATAL|CRITICAL|PANIC|SEVERE)\]?:?\s+(\S.*)$")
});
pub(super) static LOGGER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\[[^\]]*\]\s*)*(?:[A-Za-z0-9_$]+(?:(?:\.|::)[A-Za-z0-9_$]+)+\s*(?::|\s-)\s+)?"));

/// The second pass: reads each line and fills a [`Collector`].
pub(super) struct Reader<'a> {
    pub(super) lines: &'a [&'a str],
    pub(super) kinds: &'a [Kind],
    pub(super) out: Collector,
    /// Inside a Python traceback: the next line at column 0 is the exception.
    pub(super) python: bool,
}

impl Reader<'_> {
    /// Reads line `i`; returns how many lines it took (a frame may take the next one too).
    pub(super) fn line(&mut self, i: usize) -> usize {
        let line = self.lines[i];
        let code = match self.kinds[i] {
            Kind::Marker => return 1,
            Kind::Code => true,
            Kind::Prose => false,
        };
        if line.trim().is_empty() {
            self.python = false;
            return 1;
        }
        if NOISE.is_match(line) {
            if line.contains("most recent call last") {
                self.python = true;
            }
            return 1;
        }
        let next = match self.kinds.get(i + 1) {
            Some(Kind::Marker) | None => None,
            Some(_) => Some(self.lines[i + 1]),
        };
        if let Some(taken) = self.python_frame(line, next) {
            return taken;
        }
        if self.python {
            if line.starts_with([' ', '\t']) {
                self.out.scan(line, Ctx::Block, true);
                return 1;
            }
            self.python = false;
            if let Some(cap) = caps(&PYTHON_EXCEPTION, line) {
                self.out.exception(&cap[1], cap.get(2).map(|m| m.as_str()));
                return 1;
            }
        }
        if let Some(taken) = self.rust_panic(line, next).or_else(|| self.rust_frame(line, next)) {
            return taken;
        }
        if let Some(taken) = self.go_frame(line, next) {
            return taken;
        }
        if self.jvm_frame(line)
            || self.csharp_frame(line)
            || self.js_frame(line)
            || self.ruby_frame(line)
            || self.php_frame(line)
            || self.exception_line(line)
            || self.error_line(line)
            || is_banner(line)
        {
            return 1;
        }
        if let Some(cap) = caps(&GUTTER, line) {
            // A numbered line is source; an unnumbered one holds the compiler's notes.
            let ctx = if cap[1].is_empty() { Ctx::Prose } else { Ctx::Block };
            self.out.scan(cap.get(2).map_or("", |m| m.as_str()), ctx, true);
            return 1;
        }
        self.out.scan(line, if code { Ctx::Block } else { Ctx::Prose }, true);
        1
    }

    /// `File "x.py", line 3, in f`, and the source line printed under it.
    pub(super) fn python_frame(&mut self, line: &str, next: Option<&str>) -> Option<usize> {
        if !line.contains("File \"") {
            return None;
        }
        let cap = caps(&PYTHON_FRAME, line)?;
        let path = &cap[1];
        let pseudo = path.starts_with('<') && path.ends_with('>');
        self.out.frame("python", (!pseudo).then_some(path), number(&cap[2]), cap.get(3).map(|m| m.as_str()));
        self.python = true;
        if let Some(source) = next
            && indent_width(source) > indent_width(line)
            && !source.trim().is_empty()
            && !PYTHON_FRAME.is_match(source)
        {
            self.out.scan(source, Ctx::Block, true);
            return Some(2);
        }
        Some(1)
    }

    /// `thread 'main' panicked at src/main.rs:10:5:` with the message on the next line, or the
    /// old `thread 'main' panicked at 'message', src/lib.rs:7:9`.
    pub(super) fn rust_panic(&mut self, line: &str, next: Option<&str>) -> Option<usize> {
        if !line.contains("panicked at") {
            return None;
        }
        if let Some(cap) = caps(&RUST_PANIC_OLD, line) {
            self.out.frame("rust", Some(&cap[3]), number(&cap[4]), None);
            let message = cap.get(1).or_else(|| cap.get(2)).map_or("", |m| m.as_str());
            self.out.message_with_clues(message);
            return Some(1);
        }
        let cap = caps(&RUST_PANIC_NEW, line)?;
        self.out.frame("rust", Some(&cap[1]), number(&cap[2]), None);
        match next {
            Some(message) if !message.trim().is_empty() && !NOISE.is_match(message) => {
                self.out.message_with_clues(message.trim());
                Some(2)
            }
            _ => Some(1),
        }
    }

    /// `   3: mycrate::config::load` with `at ./src/config.rs:12:5` on the next line.
    pub(super) fn rust_frame(&mut self, line: &str, next: Option<&str>) -> Option<usize> {
        if !line.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let cap = caps(&RUST_FRAME, line)?;
        let name = RUST_HASH.replace(&cap[1], "");
        if !top_level_has_no_space(&name) {
            return None;
        }
        let at = next.and_then(|n| caps(&RUST_AT, n));
        if at.is_none() && !name.contains("::") {
            return None;
        }
        if let Some(at) = at {
            self.out.frame("rust", Some(&at[1]), number(&at[2]), Some(&name));
            return Some(2);
        }
        self.out.frame("rust", None, None, Some(&name));
        Some(1)
    }

    /// `pkg.(*Server).Serve(0xc000010000)` with `\t/home/u/y/pkg/server.go:123 +0x1d` next.
    pub(super) fn go_frame(&mut self, line: &str, next: Option<&str>) -> Option<usize> {
        let next = next?;
        if line.starts_with([' ', '\t']) || !(next.contains(".go:") || next.contains(".s:")) {
            return None;
        }
        let at = caps(&GO_LOCATION, next)?;
        let name = line.trim();
        let name = name.strip_prefix("created by ").unwrap_or(name);
        let name = GO_SUFFIX.replace(name, "");
        let name = without_arguments(&name);
        if !name.contains('.') || name.contains(char::is_whitespace) {
            return None;
        }
        self.out.frame("go", Some(&at[1]), number(&at[2]), Some(name));
        Some(2)
    }

    /// `at com.example.Service.handle(Service.java:42)`.
    pub(super) fn jvm_frame(&mut self, line: &str) -> bool {
        if !starts_with_at(line) {
            return false;
        }
        let Some(cap) = caps(&JVM_FRAME, line) else { return false };
        let (function, inside) = (&cap[1], cap[2].trim());
        if !function.contains('.') {
            return false;
        }
        let (language, path, line_no) = if let Some(src) = caps(&JVM_SOURCE, inside) {
            let language = match &src[2] {
                "kt" | "kts" => "kotlin",
                "scala" => "scala",
                _ => "java",
            };
            (language, Some(src.get(1).map_or("", |m| m.as_str())), src.get(3).and_then(|m| number(m.as_str())))
        } else if matches!(inside, "Native Method" | "Unknown Source" | "Compiled Code" | "Unknown")
            || inside.starts_with("SourceFile")
        {
            ("java", None, None)
        } else {
            return false;
        };
        self.out.frame(language, path, line_no, Some(function));
        true
    }

    /// `at App.Program.Main(String[] args) in C:\src\Program.cs:line 12`.
    pub(super) fn csharp_frame(&mut self, line: &str) -> bool {
        if !starts_with_at(line) {
            return false;
        }
        let Some(cap) = caps(&CSHARP_FRAME, line) else { return false };
        if !cap[1].contains('.') {
            return false;
        }
        let path = cap.get(3).map(|m| m.as_str());
        self.out.frame("csharp", path, cap.get(4).and_then(|m| number(m.as_str())), Some(&cap[1]));
        true
    }

    /// Node's `at parseArgs (/app/src/cli.js:10:5)` and `at /app/src/index.ts:3:1`, and the
    /// `parseArgs@http://host/cli.js:10:5` of Firefox and Safari.
    pub(super) fn js_frame(&mut self, line: &str) -> bool {
        let at = starts_with_at(line);
        if !at && !line.contains('@') {
            return false;
        }
        if let Some(cap) = caps(&JS_FRAME, line).filter(|_| at) {
            let (function, location) = (&cap[1], &cap[2]);
            let (path, line_no) = match caps(&LOCATION, location) {
                Some(loc) => (Some(strip_file_scheme(loc.get(1).map_or("", |m| m.as_str()))), number(&loc[2])),
                None => (None, None),
            };
            self.out.frame(script_language(path.unwrap_or("")), path, line_no, Some(function));
            return true;
        }
        if let Some(cap) = caps(&JS_BARE, line).filter(|_| at) {
            let path = strip_file_scheme(cap.get(1).map_or("", |m| m.as_str()));
            if !path.contains(['/', '\\', '.']) {
                return false;
            }
            let rust = std::path::Path::new(path).extension().is_some_and(|e| e.eq_ignore_ascii_case("rs"));
            let language = if rust { "rust" } else { script_language(path) };
            self.out.frame(language, Some(path), number(&cap[2]), None);
            return true;
        }
        let Some(cap) = caps(&JS_FIREFOX, line) else { return false };
        let function = Some(&cap[1]).filter(|f| !f.is_empty());
        let path = cap.get(2).map_or("", |m| m.as_str());
        self.out.frame(script_language(path), Some(path), number(&cap[3]), function);
        true
    }

    /// `app/models/user.rb:42:in 'validate'`, with the message Ruby prints on the first frame.
    pub(super) fn ruby_frame(&mut self, line: &str) -> bool {
        if !line.contains(".rb:") {
            return false;
        }
        let Some(cap) = caps(&RUBY_FRAME, line) else { return false };
        self.out.frame("ruby", Some(&cap[1]), number(&cap[2]), Some(&cap[3]));
        if let Some(rest) = cap.get(4).map(|m| m.as_str()).filter(|m| !m.is_empty()) {
            match caps(&RUBY_MESSAGE, rest) {
                Some(m) => self.out.exception(&m[2], Some(m.get(1).map_or("", |x| x.as_str()))),
                None => self.out.message_with_clues(rest),
            }
        }
        true
    }

    /// `#0 /var/www/src/Foo.php(12): App\Foo->bar()`.
    pub(super) fn php_frame(&mut self, line: &str) -> bool {
        if !line.trim_start().starts_with('#') {
            return false;
        }
        let Some(cap) = caps(&PHP_FRAME, line) else { return false };
        let function = without_arguments(&cap[3]);
        self.out.frame("php", Some(&cap[1]), number(&cap[2]), Some(function));
        true
    }

    /// `ValueError: x must be positive`, `Caused by: java.lang.IllegalStateException: not ready`,
    /// `Uncaught TypeError: ...`.
    pub(super) fn exception_line(&mut self, line: &str) -> bool {
        let Some(cap) = caps(&EXCEPTION, line) else { return false };
        self.out.exception(&cap[1], cap.get(2).map(|m| m.as_str()));
        true
    }

    /// `error: ...`, `panic: ...`, `fatal: ...`, `error[E0308]: ...`, `ERROR:root:...` and log
    /// lines whose level is an error (`2024-01-02 12:00:00 ERROR [main] app.db - refused`).
    pub(super) fn error_line(&mut self, line: &str) -> bool {
        let message = if let Some(cap) = caps(&PYTHON_LOGGING, line).or_else(|| caps(&ERROR_LINE, line)) {
            cap.get(1).map_or("", |m| m.as_str())
        } else if let Some(cap) = self.out.gates.log_level.then(|| caps(&LOG_LINE, line)).flatten() {
            let rest = cap.get(1).map_or("", |m| m.as_str());
            let logger = LOGGER.find(rest).map_or(0, |m| m.end());
            &rest[logger..]
        } else {
            return false;
        };
        self.out.message_with_clues(message);
        true
    }
}

/// Whether `line` starts with `at ` (after indentation), as JVM, .NET and Node frames do.
pub(super) fn starts_with_at(line: &str) -> bool {
    line.trim_start().strip_prefix("at").is_some_and(|rest| rest.starts_with([' ', '\t']))
}

/// Whether `name` has no whitespace outside `<...>` (`<T as Trait>::f` is one name).
pub(super) fn top_level_has_no_space(name: &str) -> bool {
    let mut depth = 0_i32;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            c if c.is_whitespace() && depth <= 0 => return false,
            _ => {}
        }
    }
    true
}

/// `name` without a trailing argument list: `main.parse(...)` -> `main.parse`, but
/// `pkg.(*Server).Serve(0x1)` -> `pkg.(*Server).Serve` (a group after a `.` is a receiver).
pub(super) fn without_arguments(name: &str) -> &str {
    let name = name.trim_end();
    if !name.ends_with(')') {
        return name;
    }
    let mut depth = 0_i32;
    for (i, c) in name.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let before = name[..i].chars().next_back();
                    return if before.is_some_and(|b| b != '.' && !b.is_whitespace()) { &name[..i] } else { name };
                }
            }
            _ => {}
        }
    }
    name
}

/// `path` without a `file://` scheme.
pub(super) fn strip_file_scheme(path: &str) -> &str {
    path.strip_prefix("file://").unwrap_or(path)
}

/// `typescript` for TypeScript files, else `javascript`.
pub(super) fn script_language(path: &str) -> &'static str {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    if [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| path.ends_with(e)) { "typescript" } else { "javascript" }
}

// ---------------------------------------------------------------------------------------------
// Version banners.

pub(super) static BANNER_LABEL: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([A-Za-z][A-Za-z0-9_ .()/-]{0,40}?)\s*:\s*(.*)$"));
/// A version as printed alone or after a name: `3.11.2`, `v18.2.0`, `go1.21.0`,
/// `pytest-7.4.0`, `react@18.2.0`, `flask==2.3.2`.
pub(super) static VERSION_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:[A-Za-z][A-Za-z0-9_-]*?(?:-|==|@)?)?v?[0-9]+(?:\.[0-9]+)+(?:[-+.]?[A-Za-z0-9_.]+)?$"));
pub(super) static BRACKETED: LazyLock<Regex> = LazyLock::new(|| re(r"\([^()]*\)|\[[^\[\]]*\]"));

/// Labels whose line describes the environment whatever its value (`OS: Linux`).
pub(super) const BANNER_LABELS: &str = "\
    version versions os environment env platform system distro distribution kernel arch architecture \
    browser device hardware runtime toolchain compiler sdk ide interpreter";

/// Whether `line` is a version banner (`Python 3.11.2`, `OS: Ubuntu 22.04`, `Flask version:
/// 2.3.2`, `go version go1.21.0 linux/amd64`), dropped wholesale.
pub(super) fn is_banner(line: &str) -> bool {
    let dotted = has_dotted_number(line);
    if line.len() > 200 || (!dotted && !line.contains(':')) {
        return false;
    }
    let t = line.trim().trim_start_matches(['-', '*', '+', '>', ' ', '\t']).replace(['*', '`', '|'], " ");
    let t = t.trim();
    if t.is_empty() || t.len() > 160 {
        return false;
    }
    if let Some(cap) = caps(&BANNER_LABEL, t) {
        let label = cap[1].to_lowercase();
        let value = cap[2].trim();
        if label.split_whitespace().count() <= 3 {
            let last = label.split_whitespace().last().unwrap_or("");
            if listed(BANNER_LABELS, last) && (value.split_whitespace().count() <= 4 || mostly_versions(value)) {
                return true;
            }
            if !value.is_empty() && mostly_versions(value) {
                return true;
            }
        }
    }
    mostly_versions(t)
}

/// Whether `s` holds a digit, a dot and a digit (`3.11`), as every version token does.
pub(super) fn has_dotted_number(s: &str) -> bool {
    s.as_bytes().windows(3).any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit())
}

/// Whether every comma-separated part of `s` names a version (`Python 3.11.2, tracker 0.4.0`):
/// a version token and at most three other words, none of them an English stop word.
pub(super) fn mostly_versions(s: &str) -> bool {
    if !has_dotted_number(s) {
        return false;
    }
    let s = BRACKETED.replace_all(s, " ");
    let mut any = false;
    for part in s.split([',', ';']) {
        let tokens: Vec<&str> = part.split_whitespace().map(|t| t.trim_matches(['(', ')', '"', '\'', '.'])).collect();
        if tokens.is_empty() {
            continue;
        }
        let versions = tokens.iter().filter(|t| VERSION_TOKEN.is_match(t)).count();
        let others: Vec<&&str> =
            tokens.iter().filter(|t| t.contains(char::is_alphabetic) && !VERSION_TOKEN.is_match(t)).collect();
        let prose = others.iter().any(|t| {
            let w = t.to_lowercase();
            w != "on" && is_stop_word(&w)
        });
        if versions == 0 || others.len() > 3 || prose {
            return false;
        }
        any = true;
    }
    any
}
