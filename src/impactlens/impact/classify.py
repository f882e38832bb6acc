"""§3.1 (a) atomic change-type classification: the file's language frontend diffs the two
versions' syntax trees (:meth:`impactlens.index.frontend.Frontend.classify`; Python's in
:mod:`impactlens.index.python.changes`), this module orders the changes and caps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from impactlens.index.frontend import frontend_for
from impactlens.index.python.changes import params_of
from impactlens.model import AtomicChange, ChangeType
from impactlens.settings import DEFAULT, Settings

__all__ = ["cap_changes", "classify", "params_of"]

# Precedence used when the 64-change cap must drop changes: structural changes survive.
_CAP_PRIORITY = {
    ChangeType.DELETE: 0, ChangeType.CLASS_DECL: 1, ChangeType.CONSTRUCTOR: 2,
    ChangeType.METHOD_SIGNATURE: 3, ChangeType.IMPORT: 4, ChangeType.FIELD: 5,
    ChangeType.METHOD_BODY: 6, ChangeType.ADD: 7,
}


def classify(before_src: str | None, after_src: str | None, path: str, module: str,
             settings: Settings = DEFAULT) -> list[AtomicChange]:
    """Atomic changes of one file, in file order (§3.1). Pure; never consults a model. A
    file no language frontend owns has none."""
    fe = frontend_for(path)
    if fe is None or (before_src is None and after_src is None):
        return []
    changes = fe.classify(before_src, after_src, path, module, settings)
    return cap_changes(_sorted(changes), settings.max_atomic_changes)


def _sorted(changes: list[AtomicChange]) -> list[AtomicChange]:
    return sorted(changes, key=lambda c: (c.file, c.line_range, c.entity, c.change_type.value))


def cap_changes(changes: Sequence[AtomicChange], limit: int) -> list[AtomicChange]:
    """Keep ≤ ``limit`` changes (most structural first); fold the rest into the nearest
    kept change of the same type (same file preferred), widening its line range."""
    if len(changes) <= limit:
        return list(changes)
    order = sorted(range(len(changes)),
                   key=lambda i: (_CAP_PRIORITY[changes[i].change_type], i))
    kept: dict[int, AtomicChange] = {i: changes[i] for i in order[:limit]}
    for i in order[limit:]:
        c = changes[i]
        pools = (
            [k for k, v in kept.items() if v.change_type is c.change_type and v.file == c.file],
            [k for k, v in kept.items() if v.file == c.file],
            [k for k, v in kept.items() if v.change_type is c.change_type],
            list(kept),
        )
        pool = next(p for p in pools if p)

        def gap(k: int, c: AtomicChange = c) -> tuple[int, int]:
            lo, hi = kept[k].line_range
            if kept[k].file != c.file:
                return (1 << 30, k)
            return (max(0, lo - c.line_range[1], c.line_range[0] - hi), k)

        k = min(pool, key=gap)
        t = kept[k]
        rng = t.line_range
        if t.file == c.file:
            rng = (min(rng[0], c.line_range[0]), max(rng[1], c.line_range[1]))
        kept[k] = replace(t, line_range=rng, folded=t.folded + 1 + c.folded)
    return [kept[i] for i in sorted(kept)]
