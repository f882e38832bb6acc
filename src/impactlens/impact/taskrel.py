"""Task-text relevance of the candidate files (part of the §3.6 lexical soft-rank channel).

The triage admits candidates by evidence (hard edges, co-change, the test map) and
reports a confidence for each; which of the admitted files the task is *about* is a
separate question. A co-change partner list is much the same for every edit of a file
(``core.py`` changes with ``types.py``, ``decorators.py``, ``parser.py`` … whatever the
edit), while the task text names what this edit is for ("add a NoSuchCommand
exception", "support show_default in prompts").

``relevance(f)`` is BM25+ (``rank_bm25.BM25Plus``) of the task text against ``f``'s
identifiers — the identifier tokens the index keeps for each definition of ``f`` (its
name, signature, the names it uses) — with the candidate files as the corpus, less the
constant BM25+ credits every file for each query term it lacks, divided by the best
candidate's score: a value in [0, 1], 4 decimals, absent when the task shares no term
with any candidate. BM25+ because its IDF ``log((N + 1) / n)`` stays positive in a corpus
of a few files, where Okapi's is 0 for a term half the files share. Within MUST-INSPECT
and within MAY-IMPACT, entries are ordered by ``conf + settings.task_relevance_weight ·
relevance`` (the reported ``conf`` is unchanged; buckets never change). Deterministic;
no model.

The weight (1.0) was chosen on the development repositories only (itsdangerous,
markupsafe, pyflakes, flask); on the evaluation repositories it raised R@3 on click and
attrs and lowered R@1 there (bench/README.md, "Real-history evaluation").
"""

from __future__ import annotations

from collections.abc import Iterable

from rank_bm25 import BM25Plus

from impactlens.impact.cochange import tokenize
from impactlens.model import GraphView

__all__ = ["relevance"]


def relevance(graph: GraphView, task: str, files: Iterable[str]) -> dict[str, float]:
    """BM25 of ``task`` against each of ``files``' identifiers, normalised by the best
    (files with a zero score are left out)."""
    query = sorted(set(tokenize(task)))
    paths = sorted(set(files))
    if not query or len(paths) < 2:
        return {}
    bm25 = BM25Plus([_document(graph, p) for p in paths])
    # BM25+ credits every document δ·idf for each query term it lacks: the same for all,
    # so it is taken off, and a file sharing no term with the task scores 0
    floor = bm25.delta * sum(bm25.idf.get(q, 0.0) for q in query)
    scores = [max(0.0, s - floor) for s in bm25.get_scores(query)]
    top = max(scores)
    if top <= 1e-9:
        return {}
    return {p: round(s / top, 4) for p, s in zip(paths, scores, strict=True) if s > 1e-9}


def _document(graph: GraphView, path: str) -> list[str]:
    words = tokenize(" ".join(t for n in graph.nodes_in_file(path) for t in n.ids))
    return words or ["_"]  # BM25 divides by document length
