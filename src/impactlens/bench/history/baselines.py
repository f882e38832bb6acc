"""The methods the stage is compared with on the same cases, and the file graph they (and
the distance metric) walk: reverse imports, co-change alone, direct callers."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from impactlens.bench.history.results import MethodRun
from impactlens.bench.history.sources import is_source
from impactlens.model import EdgeKind

BASELINES = ("imports", "cochange10", "callers1")


class FileGraph:
    """File-level views of the parent's graph: undirected hops and reverse imports."""

    def __init__(self, store: Any) -> None:
        node_file = {n.id: n.file for n in store.all_nodes()}
        self.adj: dict[str, set[str]] = {}
        self.importers: dict[str, set[str]] = {}
        kinds = frozenset({EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.INHERIT, EdgeKind.OVERRIDE,
                           EdgeKind.INSTANTIATE, EdgeKind.USE})
        for e in store.all_edges(kinds):
            a, b = e.file, node_file.get(e.dst)
            if b is None or a == b:
                continue
            self.adj.setdefault(a, set()).add(b)
            self.adj.setdefault(b, set()).add(a)
            if e.kind is EdgeKind.IMPORT:
                self.importers.setdefault(b, set()).add(a)

    def distances_from(self, sources: Iterable[str]) -> dict[str, int]:
        return _hops(sorted(set(sources)), self.adj)

    def import_closure(self, start: str) -> list[str]:
        dist = _hops([start], self.importers)
        return [f for f, _ in sorted(dist.items(), key=lambda t: (t[1], t[0])) if f != start]


def _hops(starts: Sequence[str], neighbours: Mapping[str, set[str]]) -> dict[str, int]:
    """Breadth-first hop counts from ``starts`` (distance 0), neighbours in name order."""
    dist = {s: 0 for s in starts}
    q = deque(starts)
    while q:
        cur = q.popleft()
        for nxt in sorted(neighbours.get(cur, ())):
            if nxt not in dist:
                dist[nxt] = dist[cur] + 1
                q.append(nxt)
    return dist


def baseline_runs(store: Any, graph: FileGraph, seed_file: str, seed_entity: str,
                  partners: Sequence[tuple[str, float]], symbol_ids: set[str],
                  counts: Callable[[str], bool] = is_source) -> dict[str, MethodRun]:
    """Each of :data:`BASELINES` for one seed; ``partners`` = the seed file's co-change
    candidates in the channel's order; ``counts``: the files a list may hold."""
    callers: dict[str, int] = {}
    caller_files: dict[str, int] = {}
    for e in store.in_edges(seed_entity, frozenset({EdgeKind.CALL})):
        if not counts(e.file):
            continue
        callers[e.src] = callers.get(e.src, 0) + 1
        caller_files[e.file] = caller_files.get(e.file, 0) + 1
    return {
        "imports": MethodRun([f for f in graph.import_closure(seed_file) if counts(f)]),
        "cochange10": MethodRun([g for g, _ in partners if counts(g)][:10]),
        "callers1": MethodRun(
            [f for f, _ in sorted(caller_files.items(), key=lambda t: (-t[1], t[0]))
             if f != seed_file],
            [c for c, _ in sorted(callers.items(), key=lambda t: (-t[1], t[0]))
             if c in symbol_ids],
        ),
    }
