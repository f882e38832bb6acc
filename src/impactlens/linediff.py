"""Which lines an edit changed: the two line diffs every stage that asks shares."""

from __future__ import annotations

import difflib

__all__ = ["changed_lines", "changed_regions"]


def changed_lines(before: str | None, after: str | None
                  ) -> tuple[frozenset[int], frozenset[int]]:
    """(lines of ``before`` the edit removed or replaced, lines of ``after`` it wrote),
    1-based; a side that is absent has none, a side facing an absent one is all changed."""
    a = before.splitlines() if before is not None else []
    b = after.splitlines() if after is not None else []
    if before is None or after is None:
        return frozenset(range(1, len(a) + 1)), frozenset(range(1, len(b) + 1))
    old: set[int] = set()
    new: set[int] = set()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            old.update(range(i1 + 1, i2 + 1))
            new.update(range(j1 + 1, j2 + 1))
    return frozenset(old), frozenset(new)


def changed_regions(before: str, after: str) -> tuple[set[int], set[int]]:
    """Lines (1-based) of ``before`` / ``after`` inside changed regions, for pre-filtering
    unresolved sites: a superset of :func:`changed_lines` (the
    line before a pure insertion or deletion too; the common prefix and suffix are trimmed
    and the middle is diffed with autojunk on, which is fast on large files)."""
    a, b = before.splitlines(), after.splitlines()
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    old: set[int] = set()
    new: set[int] = set()
    sm = difflib.SequenceMatcher(None, a[lo : len(a) - hi], b[lo : len(b) - hi])
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        # a pure insertion/deletion also touches the line before it
        old.update(range(lo + i1, lo + max(i2, i1 + 1) + 1))
        new.update(range(lo + j1, lo + max(j2, j1 + 1) + 1))
    old.discard(0)
    new.discard(0)
    return old, new
