"""Closed-world call graph: ``export callgraph --world closed``.

The index is open-world, as impact analysis must be: a ``self.m()`` call in a class's
method reaches the ``m`` its own class's MRO gives, because some caller (a user of a
library, a plugin) may build an instance of that class. A whole-program call graph —
what PyCG-style harnesses score — assumes the program is all there is: a method runs
on ``self`` only of the classes the program builds.

This pass drops the edges that hold only for receivers no code builds. For a method
``M`` of class ``C`` whose ``self``/``super()`` sites depend on the receiver's class,
when ``C`` itself is never built but some subclasses are, ``M``'s sites are evaluated
again under each built subclass ``T`` that really runs ``M`` (``T``'s lookup of ``M``'s
name gives ``M``, or reaches it through calls between same-named methods of ``T``'s
MRO — a ``super()`` chain); an edge of the open-world graph at one of those sites that
no such ``T`` gives is dropped (``Base.hello → Base.greet`` when the only instance is a
``Child(Left, Right)`` whose ``greet`` is ``Left.greet``).

"Built" is read generously, so that pruning errs towards keeping an edge: a class is
built when any code instantiates it or refers to it as a value (it may be handed to a
factory), and a test class is built by its framework. A method whose class has no built
subclass is left as it is (no evidence either way), as is every edge that is not at one
of the receiver-dependent sites. The pass never adds an edge.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from impactlens.index.frontend import language_of
from impactlens.index.store import Store
from impactlens.model import Edge, EdgeKind, NodeKind

__all__ = ["pruned_edges"]

EdgeKey = tuple[str, str, str, str, int]  # (src, dst, kind, file, line)
_PRUNABLE = frozenset({EdgeKind.CALL.value, EdgeKind.INSTANTIATE.value})


def pruned_edges(store: Store) -> set[EdgeKey]:
    """The edges of the stored (open-world) graph that hold for no receiver the
    program builds, keyed as :func:`edge_key` keys them."""
    from impactlens.index.runtime import gc_paused

    with gc_paused():  # the pass makes no cycles; the collector would rescan the facts
        return _Pruner(store).run()


def edge_key(e: Edge) -> EdgeKey:
    return (e.src, e.dst, e.kind.value, e.file, e.line)


class _Pruner:
    """The whole-graph facts the pass needs, and the pass itself."""

    def __init__(self, store: Store) -> None:
        from impactlens.index.indexer import FactsLookup

        self.store = store
        self.built: set[str] = set()  # instantiated, referred to, or holding tests
        self.subclasses: dict[str, set[str]] = defaultdict(set)  # direct ones
        self.calls_out: dict[str, set[str]] = defaultdict(set)
        for src, dst, kind in store.edge_ends(frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE,
                                                         EdgeKind.USE, EdgeKind.INHERIT})):
            if kind is EdgeKind.INHERIT:
                self.subclasses[dst].add(src)
            elif kind is EdgeKind.CALL:
                self.calls_out[src].add(dst)
            else:  # instantiated, or a value (a USE of a non-class is harmless)
                self.built.add(dst)
        self.built.update(p for _, p, _ in store.node_places({NodeKind.TEST}) if p)
        self.lookup = FactsLookup({}, store, store.module_paths())
        self._class_file = {i: f for i, _, f in store.node_places({NodeKind.CLASS})}
        self._keys: dict[str, dict[str, tuple[str, int]]] = {}  # file -> class -> key
        self._below: dict[str, list[str]] = {}  # class -> built classes below it

    def run(self) -> set[EdgeKey]:
        from impactlens.index.python.resolve import resolver

        by_file: dict[str, list[tuple[str, str]]] = defaultdict(list)  # (method, class)
        for mid, parent, path in self.store.node_places({NodeKind.METHOD}):
            if parent and parent not in self.built and self.built_below(parent):
                by_file[path].append((mid, parent))
        drop: set[EdgeKey] = set()
        for path in sorted(by_file):
            # the receiver-class evaluation is the Python resolver's: other languages keep
            # their open-world edges
            facts = None if language_of(path) != "python" else self.lookup.path(path, record=False)
            if facts is None:
                continue
            sidx_of = {sc.qual: i for i, sc in enumerate(facts.scopes)}
            with resolver(facts, self.lookup) as r:
                for qual, cls in by_file[path]:
                    m = sidx_of.get(qual)
                    if m is not None and _dispatches_on_self(facts.scopes[m]):
                        drop.update((qual, dst, kind, path, line)
                                    for dst, kind, line in self.unjustified(r, m, qual, cls))
        return drop

    def unjustified(self, r: Any, m: int, qual: str, cls: str) -> set[tuple[str, str, int]]:
        ck = self.key_of(cls)
        if ck is None:
            return set()
        below = [self.key_of(c) for c in self.built_below(cls)]
        return _unjustified(r, r.facts.module, m, qual, ck, below, self.calls_out)

    def built_below(self, cls: str) -> list[str]:
        """Built classes strictly below ``cls`` in the hierarchy, sorted (asked for every
        method of the class: computed once per class)."""
        got = self._below.get(cls)
        if got is None:
            seen: set[str] = set()
            todo = [cls]
            while todo:
                for sub in self.subclasses.get(todo.pop(), ()):
                    if sub not in seen:
                        seen.add(sub)
                        todo.append(sub)
            got = self._below[cls] = sorted(seen & self.built)
        return got

    def key_of(self, cls: str) -> tuple[str, int] | None:
        """(module, scope index) of the class ``cls`` (a qualname)."""
        path = self._class_file.get(cls)
        if path is None:
            return None
        if path not in self._keys:
            facts = (None if language_of(path) != "python"
                     else self.lookup.path(path, record=False))
            self._keys[path] = {} if facts is None else _class_keys(facts)
        return self._keys[path].get(cls)


def _dispatches_on_self(sc: Any) -> bool:
    """An instance method with sites whose target depends on ``self``'s class."""
    from impactlens.index.python.facts import F_CLASSMETHOD, F_STATICMETHOD

    return not sc.flags & (F_CLASSMETHOD | F_STATICMETHOD) and sc.selfs != ((), ())


def _class_keys(facts: Any) -> dict[str, tuple[str, int]]:
    from impactlens.index.python.facts import CLASS

    return {sc.qual: (facts.module, i) for i, sc in enumerate(facts.scopes) if sc.kind == CLASS}


def _unjustified(r: Any, module: str, m: int, qual: str, ck: tuple[str, int],
                 below: list[tuple[str, int] | None],
                 calls_out: dict[str, set[str]]) -> set[tuple[str, str, int]]:
    """(dst, kind, line) of method ``m``'s open-world edges that no built receiver gives."""
    name = qual.rpartition(".")[2]
    names = r.self_sites(module, m)[2]
    receivers = []
    for tk in below:
        if tk is None:
            return set()  # a receiver we cannot evaluate: keep everything
        if not _runs_on(r, tk, name, qual, calls_out):
            continue
        if not names & r.ctx_names(tk, ck):
            return set()  # this receiver's lookups equal the open-world ones
        receivers.append(tk)
    if not receivers:
        return set()

    def got(recv: Any) -> set[tuple[str, str, int]]:
        sink = r.scope_sink(module, m, recv, qual)
        return {(e[1], e[2], e[3]) for e in sink.edges if e[2] in _PRUNABLE}

    closed: set[tuple[str, str, int]] = set()
    for tk in receivers:
        closed |= got(tk)
    return got(None) - closed


def _runs_on(r: Any, tk: tuple[str, int], name: str, qual: str,
             calls_out: dict[str, set[str]]) -> bool:
    """Does method ``qual`` run on instances of class ``tk``: is it what ``tk``'s lookup
    of ``name`` gives, or reached from that through calls between same-named methods
    of ``tk``'s MRO (``super().name()``, ``Base.name(self)``)?"""
    items, _ = r.class_attr(tk, name, True)
    mro = {r.scope_id(*k) for k in r.mro(tk)[0]}
    todo = [r.scope_id(it[1], it[2]) for it in items if it[0] in ("F", "P")]
    seen = set(todo)
    while todo:
        q = todo.pop()
        if q == qual:
            return True
        for d in calls_out.get(q, ()):
            owner, _, leaf = d.rpartition(".")
            if leaf == name and owner in mro and d not in seen:
                seen.add(d)
                todo.append(d)
    return False
