"""Measures `git codecompass mcp` with the official MCP client (run by `cargo xtask bench mcp`).

Prints one JSON document: cold start to the first locate_symbol answer, warm per-tool
latencies (p50/p95), and response bytes with compact on and off.
"""

import asyncio
import json
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def pct(values, p):
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


async def main(binary, repo, store, names, rounds):
    args = ["--store", store, "mcp", "--no-prewarm", "--workspace", repo]
    params = StdioServerParameters(command=binary, args=args, cwd=repo)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            first = await session.call_tool("locate_symbol", {"name": names[0], "ref": "HEAD"})
            cold_ms = (time.perf_counter() - started) * 1000
            assert first.structured_content["results"], first
            calls = {
                "locate_symbol": lambda n: ("locate_symbol", {"name": n, "ref": "HEAD"}),
                "search_code": lambda n: ("search_code", {"query": n, "ref": "HEAD", "limit": 10}),
                "search_code_regex": lambda n: ("search_code", {"query": n + r"\s*\(", "mode": "regex", "ref": "HEAD", "limit": 20}),
                "get_file_outline": None,
                "read_source": lambda n: ("read_source", {"symbol": n, "ref": "HEAD"}),
                "get_code_context": lambda n: ("get_code_context", {"query": n, "max_tokens": 800, "ref": "HEAD"}),
                "list_refs": lambda n: ("list_refs", {}),
                "health_check": lambda n: ("health_check", {}),
            }
            paths = {}
            for n in names:
                located = await session.call_tool("locate_symbol", {"name": n, "ref": "HEAD"})
                results = located.structured_content.get("results") or []
                if results:
                    paths[n] = results[0]["path"]
            calls["get_file_outline"] = lambda n: ("get_file_outline", {"path": paths.get(n, ""), "ref": "HEAD"})
            latencies = {tool: [] for tool in calls}
            for _ in range(rounds):
                for n in names:
                    for tool, make in calls.items():
                        name, arguments = make(n)
                        t = time.perf_counter()
                        await session.call_tool(name, arguments)
                        latencies[tool].append((time.perf_counter() - t) * 1000)
            sizes = {"full": [], "compact": []}
            for n in names:
                for mode, compact in (("full", False), ("compact", True)):
                    r = await session.call_tool("search_code", {"query": n, "ref": "HEAD", "limit": 20, "compact": compact})
                    sizes[mode].append(len(json.dumps(r.structured_content)))
                    r = await session.call_tool("locate_symbol", {"name": n, "ref": "HEAD", "compact": compact})
                    sizes[mode].append(len(json.dumps(r.structured_content)))
    print(json.dumps({
        "cold_start_to_first_locate_ms": cold_ms,
        "warm_ms": {t: {"p50": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for t, v in latencies.items()},
        "response_bytes": {"full": sum(sizes["full"]), "compact": sum(sizes["compact"]),
                           "compact_ratio": sum(sizes["compact"]) / max(1, sum(sizes["full"]))},
    }, indent=2))


if __name__ == "__main__":
    binary, repo, store, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    names = sys.argv[5:]
    asyncio.run(main(binary, repo, store, names, rounds))
