"""The per-run graph memo answers exactly what the graph answers, in fewer reads."""

from __future__ import annotations

from impact.graphs import Graph
from impactlens.api import Project
from impactlens.impact.graphcache import CachedGraph, cached
from impactlens.index.store import Store, index_path
from impactlens.model import EdgeKind

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "class Base:\n    def run(self, x):\n        return x\n\n\n"
        "class Sub(Base):\n    def run(self, x):\n        return helper(x)\n\n\n"
        "def helper(x):\n    return x * 2\n"
    ),
    "pkg/use.py": (
        "from pkg.core import Sub, helper\n\n\n"
        "def go(x):\n    return Sub().run(helper(x))\n"
    ),
    "tests/test_use.py": (
        "from pkg.use import go\n\n\ndef test_go():\n    assert go(1) == 4\n"
    ),
}
IDS = ["pkg.core.helper", "pkg.core.Sub.run", "pkg.core.Base.run", "pkg.core.Sub",
       "pkg.use.go", "pkg.use", "tests/test_use.py::test_go", "no.such.node"]


def test_cached_store_answers_like_the_store(indexed):
    with indexed(FILES) as p:
        store = p.store
        for kinds in (None, frozenset({EdgeKind.CALL}),
                      frozenset({EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.OVERRIDE})):
            g = CachedGraph(store)
            g.prefetch(IDS[:4], in_kinds=frozenset({EdgeKind.CALL}), nodes=True)
            for i in IDS:
                assert g.node(i) == store.node(i)
                assert g.in_edges(i, kinds) == store.in_edges(i, kinds)
                assert g.out_edges(i, kinds) == store.out_edges(i, kinds)
            many = g.in_edges_many(IDS, kinds)
            assert many == {i: es for i in IDS if (es := store.in_edges(i, kinds))}
            assert store.in_edges_many(IDS, kinds) == many
            assert store.out_edges_many(IDS, kinds) == {
                i: es for i in IDS if (es := store.out_edges(i, kinds))}
        assert store.nodes(IDS) == {i: n for i in IDS if (n := store.node(i)) is not None}


def test_repeated_and_batched_reads_hit_the_memo(indexed):
    with indexed(FILES) as p:
        g = CachedGraph(p.store)
        g.prefetch(IDS, in_kinds=frozenset({EdgeKind.CALL, EdgeKind.TESTS}), nodes=True)
        reads = g.queries
        assert reads == 2  # one batch of nodes, one of edges
        for i in IDS:
            g.node(i)
            g.in_edges(i, frozenset({EdgeKind.CALL}))
            g.in_edges(i, frozenset({EdgeKind.TESTS, EdgeKind.CALL}))
        assert g.queries == reads
        assert cached(g) is g


def test_a_graph_without_batch_reads_is_read_id_by_id():
    g = Graph()
    g.fn("app.a")
    g.fn("app.b")
    g.call("app.b", "app.a", args=1)
    c = CachedGraph(g)
    assert c.in_edges_many(["app.a", "app.b"], frozenset({EdgeKind.CALL})) == {
        "app.a": g.in_edges("app.a", frozenset({EdgeKind.CALL}))}
    assert c.nodes(["app.a", "nope"]) == {"app.a": g.node("app.a")}
    assert CachedGraph(g).nodes(i for i in ("app.a", "app.b")) == {  # any iterable
        "app.a": g.node("app.a"), "app.b": g.node("app.b")}


def test_out_neighbours_many_matches_the_out_edges(indexed):
    with indexed(FILES) as p:
        store = p.store
        for kinds in (None, frozenset({EdgeKind.CALL, EdgeKind.TESTS})):
            want = {i: {e.dst for e in es} for i in IDS if (es := store.out_edges(i, kinds))}
            assert store.out_neighbours_many(IDS, kinds) == want
            assert CachedGraph(store).out_neighbours_many(IDS, kinds) == want
            among = {(i, d) for i, ds in want.items() for d in ds if d in IDS and d != i}
            assert store.edges_among(IDS, kinds) == among
            assert CachedGraph(store).edges_among(IDS, kinds) == among
            g = Graph()
            g.call("app.b", "app.a")
            assert CachedGraph(g).out_neighbours_many(["app.b", "app.a"], kinds) == {
                "app.b": {"app.a"}}
            assert CachedGraph(g).edges_among(["app.b", "app.a"], kinds) == {("app.b", "app.a")}


DYNAMIC = {
    "dyn/__init__.py": "",
    "dyn/ops.py": "import json\n\n\ndef op_a(x):\n    return json.dumps(x)\n\n\n"
                  "OPS = {'a': op_a}\n",
    "dyn/run.py": "import importlib\n\nfrom dyn.ops import OPS\n\n\n"
                  "def run(name, x):\n    return OPS[name](x)\n\n\n"
                  "def by_attr(obj, name):\n    return getattr(obj, 'op_' + name)()\n\n\n"
                  "def load(name):\n    return importlib.import_module('dyn.' + name)\n\n\n"
                  "def duck(thing):\n    return thing.op_a(1) + thing.other().op_a\n",
}


def test_in_memory_site_query_matches_the_sql_one_without_external_sites(indexed):
    with indexed(DYNAMIC) as p:
        root, store = p.root, p.store
        queries = [dict(reasons=["dynamic-getattr"]), dict(files=["dyn/ops.py"]),
                   dict(words=["op_a"]), dict(words=["dyn.ops", "OPS", "other", "dumps"]),
                   dict(reasons=["importlib"], words=["op_a"], files=["dyn/run.py"]),
                   dict(words=["json"]), dict()]
        for q in queries:
            sql = [u for u in store.unresolved_sites_where(**q) if u.reason.value != "external"]
            assert store.unresolved_sites_where(**q, external=False) == sql, q
    # a re-index through another connection is seen (SQLite's data_version moved)
    other = Store.open(index_path(root))
    try:
        assert other.unresolved_sites_where(words=["other"], external=False)
        (root / "dyn/run.py").write_text("def run(thing):\n    return thing.op_b()\n")
        with Project(root) as p:
            p.index()
        assert not other.unresolved_sites_where(words=["other"], external=False)
        assert other.unresolved_sites_where(words=["op_b"], external=False)
    finally:
        other.close()
