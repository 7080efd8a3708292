//! Signatures: a definition's head without its body, on one line.

use tree_sitter::Node;

/// Node kinds that hold a definition's body in the grammars we link; a child with the field
/// name `body` counts too.
const BODY_KINDS: &[&str] = &[
    "block",
    "compound_statement",
    "declaration_list",
    "field_declaration_list",
    "enum_variant_list",
    "class_body",
    "interface_body",
    "enum_body",
    "annotation_type_body",
    "record_body",
    "statement_block",
    "object_type",
    "function_body",
    "body_statement",
    "template_body",
    "class_declaration_body",
    "protocol_body",
    "enum_class_body",
    "type_body",
    "member_declaration_list",
    "enumerator_list",
    "do_block",
    "closure",
    "block_mapping",
    "object",
    "body",
];

/// The head of `node`: its text up to the body, whitespace collapsed, leading annotations and
/// decorators dropped, cut to `max_chars` characters.
pub fn of(node: Node<'_>, source: &[u8], max_chars: usize) -> String {
    let start = node.start_byte();
    let end = body_start(node).unwrap_or_else(|| head_end(node, source));
    let text = String::from_utf8_lossy(&source[start..end.max(start)]);
    let collapsed = collapse(&text);
    let without_annotations = skip_annotations(&collapsed);
    let trimmed = without_annotations.trim_end_matches(|c: char| c == '{' || c == ':' || c.is_whitespace());
    truncate(trimmed, max_chars)
}

fn body_start(node: Node<'_>) -> Option<usize> {
    if let Some(body) = node.child_by_field_name("body")
        && body.start_byte() > node.start_byte()
    {
        return Some(body.start_byte());
    }
    let mut cursor = node.walk();
    let body = node.named_children(&mut cursor).skip(1).filter(|c| BODY_KINDS.contains(&c.kind())).last();
    body.map(|b| b.start_byte()).filter(|&s| s > node.start_byte())
}

/// Without a body, the head is the first line, continued while parentheses or brackets
/// opened on it are still open (a prototype over several lines) or a line ends in the middle
/// of a list or declaration (`,`, `<`, `=`: a TypeScript function type's type parameters, one
/// per line), up to twelve lines.
fn head_end(node: Node<'_>, source: &[u8]) -> usize {
    let start = node.start_byte();
    let end = node.end_byte();
    let mut depth: i32 = 0;
    let mut lines = 0;
    let mut last = b' ';
    for (i, &b) in source[start..end].iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'\n' => {
                lines += 1;
                let continued = matches!(last, b',' | b'<' | b'=');
                if (depth <= 0 && !continued) || lines == 12 {
                    return start + i;
                }
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
    }
    end
}

fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Drops leading `@Annotation(...)` / `@decorator` words.
fn skip_annotations(mut text: &str) -> &str {
    while let Some(rest) = text.strip_prefix('@') {
        let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        let mut after = &rest[name_len..];
        if after.starts_with('(') {
            let mut depth = 0usize;
            let mut cut = after.len();
            for (i, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            cut = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            after = &after[cut..];
        }
        let next = after.trim_start();
        if next.len() == text.len() || next.is_empty() {
            break;
        }
        text = next;
    }
    text
}

/// `text` in at most `max_chars` characters (and an ellipsis): its start and, for a quarter of
/// them, its end, where a signature says what it returns (`def f(a, … z) -> Response`).
fn truncate(text: &str, max_chars: usize) -> String {
    // Most signatures are short: no characters to count.
    if text.len() <= max_chars {
        return text.to_owned();
    }
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_owned();
    }
    let tail = max_chars / 4;
    let head: String = text.chars().take(max_chars - tail).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{head}…{end}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_are_dropped_and_text_is_cut() {
        assert_eq!(skip_annotations("@Override public void run()"), "public void run()");
        assert_eq!(skip_annotations("@GetMapping(\"/x\") @Deprecated int f()"), "int f()");
        assert_eq!(skip_annotations("@"), "@");
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("def f(a, b, c) -> R", 16), "def f(a, b, …-> R");
        assert_eq!(truncate("añb", 5), "añb");
        assert_eq!(collapse("fn  f(\n    a: u8,\n) "), "fn f( a: u8, )");
    }
}
