//! The definitions of one side of a change: from the blob's record when one exists, else
//! parsed from its content in memory. History keeps no record of the blobs only its commits
//! hold (a whole history's records would be many times the size of a commit's index); a view
//! that later holds one of them parses it as usual.

use crate::extract::{self, Role};
use crate::store::SymbolRow;

/// A definition, as history compares them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    /// Its name.
    pub name: String,
    /// With its enclosing scopes.
    pub qualified_name: String,
    /// Its kind.
    pub kind: String,
    /// Its head without the body.
    pub signature: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Byte range start.
    pub byte_start: u32,
    /// Byte range end (exclusive).
    pub byte_end: u32,
}

impl From<SymbolRow> for Def {
    fn from(s: SymbolRow) -> Def {
        Def {
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind,
            signature: s.signature,
            line_start: s.line_start,
            line_end: s.line_end,
            byte_start: s.byte_start,
            byte_end: s.byte_end,
        }
    }
}

/// The definitions of `data` read as the language `lang` (`""`: none), parsed now. Content
/// above `max_file_size` or binary has none, as its record would have none.
pub fn parse(lang: &str, data: &[u8], max_file_size: u64) -> Vec<Def> {
    if lang.is_empty() || data.len() as u64 > max_file_size || crate::indexer::is_binary(data) {
        return Vec::new();
    }
    let Some(language) = crate::lang::by_name(lang) else {
        return Vec::new();
    };
    extract::definitions(language, data)
        .symbols
        .into_iter()
        .filter(|s| s.role == Role::Definition)
        .map(|s| Def {
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind.to_owned(),
            signature: s.signature,
            line_start: s.line_start,
            line_end: s.line_end,
            byte_start: s.byte_start,
            byte_end: s.byte_end,
        })
        .collect()
}
