//! Integration tests: one binary, one module per area, so the suite links once.

mod content_addressing;
mod corpus;
mod oracle;
mod ranking;
mod robustness;
mod search;
mod support;
mod worktree;
