"""Drives `git codecompass mcp` with the official MCP Python SDK, as an agent would.

Run by tests/it/mcp.rs with the virtualenv that .ci/test prepares:
    python tests/mcp/client_test.py SCENARIO --bin PATH --repo PATH [--other PATH]

Each scenario exits 0 when every check holds and prints what failed otherwise.
"""

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import httpx2 as httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

EXPECTED_TOOLS = {
    "find_references",
    "get_call_graph",
    "get_file_context",
    "get_related_tests",
    "explain_symbol",
    "search_code",
    "locate_symbol",
    "get_code_context",
    "get_file_outline",
    "read_source",
    "diff_context",
    "list_refs",
    "index_status",
    "health_check",
    "sync_repo",
    "xray_search",
    "xray_explore",
    "xray_search_batch",
    "get_job",
    "cancel_job",
    "list_repos",
    "search_commits",
    "find_introducing_commit",
    "symbol_history",
    "compare_symbol_between_commits",
}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def structured(result):
    return result.structured_content or {}


async def exercise_tools(session, repo):
    """Initialize, list, call every tool and check the structured answers."""
    tools = await session.list_tools()
    names = {t.name for t in tools.tools}
    check(names == EXPECTED_TOOLS, f"tool names: {sorted(names)}")
    for tool in tools.tools:
        check(tool.input_schema.get("type") == "object", f"{tool.name}: input schema is an object")
        check(tool.output_schema is not None, f"{tool.name}: has an output schema")
        check(bool(tool.description) and len(tool.description) < 400, f"{tool.name}: short description")
        check(bool(tool.title), f"{tool.name}: has a title")
        hints = tool.annotations
        check(hints is not None and hints.read_only_hint == (tool.name != "sync_repo"), f"{tool.name}: readOnlyHint")
        check(hints is not None and hints.destructive_hint is False and hints.open_world_hint is False, f"{tool.name}: hints")
    by_name = {t.name: t for t in tools.tools}
    enums = {
        ("search_code", "explain"): {"off", "basic", "full"},
        ("get_code_context", "strategy"): {"breadth", "depth"},
        ("get_call_graph", "direction"): {"up", "down", "both"},
    }
    for (tool, field), values in enums.items():
        text = str(by_name[tool].input_schema)
        check(all(f"'{v}'" in text for v in values) and "enum" in text or "const" in text, f"{tool}.{field} is an enum")

    progress = []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    synced = await session.call_tool("sync_repo", {"force": True}, progress_callback=on_progress)
    check(not synced.is_error, f"sync_repo: {synced.content}")
    check(len(structured(synced).get("views", [])) >= 1, "sync_repo: views")
    check(len(progress) >= 1, f"sync_repo: progress notifications arrived ({len(progress)})")
    print("progress events:", len(progress), progress[:2], file=sys.stderr)

    located = await session.call_tool("locate_symbol", {"name": "Cart::total_cents"})
    top = (structured(located).get("results") or [{}])[0]
    check((top.get("path"), top.get("line")) == ("src/cart.rs", 27), f"locate_symbol: {top}")
    check(structured(located).get("metadata", {}).get("result_completeness") == "complete", "locate metadata")

    full = await session.call_tool("search_code", {"query": "Cart", "limit": 10})
    compact = await session.call_tool("search_code", {"query": "Cart", "limit": 10, "compact": True})
    results = structured(full).get("results", [])
    check(results and results[0].get("path") == "src/cart.rs", f"search_code: {results[:1]}")
    check(structured(full).get("intent") == "symbol", "search_code: intent")
    full_bytes = len(json.dumps(structured(full)))
    compact_bytes = len(json.dumps(structured(compact)))
    check(compact_bytes < full_bytes, f"compact is smaller ({compact_bytes} vs {full_bytes})")

    regex = await session.call_tool("search_code", {"query": r"fn \w+\(&", "mode": "regex"})
    lines = [(r["path"], r["line_start"]) for r in structured(regex).get("results", [])]
    check(("src/cart.rs", 22) in lines and ("src/inventory.rs", 10) in lines, f"regex lines: {lines}")

    files = await session.call_tool(
        "search_code", {"query": "How are the cents of every item in a cart added up?", "group_by": "file"}
    )
    ranked_files = structured(files).get("results", [])
    check(ranked_files and ranked_files[0].get("path") == "src/cart.rs", f"group_by=file: {ranked_files[:2]}")
    check(ranked_files[0].get("kind") == "file", f"group_by=file kind: {ranked_files[:1]}")
    check(len({r["path"] for r in ranked_files}) == len(ranked_files), "group_by=file: one result per file")
    check(
        any(s.get("name") == "Cart.total_cents" or s.get("name", "").endswith("total_cents")
            for s in ranked_files[0].get("symbols", [])),
        f"group_by=file symbols: {ranked_files[0].get('symbols')}",
    )

    question = await session.call_tool(
        "get_code_context", {"query": "How are the cents of every item in a cart added up?", "max_tokens": 400}
    )
    q = structured(question)
    check(q.get("estimated_tokens", 10**6) <= 400, f"get_code_context question within budget: {q}")
    check(any(r.get("path") == "src/cart.rs" for r in q.get("results", [])[:3]), f"get_code_context question: {q}")

    context = await session.call_tool("get_code_context", {"query": "cart total", "max_tokens": 120})
    c = structured(context)
    check(c.get("estimated_tokens", 10**6) <= 120, f"get_code_context within budget: {c.get('estimated_tokens')}")

    outline = await session.call_tool("get_file_outline", {"path": "src/cart.rs"})
    names = [s["name"] for s in structured(outline).get("symbols", [])]
    check("Cart" in names and "Item" in names, f"get_file_outline: {names}")

    source = await session.call_tool("read_source", {"symbol": "Cart::total_cents"})
    check("fn total_cents" in structured(source).get("text", ""), f"read_source: {structured(source)}")
    ranged = await session.call_tool("read_source", {"path": "src/cart.rs", "line_start": 1, "line_end": 3})
    check(structured(ranged).get("text", "").startswith("//! Shopping carts."), "read_source by range")

    diff = await session.call_tool("diff_context", {"ref": "feature", "base": "main"})
    added = [s["name"] for s in structured(diff).get("symbols", {}).get("added", [])]
    check(added == ["apply_coupon"], f"diff_context: {added}")

    refs = await session.call_tool("list_refs", {})
    ref_names = [r["name"] for r in structured(refs).get("refs", [])]
    check("refs/heads/main" in ref_names, f"list_refs: {ref_names}")

    status = await session.call_tool("index_status", {})
    check(structured(status).get("store_state") == "compatible", f"index_status: {structured(status)}")

    health = await session.call_tool("health_check", {})
    check(structured(health).get("status") in ("ready", "indexing"), f"health_check: {structured(health)}")

    # The symbol graph.
    refs_of = await session.call_tool("find_references", {"name": "Cart::total_cents"})
    defs = structured(refs_of).get("definitions", [])
    check([d.get("path") for d in defs] == ["src/cart.rs"], f"find_references definitions: {defs}")
    check("results" in structured(refs_of), f"find_references: {structured(refs_of)}")
    down = await session.call_tool("get_call_graph", {"name": "Cart::new", "direction": "down"})
    nodes = structured(down).get("nodes", [])
    check(nodes and nodes[0].get("qualified_name") == "Cart::new", f"get_call_graph roots: {nodes[:1]}")
    check("new" in structured(down).get("external", []), f"get_call_graph: Vec::new is external: {structured(down)}")
    try:
        await session.call_tool("get_call_graph", {"name": "Cart::new", "direction": "sideways"})
        failures.append("get_call_graph: an unknown direction is a protocol error")
    except MCPError:
        pass
    try:
        await session.call_tool("search_code", {"query": "Cart", "explain": "bogus"})
        failures.append("search_code: an unknown explain level is a protocol error")
    except MCPError:
        pass
    file_context = await session.call_tool("get_file_context", {"path": "src/cart.rs"})
    outline_names = [s.get("name") for s in structured(file_context).get("outline", [])]
    check("Cart" in outline_names, f"get_file_context outline: {outline_names}")
    check(isinstance(structured(file_context).get("importers"), list), "get_file_context importers")
    explained = await session.call_tool("explain_symbol", {"name": "Cart::total_cents"})
    check(
        structured(explained).get("definition", {}).get("path") == "src/cart.rs"
        and "callers" in structured(explained),
        f"explain_symbol: {structured(explained)}",
    )
    # History: the same commits as git log -S, and the oldest of them.
    git_log = subprocess.run(
        ["git", "log", "--format=%H", "-S", "total_cents"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.split()
    commits = structured(await session.call_tool("search_commits", {"string": "total_cents", "limit": 500}))
    check([c.get("commit") for c in commits.get("commits", [])] == git_log, f"search_commits -S: {commits} vs {git_log}")
    # git's -i, --all and --reverse, through the same parameters.
    git_log_i = subprocess.run(
        ["git", "log", "--format=%H", "-i", "--all", "--reverse", "-S", "TOTAL_CENTS"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    folded = structured(
        await session.call_tool(
            "search_commits",
            {"string": "TOTAL_CENTS", "ignore_case": True, "all_refs": True, "reverse": True, "limit": 500},
        )
    )
    check(
        git_log_i and [c.get("commit") for c in folded.get("commits", [])] == git_log_i,
        f"search_commits -i --all --reverse: {folded} vs {git_log_i}",
    )
    introduced = structured(await session.call_tool("find_introducing_commit", {"string": "total_cents"}))
    check(
        git_log and (introduced.get("introducing") or {}).get("commit") == git_log[-1],
        f"find_introducing_commit: {introduced} vs {git_log}",
    )
    history = structured(await session.call_tool("symbol_history", {"name": "Cart::total_cents"}))
    changes = [e.get("change") for e in history.get("events", [])]
    check(changes and changes[-1] == "added", f"symbol_history: {history}")
    first = git_log[-1] if git_log else "HEAD"
    compared = structured(
        await session.call_tool("compare_symbol_between_commits", {"name": "Cart::total_cents", "from": first})
    )
    check(compared.get("to", {}).get("path") == "src/cart.rs" and "diff" in compared, f"compare_symbol: {compared}")
    tests_of = await session.call_tool("get_related_tests", {"target": "src/cart.rs"})
    check(structured(tests_of).get("target") == "file", f"get_related_tests: {structured(tests_of)}")
    escape = await session.call_tool("get_file_context", {"path": "../../etc/passwd"})
    check(escape.is_error, "get_file_context refuses a path outside the workspace")

    # Structural search.
    located_total = structured(await session.call_tool("locate_symbol", {"name": "Cart::total_cents"}))
    total_line = located_total.get("results", [{}])[0].get("line")
    xray = await session.call_tool(
        "xray_search",
        {"driver": "fn ", "literal": True, "lang": ["rust"], "query": "(function_item name: (identifier) @name) @match"},
    )
    found = [(r.get("path"), r.get("line_start"), r.get("captures", [{}])[0].get("text")) for r in structured(xray).get("results", [])]
    check(("src/cart.rs", total_line, "total_cents") in found, f"xray_search: {found} (total_cents at {total_line})")
    check(structured(xray).get("prefilter") == "trigram", f"xray_search prefilter: {structured(xray).get('prefilter')}")
    scripted = await session.call_tool(
        "xray_search",
        {"driver": "total_cents", "script": 'root.descendants("function_item").filter(|f| f.field("name").text == "total_cents")'},
    )
    check(
        [(r.get("path"), r.get("line_start")) for r in structured(scripted).get("results", [])] == [("src/cart.rs", total_line)],
        f"xray_search script: {structured(scripted)}",
    )
    bad_query = await session.call_tool("xray_search", {"driver": "fn", "query": "(function_item"})
    check(bad_query.is_error and structured(bad_query).get("error", {}).get("code") == "invalid_argument", "xray_search refuses a bad query")
    explored = await session.call_tool("xray_explore", {"path": "src/cart.rs", "line": total_line})
    check(structured(explored).get("nodes", [{}])[0].get("kind") == "function_item", f"xray_explore: {structured(explored)}")
    escape = await session.call_tool("xray_explore", {"path": "../../etc/passwd"})
    check(escape.is_error, "xray_explore refuses a path outside the workspace")
    functions = {"driver": "fn ", "literal": True, "lang": ["rust"], "query": "(function_item name: (identifier) @name) @match"}
    batch = structured(await session.call_tool("xray_search_batch", {"scans": [functions], "refs": ["main", "feature"]}))
    runs = batch.get("runs", [])
    names_at = {r.get("asked_ref"): {c.get("text") for m in r.get("results", []) for c in m.get("captures", [])} for r in runs}
    check(
        len(runs) == 2 and "apply_coupon" in names_at.get("feature", set()) and "apply_coupon" not in names_at.get("main", set()),
        f"xray_search_batch: {names_at}",
    )
    job = structured(await session.call_tool("xray_search", {**functions, "ref": "feature", "background": True}))
    job_id = job.get("job_id", "")
    check(job.get("status") == "queued", f"xray_search background: {job}")
    state = {}
    for _ in range(600):
        state = structured(await session.call_tool("get_job", {"job_id": job_id}))
        if state.get("status") in ("done", "cancelled", "failed", "interrupted"):
            break
        await asyncio.sleep(0.05)
    job_names = {c.get("text") for r in state.get("answer", {}).get("runs", []) for m in r.get("results", []) for c in m.get("captures", [])}
    check(state.get("status") == "done" and "apply_coupon" in job_names, f"get_job: {state}")
    after = structured(await session.call_tool("cancel_job", {"job_id": job_id}))
    check(after.get("status") == "done", f"cancel_job on an ended job changes nothing: {after}")
    unknown = await session.call_tool("get_job", {"job_id": "../../etc"})
    check(unknown.is_error, "get_job refuses an unknown id")

    # A branch as the scope.
    at_ref = await session.call_tool("locate_symbol", {"name": "apply_coupon", "ref": "feature"})
    check(len(structured(at_ref).get("results", [])) == 1, "locate_symbol at a ref")
    missing = await session.call_tool("locate_symbol", {"name": "apply_coupon", "ref": "main"})
    check(structured(missing).get("results") == [], "nothing leaks from another ref")


async def security_checks(session, repo, outside):
    """Traversal, absolute paths and symlink escapes are refused with nothing read."""
    for path in ["../../etc/passwd", "/etc/passwd", "escape/passwd", "src/../../x"]:
        for tool, args in [("read_source", {"path": path}), ("get_file_outline", {"path": path})]:
            result = await session.call_tool(tool, args)
            code = structured(result).get("error", {}).get("code")
            check(result.is_error, f"{tool} {path}: refused")
            check(code in ("path_outside_workspace", "file_not_found"), f"{tool} {path}: code {code}")
            text = json.dumps(structured(result))
            check("root:" not in text, f"{tool} {path}: nothing read")
    foreign = await session.call_tool("locate_symbol", {"name": "x", "workspace": outside})
    code = structured(foreign).get("error", {}).get("code")
    check(foreign.is_error and code in ("workspace_not_registered", "workspace_not_allowed"), f"foreign workspace: {code}")
    try:
        await session.call_tool("no_such_tool", {})
        failures.append("an unknown tool is a protocol error")
    except MCPError:
        pass
    try:
        await session.call_tool("locate_symbol", {"name": 5})
        failures.append("malformed parameters are a protocol error")
    except MCPError:
        pass


async def scenario_stdio(args):
    params = StdioServerParameters(
        command=args.bin, args=["mcp", "--no-prewarm", "--workspace", args.repo], cwd=args.repo
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "codecompass", f"server name: {init.server_info.name}")
            check(init.capabilities.tools is not None, "tools capability")
            await exercise_tools(session, args.repo)
            await security_checks(session, args.repo, args.other)


async def scenario_partial(args):
    """An unindexed workspace answers at once, partially, and indexes behind."""
    params = StdioServerParameters(command=args.bin, args=["mcp", "--no-prewarm", "--workspace", args.repo], cwd=args.repo)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            first = await session.call_tool("locate_symbol", {"name": "Cart"})
            meta = structured(first).get("metadata", {})
            check(meta.get("result_completeness") == "partial", f"first answer is partial: {meta}")
            check(meta.get("indexing_status") == "indexing", f"first answer says indexing: {meta}")
            deadline = time.time() + 60
            while time.time() < deadline:
                status = await session.call_tool("index_status", {})
                if structured(status).get("indexing_status") == "ready":
                    break
                await asyncio.sleep(0.2)
            later = await session.call_tool("locate_symbol", {"name": "Cart"})
            check(len(structured(later).get("results", [])) == 1, f"later answer: {structured(later)}")


def stop(server):
    """Ends a server this script started: asked first, killed if it does not go."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def scenario_http(args):
    port = free_port()
    token = "s3cret-token"
    server = subprocess.Popen(
        [args.bin, "mcp", "--transport", "http", "--bind", f"127.0.0.1:{port}", "--workspace", args.repo, "--auth-token", token],
        cwd=args.repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                httpx.get(f"{base}/health", headers={"Authorization": f"Bearer {token}"}, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {token}"}
        # A client that sends half its headers and stalls: the server closes the connection
        # (after 30 s) instead of keeping it forever; checked at the end.
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        stalled_at = time.time()
        ok = httpx.get(f"{base}/health", headers=auth, timeout=5)
        check(ok.status_code == 200 and ok.json().get("version"), f"health: {ok.status_code} {ok.text}")
        check(ok.json().get("status") in ("ready", "warming", "indexing"), f"health status: {ok.json()}")
        check(httpx.get(f"{base}/health", timeout=5).status_code == 401, "missing token refused")
        check(httpx.get(f"{base}/health", headers={"Authorization": "Bearer wrong"}, timeout=5).status_code == 401,
              "wrong token refused")
        bad_host = httpx.get(f"{base}/health", headers={**auth, "Host": "evil.example"}, timeout=5)
        check(bad_host.status_code == 403, f"bad Host refused: {bad_host.status_code}")
        bad_origin = httpx.get(f"{base}/health", headers={**auth, "Origin": "http://evil.example"}, timeout=5)
        check(bad_origin.status_code == 403, f"bad Origin refused: {bad_origin.status_code}")
        # Malformed JSON and a huge request: refused, and the server lives on.
        malformed = httpx.post(f"{base}/mcp", content=b"{not json", headers={**auth, "Content-Type": "application/json",
                                                                             "Accept": "application/json, text/event-stream"}, timeout=5)
        check(malformed.status_code == 400, f"malformed JSON: {malformed.status_code}")
        try:
            error = malformed.json()
        except ValueError:
            error = {}
        check(error.get("error", {}).get("code") == -32700 and error.get("id") is None,
              f"malformed JSON gets JSON-RPC's parse error: {malformed.text}")
        not_a_message = httpx.post(f"{base}/mcp", content=b'{"id": 3, "method": "ping"}',
                                   headers={**auth, "Content-Type": "application/json",
                                            "Accept": "application/json, text/event-stream"}, timeout=5)
        check(not_a_message.status_code == 400 and not_a_message.json().get("error", {}).get("code") == -32600
              and not_a_message.json().get("id") == 3, f"no JSON-RPC message: {not_a_message.text}")
        # Clients that initialize and never close: the oldest sessions are closed to make room
        # (the server keeps at most 256), and a closed session's client is told (404).
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
        headers = {**auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        ids = []
        with httpx.Client(timeout=10) as raw:
            for _ in range(270):
                opened = raw.post(f"{base}/mcp", json=init, headers=headers)
                ids.append(opened.headers.get("mcp-session-id"))
            check(all(ids), "every initialize opened a session")
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            first = raw.post(f"{base}/mcp", json=ping, headers={**headers, "mcp-session-id": ids[0]})
            check(first.status_code == 404, f"the oldest session was closed: {first.status_code}")
            last = raw.post(f"{base}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                            headers={**headers, "mcp-session-id": ids[-1]})
            check(last.status_code in (200, 202), f"the newest session is open: {last.status_code}")
        huge = httpx.post(f"{base}/mcp", content=b"x" * (8 * 1024 * 1024), headers={**auth, "Content-Type": "application/json",
                                                                                   "Accept": "application/json, text/event-stream"}, timeout=30)
        check(huge.status_code == 413, f"huge request: {huge.status_code}")

        async def one_client(n):
            async with httpx.AsyncClient(headers=auth, timeout=60) as client:
                async with streamable_http_client(f"{base}/mcp", http_client=client) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        await session.list_tools()
                        result = await session.call_tool("locate_symbol", {"name": "Cart"})
                        deadline = time.time() + 60
                        while structured(result).get("metadata", {}).get("result_completeness") == "partial":
                            if time.time() > deadline:
                                break
                            await asyncio.sleep(0.2)
                            result = await session.call_tool("locate_symbol", {"name": "Cart"})
                        return structured(result).get("results", [])

        both = await asyncio.gather(one_client(1), one_client(2))
        check(all(len(r) == 1 and r[0]["path"] == "src/cart.rs" for r in both), f"two clients at once: {both}")

        # A client that goes away in the middle of a call does not take the server down.
        async def abandoned():
            async with httpx.AsyncClient(headers=auth, timeout=60) as client:
                async with streamable_http_client(f"{base}/mcp", http_client=client) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        await session.call_tool("sync_repo", {"force": True})

        task = asyncio.create_task(abandoned())
        await asyncio.sleep(0.3)
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
        after = await one_client(3)
        check(len(after) == 1, f"the server answers after an abandoned call: {after}")
        stalled.settimeout(max(1.0, stalled_at + 40 - time.time()))
        try:
            closed = stalled.recv(4096) == b"" or stalled.recv(4096) == b""
        except socket.timeout:
            closed = False
        except OSError:
            closed = True
        check(closed and time.time() - stalled_at >= 29, "a connection stalled in its headers is closed after 30 s")
        stalled.close()
        check(server.poll() is None, "the server is still running")
    finally:
        stop(server)


async def scenario_wrong_token(args):
    """A client with a wrong token cannot even initialize."""
    port = free_port()
    server = subprocess.Popen(
        [args.bin, "mcp", "--transport", "http", "--bind", f"127.0.0.1:{port}", "--no-prewarm", "--workspace", args.repo],
        cwd=args.repo, env={**os.environ, "CODECOMPASS_MCP_TOKEN": "right"}, stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        try:
            async with httpx.AsyncClient(headers={"Authorization": "Bearer wrong"}, timeout=10) as client:
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (read, write):
                    async with ClientSession(read, write) as session:
                        await asyncio.wait_for(session.initialize(), 10)
                        failures.append("a wrong token initialized")
        except BaseException:
            pass
    finally:
        server.terminate()
        server.wait(timeout=10)


async def scenario_repos(args):
    """One HTTP server for the registry (`--all-repos`), tokens scoped to repositories.

    `--repo` is the `many-repos` fixture's root, `--other` the registry home (CODECOMPASS_HOME)
    where billing, fork and storefront are registered."""
    port = free_port()
    tokens = os.path.join(args.other, "tokens")
    with open(tokens, "w") as f:
        f.write("# every repository\nall-token *\n# billing and its fork only\nbilling-token billing fork\n")
    server = subprocess.Popen(
        [args.bin, "mcp", "--transport", "http", "--bind", f"127.0.0.1:{port}", "--all-repos", "--no-prewarm",
         "--auth-token-file", tokens],
        cwd=args.repo, env={**os.environ, "CODECOMPASS_HOME": args.other}, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    storefront = os.path.join(args.repo, "storefront")

    async def session_for(token, calls):
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
            async with streamable_http_client(f"{base}/mcp", http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [await session.call_tool(name, params) for name, params in calls]

    def code(result):
        return structured(result).get("error", {}).get("code")

    try:
        for _ in range(100):
            try:
                httpx.get(f"{base}/health", headers={"Authorization": "Bearer all-token"}, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        check(httpx.get(f"{base}/health", headers={"Authorization": "Bearer nobody"}, timeout=5).status_code == 401,
              "a token not in the file is refused")
        listed, across, one, at_ref, outline_many, climb = await session_for("all-token", [
            ("list_repos", {}),
            ("locate_symbol", {"name": "charge_card", "repo": "*"}),
            ("search_code", {"query": "format_amount", "repo": "billing"}),
            ("locate_symbol", {"name": "charge_card", "repo": "billing", "ref": "v2"}),
            ("get_file_outline", {"path": "billing/money.py", "repo": "*"}),
            ("get_file_outline", {"path": "../storefront/storefront/invoice.py", "repo": "billing"}),
        ])
        aliases = [r["alias"] for r in structured(listed).get("repos", [])]
        check(aliases == ["billing", "fork", "storefront"], f"list_repos: {aliases}")
        places = sorted((r["repo"], r["path"], r["line"]) for r in structured(across).get("results", []))
        check(places == [("billing", "billing/charge.py", 4), ("fork", "billing/charge.py", 4)], f"across: {places}")
        check(len(structured(across).get("repos", [])) == 3, f"across names every repository: {structured(across)}")
        check(not one.is_error and structured(one).get("results"), f"one repository by alias: {structured(one)}")
        check([r["path"] for r in structured(at_ref).get("results", [])] == ["billing/cards/charge_v2.py"],
              f"one repository at a ref: {structured(at_ref)}")
        check(outline_many.is_error and code(outline_many) == "invalid_argument",
              f"a one-repository tool refuses several: {structured(outline_many)}")
        check(climb.is_error and code(climb) == "path_outside_workspace" and "render_invoice" not in json.dumps(structured(climb)),
              f"paths stay inside the repository named: {structured(climb)}")

        listed, outside, glob, default, by_path = await session_for("billing-token", [
            ("list_repos", {}),
            ("locate_symbol", {"name": "render_invoice_only_in_storefront", "repo": "storefront"}),
            ("locate_symbol", {"name": "render_invoice_only_in_storefront", "repo": "*"}),
            ("locate_symbol", {"name": "charge_card"}),
            ("get_file_outline", {"path": "storefront/invoice.py", "workspace": storefront}),
        ])
        aliases = [r["alias"] for r in structured(listed).get("repos", [])]
        check(aliases == ["billing", "fork"], f"a scoped token lists its repositories: {aliases}")
        check(outside.is_error and code(outside) == "workspace_not_allowed", f"outside the scope: {structured(outside)}")
        check("render_invoice" not in json.dumps(structured(outside)), "nothing read outside the scope")
        glob_repos = sorted(r["repo"] for r in structured(glob).get("repos", []))
        check(glob_repos == ["billing", "fork"] and not structured(glob).get("results"),
              f"a glob stays in the scope: {structured(glob)}")
        check(not default.is_error and structured(default).get("results"), f"the default repository: {structured(default)}")
        check(by_path.is_error and code(by_path) == "workspace_not_allowed", f"a workspace path outside: {structured(by_path)}")
        check("render_invoice" not in json.dumps(structured(by_path)), "nothing read by path outside the scope")
        health = httpx.get(f"{base}/health", headers={"Authorization": "Bearer billing-token"}, timeout=5).json()
        shown = sorted(os.path.basename(w["workspace"]) for w in health.get("workspaces", []))
        check(shown == ["billing", "billing-fork"], f"health shows the token's repositories: {shown}")
        check(server.poll() is None, "the server is still running")
    finally:
        stop(server)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["stdio", "partial", "http", "wrong_token", "repos"])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--other", default="/")
    args = parser.parse_args()
    asyncio.run({"stdio": scenario_stdio, "partial": scenario_partial, "http": scenario_http,
                 "wrong_token": scenario_wrong_token, "repos": scenario_repos}[args.scenario](args))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
