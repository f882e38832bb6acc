"""The TypeScript/JavaScript statement-level graph: CFG shapes, def/use, slices, and the
`slice` / `impact --mode pdg` commands on real indexed repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from impactlens.cli import main
from impactlens.pdg.graph import DOWNSTREAM, UPSTREAM
from impactlens.pdg.slicing import local_slice
from impactlens.pdg.source import SourceCache
from impactlens.pdg.typescript.source import TsParsedFile


def lines(tmp_path: Path, src: str, line: int, direction: str = DOWNSTREAM,
          name: str = "m.ts") -> list[int]:
    (tmp_path / name).write_text(src)
    got = local_slice(SourceCache(tmp_path), name, line, direction)
    assert got.reason is None, got.message
    return [s.line for s in got.statements]


def cfg_of(src: str, line: int, name: str = "m.ts") -> TsParsedFile:
    return TsParsedFile(name, src, src.splitlines())


def test_switch_falls_through_until_break(tmp_path: Path) -> None:
    src = ("function f(k: number): number {\n"   # 1
           "  let a = 0;\n"                       # 2
           "  switch (k) {\n"                     # 3
           "    case 1:\n"                        # 4
           "      a = 1;\n"                       # 5
           "    case 2:\n"                        # 6
           "      a = a + 2;\n"                   # 7
           "      break;\n"                       # 8
           "    default:\n"                       # 9
           "      a = 9;\n"                       # 10
           "  }\n"                                # 11
           "  return a;\n"                        # 12
           "}\n")
    # upstream of `a = a + 2`: it is reached from case 1's body (fall-through) and case 2
    assert lines(tmp_path, src, 7, UPSTREAM) == [1, 2, 3, 4, 5, 6]
    # the default arm is not reached by falling out of case 2 (break)
    assert 10 not in lines(tmp_path, src, 5)
    assert lines(tmp_path, src, 5) == [7, 12]


def test_labelled_continue_and_break_jump_to_the_labelled_loop(tmp_path: Path) -> None:
    src = ("function f(rows: number[][]): number {\n"  # 1
           "  let n = 0;\n"                           # 2
           "  outer: for (const r of rows) {\n"       # 3
           "    for (const v of r) {\n"               # 4
           "      if (v < 0) continue outer;\n"       # 5
           "      if (v > 9) break outer;\n"          # 6
           "      n += v;\n"                          # 7
           "    }\n"                                  # 8
           "    n += 100;\n"                          # 9
           "  }\n"                                    # 10
           "  return n;\n"                            # 11
           "}\n")
    # `continue outer` skips `n += 100` of that row: 9 depends on the test at 5
    assert 9 in lines(tmp_path, src, 5)
    # `break outer` leaves both loops: the outer header's next test depends on 6
    assert 3 in lines(tmp_path, src, 6)


def test_try_catch_finally_and_throw(tmp_path: Path) -> None:
    src = ("function f(s: string): number {\n"  # 1
           "  let v = 0;\n"                     # 2
           "  try {\n"                          # 3
           "    if (!s) throw new Error('x');\n"  # 4
           "    v = s.length;\n"                # 5
           "  } catch (e) {\n"                  # 6
           "    v = -1;\n"                      # 7
           "  } finally {\n"                    # 8
           "    v = v * 2;\n"                   # 9
           "  }\n"                              # 10
           "  return v;\n"                      # 11
           "}\n")
    # the catch clause decides nothing (a JavaScript catch catches everything)
    assert lines(tmp_path, src, 11, UPSTREAM) == [1, 3, 4, 5, 7, 9]
    # the throw's test decides between 5 and the catch (through the throw)
    assert lines(tmp_path, src, 4) == [5, 6, 7, 9, 11]


def test_short_circuit_guards_split_into_predicate_and_guarded_part(tmp_path: Path) -> None:
    src = ("function f(o: { run(): number } | null, ok: boolean): number {\n"  # 1
           "  let x = 0;\n"                                                    # 2
           "  ok && (x = 1);\n"                                                # 3
           "  o?.run();\n"                                                     # 4
           "  return x;\n"                                                     # 5
           "}\n")
    pf = cfg_of(src, 3)
    _, scope = pf.innermost_scope(3)
    pdg = pf.build_pdg(scope)
    at3 = pdg.cfg.nodes_at_line(3)
    guard = next(n for n in at3 if n.is_predicate)
    assigned = next(n for n in at3 if not n.is_predicate)
    assert guard.id in pdg.cd[assigned.id]
    assert all(d.strong for d in assigned.du.defs)  # its own node: the guard decides
    at4 = pdg.cfg.nodes_at_line(4)
    assert len(at4) == 2 and any(n.is_predicate for n in at4)
    # x at 5 comes from 2 or from the guarded assignment at 3
    assert lines(tmp_path, src, 5, UPSTREAM) == [1, 2, 3]


def test_loops_do_while_for_in_and_classic_for(tmp_path: Path) -> None:
    src = ("function f(o: Record<string, number>, n: number): number {\n"  # 1
           "  let t = 0;\n"                                                # 2
           "  for (const k in o) { t += o[k]; }\n"                         # 3
           "  let i = n;\n"                                                # 4
           "  do { t++; i--; } while (i > 0);\n"                           # 5
           "  for (let j = 0; j < n; j++) t += j;\n"                       # 6
           "  return t;\n"                                                 # 7
           "}\n")
    assert lines(tmp_path, src, 4) == [5, 6, 7]
    assert lines(tmp_path, src, 7, UPSTREAM) == [1, 2, 3, 4, 5, 6]


def test_member_paths_and_computed_keys(tmp_path: Path) -> None:
    src = ("class C {\n"                          # 1
           "  a = { b: 1, c: 2 };\n"              # 2
           "  m(k: string): number {\n"           # 3
           "    this.a.b = 5;\n"                  # 4
           "    const y = this.a.c;\n"            # 5
           "    const z = this.a['b'];\n"         # 6
           "    const w = this.a[k];\n"           # 7
           "    const v = this.a;\n"              # 8
           "    return y + z + w + v.b;\n"        # 9
           "  }\n"
           "}\n")
    # `this.a['b']` is `this.a.b`; `this.a[k]` may be; `this.a.c` is another property
    assert lines(tmp_path, src, 4) == [6, 7, 8, 9]


def test_destructuring_reads_only_the_properties_it_names(tmp_path: Path) -> None:
    src = ("function f(o: { a: number; b: number }, xs: number[]): number {\n"  # 1
           "  o.b = 3;\n"                                                       # 2
           "  const { a } = o;\n"                                               # 3
           "  const { b: renamed = 0 } = o;\n"                                  # 4
           "  const [first, ...others] = xs;\n"                                 # 5
           "  const all = [...others, first, a, renamed];\n"                    # 6
           "  return all.length;\n"                                             # 7
           "}\n")
    assert lines(tmp_path, src, 2) == [4, 6, 7]
    assert lines(tmp_path, src, 5) == [6, 7]


def test_closure_call_reads_and_writes_captured_variables(tmp_path: Path) -> None:
    src = ("function f(xs: number[]): number {\n"   # 1
           "  let seen = 0;\n"                       # 2
           "  let base = 1;\n"                       # 3
           "  const bump = () => { seen += base; };\n"  # 4
           "  base = xs.length;\n"                   # 5
           "  bump();\n"                             # 6
           "  return seen;\n"                        # 7
           "}\n")
    assert lines(tmp_path, src, 5) == [6, 7]


def test_an_inline_callback_may_write_the_variables_it_captures(tmp_path: Path) -> None:
    src = ("function f(xs: number[]): number {\n"  # 1
           "  let s = 0;\n"                        # 2
           "  xs.forEach((x) => {\n"               # 3
           "    s += x;\n"                         # 4
           "  });\n"                               # 5
           "  return s;\n"                         # 6
           "}\n")
    assert lines(tmp_path, src, 6, UPSTREAM) == [1, 2, 3]


def test_async_await_generators_and_arrow_expression_bodies(tmp_path: Path) -> None:
    src = ("async function f(g: () => Promise<number>): Promise<number> {\n"  # 1
           "  const v = await g();\n"                                         # 2
           "  return v + 1;\n"                                                # 3
           "}\n"                                                              # 4
           "function* h(n: number) {\n"                                       # 5
           "  const d = n * 2;\n"                                             # 6
           "  yield d;\n"                                                     # 7
           "}\n"                                                              # 8
           "const k = (x: number) => x * 3;\n")                               # 9
    assert lines(tmp_path, src, 2) == [3]
    pf = cfg_of(src, 7)
    pdg = pf.build_pdg(pf.innermost_scope(7)[1])
    assert any(n.du.has_yield for n in pdg.cfg.nodes_at_line(7))
    pdg2 = pf.build_pdg(pf.innermost_scope(2)[1])
    assert any(n.du.has_await for n in pdg2.cfg.nodes_at_line(2))
    arrow = pf.build_pdg(pf.innermost_scope(9)[1]).cfg
    assert [n.kind for n in arrow.statement_nodes()] == ["params", "return"]


def test_javascript_files_are_sliced_with_the_javascript_grammar(tmp_path: Path) -> None:
    src = ("function f(a, b) {\n"
           "  let s = a;\n"
           "  if (b) { s = s * 2; }\n"
           "  return s;\n"
           "}\n")
    assert lines(tmp_path, src, 2, name="m.js") == [3, 4]


def test_generated_code_nested_thousands_deep_is_sliced(tmp_path: Path) -> None:
    src = ("function f(a: number) {\n  const s = " + " + ".join(["a"] * 3000)
           + ";\n  return s;\n}\n")
    assert lines(tmp_path, src, 2) == [3]


def test_degraded_reasons_are_explicit(tmp_path: Path) -> None:
    (tmp_path / "m.ts").write_text("abstract class A {\n  abstract f(): number;\n}\n"
                                   "function g() {\n\n  return 1;\n}\n")
    cache = SourceCache(tmp_path)
    assert local_slice(cache, "m.ts", 99).reason == "line-out-of-range"
    assert local_slice(cache, "m.ts", 5).reason == "no-statement-at-line"
    assert local_slice(cache, "nope.ts", 1).reason == "file-not-found"


def test_a_language_outside_the_statement_graph_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import impactlens.pdg.source as source

    monkeypatch.setattr(source, "STATEMENT_LANGUAGES", frozenset({"python"}))
    (tmp_path / "m.ts").write_text("function f() {\n  return 1;\n}\n")
    got = local_slice(SourceCache(tmp_path), "m.ts", 2)
    assert got.reason == "unsupported-language"
    assert "typescript files get the call-graph impact" in got.message


# ------------------------------------------------------------- indexed, end to end
TS_FILES = {
    "package.json": '{"name": "app", "version": "1.0.0"}\n',
    "src/calc.ts": (
        "export function scale(v: number): number {\n"      # 1
        "  const w = v * 2;\n"                               # 2
        "  return w;\n"                                      # 3
        "}\n"                                                # 4
        "\n"                                                 # 5
        "export function total(xs: number[], k: number): number {\n"  # 6
        "  let s = 0;\n"                                     # 7
        "  for (const x of xs) {\n"                          # 8
        "    s += x * k;\n"                                  # 9
        "  }\n"                                              # 10
        "  const t = scale(s);\n"                            # 11
        "  return t + 1;\n"                                  # 12
        "}\n"                                                # 13
        "\n"                                                 # 14
        "export abstract class Shape {\n"                    # 15
        "  abstract area(): number;\n"                       # 16
        "}\n"                                                # 17
    ),
}


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


def test_slice_descends_into_resolved_callees(make_repo: Callable[..., Path]) -> None:
    root = make_repo(TS_FILES)
    assert run("index", str(root))[0] == 0
    code, out = run("slice", "src/calc.ts:9", "--repo", str(root), "--json")
    assert code == 0, out
    r = json.loads(out)
    assert [s["line"] for s in r["affected_statements"]] == [11, 12]
    assert r["criterion"]["scope"] == "src/calc.total"
    assert [c["id"] for c in r["statement_precise_callees"]] == ["src/calc.scale"]
    inter = {(s["line"], s["via"]) for s in r["interprocedural_statements"]}
    assert inter == {(2, "descent"), (3, "descent")}
    assert "Not modelled" in r["note"]


def test_impact_mode_pdg_ascends_return_values_into_callers(
        make_repo: Callable[..., Path]) -> None:
    root = make_repo(TS_FILES)
    assert run("index", str(root))[0] == 0
    code, out = run("impact", "src/calc.scale", "--mode", "pdg", "--line", "2", "--repo",
                    str(root), "--json")
    assert code == 0, out
    r = json.loads(out)
    assert [s["line"] for s in r["affected_statements"]] == [3]
    assert [a["id"] for a in r["return_ascent"]] == ["src/calc.total"]
    ascended = {s["line"] for s in r["interprocedural_statements"] if s["via"] == "ascent"}
    assert ascended == {11, 12}


def test_impact_mode_pdg_says_no_body_for_an_abstract_method(
        make_repo: Callable[..., Path]) -> None:
    root = make_repo(TS_FILES)
    assert run("index", str(root))[0] == 0
    code, out = run("impact", "src/calc.Shape.area", "--mode", "pdg", "--line", "16",
                    "--repo", str(root), "--json")
    r = json.loads(out)
    assert r["reason"] == "no-body" and code == 0, out
    _, out = run("impact", "src/calc.Shape", "--mode", "pdg", "--line", "15",
                    "--repo", str(root), "--json")
    assert json.loads(out)["reason"] == "no-body", out


def test_slice_without_index_is_intra_procedural(make_repo: Callable[..., Path]) -> None:
    root = make_repo(TS_FILES)
    code, out = run("slice", "src/calc.ts:7", "--repo", str(root), "--no-index")
    assert code == 0, out
    assert "src/calc.ts:9" in out and "src/calc.ts:12" in out
    assert "inter-procedural parts skipped" in out
    code, out = run("slice", "src/calc.ts:400", "--repo", str(root), "--no-index")
    assert code == 2 and "line-out-of-range" in out and "Traceback" not in out
