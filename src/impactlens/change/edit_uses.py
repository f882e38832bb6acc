"""What an edit uses: the calls it writes, the calls it removes and the names it needs
that do not exist (for the edit's own obligations).

The walk answers "what depends on what I changed"; an edit also *uses* things, and a call
it writes with arguments its callee does not accept yet means the callee must change too
(or the call is wrong) — the edit is incomplete either way. This module resolves each
changed Python file's *after* text against the index, in memory (nothing is written), and
keeps the call edges at the lines the edit wrote (only the definitions holding such a line
are resolved); the pipeline checks them against their callees' current signatures
(impact/triage.py, :func:`forward_entries`). The before text is resolved the same way, in
the same pass (one diff per file), for the calls the edit replaced: a private helper that
loses its last call is now unused (:func:`orphan_entries`). A ``from m import NAME`` the
edit adds, or an ``x.NAME`` it writes on a repository module or on an instance of a
repository class, where the module or class has no NAME (in the state the edit leaves the
other edited files in), means that module or class must change too
(:func:`missing_name_entries`); a public name it adds beside siblings its package
``__init__.py`` re-exports one by one may be due there too (:func:`unexported_entries`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from impactlens.index.indexer import FactsLookup
from impactlens.index.overlay import text_facts
from impactlens.index.python.edit_queries import (
    calls_at,
    from_imports,
    missing_names,
    reexported,
    top_names,
)
from impactlens.linediff import changed_lines
from impactlens.model import Edge, FileChange, MissingName, Unexported

if TYPE_CHECKING:
    from impactlens.index.store import Store

__all__ = ["EditUses", "edit_uses"]

# one state of the edited files: their facts, the lines written, module → path
Side = tuple[dict[str, Any], dict[str, frozenset[int]], dict[str, str]]


@dataclass(frozen=True, slots=True)
class EditUses:
    removed: list[Edge]  # call edges of the before text at the lines the edit replaced
    written: list[Edge]  # call edges of the after text at the lines the edit wrote
    missing: list[MissingName]  # names the edit needs that their owner lacks
    unexported: list[Unexported]  # new public names their package does not re-export


def edit_uses(store: Store, files: Sequence[FileChange],
              module_of: Callable[[str], str]) -> EditUses:
    """What the edit calls, stopped calling and newly imports. The before side is
    resolved from the text, so it is right whichever state the index holds; each side
    sees the other edited files in that same state."""
    indexed = store.module_paths()
    sides: list[Side] = [
        ({}, {}, dict(indexed)) for _ in range(2)]  # (facts, lines, module paths)
    for f in files:
        if not f.path.endswith(".py"):
            continue
        module = module_of(f.path)
        for (state, lines_of, paths), text, lines in zip(
                sides, (f.before, f.after), changed_lines(f.before, f.after), strict=True):
            facts = text_facts(f.path, text, module) if text is not None and lines else None
            if facts is not None:
                state[f.path] = facts
                lines_of[f.path] = lines
                paths.setdefault(module, f.path)
    before, after = (_side_calls(store, *side) for side in sides)
    old = _complete(sides[0], files, module_of, after=False)[0]
    new = _complete(sides[1], files, module_of, after=True)
    return EditUses(before, after, _missing(store, files, old, new),
                    _unexported(store, files, old, new))


def _complete(side: Side, files: Sequence[FileChange], module_of: Callable[[str], str],
              *, after: bool) -> Side:
    """A side with every edited file's facts, not only those with changed lines on that
    side (an edit that only adds lines still has a before state, one that only deletes
    lines an after state)."""
    state, lines_of, paths = dict(side[0]), side[1], dict(side[2])
    for f in files:
        text = f.after if after else f.before
        if f.path.endswith(".py") and text is not None and f.path not in state:
            facts = text_facts(f.path, text, module_of(f.path))
            if facts is not None:
                state[f.path] = facts
                paths.setdefault(module_of(f.path), f.path)
    return state, lines_of, paths


def _unexported(store: Store, files: Sequence[FileChange], before: dict[str, Any],
                after: Side) -> list[Unexported]:
    """The public names the edit adds to a module whose package ``__init__.py`` imports
    other names from it explicitly and not this one (nor everything, with ``*``)."""
    state, _lines, paths = after
    out: list[Unexported] = []
    for f in files:
        facts = state.get(f.path)
        if facts is None or f.path.endswith("__init__.py"):
            continue
        old = before.get(f.path)
        new = top_names(facts) - (top_names(old) if old is not None else set())
        package = facts.module.rpartition(".")[0]
        init_file = paths.get(package, "")
        init = state.get(init_file) or (store.facts(init_file) if init_file else None)
        exported = reexported(init, facts.module) if new else None
        if exported is None:
            continue
        siblings, star = exported
        if siblings and not star:
            out += [Unexported(facts.module, name, package, init_file, siblings)
                    for name in sorted(new - set(siblings))]
    return out


def _missing(store: Store, files: Sequence[FileChange], before: dict[str, Any],
             after: Side) -> list[MissingName]:
    """The names each edited file needs from a repository module or class that does not
    have them (newly imported, or read and called at the lines it wrote), the other
    edited files seen as the edit leaves them."""
    state, lines_of, paths = after
    out: list[MissingName] = []
    for f in files:
        facts = state.get(f.path)
        if facts is None or f.after is None:
            continue
        was = before.get(f.path)
        old = {(mod, name) for _l, mod, name in from_imports(was)} if was is not None else set()
        new = sorted((line, mod, name) for line, mod, name in from_imports(facts)
                     if (mod, name) not in old)
        lines = lines_of.get(f.path, frozenset())
        if new or lines:
            out += missing_names(facts, FactsLookup(dict(state), store, paths), new, lines)
    return sorted(set(out), key=lambda m: (m.file, m.line, m.owner, m.name))


def _side_calls(store: Store, state: dict[str, Any], lines_of: dict[str, frozenset[int]],
                paths: dict[str, str]) -> list[Edge]:
    out: list[Edge] = []
    for path in sorted(state):
        out += calls_at(state[path], lines_of[path], FactsLookup(dict(state), store, paths))
    return out
