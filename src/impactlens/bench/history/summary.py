"""The cases aggregated: per-method means under the n/a rule, the paired comparison with
each baseline, bootstrap intervals, the regression measure's shares, and the §7.6
ablation verdict per channel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from impactlens.bench.history.baselines import BASELINES
from impactlens.bench.history.evaluate import CHANNELS
from impactlens.bench.history.peer import PEERS
from impactlens.bench.history.results import CaseResult
from impactlens.bench.metrics import (
    Interval,
    bootstrap_mean,
    mean,
    paired_bootstrap,
    precision_at_k,
    recall_at_k,
    score_sets,
)
from impactlens.index.recording import base_test_id

KS = (1, 3, 5)
NOISE = 0.05  # §7.6: |Δ| ≤ 5 % (absolute, on [0, 1] metrics) is noise
# what the §7.6 rule votes on: impact recall/precision (file and symbol level, and the
# ranked heads the issue adds) and the regression rate's proxy, the breaking tests caught
ABLATION_KEYS = ("recall", "precision", "f1", "r@3", "p@3", "sym_recall", "sym_precision",
                 "breaking_caught")
# p@n / f1@n: the stage cut to the baseline's own prediction count on each case (matched size)
PAIRED = ("p@1", "r@1", "p@3", "r@3", "p@5", "r@5", "f1", "p@n", "f1@n")
_CI = ("r@1", "p@1", "r@3", "p@3", "f1")


def _f(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def summarize(results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    """Per-method means (the n/a rule), the paired comparison with each baseline, the
    §7.6 ablation verdicts and timings. ``intervals``: also the 95 % bootstrap intervals
    (the stage's ``ci`` and each paired ``diff``; a run's progress writes skip them)."""
    methods = sorted({m for r in results for m in r.methods},
                     key=lambda m: (m != "stage", m.startswith("-"), m))
    out: dict[str, Any] = {"cases": len(results), "methods": {}}
    for m in methods:
        rows = [r for r in results if m in r.methods]
        row = _file_row(m, rows) | _symbol_row(m, rows) | _regression_row(m, rows)
        if m == "stage" and intervals:
            row["ci"] = _stage_intervals(rows)
        out["methods"][m] = row
    out["paired"] = _paired(results, intervals=intervals)
    full = out["methods"].get("stage")
    if full:
        out["ablation"] = _ablation(out["methods"], full)
    out["timing"] = {
        "index_s": _f(mean(r.seconds_index for r in results)),
        "stage_s": _f(mean(r.seconds_stage for r in results)),
    }
    return out


def _file_row(m: str, rows: Sequence[CaseResult]) -> dict[str, Any]:
    """Method ``m``'s file-level means over ``rows``, the cases it ran on."""
    fs = [score_sets(r.methods[m].files, r.gold_files) for r in rows]
    row: dict[str, Any] = {
        "recall": _f(mean(s.recall for s in fs)),
        "precision": _f(mean(s.precision for s in fs)),
        "f1": _f(mean(s.f1 for s in fs)),
        "predicted_files": _f(mean(float(len(r.methods[m].files)) for r in rows)),
        "answered": _f(mean(1.0 if r.methods[m].files else 0.0 for r in rows)),
    }
    for k in KS:
        row[f"p@{k}"] = _f(mean(precision_at_k(r.methods[m].files, r.gold_files, k)
                                for r in rows))
        row[f"r@{k}"] = _f(mean(recall_at_k(r.methods[m].files, r.gold_files, k)
                                for r in rows))
    # matched size: cut to the stage's prediction count on the same case
    matched: list[float | None] = []
    for r in rows:
        n = len(r.methods["stage"].files) if "stage" in r.methods else 0
        if n == 0:
            matched.append(None)
            continue
        s = score_sets(r.methods[m].files[:n], r.gold_files)
        matched.append(s.f1)
    row["f1@matched"] = _f(mean(matched))
    dists = [d for r in rows for d in r.dist.get(m, [])]
    reach = [d for d in dists if d is not None]
    row["distance"] = _f(mean(float(d) for d in reach))
    row["unreachable"] = _f(None if not dists else (len(dists) - len(reach)) / len(dists))
    return row


def _symbol_row(m: str, rows: Sequence[CaseResult]) -> dict[str, Any]:
    """Symbol-level means, over the cases where ``m`` predicts symbols."""
    srows = [r for r in rows if r.methods[m].symbols is not None]
    if not srows:
        return {}
    ss = [score_sets(r.methods[m].symbols or [], r.gold_symbols) for r in srows]
    row: dict[str, Any] = {
        "sym_recall": _f(mean(s.recall for s in ss)),
        "sym_precision": _f(mean(s.precision for s in ss)),
        "sym_f1": _f(mean(s.f1 for s in ss)),
    }
    for k in (1, 3):
        row[f"sym_p@{k}"] = _f(mean(
            precision_at_k(r.methods[m].symbols or [], r.gold_symbols, k) for r in srows))
    return row


def _regression_row(m: str, rows: Sequence[CaseResult]) -> dict[str, Any]:
    """The regression measure of ``m``'s test selection, over the cases whose suite ran."""
    trows = [r for r in rows if r.breaking is not None and r.methods[m].tests is not None]
    if not trows:
        return {}
    caught = total = 0
    per: list[float | None] = []
    ratios: list[float | None] = []
    least: list[float | None] = []  # the smallest selection that catches them all
    for r in trows:
        sel = {base_test_id(t) for t in r.methods[m].tests or []}
        if r.suite:  # a selected id the suite does not collect cannot run
            sel &= set(r.suite)
        brk = {base_test_id(t) for t in r.breaking or []}
        caught += len(brk & sel)
        total += len(brk)
        per.append(None if not brk else len(brk & sel) / len(brk))
        ratios.append(None if not r.all_tests else len(sel) / r.all_tests)
        least.append(None if not r.all_tests else len(brk) / r.all_tests)
    return {
        "breaking_caught": _f(None if total == 0 else caught / total),
        "breaking_caught_macro": _f(mean(per)),
        "breaking_tests": total,
        "cases_run": len(trows),  # the suite ran at the parent and seeded
        "cases_with_breaking": sum(1 for p in per if p is not None),
        "selection_ratio": _f(mean(ratios)),
        "least_selection": _f(mean(least)),
    }


def _ablation(methods: Mapping[str, dict[str, Any]], full: Mapping[str, Any]
              ) -> dict[str, Any]:
    """§7.6: each channel's removal against the full stage, and its verdict."""
    abl: dict[str, Any] = {}
    for ch in CHANNELS:
        row = methods.get(f"-{ch}")
        if row is None:
            continue
        deltas = {}
        for key in ABLATION_KEYS:
            a, b = row.get(key), full.get(key)
            deltas[key] = None if a is None or b is None else round(a - b, 4)
        verdict = ablation_verdict(deltas)
        a, b = row.get("selection_ratio"), full.get("selection_ratio")
        # shown, not voted: a smaller selection is not better or worse by itself
        deltas["selection_ratio"] = None if a is None or b is None else round(a - b, 4)
        abl[ch] = {"deltas": deltas, "verdict": verdict}
    return abl


def ablation_verdict(deltas: Mapping[str, float | None]) -> str:
    """§7.6's mechanical rule on ``deltas`` (without the channel − with it; every metric
    higher-is-better): a channel is deleted iff its removal moves none of them beyond
    :data:`NOISE`. The verdict also says which way it moved: ``keep`` (removal only
    lowers), ``keep (mixed)`` (some up, some down), ``delete (hurts)`` (removal only
    raises: kept by the letter, harmful in fact). Without the regression measure
    (``breaking_caught`` unmeasured) a channel whose removal lowers nothing is
    ``undecided``: the rule needs the regression rate too."""
    down = any(d is not None and d < -NOISE for d in deltas.values())
    up = any(d is not None and d > NOISE for d in deltas.values())
    if down:
        return "keep (mixed)" if up else "keep"
    if deltas.get("breaking_caught") is None:  # no deletion without the regression rate
        return f"undecided ({'removal helps' if up else 'noise'}; regression not measured)"
    return "delete (hurts)" if up else "delete (noise)"


def _stage_intervals(rows: Sequence[CaseResult]) -> dict[str, list[float]]:
    """The 95 % bootstrap interval [lo, hi] of the stage's mean, per metric of ``_CI``."""
    out: dict[str, list[float]] = {}
    for k in _CI:
        iv = bootstrap_mean(_metric(r.methods["stage"].files, r.gold_files, k, 0)
                            for r in rows)
        if iv is not None:
            out[k] = [round(iv.lo, 4), round(iv.hi, 4)]
    return out


def _paired(results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    """Each baseline against the stage on the same cases, those both answer (the unpaired
    means skip the cases a method leaves empty — the n/a rule — so a method that rarely
    answers can look precise next to one that always does). ``diff`` holds, per metric,
    the mean stage − baseline difference, its 95 % paired bootstrap interval and the
    verdict it supports (``ahead``/``behind`` when the interval excludes 0, else ``tie``)."""
    out: dict[str, Any] = {}
    for b in (*BASELINES, *PEERS):
        rows = [r for r in results if r.gold_files and all(
            m in r.methods and r.methods[m].files for m in ("stage", b))]
        if not rows:
            continue
        values = {m: {k: [_metric(r.methods[m].files, r.gold_files, k,
                                  len(r.methods[b].files)) for r in rows]
                      for k in PAIRED} for m in ("stage", b)}
        out[b] = {"cases": len(rows)} | {
            m: {k: _f(mean(v)) for k, v in values[m].items()} for m in ("stage", b)}
        if intervals:
            diff = {k: paired_bootstrap(values["stage"][k], values[b][k]) for k in PAIRED}
            out[b]["diff"] = {k: _verdict(d) for k, d in diff.items() if d is not None}
    return out


def _verdict(d: Interval) -> dict[str, Any]:
    return d.as_dict() | {"verdict": d.verdict}


def _metric(files: Sequence[str], gold: Sequence[str], key: str, n: int) -> float | None:
    """One paired metric of a ranked list; ``@n`` keys keep its first ``n`` files."""
    if key == "f1@n":
        return score_sets(files[:n], gold).f1
    if key == "p@n":
        return precision_at_k(files, gold, n)
    if key == "f1":
        return score_sets(files, gold).f1
    k = int(key[2:])
    return precision_at_k(files, gold, k) if key[0] == "p" else recall_at_k(files, gold, k)
