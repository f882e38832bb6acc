"""Every surface of one answer on a hub repository fits its budget and agrees on counts.

The repository (tests/answer/hub.py): 320 tests each build ``App``, whose constructor
calls the helper ``get_debug_flag``; the edit changes the helper's body. Unbudgeted,
the answer lists 338 entries and its JSON runs past 100,000 tokens.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession
from serve.test_mcp_server import run_session

from impactlens.impact.token_count import count_tokens
from impactlens.settings import DEFAULT

from .hub import HELPER_EDITED, all_test_ids, hub_files

DIRECT_CALLERS = ("app.core.App.__init__", "app.cli.banner")


def tokens(text: str) -> int:
    return count_tokens(text, DEFAULT.tokenizer_encoding)


def compact(obj: object) -> str:
    """JSON as it goes over the wire."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def cli(root: Path, *args: str) -> str:
    """``impactlens ARGS`` run in ``root`` (piped, as in CI)."""
    proc = subprocess.run([sys.executable, "-m", "impactlens", *args], capture_output=True,
                          text=True, check=False, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, init_repo: Callable[..., Path]) -> Path:
    root = init_repo(tmp_path_factory.mktemp("hub") / "hub", hub_files())
    (root / "app/config.py").write_text(HELPER_EDITED)
    cli(root, "index")
    return root


def test_the_terminal_report_fits_sixty_lines_of_160_columns(hub: Path) -> None:
    out = cli(hub, "analyze").splitlines()
    assert len(out) <= DEFAULT.terminal_lines
    assert max(len(line) for line in out) <= DEFAULT.piped_width
    text = "\n".join(out)
    assert all(c in text for c in DIRECT_CALLERS)
    assert "Tests to run (320)" in text and "tests/test_plugin0.py — 20 tests" in text
    assert "::" not in text  # no test id is a triage entry
    assert "risk: medium — body edit; 0 must change, 18 may be affected; 320 tests" in text
    whole = cli(hub, "analyze", "--all").splitlines()
    assert len(whole) > len(out) and "app.plugin15.make_15" in "\n".join(whole)


def test_markdown_fits_ten_thousand_characters(hub: Path) -> None:
    md = cli(hub, "analyze", "--format", "markdown")
    assert len(md) <= DEFAULT.markdown_chars
    assert all(c in md for c in DIRECT_CALLERS)
    assert "#### Tests to run (320)" in md


def test_impact_json_fits_its_budget_and_detail_is_whole(hub: Path) -> None:
    piped = cli(hub, "analyze", "--json")
    data = json.loads(piped)
    assert "\n" not in piped.strip()  # compact when piped
    written = (hub / ".impactlens/out/impact.json").read_text()
    assert tokens(written) <= DEFAULT.answer_json_tokens
    assert json.loads(written) == data
    assert data["summary"]["tests"] == 320 == data["tests"]["count"]
    assert data["omitted"] and data["complete"] is False
    assert {e["entity"] for e in data["triage"]["may_impact"]} >= set(DIRECT_CALLERS)
    full = json.loads(cli(hub, "analyze", "--json", "--detail"))
    assert full["complete"] is True and full["omitted"] == {}
    assert set(full["obligations"]["validate"]) == all_test_ids()
    assert len(full["test_map"]) > len(data["test_map"])
    for key, n in data["omitted"].items():  # what the budget cut is what --detail has
        listed = {"test_map": data["test_map"], "dag": data["dag"]["nodes"],
                  "impact_sets": data["impact_sets"]}.get(key)
        if listed is not None:
            whole = {"test_map": full["test_map"], "dag": full["dag"]["nodes"],
                     "impact_sets": full["impact_sets"]}[key]
            assert len(listed) + n == len(whole)


def test_the_tests_command_lists_every_affected_test(hub: Path) -> None:
    ids = cli(hub, "tests").split()
    assert set(ids) == all_test_ids() and len(ids) == 320


def test_two_runs_give_byte_identical_json(hub: Path) -> None:
    assert cli(hub, "analyze", "--json") == cli(hub, "analyze", "--json")


def test_mcp_answers_fit_six_thousand_tokens_and_page_to_the_end(hub: Path) -> None:
    async def body(s: ClientSession) -> None:
        res = await s.call_tool("analyze_change", {})
        text = " ".join(c.text for c in res.content if c.type == "text")
        structure = compact(res.structured_content)
        assert tokens(text) + tokens(structure) <= DEFAULT.mcp_max_tokens
        assert structure not in text  # the structure is sent once
        a = res.structured_content
        assert a["summary"]["tests"] == 320 and a["omitted"]
        assert {e["entity"] for e in a["triage"]["may_impact"]} >= set(DIRECT_CALLERS)
        assert a["risk"] in text

        small = await s.call_tool("analyze_change", {"max_tokens": 2000})
        t2 = " ".join(c.text for c in small.content if c.type == "text")
        assert tokens(t2) + tokens(compact(small.structured_content)) <= 2000

        ids: list[str] = []
        cursor = None
        while True:
            args = {"max_tokens": 1000} | ({"cursor": cursor} if cursor else {})
            page = (await s.call_tool("tests_for_change", args)).structured_content
            assert tokens(compact(page)) <= 1000
            ids += page["tests"]
            assert page["count"] == 320
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert len(ids) == 320 and set(ids) == all_test_ids()

        seen_tests: list[str] = []
        cursor, pages = None, 0
        while True:
            args = {"detail": True, "max_tokens": 4000} | ({"cursor": cursor} if cursor
                                                          else {})
            res = await s.call_tool("analyze_change", args)
            assert not res.is_error, res.content
            d = res.structured_content
            seen_tests += d["validate"]
            cursor, pages = d["next_cursor"], pages + 1
            if cursor is None:
                break
        assert sorted(seen_tests) == sorted(all_test_ids()) and pages > 2
        bad = await s.call_tool("analyze_change", {"detail": True, "cursor": "nonsense"})
        assert bad.is_error and "cursor" in bad.content[0].text

    run_session(hub, body)


def test_counts_agree_across_surfaces(hub: Path) -> None:
    term = cli(hub, "analyze")
    md = cli(hub, "analyze", "--format", "markdown")
    data = json.loads(cli(hub, "analyze", "--json"))
    for key, word in (("may_impact", "MAY-IMPACT"), ("tests", "Tests to run")):
        n = data["summary"][key]
        assert re.search(rf"{word} \({n}\)", term), (key, n)
        assert re.search(rf"{word} \({n}\)", md), (key, n)
