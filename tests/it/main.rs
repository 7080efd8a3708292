//! Integration tests: one binary, one module per area, so the suite links once.

mod corpus;
