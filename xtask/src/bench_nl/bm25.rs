//! The baseline of `bench nl`: a plain whole-file BM25 over a tree's paths and contents, its
//! blobs read through one long-lived `git cat-file --batch`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, bail};

/// The baseline reads blobs up to this size.
const MAX_BLOB_BYTES: u64 = 1 << 20;
/// A blob with a NUL byte in its first this many bytes is binary.
const BINARY_PROBE: usize = 8 << 10;
/// BM25 term frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// The tokens of `text` for the baseline, lower-cased: words split at non-alphanumeric
/// characters and at camelCase, snake_case and digit boundaries, plus each whole identifier
/// of several parts, the same tokenizer CodeCompass indexes code with. One-character tokens
/// are dropped.
pub(super) fn tokens(text: &str) -> impl Iterator<Item = String> {
    codecompass::index::tokenizer::code_tokens(text).into_iter().map(|t| t.text).filter(|t| t.chars().nth(1).is_some())
}

/// Term frequencies of one document part (a blob's content or a path), by term id, sorted.
pub(super) struct Counts {
    pub(super) terms: Vec<(u32, u32)>,
    pub(super) length: u32,
}

impl Counts {
    pub(super) fn get(&self, term: u32) -> u32 {
        self.terms.binary_search_by_key(&term, |&(t, _)| t).map_or(0, |i| self.terms[i].1)
    }
}

/// Term ids, so cached counts hold integers instead of strings.
#[derive(Default)]
pub(super) struct Terms(HashMap<String, u32>);

impl Terms {
    pub(super) fn counts(&mut self, text: &str) -> Counts {
        let mut map: HashMap<u32, u32> = HashMap::new();
        let mut length = 0;
        for token in tokens(text) {
            let next = u32::try_from(self.0.len()).unwrap_or(u32::MAX);
            let id = *self.0.entry(token).or_insert(next);
            *map.entry(id).or_default() += 1;
            length += 1;
        }
        let mut terms: Vec<(u32, u32)> = map.into_iter().collect();
        terms.sort_unstable();
        Counts { terms, length }
    }
}

/// Blobs read through one `git cat-file --batch`.
pub(super) struct CatFile {
    pub(super) child: Child,
    pub(super) input: ChildStdin,
    pub(super) output: BufReader<ChildStdout>,
}

impl CatFile {
    pub(super) fn new(repo: &Path) -> Result<CatFile> {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running git cat-file --batch")?;
        let input = child.stdin.take().context("git cat-file has no stdin")?;
        let output = BufReader::new(child.stdout.take().context("git cat-file has no stdout")?);
        Ok(CatFile { child, input, output })
    }

    /// The content of `blob_id`.
    pub(super) fn read(&mut self, blob_id: &str) -> Result<Vec<u8>> {
        writeln!(self.input, "{blob_id}")?;
        self.input.flush()?;
        let mut header = String::new();
        self.output.read_line(&mut header)?;
        let size: usize = match header.split_whitespace().collect::<Vec<_>>()[..] {
            [_, _, size] => size.parse().with_context(|| format!("cat-file header `{}`", header.trim()))?,
            _ => bail!("git cat-file: {}", header.trim()),
        };
        // The content, then a newline.
        let mut data = vec![0; size + 1];
        self.output.read_exact(&mut data)?;
        data.pop();
        Ok(data)
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One file of a tree for the baseline.
pub(super) struct Document {
    pub(super) path: String,
    pub(super) blob_id: String,
}

/// The counted tokens of every file seen so far, by blob id and by path: consecutive parents
/// share most of their files, so each is tokenised once.
#[derive(Default)]
pub(super) struct Corpus {
    pub(super) terms: Terms,
    /// `None` for a blob that is binary.
    pub(super) by_blob: HashMap<String, Option<Counts>>,
    pub(super) by_path: HashMap<String, Counts>,
}

/// The whole-file BM25 baseline over the trees of one repository.
pub(super) struct Bm25 {
    pub(super) repo: PathBuf,
    pub(super) cat_file: CatFile,
    pub(super) corpus: Corpus,
}

impl Bm25 {
    pub(super) fn new(repo: &Path) -> Result<Bm25> {
        Ok(Bm25 { repo: repo.to_owned(), cat_file: CatFile::new(repo)?, corpus: Corpus::default() })
    }

    /// The text files of `commit_id` up to `MAX_BLOB_BYTES`, their tokens counted (read only
    /// for blobs not seen before).
    pub(super) fn load(&mut self, commit_id: &str) -> Result<Vec<Document>> {
        let output = Command::new("git")
            .arg("-C")
            .arg(&self.repo)
            .args(["ls-tree", "-r", "-l", "-z", commit_id])
            .output()
            .context("running git ls-tree")?;
        if !output.status.success() {
            bail!("git ls-tree {commit_id}: {}", String::from_utf8_lossy(&output.stderr));
        }
        let mut documents = Vec::new();
        for entry in output.stdout.split(|&b| b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else { continue };
            // `<mode> <type> <id> <size>`; symbolic links (120000) hold a path, not text.
            let [mode, kind, blob_id, size] = meta.split_whitespace().collect::<Vec<_>>()[..] else { continue };
            if kind != "blob" || mode == "120000" || size.parse::<u64>().map_or(true, |s| s > MAX_BLOB_BYTES) {
                continue;
            }
            let corpus = &mut self.corpus;
            if !corpus.by_blob.contains_key(blob_id) {
                let data = self.cat_file.read(blob_id)?;
                let text = !data[..data.len().min(BINARY_PROBE)].contains(&0);
                let counts = text.then(|| corpus.terms.counts(&String::from_utf8_lossy(&data)));
                corpus.by_blob.insert(blob_id.to_owned(), counts);
            }
            if matches!(corpus.by_blob.get(blob_id), Some(Some(_))) {
                if !corpus.by_path.contains_key(path) {
                    let counts = corpus.terms.counts(path);
                    corpus.by_path.insert(path.to_owned(), counts);
                }
                documents.push(Document { path: path.to_owned(), blob_id: blob_id.to_owned() });
            }
        }
        Ok(documents)
    }
}

impl Corpus {
    /// The `limit` best documents for `query`, best first (ties by path).
    pub(super) fn rank(&self, documents: &[Document], query: &str, limit: usize) -> Vec<String> {
        let mut query_counts: HashMap<u32, u32> = HashMap::new();
        for token in tokens(query) {
            // A term no file has scores nothing.
            if let Some(&id) = self.terms.0.get(&token) {
                *query_counts.entry(id).or_default() += 1;
            }
        }
        let query_terms: Vec<(u32, u32)> = query_counts.into_iter().collect();
        let parts: Vec<(&Counts, &Counts)> = documents
            .iter()
            .filter_map(|d| Some((self.by_blob.get(&d.blob_id)?.as_ref()?, self.by_path.get(&d.path)?)))
            .collect();
        let n = parts.len() as f64;
        let average = parts.iter().map(|(c, p)| f64::from(c.length + p.length)).sum::<f64>() / n.max(1.0);
        let mut df = vec![0u32; query_terms.len()];
        let mut hits: Vec<(usize, usize, u32)> = Vec::new();
        for (d, (content, path)) in parts.iter().enumerate() {
            for (q, &(term, _)) in query_terms.iter().enumerate() {
                let tf = content.get(term) + path.get(term);
                if tf > 0 {
                    df[q] += 1;
                    hits.push((d, q, tf));
                }
            }
        }
        let idf: Vec<f64> =
            df.iter().map(|&df| (1.0 + (n - f64::from(df) + 0.5) / (f64::from(df) + 0.5)).ln()).collect();
        let mut scores = vec![0.0f64; parts.len()];
        for (d, q, tf) in hits {
            let (content, path) = parts[d];
            let length = f64::from(content.length + path.length);
            let tf = f64::from(tf);
            let qf = f64::from(query_terms[q].1);
            scores[d] += qf * idf[q] * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)));
        }
        let mut ranked: Vec<(f64, &str)> =
            documents.iter().zip(&scores).filter(|&(_, &s)| s > 0.0).map(|(d, &s)| (s, d.path.as_str())).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        ranked.into_iter().take(limit).map(|(_, p)| p.to_owned()).collect()
    }
}
