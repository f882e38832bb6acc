"""The calls an edit writes, resolved in the after state (for forward obligations).

The walk answers "what depends on what I changed"; an edit also *uses* things, and a call
it writes with arguments its callee does not accept yet means the callee must change too
(or the call is wrong) — the edit is incomplete either way. This module resolves each
changed Python file's *after* text against the index, in memory (nothing is written), and
keeps the call edges at the lines the edit wrote; the pipeline checks them against their
callees' current signatures (impact/triage.py, :func:`forward_entries`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from impactlens.model import Edge, EdgeKind, FileChange

if TYPE_CHECKING:
    from impactlens.index.store import Store

__all__ = ["written_calls"]


def written_calls(store: Store, files: Sequence[FileChange],
                  module_of: Any) -> list[Edge]:
    """Call edges of the after state of ``files`` at the lines the edit wrote."""
    from impactlens.change.overlay import text_facts
    from impactlens.impact.pipeline import changed_lines
    from impactlens.index.indexer import _Lookup
    from impactlens.index.python import resolve_file

    module_paths = dict(store.module_paths())
    after: dict[str, Any] = {}
    written: dict[str, frozenset[int]] = {}
    for f in files:
        if f.after is None or not f.path.endswith(".py"):
            continue
        module = module_of(f.path)
        facts = text_facts(f.path, f.after, module)
        if facts is None:
            continue
        after[f.path] = facts
        module_paths.setdefault(module, f.path)
        written[f.path] = changed_lines(f.before, f.after)[1]
    out: list[Edge] = []
    for path in sorted(after):
        try:
            res = resolve_file(after[path], _Lookup(dict(after), store, module_paths))
        except RecursionError:
            continue
        out.extend(e for e in res.edges if e.kind is EdgeKind.CALL and e.line in written[path])
    return out
