"""The answer as JSON: the ``impact.json`` object, cut to what a surface shows.

Every key of the complete object is present in every cut; a list that is cut says how
much is missing under ``omitted`` (``{"may_impact": 312, ...}``), and ``complete`` is
true only when nothing is.
"""

from __future__ import annotations

import json
from typing import Any

from impactlens.answer.build import Answer
from impactlens.answer.fit import Cut, fit, full_cut, omitted
from impactlens.impact.tokens import count_tokens
from impactlens.model import ImpactDag
from impactlens.settings import DEFAULT, Settings

__all__ = ["answer_json", "budgeted_json", "json_text"]


def _dag(dag: ImpactDag, keep: int) -> dict[str, Any]:
    if keep >= len(dag.nodes):
        return dag.to_json()
    nodes = dag.nodes[:keep]
    names = {n.entity for n in nodes}
    edges = [e for e in dag.edges if e.src in names and e.dst in names]
    out = ImpactDag(nodes, tuple(edges), True, dag.omitted_nodes + len(dag.nodes) - keep,
                    dag.omitted_edges + len(dag.edges) - len(edges), dag.tokens)
    return out.to_json()


def _cochange(answer: Answer, keep: int) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for f, g, s in answer.co_change[:keep]:
        out.setdefault(f, []).append({"file": g, "co_change_score": s})
    return out


def answer_json(answer: Answer, cut: Cut) -> dict[str, Any]:
    """The impact.json object of ``answer`` showing ``cut`` of each section."""
    r = answer.result
    n = cut.get
    batches = answer.batches[: n("batches", 0)]
    left_out = omitted(answer, cut)
    return {
        "summary": {"risk": answer.risk, **answer.counts()},
        "seed": r.changes[0].seed_json() if r.changes else None,
        "changes": [c.to_json() for c in answer.changes[: n("changes", 0)]],
        "obligations": {
            "change": [{"batch_id": b.batch_id, "members": list(b.members)} for b in batches],
            "validate": list(answer.tests[: n("tests", 0)]),
        },
        "triage": {key: [e.to_json() for e in getattr(answer, key)[: n(key, 0)]]
                   for key in ("must_inspect", "may_impact", "low_risk")},
        "tests": {"count": len(answer.tests),
                  "by_file": [{"file": g.file, "count": g.count}
                              for g in answer.test_files[: n("test_files", 0)]],
                  "note": r.tests_note},
        "batches": [b.to_json() for b in batches],
        "omitted_batches": r.omitted_batches,
        "dag": _dag(r.dag, n("dag", 0)),
        "co_change": {"note": r.co_change_note, "candidates": _cochange(answer, n("co_change", 0))},
        "unanalyzable": [u.to_json() for u in answer.unanalyzable[: n("unanalyzable", 0)]],
        "test_map": [{"file": t.file, "test_id": t.test_id, "conf": t.conf, "via": t.via,
                      "relation": t.relation} for t in r.test_map[: n("test_map", 0)]],
        "tests_note": r.tests_note,
        "impact_sets": [p.to_json() for p in r.per_change[: n("impact_sets", 0)]],
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
