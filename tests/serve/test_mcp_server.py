"""`impactlens mcp REPO` driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import impactlens

from .conftest import PRICE_DIFF, PRICING_AFTER

TOOLS = {"analyze_change", "tests_for_change", "impact", "context", "find_symbol", "slice",
         "reindex"}

Session = Callable[[ClientSession], Awaitable[None]]


# the server process imports the impactlens these tests import (a checkout's own code)
_SRC = str(Path(impactlens.__file__).resolve().parents[1])


def run_session(repo: Path, body: Session, *, cwd: Path | None = None) -> None:
    """Launch ``python -m impactlens mcp REPO`` and run ``body`` against it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "impactlens", "mcp", str(repo)],
        cwd=str(cwd or repo), env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": _SRC},
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                await body(session)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # surface the test's own failure, not the task group
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        raise leaf from None


async def call(session: ClientSession, tool: str, /, **args: Any) -> dict[str, Any]:
    res = await session.call_tool(tool, args)
    assert not res.is_error, (tool, args, res.content)
    assert res.structured_content is not None
    # the text is a short summary: the structure is sent once, never also dumped as text
    text = "".join(c.text for c in res.content if getattr(c, "type", "") == "text")
    assert text and not text.lstrip().startswith(("{", "[")), (tool, text[:200])
    return res.structured_content


async def call_error(session: ClientSession, tool: str, /, **args: Any) -> str:
    res = await session.call_tool(tool, args)
    assert res.is_error, (tool, args, res.structured_content)
    text = " ".join(c.text for c in res.content if getattr(c, "type", "") == "text")
    assert "Traceback" not in text
    return text


async def ids_of(session: ClientSession, name: str) -> set[str]:
    """Ids found for ``name`` that really contain it (find_symbol also suggests near misses)."""
    hits = await call(session, "find_symbol", name=name)
    return {m["id"] for m in hits["matches"] if name in m["id"]}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file outside ``.impactlens/`` with its size and mtime."""
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts[0] == ".impactlens" or not p.is_file():
            continue
        st = p.stat()
        out[rel.as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def test_tools_listed_and_each_answers(shop: Path) -> None:
    (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)  # a working-tree edit

    async def body(s: ClientSession) -> None:
        listed = (await s.list_tools()).tools
        by_name = {t.name: t for t in listed}
        assert set(by_name) == TOOLS
        for t in listed:
            assert t.description and len(t.description) > 80, t.name
            assert t.input_schema["type"] == "object"
            assert t.output_schema is not None, t.name
        assert by_name["impact"].input_schema["properties"]["mode"]["enum"] == [
            "callgraph", "pdg"]

        # analyze_change: the working tree (default)
        a = await call(s, "analyze_change")
        assert a["change"]["mode"] == "worktree"
        assert a["change"]["files"] == ["src/shop/pricing.py"]
        assert a["seed"]["entity"] == "shop.pricing.price"
        assert a["seed"]["change_type"] == "method-signature"
        must = {e["entity"] for e in a["triage"]["must_inspect"]}
        assert "shop.orders.Order.total" in must
        assert all(e["reason"] for e in a["triage"]["must_inspect"])
        assert a["batches"] and a["batches"][0]["members"][0] == "shop.pricing.price"
        assert "tests/test_pricing.py::test_price" in a["validate"]
        assert not any(t.startswith("tests/test_misc.py") for t in a["validate"])
        dag_nodes = {n["entity"] for n in a["dag"]["nodes"]}
        assert "shop.orders.Order.total" in dag_nodes
        assert all(e["cause"] for e in a["dag"]["edges"])
        assert a["summary"]["must_inspect"] == len(a["triage"]["must_inspect"])
        assert "test_map" not in a

        # analyze_change: a diff text (against the committed tree) and a revision
        await anyio.to_thread.run_sync(
            lambda: (shop / "src/shop/pricing.py").write_text(
                PRICING_AFTER.replace(", currency", "")))
        d = await call(s, "analyze_change", diff=PRICE_DIFF, detail=True)
        assert d["change"]["mode"] == "diff"
        assert d["seed"]["entity"] == "shop.pricing.price"
        assert {e["entity"] for e in d["triage"]["must_inspect"]} == must
        assert d["test_map"] and "impact_sets" in d
        r = await call(s, "analyze_change", rev="HEAD")
        assert r["change"]["mode"] == "rev"  # the initial commit adds everything

        t = await call(s, "tests_for_change", diff=PRICE_DIFF)
        assert t["tests"] == d["validate"] and t["count"] == len(t["tests"])
        assert {e["test_id"] for e in t["evidence"]} == set(t["tests"])
        clean = await call(s, "tests_for_change")  # working tree == HEAD again
        assert clean["tests"] == [] and "nothing" in clean["note"]

        f = await call(s, "find_symbol", name="total")
        assert "shop.orders.Order.total" in [m["id"] for m in f["matches"]]

        c = await call(s, "context", symbol="Order.total")
        assert c["symbol"]["id"] == "shop.orders.Order.total"
        assert "shop.pricing.price" in [x["id"] for x in c["callees"]]

        i = await call(s, "impact", symbol="shop.pricing.price")
        assert i["mode"] == "callgraph" and i["target"]["id"] == "shop.pricing.price"
        assert "shop.orders.Order.total" in [h["id"] for h in i["result"]["by_depth"]["1"]]
        assert "shop.report.summary" in [h["id"] for h in i["result"]["by_depth"]["2"]]
        down = await call(s, "impact", symbol="Order.total", direction="downstream", depth=1)
        assert "shop.pricing.price" in [h["id"] for h in down["result"]["by_depth"]["1"]]
        assert "2" not in down["result"]["by_depth"]

        p = await call(s, "impact", symbol="shop.pricing.price", mode="pdg", line=3)
        assert p["mode"] == "pdg"
        affected = {st["line"] for st in p["result"]["affected_statements"]}
        assert 4 in affected  # `return round(gross, 2)` reads `gross`

        sl = await call(s, "slice", file="src/shop/pricing.py", line=4, direction="backward")
        assert sl["file"] == "src/shop/pricing.py"
        assert 3 in {st["line"] for st in sl["result"]["affected_statements"]}

        ri = await call(s, "reindex")
        assert ri["files"] >= 10 and ri["full"] is False
        full = await call(s, "reindex", full=True)
        assert full["full"] is True and full["parsed"] == full["files"]

    run_session(shop, body)


def test_bad_calls_are_tool_errors_and_server_keeps_serving(shop: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    before: dict[str, tuple[int, int]] = {}

    async def body(s: ClientSession) -> None:
        nonlocal before
        await call(s, "reindex")  # builds .impactlens/
        before = await anyio.to_thread.run_sync(snapshot, shop)

        msg = await call_error(s, "context", symbol="shop.pricing.prise")
        assert "unknown symbol" in msg and "shop.pricing.price" in msg
        msg = await call_error(s, "impact", symbol="nope.nothing")
        assert "unknown symbol" in msg
        msg = await call_error(s, "analyze_change", diff="this is not a diff\n")
        assert "diff" in msg
        msg = await call_error(s, "analyze_change", diff=PRICE_DIFF, rev="HEAD")
        assert "at most one" in msg
        msg = await call_error(s, "analyze_change", rev="no-such-rev")
        assert "no-such-rev" in msg
        msg = await call_error(s, "slice", file=str(outside), line=1)
        assert "outside the repository" in msg
        msg = await call_error(s, "slice", file="../outside.py", line=1)
        assert "outside the repository" in msg
        msg = await call_error(s, "slice", file="src/shop/missing.py", line=1)
        assert "no such file" in msg
        await call_error(s, "impact", symbol="shop.pricing.price", depth="deep")  # type
        await call_error(s, "impact", symbol="shop.pricing.price", mode="quantum")
        await call_error(s, "find_symbol", name=42)
        await call_error(s, "find_symbol")  # missing argument
        msg = await call_error(s, "impact", symbol="shop.pricing.price", mode="pdg")
        assert "line" in msg
        await call_error(s, "no_such_tool")

        # still serving, and the index follows the disk without an explicit reindex
        assert (await call(s, "find_symbol", name="price"))["matches"]
        assert not await ids_of(s, "discount")
        await anyio.to_thread.run_sync(lambda: (shop / "src/shop/discount.py").write_text(
            "def discount(p):\n    return p * 0.9\n"))
        assert await ids_of(s, "discount") == {"shop.discount", "shop.discount.discount"}
        (shop / "src/shop/discount.py").unlink()
        assert not await ids_of(s, "discount")
        after = await anyio.to_thread.run_sync(snapshot, shop)
        assert after == before  # nothing written outside .impactlens/

    run_session(shop, body, cwd=tmp_path)


def test_cli_refuses_a_missing_directory(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from impactlens.cli import main

    res = CliRunner().invoke(main, ["mcp", str(tmp_path / "nope")])
    assert res.exit_code == 2
    assert "not found" in res.output


def test_analyze_change_names_what_the_edit_stopped_mentioning(shop: Path) -> None:
    import json

    # `summary` stops building orders: `Order` is retired; orders.py defines it
    (shop / "src/shop/report.py").write_text("def summary(amounts):\n    return sum(amounts)\n")

    async def body(s: ClientSession) -> None:
        tool = {t.name: t for t in (await s.list_tools()).tools}["analyze_change"]
        assert '"retired"' in json.dumps(tool.output_schema)
        a = await call(s, "analyze_change")
        named = {e["entity"]: e["retired"] for e in a["triage"]["may_impact"] if "retired" in e}
        assert named["shop.orders.Order"] == ["Order"]
        assert all(e["file"] == "src/shop/orders.py" for e in a["triage"]["may_impact"]
                   if "retired" in e)

    run_session(shop, body)


def test_analyze_change_diff_already_in_the_working_tree(shop: Path, git) -> None:
    """The tool handlers in process (this worktree's code): a `git diff` of the edits
    on disk is analysed as that working-tree edit, and the answer says so."""
    from impactlens.serve.mcp_server import build_server

    (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)
    diff = git(shop, "diff")
    server = build_server(shop)

    async def body() -> None:
        here = await server.call_tool("analyze_change", {})
        piped = await server.call_tool("analyze_change", {"diff": diff})
        tests = await server.call_tool("tests_for_change", {"diff": diff})
        note = "the diff is already in the working tree; analysing that edit"
        for res in (piped, tests):
            assert not res.is_error, res.content
            assert res.content[0].text.startswith(note + "\n")
        assert piped.structured_content["change"]["note"] == note
        for key in ("seed", "triage", "validate"):
            assert piped.structured_content[key] == here.structured_content[key]
        assert tests.structured_content["tests"] == here.structured_content["validate"]
        assert "note" not in here.structured_content["change"]

    try:
        anyio.run(body)
    finally:
        server._impactlens_backend.close()


def test_a_save_is_seen_without_scanning_the_disk(shop: Path) -> None:
    """The tool handlers in process: after the first query the file watcher, not a
    staleness scan, tells the server what changed; a query right after a save sees it."""
    from impactlens.serve.mcp_server import build_server

    server = build_server(shop)
    project = server._impactlens_backend.project

    async def found(name: str) -> set[str]:
        res = await server.call_tool("find_symbol", {"name": name})
        assert not res.is_error, res.content
        return {m["id"] for m in res.structured_content["matches"] if name in m["id"]}

    async def body() -> None:
        assert not await found("discount")
        assert project.staleness_scans == 1  # the first query checks the disk once
        (shop / "src/shop/discount.py").write_text("def discount(p):\n    return p * 0.9\n")
        assert await found("discount") == {"shop.discount", "shop.discount.discount"}
        (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)
        res = await server.call_tool("analyze_change", {})
        must = {e["entity"] for e in res.structured_content["triage"]["must_inspect"]}
        assert "shop.orders.Order.total" in must  # price's new parameter, seen at once
        (shop / "src/shop/discount.py").unlink()
        assert not await found("discount")
        assert project.staleness_scans == 1

    try:
        anyio.run(body)
    finally:
        server._impactlens_backend.close()
