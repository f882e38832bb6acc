"""Text relevance of the candidate files (part of the §3.6 lexical soft-rank channel).

The triage admits candidates by evidence (hard edges, co-change, the test map) and
reports a confidence for each; which of the admitted files this edit is *about* is a
separate question. A co-change partner list is much the same for every edit of a file
(``core.py`` changes with ``types.py``, ``decorators.py``, ``parser.py`` … whatever the
edit), while two texts name what this edit is for: the task ("add a NoSuchCommand
exception", "support show_default in prompts") and the edit itself — the lines it wrote
and replaced name the helpers, attributes and options it works with, and the files that
define or use those names are the ones likely to change with it (conceptual coupling, the
information-retrieval measure of Poshyvanyk & Marcus, here of the change, not the file).

``relevance(f)`` is BM25+ (``rank_bm25.BM25Plus``) of a text against ``f``'s
identifiers — the identifier tokens the index keeps for each definition of ``f`` (its
name, signature, the names it uses) — with the candidate files as the corpus, less the
constant BM25+ credits every file for each query term it lacks, divided by the best
candidate's score: a value in [0, 1], 4 decimals, absent when the text shares no term
with any candidate. BM25+ because its IDF ``log((N + 1) / n)`` stays positive in a corpus
of a few files, where Okapi's is 0 for a term half the files share; terms every candidate
has (``self``, ``return``) weigh least. Within MUST-INSPECT and within MAY-IMPACT, entries
are ordered by ``conf + settings.task_relevance_weight · relevance(task) +
settings.edit_relevance_weight · relevance(edit)`` (the reported ``conf`` is unchanged;
buckets never change). Deterministic; no model.

The weights were chosen on the development repositories only (itsdangerous, markupsafe,
pyflakes, flask); `impactlens bench history` measures them (bench/README.md,
"Real-history evaluation").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from impactlens.impact.cochange import tokenize
from impactlens.model import GraphView

if TYPE_CHECKING:
    from rank_bm25 import BM25Plus

__all__ = ["relevance", "relevances"]


def relevance(graph: GraphView, text: str, files: Iterable[str]) -> dict[str, float]:
    """BM25 of ``text`` against each of ``files``' identifiers, normalised by the best
    (files with a zero score are left out)."""
    return relevances(graph, [text], files)[0]


def relevances(graph: GraphView, texts: Sequence[str], files: Iterable[str]
               ) -> list[dict[str, float]]:
    """:func:`relevance` of each of ``texts``, the candidate files' documents read once."""
    queries = [sorted(set(tokenize(t))) for t in texts]
    paths = sorted(set(files))
    if not any(queries) or len(paths) < 2:
        return [{} for _ in texts]
    from rank_bm25 import BM25Plus  # (numpy): only where a text is ranked against files

    bm25 = BM25Plus([_document(graph, p) for p in paths])
    return [_scores(bm25, q, paths) if q else {} for q in queries]


def _scores(bm25: BM25Plus, query: list[str], paths: list[str]) -> dict[str, float]:
    # BM25+ credits every document δ·idf for each query term it lacks: the same for all,
    # so it is taken off, and a file sharing no term with the text scores 0
    floor = bm25.delta * sum(bm25.idf.get(q, 0.0) for q in query)
    scores = [max(0.0, s - floor) for s in bm25.get_scores(query)]
    top = max(scores)
    if top <= 1e-9:
        return {}
    return {p: round(s / top, 4) for p, s in zip(paths, scores, strict=True) if s > 1e-9}


def _document(graph: GraphView, path: str) -> list[str]:
    words = tokenize(" ".join(t for n in graph.nodes_in_file(path) for t in n.ids))
    return words or ["_"]  # BM25 divides by document length
