"""The budget cut: sections fill in priority order, floors hold, nothing is lost."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from impactlens.answer import answer_json, build_answer, fit, full_cut, json_text, page
from impactlens.answer.fit import ORDER, TOP_FILES, floors, omitted
from impactlens.model import (
    AtomicChange,
    Batch,
    Bucket,
    ChangeType,
    ImpactDag,
    ImpactResult,
    Triage,
    TriageEntry,
)


def result(must: int = 0, may: int = 0, low: int = 0, tests: int = 0,
           test_entries: int = 0) -> ImpactResult:
    """A synthetic result: ``may`` code entries in ``may`` files, plus ``test_entries``
    test ids among the MAY-IMPACT entries (as the triage lists them)."""
    change = AtomicChange(ChangeType.METHOD_SIGNATURE, "pkg.core.f", "pkg/core.py", (1, 2),
                          "def f(a):", "def f(a, b):")

    def entries(n: int, bucket: Bucket, prefix: str) -> tuple[TriageEntry, ...]:
        return tuple(TriageEntry(f"pkg.{prefix}{i}.g", f"pkg/{prefix}{i}.py", 0.5,
                                 f"calls f ({i})", bucket) for i in range(n))

    ids = tuple(f"tests/test_{i % 7}.py::test_{i}" for i in range(tests))
    test_may = tuple(TriageEntry(t, t.split("::")[0], 0.4, "tests f", Bucket.MAY)
                     for t in ids[:test_entries])
    tri = Triage(entries(must, Bucket.MUST, "m"), entries(may, Bucket.MAY, "y") + test_may,
                 entries(low, Bucket.LOW, "l"))
    members = ("pkg.core.f", *(e.entity for e in tri.must_inspect), *ids[:test_entries])
    return ImpactResult((change,), (), (), tri, (Batch(0, members),), ImpactDag((), ()), ids)


def test_a_small_answer_is_whole():
    a = build_answer(result(must=2, may=3, tests=4))
    assert fit(a, lambda c: 0, 10) == full_cut(a)
    assert answer_json(a, full_cut(a))["complete"] is True


def test_tests_leave_the_buckets_and_batches_hold_code():
    a = build_answer(result(must=1, may=2, tests=30, test_entries=30))
    assert len(a.may_impact) == 2 and len(a.tests) == 30
    assert a.counts()["may_impact"] == 2 and a.counts()["tests"] == 30
    assert [b.members for b in a.batches] == [("pkg.core.f", "pkg.m0.g")]
    assert sum(g.count for g in a.test_files) == 30 and len(a.test_files) == 7
    assert a.risk.startswith("risk: high — signature change; 1 must change, 2 may be")
    assert a.risk.endswith("30 tests to run")


def test_nothing_must_change_means_no_batches():
    a = build_answer(result(may=3, tests=2, test_entries=2))
    assert a.batches == () and a.risk.startswith("risk: medium")


def test_floors_keep_the_top_files():
    a = build_answer(result(must=2, may=40, tests=100))
    f = floors(a)
    assert f["must_inspect"] == 2 and f["may_impact"] == TOP_FILES - 2
    cut = fit(a, lambda c: sum(c.values()), 1)  # nothing fits: floors give way, lowest first
    assert cut["changes"] == 1 and cut["must_inspect"] == 1


def _size(a):
    return lambda c: len(json_text(answer_json(a, c), pretty=False))


@settings(max_examples=60, deadline=None)
@given(must=st.integers(0, 12), may=st.integers(0, 60), low=st.integers(0, 30),
       tests=st.integers(0, 150), budget=st.integers(1500, 40_000))
def test_the_cut_fits_and_counts_what_it_leaves_out(must, may, low, tests, budget):
    a = build_answer(result(must=must, may=may, low=low, tests=tests, test_entries=tests // 2))
    size = _size(a)
    cut = fit(a, size, budget)
    full = full_cut(a)
    if size(floors(a)) <= budget:
        assert size(cut) <= budget
        assert all(cut[k] >= v for k, v in floors(a).items())
    left = omitted(a, cut)
    assert all(cut[k] + left.get(k, 0) == full[k] for k in ORDER)
    data = answer_json(a, cut)
    assert data["omitted"] == left and data["complete"] is (not left)
    assert data["summary"]["tests"] == len(a.tests)  # counts are whole whatever is shown


@settings(max_examples=40, deadline=None)
@given(may=st.integers(0, 60), tests=st.integers(0, 150), budget=st.integers(300, 5000))
def test_pages_cover_everything_once(may, tests, budget):
    a = build_answer(result(must=3, may=may, low=5, tests=tests))
    full = full_cut(a)
    seen = {k: 0 for k in ORDER}
    offset: int | None = 0
    pages = 0
    while offset is not None:
        start, cut, offset = page(a, offset, lambda s, c: _size(a)(c), budget)
        for k in ORDER:
            if cut[k]:
                assert start[k] == seen[k]  # each page starts where the last one stopped
            seen[k] += cut[k]
        pages += 1
        assert pages <= sum(full.values()) + 1
    assert seen == full
