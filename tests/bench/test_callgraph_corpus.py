"""The call-graph corpus is well formed and the harness scores it (PyCG part, when installed)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from impactlens.bench import callgraph as cg
from impactlens.bench.metrics import Score

CASES_DIR = Path(__file__).resolve().parents[2] / "bench" / "callgraph" / "cases"
pytestmark = pytest.mark.skipif(not CASES_DIR.is_dir(), reason="corpus not in this checkout")


def test_corpus_size_and_categories() -> None:
    cases = cg.load_cases(CASES_DIR)
    assert len(cases) >= 60
    counts = Counter(c.category for c in cases)
    assert set(counts) == set(cg.CATEGORIES)
    assert all(n >= 4 for n in counts.values()), counts


@pytest.mark.parametrize("case", cg.load_cases(CASES_DIR) if CASES_DIR.is_dir() else [],
                         ids=lambda c: c.name)
def test_case_is_consistent(case: cg.Case) -> None:
    assert cg.validate_case(case) == []


def test_edges_of_and_errors() -> None:
    assert cg.edges_of({"a": ["b", "c"], "b": []}) == {("a", "b"), ("a", "c")}
    with pytest.raises(ValueError):
        cg.edges_of(["a"])
    with pytest.raises(ValueError):
        cg.edges_of({"a": "b"})
    with pytest.raises(ValueError):
        cg.edges_of({"a": [1]})


def test_views() -> None:
    mods = frozenset({"main", "pkg.mod"})
    edges = {("main", "pkg.mod.f"), ("main", "<builtin>.len"), ("main.g", "<**PyStr**>.join"),
             ("main", "asyncio.run"), ("mainframe", "main.g")}
    assert cg.view_edges(edges, "all", mods) == edges
    assert cg.view_edges(edges, "nobuiltin", mods) == {
        ("main", "pkg.mod.f"), ("main", "asyncio.run"), ("mainframe", "main.g")}
    assert cg.view_edges(edges, "internal", mods) == {("main", "pkg.mod.f")}
    with pytest.raises(ValueError):
        cg.view_edges(edges, "bogus", mods)


def _case(tmp_path: Path, category: str = "classes", unresolved: tuple = ()) -> cg.Case:
    return cg.Case(name=f"{category}/x", path=tmp_path, category=category, description="",
                   entry=("main.py",), expected=frozenset({("main", "main.f"),
                                                           ("main", "<builtin>.len")}),
                   modules=frozenset({"main"}), expect_unresolved=unresolved)


def test_score_case_and_flags(tmp_path: Path) -> None:
    case = _case(tmp_path)
    out = cg.ToolOutput(edges=frozenset({("main", "main.f"), ("main", "main.g")}),
                        unresolved=[{"file": "main.py", "line": 3}])
    res = cg.score_case(case, out)
    assert res["all"] == Score(tp=1, fp=1, fn=1)
    assert res["nobuiltin"] == Score(tp=1, fp=1, fn=0)
    assert res["missing"] == ["main -> <builtin>.len"]
    assert res["extra"] == ["main -> main.g"]
    assert res["flags_elsewhere"] == 1

    dyn = _case(tmp_path, "dynamic", ({"caller": "main", "file": "main.py", "line": 5,
                                        "alt_lines": [6]},
                                       {"caller": "main", "file": "main.py", "line": 9}))
    res = cg.score_case(dyn, cg.ToolOutput(unresolved=[{"file": "main.py", "line": 6}]))
    assert res["flags"] == [True, False]
    assert res["all"].precision is None  # nothing predicted: n/a, not 0


def test_aggregate_excludes_na(tmp_path: Path) -> None:
    a, b = _case(tmp_path), _case(tmp_path)
    b = cg.Case(**{**a.__dict__, "name": "classes/y"})
    per_case = {
        a.name: cg.score_case(a, cg.ToolOutput(edges=a.expected)),
        b.name: cg.score_case(b, cg.ToolOutput(error="boom")),
    }
    agg = cg.aggregate([a, b], per_case)
    allv = agg["categories"]["classes"]["all"]
    assert allv["precision"] == 1.0  # the failed case predicted nothing: no precision penalty
    assert allv["recall"] == 0.5
    assert allv["macro"]["precision"] == 1.0
    assert agg["errors"] == ["classes/y"]
    assert agg["dynamic"] == {}


def test_trace_confirms_a_case() -> None:
    case = next(c for c in cg.load_cases(CASES_DIR, ["decorators/stacked"]))
    seen, err = cg.trace_case(case)
    assert err == ""
    assert seen <= case.expected
    assert ("main.italic.wrap_i", "main.text") in seen


@pytest.mark.skipif(cg.pycg_package_dir() is None, reason="PyCG not installed")
def test_pycg_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cg.main(["--json", "--tools", "pycg", "--only", "closures/compose",
                  "--cases", str(CASES_DIR)])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tools"]["pycg"]["status"] == "ok"
    overall = report["summary"]["pycg"]["overall"]["all"]
    assert overall["cases"] == 1
    assert overall["recall"] == 1.0  # PyCG resolves closures returned and called


def test_cli_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert cg.main(["--only", "no-such-category", "--cases", str(CASES_DIR)]) == 2
    assert "no such category" in capsys.readouterr().err
    assert cg.main(["--tools", "nope", "--cases", str(CASES_DIR)]) == 2
