"""MCP `impact` and `slice` take the dependents/dependencies words (the old ones still
work) and `impact` pages a hub symbol with a cursor."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession

from tests.index.test_impact_paging import TOTAL, hub_files

from .test_mcp_server import call, run_session


def test_impact_words_and_cursor_paging(make_repo: Any) -> None:
    root = make_repo(hub_files())

    async def body(s: ClientSession) -> None:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        for name in ("impact", "slice"):
            text = str(tools[name].description) + str(tools[name].input_schema)
            assert "dependents" in text and "dependencies" in text
        seen: list[str] = []
        cursor = None
        while True:
            page = await call(s, "impact", symbol="app.hub.hub", depth=1, limit=100,
                              **({"cursor": cursor} if cursor else {}))
            res = page["result"]
            assert res["total"] == TOTAL and res["direction"] == "dependents"
            seen += [h["id"] for hops in res["by_depth"].values() for h in hops]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert len(seen) == TOTAL == len(set(seen))
        old = await call(s, "impact", symbol="app.user00.f0_0", direction="downstream",
                         depth=1)
        assert "app.hub.hub" in [h["id"] for h in old["result"]["by_depth"]["1"]]
        sl = await call(s, "slice", file="app/hub.py", line=2, direction="backward")
        assert sl["direction"] == "dependencies"

    run_session(root, body)
