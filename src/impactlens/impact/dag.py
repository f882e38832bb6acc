"""§3.9 (i) the cause-labelled impact DAG.

Nodes are the seeds, the MUST/MAY sites and the walk ancestors that connect them;
edges run from a changed (or already-obligated) entity to the site it obliges.
Each edge carries the fixed-form label ``cause`` (``"<change_type> changed (<what
changed>) → <site> <verb> via <relation>"``, the form the next-edit prompt and other
tools parse) and the same cause in words, ``why`` ("calls Catalog.get, whose signature
changed (added param region)"), which is what people read.
Edges only go forward in the (distance, seed order) ranking, so the graph is
acyclic and the seed precedes its callers. Caps: ≤ 200 nodes, ≤ 400 edges, and
≤ 12,000 tokens of JSON — the longest signatures are truncated first, then the
furthest nodes are dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from impactlens.impact.graphcache import cached
from impactlens.impact.token_count import count_tokens
from impactlens.model import (
    AtomicChange,
    Batch,
    ChangeType,
    DagEdge,
    DagNode,
    ImpactDag,
    IndexGraph,
    TestImpact,
    Triage,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

# what the changed entity underwent, as a relative clause
CHANGED: Mapping[ChangeType, str] = {
    ChangeType.METHOD_SIGNATURE: "whose signature changed",
    ChangeType.IMPORT: "whose imported name changed",
    ChangeType.FIELD: "whose value changed",
    ChangeType.CONSTRUCTOR: "whose constructor changed",
    ChangeType.CLASS_DECL: "whose class declaration changed",
    ChangeType.DELETE: "which is deleted",
    ChangeType.METHOD_BODY: "whose body changed",
    ChangeType.ADD: "which is new",
}
# how a reached site depends on the entity it was reached through
RELATES: Mapping[str, str] = {
    "CalledBy": "calls", "Callers": "calls", "OverriddenBy": "overrides",
    "Overrides": "is overridden by", "UsedBy": "reads", "ConstructedBy": "constructs",
    "SubclassOf": "subclasses", "SuperclassOf": "is a base class of",
    "InstantiatedBy": "instantiates", "ImportedBy": "imports",
    "TESTS": "tests", "CALLS": "runs code that calls", "IMPORTS": "imports the module of",
    "RECORDED": "ran, in a recorded test run,", "CONTAINS": "tests code in the module of",
}
VERBS: Mapping[ChangeType, str] = {
    ChangeType.METHOD_SIGNATURE: "must re-bind",
    ChangeType.IMPORT: "must re-bind",
    ChangeType.FIELD: "must be updated",
    ChangeType.CONSTRUCTOR: "must be updated",
    ChangeType.CLASS_DECL: "must be updated",
    ChangeType.DELETE: "must be updated",
    ChangeType.METHOD_BODY: "must be re-checked",
    ChangeType.ADD: "must be re-checked",
}
TEST_VERB = "must be re-tested"
_MIN_SIG = 24  # signatures are never cut below this many characters


def short_name(entity: str) -> str:
    """The last two parts of a dotted id (a test id's function) for a sentence."""
    if "::" in entity:
        return entity.rsplit("::", 1)[-1]
    return ".".join(entity.split(".")[-2:])


def cause_label(change: AtomicChange, site: str, relation: str, *, via: str = "",
                test: bool = False) -> str:
    """Why ``site`` is on the list, in words: how it depends on ``via`` (the entity it
    was reached through; the changed entity by default) and what that change was.
    ``relation`` may join several (``CalledBy/Overrides``)."""
    del site, test  # the sentence is about the site; a test reads as any dependent
    how = " / ".join(dict.fromkeys(RELATES.get(r, r) for r in relation.split("/")))
    what = CHANGED[change.change_type] + (f" ({change.what})" if change.what else "")
    target = via or change.entity
    chain = "" if target == change.entity else f", which depends on {short_name(change.entity)}"
    return f"{how} {short_name(target)}{chain}, {what}"


def edge_label(change: AtomicChange, site: str, relation: str, *, test: bool = False) -> str:
    """The fixed-form cause of a DAG edge, for programs that parse it."""
    verb = TEST_VERB if test else VERBS[change.change_type]
    what = change.what or "changed"
    return f"{change.change_type.value} changed ({what}) → {site} {verb} via {relation}"


def _cut(sig: str, limit: int) -> str:
    return sig if len(sig) <= limit else sig[: limit - 1] + "…"


def build_dag(
    graph: IndexGraph,
    walks: Sequence[tuple[AtomicChange, WalkResult, str]],
    tests: Sequence[Sequence[TestImpact]],
    triage: Triage,
    batches: Sequence[Batch],
    settings: Settings = DEFAULT,
) -> ImpactDag:
    """The DAG of one composite change. ``walks[i]`` is ``(change, walk, seed id)`` and
    ``tests[i]`` that change's affected tests."""
    obliged = {e.entity for e in (*triage.must_inspect, *triage.may_impact)}
    batch_of = {m: b.batch_id for b in batches for m in b.members}
    seeds = [s for c, _, s in walks if c.change_type is not ChangeType.ADD]
    seed_change: dict[str, AtomicChange] = {}
    for c, _, s in walks:
        seed_change.setdefault(s, c)

    dist: dict[str, int] = {s: 0 for s in seeds}
    raw_edges: list[tuple[str, str, str, str]] = []  # from, to, cause, why
    wanted: set[str] = set(seeds)
    for (change, result, seed), change_tests in zip(walks, tests, strict=True):
        if change.change_type is ChangeType.ADD:
            continue
        members = {m.entity: m for m in result.members}
        todo = sorted(e for e in members if e in obliged)
        # the members an obligated test is reached through are on its cause path too
        todo += sorted({t.via for t in change_tests if t.test_id in obliged
                        and t.via in members})
        seen: set[str] = set()
        while todo:  # obligated members plus the ancestors that connect them to the seed
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            m = members[x]
            wanted.add(x)
            dist[x] = min(dist.get(x, m.distance), m.distance)
            rel = "/".join(r.value for r in m.admitting_relations)
            for p in m.parents:
                raw_edges.append((p, x, edge_label(change, x, rel),
                                  cause_label(change, x, rel, via=p)))
                if p != seed and p in members:
                    todo.append(p)
        for t in change_tests:
            if t.test_id not in obliged or t.test_id == seed:
                continue
            via = t.via if (t.via == seed or t.via in seen) else seed
            wanted.add(t.test_id)
            base = 0 if via == seed else members[via].distance
            dist[t.test_id] = min(dist.get(t.test_id, base + 1), base + 1)
            raw_edges.append((via, t.test_id,
                              edge_label(change, t.test_id, t.relation, test=True),
                              cause_label(change, t.test_id, t.relation, via=via, test=True)))

    seed_rank = {s: i for i, s in reversed(list(enumerate(seeds)))}
    order = sorted(wanted, key=lambda n: (dist.get(n, 0), seed_rank.get(n, len(seeds)), n))
    pos = {n: i for i, n in enumerate(order)}

    nodes: list[DagNode] = []
    graph = cached(graph)
    graph.nodes(order)
    for n in order:
        node = graph.node(n)
        seeded = seed_change.get(n)
        sig = (seeded.after_sig or seeded.before_sig) if seeded is not None else ""
        if node is not None and (seeded is None or seeded.kind != "import"):
            nodes.append(DagNode(n, node.kind.value, node.file, node.start_line,
                                 sig or node.signature, batch_of.get(n)))
        elif seeded is not None:  # an import binding is described by its statement
            nodes.append(DagNode(n, seeded.kind, seeded.file, seeded.line_range[0], sig,
                                 batch_of.get(n)))
        else:
            file = n.split("::", 1)[0] if "::" in n else ""
            nodes.append(DagNode(n, "test" if "::" in n else "unknown", file, 0, "",
                                 batch_of.get(n)))

    edges = sorted({(pos[a], pos[b], c, w) for a, b, c, w in raw_edges
                    if a in pos and b in pos and pos[a] < pos[b]})
    all_edges = [DagEdge(order[a], order[b], c, w) for a, b, c, w in edges]
    omitted_nodes = max(0, len(nodes) - settings.max_dag_nodes)
    nodes = nodes[: settings.max_dag_nodes]
    return _fit(nodes, all_edges, omitted_nodes, settings)


def _fit(nodes: list[DagNode], all_edges: list[DagEdge], omitted_nodes: int,
         settings: Settings) -> ImpactDag:
    total_edges = len(all_edges)
    n0 = len(nodes)

    def make(ns: list[DagNode], truncated: bool, count: bool = True) -> ImpactDag:
        keep = {n.entity for n in ns}
        es = [e for e in all_edges if e.src in keep and e.dst in keep][: settings.max_dag_edges]
        dropped = omitted_nodes + (n0 - len(ns))
        dag = ImpactDag(tuple(ns), tuple(es), truncated or dropped > 0 or
                        len(es) < total_edges, dropped, total_edges - len(es))
        if not count:
            return dag
        text = json.dumps(dag.to_json(), ensure_ascii=False)
        return ImpactDag(dag.nodes, dag.edges, dag.truncated, dag.omitted_nodes,
                         dag.omitted_edges, count_tokens(text, settings.tokenizer_encoding))

    cap = settings.max_dag_tokens
    if cap <= 0:  # no cap: a caller that shows no DAG (`pytest --impact`) counts nothing
        return make(nodes, False, count=False)
    cut = False
    dag = make(nodes, cut)
    while dag.tokens > cap:  # 1) the largest summaries (signatures) are truncated first
        longest = max((len(n.signature) for n in nodes), default=0)
        if longest <= _MIN_SIG:
            break
        limit = max(_MIN_SIG, longest // 2)
        nodes = [DagNode(n.entity, n.kind, n.file, n.line, _cut(n.signature, limit),
                         n.batch_id) for n in nodes]
        cut = True
        dag = make(nodes, cut)
    while dag.tokens > cap and len(nodes) > 1:  # 2) then the furthest nodes are dropped
        # aim at the largest prefix whose JSON is predicted to fit (this DAG's tokens per
        # character), so a big DAG is counted a few times rather than once per 10% cut
        per_char = dag.tokens / max(1, _chars(dag))
        lo, hi = 1, len(nodes) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _chars(make(nodes[:mid], True, count=False)) * per_char <= cap:
                lo = mid
            else:
                hi = mid - 1
        nodes = nodes[:lo]
        dag = make(nodes, True)
    return dag


def _chars(dag: ImpactDag) -> int:
    return len(json.dumps(dag.to_json(), ensure_ascii=False))
