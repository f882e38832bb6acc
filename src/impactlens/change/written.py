"""The calls an edit writes and the calls it removes (for the edit's own obligations).

The walk answers "what depends on what I changed"; an edit also *uses* things, and a call
it writes with arguments its callee does not accept yet means the callee must change too
(or the call is wrong) — the edit is incomplete either way. This module resolves each
changed Python file's *after* text against the index, in memory (nothing is written), and
keeps the call edges at the lines the edit wrote (only the definitions holding such a line
are resolved); the pipeline checks them against their
callees' current signatures (impact/triage.py, :func:`forward_entries`). The before text
is resolved the same way for the calls the edit replaced: a private helper that loses its
last call is now unused (:func:`orphan_entries`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from impactlens.model import Edge, EdgeKind, FileChange, Resolution

if TYPE_CHECKING:
    from impactlens.index.store import Store

__all__ = ["removed_calls", "written_calls"]


def written_calls(store: Store, files: Sequence[FileChange],
                  module_of: Callable[[str], str]) -> list[Edge]:
    """Call edges of the after state of ``files`` at the lines the edit wrote."""
    return _side_calls(store, files, module_of, after=True)


def removed_calls(store: Store, files: Sequence[FileChange],
                  module_of: Callable[[str], str]) -> list[Edge]:
    """Call edges of the before state of ``files`` at the lines the edit replaced (resolved
    from the before text, so they are right whichever state the index holds)."""
    return _side_calls(store, files, module_of, after=False)


def _side_calls(store: Store, files: Sequence[FileChange], module_of: Callable[[str], str],
                *, after: bool) -> list[Edge]:
    from impactlens.change.overlay import text_facts
    from impactlens.impact.pipeline import changed_lines
    from impactlens.index.indexer import _Lookup

    module_paths = dict(store.module_paths())
    state: dict[str, Any] = {}
    lines_of: dict[str, frozenset[int]] = {}
    for f in files:
        text = f.after if after else f.before
        lines = changed_lines(f.before, f.after)[1 if after else 0]
        if text is None or not f.path.endswith(".py") or not lines:
            continue
        module = module_of(f.path)
        facts = text_facts(f.path, text, module)
        if facts is None:
            continue
        state[f.path] = facts
        module_paths.setdefault(module, f.path)
        lines_of[f.path] = lines
    out: list[Edge] = []
    for path in sorted(state):
        try:
            out.extend(_calls_at(state[path], lines_of[path],
                                 _Lookup(dict(state), store, module_paths)))
        except RecursionError:
            continue
    return out


def _calls_at(facts: Any, lines: frozenset[int], lookup: Any) -> list[Edge]:
    """Call edges of the scopes that have a call site at ``lines`` (only those scopes are
    resolved: a large module's other definitions cost time and say nothing here)."""
    from impactlens.index.python.resolve import K_CALL, resolver

    out: list[Edge] = []
    with resolver(facts, lookup) as r:
        for sidx, sc in enumerate(facts.scopes):
            if not any(site[0] in lines for site in sc.calls):
                continue
            for e in r.scope_sink(facts.module, sidx, None, sc.qual).edges:
                if e[2] == K_CALL and e[3] in lines and e[0] and e[1]:
                    out.append(Edge(e[0], e[1], EdgeKind.CALL, facts.path, e[3],
                                    Resolution(e[4]), e[5]))
    return out
