//! The `.tar.zst` container: writing a snapshot, and reading one as hostile input.
//!
//! Reading trusts nothing: the decompressed stream is counted and cut off at what the
//! manifest accounts for (a decompression bomb ends there, in bounded memory); entries are
//! read raw, so no long-name or extension header is interpreted or buffered; every entry must
//! be a regular file at a path of the layout, listed once in the manifest, of exactly the
//! listed size and checksum. Files are written only into the staging directory given, and
//! only after the manifest passed the caller's checks.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::rc::Rc;

use super::SnapshotError;
use super::manifest::{FORMAT_NAME, MANIFEST_ENTRY, Manifest, ManifestFile, path_problem};

/// The largest manifest read. Manifests list a few hundred entries; this is far above.
const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;
/// Tar framing allowed per entry beyond its content: header, padding, extension headers.
const PER_ENTRY_OVERHEAD: u64 = 8 * 1024;
/// Tar framing allowed per archive: the end blocks and some slack.
const ARCHIVE_OVERHEAD: u64 = 64 * 1024;

/// A reader that fails once more than `limit` bytes have come through it.
struct Bounded<R> {
    inner: R,
    read: u64,
    limit: Rc<Cell<u64>>,
    exceeded: Rc<Cell<bool>>,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit.get() {
            self.exceeded.set(true);
            return Err(std::io::Error::other("the archive decompresses to more than its manifest accounts for"));
        }
        Ok(n)
    }
}

/// An archive opened for reading, with the state of its bound.
struct Reader {
    archive: tar::Archive<Bounded<zstd::Decoder<'static, std::io::BufReader<File>>>>,
    limit: Rc<Cell<u64>>,
    exceeded: Rc<Cell<bool>>,
}

impl Reader {
    fn open(file: &Path) -> Result<Reader, SnapshotError> {
        let handle = File::open(file).map_err(SnapshotError::io(file))?;
        let decoder =
            zstd::Decoder::new(handle).map_err(|e| SnapshotError::Unreadable { file: file.to_owned(), source: e })?;
        let limit = Rc::new(Cell::new(MAX_MANIFEST_BYTES + PER_ENTRY_OVERHEAD + ARCHIVE_OVERHEAD));
        let exceeded = Rc::new(Cell::new(false));
        let bounded = Bounded { inner: decoder, read: 0, limit: limit.clone(), exceeded: exceeded.clone() };
        Ok(Reader { archive: tar::Archive::new(bounded), limit, exceeded })
    }

    /// The error for a failed read: a bomb when the bound was hit, else damage.
    fn read_error(file: &Path, exceeded: &Cell<bool>, limit: &Cell<u64>, e: std::io::Error) -> SnapshotError {
        if exceeded.get() {
            SnapshotError::DecompressionBomb { file: file.to_owned(), limit: limit.get() }
        } else {
            SnapshotError::Unreadable { file: file.to_owned(), source: e }
        }
    }
}

/// Checks that an entry is a regular file and returns its path bytes.
fn entry_path<R: Read>(file: &Path, entry: &tar::Entry<'_, R>) -> Result<Vec<u8>, SnapshotError> {
    let path = entry.path_bytes().into_owned();
    let name = String::from_utf8_lossy(&path).into_owned();
    match entry.header().entry_type() {
        tar::EntryType::Regular | tar::EntryType::Continuous => Ok(path),
        tar::EntryType::Symlink => {
            Err(SnapshotError::UnsafeEntry { file: file.to_owned(), entry: name, reason: "a symbolic link" })
        }
        tar::EntryType::Link => {
            Err(SnapshotError::UnsafeEntry { file: file.to_owned(), entry: name, reason: "a hard link" })
        }
        _ => Err(SnapshotError::UnsafeEntry {
            file: file.to_owned(),
            entry: name,
            reason: "not a regular file (a directory, device or other special entry)",
        }),
    }
}

/// Reads and parses the first entry, which must be the manifest.
fn read_manifest<R: Read>(
    file: &Path,
    entries: &mut tar::Entries<'_, R>,
    errors: &dyn Fn(std::io::Error) -> SnapshotError,
) -> Result<Manifest, SnapshotError> {
    let not_ours = |reason| SnapshotError::NotASnapshot { file: file.to_owned(), reason };
    let mut entry = match entries.next() {
        None => return Err(not_ours("it holds no entries")),
        Some(entry) => entry.map_err(errors)?,
    };
    let path = entry_path(file, &entry)?;
    if path != MANIFEST_ENTRY.as_bytes() {
        return Err(not_ours("its first entry is not `manifest.json`"));
    }
    if entry.size() > MAX_MANIFEST_BYTES {
        return Err(SnapshotError::SizeMismatch {
            file: file.to_owned(),
            entry: MANIFEST_ENTRY.to_owned(),
            expected: MAX_MANIFEST_BYTES,
            found: entry.size(),
        });
    }
    let mut text = Vec::new();
    (&mut entry).take(MAX_MANIFEST_BYTES).read_to_end(&mut text).map_err(errors)?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| SnapshotError::BadManifest { file: file.to_owned(), source: e })?;
    if manifest.format != FORMAT_NAME {
        return Err(not_ours("its manifest is not a CodeCompass snapshot manifest"));
    }
    Ok(manifest)
}

/// Reads only the manifest of `file`.
pub(super) fn read_manifest_only(file: &Path) -> Result<Manifest, SnapshotError> {
    let mut reader = Reader::open(file)?;
    let (limit, exceeded) = (reader.limit.clone(), reader.exceeded.clone());
    let errors = |e| Reader::read_error(file, &exceeded, &limit, e);
    let mut entries = reader.archive.entries().map_err(errors)?.raw(true);
    read_manifest(file, &mut entries, &errors)
}

/// Checks the manifest's own list of entries: safe paths, each listed once, sane checksums.
fn check_listing(file: &Path, manifest: &Manifest) -> Result<(), SnapshotError> {
    let mut listed = HashSet::new();
    for f in &manifest.files {
        if let Some(reason) = path_problem(f.path.as_bytes()) {
            return Err(SnapshotError::UnsafeEntry { file: file.to_owned(), entry: f.path.clone(), reason });
        }
        if !listed.insert(f.path.as_str()) {
            return Err(SnapshotError::DuplicateEntry { file: file.to_owned(), entry: f.path.clone() });
        }
        if f.blake3.len() != 64 || !f.blake3.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(SnapshotError::NotASnapshot {
                file: file.to_owned(),
                reason: "its manifest has a malformed checksum",
            });
        }
    }
    Ok(())
}

/// Reads `file` as hostile input: the manifest first, which `check` must accept before
/// anything is written; then every entry, verified, into `staging` (created here; the caller
/// removes it on failure). Returns the manifest.
pub(super) fn unpack_verified(
    file: &Path,
    staging: &Path,
    check: impl FnOnce(&Manifest) -> Result<(), SnapshotError>,
) -> Result<Manifest, SnapshotError> {
    let mut reader = Reader::open(file)?;
    let (limit, exceeded) = (reader.limit.clone(), reader.exceeded.clone());
    let errors = |e| Reader::read_error(file, &exceeded, &limit, e);
    // Raw entries: long-name and extension headers are not interpreted (and not buffered);
    // they are entries of another type, refused like links.
    let mut entries = reader.archive.entries().map_err(errors)?.raw(true);
    let manifest = read_manifest(file, &mut entries, &errors)?;
    check_listing(file, &manifest)?;
    check(&manifest)?;
    // From here on the stream may only hold what the manifest accounts for.
    let allowed = MAX_MANIFEST_BYTES
        .saturating_add(manifest.total_size())
        .saturating_add(PER_ENTRY_OVERHEAD.saturating_mul(manifest.files.len() as u64 + 1))
        .saturating_add(ARCHIVE_OVERHEAD);
    limit.set(allowed);

    std::fs::create_dir_all(staging).map_err(SnapshotError::io(staging))?;
    let by_path: HashMap<&str, &ManifestFile> = manifest.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut bar =
        crate::progress::Bar::new("unpacking snapshot (KiB)", manifest.files.iter().map(|f| f.size >> 10).sum());
    for entry in entries {
        let mut entry = entry.map_err(errors)?;
        bar.inc(entry.size() >> 10);
        let path = entry_path(file, &entry)?;
        let name = String::from_utf8_lossy(&path).into_owned();
        if let Some(reason) = path_problem(&path) {
            return Err(SnapshotError::UnsafeEntry { file: file.to_owned(), entry: name, reason });
        }
        if seen.contains(&name) {
            return Err(SnapshotError::DuplicateEntry { file: file.to_owned(), entry: name });
        }
        let Some(expected) = by_path.get(name.as_str()) else {
            return Err(SnapshotError::UnlistedEntry { file: file.to_owned(), entry: name });
        };
        if entry.size() != expected.size {
            return Err(SnapshotError::SizeMismatch {
                file: file.to_owned(),
                entry: name,
                expected: expected.size,
                found: entry.size(),
            });
        }
        let target = staging.join(&name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(SnapshotError::io(parent))?;
        }
        let out = File::options().write(true).create_new(true).open(&target).map_err(SnapshotError::io(&target))?;
        let mut out = BufWriter::new(out);
        let mut hasher = blake3::Hasher::new();
        let mut buf = vec![0u8; 256 * 1024];
        let mut written = 0u64;
        let mut limited = (&mut entry).take(expected.size.saturating_add(1));
        loop {
            let n = limited.read(&mut buf).map_err(errors)?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > expected.size {
                break;
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(SnapshotError::io(&target))?;
        }
        if written != expected.size {
            return Err(SnapshotError::SizeMismatch {
                file: file.to_owned(),
                entry: name,
                expected: expected.size,
                found: written,
            });
        }
        if hasher.finalize().to_hex().as_str() != expected.blake3.to_ascii_lowercase() {
            return Err(SnapshotError::ChecksumMismatch { file: file.to_owned(), entry: name });
        }
        out.into_inner()
            .map_err(|e| SnapshotError::Io { path: target.clone(), source: e.into_error() })?
            .sync_all()
            .map_err(SnapshotError::io(&target))?;
        seen.insert(name);
    }
    for f in &manifest.files {
        if !seen.contains(&f.path) {
            return Err(SnapshotError::MissingEntry { file: file.to_owned(), entry: f.path.clone() });
        }
    }
    Ok(manifest)
}

/// The size and blake3 of a file.
pub(super) fn describe(root: &Path, relative: &str) -> Result<ManifestFile, SnapshotError> {
    let path = root.join(relative);
    let mut file = File::open(&path).map_err(SnapshotError::io(&path))?;
    let mut hasher = blake3::Hasher::new();
    let size = std::io::copy(&mut file, &mut hasher).map_err(SnapshotError::io(&path))?;
    Ok(ManifestFile { path: relative.to_owned(), size, blake3: hasher.finalize().to_hex().to_string() })
}

/// Writes the snapshot: the manifest, then every file it lists (read from under `root`),
/// to a temporary file beside `output`, renamed into place once complete. Returns its size.
pub(super) fn write(output: &Path, manifest: &Manifest, root: &Path) -> Result<u64, SnapshotError> {
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "snapshot".into());
    let tmp = output.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| -> Result<(), SnapshotError> {
        let file = File::create(&tmp).map_err(SnapshotError::io(&tmp))?;
        let io = SnapshotError::io(&tmp);
        let mut encoder = zstd::Encoder::new(BufWriter::new(file), 3).map_err(SnapshotError::io(&tmp))?;
        encoder.include_checksum(true).map_err(SnapshotError::io(&tmp))?;
        let mut builder = tar::Builder::new(encoder);
        let header_for = |size: u64| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Regular);
            header.set_size(size);
            header.set_mode(0o644);
            header.set_uid(0);
            header.set_gid(0);
            header.set_mtime(u64::try_from(manifest.created_at).unwrap_or(0));
            header
        };
        let text = serde_json::to_vec_pretty(manifest).expect("a manifest serializes because it holds plain data");
        builder
            .append_data(&mut header_for(text.len() as u64), MANIFEST_ENTRY, &text[..])
            .map_err(SnapshotError::io(&tmp))?;
        let mut bar =
            crate::progress::Bar::new("writing snapshot (KiB)", manifest.files.iter().map(|f| f.size >> 10).sum());
        for f in &manifest.files {
            bar.inc(f.size >> 10);
            let path = root.join(&f.path);
            let content = File::open(&path).map_err(SnapshotError::io(&path))?;
            // The file was hashed already; reading exactly its listed size keeps entry and
            // manifest in agreement.
            builder
                .append_data(&mut header_for(f.size), &f.path, content.take(f.size))
                .map_err(SnapshotError::io(&tmp))?;
        }
        let encoder = builder.into_inner().map_err(SnapshotError::io(&tmp))?;
        let mut out = encoder.finish().map_err(SnapshotError::io(&tmp))?;
        out.flush().map_err(SnapshotError::io(&tmp))?;
        out.into_inner()
            .map_err(|e| SnapshotError::Io { path: tmp.clone(), source: e.into_error() })?
            .sync_all()
            .map_err(io)?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, output).map_err(SnapshotError::io(output))?;
    Ok(std::fs::metadata(output).map(|m| m.len()).unwrap_or(0))
}
