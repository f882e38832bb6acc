"""What an edited Python file asks of the rest of the repository, read off its facts.

The change stage (``change/edit_uses.py``) decides which texts and lines to ask about;
the questions themselves — the calls written at some lines, the imported names and
members the target module or class lacks, the names a package re-exports — need the
resolver and the facts' layout, so they are answered here.
"""

from __future__ import annotations

from typing import Any

from impactlens.index.python.facts import CLASS, FUNCTION, PyFileFacts
from impactlens.index.python.resolve import K_CALL, ModuleLookup, resolver
from impactlens.model import Edge, EdgeKind, MissingName, Resolution

__all__ = ["calls_at", "from_imports", "missing_names", "reexported", "top_names"]

_DYNAMIC_ATTRS = ("__getattr__", "__getattribute__")


def from_imports(facts: PyFileFacts) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of each ``from module import name`` (not ``*``)."""
    return [(line, mod, name) for _s, line, mod, name, _a in facts.imports
            if name is not None and name != "*"]


def top_names(facts: PyFileFacts) -> set[str]:
    """The public functions and classes a module defines at its top level."""
    return {sc.name for sc in facts.scopes
            if sc.parent == 0 and sc.kind in (CLASS, FUNCTION) and not sc.name.startswith("_")}


def reexported(init: Any, module: str) -> tuple[tuple[str, ...], bool] | None:
    """The names package ``__init__`` facts ``init`` imports from ``module`` one by one,
    and whether it also imports everything from it with ``*``; ``None`` when ``init`` is
    not Python facts."""
    if not isinstance(init, PyFileFacts):
        return None
    imported = [name for _s, _l, mod, name, _a in init.imports if mod == module]
    names = tuple(dict.fromkeys(n for n in imported if n is not None and n != "*"))
    return names, "*" in imported


def missing_names(facts: PyFileFacts, lookup: ModuleLookup,
                  imports: list[tuple[int, str, str]], lines: frozenset[int]
                  ) -> list[MissingName]:
    """Of ``imports`` (``(line, module, name)``), those whose repository module has no
    such name, and the attribute reads and method calls at ``lines`` whose receiver's
    module or class lacks the member. A file too deeply nested to resolve asks nothing."""
    try:
        with resolver(facts, lookup) as r:
            out = [MissingName(facts.path, line, mod, name) for line, mod, name in imports
                   if _lacks_module_name(r, mod, name)]
            return out + _missing_members(r, facts, lines)
    except RecursionError:
        return []


def calls_at(facts: PyFileFacts, lines: frozenset[int], lookup: ModuleLookup) -> list[Edge]:
    """Call edges of the scopes that have a call site at ``lines`` (only those scopes are
    resolved: a large module's other definitions cost time and say nothing here). A file
    too deeply nested to resolve has none."""
    out: list[Edge] = []
    try:
        with resolver(facts, lookup) as r:
            for sidx, sc in enumerate(facts.scopes):
                if not any(site[0] in lines for site in sc.calls):
                    continue
                for e in r.scope_sink(facts.module, sidx, None, sc.qual).edges:
                    if e[2] == K_CALL and e[3] in lines and e[0] and e[1]:
                        out.append(Edge(e[0], e[1], EdgeKind.CALL, facts.path, e[3],
                                        Resolution(e[4]), e[5]))
    except RecursionError:
        return []
    return out


def _lacks_module_name(r: Any, module: str, name: str) -> bool:
    """Whether repository module ``module`` has no ``name`` in any form (a star import
    may supply any name, so a module with one never lacks it)."""
    target = r.mod(module)
    return target is not None and not target.stars and r.module_member(module, name) == []


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
        target = r.mod(key[0])
        if target is None:
            return False
        sc = target.scopes[key[1]]
        if (sc.decos or sc.meta is not None or name in sc.byname or name in sc.inst
                or any(d in sc.byname for d in _DYNAMIC_ATTRS)):
            return False
    return True


def _missing_members(r: Any, facts: PyFileFacts, lines: frozenset[int]) -> list[MissingName]:
    """Attribute reads and method calls at ``lines`` whose receiver has exactly one value,
    a repository module or an instance of one repository class, that lacks the name."""
    out: list[MissingName] = []
    for scope_index, sc in enumerate(facts.scopes):
        sites = [(line, enc) for line, enc, access in sc.refs
                 if line in lines and enc[0] == "a" and "r" in access]
        sites += [(site[0], site[1]) for site in sc.calls
                  if site[0] in lines and site[1][0] == "a" and site[7] is None]
        for line, enc in sites:
            # one value, however it was found (a field's type is read off its assignments)
            base, _inferred = r.vals(facts, scope_index, enc[1], None)
            if len(base) != 1:
                continue
            v, name = base[0], enc[2]
            if v[0] == "M" and _lacks_module_name(r, v[1], name):
                out.append(MissingName(facts.path, line, v[1], name, member=True))
            elif v[0] == "I" and _lacks_member(r, (v[1], v[2]), name):
                out.append(MissingName(facts.path, line, r.scope_id(v[1], v[2]), name,
                                       member=True))
    return out
