"""Loads `git codecompass mcp --transport http` on the loopback (run by `cargo xtask bench mcp-load`).

    python mcp_load.py BINARY REPO STORE SECONDS NAME...

Two phases against one server, each SECONDS long:
  quiet  one client asks `search_code` and `locate_symbol` for NAMEs in turn;
  load   eight such clients at once, beside two clients sending hostile-size queries (a 120 KB
         query of repeated words, a regex of a thousand alternatives), four slow connections
         (headers trickled a byte at a time, or a declared body trickled) and clients that
         open a session, start a call and drop the connection.
The server's resident memory is sampled every 50 ms from /proc. Prints one JSON document:
latencies of the ordinary calls in each phase, counts of calls answered and failed by client
kind, peak RSS, and whether the server still answers at the end.
"""

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx2 as httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def pct(values, p):
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Memory(threading.Thread):
    """Samples a process's VmRSS until stopped; `peak` in bytes (VmHWM at the end when larger)."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stopped = pid, 0, False

    def read(self, field):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return 0
        return 0

    def run(self):
        while not self.stopped:
            self.peak = max(self.peak, self.read("VmRSS"))
            time.sleep(0.05)

    def stop(self):
        self.stopped = True
        self.peak = max(self.peak, self.read("VmHWM"))


@contextlib.asynccontextmanager
async def session_at(base):
    """An initialized client session with the server at `base`."""
    async with httpx.AsyncClient(timeout=120) as http:
        async with streamable_http_client(f"{base}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def ordinary(base, names, until, latencies, counts):
    """Asks search_code and locate_symbol for each name in turn until `until`."""
    async with session_at(base) as session:
        i = 0
        while time.time() < until:
            name = names[i % len(names)]
            tool, arguments = [
                ("search_code", {"query": name, "ref": "HEAD", "limit": 10}),
                ("locate_symbol", {"name": name, "ref": "HEAD"}),
            ][i % 2]
            i += 1
            started = time.perf_counter()
            try:
                result = await session.call_tool(tool, arguments)
                ok = not result.is_error
            except Exception:
                ok = False
            latencies.append((time.perf_counter() - started) * 1000)
            counts["ordinary_ok" if ok else "ordinary_failed"] += 1


async def hostile(base, until, counts):
    """Sends hostile-size queries one after another until `until`."""
    queries = [
        ("search_code", {"query": "spawn " * 20000, "ref": "HEAD", "limit": 10}),
        ("search_code", {"query": "|".join(f"name_{i}_x" for i in range(1000)), "mode": "regex", "ref": "HEAD"}),
        ("locate_symbol", {"name": " ".join(f"word{i}" for i in range(5000)), "ref": "HEAD"}),
    ]
    async with session_at(base) as session:
        i = 0
        while time.time() < until:
            tool, arguments = queries[i % len(queries)]
            i += 1
            try:
                result = await session.call_tool(tool, arguments)
                counts["hostile_answered" if not result.is_error else "hostile_refused"] += 1
            except Exception:
                counts["hostile_failed"] += 1


async def abandoning(base, until, counts):
    """Opens a session, starts a call and drops the connection, over and over."""
    while time.time() < until:
        async def call():
            async with session_at(base) as session:
                await session.call_tool("search_code", {"query": "fn", "mode": "regex", "ref": "HEAD"})

        task = asyncio.create_task(call())
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        counts["abandoned"] += 1


def slow(port, until, body, counts):
    """A connection that trickles its request a byte every 200 ms: the headers, or a body."""
    try:
        s = socket.create_connection(("127.0.0.1", port))
    except OSError:
        counts["slow_refused"] += 1
        return
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    if body:
        s.sendall((head + "Accept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n\r\n").encode())
        chunk = b"{"
    else:
        s.sendall(head.encode())
        chunk = b"X"
    sent = 0
    try:
        while time.time() < until:
            s.sendall(chunk if sent == 0 or not body else b" ")
            sent += 1
            time.sleep(0.2)
        counts["slow_kept_open"] += 1
    except OSError:
        counts["slow_closed_by_server"] += 1
    finally:
        s.close()


async def main(binary, repo, store, seconds, names):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [binary, "--store", store, "mcp", "--transport", "http", "--bind", f"127.0.0.1:{port}", "--workspace", repo],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    memory = Memory(server.pid)
    memory.start()
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        # Warm: the first answer opens the index.
        warm_counts = {"ordinary_ok": 0, "ordinary_failed": 0}
        await ordinary(base, names[:2], time.time() + 1, [], warm_counts)
        started_rss = memory.read("VmRSS")

        counts = {k: 0 for k in ["ordinary_ok", "ordinary_failed"]}
        quiet = []
        await ordinary(base, names, time.time() + seconds, quiet, counts)
        quiet_counts = dict(counts)
        quiet_peak = memory.peak

        counts = {k: 0 for k in [
            "ordinary_ok", "ordinary_failed", "hostile_answered", "hostile_refused", "hostile_failed",
            "abandoned", "slow_kept_open", "slow_closed_by_server", "slow_refused",
        ]}
        loaded = []
        until = time.time() + seconds
        slow_threads = [threading.Thread(target=slow, args=(port, until, i % 2 == 1, counts), daemon=True) for i in range(4)]
        for t in slow_threads:
            t.start()
        tasks = [ordinary(base, names[i:] + names[:i], until, loaded, counts) for i in range(8)]
        tasks += [hostile(base, until, counts) for _ in range(2)]
        tasks += [abandoning(base, until, counts)]
        await asyncio.gather(*tasks, return_exceptions=True)
        for t in slow_threads:
            t.join(timeout=5)
        after = []
        after_counts = {"ordinary_ok": 0, "ordinary_failed": 0}
        await ordinary(base, names[:4], time.time() + 2, after, after_counts)
        alive = server.poll() is None
    finally:
        memory.stop()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()

    def summary(values):
        return {"n": len(values), "p50": pct(values, 50), "p95": pct(values, 95), "max": max(values) if values else None}

    print(json.dumps({
        "seconds": seconds,
        "names": len(names),
        "rss_after_warm": started_rss,
        "quiet": {"latency_ms": summary(quiet), "counts": quiet_counts, "peak_rss": quiet_peak},
        "load": {"latency_ms": summary(loaded), "counts": counts, "peak_rss": memory.peak},
        "after": {"latency_ms": summary(after), "counts": after_counts},
        "server_alive": alive,
    }))


if __name__ == "__main__":
    binary, repo, store, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    asyncio.run(main(binary, repo, store, seconds, sys.argv[5:]))
