"""Pure set metrics shared by every benchmark: precision, recall, F1, means, @k.

Empty denominators are explicit, never silently 0 or 1:

- no predictions  → precision is ``None`` (reported as ``n/a``);
- no ground truth → recall is ``None``;
- F1 is ``None`` whenever precision or recall is; it is 0.0 when both are 0.

A ``None`` is *excluded* from a mean (:func:`mean`), never folded in as 0. Micro
averages sum the counts first (:func:`micro`); macro averages take the mean of
per-item scores (:func:`macro`). Nothing here does I/O.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "NA",
    "Interval",
    "Score",
    "bootstrap_mean",
    "f1",
    "fmt",
    "macro",
    "mean",
    "micro",
    "paired_bootstrap",
    "precision_at_k",
    "ratio",
    "recall_at_k",
    "score_sets",
]

NA = "n/a"


def ratio(num: int | float, den: int | float) -> float | None:
    """``num / den``, or ``None`` for an empty denominator."""
    if den == 0:
        return None
    return num / den


def f1(p: float | None, r: float | None) -> float | None:
    """Harmonic mean of precision and recall; ``None`` if either is undefined."""
    if p is None or r is None:
        return None
    if p + r == 0:
        return 0.0
    return 2 * p * r / (p + r)


@dataclass(frozen=True, slots=True)
class Score:
    """Counts of one comparison between a predicted and a true set."""

    tp: int
    fp: int
    fn: int

    @property
    def predicted(self) -> int:
        return self.tp + self.fp

    @property
    def truth(self) -> int:
        return self.tp + self.fn

    @property
    def precision(self) -> float | None:
        return ratio(self.tp, self.predicted)

    @property
    def recall(self) -> float | None:
        return ratio(self.tp, self.truth)

    @property
    def f1(self) -> float | None:
        return f1(self.precision, self.recall)

    def __add__(self, other: Score) -> Score:
        return Score(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


def score_sets(predicted: Iterable[Hashable], truth: Iterable[Hashable]) -> Score:
    """Compare two sets (duplicates collapse)."""
    p, t = set(predicted), set(truth)
    tp = len(p & t)
    return Score(tp=tp, fp=len(p) - tp, fn=len(t) - tp)


def micro(scores: Iterable[Score]) -> Score:
    """Sum the counts (micro average); the empty sum is ``Score(0, 0, 0)``."""
    total = Score(0, 0, 0)
    for s in scores:
        total = total + s
    return total


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values; ``None`` when none is defined."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return sum(vals) / len(vals)


def macro(scores: Sequence[Score]) -> dict[str, float | None]:
    """Per-item precision/recall/F1 averaged, each excluding its own ``n/a`` items."""
    return {
        "precision": mean(s.precision for s in scores),
        "recall": mean(s.recall for s in scores),
        "f1": mean(s.f1 for s in scores),
    }


def precision_at_k(ranked: Sequence[Hashable], truth: Iterable[Hashable], k: int) -> float | None:
    """Fraction of the first ``k`` ranked items that are true (``None`` if none ranked).

    Fewer than ``k`` ranked items: the denominator is what was ranked (a short list is
    not penalised for items it did not emit).
    """
    if k <= 0:
        raise ValueError("k must be positive")
    head = list(dict.fromkeys(ranked))[:k]
    if not head:
        return None
    t = set(truth)
    return sum(1 for x in head if x in t) / len(head)


def recall_at_k(ranked: Sequence[Hashable], truth: Iterable[Hashable], k: int) -> float | None:
    """Fraction of the true items found in the first ``k`` ranked (``None`` if no truth)."""
    if k <= 0:
        raise ValueError("k must be positive")
    t = set(truth)
    if not t:
        return None
    head = set(list(dict.fromkeys(ranked))[:k])
    return len(head & t) / len(t)


def fmt(value: float | None, digits: int = 3) -> str:
    """``0.857`` or ``n/a``."""
    return NA if value is None else f"{value:.{digits}f}"


def percentile(values: Iterable[float], q: float) -> float | None:
    """Nearest-rank percentile (q in [0, 1]) of ``values``; None when there are none."""
    s = sorted(values)
    return _nearest_rank(s, q) if s else None


def _nearest_rank(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean over ``n`` items with its bootstrap confidence interval ``[lo, hi]``."""

    n: int
    mean: float
    lo: float
    hi: float

    @property
    def verdict(self) -> str:
        """Of a difference: ``ahead`` / ``behind`` when the interval excludes 0, else ``tie``."""
        return "ahead" if self.lo > 0 else "behind" if self.hi < 0 else "tie"

    def as_dict(self) -> dict[str, float | int]:
        return {"n": self.n, "mean": round(self.mean, 4), "lo": round(self.lo, 4),
                "hi": round(self.hi, 4)}


def bootstrap_mean(values: Iterable[float | None], *, resamples: int = 2000,
                   level: float = 0.95, seed: int = 0) -> Interval | None:
    """Mean of the defined values (the n/a rule) and its percentile bootstrap interval:
    the values resampled with replacement ``resamples`` times from a fixed seed, so the
    same inputs give the same interval. ``None`` when no value is defined."""
    if not 0 < level < 1 or resamples < 1:
        raise ValueError("level must be in (0, 1) and resamples positive")
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    n = len(vals)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(vals, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return Interval(n=n, mean=sum(vals) / n, lo=_nearest_rank(means, tail),
                    hi=_nearest_rank(means, 1 - tail))


def paired_bootstrap(a: Sequence[float | None], b: Sequence[float | None], *,
                     resamples: int = 2000, level: float = 0.95,
                     seed: int = 0) -> Interval | None:
    """:func:`bootstrap_mean` of the differences ``a − b`` over the pairs where both are
    defined (a pair with an n/a side is dropped); its verdict says whether ``a`` is ahead."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    return bootstrap_mean((x - y for x, y in zip(a, b, strict=True)
                           if x is not None and y is not None),
                          resamples=resamples, level=level, seed=seed)
