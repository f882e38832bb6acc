"""The TypeScript/JavaScript call-graph corpus is well formed, its truth names declared
symbols, and the harness maps the tools' ids onto the corpus's (no tool needed)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from impactlens.bench import callgraph as cg
from impactlens.bench import callgraph_ts as ts

CASES_DIR = Path(__file__).resolve().parents[2] / "bench" / "callgraph-ts" / "cases"
pytestmark = pytest.mark.skipif(not CASES_DIR.is_dir(), reason="corpus not in this checkout")
CASES = cg.load_cases(CASES_DIR, corpus="ts") if CASES_DIR.is_dir() else []


def test_corpus_size_and_categories() -> None:
    assert len(CASES) >= 45
    counts = Counter(c.category for c in CASES)
    assert set(counts) == set(ts.CATEGORIES)
    assert all(n >= 3 for n in counts.values()), counts
    assert all(c.corpus == "ts" for c in CASES)
    assert [c.name for c in CASES] == [
        c.name for c in sorted(CASES, key=lambda c: (ts.CATEGORIES.index(c.category), c.name))]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_is_consistent_and_names_declared_symbols(case: cg.Case) -> None:
    assert cg.validate_case(case) == []
    assert ts.unknown_symbols(case) == []
    assert not set(case.files) & cg.TRUTH_FILES  # the tools never see the truth


def test_python_corpus_stays_the_default() -> None:
    py = cg.load_cases(cg.default_cases_dir(), only=["imports"])
    assert py and all(c.corpus == "py" and all(f.endswith(".py") for f in c.files) for c in py)
    args = cg._parser().parse_args([])
    assert args.corpus == "py"


def test_module_names() -> None:
    assert ts.module_name("main.ts") == "main"
    assert ts.module_name("lib/index.ts") == "lib"
    assert ts.module_name("packages/core/src/index.tsx") == "packages.core.src"
    assert ts.module_name("build.cjs") == "build"
    assert ts.modules_of(["a.ts", "jsx.d.ts", "tsconfig.json", "b/index.js"]) == {"a", "b"}


def _case(tmp_path: Path, files: dict[str, str], expected: dict[str, list[str]]) -> cg.Case:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "expected.json").write_text(json.dumps(expected))
    (tmp_path / "case.json").write_text(json.dumps({"category": "classes",
                                                    "entry": [next(iter(files))]}))
    return cg.load_case(tmp_path, tmp_path.parent, corpus="ts")


def test_symbols_cover_the_naming_rules(tmp_path: Path) -> None:
    case = _case(tmp_path, {
        "main.ts": (
            "namespace A.B { export function f() {} }\n"
            "class C { h = () => 1; constructor() {} get p() { return 1; } static s() {} }\n"
            "const arrow = () => 1;\n"
            "const api = { run() {}, go: () => 2 };\n"
            "function outer() { function inner() {} }\n"
            "enum E { X }\n"),
        "lib/index.js": ("exports.x = function () {};\n"
                         "function build() {}\n"
                         "build.normalize = function () {};\n"
                         "module.exports = class K { m() {} };\n"),
    }, {})
    assert {"main.A.B.f", "main.C.h", "main.C.constructor", "main.C.p", "main.C.s",
            "main.arrow", "main.api.run", "main.api.go", "main.outer.inner", "main.E",
            "lib.x", "lib.build.normalize", "lib.K.m", "main", "lib"} <= ts.symbols_of(case)


def test_an_edge_to_an_undeclared_symbol_is_reported(tmp_path: Path) -> None:
    case = _case(tmp_path, {"main.ts": "function f() {}\nf();\n"},
                 {"main": ["main.f", "main.g"], "main.h": []})
    assert ts.unknown_symbols(case) == ["main.g"]


def test_gitnexus_ids_map_onto_corpus_ids(tmp_path: Path) -> None:
    case = _case(tmp_path, {"main.ts": "function outer() { function inner() {} }\n",
                            "lib/index.ts": "export class C { m() {} }\n"}, {})
    rows = [("File:main.ts", "Method:lib/index.ts:C.m#0"),
            ("Function:main.ts:outer", "Function:main.ts:inner"),
            ("Function:main.ts:outer", "Function:main.ts:nowhere"),
            ("Function:main.ts:outer.inner@1:19", "Method:lib/index.ts:C.m#0")]
    assert ts.map_gitnexus_ids(rows, case) == {
        ("main", "lib.C.m"), ("main.outer", "main.outer.inner"), ("main.outer", "main.nowhere"),
        ("main.outer.inner", "lib.C.m")}


def test_impactlens_module_spellings_map_onto_corpus_ids(tmp_path: Path) -> None:
    case = _case(tmp_path, {"src/main.ts": "", "src/lib/index.ts": "", "other.ts": ""}, {})
    edges = [("main", "lib.index.f"), ("src.main", "src.lib.g"), ("other.C.m", "zzz.q")]
    assert ts.map_impactlens_ids(edges, case) == {
        ("src.main", "src.lib.f"), ("src.main", "src.lib.g"), ("other.C.m", "zzz.q")}


def test_cypher_rows() -> None:
    out = ('\n  GitNexus Cypher (1.6.12)\n{\n  "markdown": "| src | dst |\\n| --- | --- |\\n'
           '| File:main.ts | Function:main.ts:f |\\n| Method:a.ts:C.m#1 | Class:a.ts:D |",\n'
           '  "row_count": 2\n}\n')
    assert ts._cypher_rows(out) == [("File:main.ts", "Function:main.ts:f"),
                                    ("Method:a.ts:C.m#1", "Class:a.ts:D")]
    assert ts._cypher_rows('{\n  "row_count": 0\n}') == []
    with pytest.raises(ValueError):
        ts._cypher_rows("no json")


def test_gitnexus_absent_is_a_skip_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ts, "gitnexus_binary", lambda: None)
    report = cg.run(CASES_DIR, ("gitnexus",), corpus="ts", only=["es-imports/named"],
                    quiet=True)
    status = report["tools"]["gitnexus"]["status"]
    assert status.startswith("skipped: GitNexus is not installed")
    assert "\n" not in status


def test_impactlens_runs_on_a_ts_case() -> None:
    """Scored where the index reads TypeScript; a one-line skip where it does not."""
    report = cg.run(CASES_DIR, ("impactlens",), corpus="ts", only=["es-imports/named"],
                    quiet=True)
    status = report["tools"]["impactlens"]["status"]
    res = report["cases"]["es-imports/named"]["impactlens"]
    if status.startswith("skipped"):
        assert status == "skipped: this impactlens indexes no TypeScript/JavaScript file"
    else:
        assert status == "ok" and res["internal"]["tp"] > 0


def test_unknown_tool_and_missing_tsc_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(cg.BadInputError, match="pycg"):
        cg.run(CASES_DIR, ("pycg",), corpus="ts", quiet=True)
    assert cg.main(["--corpus", "ts", "--verify", "--tsc", str(tmp_path / "nope")]) == 2
