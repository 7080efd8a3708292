//! Property tests: no input panics the query parser, the intent router, the clue reader, the
//! regex compiler and its trigram prefilter, the pathspec reader or the snapshot reader; and a
//! literal pattern finds exactly the lines that contain it.

use proptest::prelude::*;

use codecompass::engine::{Engine, EngineOptions};
use codecompass::query::{Matcher, clues, intent, pathspec};

/// Text that looks like what people type: words, code punctuation, quotes, paths, newlines,
/// regex syntax and some non-ASCII.
fn texty() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z_][a-zA-Z0-9_]{0,12}",
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            "[(){}\\[\\]<>.:;,'\"`*+?|^$\\\\/#@!=-]{1,3}",
            "[ä€😀\t\r]{1,2}",
            Just("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n".to_owned()),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn routing_and_reading_a_query_never_panic(text in texty()) {
        let classified = intent::classify(&text);
        prop_assert!((0.0..=1.0).contains(&classified.confidence));
        let _ = clues::extract(&text);
    }

    #[test]
    fn any_pattern_compiles_or_is_refused_and_matching_never_panics(
        pattern in texty(), content in texty(), literal in any::<bool>(), ignore_case in any::<bool>()
    ) {
        if let Ok(matcher) = Matcher::new(&pattern, literal, ignore_case) {
            let lines = matcher.lines(content.as_bytes(), 1000);
            for hit in &lines {
                prop_assert!(hit.line >= 1);
            }
            let _ = matcher.clone().words_only().lines(content.as_bytes(), 1000);
        }
    }

    #[test]
    fn a_literal_finds_exactly_the_lines_that_contain_it(
        needle in "[a-c(. ]{1,3}", lines in proptest::collection::vec("[a-c(. ]{0,8}", 0..12)
    ) {
        let content = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let matcher = Matcher::new(&needle, true, false).unwrap();
        let found: Vec<u32> = matcher.lines(content.as_bytes(), 1000).iter().map(|m| m.line).collect();
        let expected: Vec<u32> =
            lines.iter().enumerate().filter(|(_, l)| l.contains(needle.as_str())).map(|(i, _)| i as u32 + 1).collect();
        prop_assert_eq!(found, expected);
    }

    #[test]
    fn pathspecs_resolve_or_are_refused_and_never_panic(spec in texty(), prefix in "[a-z]{0,3}(/[a-z]{1,3}){0,2}", path in "[a-z./]{0,12}") {
        if let Ok(resolved) = pathspec::resolve(&spec, &prefix)
            && let Ok(specs) = pathspec::Pathspecs::new(&[resolved])
        {
            let _ = specs.matches(&path);
        }
    }
}

/// A snapshot with bytes changed, cut or appended is refused or imported whole: never a panic,
/// never a store that cannot answer.
#[test]
fn a_damaged_snapshot_is_refused_or_imported_whole() {
    let (tmp, repo) = crate::support::fixture("shop");
    let engine = Engine::open(&repo, &EngineOptions::default()).unwrap();
    let snapshot = tmp.path().join("shop.tar.zst");
    engine.snapshot_export(&snapshot, &["main".to_owned()]).unwrap();
    let original = std::fs::read(&snapshot).unwrap();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 64, ..ProptestConfig::default() });
    let damage = (0..original.len(), any::<u8>(), 0..3u8);
    let case = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&damage, |(at, byte, how)| {
            let case = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut bytes = original.clone();
            match how {
                0 => bytes[at] ^= byte | 1,
                1 => bytes.truncate(at),
                _ => bytes.extend_from_slice(&[byte; 64]),
            }
            let file = tmp.path().join(format!("damaged-{case}.tar.zst"));
            std::fs::write(&file, &bytes).unwrap();
            let _ = codecompass::snapshot::inspect(&file);
            let store = tmp.path().join(format!("store-{case}"));
            let target = Engine::open(&repo, &EngineOptions { store_dir: Some(store), ..Default::default() }).unwrap();
            if target.snapshot_import(&file).is_ok() {
                let status = target.status();
                prop_assert!(status.is_ok(), "imported but unreadable: {:?}", status.err());
            }
            Ok(())
        })
        .unwrap();
}
