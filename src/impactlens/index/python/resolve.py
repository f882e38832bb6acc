"""Cross-file name and call resolution over :class:`PyFileFacts`.

``resolve_file(facts, lookup)`` evaluates the file's encoded call sites and
references against the facts of the modules it (transitively) names, which it
obtains only through ``lookup`` — so the result depends on nothing else and an
incremental re-resolution equals a full one. Everything is memoized inside one
call only.

Abstract values (``Val``)::

    ("M", module)                    a module
    ("C", module, sidx)              a class object
    ("I", module, sidx)              an instance of that class
    ("F", module, sidx, bound, recv) a function; bound: receiver supplies self/cls;
                                     recv: (module, sidx) of the receiver class or None
    ("X", dotted)                    something outside the repository
    ("XI",)                          a value produced by external code
    ("B", name)                      a builtin
    ("K", typename)                  an instance of a builtin type
    ("N",)                           None
    ("SL", module, sidx, encs, recv, mut)  a sequence display (elements evaluated
                                     lazily); mut: (module, scope, name) of the variable
                                     whose later ``x[k] = v`` / ``x.append(v)`` add entries
    ("SEQ", vals)                    an iterable of vals
    ("DL", module, sidx, enc, recv, mut)  a dict display (mut as for SL)
    ("G",) globals()  ("SUP", module, cls_sidx, recv) super()
    ("U", reason)                    unknown: "recv" (no type), "name" (bound nowhere)

Locations (resolved further with :meth:`_Resolver.deref`, and the reason for
``use`` edges)::

    ("V", module, name, bids)        a module-level variable (constant node)
    ("FLD", module, cls_sidx, name, recv)  a class or instance attribute (field node);
                                     recv: the instance's class when read via an instance
    ("P", module, getter_sidx, recv, setter)  a property (reading calls the getter;
                                     setter: (module, sidx) of property(fget, fset)'s fset)

Every lookup returns a list of candidates plus an ``inferred`` flag: True when
a step relied on an annotation, a return-type inference or a field's assigned
values rather than on names alone.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Protocol

from impactlens.index.python import argflow
from impactlens.index.python.facts import (
    B_CLASS,
    B_DEF,
    B_IMPORT,
    B_PARAM,
    CLASS,
    F_CLASSMETHOD,
    F_GENERATOR,
    F_PROPERTY,
    F_STATICMETHOD,
    FUNCTION,
    MODULE,
    P_POS,
    P_POSONLY,
    Enc,
    PyFileFacts,
    Scope,
    make_node,
)
from impactlens.index.python.tokens import ident_tokens
from impactlens.index.runtime import gc_paused, recursion_limit_at_least
from impactlens.model import (
    Edge,
    EdgeKind,
    FileResolution,
    Node,
    NodeKind,
    Resolution,
    UnresolvedReason,
    UnresolvedSite,
)

Val = tuple[Any, ...]
Items = list[Val]

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__",
                                        "__path__", "__package__", "__loader__",
                                        "__builtins__", "__debug__", "__annotations__"}
_MODULE_ATTRS = {"__file__": "str", "__name__": "str", "__doc__": "str", "__package__": "str"}
_BUILTIN_RESULT = {
    "str": "str", "repr": "str", "format": "str", "ascii": "str", "chr": "str", "hex": "str",
    "oct": "str", "bin": "str", "int": "int", "len": "int", "hash": "int", "ord": "int",
    "id": "int", "abs": "int", "float": "float", "bool": "bool", "isinstance": "bool",
    "issubclass": "bool", "callable": "bool", "hasattr": "bool", "all": "bool", "any": "bool",
    "dict": "dict", "bytes": "bytes", "bytearray": "bytearray", "complex": "complex",
    "object": "object", "range": "range", "slice": "slice", "memoryview": "memoryview",
}
_SEQ_BUILTINS = frozenset({"list", "sorted", "reversed", "tuple", "set", "frozenset", "iter"})

# edge kinds / resolutions as plain strings inside the resolver (enum attribute access is
# slow on the hot path); converted to the model enums once per file at the end
K_CALL, K_IMPORT, K_INHERIT, K_OVERRIDE = "call", "import", "inherit", "override"
K_INSTANTIATE, K_USE, K_CONTAINS, K_TESTS = "instantiate", "use", "contains", "tests"
R_EXACT, R_INFERRED, R_AMBIGUOUS = "exact", "inferred", "ambiguous"
U_DYNAMIC_GETATTR = UnresolvedReason.DYNAMIC_GETATTR
U_REGISTRY_DISPATCH = UnresolvedReason.REGISTRY_DISPATCH
U_IMPORTLIB = UnresolvedReason.IMPORTLIB
U_EVAL = UnresolvedReason.EVAL
U_GLOBALS = UnresolvedReason.GLOBALS
U_UNKNOWN_RECEIVER = UnresolvedReason.UNKNOWN_RECEIVER
U_UNKNOWN_NAME = UnresolvedReason.UNKNOWN_NAME
U_EXTERNAL = UnresolvedReason.EXTERNAL
_KIND_ENUM = {k.value: k for k in EdgeKind}
_METHOD = NodeKind.METHOD
_RES_ENUM = {r.value: r for r in Resolution}

U_RECV: Val = ("U", "recv")
U_NAME: Val = ("U", "name")
XI: Val = ("XI",)
NONE_V: Val = ("N",)
_EMPTY: tuple[Items, bool] = ([], False)
_MAX_CONTEXTS = 20000  # (method, receiver class) re-evaluations per file, a safety cap


class ModuleLookup(Protocol):
    """How resolution sees the rest of the repository (the indexer records every call)."""

    def module(self, name: str) -> PyFileFacts | None: ...

    def path(self, relpath: str) -> PyFileFacts | None: ...


_DETAILS: dict[tuple[Any, ...], str] = {}


def call_detail(args: int, kwargs: tuple[str, ...], star: bool, dstar: bool, bound: bool) -> str:
    """The JSON detail of a call site (memoized: a pure function of its arguments)."""
    key = (args, kwargs, star, dstar, bound)
    got = _DETAILS.get(key)
    if got is None:
        got = json.dumps({"args": args, "kwargs": list(kwargs), "star": star, "dstar": dstar,
                          "bound": bound}, separators=(",", ":"))
        if len(_DETAILS) < 65536:
            _DETAILS[key] = got
    return got


def deco_detail(detail: str) -> str:
    """A call of a decorated function whose decorators' wrapper runs in its place (the
    wrapper's edge is recorded beside it): ``"deco": true`` in the site detail."""
    return detail[:-1] + ',"deco":true}'


def recv_detail(detail: str, recv: str) -> str:
    """A call made by inherited code for an instance of class ``recv`` (its qualname)."""
    return detail[:-1] + f',"recv":{json.dumps(recv)}}}' if detail else ""


def flow_detail(detail: str) -> str:
    """An edge that holds for the argument types a call in this file passes (argflow.py)."""
    return detail[:-1] + ',"flow":true}' if detail else ""


@lru_cache(maxsize=4)
def use_detail(access: str) -> str:
    return json.dumps({"access": access}, separators=(",", ":"))


def render(enc: Enc, depth: int = 0) -> str:
    """Source-like text of an encoded expression (for unresolved sites)."""
    if depth > 8:
        return "..."
    tag = enc[0]
    if tag == "n":
        return str(enc[1])
    if tag == "a":
        return render(enc[1], depth + 1) + "." + str(enc[2])
    if tag == "c":
        return render(enc[1], depth + 1) + "()"
    if tag == "sub":
        key = enc[2]
        return render(enc[1], depth + 1) + ("[" + repr(key) + "]" if key is not None else "[...]")
    if tag == "sup":
        return "super()"
    if tag == "k":
        return "<" + str(enc[1]) + ">"
    if tag == "glob":
        return "globals()"
    if tag == "imp":
        return str(enc[1])
    return "<expr>"


# (src, dst, kind, line, resolution, detail, target key (module, sidx) | None)
RawEdge = tuple[str, str, str, int, str, str, Any]


class _Sink:
    """Collects raw edges for one scope evaluation."""

    __slots__ = ("edges", "unresolved")

    def __init__(self) -> None:
        # (src, dst, kind, line, resolution, detail, target key (module, sidx) | None)
        self.edges: list[RawEdge] = []
        # (line, scope qualname, reason, text, names)
        self.unresolved: list[tuple[int, str, UnresolvedReason, str, tuple[str, ...]]] = []


class _Resolver:
    def __init__(self, facts: PyFileFacts, lookup: ModuleLookup) -> None:
        self.facts = facts
        self.lookup = lookup
        self._mods: dict[str, PyFileFacts | None] = {facts.module: facts}
        self.sibling = facts.is_test or facts.is_conftest
        self._mm: dict[tuple[str, str], Items | None] = {}
        self._mm_busy: set[tuple[str, str]] = set()
        self._bv: dict[tuple[Any, ...], tuple[Items, bool]] = {}
        self._mro: dict[tuple[str, int], tuple[list[tuple[str, int]], str | None]] = {}
        self._ret: dict[tuple[Any, ...], tuple[Items, bool]] = {}
        self._fld: dict[tuple[str, int, str], tuple[Items, bool]] = {}
        self._exports: dict[str, frozenset[str] | None] = {}
        self._cattr: dict[tuple[Any, ...], tuple[Items, bool]] = {}
        self._scope_edges: dict[tuple[Any, ...], _Sink] = {}
        self._iter: dict[Val, Items] = {}
        self._attr_memo: dict[tuple[int, int, Any], tuple[Enc, tuple[Items, bool]]] = {}
        self._entry: dict[tuple[Val, Any], Items | None] = {}
        self._wrap: dict[tuple[str, int], tuple[Items, bool]] = {}
        self._seen_ctx: set[tuple[str, int, Any]] = set()
        self._ctx_todo: list[tuple[str, int, Any, int]] = []
        # while another file's code is evaluated for a receiver: the line of this file's
        # call that made the receiver known (what that code's seeds are recorded at)
        self._ctx_at: int | None = None
        self._ctxn: dict[tuple[Any, Any], set[str]] = {}
        self._selfsites: dict[tuple[str, int], tuple[list[Any], list[Any], set[str]]] = {}
        self.depth = 0
        # argument flows (argflow.py): parameter values of the flow being evaluated
        # ((module, function scope, name) -> values), the queue and its shared budget
        self._pctx: dict[tuple[str, int, str], Items] = {}
        self._flow_names: dict[tuple[str, int], frozenset[str]] = {}
        self.flows: list[Any] = []
        self.flow_seen: set[Any] = set()
        self.flow_budget = [argflow.MAX_FLOWS]
        self.flow_depth = 0

    # --------------------------------------------------------------- modules
    def mod(self, name: str) -> PyFileFacts | None:
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

    def module_member(self, modname: str, name: str) -> Items | None:
        """Items for ``modname.name``; None when the module is not in the repository."""
        key = (modname, name)
        got = self._mm.get(key)
        if got is not None or key in self._mm:
            return got
        mf = self.mod(modname)
        if mf is None:
            sub = self.mod(modname + "." + name)
            res: Items | None = [("M", sub.module)] if sub is not None else None
            self._mm[key] = res
            return res
        if key in self._mm_busy:
            return []
        self._mm_busy.add(key)
        try:
            res = self._module_member(mf, name)
        finally:
            self._mm_busy.discard(key)
        self._mm[key] = res
        return res

    def _module_member(self, mf: PyFileFacts, name: str) -> Items:
        sc0 = mf.scopes[0]
        bids = sc0.final.get(name) or sc0.byname.get(name)
        out: Items = []
        if bids:
            out = self._module_binding_items(mf, bids, name)
            if out and not all(o[0] == "U" for o in out):
                return out
        for star, _line in reversed(mf.stars):
            exp = self.exports(star)
            if exp is None:
                if self.mod(star) is None:
                    return [("X", star + "." + name)]
                continue
            if name in exp:
                got = self.module_member(star, name)
                if got:
                    return got
        sub = self.mod(mf.module + "." + name)
        if sub is not None:
            return [("M", sub.module)]
        if name in _MODULE_ATTRS:
            return [("K", _MODULE_ATTRS[name])]
        if "__getattr__" in sc0.byname:
            return [U_RECV]  # a module-level __getattr__ supplies it dynamically
        return out

    def _module_binding_items(self, mf: PyFileFacts, bids: tuple[int, ...], name: str) -> Items:
        sc0 = mf.scopes[0]
        out: Items = []
        assign: list[int] = []
        for b in bids:
            bind = sc0.binds[b]
            k = bind[4]
            if k in (B_DEF, B_CLASS, B_IMPORT):
                items, _inf = self.ev(mf, 0, bind[1], None)
                for it in items:
                    if it not in out:
                        out.append(it)
            else:
                assign.append(b)
        if assign:
            out.append(("V", mf.module, name, tuple(assign)))
        return out

    def exports(self, modname: str) -> frozenset[str] | None:
        """Names ``from modname import *`` binds; None if unknown (external)."""
        if modname in self._exports:
            return self._exports[modname]
        self._exports[modname] = frozenset()  # cycle guard
        mf = self.mod(modname)
        res: frozenset[str] | None
        if mf is None:
            res = None
        elif mf.all_spec is not None:
            names: set[str] = set()
            for part in mf.all_spec:
                if isinstance(part, str):
                    names.add(part)
                elif part[0] == "ref":
                    names |= self._all_ref(mf, part[1])
            res = frozenset(names)
        else:
            names = {n for n in mf.scopes[0].byname if not n.startswith("_")}
            for star, _l in mf.stars:
                sub = self.exports(star)
                if sub:
                    names |= sub
            res = frozenset(names)
        self._exports[modname] = res
        return res

    def _all_ref(self, mf: PyFileFacts, enc: Enc) -> set[str]:
        """Names in another module's ``__all__`` referenced from this ``__all__``."""
        if enc[0] == "n":
            sc0 = mf.scopes[0]
            for b in sc0.byname.get(enc[1], ()):
                benc = sc0.binds[b][1]
                if benc[0] == "from" and benc[2] == "__all__":
                    return set(self.exports(benc[1]) or ())
        elif enc[0] == "a" and enc[2] == "__all__":
            items, _ = self.ev(mf, 0, enc[1], None)
            out: set[str] = set()
            for it in items:
                if it[0] == "M":
                    out |= set(self.exports(it[1]) or ())
            return out
        return set()

    # ------------------------------------------------------------ evaluation
    def ev(self, mf: PyFileFacts, sidx: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        """Candidates for an encoded expression (locations not dereferenced)."""
        tag = enc[0]
        if tag == "n":
            return self.ev_name(mf, sidx, enc[1], enc[2], recv)
        if tag == "a":
            # attribute encodings are shared within a scope (extract.py), so one memo
            # entry serves every read of e.g. ``self.x`` and keeps long chains linear
            key = (id(enc), sidx, recv)
            got = self._attr_memo.get(key)
            if got is not None and got[0] is enc:
                return got[1]
            base, inf = self.ev(mf, sidx, enc[1], recv)
            if not base:
                res = _EMPTY
            else:
                items, inf2 = self.attr(base, enc[2])
                res = (items, inf or inf2)
            self._attr_memo[key] = (enc, res)
            return res
        if tag == "c":
            return self.ev_call(mf, sidx, enc, recv)
        if tag == "self":
            return [("I", *(recv or (mf.module, enc[1])))], False
        if tag == "an":
            return self.ev_ann(mf, enc, recv)
        if tag == "k":
            return [("K", enc[1])], False
        if tag == "none":
            return [NONE_V], False
        if tag == "def":
            return [("F", mf.module, enc[1], False, None)], False
        if tag == "cls":
            return [("C", mf.module, enc[1])], False
        if tag == "from":
            got = self.module_member(enc[1], enc[2])
            if got is None:
                return [("X", enc[1] + "." + enc[2])], False
            if not got:
                return [U_NAME], False
            return got, False
        if tag == "imp":
            name = enc[1]
            if self.mod(name) is not None:
                return [("M", self.mod(name).module)], False  # type: ignore[union-attr]
            if self._is_namespace_pkg(mf, name):
                return [("M", name)], False
            return [("X", name)], False
        if tag == "or":
            out: Items = []
            inf = False
            for e in enc[1]:
                items, i2 = self.ev(mf, sidx, e, recv)
                inf = inf or i2
                for it in items:
                    if it not in out:
                        out.append(it)
            return out, inf
        if tag == "sub":
            return self.ev_sub(mf, sidx, enc, recv)
        if tag == "it":
            vals, inf = self.vals(mf, sidx, enc[1], recv)
            return self.iterate(vals), inf
        if tag == "en":
            vals, inf = self.vals(mf, sidx, enc[1], recv)
            return self.enter(vals), True if vals else inf
        if tag == "isi":
            out = []
            for e in enc[1]:
                vals, _ = self.vals(mf, sidx, e, recv)
                for v in vals:
                    t = v[0]
                    if t == "C":
                        out.append(("I", v[1], v[2]))
                    elif t == "X" or t == "B":
                        out.append(XI)
            return out or [U_RECV], True
        if tag == "nisi":
            return self.ev_not_instance(mf, sidx, enc, recv)
        if tag == "clsp":
            return [("C", *(recv or (mf.module, enc[1])))], False
        if tag == "sup":
            if enc[1] < 0:
                return [U_RECV], False
            return [("SUP", mf.module, enc[1], recv)], False
        if tag == "ctype":
            vals, inf = self.vals(mf, sidx, enc[1], recv)
            out = []
            for v in vals:
                if v[0] == "I":
                    out.append(("C", v[1], v[2]))
                elif v[0] == "XI" or v[0] == "K":
                    out.append(XI)
                else:
                    out.append(U_RECV)
            return out, inf
        if tag == "sl":
            return [("SL", mf.module, sidx, enc[2], recv, None)], False
        if tag == "dl":
            return [("DL", mf.module, sidx, enc, recv, None)], False
        if tag == "glob":
            return [("G",)], False
        if tag == "dyn":
            return [], False
        if tag == "ix":
            vals, inf = self.vals(mf, sidx, enc[1], recv)
            return self.unpack(vals, enc[2]), inf
        if tag == "prop":
            return [("PROPOBJ", mf.module, sidx, enc)], False
        if tag == "alias":
            return [("ALIAS", mf.module, enc[2], enc[1])], False
        return [U_RECV], False

    def ev_not_instance(self, mf: PyFileFacts, sidx: int, enc: Enc,
                        recv: Any) -> tuple[Items, bool]:
        """``x`` after ``if isinstance(x, A): return``: x's values but A's instances."""
        vals, inf = self.vals(mf, sidx, enc[1], recv)
        excluded: set[tuple[str, int]] = set()
        for e in enc[2]:
            excluded.update((v[1], v[2]) for v in self.vals(mf, sidx, e, recv)[0] if v[0] == "C")
        if not excluded:
            return vals, inf
        return [v for v in vals if v[0] != "I"
                or excluded.isdisjoint(self.mro((v[1], v[2]))[0])], inf

    def _is_namespace_pkg(self, mf: PyFileFacts, top: str) -> bool:
        for _s, _l, full, _n, _a in mf.imports:
            if full.startswith(top + ".") and self.mod(full) is not None:
                return True
        return False

    def vals(self, mf: PyFileFacts, sidx: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        items, inf = self.ev(mf, sidx, enc, recv)
        return self.deref(items, inf)

    def deref(self, items: Items, inf: bool = False) -> tuple[Items, bool]:
        """Replace locations by the values stored in them."""
        for it in items:
            t = it[0]
            if t == "V" or t == "FLD" or t == "P":
                break
        else:
            return items, inf
        out: Items = []
        for it in items:
            t = it[0]
            if t == "V":
                got, i2 = self.variable_vals(it)
            elif t == "FLD":
                got, i2 = self.field_vals(it[1], it[2], it[3], it[4])
            elif t == "P":
                got, i2 = self.returns(it[1], it[2], it[3])
                i2 = True
            else:
                if it not in out:
                    out.append(it)
                continue
            inf = inf or i2
            for g in got:
                if g not in out:
                    out.append(g)
        return out, inf

    def variable_vals(self, v: Val) -> tuple[Items, bool]:
        mf = self.mod(v[1])
        if mf is None:
            return [U_RECV], False
        out: Items = []
        inf = False
        for b in v[3]:
            got, i2 = self.binding_vals(mf, 0, b, None)
            inf = inf or i2
            for g in got:
                if g not in out:
                    out.append(g)
        return out, inf

    def binding_vals(self, mf: PyFileFacts, sidx: int, bid: int, recv: Any) -> tuple[Items, bool]:
        key = (mf.module, sidx, bid, recv)
        got = self._bv.get(key)
        if got is not None:
            return got
        self._bv[key] = ([], False)  # recursion guard
        if self.depth > 50:
            res: tuple[Items, bool] = ([U_RECV], False)
        else:
            self.depth += 1
            try:
                sc = mf.scopes[sidx]
                bind = sc.binds[bid]
                flowed = self._pctx.get((mf.module, sidx, bind[0])) if (
                    self._pctx and bind[4] == B_PARAM) else None
                res = (flowed, True) if flowed else self.vals(mf, sidx, bind[1], recv)
                if sc.muts and bind[0] in sc.muts:
                    mut = (mf.module, sidx, bind[0])
                    res = ([(*v[:5], mut) if v[0] in ("SL", "DL") else v for v in res[0]],
                           res[1])
            finally:
                self.depth -= 1
        self._bv[key] = res
        return res

    def mut_entries(self, mut: Any) -> list[tuple[Any, PyFileFacts, int, Enc]]:
        """(key, facts, scope, value enc) entries stored into a container variable."""
        if mut is None:
            return []
        mf = self.mod(mut[0])
        if mf is None:
            return []
        return [(k, mf, s, e) for k, e, s in mf.scopes[mut[1]].muts.get(mut[2], ())]

    def entry_vals(self, v: Val, key: Any) -> Items | None:
        """Values of ``display[key]`` (literal key), or None if the entry is unknown."""
        mkey = (v, key)
        if mkey in self._entry:
            return self._entry[mkey]
        self._entry[mkey] = None
        got = self._entry_vals(v, key)
        self._entry[mkey] = got
        return got

    def _entry_vals(self, v: Val, key: Any) -> Items | None:
        dmf = self.mod(v[1])
        if dmf is None:
            return None
        cands: list[tuple[PyFileFacts, int, Enc]] = []
        if v[0] == "DL":
            keys = v[3][1]
            if key in keys:
                cands.append((dmf, v[2], v[3][2][keys.index(key)]))
        elif -len(v[3]) <= key < len(v[3]):
            cands.append((dmf, v[2], v[3][key]))
        for k, emf, es, e in self.mut_entries(v[5]):
            if k is None or k == key:
                cands.append((emf, es, e))
        if not cands:
            return None
        out: Items = []
        for cmf, cs, e in cands:
            got, _ = self.vals(cmf, cs, e, v[4])
            for g in got:
                if g not in out and g[0] != "N":
                    out.append(g)
        return out

    def ev_name(self, mf: PyFileFacts, sidx: int, name: str, reach: Any,
                recv: Any) -> tuple[Items, bool]:
        scopes = mf.scopes
        sc = scopes[sidx]
        if type(reach) is int:
            reach = sc.lreach[reach]
        if reach:
            if sc.kind == FUNCTION:
                if len(reach) == 1:
                    return self.binding_vals(mf, sidx, reach[0], recv)
                return self._local_vals(mf, sidx, reach, recv)
            return self._scope_binding_items(mf, sidx, reach, name, recv)
        s = sidx
        first = True
        while s >= 0:
            sc = scopes[s]
            if sc.kind == MODULE:
                return self.module_name(mf, name)
            if first or sc.kind == FUNCTION:
                if not (sc.kind == FUNCTION and name in sc.glob):
                    bids = sc.byname.get(name)
                    if bids:
                        if sc.kind == FUNCTION:
                            return self._local_vals(mf, s, bids, recv)
                        return self._scope_binding_items(mf, s, bids, name, recv)
                elif first:
                    return self.module_name(mf, name)
            first = False
            s = sc.parent
        return [U_NAME], False

    def _local_vals(self, mf: PyFileFacts, sidx: int, bids: Any, recv: Any) -> tuple[Items, bool]:
        if len(bids) == 1:
            return self.binding_vals(mf, sidx, bids[0], recv)
        out: Items = []
        inf = False
        for b in bids:
            got, i2 = self.binding_vals(mf, sidx, b, recv)
            inf = inf or i2
            for g in got:
                if g not in out:
                    out.append(g)
        return out, inf

    def _scope_binding_items(self, mf: PyFileFacts, sidx: int, bids: Any, name: str,
                             recv: Any) -> tuple[Items, bool]:
        """Bindings of a module or class scope: definitions, imports or locations."""
        sc = mf.scopes[sidx]
        out: Items = []
        assign: list[int] = []
        inf = False
        for b in bids:
            bind = sc.binds[b]
            k = bind[4]
            if k in (B_DEF, B_CLASS, B_IMPORT):
                got, i2 = self.ev(mf, sidx, bind[1], recv)
                inf = inf or i2
                for g in got:
                    if g not in out:
                        out.append(g)
            else:
                assign.append(b)
        if assign:
            if sc.kind == MODULE:
                out.append(("V", mf.module, name, tuple(assign)))
            else:
                out.append(("FLD", mf.module, sidx, name, None))
        return out, inf

    def module_name(self, mf: PyFileFacts, name: str) -> tuple[Items, bool]:
        """A name read at module level after the module ran (globals of functions)."""
        key = (mf.module, name)
        got = self._mm.get(key)
        if got is None and key not in self._mm:
            got = self.module_member(mf.module, name)
        if got:
            return got, False
        if name in _BUILTINS:
            return [("B", name)], False
        return [U_NAME], False

    def ev_call(self, mf: PyFileFacts, sidx: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        fitems, inf = self.ev(mf, sidx, enc[1], recv)
        fvals, inf = self.deref(fitems, inf)
        out: Items = []
        for v in fvals:
            t = v[0]
            if t == "F":
                got, i2 = self.returns(v[1], v[2], v[4])
                inf = inf or i2
            elif t == "C":
                got = [("I", v[1], v[2])]
            elif t == "I":
                got, i2 = self.call_instance(v)
                inf = inf or i2
            elif t == "X":
                if len(enc) > 2 and v[1].rpartition(".")[2] in ("copy", "deepcopy"):
                    got, _ = self.vals(mf, sidx, enc[2], recv)
                else:
                    got = [XI]
            elif t == "XI":
                got = [XI]
            elif t == "B":
                got = self.builtin_result(mf, sidx, v[1], enc, recv)
            else:
                got = [U_RECV]
            for g in got:
                if g not in out:
                    out.append(g)
        return out, inf

    def builtin_result(self, mf: PyFileFacts, sidx: int, name: str, enc: Enc,
                       recv: Any) -> Items:
        k = _BUILTIN_RESULT.get(name)
        if k is not None:
            return [("K", k)]
        if len(enc) > 2 and (name in _SEQ_BUILTINS or name == "next"):
            vals, _ = self.vals(mf, sidx, enc[2], recv)
            elems = self.iterate(vals)
            if name == "next":
                return elems
            return [("SEQ", tuple(elems))]
        if name == "open":
            return [XI]
        return [U_RECV]

    def call_instance(self, v: Val) -> tuple[Items, bool]:
        items, _inf = self.class_attr((v[1], v[2]), "__call__", True)
        out: Items = []
        for it in items:
            if it[0] == "F":
                got, _ = self.returns(it[1], it[2], it[4])
                out.extend(got)
        return out or [U_RECV], True

    def ev_sub(self, mf: PyFileFacts, sidx: int, enc: Enc, recv: Any) -> tuple[Items, bool]:
        vals, inf = self.vals(mf, sidx, enc[1], recv)
        key = enc[2]
        out: Items = []
        for v in vals:
            t = v[0]
            if t == "C":
                out.append(v)  # Generic[T] alias
            elif (t == "DL" and key is not None) or (t == "SL" and isinstance(key, int)):
                got = self.entry_vals(v, key)
                out.extend(got if got is not None else [U_RECV])
            elif t == "SL" or t == "SEQ" or t == "GEN":
                out.extend(self.iterate([v]))
            elif t == "TUP":
                out.extend(self.unpack([v], key) if isinstance(key, int) and key >= 0
                           else self.iterate([v]))
            elif t == "MAP":
                out.extend(v[2])
            elif t == "I":
                got, _ = self.class_attr((v[1], v[2]), "__getitem__", True)
                res: Items = []
                for f in got:
                    if f[0] == "F":
                        r, _ = self.returns(f[1], f[2], f[4])
                        res.extend(r)
                out.extend(res or [U_RECV])
            elif t == "K" and v[1] in ("str", "bytes"):
                out.append(v)
            elif t == "X" or t == "XI" or t == "K":
                out.append(U_RECV)
            else:
                out.append(U_RECV)
        return out, inf

    def unpack(self, vals: Items, i: int) -> Items:
        """Element ``i`` of destructuring each value (``a, b = value``)."""
        out: Items = []
        for v in vals:
            t = v[0]
            if t == "SL":
                got = self.entry_vals(v, i)
                got = got if got is not None else [U_RECV]
            elif t == "TUP":
                got = list(v[1][i]) if i < len(v[1]) else [U_RECV]
            elif t == "N":
                continue
            else:
                got = self.iterate([v])
            for g in got:
                if g not in out:
                    out.append(g)
        return out

    def iterate(self, vals: Items) -> Items:
        """Element values of iterating each value (memoized per value; cycle-safe)."""
        if len(vals) == 1:
            return list(self._iterate_one(vals[0]))
        out: Items = []
        for v in vals:
            for g in self._iterate_one(v):
                if g not in out:
                    out.append(g)
        return out

    def _iterate_one(self, v: Val) -> Items:
        got = self._iter.get(v)
        if got is None:
            self._iter[v] = []  # in progress: a container holding itself adds nothing
            got = self._iterate_uncached(v)
            self._iter[v] = got
        return got

    def _iterate_uncached(self, v: Val) -> Items:
        out: Items = []
        t = v[0]
        if t == "SL":
            smf = self.mod(v[1])
            if smf is None:
                return out
            elems = [(smf, v[2], e) for e in v[3]]
            elems.extend((emf, es, e) for _k, emf, es, e in self.mut_entries(v[5]))
            for emf, es, e in elems:
                got, _ = self.vals(emf, es, e, v[4])
                for g in got:
                    if g not in out and g[0] != "N":
                        out.append(g)
        elif t == "SEQ":
            for g in v[1]:
                if g not in out:
                    out.append(g)
        elif t == "GEN":
            for g in self.yields(v[1], v[2], v[3]):
                if g not in out:
                    out.append(g)
        elif t == "TUP":
            for part in v[1]:
                for g in part:
                    if g not in out:
                        out.append(g)
        elif t == "MAP":
            for g in v[1]:
                if g not in out:
                    out.append(g)
        elif t == "K" and v[1] in ("str",):
            out.append(v)
        elif t == "DL":
            out.append(("K", "str"))
        elif t == "I":
            got, _ = self.class_attr((v[1], v[2]), "__iter__", True)
            res: Items = []
            for it in got:
                if it[0] != "F":
                    continue
                r, _ = self.returns(it[1], it[2], it[4])
                for x in r:
                    if x[0] in ("SEQ", "GEN", "SL"):
                        res.extend(self.iterate([x]))
                    elif x[0] == "I":  # an iterator: elements come from __next__
                        nxt, _ = self.class_attr((x[1], x[2]), "__next__", True)
                        for f in nxt:
                            if f[0] == "F":
                                n, _ = self.returns(f[1], f[2], f[4])
                                res.extend(n)
                    else:
                        res.append(U_RECV)
            for x in res or [U_RECV]:
                if x not in out:
                    out.append(x)
        elif t == "N":
            return out
        else:
            out.append(U_RECV)
        return out

    def enter(self, vals: Items) -> Items:
        out: Items = []
        for v in vals:
            t = v[0]
            if t == "I":
                got, _ = self.class_attr((v[1], v[2]), "__enter__", True)
                if not got:
                    got, _ = self.class_attr((v[1], v[2]), "__aenter__", True)
                res: Items = []
                for it in got:
                    if it[0] == "F":
                        r, _ = self.returns(it[1], it[2], it[4])
                        res.extend(r)
                    else:
                        res.append(U_RECV if it[0] == "U" else XI)
                out.extend(res or [U_RECV])
            elif t == "SEQ":
                out.extend(v[1])  # @contextmanager def f() -> Iterator[T]
            elif t == "GEN":
                out.extend(self.yields(v[1], v[2], v[3]))  # @contextmanager def f(): yield x
            elif t == "XI" or t == "X":
                out.append(XI)
            else:
                out.append(U_RECV)
        return out

    def ev_ann(self, mf: PyFileFacts, enc: Enc, recv: Any) -> tuple[Items, bool]:
        alts, ctx, value = enc[1], enc[2], enc[3]
        out = self.ann_vals(mf, ctx, alts, recv)
        if (not out or all(o[0] == "U" for o in out)) and value is not None:
            got, _ = self.vals(mf, ctx, value, recv)
            return got, True
        return out, True

    def ann_vals(self, mf: PyFileFacts, ctx: int, alts: tuple[Enc, ...], recv: Any) -> Items:
        out: Items = []
        for a in alts:
            t = a[0]
            if t == "t":
                vals, _ = self.vals(mf, ctx, a[1], recv)
                for v in vals:
                    vt = v[0]
                    if vt == "C":
                        out.append(("I", v[1], v[2]))
                    elif vt == "ALIAS":  # a type alias: its own annotation
                        amf = self.mod(v[1])
                        if amf is not None and self.depth < 40:
                            self.depth += 1
                            try:
                                out.extend(self.ann_vals(amf, v[2], v[3], recv))
                            finally:
                                self.depth -= 1
                    elif vt == "X" or vt == "B" or vt == "XI":
                        out.append(XI)
                    elif vt == "U":
                        out.append(v)
            elif t == "none":
                out.append(NONE_V)
            elif t == "seq":
                out.append(("SEQ", tuple(self.ann_vals(mf, ctx, a[1], recv))))
            elif t == "type":
                for v in self.ann_vals(mf, ctx, a[1], recv):
                    if v[0] == "I":
                        out.append(("C", v[1], v[2]))
            elif t == "tup":
                out.append(("TUP", tuple(tuple(self.ann_vals(mf, ctx, part, recv))
                                         for part in a[1])))
            elif t == "map":
                out.append(("MAP", tuple(self.ann_vals(mf, ctx, a[1], recv)),
                            tuple(self.ann_vals(mf, ctx, a[2], recv))))
            elif t == "self":
                if recv is not None:
                    out.append(("I", *recv))
                else:
                    s = mf.scopes[ctx]
                    if s.kind == CLASS:
                        out.append(("I", mf.module, ctx))
        return out

    # ------------------------------------------------------------ attributes
    def attr(self, base: Items, name: str) -> tuple[Items, bool]:
        if len(base) == 1:
            v = base[0]
            t = v[0]
            if t == "I":
                return self.class_attr((v[1], v[2]), name, True)
            if t == "XI" or t == "K":
                return [XI], False
        base, inf = self.deref(base)
        out: Items = []
        for v in base:
            t = v[0]
            if t == "M":
                got = self.module_member(v[1], name)
                if got is None:
                    got = [("X", v[1] + "." + name)]
                elif not got:
                    got = [U_NAME]
            elif t == "I":
                got, i2 = self.class_attr((v[1], v[2]), name, True)
                inf = inf or i2
            elif t == "C":
                got, i2 = self.class_attr((v[1], v[2]), name, False)
                inf = inf or i2
            elif t == "SUP":
                got, i2 = self.super_attr(v, name)
            elif t == "X":
                got = [("X", v[1] + "." + name)]
            elif t in ("XI", "K", "SL", "SEQ", "DL", "B", "GEN", "TUP", "MAP"):
                got = [XI]
            elif t == "F":
                got = [XI]  # function attributes (decorator-added): outside the repo
            elif t == "N":
                continue
            elif t == "U":
                got = [v]
            else:
                got = [U_RECV]
            for g in got:
                if g not in out:
                    out.append(g)
        return out, inf

    def mro(self, ck: tuple[str, int]) -> tuple[list[tuple[str, int]], str | None]:
        """C3 linearization of repo classes; second item: "external" / "unknown" gaps."""
        got = self._mro.get(ck)
        if got is not None:
            return got
        self._mro[ck] = ([ck], "unknown")  # cycle guard
        mf = self.mod(ck[0])
        if mf is None:
            res: tuple[list[tuple[str, int]], str | None] = ([ck], "unknown")
            self._mro[ck] = res
            return res
        sc = mf.scopes[ck[1]]
        gap: str | None = None
        seqs: list[list[tuple[str, int]]] = []
        direct: list[tuple[str, int]] = []
        for benc in sc.bases:
            vals, _ = self.vals(mf, sc.parent, benc, None)
            found = False
            for v in vals:
                if v[0] == "C":
                    bk = (v[1], v[2])
                    if bk not in direct and bk != ck:
                        direct.append(bk)
                        bm, bgap = self.mro(bk)
                        seqs.append(list(bm))
                        if bgap == "unknown" or gap is None:
                            gap = bgap or gap
                    found = True
                elif v[0] == "B":
                    if v[1] != "object":
                        gap = gap or "external"
                    found = True
                elif v[0] == "X" or v[0] == "XI":
                    gap = gap or "external"
                    found = True
            if not found:
                gap = "unknown"
        seqs.append(list(direct))
        res = ([ck, *_c3(seqs)], gap)
        self._mro[ck] = res
        return res

    def class_attr(self, ck: tuple[str, int], name: str, on_instance: bool,
                   start: int = 0, recv: Any = None) -> tuple[Items, bool]:
        key = (ck, name, on_instance) if not start and recv is None else (
            ck, name, on_instance, start, recv)
        got = self._cattr.get(key)
        if got is not None:
            return got
        self._cattr[key] = ([], False)
        res = self._class_attr(ck, name, on_instance, start, recv or ck)
        self._cattr[key] = res
        return res

    def _class_attr(self, ck: tuple[str, int], name: str, on_instance: bool, start: int,
                    recv: tuple[str, int]) -> tuple[Items, bool]:
        order, gap = self.mro(ck)
        if name == "__class__" and on_instance:
            return [("C", *recv)], False
        for k in order[start:]:
            mf = self.mod(k[0])
            if mf is None:
                continue
            sc = mf.scopes[k[1]]
            bids = sc.final.get(name) or sc.byname.get(name)
            if bids:
                return self._class_member(mf, k, sc, bids, name, on_instance, recv), False
            if on_instance and name in sc.inst:
                return [("FLD", k[0], k[1], name, recv)], False
        if gap == "external":
            return [XI], False
        if name.startswith("__") and name.endswith("__"):
            return [XI], False  # object's own dunders
        # not defined statically: set from outside, by a metaclass or __getattr__
        return [U_RECV], False

    def _class_member(self, mf: PyFileFacts, k: tuple[str, int], sc: Scope, bids: Any,
                      name: str, on_instance: bool, recv: tuple[str, int]) -> Items:
        out: Items = []
        assign = False
        for b in bids:
            bind = sc.binds[b]
            kind = bind[4]
            if kind == B_DEF:
                fs = bind[1][1]
                fl = mf.scopes[fs].flags
                if fl & F_PROPERTY:
                    out.append(("P", mf.module, fs, recv, None) if on_instance
                               else ("F", mf.module, fs, False, recv))
                elif fl & F_STATICMETHOD:
                    out.append(("F", mf.module, fs, False, None))
                elif fl & F_CLASSMETHOD:
                    out.append(("F", mf.module, fs, True, recv))
                else:
                    out.append(("F", mf.module, fs, on_instance, recv))
            elif kind in (B_CLASS, B_IMPORT):
                got, _ = self.ev(mf, k[1], bind[1], None)
                out.extend(got)
            elif bind[1][0] == "prop":
                getters, _ = self.vals(mf, k[1], bind[1][1], None)
                setter = None
                if bind[1][2] is not None:
                    setters, _ = self.vals(mf, k[1], bind[1][2], None)
                    setter = next(((f[1], f[2]) for f in setters if f[0] == "F"), None)
                for g in getters:
                    if g[0] == "F":
                        out.append(("P", g[1], g[2], recv, setter) if on_instance
                                   else ("F", g[1], g[2], False, None))
            else:
                assign = True
        if assign:
            out.append(("FLD", k[0], k[1], name, recv if on_instance else None))
        return out

    def super_attr(self, v: Val, name: str) -> tuple[Items, bool]:
        cls_key = (v[1], v[2])
        recv = v[3] or cls_key
        order, _gap = self.mro(recv)
        try:
            pos = order.index(cls_key) + 1
        except ValueError:
            order, _gap = self.mro(cls_key)
            pos = 1
            recv = cls_key
        items, inf = self.class_attr(recv, name, True, pos, recv)
        return items, inf

    def field_vals(self, modname: str, csidx: int, name: str,
                   recv: Any = None) -> tuple[Items, bool]:
        """Values of a field: its class-level bindings and every ``self.name = ...`` in the
        methods of the receiver's classes (evaluated with ``self`` as the receiver);
        declared annotations, when present, win over assigned values."""
        key = (modname, csidx, name, recv)
        got = self._fld.get(key)
        if got is not None:
            return got
        self._fld[key] = ([], True)
        mf = self.mod(modname)
        if mf is None:
            return [U_RECV], True
        sc = mf.scopes[csidx]
        encs: list[tuple[PyFileFacts, int, Enc]] = []
        for b in sc.byname.get(name, ()):
            encs.append((mf, csidx, sc.binds[b][1]))
        for enc, _l, _e, msidx in sc.inst.get(name, ()):
            encs.append((mf, msidx, enc))
        if recv is not None:
            order, _gap = self.mro(recv)
            for k in order:
                if k == (modname, csidx):
                    continue
                kmf = self.mod(k[0])
                if kmf is None:
                    continue
                for enc, _l, _e, msidx in kmf.scopes[k[1]].inst.get(name, ()):
                    encs.append((kmf, msidx, enc))
        annotated = [x for x in encs if x[2][0] == "an"]
        out: Items = []
        for emf, s, e in annotated or encs:
            vals, _ = self.vals(emf, s, e, recv)
            for v in vals:
                if v not in out:
                    out.append(v)
        res = (out, True)
        self._fld[key] = res
        return res

    def returns(self, modname: str, fsidx: int, recv: Any) -> tuple[Items, bool]:
        key = (modname, fsidx, recv)
        got = self._ret.get(key)
        if got is not None:
            return got
        self._ret[key] = ([], True)
        mf = self.mod(modname)
        if mf is None:
            return [U_RECV], True
        sc = mf.scopes[fsidx]
        out: Items = []
        if self.depth > 40:
            res: tuple[Items, bool] = ([U_RECV], True)
        else:
            self.depth += 1
            try:
                if sc.ret is not None:
                    out, _ = self.vals(mf, fsidx, sc.ret, recv)
                elif sc.flags & F_GENERATOR:
                    out = [("GEN", modname, fsidx, recv)]
                elif not sc.returns:
                    out = [NONE_V]
                else:
                    for e in sc.returns:
                        vals, _ = self.vals(mf, fsidx, e, recv)
                        for v in vals:
                            if v not in out:
                                out.append(v)
            finally:
                self.depth -= 1
            res = (out, True)
        self._ret[key] = res
        return res


    def yields(self, modname: str, fsidx: int, recv: Any) -> Items:
        """Values a generator function yields (``yield x``; ``yield from`` is unknown)."""
        key = ("yield", modname, fsidx, recv)
        got = self._ret.get(key)
        if got is not None:
            return got[0]
        self._ret[key] = ([], True)
        mf = self.mod(modname)
        out: Items = []
        if mf is not None:
            for e in mf.scopes[fsidx].yields:
                vals, _ = self.vals(mf, fsidx, e, recv)
                for v in vals:
                    if v not in out:
                        out.append(v)
        self._ret[key] = (out, True)
        return out


def _c3(seqs: list[list[tuple[str, int]]]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    seqs = [list(s) for s in seqs if s]
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head in other[1:] for other in seqs):
                break
        else:
            # inconsistent hierarchy: fall back to depth-first order
            for s in seqs:
                for c in s:
                    if c not in out:
                        out.append(c)
            return out
        out.append(head)
        seqs = [[c for c in s if c != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out


_IMPLICIT = frozenset({"deco", "raise", "iter", "with", "op", "classdef"})
_CALLBACK_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max"})


class _Sites(_Resolver):
    """Site resolution and edge emission on top of the evaluator."""

    # ------------------------------------------------------------------ ids
    def scope_id(self, modname: str, sidx: int) -> str:
        mf = self._mods.get(modname) or self.mod(modname)
        if mf is None:
            return modname
        return mf.scopes[sidx].qual

    def item_id(self, it: Val) -> str | None:
        t = it[0]
        if t == "F" or t == "C" or t == "P":
            return self.scope_id(it[1], it[2])
        if t == "V":
            return it[1] + "." + it[2]
        if t == "FLD":
            return self.scope_id(it[1], it[2]) + "." + it[3]
        if t == "M":
            return str(it[1])
        return None

    # ---------------------------------------------------------------- calls
    def resolve_call(self, mf: PyFileFacts, sidx: int, site: Any, src: str, sink: _Sink,
                     recv: Any) -> None:
        line, fenc, special = site[0], site[1], site[7]
        qual = mf.scopes[sidx].qual
        if special is not None:
            kind = special[0]
            if kind == "importlib" and special[1] is not None:
                return
            if kind in _IMPLICIT:
                self._implicit_call(mf, sidx, site, kind, src, sink, recv)
                return
            reason = {"getattr": U_DYNAMIC_GETATTR,
                      "eval": U_EVAL,
                      "importlib": U_IMPORTLIB,
                      "globals": U_GLOBALS}[kind]
            text = (render(fenc) + "(...)") if kind != "globals" else render(fenc)
            sink.unresolved.append((line, qual, reason, text[:160], tuple(special[2])))
            return
        tag = fenc[0]
        if tag == "sub":
            if fenc[1][0] == "glob":
                return
            if fenc[2] is None or not self._dict_key_known(mf, sidx, fenc, recv):
                names = self._registry_names(mf, sidx, fenc[1], recv)
                sink.unresolved.append((line, qual, U_REGISTRY_DISPATCH,
                                        (render(fenc) + "(...)")[:160], names))
                return
        items, inf = self.ev(mf, sidx, fenc, recv)
        self._emit_callee(mf, sidx, items, inf, site, src, sink, recv)

    def _implicit_call(self, mf: PyFileFacts, sidx: int, site: Any, kind: str, src: str,
                       sink: _Sink, recv: Any) -> None:
        """Calls the interpreter makes: decorator factories' results, ``raise Error``,
        ``for`` (``__iter__``/``__next__``) and ``with`` (``__enter__``/``__exit__``)."""
        line, fenc, special = site[0], site[1], site[7]
        if kind == "op":
            self._dunder_call(mf, sidx, site, src, sink, recv)
            return
        if kind == "classdef":
            self._class_creation(mf, sidx, site, src, sink)
            return
        if kind == "deco":
            items, inf = self.ev(mf, sidx, fenc, recv)
            self._emit_callee(mf, sidx, items, inf, site, src, sink, recv, quiet=True)
            return
        vals, inf = self.vals(mf, sidx, fenc, recv)
        if kind == "raise":
            classes = [v for v in vals if v[0] == "C"]
            if classes:
                self._emit_callee(mf, sidx, classes, inf, site, src, sink, recv, quiet=True)
            return
        first, second = special[1], special[2]
        for v in vals:
            if v[0] != "I":
                continue
            res = R_INFERRED if inf else R_EXACT
            got, _ = self.class_attr((v[1], v[2]), first, True)
            for f in got:
                if f[0] != "F":
                    continue
                sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line, res,
                                   call_detail(0, (), False, False, True), (f[1], f[2])))
                if kind == "iter":
                    rets, _ = self.returns(f[1], f[2], f[4])
                    for rv in rets:
                        if rv[0] != "I":
                            continue
                        nxt, _ = self.class_attr((rv[1], rv[2]), second, True)
                        for g in nxt:
                            if g[0] == "F":
                                sink.edges.append((src, self.scope_id(g[1], g[2]), K_CALL, line,
                                                   R_INFERRED,
                                                   call_detail(0, (), False, False, True),
                                                   (g[1], g[2])))
            if kind == "with":
                got, _ = self.class_attr((v[1], v[2]), second, True)
                for f in got:
                    if f[0] == "F":
                        sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line, res,
                                           call_detail(3, (), False, False, True),
                                           (f[1], f[2])))

    def _dunder_call(self, mf: PyFileFacts, sidx: int, site: Any, src: str, sink: _Sink,
                     recv: Any) -> None:
        """``a + b`` → ``a.__add__`` (else ``b.__radd__``), ``x[k]``, ``len(x)``, ``k in x``...
        Only for receivers of a known repository class that defines the method."""
        line, fenc, nargs, special = site[0], site[1], site[2], site[7]
        _op, dunder, rdunder, right = special
        found = self._dunder_edges(mf, sidx, fenc, dunder, nargs, line, src, sink, recv)
        if not found and dunder.startswith("__i") and rdunder:
            found = self._dunder_edges(mf, sidx, fenc, rdunder, nargs, line, src, sink, recv)
        elif not found and right is not None and rdunder:
            self._dunder_edges(mf, sidx, right, rdunder, nargs, line, src, sink, recv)

    def _dunder_edges(self, mf: PyFileFacts, sidx: int, enc: Enc, dunder: str, nargs: int,
                      line: int, src: str, sink: _Sink, recv: Any) -> bool:
        if enc[0] == "u":
            return False
        vals, inf = self.vals(mf, sidx, enc, recv)
        found = False
        for v in vals:
            if v[0] != "I":
                continue
            got, _ = self.class_attr((v[1], v[2]), dunder, True)
            for f in got:
                if f[0] == "F":
                    found = True
                    sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line,
                                       R_INFERRED if inf else R_EXACT,
                                       call_detail(nargs, (), False, False, True), (f[1], f[2])))
        return found

    def _class_creation(self, mf: PyFileFacts, sidx: int, site: Any, src: str,
                        sink: _Sink) -> None:
        """``class C(Base, metaclass=M)`` calls ``Base.__init_subclass__`` and ``M``'s
        ``__new__``/``__init__`` (the metaclass may come from a base)."""
        line = site[0]
        ck = (mf.module, site[1][1])
        order, _gap = self.mro(ck)
        if len(order) > 1:
            got, _ = self.class_attr(ck, "__init_subclass__", False, 1)
            for f in got:
                if f[0] == "F":
                    sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line, R_EXACT,
                                       call_detail(0, (), False, True, True), (f[1], f[2])))
        for k in order:
            kmf = self.mod(k[0])
            if kmf is None or kmf.scopes[k[1]].meta is None:
                continue
            ksc = kmf.scopes[k[1]]
            metas, _ = self.vals(kmf, ksc.parent, ksc.meta, None)
            for m in metas:
                if m[0] != "C":
                    continue
                for name, n in (("__new__", 4), ("__init__", 3)):
                    got, _ = self.class_attr((m[1], m[2]), name, True)
                    for f in got:
                        if f[0] == "F":
                            sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line,
                                               R_EXACT, call_detail(n, (), False, True,
                                                                    name == "__init__"),
                                               (f[1], f[2])))
            break

    def _dict_key_known(self, mf: PyFileFacts, sidx: int, fenc: Enc, recv: Any) -> bool:
        """``table["lit"]`` / ``items[2]`` into a display whose entry is known."""
        key = fenc[2]
        vals, _ = self.vals(mf, sidx, fenc[1], recv)
        if not vals:
            return False
        for v in vals:
            if (v[0] == "DL" or (v[0] == "SL" and isinstance(key, int))) and \
                    self.entry_vals(v, key) is not None:
                continue
            return False
        return True

    def _registry_names(self, mf: PyFileFacts, sidx: int, base: Enc,
                        recv: Any) -> tuple[str, ...]:
        names: list[str] = []
        if base[0] == "n":
            names.append(base[1])
        elif base[0] == "a":
            names.append(base[2])
        vals, _ = self.vals(mf, sidx, base, recv)
        for v in vals:
            members: list[Val] = []
            if v[0] == "DL" or v[0] == "SL":
                dmf = self.mod(v[1])
                if dmf is not None:
                    encs = [(dmf, v[2], e) for e in (v[3][2] if v[0] == "DL" else v[3])]
                    encs.extend((emf, es, e) for _k, emf, es, e in self.mut_entries(v[5]))
                    for emf, es, e in encs:
                        got, _ = self.vals(emf, es, e, v[4])
                        members.extend(got)
            for m in members:
                if m[0] in ("F", "C"):
                    i = self.item_id(m)
                    if i and i not in names:
                        names.append(i)
        return tuple(names[:32])

    def _emit_callee(self, mf: PyFileFacts, sidx: int, items: Items, inf: bool, site: Any,
                     src: str, sink: _Sink, recv: Any, quiet: bool = False) -> None:
        line, fenc, nargs, kws, star, dstar, fargs, _special = site
        if len(items) == 1:
            it = items[0]
            t = it[0]
            if t == "F":  # the common case: one function
                tk = (it[1], it[2])
                detail = call_detail(nargs, kws, star, dstar, bool(it[3]))
                fmf = self.mod(it[1])
                if (fmf is not None and fmf.scopes[it[2]].dval is not None
                        and self._wrapper_edges(src, tk, bool(it[3]), site, sink)):
                    detail = deco_detail(detail)
                sink.edges.append((src, self.scope_id(it[1], it[2]), K_CALL, line,
                                   R_INFERRED if inf else R_EXACT, detail, tk))
                self._seed_callee(mf, sidx, it, fargs, recv, line)
                if fargs:
                    argflow.note(self, mf, sidx, fargs, recv, tk, bool(it[3]), it[4], line)
                if fargs:
                    self._passed_functions(mf, sidx, [(K_CALL, bool(it[3]), tk)], fargs, src,
                                           line, sink, recv)
                return
            if t == "X" or t == "XI":
                # a call into a known external name (``asyncio.run``, ``@dataclass``) is
                # recorded with that dotted target after the site's names (see _external)
                if not quiet and (fenc[0] == "a" or t == "X"):
                    self._external(mf, sidx, fenc, line, [it], sink)
                return
            if t == "B":
                if t == "B" and fargs and it[1] in _CALLBACK_BUILTINS:
                    self._builtin_callbacks(mf, sidx, fargs, src, line, sink, recv)
                return
        # pending: (dst, kind, bound, target key)
        pending: list[tuple[str, str, bool, Any]] = []
        primaries: list[str] = []
        unknown: str | None = None
        external = False
        work = list(items)
        seen: set[Val] = set()
        i = 0
        while i < len(work) and i < 64:
            it = work[i]
            i += 1
            if it in seen:
                continue
            seen.add(it)
            t = it[0]
            if t == "F":
                fid = self.scope_id(it[1], it[2])
                pending.append((fid, K_CALL, bool(it[3]), (it[1], it[2])))
                self._seed_callee(mf, sidx, it, fargs, recv, line)
                if fargs:
                    argflow.note(self, mf, sidx, fargs, recv, (it[1], it[2]), bool(it[3]),
                                 it[4], line)
                if fid not in primaries:
                    primaries.append(fid)
            elif t == "C":
                cid = self.scope_id(it[1], it[2])
                pending.append((cid, K_INSTANTIATE, True, (it[1], it[2])))
                if cid not in primaries:
                    primaries.append(cid)
                for cid_, tk_ in self.constructors((it[1], it[2])):
                    pending.append((cid_, K_CALL, True, tk_))
                    if type(tk_) is tuple and type(tk_[1]) is int:
                        self._seed(tk_, (it[1], it[2]), self._own_line(mf, line))
                        if fargs:
                            argflow.note(self, mf, sidx, fargs, recv, tk_, True,
                                         (it[1], it[2]), line)
            elif t == "I":
                got, _ = self.class_attr((it[1], it[2]), "__call__", True)
                inf = True
                for f in got:
                    if f[0] == "F":
                        fid = self.scope_id(f[1], f[2])
                        pending.append((fid, K_CALL, True, (f[1], f[2])))
                        if fid not in primaries:
                            primaries.append(fid)
                    elif f[0] == "U":
                        unknown = unknown or f[1]
                    elif f[0] == "X" or f[0] == "XI":
                        external = True
            elif t == "V" or t == "FLD":
                dst = self.item_id(it)
                if dst:
                    sink.edges.append((src, dst, K_USE, line, R_INFERRED if inf else R_EXACT,
                                       use_detail("read"), None))
                got, _ = self.deref([it])
                inf = True
                work.extend(got)
            elif t == "P":
                gid = self.scope_id(it[1], it[2])
                sink.edges.append((src, gid, K_CALL, line, R_INFERRED if inf else R_EXACT,
                                   call_detail(0, (), False, False, True), (it[1], it[2])))
                got, _ = self.returns(it[1], it[2], it[3])
                inf = True
                work.extend(got)
            elif t == "X" or t == "XI":
                external = True
            elif t == "U" and unknown != "recv":
                unknown = it[1]
        res = R_AMBIGUOUS if len(primaries) > 1 else R_INFERRED if inf else R_EXACT
        for dst, kind, bound, tk in pending:
            detail = call_detail(nargs, kws, star, dstar, bound)
            if kind == K_CALL and tk is not None:
                fmf = self.mod(tk[0])
                if (fmf is not None and fmf.scopes[tk[1]].dval is not None
                        and self._wrapper_edges(src, tk, bound, site, sink)):
                    detail = deco_detail(detail)
            sink.edges.append((src, dst, kind, line, res, detail, tk))
        if pending and fargs:
            self._passed_functions(mf, sidx, [(p[1], p[2], p[3]) for p in pending], fargs, src,
                                   line, sink, recv)
        reason = None
        if not pending:
            if unknown == "name":
                reason = U_UNKNOWN_NAME
            elif unknown is not None:
                reason = U_UNKNOWN_RECEIVER
            elif external:
                if not quiet:
                    self._external(mf, sidx, fenc, line, work, sink)
                return
        if reason is not None and not quiet:
            sink.unresolved.append((line, mf.scopes[sidx].qual, reason,
                                    (render(fenc) + "(...)")[:160], _site_names(fenc)))

    def _external(self, mf: PyFileFacts, sidx: int, fenc: Enc, line: int, items: Items,
                  sink: _Sink) -> None:
        """An EXTERNAL site: its names are the site's own, then every dotted external
        target (``("X", dotted)``) the callee evaluated to — the pycg export's external
        callees. A name call with no dotted target (a value produced by external code)
        is not recorded: it says nothing an attribute site would not."""
        targets = tuple(it[1] for it in items if it[0] == "X")
        if fenc[0] != "a" and not targets:
            return
        sink.unresolved.append((line, mf.scopes[sidx].qual, U_EXTERNAL,
                                (render(fenc) + "(...)")[:160], _site_names(fenc) + targets))

    def wrappers(self, tk: tuple[str, int]) -> tuple[Items, bool]:
        """What a call through a decorated function's name runs first: the wrapper
        functions / callable instances its decorators returned, and whether those are
        all of it (False when a decorator may return the function itself or something
        unknown — then the function is also called directly)."""
        got = self._wrap.get(tk)
        if got is not None:
            return got
        self._wrap[tk] = ([], False)  # a decorator that calls what it decorates
        fmf = self.mod(tk[0])
        sc = fmf.scopes[tk[1]] if fmf is not None else None
        out: Items = []
        alone = True
        if sc is not None and sc.dval is not None:
            vals, _ = self.vals(fmf, sc.parent, sc.dval, None)  # type: ignore[arg-type]
            for v in vals:
                t = v[0]
                if t == "I" or (t == "F" and (v[1], v[2]) != tk):
                    out.append(v)
                else:
                    alone = False
        got = self._wrap[tk] = (out, alone and bool(out))
        return got

    def _wrapper_edges(self, src: str, tk: tuple[str, int], bound: bool, site: Any,
                       sink: _Sink) -> bool:
        """Edges to the wrappers a call of decorated ``tk`` runs (the call of ``tk``
        itself stays: impact needs it). True when the wrappers are all that runs first."""
        wraps, alone = self.wrappers(tk)
        line, _f, nargs, kws, star, dstar = site[:6]
        for w in wraps:
            if w[0] == "F":
                sink.edges.append((src, self.scope_id(w[1], w[2]), K_CALL, line, R_INFERRED,
                                   call_detail(nargs, kws, star, dstar, bound), (w[1], w[2])))
                continue
            got, _ = self.class_attr((w[1], w[2]), "__call__", True)
            for f in got:
                if f[0] == "F":
                    sink.edges.append((src, self.scope_id(f[1], f[2]), K_CALL, line,
                                       R_INFERRED, call_detail(nargs, kws, star, dstar, True),
                                       (f[1], f[2])))
        return alone

    def _builtin_callbacks(self, mf: PyFileFacts, sidx: int, fargs: tuple[Any, ...], src: str,
                           line: int, sink: _Sink, recv: Any) -> None:
        """``map(f, xs)``, ``sorted(xs, key=f)``...: the builtin calls ``f`` for ``src``."""
        for _pos, aenc in fargs:
            vals, _ = self.vals(mf, sidx, aenc, recv)
            for v in vals:
                if v[0] == "F":
                    sink.edges.append((src, self.scope_id(v[1], v[2]), K_CALL, line,
                                       R_INFERRED, call_detail(1, (), False, False, bool(v[3])),
                                       (v[1], v[2])))

    def constructors(self, ck: tuple[str, int]) -> list[tuple[str, Any]]:
        """(id, target key) of what ``Cls(...)`` runs in the repository: ``__new__`` and
        the ``__init__`` found through the MRO — a written one, or the one a @dataclass
        generates (a synthesized ``Cls.__init__`` node, see :meth:`dataclass_inits`)."""
        out: list[tuple[str, Any]] = []
        got, _ = self.class_attr(ck, "__new__", False)
        out.extend((self.scope_id(f[1], f[2]), (f[1], f[2])) for f in got if f[0] == "F")
        order, _gap = self.mro(ck)
        for k in order:
            kmf = self.mod(k[0])
            if kmf is None:
                continue
            ksc = kmf.scopes[k[1]]
            if "__init__" in ksc.byname:
                got, _ = self.class_attr(ck, "__init__", True)
                out.extend((self.scope_id(f[1], f[2]), (f[1], f[2])) for f in got
                           if f[0] == "F")
                break
            if ksc.dc is not None and ksc.dc[0]:
                out.append((ksc.qual + ".__init__", None))
                break
        return out

    def dataclass_fields(self, ck: tuple[str, int]) -> list[tuple[Any, ...]]:
        """Fields of the generated ``__init__``: base dataclasses first (C3 reversed), a
        redefined field keeping its first position; each (name, ann, default, kw_only,
        factory, facts, class scope)."""
        order, _gap = self.mro(ck)
        fields: dict[str, tuple[Any, ...]] = {}
        for k in reversed(order):
            kmf = self.mod(k[0])
            if kmf is None or kmf.scopes[k[1]].dc is None:
                continue
            for fld in kmf.scopes[k[1]].dc[2]:
                fields[fld[0]] = (*fld, kmf, kmf.scopes[k[1]].parent)
        return list(fields.values())

    def _passed_functions(self, mf: PyFileFacts, sidx: int, targets: list[Any],
                          fargs: tuple[Any, ...], src: str, line: int, sink: _Sink,
                          recv: Any) -> None:
        """``run(helper)`` where ``run`` calls its parameter: ``run`` calls ``helper``.

        The edge is the true call relation (``run`` → ``helper``, inferred, with the
        argument shape of ``run``'s own invocation) but it is produced here, at the site
        that passes ``helper`` (its file/line), because only this site knows the value.
        The passing site itself references ``helper`` (a ``use`` edge, access ``ref``).
        """
        for kind, bound, tk in targets:
            if kind != K_CALL or tk is None:
                continue
            cmf = self.mod(tk[0])
            if cmf is None:
                continue
            cs = cmf.scopes[tk[1]]
            if not cs.pcalls:
                continue
            for pos, aenc in fargs:
                pname = None
                if isinstance(pos, int):
                    idx = pos + (1 if bound else 0)
                    if idx < len(cs.params) and cs.params[idx][1] in (P_POSONLY, P_POS):
                        pname = cs.params[idx][0]
                else:
                    for p in cs.params:
                        if p[0] == pos:
                            pname = pos
                if pname is None or pname not in cs.pcalls:
                    continue
                n, kw, st, dst_, caller_sidx = cs.pcalls[pname]
                caller = cmf.scopes[caller_sidx].qual
                vals, _ = self.vals(mf, sidx, aenc, recv)
                for v in vals:
                    if v[0] == "F":
                        sink.edges.append((caller, self.scope_id(v[1], v[2]), K_CALL, line,
                                           R_INFERRED, call_detail(n, kw, st, dst_, bool(v[3])),
                                           (v[1], v[2])))
                    elif v[0] == "C":
                        sink.edges.append((caller, self.scope_id(v[1], v[2]), K_INSTANTIATE,
                                           line, R_INFERRED, call_detail(n, kw, st, dst_, True),
                                           (v[1], v[2])))
                        for cid_, tk_ in self.constructors((v[1], v[2])):
                            sink.edges.append((caller, cid_, K_CALL, line, R_INFERRED,
                                               call_detail(n, kw, st, dst_, True), tk_))

    # ----------------------------------------------------------------- refs
    def ref_items(self, mf: PyFileFacts, sidx: int, name: str, reach: Any) -> Items:
        """What a name read denotes, or [] when it is a local/closure variable."""
        scopes = mf.scopes
        sc = scopes[sidx]
        if type(reach) is int:
            reach = sc.lreach[reach]
        if reach:
            if sc.kind == FUNCTION:
                return []
            items, _ = self._scope_binding_items(mf, sidx, reach, name, None)
            return items
        s = sidx
        first = True
        while s >= 0:
            sc = scopes[s]
            if sc.kind == MODULE:
                items, _ = self.module_name(mf, name)
                return items
            if first or sc.kind == FUNCTION:
                if not (sc.kind == FUNCTION and name in sc.glob):
                    bids = sc.byname.get(name)
                    if bids:
                        if sc.kind == FUNCTION:
                            return []
                        items, _ = self._scope_binding_items(mf, s, bids, name, None)
                        return items
                elif first:
                    items, _ = self.module_name(mf, name)
                    return items
            first = False
            s = sc.parent
        return []

    def resolve_ref(self, mf: PyFileFacts, sidx: int, ref: Any, src: str, sink: _Sink,
                    recv: Any) -> None:
        line, enc, access = ref
        tag = enc[0]
        inf = False
        if tag == "n":
            items = self.ref_items(mf, sidx, enc[1], enc[2])
        elif tag == "a":
            base, inf = self.ev(mf, sidx, enc[1], recv)
            if not base:
                return
            items, inf2 = self.attr(base, enc[2])
            inf = inf or inf2
        elif tag == "def":  # a lambda expression: its scope holds (references) it
            items = [("F", mf.module, enc[1], False, None)]
        else:
            return
        if not items:
            return
        nprim = sum(1 for it in items if it[0] in ("V", "FLD", "P", "F", "C"))
        res = (R_AMBIGUOUS if nprim > 1 else
               R_INFERRED if inf else R_EXACT)
        for it in items:
            t = it[0]
            if t == "V" or t == "FLD":
                dst = self.item_id(it)
                if dst is None:
                    continue
                if access == "rw":
                    sink.edges.append((src, dst, K_USE, line, res, use_detail("read"), None))
                    sink.edges.append((src, dst, K_USE, line, res, use_detail("write"),
                                       None))
                else:
                    sink.edges.append((src, dst, K_USE, line, res,
                                       use_detail("write" if access == "w" else "read"), None))
            elif access == "b":
                continue  # a receiver: the attribute access itself carries the edge
            elif t == "P":
                gmf = self.mod(it[1])
                if gmf is None:
                    continue
                gid = gmf.scopes[it[2]].qual
                if "r" in access:
                    sink.edges.append((src, gid, K_CALL, line, res,
                                       call_detail(0, (), False, False, True), (it[1], it[2])))
                    self._seed((it[1], it[2]), it[3], line)  # the getter runs for recv
                if "w" in access:
                    setter = gmf.scopes[it[2]].setter
                    tk = it[4] or (it[1], setter if setter >= 0 else it[2])
                    if it[4] is not None:
                        gid = self.scope_id(*it[4])
                    sink.edges.append((src, gid, K_CALL, line, res,
                                       call_detail(1, (), False, False, True), tk))
            elif (t == "F" or t == "C") and access == "r":
                dst = self.item_id(it)
                if dst is not None:
                    sink.edges.append((src, dst, K_USE, line, res, use_detail("ref"), None))

    # ---------------------------------------------------------------- scopes
    def scope_sink(self, modname: str, sidx: int, recv: Any, src: str = "") -> _Sink:
        """Resolved edges of one scope (memoized; foreign scopes for fixtures/helpers)."""
        key = (modname, sidx, recv)
        got = self._scope_edges.get(key)
        if got is not None:
            return got
        sink = _Sink()
        self._scope_edges[key] = sink
        mf = self.mod(modname)
        if mf is None:
            return sink
        sc = mf.scopes[sidx]
        for site in sc.calls:
            try:
                self.resolve_call(mf, sidx, site, src, sink, recv)
            except RecursionError:
                sink.unresolved.append((site[0], sc.qual, U_UNKNOWN_RECEIVER,
                                        "<expression nested too deeply>", ()))
        for ref in sc.refs:
            try:
                self.resolve_ref(mf, sidx, ref, src, sink, recv)
            except RecursionError:
                continue
        return sink

    # ------------------------------------------------------------------ run
    def run(self) -> FileResolution:
        f = self.facts
        path = f.path
        scopes = f.scopes
        src_ids = [sc.qual for sc in scopes]
        from impactlens.index.python.testdisc import TestDiscovery

        disc = TestDiscovery(self)
        disc.discover()
        for sidx, tid in disc.own.items():
            src_ids[sidx] = tid
        raw: list[RawEdge] = []
        unresolved: list[tuple[int, str, UnresolvedReason, str, tuple[str, ...]]] = []
        for sidx in range(len(scopes)):
            sink = self.scope_sink(f.module, sidx, None, src_ids[sidx])
            raw.extend(sink.edges)
            unresolved.extend(sink.unresolved)
        self._contexts(raw)
        argflow.run_flows(self, raw)
        self._structure(raw, unresolved, src_ids)
        raw.extend(disc.tests_edges(src_ids))
        # nodes
        nodes: list[Node] = []
        own = disc.own
        for row in f.nodes:
            sidx = row[11]
            if sidx > 0 and sidx in own:
                node = disc.test_node(row, sidx)
            else:
                node = make_node(row, path)
            nodes.append(node)
            if node.parent is not None:
                raw.append((node.parent, node.id, K_CONTAINS, node.start_line, R_EXACT, "",
                            None))
        for node in (*disc.inherited_nodes(), *self.dataclass_inits(raw)):
            nodes.append(node)
            raw.append((node.parent, node.id, K_CONTAINS, node.start_line, R_EXACT, "", None))
        kinds, ress = _KIND_ENUM, _RES_ENUM
        edges = [Edge(e[0], e[1], kinds[e[2]], path, e[3], ress[e[4]], e[5])
                 for e in sorted({e[:6] for e in raw if e[0] and e[1]})]
        unres = [UnresolvedSite(path, u[0], u[1], u[5], u[3], u[4])
                 for u in sorted({(u[0], u[1], u[2].value, u[3], u[4], u[2])
                                  for u in unresolved})]
        nodes.sort(key=_node_key)
        return FileResolution(path=path, nodes=tuple(nodes), edges=tuple(edges),
                              unresolved=tuple(unres))

    def dataclass_inits(self, raw: list[RawEdge]) -> list[Node]:
        """A METHOD node for each @dataclass ``__init__`` generated in this file (its
        signature from the fields, so construction sites can be checked against it), with
        the calls the generated code makes: default factories and ``__post_init__``."""
        f = self.facts
        out: list[Node] = []
        for sidx, sc in enumerate(f.scopes):
            if sc.kind != CLASS or sc.dc is None or not sc.dc[0] or "__init__" in sc.byname:
                continue
            ck = (f.module, sidx)
            fields = self.dataclass_fields(ck)
            params = ["self"]
            star = False
            for name, ann, has_default, kw_only, _factory, _m, _s in \
                    sorted(fields, key=lambda x: bool(x[3])):
                if kw_only and not star:
                    params.append("*")
                    star = True
                params.append(f"{name}: {ann}" + (" = ..." if has_default else ""))
            sig = f"def __init__({', '.join(params)}):"
            qual = sc.qual + ".__init__"
            out.append(Node(id=qual, kind=_METHOD, qualname=qual, file=f.path,
                            start_line=sc.def_line, end_line=sc.def_line, signature=sig,
                            parent=sc.qual, ids=ident_tokens(qual, sig), imports=f.mod_imports))
            line = sc.def_line
            for _n, _a, _d, _k, factory, fmf, fs in fields:
                if factory is None:
                    continue
                vals, _ = self.vals(fmf, fs, factory, None)
                for v in vals:
                    if v[0] == "F":
                        raw.append((qual, self.scope_id(v[1], v[2]), K_CALL, line, R_EXACT,
                                    call_detail(0, (), False, False, bool(v[3])), None))
                    elif v[0] == "C":
                        raw.append((qual, self.scope_id(v[1], v[2]), K_INSTANTIATE, line,
                                    R_EXACT, call_detail(0, (), False, False, True), None))
            got, _ = self.class_attr(ck, "__post_init__", True)
            for g in got:
                if g[0] == "F":
                    raw.append((qual, self.scope_id(g[1], g[2]), K_CALL, line, R_EXACT,
                                call_detail(0, (), False, False, True), None))
        return out

    # ------------------------------------------------ receiver-class contexts
    def _own_line(self, mf: PyFileFacts, line: int) -> int | None:
        """The line of this file a receiver context found at ``line`` of ``mf`` is recorded
        at: ``line`` itself in this file; inside another file's code, the line of this
        file's call that led there, or None when there is none (another module's lines
        never enter this file's output: see index/interface.py)."""
        return line if mf.path == self.facts.path else self._ctx_at

    def _seed(self, tk: tuple[str, int], recv: Any, line: int | None) -> None:
        """A call (at ``line`` of this file) of method ``tk`` on an instance (or subclass)
        ``recv`` whose MRO may dispatch ``tk``'s ``self.x``/``super().x``/``cls()`` sites
        differently than the method's own class does: evaluated again under ``recv``
        (:meth:`_contexts`)."""
        if recv is None or line is None:
            return
        key = (tk[0], tk[1], recv)
        if key in self._seen_ctx:
            return
        self._seen_ctx.add(key)
        mf = self.mod(tk[0])
        if mf is None:
            return
        sc = mf.scopes[tk[1]]
        # on its own class a method runs as its own file resolves it (and that seeds the
        # methods its self sites reach with its class)
        if (tk[0], sc.cls) == recv or sc.selfs == ((), ()) or len(self.mro(recv)[0]) < 2:
            return
        if self.self_sites(tk[0], tk[1])[2] & self.ctx_names(recv, (tk[0], sc.cls)):
            self._ctx_todo.append((*key, line))

    def _seed_callee(self, mf: PyFileFacts, sidx: int, it: Val, fargs: Any, recv: Any,
                     line: int) -> None:
        """The receiver context of a called function ``it`` (an ``F`` item): its bound
        receiver, or for a method called through its class, its first argument."""
        tk = (it[1], it[2])
        if it[3]:
            self._seed(tk, it[4], self._own_line(mf, line))
        elif fargs:
            self._seed_unbound(mf, sidx, fargs, recv, tk, line)

    def _seed_unbound(self, mf: PyFileFacts, sidx: int, fargs: Any, recv: Any,
                      tk: tuple[str, int], line: int) -> None:
        """``Base.m(self, ...)``: an instance method called through its class runs on its
        first argument, whose class may dispatch ``m``'s ``self`` sites differently."""
        fmf = self.mod(tk[0])
        if fmf is None:
            return
        fsc = fmf.scopes[tk[1]]
        if fsc.cls < 0 or fsc.flags & (F_CLASSMETHOD | F_STATICMETHOD):
            return
        for pos, enc in fargs:
            if pos == 0:
                for v in self.vals(mf, sidx, enc, recv)[0]:
                    if v[0] == "I":
                        self._seed(tk, (v[1], v[2]), self._own_line(mf, line))

    def _contexts(self, raw: list[RawEdge]) -> None:
        """Inherited code run for a known receiver class ``R``: a ``self.m()`` site in an
        ancestor's method reaches what ``R``'s MRO gives (``Base.hello → Left.greet`` when
        ``hello`` is called on a ``Child(Left, Right)``; ``super()`` follows ``R``'s MRO).
        The method's own file records the targets for its own class; the file making the
        call adds those that differ for ``R`` (inferred, ``R`` in the detail), and follows
        the methods those sites reach under the same receiver. Like a passed callback's
        edge, such an edge is recorded at the call in this file that made ``R`` known
        (its line), since only that site knows the receiver."""
        try:
            self._contexts_loop(raw)
        finally:
            self._ctx_at = None

    def _contexts_loop(self, raw: list[RawEdge]) -> None:
        done = 0
        while self._ctx_todo and done < _MAX_CONTEXTS:
            mod, m, rk, at = self._ctx_todo.pop()
            self._ctx_at = at
            done += 1
            amf = self.mod(mod)
            if amf is None or amf.scopes[m].cls < 0:
                continue
            calls, refs, _attrs = self.self_sites(mod, m)
            names = self.ctx_names(rk, (mod, amf.scopes[m].cls))
            src = amf.scopes[m].qual
            base, sub_ = _Sink(), _Sink()
            for attr, site in calls:
                fenc = site[1]
                if attr in names:
                    self.resolve_call(amf, m, site, src, sub_, rk)
                    self.resolve_call(amf, m, site, src, base, None)
                elif fenc[0] == "a" and fenc[1][0] != "sup":
                    # same target as for the method's own class: only follow it
                    for g in self.class_attr(rk, attr, True)[0]:
                        if g[0] == "F" and g[3]:
                            self._seed((g[1], g[2]), rk, at)
                elif fenc[0] == "a":  # super(): R's MRO may put another class next
                    self.resolve_call(amf, m, site, src, sub_, rk)
                    self.resolve_call(amf, m, site, src, base, None)
            for attr, ref in refs:  # reads matter when they run a property's getter
                if attr in names and any(g[0] == "P" for g in self.class_attr(rk, attr, True)[0]):
                    self.resolve_ref(amf, m, ref, src, sub_, rk)
                    self.resolve_ref(amf, m, ref, src, base, None)
            have = {(e[1], e[2], e[3]) for e in base.edges}
            rid = self.scope_id(*rk)
            for e in sub_.edges:
                if e[2] == K_USE:
                    continue
                if e[6] is not None and e[2] == K_CALL:
                    self._seed(e[6], rk, at)
                if (e[1], e[2], e[3]) in have:
                    continue
                raw.append((e[0], e[1], e[2], at, R_INFERRED, recv_detail(e[5], rid), e[6]))

    def ctx_names(self, rk: tuple[str, int], ak: tuple[str, int]) -> set[str]:
        """Names defined by the classes of ``rk``'s MRO outside ``ak``'s own MRO: the only
        attributes whose lookup can differ between the two."""
        got = self._ctxn.get((rk, ak))
        if got is None:
            amro = set(self.mro(ak)[0])
            got = set()
            for k in self.mro(rk)[0]:
                if k not in amro:
                    got |= self._class_names(k)
            self._ctxn[(rk, ak)] = got
        return got

    def _class_names(self, ck: tuple[str, int]) -> set[str]:
        mf = self.mod(ck[0])
        if mf is None:
            return set()
        return set(mf.scopes[ck[1]].byname)  # class-level names: methods, properties...

    def self_sites(self, modname: str, m: int) -> tuple[list[Any], list[Any], set[str]]:
        """(attr, site) of a method's calls and references whose target depends on the
        runtime class of ``self``/``cls`` (found by the extractor), and their attributes."""
        key = (modname, m)
        got = self._selfsites.get(key)
        if got is not None:
            return got
        mf = self.mod(modname)
        calls: list[Any] = []
        refs: list[Any] = []
        if mf is not None:
            sc = mf.scopes[m]
            scalls, srefs = sc.selfs
            calls = [(a, sc.calls[i]) for a, i in scalls]
            refs = [(a, sc.refs[i]) for a, i in srefs]
        got = self._selfsites[key] = (calls, refs, {a for a, _ in calls} | {a for a, _ in refs})
        return got

    def _structure(self, raw: list[RawEdge], unresolved: list[Any], src_ids: list[str]) -> None:
        """Import, inherit and override edges; unresolvable imports."""
        f = self.facts
        scopes = f.scopes
        for sidx, line, mod, name, alias in f.imports:
            src = src_ids[sidx]
            qual = scopes[sidx].qual
            if name is None or name == "*":
                m = self.mod(mod)
                if m is not None:
                    raw.append((src, m.module, K_IMPORT, line, R_EXACT,
                                _import_detail(mod if name is None else "*", alias), None))
                elif self._top_in_repo(mod):
                    unresolved.append((line, qual, U_UNKNOWN_NAME,
                                       f"import {mod}", (mod.rpartition(".")[2],)))
                continue
            items = self.module_member(mod, name)
            if items is None:
                if self._top_in_repo(mod):
                    unresolved.append((line, qual, U_UNKNOWN_NAME,
                                       f"from {mod} import {name}", (name,)))
                continue
            dsts = [d for d in (self.item_id(it) for it in items) if d]
            if not dsts:
                if any(it[0] == "U" for it in items) or not items:
                    unresolved.append((line, qual, U_UNKNOWN_NAME,
                                       f"from {mod} import {name}", (name,)))
                continue
            res = R_AMBIGUOUS if len(set(dsts)) > 1 else R_EXACT
            for d in dsts:
                raw.append((src, d, K_IMPORT, line, res, _import_detail(name, alias),
                            None))
        for sidx, line, text in f.bad_relative:
            unresolved.append((line, scopes[sidx].qual, U_UNKNOWN_NAME, text, ()))
        for sidx, sc in enumerate(scopes):
            if sc.kind != CLASS:
                continue
            cid = src_ids[sidx]
            for benc in sc.bases:
                vals, inf = self.vals(f, sc.parent, benc, None)
                cands = [v for v in vals if v[0] == "C"]
                res = (R_AMBIGUOUS if len(cands) > 1 else
                       R_INFERRED if inf else R_EXACT)
                for v in cands:
                    raw.append((cid, self.scope_id(v[1], v[2]), K_INHERIT, sc.def_line,
                                res, "", None))
            order, _gap = self.mro((f.module, sidx))
            if len(order) < 2:
                continue
            for name, bids in sc.byname.items():
                defs = [sc.binds[b][1][1] for b in bids if sc.binds[b][4] == B_DEF]
                if not defs:
                    continue
                base_id = self._overridden(order[1:], name)
                if base_id is None:
                    continue
                for fs in defs:
                    raw.append((src_ids[fs], base_id, K_OVERRIDE, scopes[fs].def_line,
                                R_EXACT, "", None))

    def _overridden(self, order: list[tuple[str, int]], name: str) -> str | None:
        for k in order:
            mf = self.mod(k[0])
            if mf is None:
                continue
            sc = mf.scopes[k[1]]
            bids = sc.final.get(name) or sc.byname.get(name)
            if bids:
                for b in bids:
                    if sc.binds[b][4] == B_DEF:
                        return sc.qual + "." + name
                return None
            if name in sc.inst:
                return None
        return None

    def _top_in_repo(self, mod: str) -> bool:
        top = mod.partition(".")[0]
        return self.mod(top) is not None


def _node_key(n: Node) -> tuple[Any, ...]:
    return (n.start_line, n.id, n.kind.value, n.end_line)


def _site_names(fenc: Enc) -> tuple[str, ...]:
    tag = fenc[0]
    if tag == "a":
        return (str(fenc[2]),)
    if tag == "n":
        return (str(fenc[1]),)
    return ()


@lru_cache(maxsize=8192)
def _import_detail(name: str, alias: str | None) -> str:
    return json.dumps({"name": name, "alias": alias}, separators=(",", ":"))


_RECURSION = 12_000


def resolve_file(facts: PyFileFacts, lookup: ModuleLookup) -> FileResolution:
    """Nodes, edges and unresolved sites of one file (pure given facts and lookup)."""
    with resolver(facts, lookup) as r:
        return r.run()


@contextmanager
def resolver(facts: PyFileFacts, lookup: ModuleLookup) -> Iterator[_Sites]:
    """The resolver of one file, for passes that ask it more than :func:`resolve_file`
    does (index/closedworld.py evaluates methods under chosen receiver classes)."""
    with recursion_limit_at_least(_RECURSION), gc_paused():
        yield _Sites(facts, lookup)
