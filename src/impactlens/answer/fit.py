"""How much of each section a surface shows: the most that fits its budget.

Sections fill in priority order. Each section takes the largest count that still fits
while every section after it sits at its floor (the few items a reader must always
see: the top files of the ranking among them), so a higher section is never starved
by a lower one and the floors of the lower ones stay reserved. Size is measured on the
rendered surface itself (tokens, lines or characters), never estimated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from impactlens.answer.build import Answer

__all__ = ["ORDER", "Cut", "fit", "full_cut", "omitted", "section"]

# name → how many items of it a surface shows
Cut = Mapping[str, int]

# sections in priority order (the first fills first)
ORDER = ("changes", "must_inspect", "may_impact", "test_files", "unanalyzable", "batches",
         "causes", "co_change", "tests", "low_risk", "dag", "test_map", "impact_sets")
# "causes": how many of the shown MUST/MAY entries (in that order) a text surface prints
# with their causes; the rest print one line each, so a long bucket still shows its files

TOP_FILES = 5  # the ranked files every cut keeps (the head a reader and a benchmark read)


def section(answer: Answer, name: str) -> Sequence[Any]:
    """The items of one section, in rank order."""
    r = answer.result
    if name == "dag":
        return r.dag.nodes
    if name == "test_map":
        return r.test_map
    if name == "impact_sets":
        return r.per_change
    if name == "causes":
        return (*answer.must_inspect, *answer.may_impact)
    return getattr(answer, name)  # type: ignore[no-any-return]


def full_cut(answer: Answer) -> dict[str, int]:
    return {name: len(section(answer, name)) for name in ORDER}


def omitted(answer: Answer, cut: Cut) -> dict[str, int]:
    """What ``cut`` leaves out, per section (only the sections it cuts)."""
    out = {name: len(section(answer, name)) - cut.get(name, 0) for name in ORDER}
    return {k: v for k, v in out.items() if v > 0}


def _cover(entries: Sequence[Any], files: int, seen: set[str]) -> int:
    """How many of ``entries`` it takes to see ``files`` more distinct files than ``seen``
    (``seen`` grows with them)."""
    if files <= 0:
        return 0
    for i, e in enumerate(entries):
        if e.file not in seen:
            seen.add(e.file)
            files -= 1
            if files == 0:
                return i + 1
    return len(entries)


def floors(answer: Answer) -> dict[str, int]:
    """What every cut shows at least: the head of the ranked files, a few of each list."""
    seen: set[str] = set()
    must = max(min(3, len(answer.must_inspect)), _cover(answer.must_inspect, TOP_FILES, seen))
    may = max(min(3, len(answer.may_impact)),
              _cover(answer.may_impact, TOP_FILES - len(seen), seen))
    few = {"changes": 8, "test_files": 3, "unanalyzable": 3, "batches": 2, "causes": 3,
           "co_change": 3}
    out = {name: min(few.get(name, 0), len(section(answer, name))) for name in ORDER}
    out.update(must_inspect=must, may_impact=may)
    return out


def fit(answer: Answer, size: Callable[[Cut], int], budget: int) -> dict[str, int]:
    """The cut of ``answer`` whose rendering ``size`` is within ``budget`` and shows the
    most, section by section in priority order. When even the floors do not fit, the
    floors of the lowest sections give way first (the first change and the first
    must-inspect entry never do)."""
    full = full_cut(answer)
    if size(full) <= budget:
        return full
    cut = floors(answer)
    for name in reversed(ORDER):  # floors that do not fit give way, lowest first
        if size(cut) <= budget:
            break
        keep = 1 if name in ("changes", "must_inspect") else 0
        cut[name] = min(cut[name], keep, full[name])
    for name in ORDER:
        lo, hi = cut[name], full[name]
        while lo < hi:  # the largest count that fits (size grows with the count)
            mid = (lo + hi + 1) // 2
            if size({**cut, name: mid}) <= budget:
                lo = mid
            else:
                hi = mid - 1
        cut[name] = lo
    return cut
