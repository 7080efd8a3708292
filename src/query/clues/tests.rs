//! Golden tests of clue extraction and templates.

use std::fmt::Write as _;

use super::*;

/// The clues as golden text: one line per list (words with `*count` past one), one line
/// per frame, message and code entry.
fn render(c: &Clues) -> String {
    let mut s = String::new();
    if !c.words.is_empty() {
        let words: Vec<String> =
            c.words.iter().map(|(w, n)| if *n > 1 { format!("{w}*{n}") } else { w.clone() }).collect();
        let _ = writeln!(s, "words: {}", words.join(" "));
    }
    if !c.identifiers.is_empty() {
        let _ = writeln!(s, "identifiers: {}", c.identifiers.join(" "));
    }
    if !c.paths.is_empty() {
        let paths: Vec<String> =
            c.paths.iter().map(|p| p.line.map_or_else(|| p.path.clone(), |l| format!("{}:{l}", p.path))).collect();
        let _ = writeln!(s, "paths: {}", paths.join(" "));
    }
    for f in &c.frames {
        let _ = writeln!(
            s,
            "frame: {} {} at {}{}",
            f.language,
            f.function.as_deref().unwrap_or("?"),
            f.path.as_deref().unwrap_or("?"),
            f.line.map(|l| format!(":{l}")).unwrap_or_default()
        );
    }
    for m in &c.messages {
        let _ = writeln!(s, "message: {m}");
    }
    if !c.options.is_empty() {
        let _ = writeln!(s, "options: {}", c.options.join(" "));
    }
    for code in &c.code {
        let _ = writeln!(s, "code: {code:?}");
    }
    s
}

/// Checks the clues of `text` against `expected` (lines compared trimmed).
#[track_caller]
fn check(text: &str, expected: &str) {
    let got = render(&extract(text));
    let want: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let have: Vec<&str> = got.lines().collect();
    assert_eq!(have, want, "\n--- text ---\n{text}\n--- got ---\n{got}");
}

/// The identifiers of `text`.
fn identifiers(text: &str) -> Vec<String> {
    extract(text).identifiers
}

#[test]
fn identifiers_are_only_what_is_clearly_code() {
    let table: &[(&str, &[&str])] = &[
        ("Calling parse_config twice loses the cache", &["parse_config"]),
        ("getUserName and HTTPServer fail, MAX_RETRIES is ignored", &["getUserName", "HTTPServer", "MAX_RETRIES"]),
        ("use std::fs::read_to_string or Vec::new", &["std::fs::read_to_string", "Vec::new"]),
        ("obj.attr.method, os.path.join and self.argname.", &["obj.attr.method", "os.path.join", "self.argname"]),
        ("Foo#bar is private; call reload() then reload again", &["Foo#bar", "reload"]),
        ("parse(text) returns __init__ twice", &["parse", "__init__"]),
        ("ValueError's message, and Option::unwrap() on None", &["ValueError", "Option::unwrap"]),
        ("mutex.lock and self.cfg and request.json are attributes", &["mutex.lock", "self.cfg", "request.json"]),
        ("in tests/test_cli.py::test_run", &["test_run"]),
    ];
    for (text, want) in table {
        assert_eq!(identifiers(text), *want, "{text}");
    }
}

#[test]
fn prose_versions_products_and_abbreviations_are_not_identifiers() {
    for text in [
        "Hello there. This is a sentence about Caching and Pruning.",
        "It fails, e.g. when i.e. and etc. are used, a.k.a. always",
        "Upgrade to 2.3.1 or v18.2.0 or python3.11",
        "JavaScript and TypeScript on GitHub, macOS and iOS",
        "We need more APIs and URLs for the IDs",
        "I tried it.Then it broke",
        "archive.tar.gz from example.com",
        "the file(s) are missing (see below)",
        "Node.js and Vue.js are fine",
        "NaN rows and ______ lines",
    ] {
        assert_eq!(identifiers(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn words_are_lower_cased_counted_capped_and_free_of_stop_words() {
    check(
        "Please help: the cache is not pruned, cache entries stay. Cache cache!",
        "words: help cache*3 pruned entries stay",
    );
    check("I'm sure it doesn't work and we can't fix it, thanks", "words: sure work fix");
    check("error code E0308, hash 90c5418 and 0xdeadbeef in 3 places", "words: error code e0308 hash places");
    check(
        "Calling parseConfig or parse_config",
        "words: calling parse*2 config*2
             identifiers: parseConfig parse_config",
    );
}

#[test]
fn urls_are_neither_paths_nor_words() {
    check("See https://github.com/foo/bar/blob/main/src/app.py#L12 and www.example.com/x.py", "");
}

#[test]
fn paths_keep_their_line_and_are_kept_once() {
    check(
        "see src/app.py, app.py:123 and ./x/y.rs:12:5; then app.py and src/app.py:9",
        "paths: src/app.py:9 app.py:123 ./x/y.rs:12",
    );
    check(
        r"C:\Users\me\proj\main.cs:7 reads /etc/app/config.toml and ~/.config/tool/settings.json",
        r"words: reads
              paths: C:\Users\me\proj\main.cs:7 /etc/app/config.toml ~/.config/tool/settings.json",
    );
    check(
        "Cargo.lock, go.mod, package.json, README.md and docs/guide.adoc",
        "paths: Cargo.lock go.mod package.json README.md docs/guide.adoc",
    );
}

#[test]
fn a_python_traceback_gives_frames_the_exception_and_its_message() {
    check(
        r#"Running the tracker with a settings file crashes:

Traceback (most recent call last):
  File "/home/ada/src/tracker/tracker/cli.py", line 15, in main
    settings = load_settings([], "tracker.toml")
  File "/home/u/proj/src/pkg/mod.py", line 42, in load_config
    return data["name"]
           ~~~~^^^^^^^^
KeyError: 'name'
"#,
        r"words: running tracker settings*3 file crashes load data name*2 key error
              identifiers: load_settings KeyError
              paths: tracker.toml
              frame: python main at /home/ada/src/tracker/tracker/cli.py:15
              frame: python load_config at /home/u/proj/src/pkg/mod.py:42
              message: name",
    );
}

#[test]
fn a_python_exception_of_any_name_ends_a_traceback() {
    check(
        r#"Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
tracker.config.ConfigError: unknown setting 'verbose' in tracker.toml
"#,
        r"words: tracker config*2 error unknown setting verbose
              identifiers: tracker.config.ConfigError
              paths: tracker.toml
              frame: python <module> at ?:1
              message: unknown setting 'verbose' in tracker.toml",
    );
}

#[test]
fn a_rust_panic_new_style_with_its_backtrace() {
    check(
            "thread 'main' panicked at src/main.rs:10:5:
called `Option::unwrap()` on a `None` value
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:578:5
   3: mycrate::config::load
             at ./src/config.rs:12:5
   4: mycrate::main::h1a2b3c4d5e6f7a8b
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
            "words: called option unwrap value
             identifiers: Option::unwrap
             frame: rust ? at src/main.rs:10
             frame: rust rust_begin_unwind at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:578
             frame: rust mycrate::config::load at ./src/config.rs:12
             frame: rust mycrate::main at ?
             message: called `Option::unwrap()` on a `None` value
             code: \"Option::unwrap()\"
             code: \"None\"",
        );
}

#[test]
fn a_rust_panic_old_style() {
    check(
        "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/lib.rs:7:9
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "words: called option unwrap value
             identifiers: Option::unwrap
             frame: rust ? at src/lib.rs:7
             message: called `Option::unwrap()` on a `None` value
             code: \"Option::unwrap()\"
             code: \"None\"",
    );
}

#[test]
fn a_java_and_kotlin_trace_with_its_cause() {
    check(
        "Exception in thread \"main\" java.lang.RuntimeException: boom
\tat com.example.app.Service.handle(Service.java:42)
\tat com.example.app.MainKt.main(Main.kt:7)
\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)
Caused by: java.lang.IllegalStateException: not ready
\tat com.example.app.Config.check(Config.java:88) ~[app.jar:1.0]
\t... 5 more",
        "words: java*2 lang*2 runtime exception*2 boom illegal state ready
             identifiers: java.lang.RuntimeException java.lang.IllegalStateException
             frame: java com.example.app.Service.handle at Service.java:42
             frame: kotlin com.example.app.MainKt.main at Main.kt:7
             frame: java jdk.internal.reflect.NativeMethodAccessorImpl.invoke0 at ?
             frame: java com.example.app.Config.check at Config.java:88
             message: boom
             message: not ready",
    );
}

#[test]
fn a_node_trace_with_named_anonymous_and_bare_frames() {
    check(
        "/app/src/cli.js:10
    args.map(parse)
         ^

TypeError: Cannot read properties of undefined (reading 'map')
    at parseArgs (/app/src/cli.js:10:5)
    at /app/src/index.ts:3:1
    at Object.<anonymous> (/app/x.js:1:1)
    at async Promise.all (index 0)
    at new Server (file:///app/server.mjs:4:9)",
        "words: args map*2 parse type error read properties undefined reading
             identifiers: args.map TypeError
             paths: /app/src/cli.js:10
             frame: javascript parseArgs at /app/src/cli.js:10
             frame: typescript ? at /app/src/index.ts:3
             frame: javascript Object.<anonymous> at /app/x.js:1
             frame: javascript Promise.all at ?
             frame: javascript Server at /app/server.mjs:4
             message: Cannot read properties of undefined (reading 'map')",
    );
}

#[test]
fn a_go_panic_with_goroutine_frames() {
    check(
        "panic: runtime error: index out of range [3] with length 3

goroutine 1 [running]:
main.parse(...)
\t/home/u/y/main.go:12
github.com/x/y/pkg.(*Server).Serve(0xc000010000, {0x0, 0x0})
\t/home/u/y/pkg/server.go:123 +0x1d
created by main.main in goroutine 1
\t/home/u/y/main.go:30 +0x45
exit status 2",
        "words: runtime error index range length
             frame: go main.parse at /home/u/y/main.go:12
             frame: go github.com/x/y/pkg.(*Server).Serve at /home/u/y/pkg/server.go:123
             frame: go main.main at /home/u/y/main.go:30
             message: runtime error: index out of range [3] with length 3",
    );
}

#[test]
fn csharp_ruby_php_and_browser_frames() {
    check(
        r"Unhandled exception. System.InvalidOperationException: Sequence contains no elements
   at System.Linq.ThrowHelper.ThrowNoElementsException()
   at MyApp.Program.Main(String[] args) in C:\src\MyApp\Program.cs:line 12
app/models/user.rb:42:in 'validate': undefined method 'name' for nil (NoMethodError)
	from app/controllers/users_controller.rb:10:in `create'
#0 /var/www/src/Foo.php(12): App\Foo->bar()
parseArgs@http://localhost:8080/static/cli.js:10:5",
        r"words: system invalid operation exception sequence contains elements method*2 error undefined name nil
              identifiers: System.InvalidOperationException NoMethodError
              frame: csharp System.Linq.ThrowHelper.ThrowNoElementsException at ?
              frame: csharp MyApp.Program.Main at C:\src\MyApp\Program.cs:12
              frame: ruby validate at app/models/user.rb:42
              frame: ruby create at app/controllers/users_controller.rb:10
              frame: php App\Foo->bar at /var/www/src/Foo.php:12
              frame: javascript parseArgs at http://localhost:8080/static/cli.js:10
              message: Sequence contains no elements
              message: undefined method 'name' for nil",
    );
}

#[test]
fn quoted_strings_of_two_words_are_messages() {
    check(
        r#"It fails with "x must be positive", with 'not found here' and “smart quotes here”; 'word' is not"#,
        "words: fails positive found smart quotes word
             message: x must be positive
             message: not found here
             message: smart quotes here",
    );
    let long = format!("\"{}\"", "many words ".repeat(40));
    let messages = extract(&long).messages;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].chars().count(), MAX_MESSAGE_CHARS, "{:?}", messages[0]);
    assert!(messages[0].starts_with("many words many"));
}

#[test]
fn error_and_log_lines_give_their_messages() {
    let table: &[(&str, &str)] = &[
        ("ValueError: x must be positive.", "x must be positive"),
        (
            "Error: ENOENT: no such file or directory, open '/x/y.json'",
            "ENOENT: no such file or directory, open '/x/y.json'",
        ),
        ("error[E0308]: mismatched types", "mismatched types"),
        (
            "fatal: not a git repository (or any of the parent directories): .git",
            "not a git repository (or any of the parent directories): .git",
        ),
        ("panic: assignment to entry in nil map", "assignment to entry in nil map"),
        ("Uncaught ReferenceError: foo is not defined", "foo is not defined"),
        (
            "2024-01-02 12:00:00,123 ERROR [main] com.example.App - Failed to start the server",
            "Failed to start the server",
        ),
        ("2024-01-02T03:04:05.000Z ERROR myapp::db: connection refused by peer", "connection refused by peer"),
        ("ERROR:root:Could not open the cache file", "Could not open the cache file"),
        ("[ERROR] Failed to execute goal on project app", "Failed to execute goal on project app"),
        ("E       AssertionError: assert 3 == 4", "assert 3 == 4"),
    ];
    for (line, message) in table {
        assert_eq!(extract(line).messages, [*message], "{line}");
    }
}

#[test]
fn options_are_long_flags_setting_keys_and_environment_names() {
    check(
        "run with --failed-first -x --log-level=debug and RUST_LOG=info",
        "words: run failed first log*2 level debug rust info
             identifiers: RUST_LOG
             options: --failed-first --log-level RUST_LOG",
    );
    check(
        "core.hooksPath, tool.ruff.line-length and server.port=8080",
        "words: core hookspath tool ruff line length server port
             options: core.hooksPath tool.ruff.line-length server.port",
    );
    check(
        "os.path.join and self.x=1 are code",
        "words: path join code
             identifiers: os.path.join self.x",
    );
    // Talk of settings makes a dotted key an option, and it stays an identifier.
    check(
        "set `cache.dir` in the config",
        "words: set cache dir config
             identifiers: cache.dir
             options: cache.dir
             code: \"cache.dir\"",
    );
}

#[test]
fn code_spans_and_fenced_and_indented_blocks_are_kept_raw_in_order() {
    check(
        "Call `load_settings()` first, then ``a `tick` inside``:

```python
settings = load_settings([], path)
```

    $ tracker --failed-first
    done

~~~
unclosed_tilde_block()",
        "words: call load*2 settings*3 first*2 tick inside path tracker failed unclosed tilde block
             identifiers: load_settings unclosed_tilde_block
             options: --failed-first
             code: \"load_settings()\"
             code: \"a `tick` inside\"
             code: \"settings = load_settings([], path)\"
             code: \"$ tracker --failed-first\\ndone\"
             code: \"unclosed_tilde_block()\"",
    );
}

#[test]
fn compiler_and_test_runner_output_gives_source_names_and_notes() {
    let text = "```
============================= test session starts ==============================
platform linux -- Python 3.11.4, pytest-7.4.0, pluggy-1.2.0
rootdir: /home/ci/proj
collected 12 items

___________________________ test_prune_keeps_recent ____________________________

    def test_prune_keeps_recent():
        cache = LastFailed(max_age=timedelta(days=14))
>       assert cache.prune_stale(now) == 3
E       AssertionError: assert 0 == 3

tests/test_cache.py:42: AssertionError
```

error[E0382]: borrow of moved value: `settings`
  --> src/config.rs:27:20
   |
24 |     let settings = load(path)?;
   |         -------- move occurs because `settings` has type `Settings`
26 |     println!(\"{}\", settings.name);
   |                    ^^^^^^^^^^^^^ value borrowed here after move";
    let c = extract(text);
    assert_eq!(
        c.identifiers,
        [
            "test_prune_keeps_recent",
            "LastFailed",
            "max_age",
            "timedelta",
            "cache.prune_stale",
            "AssertionError",
            "load",
            "settings.name"
        ]
    );
    let paths: Vec<(&str, Option<u32>)> = c.paths.iter().map(|p| (p.path.as_str(), p.line)).collect();
    assert_eq!(paths, [("tests/test_cache.py", Some(42)), ("src/config.rs", Some(27))]);
    assert_eq!(c.messages, ["assert 0 == 3", "borrow of moved value: `settings`"]);
    // Session banners and headers say nothing; `settings.name` in source is no setting.
    for gone in ["session", "platform", "linux", "rootdir", "collected", "items"] {
        assert!(c.words.iter().all(|(w, _)| w != gone), "{gone}: {:?}", c.words);
    }
    assert!(c.options.is_empty(), "{:?}", c.options);
    assert_eq!(&c.code[1..], ["settings", "Settings"]);
}

#[test]
fn code_counts_its_words_but_not_its_keywords() {
    check(
        "```
def load(path):
    return None
```",
        "words: load path
             identifiers: load
             code: \"def load(path):\\n    return None\"",
    );
}

#[test]
fn boilerplate_and_version_banners_are_dropped() {
    check(
        "## Describe the bug
**Steps to reproduce**
1. Run it
Expected behavior: works. Actual behaviour: crashes.
Additional context: none

**Environment**
- OS: Ubuntu 22.04
- Python 3.11.2
- Flask version: 2.3.2
- rustc 1.70.0 (90c541806 2023-05-31)
- node v18.2.0
- go version go1.21.0 linux/amd64
Environment: Python 3.11.2, tracker 0.4.0, Ubuntu 22.04
Operating system: Windows 11",
        "words: run works crashes none",
    );
}

/// A pasted issue of about 5,000 characters: a report, a traceback, code, a log, the
/// environment, and filler paragraphs.
fn pasted_issue() -> String {
    let mut text = String::from(
        "Failed tasks are forgotten after a few days

When I run the tracker with `--failed-first` after a long weekend, the tasks that failed on
Friday are not run first any more. It looks like `LastFailed.prune_stale()` drops entries
between sessions, even though the tasks still exist (see tracker/cache.py:88).

Steps to reproduce:

```
tracker --failed-first
# wait until Monday
tracker --failed-first
```

Traceback (most recent call last):
  File \"/home/ada/src/tracker/tracker/cli.py\", line 15, in main
    settings = load_settings([], \"tracker.toml\")
  File \"/home/ada/src/tracker/tracker/config.py\", line 15, in load_settings
    raise ConfigError(f\"unknown setting '{key}' in {path}\")
tracker.config.ConfigError: unknown setting 'verbose' in tracker.toml

2024-01-02 12:00:00,123 ERROR [main] tracker.cache - Could not prune the stale entries

Expected behaviour: the failed ones run first. Actual behaviour: they run in the usual order.

Environment: Python 3.11.2, tracker 0.4.0, Ubuntu 22.04
",
    );
    let mut n = 0;
    while text.len() < 5000 {
        n += 1;
        let _ = write!(
            text,
            "\nAlso, paragraph {n} repeats that the scheduler keeps the timestamps in UTC while the \
                 pruning compares local times, so entries from another zone might look older than they are."
        );
    }
    text
}

#[test]
fn a_pasted_issue_of_five_thousand_characters_gives_its_clues() {
    let text = pasted_issue();
    assert!(text.len() >= 5000, "{}", text.len());
    let c = extract(&text);
    assert_eq!(c.identifiers, ["LastFailed.prune_stale", "load_settings", "ConfigError", "tracker.config.ConfigError"]);
    assert_eq!(
        c.paths,
        [
            PathClue { path: "tracker/cache.py".into(), line: Some(88) },
            PathClue { path: "tracker.toml".into(), line: None }
        ]
    );
    let functions: Vec<&str> = c.frames.iter().filter_map(|f| f.function.as_deref()).collect();
    assert_eq!(functions, ["main", "load_settings"]);
    assert_eq!(
        c.messages,
        [
            "unknown setting '{key}' in {path}",
            "unknown setting 'verbose' in tracker.toml",
            "Could not prune the stale entries"
        ]
    );
    assert_eq!(c.options, ["--failed-first"]);
    assert_eq!(
        c.code,
        [
            "--failed-first",
            "LastFailed.prune_stale()",
            "tracker --failed-first\n# wait until Monday\ntracker --failed-first"
        ]
    );
    let word = |w: &str| c.words.iter().find(|(x, _)| x == w).map(|&(_, n)| n);
    assert_eq!(word("failed"), Some(3));
    assert_eq!(word("pruning"), Some(3));
    assert_eq!(word("stale"), Some(2));
    for gone in ["steps", "reproduce", "expected", "behaviour", "environment", "python", "ubuntu", "the", "also"] {
        assert_eq!(word(gone), None, "{gone}");
    }
}

#[test]
fn odd_input_never_panics() {
    let fixed = [
        "",
        "'",
        "\"",
        "`",
        "```",
        "``` unclosed\ncode",
        "\r\n\r\n\r",
        "😀 emoji ✨ “‘’” naïve café_au_lait.py:12 ünïcödé::ñame",
        "'unbalanced \"quotes` and ``ticks",
        "File \"",
        "  File \"x.py\", line 99999999999999999999, in f",
        "thread 'main' panicked at",
        "at (",
        "{}{{}}%%%",
        "\t\t    \t",
        "   3: \n             at :1",
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n",
        "--",
        "=",
        "::::....####",
        "x\u{0}y\u{7f}z",
    ];
    for text in fixed {
        let _ = extract(text);
        for t in templates_in_line(text) {
            let _ = t.matches(text);
        }
    }
    let long = "€".repeat(MAX_TEXT_BYTES);
    assert!(extract(&long).words.len() <= 1);
    // Random text over an alphabet of the characters the readers care about.
    let alphabet: Vec<char> =
        "ab_Z09 .:/\\'\"`“”‘’(){}[]<>#$%!?-=+*,;\n\r\té😀\u{0}FilethreadatError".chars().collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % 1_000_003).unwrap_or(0)
    };
    for _ in 0..500 {
        let len = next() % 200;
        let text: String = (0..len).map(|_| alphabet[next() % alphabet.len()]).collect();
        let clues = extract(&text);
        assert!(clues.messages.iter().all(|m| m.chars().count() <= MAX_MESSAGE_CHARS));
        assert!(clues.words.iter().all(|&(_, n)| (1..=MAX_WORD_COUNT).contains(&n)));
        for t in templates_in_line(&text) {
            if let Some(score) = t.matches(&text) {
                assert!((0.0..=1.0).contains(&score));
            }
        }
    }
}

/// The pieces of each template of `line`.
fn pieces(line: &str) -> Vec<Vec<String>> {
    templates_in_line(line).into_iter().map(|t| t.pieces).collect()
}

#[test]
fn templates_are_read_from_literals_with_their_placeholders() {
    let table: &[(&str, &[&[&str]])] = &[
        (r#"raise ValueError(f"fixture '{self.argname}' not found")"#, &[&["fixture '", "' not found"]]),
        ("bail!(format!(\"unknown rule selector: `{}`\", s))", &[&["unknown rule selector: `", "`"]]),
        (r#"log.error("%s: not found" % name)"#, &[&["", ": not found"]]),
        (r#"msg = "fixture " + name + " not found""#, &[&["fixture ", " not found"]]),
        (r#"throw new Error("Cannot find module '" + name + "'");"#, &[&["Cannot find module '", "'"]]),
        (r#"x = ("implicit " "concatenation")"#, &[&["implicit concatenation"]]),
        (r#"x = "joined " + "literals""#, &[&["joined literals"]]),
        (r#"log.Printf("failed to open %s: %v", path, err)"#, &[&["failed to open ", ": ", ""]]),
        (r#"f("a", "b")"#, &[&["a"], &["b"]]),
        (r#"print("{{literal}} {0} and {name:>10} or {:?}")"#, &[&["{literal} ", " and ", " or ", ""]]),
        (r"f'{x!r} is {y:.2f} {obj.method(1, {2})}'", &[&["", " is ", " ", ""]]),
        (r##"let s = r#"raw "quoted" {}"#;"##, &[&["raw \"quoted\" ", ""]]),
        (r"pattern = rb'\d+ bytes'", &[&[r"\d+ bytes"]]),
        ("`Hello ${user.name}, you have ${n} messages`", &[&["Hello ", ", you have ", " messages"]]),
        (r#"puts "Hello #{name}""#, &[&["Hello ", ""]]),
        (r#"echo "$HOME/config not found""#, &[&["", "/config not found"]]),
        (r"x = '''triple {} quoted''' ", &[&["triple ", " quoted"]]),
        (r#"printf("100%% done in %5.2f s, %-10s|%(name)s")"#, &[&["100% done in ", " s, ", "|", ""]]),
        (r#"s = "escaped \"quote\" and \\ backslash\n""#, &[&["escaped \"quote\" and \\ backslash "]]),
        (r#"# it's a "quoted" word, isn't it"#, &[&["quoted"]]),
        (r#"err = "Error: " + err"#, &[&["Error: ", ""]]),
        (r#"x = "unterminated"#, &[]),
        (r#"doc = """opens a docstring"#, &[]),
    ];
    for (line, want) in table {
        let want: Vec<Vec<String>> = want.iter().map(|p| p.iter().map(|s| (*s).to_owned()).collect()).collect();
        assert_eq!(pieces(line), want, "{line}");
    }
}

#[test]
fn templates_match_the_messages_they_could_have_produced() {
    // (source line, message, expected share of the message covered, or None).
    let table: &[(&str, &str, Option<f32>)] = &[
        (r#"raise ValueError(f"fixture '{self.argname}' not found")"#, "fixture 'tmp_path' not found", Some(0.68)),
        ("format!(\"unknown rule selector: `{}`\", s)", "unknown rule selector: `E999`", Some(0.85)),
        // Under half covered, but the message is wholly the template.
        (r#"f"unknown setting '{key}' in {path}""#, "unknown setting 'verbose' in tracker.toml", Some(0.49)),
        (r#""fixture " + name + " not found""#, "FIXTURE tmp_path NOT FOUND", Some(0.65)),
        (r#""fixture " + name + " not found""#, "fixture  not found", Some(1.0)),
        (r#""expected {} items, got {}".format(a, b)"#, "expected 3 items, got 4", Some(0.89)),
        (r#""%d%% of %d tasks done""#, "50% of 10 tasks done", Some(0.75)),
        (r#""Cannot find module '" + name + "'""#, "Cannot find module 'express'", Some(0.72)),
        // A log prefix is tolerated while the pieces cover half of the message.
        (r#""could not open file {} for reading""#, "[app] could not open file x.json for reading", Some(0.7)),
        // A long value: the pieces cover little, but the message is wholly the template.
        (
            r#""could not open file {}""#,
            "could not open file /very/long/path/to/some/deeply/nested/file.json",
            Some(0.25),
        ),
        // `: not found` has 9 non-space characters and 2 words: enough to mean something.
        (r#""%s: not found" % name"#, "foo.txt: not found", Some(0.56)),
        (r#""%s: not found" % name"#, "foo.txt: not found in the cache", None),
        (r#""connection refused""#, "ERROR connection refused", Some(0.77)),
        (r#""connection refused""#, "connection refused by the remote peer at 10.0.0.1:5432", None),
        // Traps: too little literal text, pieces out of order, pieces missing.
        (r#""{}: {}""#, "a: b", None),
        (r#""{}: {}""#, "anything: goes here", None),
        (r#""%s: %s""#, "foo: bar", None),
        (r#""%s""#, "anything", None),
        (r#""{}""#, "anything", None),
        (r#""Error""#, "Error", None),
        (r#"f"{name}""#, "x", None),
        (r#""expected {} items, got {}""#, "got 4, expected 3 items", None),
        (r#"f"unknown setting '{key}' in {path}""#, "unknown setting", None),
        (r#""connection refused""#, "", None),
    ];
    for &(line, message, want) in table {
        let templates = templates_in_line(line);
        let got = templates.iter().find_map(|t| t.matches(message));
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 0.01, "{line} ~ {message}: {g} != {w}"),
            (None, None) => {}
            _ => panic!("{line} ~ {message}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn every_pattern_compiles() {
    for pattern in [
        &*FENCE,
        &*NOISE,
        &*GUTTER,
        &*PYTHON_FRAME,
        &*PYTHON_EXCEPTION,
        &*RUST_PANIC_OLD,
        &*RUST_PANIC_NEW,
        &*RUST_FRAME,
        &*RUST_AT,
        &*RUST_HASH,
        &*GO_LOCATION,
        &*GO_SUFFIX,
        &*JVM_FRAME,
        &*JVM_SOURCE,
        &*CSHARP_FRAME,
        &*JS_FRAME,
        &*JS_BARE,
        &*JS_FIREFOX,
        &*LOCATION,
        &*RUBY_FRAME,
        &*RUBY_MESSAGE,
        &*PHP_FRAME,
        &*EXCEPTION,
        &*ERROR_LINE,
        &*PYTHON_LOGGING,
        &*LOG_LINE,
        &*LOGGER,
        &*BANNER_LABEL,
        &*VERSION_TOKEN,
        &*BRACKETED,
        &*URL,
        &*HTML_TAG,
        &*BOILERPLATE_PHRASE,
        &*PATH,
        &*LONG_OPTION,
        &*ENV_NAME,
        &*SETTING,
        &*NUMBERISH,
        &*DEFINITION,
        &*SETTINGS_TALK,
        &*FORMAT_FIELD,
        &*PRINTF,
        &*SHELL_VAR,
    ] {
        assert!(!pattern.as_str().is_empty());
    }
}
