"""§3.8 (h) dependency-consistent batches.

The seeds plus the MUST ∪ MAY members are grouped into connected components of
the hard-edge graph restricted to them (direction ignored). Each component is
one change unit, ordered by distance from the seed so the seed precedes its
callers. Components with seeds come first (in seed order), then the rest by
nearest distance. Caps: ≤ ``max_batches`` batches of ≤ ``max_batch_members``
members; a larger component is cut at the nearest-50 boundary and every piece is
flagged ``split``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from impactlens.impact.graphcache import cached
from impactlens.model import Batch, EdgeKind, IndexGraph
from impactlens.settings import DEFAULT, Settings

HARD_KINDS = frozenset(EdgeKind)  # call/import/inherit/override/instantiate/use/contains/tests


def components(graph: IndexGraph, nodes: Sequence[str],
               links: Iterable[tuple[str, str]] = ()) -> list[set[str]]:
    """Connected components of ``nodes`` under hard edges between them (undirected);
    ``links`` are extra hard connections (a walk member and the node that admitted it)."""
    members = set(nodes)
    parent = {n: n for n in members}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(x: str, y: str) -> None:
        a, b = find(x), find(y)
        if a != b:
            parent[max(a, b)] = min(a, b)

    for x, y in sorted(cached(graph).edges_among(members, HARD_KINDS)):
        union(x, y)
    for x, y in sorted(links):
        if x in members and y in members:
            union(x, y)
    groups: dict[str, set[str]] = {}
    for n in members:
        groups.setdefault(find(n), set()).add(n)
    return list(groups.values())


def batches(graph: IndexGraph, seeds: Sequence[str], members: Mapping[str, int],
            settings: Settings = DEFAULT,
            links: Iterable[tuple[str, str]] = ()) -> tuple[list[Batch], int]:
    """Batches of ``seeds`` (distance 0, in order) ∪ ``members`` (entity → distance).
    ``links`` are the walk's admissions (member, admitting node): the edge that admitted a
    member is a hard edge even when it lands on the class rather than on ``__init__``.
    Returns the batches and how many were omitted by the ``max_batches`` cap."""
    seed_rank: dict[str, int] = {}
    for i, s in enumerate(seeds):
        seed_rank.setdefault(s, i)
    dist = {**{m: d for m, d in members.items()}, **dict.fromkeys(seed_rank, 0)}
    late = len(seed_rank)

    def key(n: str) -> tuple[int, int, str]:
        return (dist[n], seed_rank.get(n, late), n)

    comps = [sorted(c, key=key) for c in components(graph, list(dist), links)]
    comps.sort(key=lambda c: key(c[0]))
    out: list[Batch] = []
    size = max(1, settings.max_batch_members)
    for comp in comps:
        split = len(comp) > size
        for i in range(0, len(comp), size):
            out.append(Batch(batch_id=len(out), members=tuple(comp[i: i + size]), split=split))
    omitted = max(0, len(out) - settings.max_batches)
    return out[: settings.max_batches], omitted
