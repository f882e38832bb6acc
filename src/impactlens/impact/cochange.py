"""(d) Git co-change recall (§3.4): the files that historically changed with an edited file.

Pure: a function of the mined history (:class:`impactlens.index.history.CommitRecord`),
the edited files, the task text and the cut date. Deterministic (everything sorted,
ties broken by path).

The formula (exact)
-------------------

Let ``H`` be the commits authored **strictly before** the cut ``T`` (anti-leakage:
``author_time < T``; ``T`` is the working tree's "now", the ``--rev`` commit's
author date, or ``--as-of``). Paths are first mapped to their name at ``T`` by
following the renames recorded in ``H`` (newest first), so a file's history
under an old name counts for it. A *split* — a file moved and its old path written again
later — leaves the history before the move to both files, which are not partners of each
other by those commits (one file then: being edited together says nothing).

A commit ``c`` is *sweeping* when it touched more than
``settings.history_max_files_per_commit`` files (default 50); sweeping commits
are ignored entirely (neither numerator nor denominator), and so are root commits
(no parent: the initial import lists every file as added, which says nothing about
coupling). Every other commit carries a weight ::

    w(c)     = rel(c) · churn(c)              (· σ in f's sums, see above)
    rel(c)   = β + (1 − β) · bm25(msg_c, task) / max_{c' ∈ C_E} bm25(msg_c', task)
    churn(c) = min(1, log2(3) / log2(1 + |files(c)|))

``bm25`` is Okapi BM25 (``rank_bm25.BM25Okapi``, k1 = 1.5, b = 0.75) of the commit
message against the task text, with document statistics over every commit in ``H``;
``C_E`` are the commits touching an edited file; ``β = settings.cochange_bm25_floor``
(0.25): a commit whose message shares nothing with the task still counts a quarter
of the best-matching one. With an empty task text (or no term in common with any
message) ``rel(c) = 1`` for every commit: all commits weigh equally. ``churn``
damps large change sets: a 2-file commit weighs 1, a 7-file one 0.53, a 50-file
one 0.28 (single-file commits 1) — a pair that recurs in small, focused commits is
stronger evidence than one that shares a broad commit. Recurrence is the sum.

Symbol level: when the caller names the definitions the edit changes in ``f`` (leaf names,
:func:`edited_symbols`), a commit whose hunks touched one of them in ``f`` (the names
:mod:`impactlens.index.history` mines from ``git log -p -U0``; renamed definitions
followed like renamed files) weighs ``σ = settings.cochange_symbol_weight`` times as much
in ``f``'s sums below: the files that changed with *this function* rank above those that
changed with the rest of its file (a file ranking would otherwise be the same for every
function of a module). σ = 1 is file-level co-change.

For an edited file ``f`` and any other file ``g`` (L = 1: only commits touching
``f`` itself are read, so a partner of a partner never appears) ::

    S(f, g)               = Σ_{c ∈ H, f ∈ c, g ∈ c} w(c)
    co_change_score(f, g) = S(f, g) / ( max_{g'} S(f, g') + κ )

the co-change mass of the pair, normalised by the strongest partner of ``f`` *of the
same kind* (test files — ``test_*.py``, ``*_test.py``, ``conftest.py`` or anything under a
``tests``/``test``/``testing`` directory —, manifests and configuration — ``package.json``,
``tsconfig.json``, which a release or dependency bump changes with every file — and the
code files are normalised separately: a unit's own test file co-changes with nearly every
change of it, a package manifest with every release, and either would otherwise push every
code partner under the §3.7 threshold) and shrunk by
``κ = settings.cochange_prior`` (0.5, in commit-weight units): the top
partner scores 2/3 with one shared focused commit, 0.8 with two, 0.95 with ten, so
thin evidence never looks certain. (The relative normalisation answers "if this
change spreads, where to"; an absolute P(g | f) would keep every partner of a file
that usually changes alone — a hub such as a checker module — under the §3.7 0.3
threshold, which the real-history bench showed costs most of the recall.) The score
lies in [0, 1) and is **truncated** (not rounded) to ``settings.cochange_decimals``
(4) places; zero scores are dropped.

Per edited file: candidates sorted by score descending (ties: more shared
commits, more lines churned in ``g`` in those commits — when line counts were mined,
``settings.history_line_counts`` — then path), at most
``settings.max_cochange_candidates`` (40). The edited files themselves are never
candidates of one another, and when an ``exists`` filter is given (the files of
the index at the change) partners that no longer exist are dropped before the cap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from impactlens.impact.classify import classify
from impactlens.index.discover import is_test_file
from impactlens.index.history import CommitRecord
from impactlens.settings import DEFAULT, Settings

__all__ = ["CoChange", "co_change", "edited_symbols", "tokenize"]

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP_WORDS = (
    "a an and are as at be by for from has have in into is it its of on or that the this "
    "to was were will with when which not no do does can should would we you i"
)
_STOP = frozenset(_STOP_WORDS.split())
_LOG2_3 = math.log2(3)
_TEST_DIRS = frozenset({"tests", "test", "testing"})
_MANIFEST_SUFFIXES = (".json", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".lock")


@dataclass(frozen=True, slots=True)
class CoChange:
    """The §3.4 output: per edited file, ``(partner, co_change_score)`` best first."""

    candidates: Mapping[str, tuple[tuple[str, float], ...]]
    commits_used: int  # commits before the cut that can form pairs
    sweeping: int  # commits before the cut excluded as sweeping
    cut: int
    note: str

    def as_dict(self) -> dict[str, list[tuple[str, float]]]:
        return {f: list(v) for f, v in sorted(self.candidates.items())}


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; identifiers split at ``_``/``.``/camel-case; stop words out."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        tok = m.group(0).lower()
        if len(tok) < 2 or tok in _STOP:
            continue
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.append(tok)
    return out


@dataclass(frozen=True, slots=True)
class _Named:
    """A commit with its files named as at the cut: lines churned and definitions touched;
    ``origin`` maps each name to the path the commit wrote (a split file's history is read
    under two names, which are not partners of each other in that commit)."""

    commit: CommitRecord
    churn: dict[str, int]
    symbols: dict[str, frozenset[str]]
    origin: dict[str, str]


def _names_at_cut(commits: Sequence[CommitRecord], later: Sequence[CommitRecord] = ()
                   ) -> list[_Named]:
    """Each commit (oldest first) with its files and their touched definitions named as at
    the cut: renames of files, and of definitions within a file, are followed newest first,
    so an old name maps to the name at the cut — or, given the commits ``later`` than the
    cut, to the name the tree under analysis has (their renames only: none of their pairs).

    A *split* — a file moved away and its path written again by a later commit (flask moved
    ``app.py`` to ``sansio/app.py``, then re-created ``app.py`` with half of it) — leaves
    both paths heirs to the old history: the commits before the move count for both."""
    alias: dict[str, tuple[str, ...]] = {}
    sym_alias: dict[tuple[str, str], str] = {}  # (file at the cut, old def name) → name
    written: set[str] = set()  # paths written by the commits newer than the one at hand
    for c in sorted(later, key=lambda c: (c.author_time, c.sha), reverse=True):
        _follow(c, alias, sym_alias, written)
    out: list[_Named] = []
    for c in reversed(commits):
        churn: dict[str, int] = {}
        symbols: dict[str, frozenset[str]] = {}
        origin: dict[str, str] = {}
        for f in c.files:
            for name in alias.get(f.path, (f.path,)):
                churn[name] = churn.get(name, 0) + max(0, f.added) + max(0, f.deleted)
                touched = {sym_alias.get((name, s), s) for s in f.symbols}
                symbols[name] = symbols.get(name, frozenset()) | touched
                origin[name] = f.path
        out.append(_Named(c, churn, symbols, origin))
        _follow(c, alias, sym_alias, written)
    out.reverse()
    return out


def _follow(c: CommitRecord, alias: dict[str, tuple[str, ...]],
            sym_alias: dict[tuple[str, str], str], written: set[str]) -> None:
    """Fold commit ``c``'s file and definition renames into the name maps (newest first)."""
    for f in c.files:
        names = alias.get(f.path, (f.path,))
        for name in names:
            for old, new in f.renamed:
                sym_alias[(name, old)] = sym_alias.get((name, new), new)
        if f.old_path and f.old_path != f.path:
            kept = alias.get(f.old_path, (f.old_path,)) if f.old_path in written else ()
            alias[f.old_path] = tuple(dict.fromkeys((*names, *kept)))
    written.update(f.path for f in c.files)


def _is_test(path: str) -> bool:
    p = PurePosixPath(path)
    return is_test_file(path) or any(part in _TEST_DIRS for part in p.parts[:-1])


def _kind(path: str) -> str:
    """The group a partner's score is normalised within: tests, manifests, code."""
    if _is_test(path):
        return "test"
    return "manifest" if path.endswith(_MANIFEST_SUFFIXES) else "code"


def _truncate(x: float, decimals: int) -> float:
    scale = 10**decimals
    return math.floor(round(x * scale, 6)) / scale


def co_change(
    commits: Iterable[CommitRecord],
    edited: Iterable[str],
    *,
    task: str = "",
    cut: int,
    settings: Settings = DEFAULT,
    exists: Callable[[str], bool] | None = None,
    symbols: Mapping[str, Iterable[str]] | None = None,
    renamed_since: Sequence[CommitRecord] = (),
    undated: bool = False,
) -> CoChange:
    """Co-change candidates of every edited file from the commits authored before ``cut``
    (``undated``: the cut is the time of the run, and the note says "now");
    ``symbols`` names, per edited file, the definitions the edit changes (leaf names).
    Partners are named as at the cut, or, with ``renamed_since`` (the commits from the cut
    to the tree under analysis, which ``exists`` checks), as that tree names them: those
    commits count for nothing but their renames."""
    edited_set = sorted(set(edited))
    before = sorted((c for c in commits if c.author_time < cut),
                    key=lambda c: (c.author_time, c.sha))
    cap = settings.history_max_files_per_commit
    named = _names_at_cut(before, [c for c in renamed_since if c.author_time >= cut])
    # a root commit's diff is the whole initial import: no evidence of coupling
    usable = [n for n in named if n.churn and n.commit.n_files <= cap and n.commit.parents]
    sweeping = sum(1 for n in named if n.commit.n_files > cap)
    roots = sum(1 for n in named if n.churn and n.commit.n_files <= cap and not n.commit.parents)
    targets = set(edited_set)
    relevant = [(i, n) for i, n in enumerate(usable) if targets & n.churn.keys()]
    rel = _relevance(usable, relevant, task, settings)
    seeds = {f: frozenset(v) for f, v in (symbols or {}).items()}

    out: dict[str, tuple[tuple[str, float], ...]] = {}
    on_symbol = 0
    for f in edited_set:
        num: dict[str, float] = {}
        shared: dict[str, int] = {}
        lines: dict[str, int] = {}
        for i, n in relevant:
            if f not in n.churn:
                continue
            w = rel[i] * min(1.0, _LOG2_3 / math.log2(1 + len(n.commit.files)))
            if seeds.get(f, frozenset()) & n.symbols.get(f, frozenset()):
                w *= settings.cochange_symbol_weight  # it changed the same definition
                on_symbol += 1
            for g, churned in n.churn.items():
                if g == f or g in targets or n.origin[g] == n.origin[f]:
                    continue
                num[g] = num.get(g, 0.0) + w
                shared[g] = shared.get(g, 0) + 1
                lines[g] = lines.get(g, 0) + churned
        kept = {g: x for g, x in num.items() if exists is None or exists(g)}
        out[f] = _ranked(kept, shared, lines, settings)

    when = "now" if undated else (
        datetime.fromtimestamp(cut, UTC).strftime("%Y-%m-%d %H:%M") + " UTC")
    weighted = "task-weighted (BM25)" if tokenize(task) else "no task text: commits weigh equally"
    note = (f"co-change: {len(usable)} commits before {when}"
            f"{f' ({sweeping} sweeping excluded)' if sweeping else ''}"
            f"{f' ({roots} root commit(s) excluded)' if roots else ''}, "
            f"{len(relevant)} touch the edited files"
            f"{f' ({on_symbol} the edited definitions)' if seeds else ''}; "
            f"{weighted}")
    return CoChange(candidates=out, commits_used=len(usable), sweeping=sweeping, cut=cut,
                    note=note)


def _relevance(usable: Sequence[_Named], relevant: Sequence[tuple[int, _Named]], task: str,
               settings: Settings) -> list[float]:
    """rel(c): BM25 of the message against the task, over every usable commit's message."""
    rel = [1.0] * len(usable)
    query = sorted(set(tokenize(task)))
    if not query or not relevant:
        return rel
    docs = [tokenize(n.commit.message) for n in usable]
    if not any(docs):  # no message has a word BM25 could weigh (and rank_bm25 divides by 0)
        return rel
    from rank_bm25 import BM25Okapi  # (numpy): only where a task text weighs commits

    bm25 = BM25Okapi(docs)
    idx = [i for i, _ in relevant]
    scores = [max(0.0, s) for s in bm25.get_batch_scores(query, idx)]
    top = max(scores)
    if top > 0:
        beta = settings.cochange_bm25_floor
        for i, s in zip(idx, scores, strict=True):
            rel[i] = beta + (1.0 - beta) * s / top
    return rel


def _ranked(num: Mapping[str, float], shared: Mapping[str, int], lines: Mapping[str, int],
            settings: Settings) -> tuple[tuple[str, float], ...]:
    """Partners normalised per kind (test / manifest / code), truncated, best first,
    capped."""
    kinds = {g: _kind(g) for g in num}
    top: dict[str, float] = {}
    for g, x in num.items():
        top[kinds[g]] = max(top.get(kinds[g], 0.0), x)
    ranked: list[tuple[float, int, int, str]] = []
    for g, x in num.items():
        score = _truncate(x / (top[kinds[g]] + settings.cochange_prior),
                          settings.cochange_decimals)
        if score > 0:
            ranked.append((score, shared[g], lines[g], g))
    ranked.sort(key=lambda t: (-t[0], -t[1], -t[2], t[3]))
    return tuple((g, sc) for sc, _, _, g in ranked[: settings.max_cochange_candidates])


def edited_symbols(changes: Iterable[Any], module_of: Callable[[str], str],
                   settings: Settings = DEFAULT) -> dict[str, set[str]]:
    """Per changed file (``FileChange``: ``path, before, after``), the leaf names of the
    functions, methods and classes the edit changes — §3.1's classification, so the channel
    weighs the same entities the stage analyses."""
    out: dict[str, set[str]] = {}
    for f in changes:
        for ch in classify(f.before, f.after, f.path, module_of(f.path), settings):
            if ch.kind in ("function", "method", "class"):
                out.setdefault(f.path, set()).add(ch.entity.rsplit(".", 1)[-1])
    return out
