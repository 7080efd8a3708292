//! The single-writer lock: an advisory lock on `write.lock`, holding the writer's pid.
//!
//! The operating system releases the lock when its holder dies, so a crashed writer never
//! leaves the store locked; the pid inside is only there to tell people who is writing.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::StoreError;

/// Held while a process writes the store; released on drop or when the process ends.
pub struct WriteLock {
    file: File,
}

const LOCK_FILE: &str = "write.lock";

impl WriteLock {
    /// Takes the lock in `dir`. With `wait`, blocks until the current holder is done;
    /// without, fails with [`StoreError::Busy`].
    pub fn acquire(dir: &Path, wait: bool) -> Result<WriteLock, StoreError> {
        let path = dir.join(LOCK_FILE);
        let io = |e| StoreError::Io { path: path.clone(), source: e };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file =
            OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let pid = holder(&mut file);
                if !wait {
                    return Err(StoreError::Busy { pid });
                }
                crate::progress::note(&format!("waiting for another process (pid {pid}) to finish writing the index"));
                file.lock().map_err(io)?;
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        Ok(WriteLock { file })
    }

    /// The pid of the process holding the lock in `dir`, if one does.
    pub fn holder_of(dir: &Path) -> Option<u32> {
        let mut file = OpenOptions::new().read(true).write(true).open(dir.join(LOCK_FILE)).ok()?;
        match file.try_lock() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(_) => Some(holder(&mut file)),
        }
    }
}

fn holder(file: &mut File) -> u32 {
    let mut text = String::new();
    let _ = file.seek(SeekFrom::Start(0));
    let _ = file.read_to_string(&mut text);
    text.trim().parse().unwrap_or(0)
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
