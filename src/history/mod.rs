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
mod reader;
pub mod symbols;
pub mod walk;
pub mod xdiff;

/// The 32-bit hash of a symbol name (ASCII case folded) that a commit's changed file keeps for
/// each symbol whose lines it changed (FNV-1a).
pub fn name_hash(name: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        hash ^= u32::from(b.to_ascii_lowercase());
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}
