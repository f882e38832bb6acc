"""What the edit itself calls: forward obligations and now-unused helpers (triage)."""

from __future__ import annotations

from dataclasses import replace

from impact.graphs import Graph
from impactlens.impact.triage import forward_entries, orphan_entries
from impactlens.model import Bucket, Edge, EdgeKind, Resolution
from impactlens.settings import DEFAULT


def graph() -> Graph:
    g = Graph()
    g.fn("app.core.run", "def run(x):", line=1)  # app/core.py, lines 1-3
    g.fn("app.util.fmt", "def fmt(value):", line=1)
    g.fn("app.util.varargs", "def varargs(*a, **k):", line=5)
    g.fn("app.util._helper", "def _helper(x):", line=9)
    g.fn("app.util._still_used", "def _still_used(x):", line=13)
    g.fn("app.util.public", "def public(x):", line=17)
    g.fn("app.util._registered", "def _registered(x):", line=21)  # decorated: may be called
    g.nodes["app.util._registered"] = replace(g.nodes["app.util._registered"],
                                              decorators=("register",))
    g.fn("app.other.go", "def go(x):", line=1)
    for helper in ("app.util._helper", "app.util._still_used", "app.util.public",
                   "app.util._registered"):
        g.call("app.core.run", helper, line=2, args=1)
    g.call("app.other.go", "app.util._still_used", line=2, args=1)
    return g


def written(g: Graph, dst: str, resolution: Resolution = Resolution.EXACT,
            **detail: object) -> Edge:
    from impact.graphs import call_detail

    return Edge("app.core.run", dst, EdgeKind.CALL, "app/core.py", 2, resolution,
                call_detail(**detail))  # type: ignore[arg-type]


def test_forward_obligation_for_a_call_the_callee_does_not_accept():
    g = graph()
    got = forward_entries(g, [written(g, "app.util.fmt", args=1, kwargs=("width",))],
                          ["app/core.py"], DEFAULT)
    assert [(e.entity, e.bucket, e.conf) for e in got] == [
        ("app.util.fmt", Bucket.MUST, DEFAULT.must_min)]
    assert "app/core.py:2" in got[0].reason and "width" in got[0].reason


def test_no_forward_obligation_when_it_binds_cannot_be_checked_or_is_unsure():
    g = graph()
    calls = [written(g, "app.util.fmt", args=1),  # binds
             written(g, "app.util.varargs", args=5, kwargs=("z",)),  # *a/**k: binds
             written(g, "app.util.fmt", Resolution.AMBIGUOUS, args=3),  # one of several
             written(g, "external.thing", args=9)]  # not in the graph
    assert forward_entries(g, calls, ["app/core.py"], DEFAULT) == []
    # a callee in an edited file: the edit may change it as well
    assert forward_entries(g, [written(g, "app.util.fmt", args=3)], ["app/util.py"],
                           DEFAULT) == []


def removed(g: Graph, line: int = 2) -> list[Edge]:
    """What the edit replaced: run's calls at ``line`` (as the before text resolves them)."""
    return [e for e in g.out_edges("app.core.run", frozenset({EdgeKind.CALL}))
            if e.line == line]


def test_orphans_are_private_undecorated_helpers_nothing_else_refers_to():
    g = graph()
    got = orphan_entries(g, ["app/core.py"], removed(g), [], DEFAULT)
    assert [(e.entity, e.bucket) for e in got] == [("app.util._helper", Bucket.MAY)]
    assert "now unused" in got[0].reason and "app/core.py:2" in got[0].reason
    # called again by a line the edit wrote: not removed
    again = [written(g, "app.util._helper", args=1)]
    assert orphan_entries(g, ["app/core.py"], removed(g), again, DEFAULT) == []
    # nothing removed, nothing reported
    assert orphan_entries(g, ["app/core.py"], [], [], DEFAULT) == []


def test_orphans_on_an_after_state_graph():
    """The index may hold the after state (working-tree mode): the removed call is not in
    it, another use of the helper at a shifted line still counts."""
    g = graph()
    gone = removed(g)
    g.edges = [e for e in g.edges if not (e.src == "app.core.run" and e.line == 2)]
    assert [e.entity for e in orphan_entries(g, ["app/core.py"], gone, [], DEFAULT)] == [
        "app.util._helper"]
    g.call("app.core.run", "app.util._helper", line=7, args=1)  # an unchanged line, moved
    assert orphan_entries(g, ["app/core.py"], gone, [], DEFAULT) == []
