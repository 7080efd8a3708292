//! History: commits searched by their messages, by what they changed (`log -S`, `log -G`) and
//! by the symbols they touched (`history NAME`), from tree diffs and the per-blob records.
//!
//! The extract side is `indexer::history` (commits, their changed file versions, one document
//! per commit); this is the query side: git's walk order over the stored commits, and the
//! checks of each candidate commit.

pub mod defs;
pub mod fts;
pub mod log;
pub mod pickaxe;
pub mod symbols;
pub mod walk;
