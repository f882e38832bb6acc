"""Metric arithmetic for the benchmarks (synthetic sets only: no tools, no I/O)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from impactlens.bench.metrics import (
    Score,
    bootstrap_mean,
    f1,
    fmt,
    macro,
    mean,
    micro,
    paired_bootstrap,
    precision_at_k,
    ratio,
    recall_at_k,
    score_sets,
)

small_sets = st.frozensets(st.integers(min_value=0, max_value=12), max_size=10)


def test_score_sets_counts() -> None:
    s = score_sets({"a", "b", "c"}, {"b", "c", "d", "e"})
    assert (s.tp, s.fp, s.fn) == (2, 1, 2)
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(2 / 4)
    assert s.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))


def test_empty_denominators_are_na_never_zero_or_one() -> None:
    nothing_predicted = score_sets(set(), {"x"})
    assert nothing_predicted.precision is None
    assert nothing_predicted.recall == 0.0
    assert nothing_predicted.f1 is None

    no_truth = score_sets({"x"}, set())
    assert no_truth.precision == 0.0
    assert no_truth.recall is None
    assert no_truth.f1 is None

    both_empty = score_sets(set(), set())
    assert both_empty.precision is None and both_empty.recall is None and both_empty.f1 is None


def test_f1_rules() -> None:
    assert f1(None, 1.0) is None
    assert f1(1.0, None) is None
    assert f1(0.0, 0.0) == 0.0
    assert f1(1.0, 1.0) == 1.0
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)


def test_ratio() -> None:
    assert ratio(1, 0) is None
    assert ratio(0, 4) == 0.0
    assert ratio(3, 4) == 0.75


def test_mean_excludes_na() -> None:
    assert mean([1.0, None, 0.0]) == 0.5
    assert mean([None, None]) is None
    assert mean([]) is None


def test_micro_sums_counts_and_macro_skips_na() -> None:
    a = Score(tp=2, fp=0, fn=0)  # P=1, R=1
    b = Score(tp=0, fp=0, fn=3)  # P=n/a, R=0
    m = micro([a, b])
    assert (m.tp, m.fp, m.fn) == (2, 0, 3)
    assert m.precision == 1.0
    assert m.recall == pytest.approx(2 / 5)
    mac = macro([a, b])
    assert mac["precision"] == 1.0  # b's n/a precision is excluded, not averaged as 0
    assert mac["recall"] == 0.5
    assert mac["f1"] == 1.0  # b's F1 is n/a
    assert micro([]) == Score(0, 0, 0)


def test_as_dict_round_trip() -> None:
    d = Score(tp=1, fp=1, fn=0).as_dict()
    assert d == {"tp": 1, "fp": 1, "fn": 0, "precision": 0.5, "recall": 1.0,
                 "f1": pytest.approx(2 / 3)}


def test_precision_recall_at_k() -> None:
    ranked = ["a", "x", "b", "y", "c"]
    truth = {"a", "b", "c", "d"}
    assert precision_at_k(ranked, truth, 1) == 1.0
    assert precision_at_k(ranked, truth, 2) == 0.5
    assert precision_at_k(ranked, truth, 5) == pytest.approx(3 / 5)
    assert precision_at_k(ranked, truth, 50) == pytest.approx(3 / 5)  # short list: own length
    assert recall_at_k(ranked, truth, 3) == 0.5
    assert recall_at_k(ranked, truth, 5) == 0.75
    assert precision_at_k([], truth, 3) is None
    assert recall_at_k(ranked, set(), 3) is None
    assert precision_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0  # duplicates collapse
    with pytest.raises(ValueError):
        precision_at_k(ranked, truth, 0)
    with pytest.raises(ValueError):
        recall_at_k(ranked, truth, -1)


def test_fmt() -> None:
    assert fmt(None) == "n/a"
    assert fmt(0.5) == "0.500"
    assert fmt(1 / 3, 2) == "0.33"


@given(small_sets, small_sets)
def test_properties_of_set_scores(pred: frozenset[int], truth: frozenset[int]) -> None:
    s = score_sets(pred, truth)
    assert s.tp + s.fp == len(pred)
    assert s.tp + s.fn == len(truth)
    assert (s.precision is None) == (not pred)
    assert (s.recall is None) == (not truth)
    for v in (s.precision, s.recall, s.f1):
        assert v is None or 0.0 <= v <= 1.0
    if s.f1 is not None:
        assert s.precision is not None and s.recall is not None
        assert s.f1 <= max(s.precision, s.recall) + 1e-12
        assert s.f1 >= min(s.precision, s.recall) - 1e-12
    if pred and pred == truth:
        assert s.precision == s.recall == s.f1 == 1.0
    if pred and truth and not (pred & truth):
        assert s.f1 == 0.0


@given(st.lists(st.tuples(small_sets, small_sets), max_size=6))
def test_micro_equals_score_of_disjoint_union(pairs: list[tuple[frozenset[int], ...]]) -> None:
    # tag each pair's items with its index so the per-item sets are disjoint
    scores = [score_sets({(i, x) for x in p}, {(i, x) for x in t})
              for i, (p, t) in enumerate(pairs)]
    union = score_sets({(i, x) for i, (p, _) in enumerate(pairs) for x in p},
                       {(i, x) for i, (_, t) in enumerate(pairs) for x in t})
    assert micro(scores) == union


@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=8))
def test_mean_within_bounds(values: list[float | None]) -> None:
    m = mean(values)
    defined = [v for v in values if v is not None]
    if not defined:
        assert m is None
    else:
        assert min(defined) - 1e-12 <= m <= max(defined) + 1e-12
        assert not math.isnan(m)


@given(st.lists(st.integers(0, 9), max_size=12), small_sets, st.integers(1, 15))
def test_at_k_bounds(ranked: list[int], truth: frozenset[int], k: int) -> None:
    p = precision_at_k(ranked, truth, k)
    r = recall_at_k(ranked, truth, k)
    assert p is None or 0.0 <= p <= 1.0
    assert r is None or 0.0 <= r <= 1.0
    if r is not None and k >= len(set(ranked)):
        assert r == len(set(ranked) & truth) / len(truth)


def test_paired_bootstrap_verdicts_and_na_pairs() -> None:
    ahead = paired_bootstrap([1.0, 0.5, 1.0, None], [0.0, 0.0, 0.5, 1.0])
    assert ahead is not None and ahead.n == 3  # the pair with an n/a side is dropped
    assert ahead.mean == pytest.approx(2 / 3) and ahead.verdict == "ahead"
    same = paired_bootstrap([0.5, 0.0, 1.0], [0.5, 0.0, 1.0])
    assert same is not None and (same.lo, same.hi, same.verdict) == (0.0, 0.0, "tie")
    mixed = paired_bootstrap([1.0, 0.0] * 5, [0.0, 1.0] * 5)
    assert mixed is not None and mixed.verdict == "tie" and mixed.lo < 0 < mixed.hi
    behind = paired_bootstrap([0.0] * 8, [1.0] * 8)
    assert behind is not None and behind.verdict == "behind"
    assert behind.as_dict() == {"n": 8, "mean": -1.0, "lo": -1.0, "hi": -1.0}
    iv = bootstrap_mean([0.0, 1.0, None, 0.5])
    assert iv is not None and iv.n == 3 and iv.lo <= iv.mean == 0.5 <= iv.hi
    assert bootstrap_mean([None]) is None
    assert paired_bootstrap([None], [1.0]) is None
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 0.0])
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0], level=1.0)


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30))
def test_paired_bootstrap_interval_is_seeded_and_bounded(
        pairs: list[tuple[float, float]]) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    d = paired_bootstrap(a, b, resamples=200)
    assert d is not None and d == paired_bootstrap(a, b, resamples=200)  # deterministic
    diffs = [x - y for x, y in pairs]
    assert min(diffs) - 1e-9 <= d.lo <= d.hi <= max(diffs) + 1e-9
    assert min(diffs) - 1e-9 <= d.mean <= max(diffs) + 1e-9
    assert d.verdict == ("ahead" if d.lo > 0 else "behind" if d.hi < 0 else "tie")
