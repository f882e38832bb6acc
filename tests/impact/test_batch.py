"""§3.8 / phase 6: dependency-consistent batch assembly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from impact.graphs import Graph
from impactlens.impact.batch import batches as _batches
from impactlens.model import EdgeKind
from impactlens.settings import DEFAULT


def batches(g: Graph, seeds: list[str], members: dict[str, int],
            **cfg: object) -> list[list[str]]:
    s = DEFAULT.replace(**cfg) if cfg else DEFAULT
    return [list(b.members) for b in _batches(g, seeds, members, s)[0]]


def test_two_disconnected_clusters_are_two_batches_seed_first():
    g = Graph()
    g.call("app.a.caller", "app.a.seed")
    g.call("app.a.caller2", "app.a.caller")
    g.call("app.b.x", "app.b.y")
    got = batches(g, ["app.a.seed"], {"app.a.caller2": 2, "app.a.caller": 1,
                                      "app.b.x": 1, "app.b.y": 2})
    assert got == [["app.a.seed", "app.a.caller", "app.a.caller2"], ["app.b.x", "app.b.y"]]


def test_direction_and_edge_kind_do_not_matter_for_connectivity():
    g = Graph()
    g.edge("app.a.seed", "app.a.base", EdgeKind.INHERIT)
    g.tests("tests/t.py::test_a", "app.a.seed")
    got = batches(g, ["app.a.seed"], {"app.a.base": 1, "tests/t.py::test_a": 1})
    assert got == [["app.a.seed", "app.a.base", "tests/t.py::test_a"]]


def test_paths_through_non_members_do_not_connect():
    g = Graph()
    g.call("app.a.x", "app.a.hub")
    g.call("app.a.y", "app.a.hub")
    assert batches(g, [], {"app.a.x": 1, "app.a.y": 1}) == [["app.a.x"], ["app.a.y"]]


def test_singleton_is_still_a_batch():
    b, omitted = _batches(Graph(), ["app.a.seed"], {})
    assert [(x.batch_id, x.members, x.size, x.split) for x in b] == [
        (0, ("app.a.seed",), 1, False)]
    assert omitted == 0


def test_large_component_is_split_at_the_nearest_50_and_flagged():
    g = Graph()
    members = {}
    for i in range(120):
        g.call(f"app.m.c{i:03d}", "app.m.seed")
        members[f"app.m.c{i:03d}"] = 1 + i // 60
    b, _ = _batches(g, ["app.m.seed"], members)
    assert [x.size for x in b] == [50, 50, 21]
    assert all(x.split for x in b)
    assert b[0].members[0] == "app.m.seed"
    assert [x.batch_id for x in b] == [0, 1, 2]


def test_at_most_32_batches_with_omitted_count():
    members = {f"app.m.f{i:02d}": 1 for i in range(40)}
    b, omitted = _batches(Graph(), [], members)
    assert len(b) == 32 and omitted == 8


nodes = [f"app.m.n{i}" for i in range(10)]


@settings(max_examples=150, deadline=None)
@given(
    edges=st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)), max_size=25),
    dist=st.dictionaries(st.sampled_from(nodes), st.integers(1, 3), max_size=10),
    n_seeds=st.integers(0, 3),
)
def test_components_partition_members_and_seed_comes_first(edges, dist, n_seeds):
    g = Graph()
    for a, b in edges:
        g.call(a, b)
    seeds = [n for n in nodes if n not in dist][:n_seeds]
    got, omitted = _batches(g, seeds, dist)
    assert omitted == 0
    flat = [m for b in got for m in b.members]
    assert sorted(flat) == sorted({*seeds, *dist})  # a partition: every member exactly once
    where = {m: b.batch_id for b in got for m in b.members}
    for a, b in edges:  # hard-edge neighbours always share a batch
        if a in where and b in where:
            assert where[a] == where[b]
    for b in got:
        d = [0 if m in seeds else dist[m] for m in b.members]
        assert d == sorted(d)  # ordered by distance: seeds (distance 0) first
    seeded = [b for b in got if any(m in seeds for m in b.members)]
    assert got[: len(seeded)] == seeded  # batches holding a seed come first
    assert [b.batch_id for b in got] == list(range(len(got)))


def test_walk_admissions_connect_a_member_to_its_seed():
    # an instantiation edge lands on the class, not on the changed __init__
    g = Graph()
    g.new("app.v.signup", "app.m.User")
    assert batches(g, ["app.m.User.__init__"], {"app.v.signup": 1}) == [
        ["app.m.User.__init__"], ["app.v.signup"]]
    b, _ = _batches(g, ["app.m.User.__init__"], {"app.v.signup": 1}, DEFAULT,
                    links=[("app.v.signup", "app.m.User.__init__")])
    assert [x.members for x in b] == [("app.m.User.__init__", "app.v.signup")]
