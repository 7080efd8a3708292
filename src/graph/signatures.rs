//! What the text of a signature says, for the resolvers: splitting at top-level separators,
//! the parameters, return type and bases of a Python signature, and the class an annotation
//! names.

pub(super) fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.starts_with(char::is_numeric)
}

/// Splits `s` at `separator` where no bracket or string is open.
pub(super) fn split_top(s: &str, separator: char) -> Vec<&str> {
    split_top_with(s, separator, false)
}

/// Splits `s` at `separator` where no bracket or string is open; with `angles`, `<...>` counts
/// as a bracket (TypeScript's type arguments; `=>` closes none), and the `=` of `=>` is no
/// separator.
pub(super) fn split_top_with(s: &str, separator: char, angles: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut previous = ' ';
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, '<') if angles => depth += 1,
            (None, '>') if angles && previous != '=' => depth -= 1,
            (None, '=') if angles && separator == '=' && s[i + 1..].starts_with('>') => {}
            (None, c) if c == separator && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
        previous = c;
    }
    out.push(&s[start..]);
    out
}

/// The text between the first `(` of `s` and its closing `)`, and what follows it.
pub(super) fn parenthesised(s: &str) -> Option<(&str, &str)> {
    let open = s.find('(')?;
    let mut depth = 0i32;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&s[open + 1..open + i], &s[open + i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// The class an annotation names: `Flask`, `sansio.App`, `"Flask"`, `App | None`,
/// `t.Optional[App]`, `type[App]`; `None` for anything else (a union, a generic container).
pub(super) fn annotation_class(annotation: &str) -> Option<String> {
    let a = annotation.trim().trim_matches(['"', '\'']).trim();
    let parts: Vec<&str> = split_top(a, '|').into_iter().map(str::trim).filter(|p| *p != "None").collect();
    let [one] = parts.as_slice() else { return None };
    if let Some((inner, after)) = one.split_once('[').map(|(head, rest)| (rest.strip_suffix(']'), head)) {
        let wrapper = after.rsplit('.').next().unwrap_or(after);
        return match (wrapper, inner) {
            ("Optional" | "type" | "Type" | "ClassVar" | "Final", Some(inner)) => annotation_class(inner),
            _ => None,
        };
    }
    let dotted = one.split('.').all(is_identifier);
    (dotted && one.rsplit('.').next().is_some_and(|n| n.starts_with(char::is_uppercase))).then(|| one.to_string())
}

/// Parameter `name` of a function's signature, when it has one, with the class its annotation
/// names.
pub(super) fn parameter(signature: &str, name: &str) -> Option<Option<String>> {
    parameter_written(signature, name).map(annotation_class)
}

/// Parameter `name` of a function's signature, when it has one, with its annotation as
/// written (empty without one).
pub(super) fn parameter_written<'s>(signature: &'s str, name: &str) -> Option<&'s str> {
    let (params, _) = parenthesised(signature)?;
    for param in split_top(params, ',') {
        let param = param.trim().trim_start_matches('*');
        let declared = split_top(param, '=')[0];
        let (n, annotation) = declared.split_once(':').unwrap_or((declared, ""));
        if n.trim() == name {
            return Some(annotation.trim());
        }
    }
    None
}

/// The class the annotation of parameter `name` names.
pub(super) fn parameter_annotation(signature: &str, name: &str) -> Option<String> {
    parameter(signature, name).flatten()
}

/// The class after `->` in a function's signature.
pub(super) fn return_annotation(signature: &str) -> Option<String> {
    return_written(signature).and_then(annotation_class)
}

/// The annotation after `->` in a function's signature, as written.
pub(super) fn return_written(signature: &str) -> Option<&str> {
    // The last `->` after a `)`: a long signature keeps its end, not all of its parameters
    // (`def request(self, method, … proxies=None) -> Response`).
    let arrow = signature.rmatch_indices("->").map(|(i, _)| i).find(|&i| signature[..i].trim_end().ends_with(')'))?;
    let annotation = &signature[arrow + 2..];
    // A signature may keep a comment after its colon (`-> Iterator[Cookie]: # type: ignore`).
    let annotation = annotation.split('#').next().unwrap_or(annotation);
    Some(annotation.trim().trim_end_matches(':').trim_end())
}

/// The annotation of an attribute or variable: `name: App = ...`, `self.name: App`.
pub(super) fn field_annotation(signature: &str, name: &str) -> Option<String> {
    field_written(signature, name).and_then(annotation_class)
}

/// The annotation of an attribute or variable as written: `list[App]` of `apps: list[App] = []`.
pub(super) fn field_written<'s>(signature: &'s str, name: &str) -> Option<&'s str> {
    let s = signature.trim().strip_prefix("self.").unwrap_or(signature.trim());
    let rest = s.strip_prefix(name)?.trim_start().strip_prefix(':')?;
    Some(split_top(rest, '=')[0].trim())
}

/// The class of the elements an annotation's iteration gives: `App` of `list[App]`,
/// `Iterator[App]`, `t.Sequence["App"]`, `tuple[App, ...]`, `Generator[App, None, None]`;
/// `None` for anything else (a mapping iterates its keys, a plain class its `__iter__`).
pub(super) fn element_annotation(annotation: &str) -> Option<String> {
    const ITERABLES: &[&str] = &[
        "list",
        "List",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "tuple",
        "Tuple",
        "Iterable",
        "Iterator",
        "Sequence",
        "MutableSequence",
        "Collection",
        "AbstractSet",
        "MutableSet",
        "Generator",
        "deque",
        "Deque",
        "AsyncIterator",
        "AsyncIterable",
        "AsyncGenerator",
        "Reversible",
    ];
    let a = annotation.trim().trim_matches(['"', '\'']).trim();
    let parts: Vec<&str> = split_top(a, '|').into_iter().map(str::trim).filter(|p| *p != "None").collect();
    let [one] = parts.as_slice() else { return None };
    let (wrapper, rest) = one.split_once('[')?;
    let inner = rest.strip_suffix(']')?;
    let wrapper = wrapper.trim().rsplit('.').next().unwrap_or(wrapper);
    if wrapper == "Optional" {
        return element_annotation(inner);
    }
    if !ITERABLES.contains(&wrapper) {
        return None;
    }
    let arguments = split_top(inner, ',');
    // `tuple[A, B]` holds elements of two classes; `tuple[A, ...]` of one.
    if matches!(wrapper, "tuple" | "Tuple") && !(arguments.len() == 2 && arguments[1].trim() == "...") {
        return None;
    }
    annotation_class(arguments[0])
}

/// A member use's receiver as a value chain (see `extract::occurrences`): `requests.post()` of
/// `requests.post(url, data=x)`, calls' arguments left out; `None` for a receiver that is no
/// chain of names and calls (an index, a literal, an operator), and for one long enough to
/// have been cut from the left when it was stored (`limit`).
pub(super) fn receiver_chain(qualifier: &str, limit: usize) -> Option<String> {
    if qualifier.contains('(') && qualifier.len() >= limit {
        return None;
    }
    let mut out = String::with_capacity(qualifier.len());
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in qualifier.chars() {
        if depth == 0 {
            match c {
                '(' => depth = 1,
                '.' => out.push(c),
                c if c.is_alphanumeric() || c == '_' => out.push(c),
                _ => return None,
            }
            continue;
        }
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    out.push_str("()");
                }
            }
            _ => {}
        }
    }
    let well_formed =
        depth == 0 && out.split('.').all(|segment| is_identifier(segment.strip_suffix("()").unwrap_or(segment)));
    well_formed.then_some(out)
}

/// The class called on the right of an assignment: `Flask` of `app = Flask(__name__)`.
pub(super) fn constructed(signature: &str) -> Option<String> {
    let right = split_top(signature, '=').get(1)?.trim();
    let (callee, _) = right.split_once('(')?;
    annotation_class(callee)
}

/// The plain name assigned to an attribute: `app` of `self.app = app`.
pub(super) fn assigned_name(signature: &str, name: &str) -> Option<String> {
    let s = signature.trim().strip_prefix("self.").unwrap_or(signature.trim());
    let right = s.strip_prefix(name)?.trim_start().strip_prefix('=')?.trim();
    is_identifier(right).then(|| right.to_owned())
}

/// The bases a class's signature names: `A`, `m.B` of `class C(A, m.B, metaclass=M)`.
pub(super) fn base_names(signature: &str) -> Vec<String> {
    let Some((bases, _)) = parenthesised(signature) else { return Vec::new() };
    split_top(bases, ',')
        .into_iter()
        .map(str::trim)
        .filter(|b| !b.contains('=') && !b.starts_with('*'))
        .map(|b| b.split('[').next().unwrap_or(b).trim())
        .filter(|b| !b.is_empty() && b.split('.').all(is_identifier))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_name_one_class_or_none() {
        assert_eq!(annotation_class("Flask").as_deref(), Some("Flask"));
        assert_eq!(annotation_class(" App | None ").as_deref(), Some("App"));
        assert_eq!(annotation_class("\"Flask\"").as_deref(), Some("Flask"));
        assert_eq!(annotation_class("t.Optional[sansio.App]").as_deref(), Some("sansio.App"));
        assert_eq!(annotation_class("type[Config]").as_deref(), Some("Config"));
        assert_eq!(annotation_class("dict[str, App]"), None);
        assert_eq!(annotation_class("App | Blueprint"), None);
        assert_eq!(annotation_class("str"), None);
    }

    #[test]
    fn signatures_give_parameters_returns_fields_and_bases() {
        let sig =
            "def register(self, app: App, options: dict[str, t.Any], *, ctx: \"AppContext\" = None) -> Response | None";
        assert_eq!(parameter_annotation(sig, "app").as_deref(), Some("App"));
        assert_eq!(parameter_annotation(sig, "options"), None);
        assert_eq!(parameter_annotation(sig, "ctx").as_deref(), Some("AppContext"));
        assert_eq!(parameter(sig, "self"), Some(None));
        assert_eq!(parameter(sig, "request"), None);
        assert_eq!(return_annotation(sig).as_deref(), Some("Response"));
        assert_eq!(return_annotation("def json(self) -> JSONProvider:").as_deref(), Some("JSONProvider"));
        assert_eq!(
            field_annotation("self.json: JSONProvider = self.json_provider_class(self)", "json").as_deref(),
            Some("JSONProvider")
        );
        assert_eq!(field_annotation("name: str", "name"), None);
        assert_eq!(constructed("self.config = Config(root_path)").as_deref(), Some("Config"));
        assert_eq!(constructed("app = flask.Flask(__name__)").as_deref(), Some("flask.Flask"));
        assert_eq!(constructed("x = make()"), None);
        assert_eq!(assigned_name("self.app = app", "app").as_deref(), Some("app"));
        assert_eq!(assigned_name("self.app = app or None", "app"), None);
        assert_eq!(base_names("class Blueprint(Scaffold, t.Generic[T], metaclass=Meta)"), ["Scaffold", "t.Generic"]);
        assert!(base_names("class Plain").is_empty());
        assert_eq!(parameter_written(sig, "options"), Some("dict[str, t.Any]"));
        assert_eq!(parameter_written(sig, "self"), Some(""));
        assert_eq!(return_written("def items(self) -> Iterator[Cookie]:"), Some("Iterator[Cookie]"));
        assert_eq!(
            return_written("def it(self) -> Iterator[Cookie]: # type: ignore[override]"),
            Some("Iterator[Cookie]")
        );
        assert_eq!(return_written("def request( self, url: t.Di… proxies: P = None, ) -> Response"), Some("Response"));
        assert_eq!(return_written("def f(x: Callable[[], int] = g()) -> \"App\":"), Some("\"App\""));
        assert_eq!(return_written("def f(x)"), None);
        assert_eq!(field_written("self.apps: list[App] = []", "apps"), Some("list[App]"));
    }

    #[test]
    fn iterables_name_the_class_of_their_elements() {
        assert_eq!(element_annotation("list[App]").as_deref(), Some("App"));
        assert_eq!(element_annotation("t.Iterator[\"Cookie\"]").as_deref(), Some("Cookie"));
        assert_eq!(element_annotation("Generator[App, None, None]").as_deref(), Some("App"));
        assert_eq!(element_annotation("tuple[App, ...]").as_deref(), Some("App"));
        assert_eq!(element_annotation("Optional[Sequence[m.App]]").as_deref(), Some("m.App"));
        assert_eq!(element_annotation("list[App] | None").as_deref(), Some("App"));
        assert_eq!(element_annotation("tuple[App, Blueprint]"), None);
        assert_eq!(element_annotation("dict[str, App]"), None);
        assert_eq!(element_annotation("list[str]"), None);
        assert_eq!(element_annotation("App"), None);
    }

    #[test]
    fn receivers_read_as_chains_of_names_and_calls() {
        assert_eq!(receiver_chain("self.app", 80).as_deref(), Some("self.app"));
        assert_eq!(receiver_chain("requests.post(url,data=f(x))", 80).as_deref(), Some("requests.post()"));
        assert_eq!(
            receiver_chain("requests.Request(m,\")(\").prepare()", 80).as_deref(),
            Some("requests.Request().prepare()")
        );
        assert_eq!(receiver_chain("super()", 80).as_deref(), Some("super()"));
        assert_eq!(receiver_chain("s.adapters[\"x\"].f()", 80), None);
        assert_eq!(receiver_chain("a(b", 80), None);
        assert_eq!(receiver_chain("b)", 80), None);
        assert_eq!(receiver_chain("(a+b).c()", 80), None);
        assert_eq!(receiver_chain("x.f(1)", 6), None, "as long as the stored limit: maybe cut");
    }
}
