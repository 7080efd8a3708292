//! CodeCompass: git-native code search and code navigation.
//!
//! The pipeline, in the order data flows: [`git`] (the only user of gix) -> [`view`] (refs,
//! HEAD, worktrees, and the views they resolve to) -> [`lang`] (the language table) ->
//! [`extract`] (pure symbol extraction) -> [`store`] (SQLite: content-addressed records,
//! file versions, views) -> [`engine`] (the API boundary, plain Rust types) -> `cli` (the only
//! place that knows clap and JSON).
//!
//! See `docs/architecture.md` for the bird's eye view and the invariants.

pub mod cli;
pub mod engine;
pub mod error;
pub mod extract;
pub mod failpoint;
pub mod git;
pub mod graph;
pub mod history;
pub mod hooks;
pub mod index;
pub mod indexer;
pub mod lang;
pub mod mcp;
pub mod progress;
pub mod query;
pub mod quote;
pub mod replace;
pub mod snapshot;
pub mod store;
pub mod view;
pub mod xray;
