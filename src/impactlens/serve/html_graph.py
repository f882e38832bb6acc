"""The graph the HTML report draws, chosen from the answer.

A reader edits or reads code, so the graph holds the changed code, the MUST-INSPECT and
MAY-IMPACT code and the DAG nodes that connect them to the change; the tests to run are
one node per test file, joined to the code they reach. Both are capped
(``settings.html_graph_nodes`` code nodes, ``settings.html_graph_test_files`` files);
what is not drawn is counted, and every entry is still listed in the page's sections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from impactlens.answer.build import Answer, TestFile
from impactlens.answer.text import split_causes
from impactlens.impact.dag import RELATES, short_name
from impactlens.model import AtomicChange, DagEdge, DagNode, TriageEntry, is_test_id
from impactlens.settings import DEFAULT, Settings

__all__ = ["graph_data"]

_BUCKET_OF = (("must_inspect", "must"), ("may_impact", "may"), ("low_risk", "low"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class _Dag:
    """The answer's DAG split into code and test ends, with each node's parents."""

    def __init__(self, answer: Answer) -> None:
        dag = answer.result.dag
        self.nodes: dict[str, DagNode] = {n.entity: n for n in dag.nodes}
        self.parents: dict[str, list[str]] = {}
        self.code_edges: list[DagEdge] = []
        self.test_edges: list[DagEdge] = []
        for e in dag.edges:
            if self.is_test(e.dst):
                self.test_edges.append(e)
            elif not self.is_test(e.src):
                self.code_edges.append(e)
                self.parents.setdefault(e.dst, []).append(e.src)

    def is_test(self, entity: str) -> bool:
        node = self.nodes.get(entity)
        return is_test_id(entity, node.file if node else "")

    def with_ancestors(self, entity: str) -> list[str]:
        """``entity`` and every code node on its paths from the change."""
        out, todo = [], [entity]
        while todo:
            x = todo.pop()
            if x not in out:
                out.append(x)
                todo += self.parents.get(x, [])
        return out

    def drawn_ancestor(self, entity: str, drawn: Mapping[str, Any]) -> str | None:
        """The nearest drawn node on ``entity``'s paths from the change (itself first)."""
        level, seen = [entity], set()
        while level:
            for x in level:
                if x in drawn:
                    return x
            seen.update(level)
            level = [p for x in level for p in self.parents.get(x, []) if p not in seen]
        return None


def _choose(answer: Answer, dag: _Dag, cap: int) -> tuple[list[str], int]:
    """The code nodes to draw, in rank order: the seeds, then each MUST/MAY entry with
    the nodes connecting it to the change, then the DAG's other code nodes; a unit that
    would pass ``cap`` is skipped. Returns the nodes and how many were not drawn."""
    chosen: dict[str, None] = {}  # ordered
    wanted: set[str] = set()
    entries = [e.entity for e in (*answer.must_inspect, *answer.may_impact)
               if not is_test_id(e.entity, e.file)]
    others = [n for n in dag.nodes if not dag.is_test(n)]
    for entity in dict.fromkeys([c.entity for c in answer.changes] + entries + others):
        wanted.add(entity)
        unit = [x for x in dag.with_ancestors(entity) if x not in chosen]
        if len(chosen) + len(unit) <= cap:
            chosen.update(dict.fromkeys(reversed(unit)))
    return list(chosen), len(wanted - chosen.keys())


def _where(node: DagNode | None, seed: AtomicChange | None, entry: TriageEntry | None
           ) -> tuple[str, str, int, str]:
    """Kind, file, line and signature: the DAG's, else the change's, else the entry's file."""
    if node is not None:
        return node.kind, node.file, node.line, node.signature
    if seed is not None:
        return seed.kind, seed.file, seed.line_range[0], seed.after_sig or seed.before_sig
    return "", entry.file if entry else "", 0, ""


def _code_node(entity: str, answer: Answer, dag: _Dag,
               info: Mapping[str, tuple[str, TriageEntry]]) -> dict[str, Any]:
    seed = next((c for c in answer.changes if c.entity == entity), None)
    node = dag.nodes.get(entity)
    bucket, entry = info.get(entity, ("other", None))
    kind, file, line, signature = _where(node, seed, entry)
    out: dict[str, Any] = {"id": entity, "label": short_name(entity),
                           "bucket": "seed" if seed else bucket, "kind": kind, "file": file,
                           "line": line, "signature": signature}
    if node is not None and node.batch_id is not None:
        out["batch"] = node.batch_id + 1
    if seed is not None:
        out["change"] = seed.change_type.value
    if entry is not None:
        out["conf"] = round(entry.conf, 2)
        out["causes"] = split_causes(entry.reason)
    return out


def _merge(edges: Iterable[tuple[str, str, str, str]], soft: bool = False
           ) -> list[dict[str, Any]]:
    """One drawn edge per (source, target): its causes in words (and fixed form)."""
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for src, dst, why, cause in edges:
        got = pairs.setdefault((src, dst), {"source": src, "target": dst, "why": [],
                                            "cause": [], "soft": soft})
        if why and why not in got["why"]:
            got["why"].append(why)
        if cause and cause not in got["cause"]:
            got["cause"].append(cause)
    return list(pairs.values())


def _test_file_edges(answer: Answer, dag: _Dag, files: Iterable[TestFile],
                     drawn: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An edge from the drawn code each file's tests reach (the nearest drawn node on the
    path; the first change when none is drawn), saying how many tests and how (the DAG's
    words first, else the test map's relation)."""
    in_file = {t: g.file for g in files for t in g.tests}
    fallback = answer.changes[0].entity if answer.changes else ""
    reach = [(e.src, e.dst, e.why) for e in dag.test_edges]
    reach += [(t.via, t.test_id, f"{RELATES.get(t.relation, t.relation)} {short_name(t.via)}")
              for t in answer.result.test_map]
    pairs: dict[tuple[str, str], tuple[set[str], list[str]]] = {}
    for via, test, how in reach:
        if test not in in_file:
            continue
        src = dag.drawn_ancestor(via, drawn) or fallback
        tests, hows = pairs.setdefault((src, "file:" + in_file[test]), (set(), []))
        tests.add(test)
        if how and how not in hows:
            hows.append(how)
    for g in files:  # tests whose path was not kept (the test map is capped) reach the change
        if not any(file == "file:" + g.file for _, file in pairs):
            pairs[(fallback, "file:" + g.file)] = (set(g.tests), ["reach the changed code"])
    return [{"source": src, "target": file, "why": [f"{_plural(len(tests), 'test')} here: "
                                                     f"{hows[0]}" if hows else ""],
             "cause": [], "soft": False} for (src, file), (tests, hows) in pairs.items()
            if src in drawn]


def _test_nodes(answer: Answer, files: Iterable[TestFile]) -> list[dict[str, Any]]:
    must = {e.entity for e in answer.must_inspect}
    out = []
    for g in files:
        broken = sum(1 for t in g.tests if t in must)
        label = f"{g.file}\n({_plural(g.count, 'test')}"
        label += f", {broken} must change)" if broken else ")"
        out.append({"id": "file:" + g.file, "label": label, "bucket": "test", "kind": "tests",
                    "file": g.file, "count": g.count, "must_change": broken})
    return out


def graph_data(answer: Answer, settings: Settings = DEFAULT) -> dict[str, Any]:
    """What the page's graph draws: ``nodes`` (code, then test files), ``edges`` (the
    causes in words under ``why``) and ``not_drawn`` (counts of what the caps left out)."""
    dag = _Dag(answer)
    info = {e.entity: (bucket, e) for key, bucket in reversed(_BUCKET_OF)
            for e in getattr(answer, key)}
    code, skipped = _choose(answer, dag, settings.html_graph_nodes)
    nodes = [_code_node(x, answer, dag, info) for x in code]
    drawn = {x: None for x in code}
    edges = _merge((e.src, e.dst, e.why, e.cause) for e in dag.code_edges
                   if e.src in drawn and e.dst in drawn)
    joined = {e["target"] for e in edges}
    seeds = [c.entity for c in answer.changes if c.entity in drawn]
    if seeds:  # an entry the DAG does not reach (co-change, a name the task gives): soft
        edges += _merge(((seeds[0], n["id"], n["causes"][0] if n.get("causes") else "", "")
                         for n in nodes if n["bucket"] in ("must", "may", "low")
                         and n["id"] not in joined), soft=True)
    files = answer.test_files[: settings.html_graph_test_files]
    edges += _test_file_edges(answer, dag, files, drawn)
    rest = answer.test_files[len(files):]
    return {"nodes": nodes + _test_nodes(answer, files), "edges": edges,
            "not_drawn": {"code": skipped, "test_files": len(rest),
                          "tests": sum(g.count for g in rest)}}
