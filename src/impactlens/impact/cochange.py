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
under an old name counts for it.

A commit ``c`` is *sweeping* when it touched more than
``settings.history_max_files_per_commit`` files (default 50); sweeping commits
are ignored entirely (neither numerator nor denominator), and so are root commits
(no parent: the initial import lists every file as added, which says nothing about
coupling). Every other commit carries a weight ::

    w(c)     = rel(c) · churn(c)
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

For an edited file ``f`` and any other file ``g`` (L = 1: only commits touching
``f`` itself are read, so a partner of a partner never appears) ::

    S(f, g)               = Σ_{c ∈ H, f ∈ c, g ∈ c} w(c)
    co_change_score(f, g) = S(f, g) / ( max_{g'} S(f, g') + κ )

the co-change mass of the pair, normalised by the strongest partner of ``f`` *of the
same kind* (test files — ``test_*.py``, ``*_test.py``, ``conftest.py`` or anything under a
``tests``/``test``/``testing`` directory — and the other files are normalised
separately: a unit's own test file co-changes with nearly every change of it and would
otherwise push every code partner under the §3.7 threshold) and shrunk by
``κ = settings.cochange_prior`` (0.5, in commit-weight units): the top
partner scores 2/3 with one shared focused commit, 0.8 with two, 0.95 with ten, so
thin evidence never looks certain. (The relative normalisation answers "if this
change spreads, where to"; an absolute P(g | f) would keep every partner of a file
that usually changes alone — a hub such as a checker module — under the §3.7 0.3
threshold, which the real-history bench showed costs most of the recall.) The score
lies in [0, 1) and is **truncated** (not rounded) to ``settings.cochange_decimals``
(4) places; zero scores are dropped.

Per edited file: candidates sorted by score descending (ties: more shared
commits, more lines churned in ``g`` in those commits, then path), at most
``settings.max_cochange_candidates`` (40). The edited files themselves are never
candidates of one another, and when an ``exists`` filter is given (the files of
the index at the change) partners that no longer exist are dropped before the cap.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import PurePosixPath

from rank_bm25 import BM25Okapi

from impactlens.errors import BadInputError
from impactlens.index.discover import is_test_file
from impactlens.index.history import CommitRecord
from impactlens.settings import DEFAULT, Settings

__all__ = ["CoChange", "co_change", "cut_time", "tokenize"]

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP_WORDS = (
    "a an and are as at be by for from has have in into is it its of on or that the this "
    "to was were will with when which not no do does can should would we you i"
)
_STOP = frozenset(_STOP_WORDS.split())
_LOG2_3 = math.log2(3)
_TEST_DIRS = frozenset({"tests", "test", "testing"})


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


def cut_time(as_of: object = None) -> int:
    """The anti-leakage cut as epoch seconds: ``None`` = now; an int/float epoch; a
    ``datetime``/``date`` (naive = UTC); or text: ``@EPOCH``, ``YYYY-MM-DD`` or ISO 8601."""
    if as_of is None:
        return int(time.time())
    if isinstance(as_of, bool):
        raise BadInputError(f"--as-of: not a date: {as_of!r}")
    if isinstance(as_of, int | float):
        return int(as_of)
    if isinstance(as_of, datetime):
        dt = as_of if as_of.tzinfo else as_of.replace(tzinfo=UTC)
        return int(dt.timestamp())
    if isinstance(as_of, date):
        return int(datetime(as_of.year, as_of.month, as_of.day, tzinfo=UTC).timestamp())
    text = str(as_of).strip()
    if text.startswith("@") and text[1:].lstrip("-").isdigit():
        return int(text[1:])
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadInputError(
            f"--as-of: cannot read {text!r} as a date (use YYYY-MM-DD, ISO 8601 or @EPOCH)"
        ) from None
    return cut_time(dt)


def _names_at_cut(
    commits: Sequence[CommitRecord],
) -> list[tuple[CommitRecord, dict[str, int]]]:
    """Each commit (oldest first) with ``{name at the cut: lines churned}`` of its files;
    renames are followed newest first, so an old name maps to the file's name at the cut."""
    alias: dict[str, str] = {}
    out: list[tuple[CommitRecord, dict[str, int]]] = []
    for c in reversed(commits):
        names: dict[str, int] = {}
        for f in c.files:
            name = alias.get(f.path, f.path)
            names[name] = names.get(name, 0) + max(0, f.added) + max(0, f.deleted)
        out.append((c, names))
        for f in c.files:
            if f.old_path and f.old_path != f.path:
                alias[f.old_path] = alias.get(f.path, f.path)
    out.reverse()
    return out


def _is_test(path: str) -> bool:
    p = PurePosixPath(path)
    return is_test_file(path) or any(part in _TEST_DIRS for part in p.parts[:-1])


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
) -> CoChange:
    """Co-change candidates of every edited file from the commits authored before ``cut``."""
    edited_set = sorted(set(edited))
    before = sorted((c for c in commits if c.author_time < cut),
                    key=lambda c: (c.author_time, c.sha))
    cap = settings.history_max_files_per_commit
    named = _names_at_cut(before)
    # a root commit's diff is the whole initial import: no evidence of coupling
    usable = [(c, names) for c, names in named if names and c.n_files <= cap and c.parents]
    sweeping = sum(1 for c, names in named if c.n_files > cap)
    roots = sum(1 for c, names in named if names and c.n_files <= cap and not c.parents)
    targets = set(edited_set)
    relevant = [(i, c, names) for i, (c, names) in enumerate(usable) if targets & names.keys()]

    # rel(c): BM25 of the message against the task, over every usable commit's message
    rel = [1.0] * len(usable)
    query = sorted(set(tokenize(task)))
    if query and relevant:
        bm25 = BM25Okapi([tokenize(c.message) for c, _ in usable])
        idx = [i for i, _, _ in relevant]
        scores = [max(0.0, s) for s in bm25.get_batch_scores(query, idx)]
        top = max(scores)
        if top > 0:
            beta = settings.cochange_bm25_floor
            for i, s in zip(idx, scores, strict=True):
                rel[i] = beta + (1.0 - beta) * s / top

    out: dict[str, tuple[tuple[str, float], ...]] = {}
    for f in edited_set:
        num: dict[str, float] = {}
        shared: dict[str, int] = {}
        lines: dict[str, int] = {}
        for i, _c, names in relevant:
            if f not in names:
                continue
            w = rel[i] * min(1.0, _LOG2_3 / math.log2(1 + len(names)))
            for g, churned in names.items():
                if g == f or g in targets:
                    continue
                num[g] = num.get(g, 0.0) + w
                shared[g] = shared.get(g, 0) + 1
                lines[g] = lines.get(g, 0) + churned
        ranked: list[tuple[float, int, int, str]] = []
        kept = {g: n for g, n in num.items() if exists is None or exists(g)}
        top = {kind: max((n for g, n in kept.items() if _is_test(g) == kind), default=0.0)
               for kind in (False, True)}
        for g, n in kept.items():
            score = _truncate(n / (top[_is_test(g)] + settings.cochange_prior),
                              settings.cochange_decimals)
            if score > 0:
                ranked.append((score, shared[g], lines[g], g))
        ranked.sort(key=lambda t: (-t[0], -t[1], -t[2], t[3]))
        out[f] = tuple((g, s) for s, _, _, g in ranked[: settings.max_cochange_candidates])

    when = datetime.fromtimestamp(cut, UTC).strftime("%Y-%m-%d %H:%M")
    note = (f"co-change: {len(usable)} commits before {when} UTC"
            f"{f' ({sweeping} sweeping excluded)' if sweeping else ''}"
            f"{f' ({roots} root commit(s) excluded)' if roots else ''}, "
            f"{len(relevant)} touch the edited files; "
            f"{'task-weighted (BM25)' if query else 'no task text: commits weigh equally'}")
    return CoChange(candidates=out, commits_used=len(usable), sweeping=sweeping, cut=cut,
                    note=note)
