"""The answer as JSON: the ``impact.json`` object, cut to what a surface shows.

Every key of the complete object is present in every cut; a list that is cut says how
much is missing under ``omitted`` (``{"may_impact": 312, ...}``), and ``complete`` is
true only when nothing is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from impactlens.answer.build import Answer, build_answer
from impactlens.answer.fit import ORDER, Cut, fit, full_cut, omitted
from impactlens.impact.token_count import count_tokens
from impactlens.model import DagNode, ImpactDag, ImpactResult
from impactlens.settings import DEFAULT, Settings

__all__ = ["answer_json", "budgeted_json", "json_text", "page"]

T = TypeVar("T")


def _dag(dag: ImpactDag, nodes: Sequence[DagNode]) -> dict[str, Any]:
    """``dag`` with only ``nodes`` and the edges between them (the rest counted)."""
    if len(nodes) == len(dag.nodes):
        return dag.to_json()
    names = {n.entity for n in nodes}
    edges = [e for e in dag.edges if e.src in names and e.dst in names]
    out = ImpactDag(tuple(nodes), tuple(edges), True,
                    dag.omitted_nodes + len(dag.nodes) - len(nodes),
                    dag.omitted_edges + len(dag.edges) - len(edges), dag.tokens)
    return out.to_json()


def _cochange(rows: Sequence[tuple[str, str, float]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for f, g, s in rows:
        out.setdefault(f, []).append({"file": g, "co_change_score": s})
    return out


def answer_json(answer: Answer, cut: Cut, start: Cut | None = None) -> dict[str, Any]:
    """The impact.json object of ``answer`` showing ``cut`` items of each section (from
    ``start``, a page of the whole; from the first by default)."""
    r = answer.result
    first = start or {}

    def take(seq: Sequence[T], key: str) -> Sequence[T]:
        i = first.get(key, 0)
        return seq[i: i + cut.get(key, 0)]

    batches = take(answer.batches, "batches")
    left_out = omitted(answer, cut) if start is None else {}
    return {
        "summary": {"risk": answer.risk, **answer.counts()},
        "seed": r.changes[0].seed_json() if r.changes else None,
        "changes": [c.to_json() for c in take(answer.changes, "changes")],
        "obligations": {
            "change": [{"batch_id": b.batch_id, "members": list(b.members)} for b in batches],
            "validate": list(take(answer.tests, "tests")),
        },
        "triage": {key: [e.to_json() for e in take(getattr(answer, key), key)]
                   for key in ("must_inspect", "may_impact", "low_risk")},
        "tests": {"count": len(answer.tests),
                  "by_file": [{"file": g.file, "count": g.count}
                              for g in take(answer.test_files, "test_files")],
                  "note": r.tests_note},
        "batches": [b.to_json() for b in batches],
        "omitted_batches": r.omitted_batches,
        "dag": _dag(r.dag, take(r.dag.nodes, "dag")),
        "co_change": {"note": r.co_change_note,
                      "candidates": _cochange(take(answer.co_change, "co_change"))},
        "unanalyzable": [u.to_json() for u in take(answer.unanalyzable, "unanalyzable")],
        "not_analyzed": [n.to_json() for n in r.not_analyzed],  # never cut: a file each
        "test_map": [{"file": t.file, "test_id": t.test_id, "conf": t.conf, "via": t.via,
                      "relation": t.relation} for t in take(r.test_map, "test_map")],
        "tests_note": r.tests_note,
        "impact_sets": [p.to_json() for p in take(r.per_change, "impact_sets")],
        "omitted": left_out,
        "complete": not left_out,
    }


def json_text(obj: Any, *, pretty: bool = True) -> str:
    """``obj`` as JSON text: indented for a person, compact on the wire."""
    if pretty:
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def budgeted_json(answer: Answer, settings: Settings = DEFAULT, *, detail: bool = False,
                  budget: int | None = None, pretty: bool = True) -> dict[str, Any]:
    """The JSON answer within ``budget`` tokens of its text (default
    ``settings.answer_json_tokens``), counted with the tokenizer; ``detail`` = whole."""
    if detail:
        return answer_json(answer, full_cut(answer))
    limit = settings.answer_json_tokens if budget is None else budget

    def size(cut: Cut) -> int:
        text = json_text(answer_json(answer, cut), pretty=pretty)
        return count_tokens(text, settings.tokenizer_encoding)

    return answer_json(answer, fit(answer, size, limit))


def page(answer: Answer, offset: int, size: Callable[[Cut, Cut], int], budget: int
         ) -> tuple[Cut, Cut, int | None]:
    """A page of the whole answer: the sections' items in priority order as one sequence,
    from item ``offset``, as many as fit ``budget`` by ``size(start, cut)`` (at least one).
    Returns ``(start, cut, next offset or None at the end)``."""
    full = full_cut(answer)
    total = sum(full.values())

    def window(count: int) -> tuple[dict[str, int], dict[str, int]]:
        start, cut, pos, left = {}, {}, 0, count
        for name in ORDER:
            lo = max(offset - pos, 0)
            n = max(0, min(full[name] - lo, left)) if offset < pos + full[name] else 0
            start[name], cut[name] = (lo, n) if n else (0, 0)
            left -= n
            pos += full[name]
        return start, cut

    lo, hi = min(1, total - offset), max(0, total - offset)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if size(*window(mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    start, cut = window(lo)
    end = offset + lo
    return start, cut, end if end < total else None


def impact_json_text(result: ImpactResult, settings: Settings = DEFAULT, *,
                     detail: bool = False) -> str:
    """``impact.json``: the answer within its token budget (whole with ``detail``)."""
    return json_text(budgeted_json(build_answer(result), settings, detail=detail))
