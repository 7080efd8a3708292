//! The symbol graph end to end on the `graph` fixture: references tied to their definitions
//! through imports, callers and callees, imports and importers, related tests; the same blob
//! resolving differently at two refs, each answer equal to a from-scratch index of that ref;
//! an ambiguous call that says so.

use serde_json::Value;

use crate::support::{TempDir, cc, fixture};

/// `(path, line, confidence)` of a `references` answer.
fn uses(json: &Value) -> Vec<(String, u64, String)> {
    json["results"]
        .as_array()
        .expect("references answers have results")
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap_or_default().to_owned(),
                r["line"].as_u64().unwrap_or_default(),
                r["confidence"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn definitions(json: &Value) -> Vec<String> {
    json["definitions"]
        .as_array()
        .expect("references answers have definitions")
        .iter()
        .map(|d| format!("{}:{}", d["path"].as_str().unwrap_or_default(), d["line"]))
        .collect()
}

#[test]
fn references_follow_imports_and_say_when_a_name_is_ambiguous() {
    let (_tmp, repo) = fixture("graph");
    let run = cc(&repo, &["references", "run", "--ref", "main"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(definitions(&run.json), vec!["billing/engine.py:4", "legacy/engine.py:1"]);
    let found = uses(&run.json);
    let at = |path: &str, line: u64| found.iter().find(|u| u.0 == path && u.1 == line).map(|u| u.2.as_str());
    assert_eq!(at("app.py", 6), Some("import"), "{found:?}");
    assert_eq!(at("tests/test_engine.py", 5), Some("import"), "{found:?}");
    assert_eq!(at("ambiguous.py", 6), Some("ambiguous"), "{found:?}");
    let ambiguous = run.json["results"].as_array().unwrap().iter().find(|r| r["path"] == "ambiguous.py").unwrap();
    assert_eq!(ambiguous["candidates"].as_array().map(Vec::len), Some(2));
    assert_eq!(ambiguous["caller"]["qualified_name"], "guess");

    // Qualified by its module file: only the billing engine's uses.
    let legacy = cc(&repo, &["references", "legacy.engine.run", "--ref", "main"]);
    assert_eq!(definitions(&legacy.json), vec!["legacy/engine.py:1"]);
    let legacy_uses = uses(&legacy.json);
    assert!(legacy_uses.iter().all(|u| u.0 == "ambiguous.py"), "{legacy_uses:?}");
}

#[test]
fn the_same_blob_resolves_by_the_files_of_each_ref() {
    let (_tmp, repo) = fixture("graph");
    for (reference, definition) in [("main", "billing/engine.py:4"), ("package", "billing/engine/__init__.py:4")] {
        let shared = cc(&repo, &["references", "billing.engine.run", "--ref", reference]);
        assert_eq!(definitions(&shared.json), vec![definition.to_owned()], "at {reference}");
        let found = uses(&shared.json);
        assert!(found.contains(&("app.py".to_owned(), 6, "import".to_owned())), "at {reference}: {found:?}");
        // A store that only ever saw this ref gives the same answer.
        let fresh_store = TempDir::new("graph-fresh");
        let store = fresh_store.path().to_string_lossy().into_owned();
        let fresh = cc(&repo, &["--store", &store, "references", "billing.engine.run", "--ref", reference]);
        assert_eq!(uses(&fresh.json), found, "at {reference}");
        assert_eq!(definitions(&fresh.json), definitions(&shared.json), "at {reference}");
    }
}

#[test]
fn callers_callees_imports_and_tests() {
    let (_tmp, repo) = fixture("graph");
    let callers = cc(&repo, &["callers", "billing.engine.run", "--ref", "main", "--depth", "2"]);
    let nodes: Vec<String> = callers.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["qualified_name"].as_str().unwrap_or_default().to_owned())
        .collect();
    for name in ["run", "Checkout.submit", "test_run_sums_lines", "main"] {
        assert!(nodes.contains(&name.to_owned()), "{name} in {nodes:?}");
    }
    let callees = cc(&repo, &["callees", "billing.engine.run", "--ref", "main"]);
    let called: Vec<&str> = callees.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"] == 1)
        .map(|n| n["qualified_name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(called, vec!["price", "rate_for"]);
    let submit = cc(&repo, &["callees", "Checkout.submit", "--ref", "main"]);
    let edges = submit.json["edges"].as_array().unwrap();
    let confirm = submit.json["nodes"].as_array().unwrap().iter().find(|n| n["name"] == "confirm").unwrap();
    let to_confirm = edges.iter().find(|e| e["to"] == confirm["id"]).expect("submit calls confirm");
    assert_eq!(to_confirm["confidence"], "resolved");

    let imports = cc(&repo, &["imports", "billing/engine.py", "--ref", "main"]);
    assert_eq!(imports.json["imports"][0]["module"], "billing.rates");
    assert_eq!(imports.json["imports"][0]["resolved"][0], "billing/rates.py");
    let importers = cc(&repo, &["importers", "billing/engine.py", "--ref", "main"]);
    let paths: Vec<&str> =
        importers.json["importers"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(paths, vec!["ambiguous.py", "app.py", "tests/test_engine.py"]);

    let tests = cc(&repo, &["tests-for", "billing.engine.run", "--ref", "main"]);
    assert_eq!(tests.json["tests"][0]["path"], "tests/test_engine.py");
    assert_eq!(tests.json["tests"][0]["symbols"][0], "test_run_sums_lines");
    let by_file = cc(&repo, &["tests-for", "billing/engine.py", "--ref", "main"]);
    assert_eq!(by_file.json["target"], "file");
    assert_eq!(by_file.json["tests"][0]["path"], "tests/test_engine.py");

    let dot = crate::support::cc_text(&repo, &["graph", "run", "--ref", "main", "--format", "dot"]);
    assert!(dot.stdout.starts_with("digraph calls {"), "{}", dot.stdout);
}

#[test]
fn a_call_graph_is_cut_at_its_limit_by_either_name() {
    let (_tmp, repo) = fixture("graph");
    let whole = cc(&repo, &["callers", "billing.engine.run", "--ref", "main", "--depth", "2"]);
    let count = |json: &Value| json["nodes"].as_array().map_or(0, Vec::len);
    assert!(count(&whole.json) > 2, "{}", whole.stdout);
    assert_eq!(whole.json["truncated"], false);
    for flag in ["--max-nodes", "--limit"] {
        let cut = cc(&repo, &["callers", "billing.engine.run", "--ref", "main", "--depth", "2", flag, "2"]);
        assert_eq!(cut.code, 0, "{flag}: {}", cut.stderr);
        assert_eq!(count(&cut.json), 2, "{flag}: {}", cut.stdout);
        assert_eq!(cut.json["truncated"], true, "{flag}");
        assert_eq!(cut.json["metadata"]["result_completeness"], "truncated", "{flag}");
        // The root first, then the callers nearest to it.
        assert_eq!(cut.json["nodes"][0]["qualified_name"], "run", "{flag}");
    }
    for command in ["callers", "callees", "graph"] {
        let none = cc(&repo, &[command, "run", "--ref", "main", "--limit", "0"]);
        assert_eq!(none.code, 2, "{command}: {}", none.stdout);
        assert_eq!(none.json["error"]["message"], "--max-nodes must be at least 1", "{command}");
    }
}

#[test]
fn generated_code_is_parsed_and_ranks_below_hand_written_code_like_tests() {
    let tmp = TempDir::new("locate-rank");
    let repo = tmp.path().join("r");
    std::fs::create_dir_all(&repo).unwrap();
    crate::support::git(&repo, &["init", "-q", "-b", "main"]);
    let write = |path: &str, text: &str| {
        let full = repo.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    write("api/client.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n\nfunc NewClient() {}\n");
    write("client/client.go", "package client\n\nfunc NewClient() {}\n");
    write("client/util_test.go", "package client\n\nfunc helper() {}\n");
    write("client/util.go", "package client\n\nfunc helper() {}\n");
    write("src/lib.rs", "cfg_rt! {\n    /// Runs a blocking task.\n    pub fn spawn_blocking() {}\n}\n");
    crate::support::git(&repo, &["add", "."]);
    crate::support::git(&repo, &["commit", "-qm", "init"]);
    let client = cc(&repo, &["locate", "NewClient"]);
    assert_eq!(
        crate::support::located(&client),
        vec![("client/client.go".to_owned(), 3), ("api/client.pb.go".to_owned(), 4)]
    );
    let helper = cc(&repo, &["locate", "helper"]);
    assert_eq!(crate::support::located(&helper)[0], ("client/util.go".to_owned(), 3));
    let spawn = cc(&repo, &["locate", "spawn_blocking"]);
    assert_eq!(crate::support::located(&spawn), vec![("src/lib.rs".to_owned(), 3)]);
    let outline = cc(&repo, &["outline", "src/lib.rs"]);
    assert_eq!(outline.json["symbols"][0]["name"], "spawn_blocking");
}

#[test]
fn damaged_references_are_reported_by_doctor_and_repaired_by_its_fix() {
    let (_tmp, repo) = fixture("graph");
    let before = uses(&cc(&repo, &["references", "billing.engine.run"]).json);
    assert!(before.iter().any(|u| u.0 == "app.py"), "{before:?}");
    let db = repo.join(".git/codecompass/store.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let damaged = conn.execute("UPDATE occurrences SET data = x'01ff00'", []).unwrap();
    assert!(damaged > 0);
    drop(conn);
    let doctor = cc(&repo, &["doctor"]);
    let problem = doctor.json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "references_damaged")
        .unwrap_or_else(|| panic!("no references_damaged: {}", doctor.stdout))
        .clone();
    assert_eq!(problem["fix"], "git codecompass index --force");
    // Damaged data reads as no references, never as a crash.
    let during = cc(&repo, &["references", "billing.engine.run"]);
    assert!(during.code == 0 || during.code == 1, "{}", during.stderr);
    let fixed = cc(&repo, &["index", "--force"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    let doctor = cc(&repo, &["doctor"]);
    assert!(
        !doctor.json["problems"].as_array().unwrap().iter().any(|p| p["code"] == "references_damaged"),
        "{}",
        doctor.stdout
    );
    assert_eq!(uses(&cc(&repo, &["references", "billing.engine.run"]).json), before);
}

#[test]
fn python_names_follow_its_scoping_rules() {
    let (_tmp, repo) = fixture("python-scopes");
    let at = |found: &[(String, u64, String)], path: &str, line: u64| {
        found.iter().find(|u| u.0 == path && u.1 == line).map(|u| u.2.clone())
    };

    // Re-exported by the package: `from shop import Cart` means shop/cart.py's class.
    let cart = cc(&repo, &["references", "Cart"]);
    assert_eq!(definitions(&cart.json), vec!["shop/cart.py:1"]);
    let found = uses(&cart.json);
    assert_eq!(at(&found, "app.py", 3).as_deref(), Some("import"), "{found:?}");
    assert_eq!(at(&found, "app.py", 12).as_deref(), Some("import"), "{found:?}");
    assert_eq!(at(&found, "shop/__init__.py", 1).as_deref(), Some("import"), "{found:?}");
    // Not imported: no reference.
    assert_eq!(at(&found, "orphan.py", 2), None, "{found:?}");

    // A module's function through the module's name or its alias; the method on a value.
    let function = uses(&cc(&repo, &["references", "shop.codec.dumps"]).json);
    let lines: Vec<(&str, u64)> = function.iter().map(|u| (u.0.as_str(), u.1)).collect();
    assert_eq!(lines, vec![("app.py", 7), ("app.py", 8)], "{function:?}");
    let method = uses(&cc(&repo, &["references", "Codec.dumps"]).json);
    let lines: Vec<(&str, u64, &str)> = method.iter().map(|u| (u.0.as_str(), u.1, u.2.as_str())).collect();
    assert_eq!(lines, vec![("app.py", 9, "unique_name")], "{method:?}");

    // A builtin type's method name on a value of unknown type is not claimed; a unique one is.
    let get = uses(&cc(&repo, &["references", "Cart.get"]).json);
    assert_eq!(at(&get, "app.py", 10), None, "{get:?}");
    let checkout = uses(&cc(&repo, &["references", "Cart.checkout"]).json);
    assert_eq!(at(&checkout, "app.py", 11).as_deref(), Some("unique_name"), "{checkout:?}");

    // A function's local helper is its own.
    let check = cc(&repo, &["references", "check"]);
    assert_eq!(definitions(&check.json).len(), 2);
    let found = uses(&check.json);
    let lines: Vec<(&str, u64, &str)> = found.iter().map(|u| (u.0.as_str(), u.1, u.2.as_str())).collect();
    assert_eq!(lines, vec![("tests/test_one.py", 5, "resolved"), ("tests/test_two.py", 5, "resolved")], "{found:?}");
}

#[test]
fn python_members_are_looked_up_in_the_class_the_code_gives_the_receiver() {
    let (_tmp, repo) = fixture("python-receivers");
    let lines = |name: &str| -> Vec<(String, u64, String)> { uses(&cc(&repo, &["references", name]).json) };
    let both = |found: &[(String, u64, String)]| -> Vec<String> {
        found.iter().map(|(path, line, confidence)| format!("{path}:{line} {confidence}")).collect()
    };

    // `self.store` was assigned from a parameter annotated `DiskStore`; in a test, a local
    // constructed from it.
    assert_eq!(
        both(&lines("DiskStore.save")),
        ["app.py:10 import", "main.py:2 ambiguous", "scripts/tool.py:2 ambiguous", "tests/test_app.py:15 import"]
    );
    // `super()` is the bases; an untyped receiver stays ambiguous.
    assert_eq!(
        both(&lines("store.base.Store.save")),
        ["main.py:2 ambiguous", "scripts/tool.py:2 ambiguous", "store/disk.py:11 import"]
    );
    // A parameter's annotation; a test's fixture returning a local `MemoryStore()`.
    assert_eq!(
        both(&lines("MemoryStore.save")),
        ["app.py:13 import", "main.py:2 ambiguous", "scripts/tool.py:2 ambiguous", "tests/test_app.py:10 import"]
    );
    // An inherited method through `self`; the other class's method of that name is not it.
    assert_eq!(both(&lines("Store.close")), ["store/disk.py:10 import"]);
    // `with opened() as other`: an unannotated function returning a `MemoryStore()`; a
    // module's function called through the module (`store.factory.make()`).
    // A loop over what a method's annotation says is a `list[MemoryStore]`, and `next()` of
    // an iterator over it.
    assert_eq!(
        both(&lines("MemoryStore.close")),
        [
            "store/jar.py:19 import",
            "store/jar.py:39 import",
            "tests/test_app.py:17 import",
            "tests/test_factory.py:6 import"
        ]
    );
    // `super().__init__()` is the base's constructor only.
    assert_eq!(both(&lines("Store.__init__")), ["store/disk.py:6 import"]);
    assert!(lines("MemoryStore.__init__").is_empty());
    // A module variable constructed from a class; a fixture yielding what an annotated helper
    // returns.
    assert_eq!(both(&lines("App.run")), ["app.py:17 resolved", "tests/test_app.py:6 import"]);
    // A loop's `app` in a function is not the module's `app` (whose `flush` it would be): an
    // untyped receiver calling a method builtin types have too, so nothing.
    assert!(lines("App.flush").is_empty(), "{:?}", lines("App.flush"));
    // A later assignment to an instance attribute is a use of it.
    assert_eq!(both(&lines("Store.items")), ["store/base.py:8 resolved", "store/base.py:11 resolved"]);
    // An attribute is the nearest class body's declaration: a subclass declaring it again
    // has its own, not its base's.
    assert_eq!(both(&lines("CachedDiskStore.name")), ["store/cached.py:8 resolved", "store/cached.py:11 resolved"]);
    assert!(lines("store.base.Store.name").is_empty(), "{:?}", lines("store.base.Store.name"));
    // A class's members are names in its body only: a bare `set(...)` in a method is not its
    // method `set`.
    assert!(lines("CachedDiskStore.set").is_empty(), "{:?}", lines("CachedDiskStore.set"));
    // What a function of another project returned has that project's members, not the view's;
    // a value of unknown origin may still be the view's only `safe_load`.
    assert_eq!(both(&lines("Config.safe_load")), ["tests/test_plugins.py:8 unique_name"]);
    // Chains of calls: what a function returns, through a module too, and a class called
    // through one.
    // An override's parameter without an annotation has its base's (`LoudReader.read`); a
    // signature too long to keep whole still says what it returns (`open_many`).
    assert_eq!(
        both(&lines("Jar.flush")),
        [
            "store/jar.py:34 resolved",
            "store/jar.py:49 resolved",
            "store/many.py:20 import",
            "tests/test_jar.py:6 import"
        ]
    );
    // A parameter of a class the view does not define (`jar: CookieJar`) has none of the
    // view's members; `Jar().labels()` is `Jar`'s.
    assert_eq!(both(&lines("Jar.labels")), ["store/jar.py:33 resolved", "tests/test_jar.py:5 import"]);
    // `iter(self)` of a `Jar` yields what `Jar.__iter__` says, a `Cookie` of the standard
    // library: its `label` is not `Tag`'s, though `Tag.label` is the view's only field of that
    // name.
    assert!(lines("Tag.label").is_empty(), "{:?}", lines("Tag.label"));
}

#[test]
fn an_es_module_sees_its_own_names_and_its_imports_not_a_siblings() {
    let (_tmp, repo) = fixture("ts-modules");
    let lines = |name: &str| -> Vec<String> {
        uses(&cc(&repo, &["references", name]).json).into_iter().map(|(p, l, c)| format!("{p}:{l} {c}")).collect()
    };
    // `test/base.ts` has a `server` of its own, in a callback; the sibling's is not it.
    assert_eq!(lines("server"), ["test/browser.ts:4 resolved"]);
    assert_eq!(
        lines("helper"),
        [
            "test/base.ts:1 import",
            "test/base.ts:5 import",
            "test/package.ts:2 unique_name",
            "test/package.ts:5 unique_name"
        ]
    );
    // A type a declaration file gives every file needs no import.
    assert_eq!(lines("Options"), ["test/base.ts:5 unique_name"]);
    // A member read on a parameter is of the type its annotation names, or the annotation of
    // the same parameter in the function type a constant is declared with; a signature too
    // long to keep whole keeps the parameter an object literal's key is read by
    // (`configureAll`'s `options`, in the middle of its 300-odd characters).
    assert_eq!(
        lines("InputOptions.context"),
        [
            "src/options.ts:12 resolved",
            "src/options.ts:23 resolved",
            "src/options.ts:26 resolved",
            "src/long.ts:13 import",
            "src/long.ts:16 import"
        ]
    );
    assert_eq!(lines("BaseOptions.retries"), ["src/options.ts:42 resolved"]);
    assert!(lines("OtherOptions.retries").is_empty(), "{:?}", lines("OtherOptions.retries"));
    assert_eq!(lines("Client.fetch"), ["test/client.ts:3 import"]);
    assert!(lines("Server.fetch").is_empty(), "{:?}", lines("Server.fetch"));
    assert_eq!(lines("NormalizedOptions.context"), ["src/options.ts:17 resolved", "src/options.ts:20 resolved"]);
    // Members named like builtin ones: a typed receiver's use is listed, a value of unknown
    // type's (`items.push`, `this.request.headers`) is not, nor is a use of the builtin's own
    // member on the field (`this.headers.push`).
    assert_eq!(lines("Queue.push"), ["src/queue.ts:12 resolved"]);
    assert_eq!(lines("Queue.headers"), ["src/queue.ts:5 resolved"]);
    // A module's declaration it does not export is no other file's: of three `Getter` types,
    // the test means the one exported (through the index's re-export), never another
    // module's own; a script's type is every file's.
    assert_eq!(
        lines("src.getters.Getter"),
        ["src/index.ts:1 import", "test/getter.ts:1 unique_name", "test/getter.ts:3 unique_name"]
    );
    assert_eq!(lines("src.atom.Getter"), ["src/atom.ts:3 resolved"]);
    assert_eq!(lines("src.store.Getter"), ["src/store.ts:3 resolved"]);
    assert_eq!(lines("Shared"), ["test/getter.ts:4 unique_name"]);
}
