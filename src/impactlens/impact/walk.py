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
    _import_names,
    _Nodes,
    binding_users,
    check_relation_set,
    onward,
    prefetch_level,
    step,
)
from impactlens.model import (
    Edge,
    EdgeKind,
    IndexGraph,
    Relation,
    RelationSet,
    WalkMember,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

_TESTS = frozenset({EdgeKind.TESTS})


def _neighbours(nodes: _Nodes, x: str, rel: Relation, seed: str,
                import_binding: tuple[str, str] | None,
                admitted: dict[str, set[Edge]]) -> list[tuple[str, Edge]]:
    if x == seed and import_binding is not None:
        return binding_users(nodes, *import_binding) if rel is Relation.IMPORTED_BY else []
    out = step(nodes, x, rel)
    if rel is Relation.IMPORTED_BY:
        for e in sorted(admitted.get(x, ()), key=lambda e: (e.dst, e.line, e.detail)):
            if e.kind is EdgeKind.IMPORT and e.src == x:  # x imports a name: its users
                out += [(y, f) for y, f in binding_users(nodes, x, _import_names(e)[1])
                        if y != x]
    return out


def walk(graph: IndexGraph, seed: str, relations: RelationSet,
         settings: Settings = DEFAULT, *,
         import_binding: tuple[str, str] | None = None) -> WalkResult:
    """Reachable impact set of ``seed`` (excluded from it) over ``relations``.

    ``import_binding = (module, name)`` says the seed is a name bound by an import
    statement of ``module`` (an import change, or a removed import): its ImportedBy
    dependents are the users of that name in ``module`` and the modules importing it
    through ``module`` — not the dependents of whatever else bears the seed's id (a
    package re-export ``pkg.sub`` shares its id with the submodule). Any member that
    imports a name (an IMPORT edge admitted it) passes ImportedBy on the same way."""
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
                for y, e in _neighbours(nodes, x, rel, seed, import_binding, edges):
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
