//! Documents for one file version: one file document (path, name, trigrams of the content),
//! one symbol document per symbol, and snippet documents covering the code: each function
//! body, and the top-level code between functions in chunks.

use tantivy::TantivyDocument;

use super::{DocKind, Fields, Place};

/// Snippets longer than this are split.
const MAX_SNIPPET_LINES: u32 = 200;
/// Code between functions is chunked at this many lines.
const GAP_CHUNK_LINES: u32 = 60;

/// A symbol as documents need it.
#[derive(Clone, Debug)]
pub struct DocSymbol {
    /// Ordinal in its record.
    pub ord: u32,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// Signature.
    pub signature: String,
    /// Doc paragraph.
    pub doc: Option<String>,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
}

/// What the documents of one file version are made from.
pub struct DocInput<'a> {
    /// File version id.
    pub fv: u32,
    /// Repository-relative path.
    pub path: &'a str,
    /// Language index + 1, 0 for none.
    pub lang: u64,
    /// The content when it is text, within the size limit, and valid UTF-8 (for snippets).
    pub content: Option<&'a str>,
    /// The text trigrams are taken from (any text up to a bound, lossily decoded); `None`
    /// leaves the file to be scanned at query time.
    pub trigram_text: Option<&'a str>,
    /// Whether snippets are wanted (code and prose; not lock files or minified bundles).
    pub snippets: bool,
    /// The symbols.
    pub symbols: &'a [DocSymbol],
}

fn is_function_like(kind: &str) -> bool {
    matches!(kind, "function" | "method" | "constructor" | "macro")
}

/// The snippet ranges of a file of `line_count` lines: function bodies first, then the
/// uncovered lines in chunks.
pub fn snippet_ranges(symbols: &[DocSymbol], line_count: u32) -> Vec<(u32, u32)> {
    let mut functions: Vec<(u32, u32)> = symbols
        .iter()
        .filter(|s| is_function_like(&s.kind) && s.line_end >= s.line_start)
        .map(|s| (s.line_start, s.line_end))
        .collect();
    functions.sort_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
    // Keep outermost functions only: nested ones are inside their parent's snippet.
    let mut outer: Vec<(u32, u32)> = Vec::new();
    for (a, b) in functions {
        if outer.last().is_some_and(|&(_, end)| a <= end) {
            continue;
        }
        outer.push((a, b));
    }
    let mut ranges = Vec::new();
    let mut next_uncovered = 1;
    let push_chunks = |ranges: &mut Vec<(u32, u32)>, from: u32, to: u32, size: u32| {
        let mut start = from;
        while start <= to {
            let end = (start + size - 1).min(to);
            ranges.push((start, end));
            start = end + 1;
        }
    };
    for &(a, b) in &outer {
        if a > next_uncovered {
            push_chunks(&mut ranges, next_uncovered, a - 1, GAP_CHUNK_LINES);
        }
        push_chunks(&mut ranges, a, b.min(line_count.max(a)), MAX_SNIPPET_LINES);
        next_uncovered = b + 1;
    }
    if next_uncovered <= line_count {
        push_chunks(&mut ranges, next_uncovered, line_count, GAP_CHUNK_LINES);
    }
    ranges
}

/// The documents of one file version.
pub fn documents_for(fields: &Fields, input: &DocInput<'_>) -> Vec<TantivyDocument> {
    let mut docs = Vec::new();
    let file_name = input.path.rsplit('/').next().unwrap_or(input.path);
    let mut file = TantivyDocument::default();
    file.add_u64(fields.kind, DocKind::File as u64);
    file.add_u64(fields.fv, u64::from(input.fv));
    file.add_u64(fields.lang, input.lang);
    file.add_u64(fields.place, Place { kind: DocKind::File, ord: 0 }.pack());
    file.add_u64(fields.span, Place::span(1, 1));
    file.add_text(fields.path, input.path);
    file.add_text(fields.name, file_name);
    if let Some(text) = input.trigram_text {
        file.add_text(fields.trigrams, text);
    }
    docs.push(file);

    // Fields and enum members are many (a C tree has millions) and are found by name through
    // the store and by text through snippets; they get no symbol documents of their own.
    for s in input.symbols.iter().filter(|s| !matches!(s.kind.as_str(), "field" | "enum_member")) {
        let mut doc = TantivyDocument::default();
        doc.add_u64(fields.kind, DocKind::Symbol as u64);
        doc.add_u64(fields.fv, u64::from(input.fv));
        doc.add_u64(fields.lang, input.lang);
        doc.add_u64(fields.place, Place { kind: DocKind::Symbol, ord: s.ord }.pack());
        doc.add_u64(fields.span, Place::span(s.line_start, s.line_end));
        doc.add_text(fields.name, &s.name);
        if s.qualified_name != s.name {
            doc.add_text(fields.qualified, &s.qualified_name);
        }
        doc.add_text(fields.signature, &s.signature);
        if let Some(d) = &s.doc {
            doc.add_text(fields.doc, d);
        }
        docs.push(doc);
    }

    if let (Some(content), true) = (input.content, input.snippets) {
        let lines: Vec<&str> = content.split_inclusive('\n').collect();
        for (start, end) in snippet_ranges(input.symbols, lines.len() as u32) {
            let body: String = lines[(start - 1) as usize..end as usize].concat();
            if body.trim().is_empty() {
                continue;
            }
            let mut doc = TantivyDocument::default();
            doc.add_u64(fields.kind, DocKind::Snippet as u64);
            doc.add_u64(fields.fv, u64::from(input.fv));
            doc.add_u64(fields.lang, input.lang);
            doc.add_u64(fields.place, Place { kind: DocKind::Snippet, ord: 0 }.pack());
            doc.add_u64(fields.span, Place::span(start, end));
            doc.add_text(fields.body, &body);
            docs.push(doc);
        }
    }
    docs
}

/// Adds the documents of a Rust file version at `src/task.rs` to `writer`: the fixture of
/// the collectors' tests.
#[cfg(test)]
pub(crate) fn add_test_file(
    writer: &mut tantivy::IndexWriter,
    fields: &Fields,
    fv: u32,
    content: &str,
    symbols: &[DocSymbol],
) {
    let input = DocInput {
        fv,
        path: "src/task.rs",
        lang: 1,
        content: Some(content),
        trigram_text: Some(content),
        snippets: true,
        symbols,
    };
    for doc in documents_for(fields, &input) {
        writer.add_document(doc).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(a: u32, b: u32) -> DocSymbol {
        DocSymbol {
            ord: 0,
            name: "f".into(),
            qualified_name: "f".into(),
            kind: "function".into(),
            signature: String::new(),
            doc: None,
            line_start: a,
            line_end: b,
        }
    }

    #[test]
    fn a_documents_place_and_lines_come_back_from_their_columns() {
        for place in [
            Place { kind: DocKind::File, ord: 0 },
            Place { kind: DocKind::Symbol, ord: (1 << 30) - 1 },
            Place { kind: DocKind::Snippet, ord: 12 },
        ] {
            assert_eq!(Place::unpack(place.pack()), place);
        }
        assert_eq!(Place::lines(Place::span(1, u32::MAX)), (1, u32::MAX));
        assert_eq!(Place::lines(Place::span(2527, 2531)), (2527, 2531));
        // An ordinal too large for the column is cut, never spilled into the kind.
        assert_eq!(Place::unpack(Place { kind: DocKind::File, ord: u32::MAX }.pack()).kind, DocKind::File);
    }

    #[test]
    fn snippets_cover_functions_and_the_code_between() {
        let symbols = [function(3, 10), function(5, 6), function(20, 22)];
        assert_eq!(snippet_ranges(&symbols, 25), [(1, 2), (3, 10), (11, 19), (20, 22), (23, 25)]);
        assert_eq!(snippet_ranges(&[], 130), [(1, 60), (61, 120), (121, 130)]);
        assert_eq!(snippet_ranges(&[function(1, 450)], 450), [(1, 200), (201, 400), (401, 450)]);
    }
}
