//! Integration tests: one binary, one module per area, so the suite links once.

mod branches;
mod content_addressing;
mod corpus;
mod corruption;
mod crash;
mod derivation;
mod doctor;
mod graph;
mod grep_flags;
mod help;
mod history;
mod hooks;
mod log;
mod mcp;
mod oracle;
mod properties;
mod ranking;
mod repos;
mod robustness;
mod search;
mod snapshot;
mod support;
mod terminal;
mod words;
mod worktree;
mod xray;
