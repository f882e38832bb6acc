"""`impactlens slice FILE:LINE` end to end on a real repository (indexed and not)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from impactlens.cli import main

FILES = {
    "app/__init__.py": "",
    "app/calc.py": (
        "def helper(v):\n"
        "    w = v + 1\n"
        "    return w\n"
        "\n"
        "\n"
        "def total(xs, k):\n"
        "    s = 0\n"
        "    for x in xs:\n"
        "        s += x * k\n"
        "    t = helper(s)\n"
        "    return t\n"
    ),
}


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


def test_slice_without_index(make_repo: Callable[..., Path]) -> None:
    root = make_repo(FILES)
    code, out = run("slice", "app/calc.py:9", "--repo", str(root), "--no-index", "--json")
    assert code == 0, out
    r = json.loads(out)
    assert [s["line"] for s in r["affected_statements"]] == [10, 11]
    assert r["affected_statements"][0]["text"] == "t = helper(s)"
    assert r["criterion"]["scope"] == "total"


def test_slice_with_index_reaches_callees(make_repo: Callable[..., Path]) -> None:
    root = make_repo(FILES)
    assert run("index", str(root))[0] == 0
    code, out = run("slice", "app/calc.py:9", "--repo", str(root), "--json")
    assert code == 0, out
    r = json.loads(out)
    assert [c["id"] for c in r["statement_precise_callees"]] == ["app.calc.helper"]
    assert {(s["symbol"], s["line"]) for s in r["interprocedural_statements"]} >= {
        ("app.calc.helper", 2), ("app.calc.helper", 3)}
    code, text = run("slice", "app/calc.py:11", "--repo", str(root), "--direction", "upstream")
    assert code == 0 and "affected statements" in text and "app/calc.py:7" in text


def test_slice_degraded_and_bad_input(make_repo: Callable[..., Path]) -> None:
    root = make_repo(FILES)
    code, out = run("slice", "app/calc.py:4", "--repo", str(root), "--no-index")
    assert code == 0 and "no-statement-at-line" in out
    code, out = run("slice", "app/calc.py", "--repo", str(root))
    assert code == 2 and "expected FILE:LINE" in out
    code, out = run("slice", "app/missing.py:3", "--repo", str(root), "--no-index")
    assert code == 2 and "file-not-found" in out
