//! `locate`: where is a symbol defined. Exact name first, then case-insensitive, then a
//! qualified-name suffix (`Class.method`, `mod::fn`); definitions before declarations.

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::extract::{Role, name_segments as segments, qualified_suffix};
use crate::lang;
use crate::view::Scope;

/// A `locate` question.
#[derive(Clone, Debug)]
pub struct LocateRequest {
    /// The name, bare or qualified.
    pub name: String,
    /// Only this kind.
    pub kind: Option<String>,
    /// Only this language.
    pub lang: Option<String>,
    /// The scope.
    pub scope: Scope,
    /// At most this many results.
    pub limit: usize,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// One place a symbol is defined or declared.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LocateResult {
    /// Repository-relative path.
    pub path: String,
    /// First line of the definition (1-based).
    pub line_start: u32,
    /// Last line of the definition.
    pub line_end: u32,
    /// The line of the name itself.
    pub line: u32,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// Language.
    pub language: String,
    /// Declaration head.
    pub signature: String,
    /// `definition` or `declaration`.
    pub role: &'static str,
    /// Visibility, where the language has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<String>,
    /// First doc paragraph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Survives moves; changes with the API.
    pub stable_id: String,
    /// How the name matched: `exact`, `case_insensitive` or `qualified_suffix`.
    pub match_type: &'static str,
}

/// The answer of `locate`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LocateResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// The places, best first.
    pub results: Vec<LocateResult>,
    /// How many matched before the limit.
    pub total_matches: usize,
    /// Names that start like the query, when nothing matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

pub(super) fn run(engine: &Engine, request: &LocateRequest) -> Result<LocateResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let query = request.name.trim();
    let parts = segments(query);
    let last = parts.last().copied().unwrap_or(query);
    let qualified_query = parts.len() > 1;
    let kind = request.kind.as_deref().map(str::to_ascii_lowercase);
    if let Some(k) = kind.as_deref().filter(|k| !lang::KINDS.contains(k)) {
        return Err(Error::new(crate::error::ErrorCode::InvalidArgument, format!("unknown kind `{k}`"))
            .with_remedy(format!("use one of: {}", lang::KINDS.join(", "))));
    }
    if request.limit == 0 {
        return Err(Error::new(crate::error::ErrorCode::InvalidArgument, "--limit must be at least 1"));
    }
    let wanted_lang = match request.lang.as_deref() {
        Some(l) => Some(
            lang::by_name(l)
                .ok_or_else(|| {
                    Error::new(crate::error::ErrorCode::InvalidArgument, format!("unknown language `{l}`")).with_remedy(
                        format!(
                            "use one of: {}",
                            lang::LANGUAGES.iter().map(|l| l.name).collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?
                .name,
        ),
        None => None,
    };
    let bitmap = &resolved.view.bitmap;
    let max_file_size = engine.workspace().max_file_size();
    let mut found = Vec::new();
    let mut paths = std::collections::HashMap::new();
    // A name may itself contain separators (a markdown heading, a CSS selector): look it up
    // whole, and by its last segment for qualified matches.
    let mut rows = store.symbols_named(query)?;
    if qualified_query {
        rows.extend(store.symbols_named(last)?);
    }
    let mut seen = std::collections::HashSet::new();
    for (symbol, fv, lang, extractor) in rows {
        if !seen.insert((symbol.record, symbol.ord, fv)) {
            continue;
        }
        if !bitmap.contains(fv) {
            continue;
        }
        let Some(language) = lang::by_name(&lang) else {
            continue;
        };
        if extractor != crate::indexer::record_key(language.name, max_file_size) {
            continue;
        }
        if kind.as_deref().is_some_and(|k| k != symbol.kind) || wanted_lang.is_some_and(|l| l != language.name) {
            continue;
        }
        let tier = if symbol.name == query {
            0
        } else if symbol.name.eq_ignore_ascii_case(query) {
            1
        } else if qualified_query && qualified_suffix(&symbol.qualified_name, &parts) {
            if symbol.name == last { 2 } else { 3 }
        } else {
            continue;
        };
        let path = match paths.get(&fv) {
            Some(p) => String::clone(p),
            None => {
                let info = store.file_infos([fv])?.pop();
                let p = info.map(|i| i.path_str()).unwrap_or_default();
                paths.insert(fv, p.clone());
                p
            }
        };
        found.push((tier, symbol, path, language.name));
    }
    // Tests, vendored and generated code rank after the code itself when names tie.
    let mut generated = std::collections::HashMap::new();
    for f in &found {
        if let std::collections::hash_map::Entry::Vacant(e) = generated.entry(f.1.record) {
            let status = store.record_status(f.1.record)?;
            e.insert(status.as_deref() == Some("generated") || is_generated_path(&f.2));
        }
    }
    // Each match's key computed once (a common name has thousands of matches).
    found.sort_by_cached_key(|f| {
        let below = path_penalty(&f.2).max(u8::from(crate::graph::is_test_path(&f.2)));
        (f.0, f.1.role == Role::Declaration, below.max(u8::from(generated[&f.1.record])), f.2.clone(), f.1.name_line)
    });
    let total = found.len();
    let results: Vec<LocateResult> = found
        .into_iter()
        .take(request.limit)
        .map(|(tier, s, path, language)| LocateResult {
            path,
            line_start: s.line_start,
            line_end: s.line_end,
            line: s.name_line,
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind,
            language: language.to_owned(),
            signature: s.signature,
            role: if s.role == Role::Definition { "definition" } else { "declaration" },
            visibility: s.visibility,
            doc: s.doc,
            stable_id: s.stable_id,
            match_type: match tier {
                0 => "exact",
                1 => "case_insensitive",
                _ => "qualified_suffix",
            },
        })
        .collect();
    let suggestions = if results.is_empty() { suggest(&store, bitmap, last)? } else { Vec::new() };
    store.touch_view(resolved.view.id);
    super::across::release(store);
    let completeness = if total > results.len() { "truncated" } else { "complete" };
    Ok(LocateResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        query: query.to_owned(),
        results,
        total_matches: total,
        suggestions,
        metadata: metadata(&resolved, completeness),
    })
}

/// Tests, fixtures and vendored code rank after the code itself when names tie.
pub(crate) fn path_penalty(path: &str) -> u8 {
    const DOWN: &[&str] = &[
        "test",
        "tests",
        "__tests__",
        "spec",
        "mocks",
        "fixtures",
        "testdata",
        "generated",
        "vendor",
        "examples",
        "docs",
    ];
    u8::from(path.split('/').any(|segment| DOWN.contains(&segment)))
}

/// Generated code by its file name: protobuf, gRPC and other generators' conventions.
pub(crate) fn is_generated_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".pb.go")
        || name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".pb.h")
        || name.ends_with(".pb.cc")
        || name.ends_with(".g.dart")
        || name.ends_with(".freezed.dart")
        || name.contains("_generated.")
        || name.contains(".generated.")
        || name.ends_with("_gen.go")
}

fn suggest(store: &crate::store::Store, bitmap: &roaring::RoaringBitmap, name: &str) -> Result<Vec<String>, Error> {
    let prefix: String = name.chars().take(4).collect();
    if prefix.is_empty() {
        return Ok(Vec::new());
    }
    let escaped = prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT s.name, fv.id FROM symbols s JOIN records r ON r.id = s.record
             JOIN file_versions fv ON fv.blob = r.blob AND fv.lang = r.lang
             WHERE s.name LIKE ?1 ESCAPE '\\' LIMIT 2000",
        )
        .map_err(crate::store::StoreError::from)?;
    let mut names: Vec<String> = stmt
        .query_map([format!("{escaped}%")], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
        .map_err(crate::store::StoreError::from)?
        .filter_map(|r| r.ok())
        .filter(|(_, fv)| bitmap.contains(*fv))
        .map(|(n, _)| n)
        .collect();
    names.sort();
    names.dedup();
    names.truncate(10);
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_match_on_segment_boundaries() {
        assert!(qualified_suffix("Index::find", &segments("Index::find")));
        assert!(qualified_suffix("geometry::Index::find", &segments("Index.find")));
        assert!(!qualified_suffix("MyIndex::find", &segments("Index::find")));
        assert!(qualified_suffix("Greeter.greet", &segments("greeter.GREET")));
        assert_eq!(path_penalty("src/tests/a.rs"), 1);
        assert_eq!(path_penalty("src/contest/a.rs"), 0);
        assert!(is_generated_path("api/v1/service.pb.go"));
        assert!(is_generated_path("proto/x_pb2.py"));
        assert!(!is_generated_path("src/generate.rs"));
    }
}
