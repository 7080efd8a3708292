use super::*;

#[test]
fn cached_lookups_are_not_compiled_again_for_new_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), true).unwrap();
    for i in 0..5u8 {
        store.file_infos([u32::from(i)]).unwrap();
        store.record(ObjectId([i; 20]), if i % 2 == 0 { "rust" } else { "c" }, "x").unwrap();
    }
    for sql in [FILE_INFO_SQL, RECORD_SQL] {
        let stmt = store.conn().prepare_cached(sql).unwrap();
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0, "{sql}");
    }
}

#[test]
fn symbols_at_answers_the_ords_asked_that_the_record_has() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), true).unwrap();
    for (record, ord) in [(7, 0), (7, 1), (7, 2), (7, 3), (8, 1)] {
        store
            .conn()
            .execute(
                "INSERT INTO symbols VALUES (?1, ?2, ?3, ?3, 'function', 0, 1, 2, 1, 0, 9, '', NULL, NULL, NULL, ?3)",
                params![record, ord, format!("f{record}_{ord}")],
            )
            .unwrap();
    }
    let mut names: Vec<String> = store.symbols_at(7, &[3, 1, 9]).unwrap().into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(names, ["f7_1", "f7_3"]);
    assert!(store.symbols_at(9, &[1]).unwrap().is_empty());
}

#[test]
fn reads_in_a_snapshot_see_one_state_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let (reader, writer) = (Store::open(dir.path(), true).unwrap(), Store::open(dir.path(), false).unwrap());
    let snapshot = reader.read_snapshot().unwrap();
    assert_eq!(reader.meta("probe").unwrap(), None);
    writer.set_meta("probe", "written").unwrap();
    assert_eq!(reader.meta("probe").unwrap(), None, "a commit made during the snapshot is not seen");
    drop(snapshot);
    assert_eq!(reader.meta("probe").unwrap().as_deref(), Some("written"));
}

#[test]
fn the_languages_defining_a_name_are_those_of_records_with_a_definition_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), true).unwrap();
    for (record, lang, name, declaration) in
        [(1, "python", "Pay", 0), (2, "sql", "pay", 0), (3, "c", "pay", 1), (4, "rust", "other", 0)]
    {
        store
            .conn()
            .execute(
                "INSERT INTO records (id, blob, lang, extractor, status, created_at) VALUES (?1, ?1, ?2, 'x', 'ok', 0)",
                params![record, lang],
            )
            .unwrap();
        store
            .conn()
            .execute(
                "INSERT INTO symbols VALUES (?1, 0, ?2, ?2, 'function', ?3, 1, 2, 1, 0, 9, '', NULL, NULL, NULL, ?2)",
                params![record, name, declaration],
            )
            .unwrap();
    }
    let mut languages = store.languages_defining("pay").unwrap();
    languages.sort();
    assert_eq!(languages, ["python", "sql"], "any case, definitions only");
    assert!(store.languages_defining("missing").unwrap().is_empty());
}

#[test]
fn a_long_write_ahead_log_is_folded_into_the_database_without_waiting_for_readers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join(format!("{DB_FILE}-wal"));
    let log_len = || std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let store = Store::open(dir.path(), true).unwrap();
    store.set_meta("small", "x").unwrap();
    let small = log_len();
    assert!(small > 0 && small < SETTLE_LOG_BYTES);
    store.settle_log();
    assert_eq!(log_len(), small, "a short log is left as it is");

    // A reader in a snapshot keeps the frames it reads: the log is folded as far as it can
    // be, and the call returns instead of waiting for the reader.
    let reader = Store::open(dir.path(), false).unwrap();
    let snapshot = reader.read_snapshot().unwrap();
    assert_eq!(reader.meta("big").unwrap(), None);
    let big: String = (0..(SETTLE_LOG_BYTES as usize * 3 / 2)).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
    store.set_meta("big", &big).unwrap();
    assert!(log_len() > SETTLE_LOG_BYTES);
    store.settle_log();
    assert!(log_len() > 0, "frames a reader may need are kept");
    assert_eq!(reader.meta("big").unwrap(), None, "the reader still sees its snapshot");
    drop(snapshot);

    store.settle_log();
    assert_eq!(log_len(), 0, "the log is emptied once no reader needs it");
    drop((store, reader));
    let reopened = Store::open(dir.path(), false).unwrap();
    assert_eq!(reopened.meta("big").unwrap().as_deref(), Some(big.as_str()));
    assert_eq!(reopened.meta("small").unwrap().as_deref(), Some("x"));
}
