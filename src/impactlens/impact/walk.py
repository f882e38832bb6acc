"""§3.3 (c) reverse graph walk: BFS against the dependency direction over *only* the
relations selected for the change type, ≤ ``max_depth`` hops, ≤ ``max_walk_nodes``.
Beyond the first hop a member follows the part of the row its admission warrants
(:func:`~impactlens.impact.relations.onward`): a caller's callers, not its base method.

There is deliberately no way to walk "all edges": :func:`walk` takes a
:class:`RelationSet` (checked against the §3.2 table), never a hop count alone.
"""

from __future__ import annotations

from impactlens.impact.graphcache import cached
from impactlens.impact.relations import (
    _Nodes,
    check_relation_set,
    onward,
    prefetch_level,
    step,
)
from impactlens.model import (
    Edge,
    EdgeKind,
    GraphView,
    Relation,
    RelationSet,
    WalkMember,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

_TESTS = frozenset({EdgeKind.TESTS})


def walk(graph: GraphView, seed: str, relations: RelationSet,
         settings: Settings = DEFAULT) -> WalkResult:
    """Reachable impact set of ``seed`` (excluded from it) over ``relations``."""
    check_relation_set(relations)
    graph = cached(graph)
    nodes = _Nodes(graph)
    order = {r: i for i, r in enumerate(relations.relations)}
    level: dict[str, int] = {seed: 0}
    rels: dict[str, set[Relation]] = {}
    parents: dict[str, set[str]] = {}
    edges: dict[str, set[Edge]] = {}
    frontier = [seed] if relations.relations else []
    for d in range(1, settings.max_depth + 1):
        found: set[str] = set()
        follow = {x: relations.relations if x == seed else onward(rels[x], relations.relations)
                  for x in frontier}
        prefetch_level(nodes, follow)
        for x in frontier:
            for rel in follow[x]:
                for y, e in step(nodes, x, rel):
                    if y == seed or level.get(y, d) < d:
                        continue
                    level[y] = d
                    found.add(y)
                    rels.setdefault(y, set()).add(rel)
                    parents.setdefault(y, set()).add(x)
                    edges.setdefault(y, set()).add(e)
        frontier = sorted(found)
        if not frontier:
            break
    reached = sorted((d, n) for n, d in level.items() if n != seed)
    cap = settings.max_walk_nodes
    kept, omitted = reached[:cap], max(0, len(reached) - cap)
    members = []
    graph.nodes(n for _, n in kept)
    for d, n in kept:
        es = tuple(sorted(edges[n], key=lambda e: (e.src, e.dst, e.kind.value, e.file, e.line,
                                                   e.detail)))
        node = graph.node(n)
        file = node.file if node is not None else next(
            (e.file for e in es if e.src == n), "")
        members.append(WalkMember(
            entity=n, file=file, distance=d,
            admitting_relations=tuple(sorted(rels[n], key=order.__getitem__)),
            parents=tuple(sorted(parents[n])), edges=es,
        ))
    tests: set[tuple[str, str]] = set()
    walked = [seed, *(m.entity for m in members)]
    graph.prefetch(walked, in_kinds=_TESTS)
    for n in walked:
        tests.update((e.src, n) for e in graph.in_edges(n, _TESTS))
    return WalkResult(seed=seed, relations=relations, members=tuple(members),
                      truncated=omitted > 0, omitted=omitted, tests=tuple(sorted(tests)))
