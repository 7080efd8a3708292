//! Scanning prose and code: quotes and code spans, paths, options, names and words.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The quoted strings of `text` in order: `"..."`, `“...”`, `'...'` and `‘...’` (a single
/// quote opens after a space or an opening bracket and closes before one, so `don't` is not
/// a quote).
pub(super) fn quoted_strings(text: &str) -> Vec<(usize, &str)> {
    let mut found: Vec<(usize, &str)> = Vec::new();
    let doubles: Vec<usize> = text.match_indices('"').map(|(i, _)| i).filter(|&i| !text[..i].ends_with('\\')).collect();
    for pair in doubles.chunks_exact(2) {
        found.push((pair[0], &text[pair[0] + 1..pair[1]]));
    }
    for (open, close) in [('“', '”'), ('\'', '\''), ('‘', '’')] {
        single_quoted(text, open, close, &mut found);
    }
    found.sort_by_key(|&(start, _)| start);
    found
}

/// Pairs single quotes `open` ... `close` with the boundary rules of [`quoted_strings`].
pub(super) fn single_quoted<'a>(text: &'a str, open: char, close: char, found: &mut Vec<(usize, &'a str)>) {
    if !text.contains(open) {
        return;
    }
    let strict = open == close || close == '’';
    let before = |i: usize| text[..i].chars().next_back();
    let after = |i: usize, c: char| text[i + c.len_utf8()..].chars().next();
    let closers: Vec<usize> = text
        .match_indices(close)
        .map(|(i, _)| i)
        .filter(|&i| {
            !strict
                || (before(i).is_some_and(|p| !p.is_whitespace())
                    && after(i, close).is_none_or(|n| n.is_whitespace() || ")]}.,;:!?".contains(n)))
        })
        .collect();
    let mut next_closer = 0;
    let mut resume = 0;
    for (i, _) in text.match_indices(open) {
        if i < resume {
            continue;
        }
        let opens = (open != '\'' || before(i).is_none_or(|p| p.is_whitespace() || "([{:=,".contains(p)))
            && after(i, open).is_some_and(|n| !n.is_whitespace() && n != close);
        if !opens {
            continue;
        }
        while next_closer < closers.len() && closers[next_closer] <= i {
            next_closer += 1;
        }
        let Some(&end) = closers.get(next_closer) else { break };
        found.push((i, &text[i + open.len_utf8()..end]));
        resume = end + close.len_utf8();
    }
}

/// The code spans of `text`: `(start, end, content)`, the content's range without the one
/// space Markdown allows on each side.
pub(super) fn code_spans(text: &str) -> Vec<(usize, usize, Range<usize>)> {
    if !text.contains('`') {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let start = i;
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            runs.push((start, i - start));
        } else {
            i += 1;
        }
    }
    let mut spans = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let (start, n) = runs[k];
        let Some(close) = (k + 1..runs.len()).find(|&j| runs[j].1 == n) else {
            k += 1;
            continue;
        };
        let mut content = start + n..runs[close].0;
        let inner = &text[content.clone()];
        if inner.len() > 2 && inner.starts_with(' ') && inner.ends_with(' ') && !inner.trim().is_empty() {
            content = content.start + 1..content.end - 1;
        }
        if !text[content.clone()].trim().is_empty() {
            spans.push((start, runs[close].0 + n, content));
        }
        k = close + 1;
    }
    spans
}

// ---------------------------------------------------------------------------------------------
// Paths, options, names.

pub(super) static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)(?-u:\b)(?:https?|ftp|file|wss?)://[^\s<>"'`)\]]+|(?-u:\b)www\.[^\s<>"'`)\]]+"#));
pub(super) static HTML_TAG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)</?(?:details|summary|br|p|pre|code|kbd|sub|sup|img|a|b|i|em|strong|div|span|hr|ul|ol|li|table|tr|td|th|h[1-6])(?-u:\b)[^>]*>",
    )
});
pub(super) static BOILERPLATE_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?ix-u)(?-u:\b)(?:
        steps\ to\ reproduce | (?:expected|actual|current|observed)\ (?:behaviou?rs?|results?|outcome)
        | describe\ the\ bug | bug\ description | to\ reproduce | additional\ (?:context|information|info)
        | minimal\ reproducible\ example | minimal\ reproduction | most\ recent\ call\ last
        | operating\ system | what\ happened | system\ info(?:rmation)?
    )(?-u:\b)")
});
pub(super) static PATH: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?x)
        (?P<path>
            (?:[A-Za-z]:[\\/] | \.{1,2}[\\/] | ~[\\/] | [\\/])?
            (?:(?:\.\.|\.?[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*)[\\/])*
            \.?[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*\.(?P<ext>[A-Za-z][A-Za-z0-9]{0,9})
        )
        (?::(?P<line>[0-9]{1,9})(?::[0-9]{1,9})?)?")
});
pub(super) static LONG_OPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s(\[{"'=,;|`])(--[A-Za-z0-9][A-Za-z0-9_-]*)"#));
pub(super) static ENV_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s(\[{"';|`])([A-Z][A-Z0-9_]*[A-Z0-9])=[^=]"#));
/// Prose that talks about settings, where a dotted key is one (`set cache.dir in the config`).
pub(super) static SETTINGS_TALK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i-u)(?-u:\b)(?:set|sets|setting|settings|option|options|config|configure|configured|configuration|key|keys|enable|enabled|disable|disabled|toml|yaml|yml|ini|properties)(?-u:\b)",
    )
});
pub(super) static SETTING: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s(\[{"'=,;|`])([a-z][a-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+)"#));
pub(super) static NUMBERISH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:[A-Za-z]{1,8})?v?[0-9]+(?:\.[0-9]+)+(?:[-+][A-Za-z0-9_.]+)?(?-u:\b)|(?-u:\b)0x[0-9A-Fa-f]+(?-u:\b)|(?-u:\b)[0-9][A-Za-z0-9_]*",
    )
});
pub(super) static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?-u:\b)(?:def|fn|func|function|class|struct|enum|trait|interface)\s+([A-Za-z_][A-Za-z0-9_]*)")
});

/// File extensions a bare `name.ext` (no directory) must have to be a path.
pub(super) const CODE_EXTENSIONS: &str = "\
    py pyi pyx rs go js mjs cjs ts mts cts tsx jsx vue svelte java kt kts c h cc cpp cxx hh hpp cs \
    fs rb php swift scala sh bash zsh ps1 lua dart ex exs erl hs ml clj zig nim proto gradle toml \
    yaml yml json jsonc cfg ini conf xml md rst txt html css scss sql lock mod ipynb tf properties \
    plist csproj sln props cmake mk gemspec rake erb ejs hbs jinja j2 twig pug less sass graphql gql \
    prisma sbt nix pl pm vb bat fish";

/// Bare `X.lock` and `X.mod` are paths only for these stems (`mutex.lock` is a call).
pub(super) const LOCK_STEMS: &str = "\
    cargo yarn poetry gemfile pipfile composer flake mix podfile uv pdm go";

/// Stems that make `x.ext` an attribute, not a file (`self.cfg`, `request.json`).
pub(super) const OBJECT_STEMS: &str = "\
    self this cls obj request response req resp res ctx";

/// Names of libraries written like files (`Node.js`).
pub(super) const JS_BRANDS: &str = "\
    node vue next nuxt react express angular ember backbone d3 three chart moment";

/// Whether `path` (with extension `ext`, lower-cased) is a file path.
pub(super) fn is_path(path: &str, ext: &str) -> bool {
    if path.contains(['/', '\\']) {
        return true;
    }
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s).to_lowercase();
    listed(CODE_EXTENSIONS, ext)
        && !listed(OBJECT_STEMS, stem.as_str())
        && (!matches!(ext, "lock" | "mod") || listed(LOCK_STEMS, stem.as_str()))
        && !(ext == "js" && listed(JS_BRANDS, stem.as_str()))
}

/// First parts of dotted keys that are settings, not code (`core.hooksPath`).
pub(super) const SETTINGS_ROOTS: &str = "\
    core user init remote branch http https pull push merge diff fetch gc credential alias tool \
    spring server logging management codecompass settings config editor workbench";

/// Parts after a dot that make a dotted token a file or a host, not a name (`x.tar.gz`).
pub(super) const NOT_NAME_PARTS: &str = "\
    gz tar tgz zip bz2 xz 7z rar exe dll so dylib bin png jpg jpeg gif svg ico webp bmp mp3 mp4 wav \
    pdf doc docx xls xlsx ppt csv tsv whl jar war egg pyc deb rpm dmg msi iso bak tmp orig swp com \
    org net edu gov js";

/// Words written in mixed case that are products or values, not identifiers.
pub(super) const BRANDS: &str = "\
    javascript typescript coffeescript github gitlab bitbucket pypi macos ios ipados iphone ipad \
    macbook postgresql mysql sqlite mongodb mariadb youtube linkedin openai chatgpt vscode \
    powershell jetbrains intellij pycharm webstorm devops freebsd openbsd netbsd centos redhat \
    opensuse graphql webassembly numpy scipy pytorch tensorflow fastapi sqlalchemy cpython pypy \
    junit eslint jquery wordpress openssl openssh virtualbox vmware nvidia homebrew chromeos webkit \
    webgl oauth dockerhub circleci appveyor nan phd";

/// Words before `(` in code that are keywords, not calls.
pub(super) const CALL_KEYWORDS: &str = "\
    if for while switch match return catch sizeof typeof with elif not and or in assert function fn \
    def lambda new await yield print";

/// Whether `after` (the text after a name) makes the name a call: `()` always, `(` in code,
/// `(args)` in prose unless it is a plural marker (`file(s)`).
pub(super) fn is_call(after: &str, code: bool) -> bool {
    if after.starts_with("()") || (code && after.starts_with('(')) {
        return true;
    }
    let Some(rest) = after.strip_prefix('(') else { return false };
    let Some(end) = rest.find(')') else { return false };
    let inside = &rest[..end];
    !inside.is_empty()
        && end <= 60
        && !inside.starts_with(char::is_whitespace)
        && !inside.contains('(')
        && !matches!(inside, "s" | "es" | "ies" | "S" | "ES")
}

/// Whether `name` (one of [`name_spans`]) is clearly code: `::`, `#`, dotted parts (not a file,
/// a host, an abbreviation or a missing space after a full stop), an inner `_`, a dunder, an
/// inner capital (not a product name or a plural acronym), or a call.
pub(super) fn is_identifier(name: &str, call: bool) -> bool {
    // Most names are plain words: a capital at most at the start, no `_`, `.`, `::` or `#`.
    let plain = !name.starts_with('_') && name.chars().skip(1).all(|c| c.is_lowercase() || c.is_numeric());
    if (plain && !call) || name.chars().count() < 2 {
        return false;
    }
    if name.contains("::") || name.contains('#') {
        return true;
    }
    if name.contains('.') {
        let parts: Vec<&str> = name.split('.').collect();
        if parts.iter().all(|p| p.chars().count() == 1) {
            return false;
        }
        if call {
            return true;
        }
        if parts[1..].iter().any(|p| listed(NOT_NAME_PARTS, p.to_lowercase().as_str())) {
            return false;
        }
        let sentence_break =
            parts.len() == 2 && parts[1].starts_with(char::is_uppercase) && is_stop_word(&parts[1].to_lowercase());
        return !sentence_break;
    }
    let core = name.trim_matches('_');
    if core.is_empty() {
        return false;
    }
    if core.contains('_') || (name.starts_with("__") && name.ends_with("__")) {
        return true;
    }
    if is_mixed_case(name) && !listed(BRANDS, name.to_lowercase().as_str()) && !is_acronym_plural(name) {
        return true;
    }
    call && !listed(CALL_KEYWORDS, name)
}

/// A lower-case letter and a capital after the first character (`getUser`, `HTTPServer`).
pub(super) fn is_mixed_case(name: &str) -> bool {
    name.chars().any(char::is_lowercase) && name.chars().skip(1).any(char::is_uppercase)
}

/// `APIs`, `URLs`, `PRs`.
pub(super) fn is_acronym_plural(name: &str) -> bool {
    let base = name.strip_suffix("es").or_else(|| name.strip_suffix('s')).unwrap_or(name);
    base.len() >= 2 && base.chars().all(|c| c.is_ascii_uppercase())
}

/// The camel-case parts of `part`: `getUserName` -> `get`, `User`, `Name`; `HTTPServer` ->
/// `HTTP`, `Server`; digits stay with the letters before them (`Base64Encoder`).
pub(super) fn camel_parts(part: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = part.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let prev = chars[k - 1].1;
        let next_lower = chars.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let boundary =
            c.is_uppercase() && ((prev.is_lowercase() || prev.is_ascii_digit()) || (prev.is_uppercase() && next_lower));
        if boundary {
            out.push(&part[start..i]);
            start = i;
        }
    }
    out.push(&part[start..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Words.

/// English words that say nothing in a search: articles, pronouns, auxiliaries, prepositions,
/// conjunctions, question words, greetings, fillers and contractions (without the apostrophe,
/// which [`Collector::word`] drops).
pub(super) const STOP_WORDS: &str = "\
    a an the this that these those i me my mine myself we us our ours ourselves you your yours \
    yourself yourselves he him his himself she her hers herself it its itself they them their theirs \
    themselves what which who whom whose when where why how whatever whenever wherever however \
    whoever am is are was were be been being have has had having do does did doing done will would \
    shall should can could may might must ought and but or nor so yet if then else than because as \
    until while although though unless whether of at by for with without within about against \
    between into through throughout during before after above below to from up down in out on off \
    over under again further once here there all any both each few more most other some such no nor \
    not only own same too very just also even still already always never ever often sometimes now \
    well much many lot lots really actually basically maybe perhaps probably quite rather somehow \
    something anything everything someone anyone everyone somebody anybody please pls plz thanks \
    thank thx hi hello hey dear regards cheers like get gets got gotten getting use uses using used \
    seem seems seemed seeming want wants wanted know knows knew think thought guess try tries tried \
    trying let lets etc eg ie vs via per yes ok okay oh anyway thing things stuff way since onto \
    upon across along around among toward towards instead whereas therefore thus hence somewhere \
    anywhere everywhere another either neither every enough one dont doesnt didnt isnt arent wasnt \
    werent cant cannot couldnt wouldnt shouldnt wont hasnt havent hadnt mustnt im ive youre \
    youve youd youll hes shes weve theyre theyve theyd theyll thats whats wheres whos theres \
    heres hows aint guys folks see";

/// Words of issue templates (`Steps to reproduce`, `Environment`), never clues.
pub(super) const BOILERPLATE_WORDS: &str = "\
    environment version versions os bug bugs traceback reproduce reproduced reproducing issue issues \
    report reports";

/// Keywords that say nothing when they occur in code.
pub(super) const CODE_KEYWORDS: &str = "\
    def fn func function return import class struct enum impl trait pub mut const var val static \
    void async await self cls super true false none null nil undefined elif try except finally raise \
    throw throws catch lambda yield pass break continue package public private protected override \
    extends implements interface new typeof instanceof sizeof switch case default match loop fi esac \
    echo export unsafe dyn ref crate mod end begin";

/// What a word in [`NOT_WORDS`] is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum NotWord {
    Stop,
    Boilerplate,
    Keyword,
}

/// Stop words, boilerplate and code keywords, looked up once per word.
pub(super) static NOT_WORDS: LazyLock<HashMap<&'static str, NotWord, BuildHasherDefault<Fnv>>> = LazyLock::new(|| {
    let mut table = HashMap::default();
    for (words, kind) in
        [(CODE_KEYWORDS, NotWord::Keyword), (BOILERPLATE_WORDS, NotWord::Boilerplate), (STOP_WORDS, NotWord::Stop)]
    {
        for w in words.split_whitespace() {
            table.insert(w, kind);
        }
    }
    table
});

/// Whether the lower-cased `w` is an English stop word.
pub(super) fn is_stop_word(w: &str) -> bool {
    NOT_WORDS.get(w) == Some(&NotWord::Stop)
}

/// FNV-1a, for the constant word table: its keys are short and fixed, so `SipHash`'s set-up
/// costs more than it protects.
pub(super) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Whether the lower-cased `w` is a word worth searching: starts with a letter, two characters
/// or more, not a stop word, boilerplate, a code keyword (in code), a `v2`-style version or a
/// hexadecimal hash or address (`e29b`, `deadbeef1`; error codes such as `e0308` stay).
pub(super) fn keep_word(w: &str, code: bool) -> bool {
    let mut chars = w.chars();
    let Some(first) = chars.next() else { return false };
    if !first.is_alphabetic() || chars.next().is_none() {
        return false;
    }
    match NOT_WORDS.get(w) {
        Some(NotWord::Stop | NotWord::Boilerplate) => return false,
        Some(NotWord::Keyword) if code => return false,
        _ => {}
    }
    let digits = w.chars().filter(char::is_ascii_digit).count();
    if let Some(rest) = w.strip_prefix('v')
        && !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_digit())
    {
        return false;
    }
    let error_code = w.chars().skip(1).all(|c| c.is_ascii_digit()) && digits >= 3;
    let hex = w.len() >= 4 && digits > 0 && w.chars().all(|c| c.is_ascii_hexdigit());
    !hex || error_code
}
