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

from impactlens.index.store import Store
from impactlens.model import Edge, EdgeKind, NodeKind

__all__ = ["pruned_edges"]

EdgeKey = tuple[str, str, str, str, int]  # (src, dst, kind, file, line)
_PRUNABLE = frozenset({EdgeKind.CALL.value, EdgeKind.INSTANTIATE.value})


def pruned_edges(store: Store) -> set[EdgeKey]:
    """The edges of the stored (open-world) graph that hold for no receiver the
    program builds, keyed as :func:`edge_key` keys them."""
    from impactlens.index.indexer import _Lookup
    from impactlens.index.python.facts import F_CLASSMETHOD, F_STATICMETHOD
    from impactlens.index.python.resolve import resolver

    edges = store.all_edges(frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE, EdgeKind.USE,
                                       EdgeKind.INHERIT}))
    built, subclasses, calls_out = _class_facts(store, edges)
    candidates: dict[str, list[tuple[str, str]]] = defaultdict(list)  # file -> (method, class)
    for n in store.all_nodes({NodeKind.METHOD}):
        if n.parent and n.parent not in built and _built_below(n.parent, subclasses, built):
            candidates[n.file].append((n.id, n.parent))
    lookup = _Lookup({}, store, store.module_paths())
    class_file = {n.id: n.file for n in store.all_nodes({NodeKind.CLASS})}
    keys: dict[str, dict[str, tuple[str, int]]] = {}  # file -> class qualname -> key

    def key_of(cls: str) -> tuple[str, int] | None:
        path = class_file.get(cls)
        if path is None:
            return None
        if path not in keys:
            facts = lookup.path(path, record=False)
            keys[path] = {} if facts is None else _class_keys(facts)
        return keys[path].get(cls)

    drop: set[EdgeKey] = set()
    for path in sorted(candidates):
        facts = lookup.path(path, record=False)
        if facts is None:
            continue
        sidx_of = {sc.qual: i for i, sc in enumerate(facts.scopes)}
        with resolver(facts, lookup) as r:
            for qual, cls in candidates[path]:
                m = sidx_of.get(qual)
                ck = key_of(cls)
                if m is None or ck is None:
                    continue
                sc = facts.scopes[m]
                if sc.flags & (F_CLASSMETHOD | F_STATICMETHOD) or sc.selfs == ((), ()):
                    continue
                below = [key_of(c) for c in _built_below(cls, subclasses, built)]
                for dst, kind, line in _unjustified(r, facts.module, m, qual, ck, below,
                                                    calls_out):
                    drop.add((qual, dst, kind, path, line))
    return drop


def edge_key(e: Edge) -> EdgeKey:
    return (e.src, e.dst, e.kind.value, e.file, e.line)


def _class_facts(store: Store, edges: list[Edge]) -> tuple[
        set[str], dict[str, set[str]], dict[str, set[str]]]:
    """Built classes (instantiated, referred to, or holding tests), direct subclasses
    per class, and call targets per caller."""
    built: set[str] = set()
    subclasses: dict[str, set[str]] = defaultdict(set)
    calls_out: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e.kind is EdgeKind.INHERIT:
            subclasses[e.dst].add(e.src)
        elif e.kind is EdgeKind.CALL:
            calls_out[e.src].add(e.dst)
        else:  # instantiate, or a reference as a value (USE of a non-class is harmless)
            built.add(e.dst)
    built.update(n.parent for n in store.all_nodes({NodeKind.TEST}) if n.parent)
    return built, subclasses, calls_out


def _built_below(cls: str, subclasses: dict[str, set[str]], built: set[str]) -> list[str]:
    """Built classes strictly below ``cls`` in the hierarchy, sorted."""
    seen: set[str] = set()
    todo = [cls]
    while todo:
        for sub in subclasses.get(todo.pop(), ()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return sorted(seen & built)


def _class_keys(facts: Any) -> dict[str, tuple[str, int]]:
    from impactlens.index.python.facts import CLASS

    return {sc.qual: (facts.module, i) for i, sc in enumerate(facts.scopes) if sc.kind == CLASS}


def _unjustified(r: Any, module: str, m: int, qual: str, ck: tuple[str, int],
                 below: list[tuple[str, int] | None],
                 calls_out: dict[str, set[str]]) -> set[tuple[str, str, int]]:
    """(dst, kind, line) of method ``m``'s open-world edges that no built receiver gives."""
    name = qual.rpartition(".")[2]
    names = r._self_sites(module, m)[2]
    receivers = []
    for tk in below:
        if tk is None:
            return set()  # a receiver we cannot evaluate: keep everything
        if not _runs_on(r, tk, name, qual, calls_out):
            continue
        if not names & r._ctx_names(tk, ck):
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
