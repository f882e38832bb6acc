"""Intra and inter-procedural slicing results (`pdg_impact`), degraded answers included.

The inter-procedural tests run on a real SQLite :class:`Store` holding the symbol and call
records for a small real repository (the shape `impactlens index` writes), so they do not
depend on the resolver's coverage.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from impactlens.index.store import Store
from impactlens.model import Edge, EdgeKind, Node, NodeKind
from impactlens.pdg.slicing import enclosing_symbol, local_slice, pdg_impact
from impactlens.pdg.source import SourceCache

SHAPES = textwrap.dedent('''\
    class Alpha:
        def process(self, x):
            bumped = x + 1
            return bumped


    class Beta:
        def process(self, x):
            widened = x * 10
            return widened


    def notify():
        sent = 1
        return sent
    ''')

USE = textwrap.dedent('''\
    from app.shapes import Alpha, Beta, notify


    def pick(x, flag):
        a = Alpha()
        b = Beta()
        doubled = x * 2
        if flag:
            y = a.process(doubled)
        else:
            y = b.process(x)
        if doubled > 3:
            notify()
        return y


    def top(v):
        r = pick(v, True)
        s = r + 1
        return s


    def loop(n):
        return loop(n - 1) if n else 0
    ''')

PROTO = textwrap.dedent('''\
    from typing import Protocol


    class Sink(Protocol):
        def write(self, data: str) -> int: ...
    ''')


def _n(id_: str, kind: NodeKind, file: str, start: int, end: int) -> Node:
    return Node(id=id_, kind=kind, qualname=id_, file=file, start_line=start, end_line=end)


def _call(src: str, dst: str, file: str, line: int) -> Edge:
    return Edge(src=src, dst=dst, kind=EdgeKind.CALL, file=file, line=line)


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, Store]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "shapes.py").write_text(SHAPES)
    (tmp_path / "app" / "use.py").write_text(USE)
    (tmp_path / "app" / "proto.py").write_text(PROTO)
    store = Store.open(tmp_path / ".impactlens" / "index.db", create=True)
    s, u = "app/shapes.py", "app/use.py"
    shapes_nodes = [
        _n("app.shapes.Alpha", NodeKind.CLASS, s, 1, 4),
        _n("app.shapes.Alpha.process", NodeKind.METHOD, s, 2, 4),
        _n("app.shapes.Beta", NodeKind.CLASS, s, 7, 10),
        _n("app.shapes.Beta.process", NodeKind.METHOD, s, 8, 10),
        _n("app.shapes.notify", NodeKind.FUNCTION, s, 13, 15),
    ]
    use_nodes = [
        _n("app.use.pick", NodeKind.FUNCTION, u, 4, 14),
        _n("app.use.top", NodeKind.FUNCTION, u, 17, 20),
        _n("app.use.loop", NodeKind.FUNCTION, u, 23, 24),
    ]
    use_edges = [
        Edge("app.use.pick", "app.shapes.Alpha", EdgeKind.INSTANTIATE, u, 5),
        Edge("app.use.pick", "app.shapes.Beta", EdgeKind.INSTANTIATE, u, 6),
        _call("app.use.pick", "app.shapes.Alpha.process", u, 9),
        _call("app.use.pick", "app.shapes.Beta.process", u, 11),
        _call("app.use.pick", "app.shapes.notify", u, 13),
        _call("app.use.top", "app.use.pick", u, 18),
        _call("app.use.loop", "app.use.loop", u, 24),
    ]
    with store.transaction():
        store.put_resolution(s, shapes_nodes, [], [], [])
        store.put_resolution(u, use_nodes, use_edges, [], [])
        store.put_resolution("app/proto.py", [
            _n("app.proto.Sink", NodeKind.CLASS, "app/proto.py", 4, 5),
            _n("app.proto.Sink.write", NodeKind.METHOD, "app/proto.py", 5, 5)], [], [], [])
    return tmp_path, store


def impact(repo: tuple[Path, Store], sym: str, line: int, direction: str = "downstream",
           depth: int = 3) -> dict[str, Any]:
    root, store = repo
    node = store.node(sym)
    assert node is not None
    return pdg_impact(store, SourceCache(root), node, node.file, line, direction, depth)


def lines(result: dict[str, Any]) -> list[int]:
    return [s["line"] for s in result["affected_statements"]]


def test_statement_precise_callees_are_matched_by_resolved_id(repo: Any) -> None:
    r = impact(repo, "app.use.pick", 7)  # doubled = x * 2
    assert r["reason"] is None
    assert lines(r) == [9, 12, 13, 14]
    ids = [c["id"] for c in r["statement_precise_callees"]]
    # Beta.process (same method name, called with the unchanged x) is not reached
    assert ids == ["app.shapes.Alpha.process", "app.shapes.notify"]
    assert r["statement_precise_callees"][0]["sites"] == [9]


def test_descent_seeds_params_or_whole_body(repo: Any) -> None:
    r = impact(repo, "app.use.pick", 7)
    inter = {(s["symbol"], s["line"]) for s in r["interprocedural_statements"]}
    # Alpha.process: data seed (its parameter changes) → 3, 4
    assert {("app.shapes.Alpha.process", 3), ("app.shapes.Alpha.process", 4)} <= inter
    # notify runs or not depending on the slice (control) → its whole body
    assert {("app.shapes.notify", 14), ("app.shapes.notify", 15)} <= inter
    assert not any(sym == "app.shapes.Beta.process" for sym, _ in inter)


def test_return_value_ascent_into_callers(repo: Any) -> None:
    r = impact(repo, "app.use.pick", 7)
    assert [a["id"] for a in r["return_ascent"]] == ["app.use.top"]
    inter = {(s["symbol"], s["line"], s["via"]) for s in r["interprocedural_statements"]}
    assert {("app.use.top", 18, "ascent"), ("app.use.top", 19, "ascent"),
            ("app.use.top", 20, "ascent")} <= inter


def test_depth_cap_truncates_explicitly(repo: Any) -> None:
    r = impact(repo, "app.use.pick", 7, depth=0)
    assert r["truncated"] and r["truncated_by"][0].startswith("depth")
    assert r["interprocedural_statements"] == []


def test_recursion_terminates(repo: Any) -> None:
    r = impact(repo, "app.use.loop", 24)
    assert r["reason"] is None
    assert {s["symbol"] for s in r["interprocedural_statements"]} <= {"app.use.loop"}


def test_upstream_descends_into_callee_returns(repo: Any) -> None:
    r = impact(repo, "app.use.pick", 14, "upstream")
    assert 7 in lines(r) and 9 in lines(r) and 4 in lines(r)
    ids = {c["id"] for c in r["statement_precise_callees"]}
    # a = Alpha() / b = Beta() are in the upstream slice: the constructors count too
    assert ids == {"app.shapes.Alpha", "app.shapes.Alpha.process", "app.shapes.Beta",
                   "app.shapes.Beta.process"}


def test_degraded_answers_carry_a_reason(repo: Any) -> None:
    assert impact(repo, "app.use.pick", 10)["reason"] == "no-statement-at-line"  # else:
    assert impact(repo, "app.use.pick", 16)["reason"] == "line-outside-symbol"
    r = impact(repo, "app.proto.Sink.write", 5)
    assert r["reason"] == "no-body" and r["affected_statements"] == []
    root, store = repo
    cls = store.node("app.shapes.Alpha")
    assert cls is not None
    got = pdg_impact(store, SourceCache(root), cls, cls.file, 2)
    assert got["reason"] == "not-a-function"
    # the file no longer has the function where the index says it starts
    (root / "app" / "shapes.py").write_text("\n\n\n" + SHAPES)
    assert impact(repo, "app.shapes.notify", 14)["reason"] == "function-not-in-file"


def test_local_slice_without_index(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\ny = x + 1\n\ndef f(a):\n    return a\n")
    cache = SourceCache(tmp_path)
    s = local_slice(cache, "m.py", 1)
    assert s.scope == "<module>" and [x.line for x in s.statements] == [2]
    assert local_slice(cache, "m.py", 3).reason == "no-statement-at-line"
    assert local_slice(cache, "nope.py", 1).reason == "file-not-found"
    assert local_slice(cache, "m.py", 99).reason == "line-out-of-range"
    (tmp_path / "bad.py").write_text("def (:\n")
    assert local_slice(cache, "bad.py", 1).reason == "syntax-error"
    r = pdg_impact(None, cache, None, "m.py", 1)
    assert r["reason"] is None and "no index" in r["note"]


def test_enclosing_symbol(repo: Any) -> None:
    _, store = repo
    node = enclosing_symbol(store, "app/use.py", 9)
    assert node is not None and node.id == "app.use.pick"
    assert enclosing_symbol(store, "app/use.py", 2) is None


def test_results_are_deterministic(repo: Any) -> None:
    import json

    a = json.dumps(impact(repo, "app.use.pick", 7), sort_keys=True)
    b = json.dumps(impact(repo, "app.use.pick", 7), sort_keys=True)
    assert a == b


def test_function_span_parses_only_the_segment_with_file_lines() -> None:
    from impactlens.pdg.source import parse_text

    text = textwrap.dedent('''\
        import os


        class K:
            @staticmethod
            def m(a):
                s = """
        flush-left text inside a string
        """
                return a + len(s)

            def n(self):
                return 1
        ''')
    pf = parse_text("k.py", text)
    n = pf.function_span(12, 13, "n")
    assert n is not None and n.lineno == 12 and n.body[0].lineno == 13
    # the flush-left string defeats dedent: falls back to the whole file, same lines
    m = pf.function_span(5, 10, "m")
    assert m is not None and m.lineno == 6 and m.body[-1].lineno == 10
    assert pf.function_span(12, 13, "other") is None  # stale span / wrong name
