"""A per-run memo over an :class:`~impactlens.model.IndexGraph`, with batched reads.

The stages ask the graph the same small questions many times (a node's kind and
parent, a node's callers) and, level by level, for many nodes at once. On the
SQLite store each question is a query; :class:`CachedGraph` answers repeats from
memory and lets a stage :meth:`~CachedGraph.prefetch` a whole BFS level in one
query per 500 ids (``Store.nodes`` / ``Store.in_edges_many`` / ``out_edges_many``).

Answers are exactly the wrapped graph's: edges are memoized per ``(id, kind)`` and
re-merged in the store's order (``src``/``dst``, kind, file, line). A graph that
does not define the batch reads in its class (a test graph, the before-state
overlay) is read id by id — still memoized. Lists handed out are shared: read-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from impactlens.model import Edge, EdgeKind, IndexGraph, Node, UnresolvedSite

_ALL = frozenset(EdgeKind)


def cached(graph: IndexGraph) -> CachedGraph:
    """``graph`` itself when it already is a :class:`CachedGraph`, else a new one."""
    return graph if isinstance(graph, CachedGraph) else CachedGraph(graph)


def _has(graph: object, name: str) -> bool:
    # class-level look-up: a wrapper's __getattr__ must not pass the store's method off
    # as its own (it would read around the wrapper's replaced rows)
    return callable(getattr(type(graph), name, None))


class CachedGraph:
    """Memoizing, batching :class:`IndexGraph` over ``graph`` (for one analysis run)."""

    def __init__(self, graph: IndexGraph) -> None:
        self.graph = graph
        self._batch_nodes = _has(graph, "nodes")
        self._batch_in = _has(graph, "in_edges_many")
        self._batch_out = _has(graph, "out_edges_many")
        self._node: dict[str, Node | None] = {}
        self._in: dict[tuple[str, EdgeKind], list[Edge]] = {}
        self._out: dict[tuple[str, EdgeKind], list[Edge]] = {}
        self._file: dict[str, list[Node]] = {}
        self.queries = 0  # reads sent to the wrapped graph (for tests and profiling)

    def __getattr__(self, name: str) -> Any:  # other queries: the wrapped graph's answer
        return getattr(self.graph, name)

    # ------------------------------------------------- index queries, not memoized
    def unresolved_sites_where(
        self, *, reasons: Iterable[str] = (), words: Iterable[str] = (),
        files: Iterable[str] = (), external: bool = True,
    ) -> list[UnresolvedSite]:
        return self.graph.unresolved_sites_where(reasons=reasons, words=words, files=files,
                                                 external=external)

    def unresolved_in_file(self, path: str) -> list[UnresolvedSite]:
        return self.graph.unresolved_in_file(path)

    def dependents_of_modules(self, modules: Iterable[str]) -> set[str]:
        return self.graph.dependents_of_modules(modules)

    # ---------------------------------------------------------------- nodes
    def node(self, node_id: str) -> Node | None:
        try:
            return self._node[node_id]
        except KeyError:
            pass
        self.queries += 1
        n = self._node[node_id] = self.graph.node(node_id)
        return n

    def nodes(self, ids: Iterable[str]) -> dict[str, Node]:
        """The known nodes among ``ids`` (missing ones are fetched in one batch)."""
        ids = list(dict.fromkeys(ids))
        want = [i for i in ids if i not in self._node]
        if want:
            if self._batch_nodes:
                self.queries += 1
                got = self.graph.nodes(want)  # type: ignore[attr-defined]
                for i in want:
                    self._node[i] = got.get(i)
            else:
                for i in want:
                    self.node(i)
        return {i: n for i in ids if (n := self._node.get(i)) is not None}

    def nodes_in_file(self, path: str) -> list[Node]:
        got = self._file.get(path)
        if got is None:
            self.queries += 1
            got = self._file[path] = self.graph.nodes_in_file(path)
        return got

    def unresolved_sites(self) -> list[UnresolvedSite]:
        return self.graph.unresolved_sites()

    # ---------------------------------------------------------------- edges
    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        return self._edges(self._in, node_id, kinds, incoming=True)

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        return self._edges(self._out, node_id, kinds, incoming=False)

    def in_edges_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                      ) -> dict[str, list[Edge]]:
        ids = list(dict.fromkeys(ids))
        self._fill(self._in, ids, kinds or _ALL, incoming=True)
        return {i: es for i in ids if (es := self.in_edges(i, kinds))}

    def out_edges_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                       ) -> dict[str, list[Edge]]:
        ids = list(dict.fromkeys(ids))
        self._fill(self._out, ids, kinds or _ALL, incoming=False)
        return {i: es for i in ids if (es := self.out_edges(i, kinds))}

    def out_neighbours_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                            ) -> dict[str, set[str]]:
        """``{id: {dst of its out-edges}}`` (ids without edges are absent); on the store one
        light query per 500 ids — no edge records are built or memoized."""
        ids = list(dict.fromkeys(ids))
        if _has(self.graph, "out_neighbours_many"):
            self.queries += 1
            return self.graph.out_neighbours_many(ids, kinds)  # type: ignore[attr-defined]
        return {i: {e.dst for e in es} for i, es in self.out_edges_many(ids, kinds).items()}

    def edges_among(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                    ) -> set[tuple[str, str]]:
        """``(src, dst)`` of the edges with both ends in ``ids`` (no self-loops)."""
        ids = list(dict.fromkeys(ids))
        if _has(self.graph, "edges_among"):
            self.queries += 1
            return self.graph.edges_among(ids, kinds)  # type: ignore[attr-defined]
        members = set(ids)
        return {(i, d) for i, ds in self.out_neighbours_many(ids, kinds).items() for d in ds
                if d in members and d != i}

    def prefetch(self, ids: Iterable[str], *, in_kinds: frozenset[EdgeKind] = frozenset(),
                 out_kinds: frozenset[EdgeKind] = frozenset(), nodes: bool = False) -> None:
        """Load what a BFS level will ask about ``ids`` in as few reads as possible."""
        ids = list(dict.fromkeys(ids))
        if nodes:
            self.nodes(ids)
        if in_kinds:
            self._fill(self._in, ids, in_kinds, incoming=True)
        if out_kinds:
            self._fill(self._out, ids, out_kinds, incoming=False)

    def _edges(self, memo: dict[tuple[str, EdgeKind], list[Edge]], node_id: str,
               kinds: frozenset[EdgeKind] | None, *, incoming: bool) -> list[Edge]:
        ks = kinds or _ALL
        if any((node_id, k) not in memo for k in ks):
            self._fill(memo, [node_id], ks, incoming=incoming)
        if len(ks) == 1:
            (k,) = ks
            return memo[(node_id, k)]
        out = [e for k in ks for e in memo[(node_id, k)]]
        if incoming:
            out.sort(key=lambda e: (e.src, e.kind.value, e.file, e.line))
        else:
            out.sort(key=lambda e: (e.dst, e.kind.value, e.file, e.line))
        return out

    def _fill(self, memo: dict[tuple[str, EdgeKind], list[Edge]], ids: list[str],
              kinds: frozenset[EdgeKind], *, incoming: bool) -> None:
        """Fetch the missing ``(id, kind)`` lists of ``ids`` (one batch, or id by id)."""
        missing = [i for i in ids if any((i, k) not in memo for k in kinds)]
        if not missing:
            return
        need = frozenset(k for i in missing for k in kinds if (i, k) not in memo)
        if incoming and self._batch_in:
            self.queries += 1
            got = self.graph.in_edges_many(missing, need)  # type: ignore[attr-defined]
        elif not incoming and self._batch_out:
            self.queries += 1
            got = self.graph.out_edges_many(missing, need)  # type: ignore[attr-defined]
        else:
            read = self.graph.in_edges if incoming else self.graph.out_edges
            got = {}
            for i in missing:
                self.queries += 1
                got[i] = read(i, need)
        for i in missing:
            split: dict[EdgeKind, list[Edge]] = {k: [] for k in need}
            for e in got.get(i, ()):
                if e.kind in split:
                    split[e.kind].append(e)
            for k, es in split.items():
                memo.setdefault((i, k), es)
