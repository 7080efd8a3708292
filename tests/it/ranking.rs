//! Ranking golden file: for queries taken from the fixtures (definition names, qualified
//! names, file names, error strings, natural-language questions), the expected top result.
//!
//! `tests/golden/ranking.txt` holds `query<TAB>top result`. When ranking changes on purpose,
//! run `UPDATE_GOLDEN=1 cargo test --test it ranking` and review the diff of that file.

use std::path::Path;
use std::time::Duration;

use codecompass::engine::{Engine, EngineOptions, Freshness};
use codecompass::indexer::IndexOptions;
use codecompass::query::{Detail, Explain, Filters, Mode, SearchRequest};
use codecompass::view::Scope;

use crate::support::fixture;

const QUERIES: &[&str] = &[
    "Cart",
    "cart",
    "total_cents",
    "Cart::total_cents",
    "TotalCents",
    "ShopClient",
    "ShopClient.fetch_cart",
    "fetch_cart",
    "connect",
    "shop_checksum",
    "Inventory::reserve",
    "reserve",
    "apply_coupon",
    "DEFAULT_TIMEOUT",
    "cart.rs",
    "src/inventory.rs",
    "shop_client.py",
    "guide.md",
    "\"Fetches one cart\"",
    "\"An empty cart\"",
    "Adler-style checksum of a buffer",
    "how are cart totals computed",
    "reserve stock for a cart",
    "talks to the shop over http",
    "which function computes a checksum",
    // Questions in words as agents paste them: prose, backticks, a traceback, a log line.
    "When I put two of the same item in a cart the total in cents ignores the quantity, so customers are undercharged.",
    "Reserving stock for an order succeeds even when the inventory level is lower than the quantity asked for. \
     Expected `reserve` to return false instead.",
    "Traceback (most recent call last):\n  File \"clients/python/shop_client.py\", line 13, in fetch_cart\n\
     KeyError: 'id'",
    "Where is the Adler checksum of a byte buffer computed, and which modulus does it use?",
];

fn top(engine: &Engine, query: &str) -> String {
    let request = SearchRequest {
        query: query.to_owned(),
        mode: Mode::Auto,
        limit: 5,
        context: 0,
        detail: Detail::Signature,
        compact: false,
        fuzzy: 0,
        case_sensitive: false,
        ignore_case: false,
        explain: Explain::Off,
        max_tokens: None,
        filters: Filters::default(),
        timeout: Duration::from_secs(60),
        files: false,
        grep: Default::default(),
        comparable: false,
    };
    let response = engine.search(&request, &Scope::Ref("main".to_owned()), Freshness::BestEffort).expect("search runs");
    match response.output.results.first() {
        Some(r) => format!(
            "{}:{} {} {}",
            r.path,
            r.line_start,
            r.kind,
            r.qualified_name.as_deref().or(r.name.as_deref()).unwrap_or("-")
        ),
        None => "(nothing)".to_owned(),
    }
}

#[test]
fn top_results_match_the_golden_file() {
    let (_tmp, repo) = fixture("shop");
    let engine = Engine::open(&repo, &EngineOptions::default()).expect("the fixture opens");
    engine.index(&[Scope::Ref("main".to_owned())], IndexOptions::default()).expect("the fixture indexes");
    let actual: String = QUERIES.iter().map(|q| format!("{}\t{}\n", q.replace('\n', "\\n"), top(&engine, q))).collect();
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/ranking.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden_path, &actual).expect("the golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&golden_path).unwrap_or_default();
    if expected != actual {
        let mut diff = String::new();
        for (e, a) in expected.lines().zip(actual.lines()) {
            if e != a {
                diff.push_str(&format!("- {e}\n+ {a}\n"));
            }
        }
        panic!(
            "ranking changed (review, then run `UPDATE_GOLDEN=1 cargo test --test it ranking` to accept):\n{diff}{}",
            if expected.lines().count() != actual.lines().count() { "(the number of queries changed)\n" } else { "" }
        );
    }
}
