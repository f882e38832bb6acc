"""§3.5 (e) test-impact map — TDAD's 4-node × 5-edge graph, confidence-weighted.

Sources are the changed entity and every member of its impact set (each at 1.0).
From them the search follows the five edge types toward tests: ``TESTS`` (test →
unit, 1.0), ``CALLS`` (caller, incl. instantiation, 0.56), ``INHERITS`` (0.56),
``CONTAINS`` (containment, 0.5) and ``IMPORTS`` (0.45). A path's confidence is its
weakest edge; a test's confidence is its strongest path — so a direct ``TESTS``
edge scores 1.0, a test two ``CALLS`` hops away 0.56, a test module importing the
changed module 0.45. Tests below ``test_map_min`` are dropped.

Each edge is followed only in the direction in which it carries execution toward a
test: to a caller, to a subclass (whose tests run the inherited code), to the
container, and — from the changed entity itself — to the base method it overrides
(callers of the base may dispatch to it). A class is not followed up to its base
classes: the base's users do not run the subclass. ``IMPORTS`` is a terminal step
taken from the sources only: a test module that imports a source or a source's
module counts; a module reached on the way (a caller's module, a base class's
module, a package) does not make every test importing it affected — unless the module's
own top-level code calls toward the change (a module-level call, a class decorator applied
at import): importing it then *runs* the change, so the tests importing that module,
directly or through other modules' top-level imports, are affected at the ``IMPORTS``
weight (:func:`_import_time_tests`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from impactlens.impact.graphcache import CachedGraph, cached
from impactlens.model import (
    AtomicChange,
    EdgeKind,
    IndexGraph,
    Node,
    NodeKind,
    TestImpact,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

_K = EdgeKind


@dataclass(frozen=True)
class _Hit:
    conf: float
    via: str
    relation: str


_TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*\.py$|[^/]*_test\.py$|conftest\.py$)")
_MAX_STATES = 5000  # bound on the nodes one search visits (huge fan-in stays cheap)
_TESTS = frozenset({_K.TESTS})
_CALLS = frozenset({_K.CALL, _K.INSTANTIATE})
_INHERIT = frozenset({_K.INHERIT})
_CONTAINS = frozenset({_K.CONTAINS})
_OVERRIDE = frozenset({_K.OVERRIDE})
_IMPORT = frozenset({_K.IMPORT})
_IN_KINDS = _TESTS | _CALLS | _INHERIT | _CONTAINS
_INHERIT_OUT = _INHERIT  # class → base (walked up only to find what an added method overrides)
_TOUCH = frozenset({_K.TESTS, _K.CALL, _K.INSTANTIATE})


class _Memo:
    """Per-search memo of node look-ups (kind, module) over a (cached) IndexGraph."""

    def __init__(self, graph: IndexGraph) -> None:
        self.graph = cached(graph)
        self._module: dict[str, str | None] = {}
        self._tests: dict[str, list[str]] = {}

    def node(self, node_id: str) -> Node | None:
        return self.graph.node(node_id)

    def is_test(self, node_id: str) -> bool:
        """Tests are keyed by pytest node ids (``path::name``); nothing else has ``::``."""
        if "::" not in node_id:
            return False
        n = self.node(node_id)
        return n is None or n.kind is NodeKind.TEST

    def is_module(self, node_id: str) -> bool:
        n = self.node(node_id)
        return n is not None and n.kind is NodeKind.MODULE

    def _up(self, node_id: str) -> str | None:
        """The container of ``node_id``: its ``CONTAINS`` source, else its parent."""
        for e in self.graph.in_edges(node_id, _CONTAINS):
            return e.src
        n = self.node(node_id)
        return n.parent if n is not None and n.parent else None

    def prefetch_modules(self, ids: Iterable[str]) -> None:
        """Load the container chains of ``ids`` one level per read (for :meth:`module`)."""
        todo = [i for i in dict.fromkeys(ids) if i not in self._module]
        for _ in range(9):
            if not todo:
                break
            self.graph.prefetch(todo, in_kinds=_CONTAINS, nodes=True)
            todo = [up for i in todo
                    if ((n := self.node(i)) is None or n.kind is not NodeKind.MODULE)
                    and (up := self._up(i)) is not None]

    def module(self, node_id: str) -> str | None:
        """The module node containing ``node_id`` (up its container chain)."""
        if node_id not in self._module:
            cur: str | None = node_id
            found = None
            for _ in range(9):
                if cur is None:
                    break
                n = self.node(cur)
                if n is not None and n.kind is NodeKind.MODULE:
                    found = cur
                    break
                cur = self._up(cur)
            self._module[node_id] = found
        return self._module[node_id]

    def prefetch_tests_under(self, modules: Iterable[str]) -> None:
        mods = [m for m in modules if m not in self._tests]
        if not mods:
            return
        contains = frozenset({_K.CONTAINS})
        kids = self.graph.out_edges_many(mods, contains)
        self.graph.nodes([*mods, *(e.dst for es in kids.values() for e in es)])
        classes = [e.dst for es in kids.values() for e in es
                   if "::" not in e.dst and (n := self.node(e.dst)) is not None
                   and n.kind is NodeKind.CLASS]
        grand = self.graph.out_edges_many(classes, contains)
        self.graph.nodes(e.dst for es in grand.values() for e in es if "::" in e.dst)

    def tests_of(self, importer: str) -> list[str]:
        """The tests an import by ``importer`` runs in: the test itself, or the tests of a
        (test) module; nothing for a function or class importing inside its body."""
        if self.is_test(importer):
            return [importer]
        return self.tests_under(importer) if self.is_module(importer) else []

    def tests_under(self, module: str) -> list[str]:
        """Tests defined in ``module``: its test functions and those of its classes.
        Only a module that looks like a test module is searched below its top level."""
        got = self._tests.get(module)
        if got is None:
            contains = frozenset({_K.CONTAINS})
            kids = [e.dst for e in self.graph.out_edges(module, contains)]
            out = [k for k in kids if self.is_test(k)]
            node = self.node(module)
            if out or (node is not None and _TEST_FILE.search(node.file)):
                for k in kids:
                    n = None if "::" in k else self.node(k)
                    if n is not None and n.kind is NodeKind.CLASS:  # a test class
                        out += [e.dst for e in self.graph.out_edges(k, contains)
                                if self.is_test(e.dst)]
            got = self._tests[module] = sorted(set(out))
        return got


def tests_for(graph: IndexGraph, sources: Iterable[str],
              settings: Settings = DEFAULT, *, seed: str | None = "",
              hidden: Iterable[str] = (), hidden_edge: str = "CALLS") -> dict[str, _Hit]:
    """Affected tests of ``sources`` with their confidence (all, before the threshold).

    Bottleneck search: a path's confidence is its weakest edge, a test keeps its
    strongest path; at most ``max_depth`` edges from a source. ``IMPORTS`` is one
    terminal step from a source: a test (or a test module's tests) importing the
    source or its module is affected at the IMPORTS weight; nothing else is.
    """
    w = settings.test_edge_weights
    memo = _Memo(graph)
    g = memo.graph
    best: dict[str, _Hit] = {}
    srcs = list(dict.fromkeys(sources))  # the seed first, then members by distance
    # functions that may reach the change through an un-analyzable site: a call the graph
    # cannot see, so they start at the CALLS weight (and import nothing on its behalf)
    weak = [h for h in dict.fromkeys(hidden) if h not in srcs]
    rank = {s: i for i, s in enumerate([*srcs, *weak])}
    if seed == "":  # by default the first source is the changed entity itself
        seed = srcs[0] if srcs else None

    def hit(test: str, conf: float, via: str, rel: str) -> None:
        old = best.get(test)
        if old is None or (-conf, rank[via], rel) < (-old.conf, rank[old.via], old.relation):
            best[test] = _Hit(conf, via, rel)

    state: dict[str, tuple[float, int]] = {}
    frontier: list[tuple[str, float, int, str, str]] = []
    for s in srcs:
        if memo.is_test(s):
            hit(s, w["TESTS"], s, "TESTS")
        state[s] = (1.0, 0)
        frontier.append((s, 1.0, 0, s, ""))
    hw = w[hidden_edge]
    for s in weak:
        if memo.is_test(s):
            hit(s, hw, s, hidden_edge)
        state[s] = (hw, 0)
        frontier.append((s, hw, 0, s, hidden_edge))
    max_hops = settings.max_depth
    nxt: list[tuple[str, float, int, str, str]] = []

    import_time: dict[str, tuple[float, str]] = {}  # module → (conf, via) of its top level

    def go(y: str, kind: str, conf: float, hops: int, via: str, label: str) -> None:
        c = min(conf, w[kind])
        lab = kind if w[kind] < conf or not label else label
        if memo.is_test(y):
            hit(y, c, via, lab)
            return
        if kind == "CALLS" and memo.is_module(y):  # its top-level code runs the change
            old_it = import_time.get(y)
            if old_it is None or (-c, rank[via]) < (-old_it[0], rank[old_it[1]]):
                import_time[y] = (c, via)
        old = state.get(y)
        if old is None and len(state) >= _MAX_STATES:
            return
        if old is None or c > old[0] or (c == old[0] and hops + 1 < old[1]):
            state[y] = (c, hops + 1)
            nxt.append((y, c, hops + 1, via, lab))

    # IMPORTS, from the sources only: a test importing a source or a source's module
    memo.prefetch_modules(srcs)
    imported = {t for x in srcs for t in (x, memo.module(x)) if t is not None}
    g.prefetch(imported, in_kinds=_IMPORT)
    importers = {e.src for t in imported for e in g.in_edges(t, _IMPORT)}
    g.nodes(importers)
    memo.prefetch_tests_under(i for i in importers if memo.is_module(i))
    c = w["IMPORTS"]
    for x in srcs:
        mod = memo.module(x)
        for t in (x,) if mod is None or mod == x else (x, mod):
            for e in g.in_edges(t, _IMPORT):
                for test in memo.tests_of(e.src):
                    hit(test, c, x, "IMPORTS")

    while frontier:
        nxt = []
        level = [x for x, _, hops, _, _ in frontier if hops < max_hops]
        g.prefetch(level, in_kinds=_IN_KINDS, nodes=True)
        g.prefetch([x for x, _, hops, _, _ in frontier if hops == 0], out_kinds=_CONTAINS)
        g.nodes(e.src for x in level for e in g.in_edges(x, _IN_KINDS) if "::" in e.src)
        for x, conf, hops, via, label in frontier:
            if hops >= max_hops:
                continue
            at = (conf, hops, via, label)
            for e in g.in_edges(x, _TESTS):
                hit(e.src, min(conf, w["TESTS"]), via, label or "TESTS")
            for e in g.in_edges(x, _CALLS):
                go(e.src, "CALLS", *at)
            for e in g.in_edges(x, _INHERIT):  # a subclass runs the inherited code
                go(e.src, "INHERITS", *at)
            for e in g.in_edges(x, _CONTAINS):
                go(e.src, "CONTAINS", *at)
            if hops == 0:  # a changed container reaches what it contains
                for e in g.out_edges(x, _CONTAINS):
                    go(e.dst, "CONTAINS", *at)
            if x == seed and hops == 0:  # the base's callers may dispatch to the override
                for e in g.out_edges(x, _OVERRIDE):
                    go(e.dst, "INHERITS", *at)
        frontier = sorted(nxt, key=lambda t: (t[0], -t[1], t[2], rank[t[3]], t[4]))
    for test, (conf, via) in _import_time_tests(memo, import_time).items():
        hit(test, min(conf, w["IMPORTS"]), via, "IMPORTS")
    return best


def tests_importing(graph: IndexGraph, modules: Iterable[str]) -> set[str]:
    """Tests defined in ``modules`` or in a module importing one of them, directly or through
    other modules' top-level imports: the tests a module's import-time code can affect."""
    memo = _Memo(graph)
    mods = list(dict.fromkeys(modules))
    memo.prefetch_tests_under(mods)
    out = {t for m in mods for t in memo.tests_of(m)}
    out.update(_import_time_tests(memo, {m: (1.0, m) for m in mods}))
    return out


def _importers(memo: _Memo, modules: Sequence[str]) -> dict[str, list[str]]:
    """module → what imports it or a name defined at its top level (what it contains)."""
    g = memo.graph
    kids = g.out_edges_many(modules, _CONTAINS)
    ids = {m: [m, *(e.dst for e in kids.get(m, ()) if "::" not in e.dst)] for m in modules}
    edges = g.in_edges_many([i for m in modules for i in ids[m]], _IMPORT)
    out = {m: sorted({e.src for i in ids[m] for e in edges.get(i, ())}) for m in modules}
    g.nodes(i for srcs in out.values() for i in srcs)
    memo.prefetch_tests_under(i for srcs in out.values() for i in srcs if memo.is_module(i))
    return out


def _import_time_tests(memo: _Memo, modules: dict[str, tuple[float, str]]
                       ) -> dict[str, tuple[float, str]]:
    """Tests that import (directly or through other modules' top-level imports) a module
    whose top-level code reaches the change, with the (confidence, via) of that module.
    Imports inside functions are not followed: they run when the function does. One
    breadth-first search from all the modules, strongest first."""
    out: dict[str, tuple[float, str]] = {}
    level = sorted(modules, key=lambda m: (-modules[m][0], m))
    origin = dict(modules)
    while level and len(origin) < _MAX_STATES:
        importers = _importers(memo, level)
        nxt: list[str] = []
        for m in level:
            for i in importers[m]:
                for t in memo.tests_of(i):
                    out.setdefault(t, origin[m])
                if memo.is_module(i) and i not in origin:
                    origin[i] = origin[m]
                    nxt.append(i)
        level = nxt
    return out


def change_tests(graph: IndexGraph, change: AtomicChange, result: WalkResult, seed: str,
                 settings: Settings = DEFAULT, *, include_seed: bool = True,
                 hidden: Sequence[str] = ()) -> list[TestImpact]:
    """Affected tests of one atomic change (confidence ≥ ``test_map_min``), best first.
    ``include_seed=False`` when the seed id is not a graph node of its own (an import
    binding whose id another node — a submodule — may bear); ``hidden`` are functions
    that may reach the change through an un-analyzable site (sources at CALLS weight)."""
    sources = [seed, *(m.entity for m in result.members)]
    if not include_seed:
        sources = sources[1:]
    hits = tests_for(graph, sources, settings, seed=seed if include_seed else None,
                     hidden=hidden)
    return _selected(change, hits, settings)


def _selected(change: AtomicChange, hits: dict[str, _Hit],
              settings: Settings) -> list[TestImpact]:
    """The tests at or above ``test_map_min``, best first. With
    ``settings.test_imports_fallback`` (off by default) a test reached only by IMPORTS (its
    module imports the changed module, no call path found) is kept only when no test
    reaches the change over an execution path (TESTS/CALLS/INHERITS/CONTAINS): a tighter
    set, but code run through decorators or metaclasses has no call path, so it misses
    tests that do break (see ``Settings.test_imports_fallback``)."""
    kept = {t: h for t, h in hits.items() if h.conf >= settings.test_map_min}
    if settings.test_imports_fallback:
        executing = {t: h for t, h in kept.items() if h.relation != "IMPORTS"}
        kept = executing or kept
    out = [TestImpact(file=change.file, test_id=t, conf=round(h.conf, 4), via=h.via,
                      relation=h.relation) for t, h in kept.items()]
    return sorted(out, key=lambda t: (-t.conf, t.test_id))


def added_tests(graph: IndexGraph, change: AtomicChange, module: str,
                settings: Settings = DEFAULT) -> list[TestImpact]:
    """Tests an added node runs although nothing references it yet (§3.5: paths from the
    changed file). A module-level statement (an import, a binding) runs whenever the
    module is imported: the tests importing the module or anything defined in it
    (IMPORTS). A method added to a class overrides the nearest same-named base method
    for the class's instances: the tests reaching that base method may now dispatch to
    it (INHERITS). A new function or class runs nowhere yet."""
    g = cached(graph)
    memo = _Memo(g)
    w = settings.test_edge_weights
    parent, _, leaf = change.entity.rpartition(".")
    hits: dict[str, _Hit] = {}
    if change.kind in ("import", "field") and parent == module and module:
        importers = _importers(memo, [module])[module]
        for i in importers:
            for t in memo.tests_of(i):
                hits.setdefault(t, _Hit(w["IMPORTS"], module, "IMPORTS"))
    elif change.kind == "method" and parent:
        base = _overridden(g, parent, leaf)
        if base is not None:
            hits = tests_for(g, [], settings, seed=None, hidden=[base], hidden_edge="INHERITS")
            # dispatch reaches the new method only on instances of its class: keep the tests
            # that touch the class (or a subclass) themselves
            classes = _with_subclasses(g, parent)
            touched = g.out_edges_many(hits, _TOUCH)
            hits = {t: h for t, h in hits.items()
                    if any(e.dst in classes or e.dst.rsplit(".", 1)[0] in classes
                           for e in touched.get(t, ()))}
    return _selected(change, hits, settings)


def _with_subclasses(g: CachedGraph, cls: str) -> set[str]:
    out, level = {cls}, [cls]
    for _ in range(8):
        level = sorted({e.src for c in level for e in g.in_edges(c, _INHERIT)} - out)
        if not level:
            break
        out.update(level)
    return out


def _overridden(g: CachedGraph, cls: str, name: str) -> str | None:
    """The nearest base-class method ``name`` of class ``cls`` (breadth first)."""
    seen, level = {cls}, [cls]
    for _ in range(8):
        bases = sorted({e.dst for c in level for e in g.out_edges(c, _INHERIT_OUT)} - seen)
        for b in bases:
            n = g.node(f"{b}.{name}")
            if n is not None and n.kind is NodeKind.METHOD:
                return n.id
        if not bases:
            return None
        seen.update(bases)
        level = bases
    return None


def merge_test_map(per_change: Iterable[Sequence[TestImpact]],
                   settings: Settings = DEFAULT) -> list[TestImpact]:
    """The §3.5 ``(file, test)`` pairs: the best confidence per pair, ≤ ``max_test_pairs``
    (lowest confidence dropped first), grouped by file, confidence descending within it."""
    pairs: dict[tuple[str, str], TestImpact] = {}
    for items in per_change:
        for t in items:
            old = pairs.get((t.file, t.test_id))
            if old is None or t.conf > old.conf:
                pairs[(t.file, t.test_id)] = t
    kept = sorted(pairs.values(), key=lambda t: (-t.conf, t.file, t.test_id))
    kept = kept[: settings.max_test_pairs]
    return sorted(kept, key=lambda t: (t.file, -t.conf, t.test_id))


def test_map(graph: IndexGraph, walks: Sequence[tuple[AtomicChange, WalkResult, str]],
             settings: Settings = DEFAULT) -> list[TestImpact]:
    """``change_tests`` of every ``(change, walk, seed graph id)``, merged."""
    return merge_test_map(
        (change_tests(graph, c, w, s, settings) for c, w, s in walks), settings)


test_map.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
tests_for.__test__ = False  # type: ignore[attr-defined]
