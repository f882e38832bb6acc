"""The ranked answer: what a reader acts on, derived from the triage (nothing re-scored)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from impactlens.model import (
    AtomicChange,
    Batch,
    ChangeType,
    ImpactResult,
    TriageEntry,
    UnanalyzableHit,
    is_test_id,
)

__all__ = ["Answer", "TestFile", "build_answer", "risk_line"]


@dataclass(frozen=True, slots=True)
class TestFile:
    """The tests to run that live in one file."""

    file: str
    tests: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.tests)


@dataclass(frozen=True, slots=True)
class Answer:
    """What a surface shows, in rank order within each section.

    ``must_inspect`` holds the code (and the tests) that break unless edited;
    ``may_impact`` and ``low_risk`` hold code only: a test that merely exercises the
    change is in ``tests``, the one list of what to re-run."""

    result: ImpactResult
    risk: str
    changes: tuple[AtomicChange, ...]
    must_inspect: tuple[TriageEntry, ...]
    may_impact: tuple[TriageEntry, ...]
    low_risk: tuple[TriageEntry, ...]
    tests: tuple[str, ...]
    test_files: tuple[TestFile, ...]
    batches: tuple[Batch, ...]
    unanalyzable: tuple[UnanalyzableHit, ...]
    co_change: tuple[tuple[str, str, float], ...]  # (edited file, partner, score)

    def counts(self) -> dict[str, int]:
        """The section sizes every surface reports (they agree by construction)."""
        return {"changes": len(self.changes), "must_inspect": len(self.must_inspect),
                "may_impact": len(self.may_impact), "low_risk": len(self.low_risk),
                "batches": len(self.batches), "tests": len(self.tests),
                "unanalyzable": len(self.unanalyzable),
                "not_analyzed": len(self.result.not_analyzed)}


def _is_test(e: TriageEntry) -> bool:
    return is_test_id(e.entity, e.file)


def _test_files(ids: tuple[str, ...]) -> tuple[TestFile, ...]:
    by_file: dict[str, list[str]] = {}
    for tid in ids:
        by_file.setdefault(tid.split("::", 1)[0], []).append(tid)
    groups = [TestFile(f, tuple(t)) for f, t in by_file.items()]
    return tuple(sorted(groups, key=lambda g: (-g.count, g.file)))


def _code_batches(result: ImpactResult, editable: set[str]) -> tuple[Batch, ...]:
    """The batches restricted to what needs an edit (changed entities and the code
    a reader may edit), renumbered from 0; a batch left with nothing is dropped."""
    out: list[Batch] = []
    for b in result.batches:
        members = tuple(m for m in b.members if m in editable)
        if members:
            out.append(Batch(len(out), members, b.split))
    return tuple(out)


_CHANGE_WORDS = {
    ChangeType.METHOD_SIGNATURE: "signature change",
    ChangeType.METHOD_BODY: "body edit",
    ChangeType.CONSTRUCTOR: "constructor change",
    ChangeType.CLASS_DECL: "class declaration change",
    ChangeType.FIELD: "value change",
    ChangeType.IMPORT: "import change",
    ChangeType.ADD: "addition",
    ChangeType.DELETE: "deletion",
}


def _plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def risk_line(changes: tuple[AtomicChange, ...], must: int, may: int, tests: int,
              unanalyzable: int, not_analyzed: int = 0) -> str:
    """One line a reader takes in first, read off the triage: high when something breaks
    unless edited, medium when code is reachable, a dynamic site may reach the change or
    an edited file could not be analysed, low otherwise. ``unanalyzable`` counts the
    dynamic sites, ``not_analyzed`` the edited files left out."""
    level = "high" if must else ("medium" if may or unanalyzable or not_analyzed else "low")
    kinds = Counter(_CHANGE_WORDS[c.change_type] for c in changes)
    what = ", ".join(w if n == 1 else f"{n} {w}s" for w, n in
                     sorted(kinds.items(), key=lambda t: (-t[1], t[0])))
    parts = [f"{must} must change", f"{may} may be affected"]
    if unanalyzable:
        parts.append(_plural(unanalyzable, "dynamic site"))
    if not_analyzed:
        parts.append(_plural(not_analyzed, "file") + " not analyzed")
    return (f"risk: {level} — {what or 'no definition changed'}; " + ", ".join(parts)
            + f"; {_plural(tests, 'test')} to run")


def build_answer(result: ImpactResult) -> Answer:
    """The answer of ``result``: the triage's own order, tests split off the buckets."""
    tri = result.triage
    must = tri.must_inspect
    may = tuple(e for e in tri.may_impact if not _is_test(e))
    low = tuple(e for e in tri.low_risk if not _is_test(e))
    editable = {c.entity for c in result.changes} | {e.entity for e in (*must, *may)
                                                     if not _is_test(e)}
    cochange = tuple((f, g, s) for f, cands in result.co_change for g, s in cands)
    tests = tuple(result.validate)
    left_out = len(result.not_analyzed)  # each is one of the un-analyzable hits too
    risk = risk_line(result.changes, len(must), len(may), len(tests),
                     len(result.unanalyzable) - left_out, left_out)
    return Answer(result, risk, result.changes, must, may, low, tests, _test_files(tests),
                  _code_batches(result, editable) if must else (), result.unanalyzable,
                  cochange)
