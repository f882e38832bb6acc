"""Module-level lookups of the evaluator: which facts a module name denotes, what a
module's name binds (``module.name``, ``from module import name``), and which names
``from module import *`` binds (``__all__``)."""

from __future__ import annotations

import builtins
from typing import Any, Protocol

from impactlens.index.python.facts import B_CLASS, B_DEF, B_IMPORT, Enc, PyFileFacts
from impactlens.index.python.resolve.memo import memo
from impactlens.index.python.resolve.values import (
    U_LAZY,
    BuiltinInstance,
    External,
    Items,
    Module,
    Unknown,
    Variable,
)

BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__",
                                       "__path__", "__package__", "__loader__",
                                       "__builtins__", "__debug__", "__annotations__"}
_MODULE_ATTRS = {"__file__": "str", "__name__": "str", "__doc__": "str", "__package__": "str"}


class ModuleLookup(Protocol):
    """How resolution sees the rest of the repository (the indexer records every call)."""

    def module(self, name: str) -> PyFileFacts | None: ...

    def path(self, relpath: str) -> PyFileFacts | None: ...


class Modules:
    """Module lookups, mixed into :class:`~.evaluate.Evaluator` (whose ``ev`` they use)."""

    facts: PyFileFacts
    lookup: ModuleLookup
    sibling: bool  # a test module or conftest: its directory's modules import as top-level
    _mods: dict[str, PyFileFacts | None]
    _module_members: dict[Any, Items | None]
    _exports: dict[Any, frozenset[str] | None]

    def mod(self, name: str) -> PyFileFacts | None:
        """The facts of repository module ``name``, or None."""
        f = self._mods.get(name)
        if f is not None or name in self._mods:
            return f
        f = self.lookup.module(name)
        if f is None and self.sibling:
            d = self.facts.path.rpartition("/")[0]
            base = (d + "/" if d else "") + name.replace(".", "/")
            f = self.lookup.path(base + ".py") or self.lookup.path(base + "/__init__.py")
            if f is not None:
                self._mods.setdefault(f.module, f)
        self._mods[name] = f
        return f

    @memo("_module_members", [], retry_after_error=True)
    def module_member(self, module: str, name: str) -> Items | None:
        """Items for ``module.name``; None when the module is not in the repository."""
        facts = self.mod(module)
        if facts is None:
            sub = self.mod(module + "." + name)
            return [Module("M", sub.module)] if sub is not None else None
        return self._module_member(facts, name)

    def _module_member(self, facts: PyFileFacts, name: str) -> Items:
        sc0 = facts.scopes[0]
        bids = sc0.final.get(name) or sc0.byname.get(name)
        out: Items = []
        if bids:
            out = self._module_binding_items(facts, bids, name)
            if out and not all(type(o) is Unknown for o in out):
                return out
        for star, _line in reversed(facts.stars):
            exp = self.exports(star)
            if exp is None:
                if self.mod(star) is None:
                    return [External("X", star + "." + name)]
                continue
            if name in exp:
                got = self.module_member(star, name)
                if got:
                    return got
        sub = self.mod(facts.module + "." + name)
        if sub is not None:
            return [Module("M", sub.module)]
        if name in _MODULE_ATTRS:
            return [BuiltinInstance("K", _MODULE_ATTRS[name])]
        if "__getattr__" in sc0.byname:
            return [U_LAZY]  # a module-level __getattr__ supplies it dynamically
        return out

    def _module_binding_items(self, facts: PyFileFacts, bids: tuple[int, ...],
                              name: str) -> Items:
        sc0 = facts.scopes[0]
        out: Items = []
        assign: list[int] = []
        for b in bids:
            bind = sc0.binds[b]
            if bind[4] in (B_DEF, B_CLASS, B_IMPORT):
                items, _inf = self.ev(facts, 0, bind[1], None)  # type: ignore[attr-defined]
                for it in items:
                    if it not in out:
                        out.append(it)
            else:
                assign.append(b)
        if assign:
            out.append(Variable("V", facts.module, name, tuple(assign)))
        return out

    @memo("_exports", frozenset())
    def exports(self, module: str) -> frozenset[str] | None:
        """Names ``from module import *`` binds; None if unknown (external)."""
        facts = self.mod(module)
        if facts is None:
            return None
        if facts.all_spec is not None:
            names: set[str] = set()
            for part in facts.all_spec:
                if isinstance(part, str):
                    names.add(part)
                elif part[0] == "ref":
                    names |= self._all_ref(facts, part[1])
            return frozenset(names)
        names = {n for n in facts.scopes[0].byname if not n.startswith("_")}
        for star, _l in facts.stars:
            sub = self.exports(star)
            if sub:
                names |= sub
        return frozenset(names)

    def _all_ref(self, facts: PyFileFacts, enc: Enc) -> set[str]:
        """Names in another module's ``__all__`` referenced from this ``__all__``."""
        if enc[0] == "n":
            sc0 = facts.scopes[0]
            for b in sc0.byname.get(enc[1], ()):
                benc = sc0.binds[b][1]
                if benc[0] == "from" and benc[2] == "__all__":
                    return set(self.exports(benc[1]) or ())
        elif enc[0] == "a" and enc[2] == "__all__":
            items, _ = self.ev(facts, 0, enc[1], None)  # type: ignore[attr-defined]
            out: set[str] = set()
            for it in items:
                if type(it) is Module:
                    out |= set(self.exports(it.module) or ())
            return out
        return set()

    def _is_namespace_pkg(self, facts: PyFileFacts, top: str) -> bool:
        for _s, _l, full, _n, _a in facts.imports:
            if full.startswith(top + ".") and self.mod(full) is not None:
                return True
        return False
