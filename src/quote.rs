//! Paths and queries as text shows them.

/// A path as text output shows it: as is, unless it holds a control character, `"` or `\`;
/// then in double quotes with C escapes, as `git` quotes such names, so that a file name with
/// a newline cannot print a line that looks like a result.
pub fn quote_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    std::borrow::Cow::Owned(out)
}

/// Characters of a query echoed in a message, at most.
const SHOWN_QUERY: usize = 80;

/// A query as a message echoes it: whole when short, else its start and how long it was (a
/// pasted issue of 100 KB is not printed back).
pub fn shown_query(query: &str) -> std::borrow::Cow<'_, str> {
    match query.char_indices().nth(SHOWN_QUERY) {
        None => std::borrow::Cow::Borrowed(query),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}… ({} characters)", &query[..cut], query.chars().count())),
    }
}

#[cfg(test)]
mod tests {
    use super::{quote_path, shown_query};

    #[test]
    fn long_queries_are_shown_cut() {
        assert_eq!(shown_query("Cart::total"), "Cart::total");
        let long = "ab".repeat(50_000);
        let shown = shown_query(&long);
        assert!(shown.len() < 120 && shown.ends_with("… (100000 characters)"), "{shown}");
    }

    #[test]
    fn names_with_control_characters_are_quoted_as_git_does() {
        assert_eq!(quote_path("src/a b.rs"), "src/a b.rs");
        assert_eq!(quote_path("café.rs"), "café.rs");
        assert_eq!(quote_path("a\nb.rs:1:fake"), "\"a\\nb.rs:1:fake\"");
        assert_eq!(quote_path("tab\there"), "\"tab\\there\"");
        assert_eq!(quote_path("q\"uote"), "\"q\\\"uote\"");
        assert_eq!(quote_path("bell\u{7}"), "\"bell\\007\"");
    }
}
