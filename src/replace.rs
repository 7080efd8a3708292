//! Replacing a small file whole: written under a temporary name beside it, then renamed over
//! it, so a reader sees the old file or the new one, never part of either. The temporary name
//! holds the process id and a number per write (`state.json.4242-7.tmp`): two processes, or
//! two threads of one, writing the same file never write into the same temporary file. A
//! writer killed between the two steps leaves its temporary file; [`is_temporary`] names such
//! files for `gc`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Replaces the file at `path` with `contents`. On an error nothing is left behind, and the
/// file at `path` is as it was.
pub fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let temporary = temporary_for(path);
    let written = std::fs::write(&temporary, contents).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A temporary name of this write beside `path`.
fn temporary_for(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let write = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}-{write}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Whether `name` is the name of a temporary file [`replace`] writes for the file `file`.
pub fn is_temporary(name: &str, file: &str) -> bool {
    name.strip_prefix(file)
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .and_then(|rest| rest.split_once('-'))
        .is_some_and(|(pid, write)| [pid, write].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        replace(&path, b"one").unwrap();
        replace(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names, ["state.json"]);
        // A write that cannot land leaves the file as it was and nothing beside it.
        let missing = dir.path().join("no-such-dir").join("state.json");
        assert!(replace(&missing, b"three").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn temporary_names_are_told_from_others() {
        let name = temporary_for(Path::new("store/head-trees"));
        let name = name.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary(name, "head-trees"), "{name}");
        assert!(!is_temporary(name, "head"));
        for other in ["head-trees", "head-trees.tmp", "head-trees.12.tmp", "head-trees.a-1.tmp", "head-trees.1-.tmp"] {
            assert!(!is_temporary(other, "head-trees"), "{other}");
        }
    }
}
