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
from impactlens.index.python.facts import CLASS, FUNCTION, PyFileFacts
from impactlens.index.python.resolve import K_CALL, resolver
from impactlens.linediff import changed_lines
from impactlens.model import Edge, EdgeKind, FileChange, MissingName, Resolution, Unexported

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


def _from_imports(facts: Any) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of each ``from module import name`` (not ``*``)."""
    return [(line, mod, name) for _s, line, mod, name, _a in facts.imports
            if name is not None and name != "*"]


def _top_names(facts: Any) -> set[str]:
    """The public functions and classes a module defines at its top level."""
    return {sc.name for sc in facts.scopes
            if sc.parent == 0 and sc.kind in (CLASS, FUNCTION) and not sc.name.startswith("_")}


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
        new = _top_names(facts) - (_top_names(old) if old is not None else set())
        package = facts.module.rpartition(".")[0]
        init_file = paths.get(package, "")
        init = state.get(init_file) or (store.facts(init_file) if init_file else None)
        if not new or not isinstance(init, PyFileFacts):
            continue
        imported = [name for _s, _l, mod, name, _a in init.imports if mod == facts.module]
        siblings = tuple(dict.fromkeys(n for n in imported if n is not None and n != "*"))
        if siblings and "*" not in imported:
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
        old = {(mod, name) for _l, mod, name in _from_imports(was)} if was is not None else set()
        new = [(line, mod, name) for line, mod, name in _from_imports(facts)
               if (mod, name) not in old]
        lines = lines_of.get(f.path, frozenset())
        if not new and not lines:
            continue
        try:
            with resolver(facts, FactsLookup(dict(state), store, paths)) as r:
                out += [MissingName(f.path, line, mod, name) for line, mod, name in sorted(new)
                        if _lacks_module_name(r, mod, name)]
                out += _missing_members(r, facts, lines)
        except RecursionError:  # too deeply nested to resolve: no obligations from it
            continue
    return sorted(set(out), key=lambda m: (m.file, m.line, m.owner, m.name))


def _lacks_module_name(r: Any, module: str, name: str) -> bool:
    """Whether repository module ``module`` has no ``name`` in any form (a star import
    may supply any name, so a module with one never lacks it)."""
    target = r.mod(module)
    return target is not None and not target.stars and r.module_member(module, name) == []


_DYNAMIC_ATTRS = ("__getattr__", "__getattribute__")


def _lacks_member(r: Any, cls: tuple[str, int], name: str) -> bool:
    """Whether instances of repository class ``cls`` have no attribute ``name`` by any
    means the index can see: every base is in the repository, no class of its MRO is
    decorated, has a metaclass, or serves attributes dynamically, and none defines or
    assigns ``name``."""
    if name.startswith("__") and name.endswith("__"):
        return False
    order, gap = r.mro(cls)
    if gap is not None:
        return False
    for key in order:
        mf = r.mod(key[0])
        if mf is None:
            return False
        sc = mf.scopes[key[1]]
        if (sc.decos or sc.meta is not None or name in sc.byname or name in sc.inst
                or any(d in sc.byname for d in _DYNAMIC_ATTRS)):
            return False
    return True


def _missing_members(r: Any, facts: Any, lines: frozenset[int]) -> list[MissingName]:
    """Attribute reads and method calls at ``lines`` whose receiver has exactly one value,
    a repository module or an instance of one repository class, that lacks the name."""
    out: list[MissingName] = []
    for sidx, sc in enumerate(facts.scopes):
        sites = [(line, enc) for line, enc, access in sc.refs
                 if line in lines and enc[0] == "a" and "r" in access]
        sites += [(site[0], site[1]) for site in sc.calls
                  if site[0] in lines and site[1][0] == "a" and site[7] is None]
        for line, enc in sites:
            # one value, however it was found (a field's type is read off its assignments)
            base, _inferred = r.vals(facts, sidx, enc[1], None)
            if len(base) != 1:
                continue
            v, name = base[0], enc[2]
            if v[0] == "M" and _lacks_module_name(r, v[1], name):
                out.append(MissingName(facts.path, line, v[1], name, member=True))
            elif v[0] == "I" and _lacks_member(r, (v[1], v[2]), name):
                out.append(MissingName(facts.path, line, r.scope_id(v[1], v[2]), name,
                                       member=True))
    return out


def _side_calls(store: Store, state: dict[str, Any], lines_of: dict[str, frozenset[int]],
                paths: dict[str, str]) -> list[Edge]:
    out: list[Edge] = []
    for path in sorted(state):
        try:
            out.extend(_calls_at(state[path], lines_of[path],
                                 FactsLookup(dict(state), store, paths)))
        except RecursionError:  # too deeply nested to resolve: no obligations from it
            continue
    return out


def _calls_at(facts: Any, lines: frozenset[int], lookup: Any) -> list[Edge]:
    """Call edges of the scopes that have a call site at ``lines`` (only those scopes are
    resolved: a large module's other definitions cost time and say nothing here)."""
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
