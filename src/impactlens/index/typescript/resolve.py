"""Cross-file resolution of one TypeScript/JavaScript file's facts → nodes, edges and the
sites static analysis cannot follow.

A symbol is ``("def", facts, qual)`` (a definition of a repository file), ``("ns",
facts)`` (a module's namespace: ``import * as``, ``require``) or ``("ext", spec)`` (an
external package's export). Names bind, innermost first, to functions declared in the
enclosing functions, the module's own definitions, then its imports (followed through
``export … from``, ``export *`` and barrels). Receivers are typed from evidence only:
``this``/``super`` (through ``extends``), constructor parameter properties, field
annotations and initializers (``= new C()``), annotated parameters and locals, ``new C()``.
An interface-typed receiver reaches every implementing class's method (ambiguous) — which
classes extend or implement a name is asked of the index's table of names
(``FactsLookup.named``), not of every file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from impactlens.index.read_fingerprints import unrecorded
from impactlens.index.typescript.facts import (
    CLASS,
    ENUM,
    FIELD,
    FUNCTION,
    INTERFACE,
    METHOD,
    NAMESPACE,
    TYPE,
    VARIABLE,
    ConfigFacts,
    Def,
    Ref,
    TsFacts,
)
from impactlens.index.typescript.modules import resolve_spec
from impactlens.model import (
    FileResolution,
    NodeKind,
    Resolution,
    UnresolvedReason,
)

Sym = tuple[Any, ...]
NODE_KIND = {FUNCTION: NodeKind.FUNCTION, CLASS: NodeKind.CLASS, METHOD: NodeKind.METHOD,
              FIELD: NodeKind.FIELD, INTERFACE: NodeKind.CLASS, TYPE: NodeKind.CONSTANT,
              ENUM: NodeKind.CLASS, NAMESPACE: NodeKind.CLASS, VARIABLE: NodeKind.CONSTANT}
_VALUE_KINDS = frozenset({FUNCTION, CLASS, VARIABLE, INTERFACE, TYPE, ENUM, NAMESPACE})
_CLASSLIKE = frozenset({CLASS, INTERFACE})
# names every JavaScript environment binds: calls of them are neither repository code nor
# an unknown name
GLOBALS = frozenset({
    "console", "Math", "JSON", "Object", "Array", "String", "Number", "Boolean", "Promise",
    "Date", "Error", "TypeError", "RangeError", "Symbol", "Map", "Set", "WeakMap", "WeakSet",
    "RegExp", "parseInt", "parseFloat", "isNaN", "isFinite", "setTimeout", "clearTimeout",
    "setInterval", "clearInterval", "setImmediate", "queueMicrotask", "structuredClone",
    "encodeURIComponent", "decodeURIComponent", "encodeURI", "decodeURI", "Reflect", "Proxy",
    "BigInt", "Intl", "globalThis", "window", "document", "process", "Buffer", "require",
    "fetch", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "AbortController",
    "expect", "jest", "vi", "describe", "it", "test", "beforeEach", "afterEach", "beforeAll",
    "afterAll", "Function", "ArrayBuffer", "Uint8Array", "DataView", "Atomics", "alert",
    "undefined", "NaN", "Infinity", "arguments", "module", "exports", "__dirname",
    "__filename", "atob", "btoa", "performance", "crypto", "navigator", "location",
    "localStorage", "sessionStorage", "history", "customElements", "requestAnimationFrame",
    "cancelAnimationFrame", "Event", "CustomEvent", "EventTarget", "HTMLElement",
    "WeakRef", "FinalizationRegistry", "AggregateError", "SyntaxError", "ReferenceError",
    "EvalError", "URIError", "Int8Array", "Int16Array", "Int32Array", "Uint16Array",
    "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
    "Uint8ClampedArray", "SharedArrayBuffer", "Iterator", "chai", "assert", "sinon",
})
_UNRESOLVED = {"computed": UnresolvedReason.DYNAMIC_GETATTR, "eval": UnresolvedReason.EVAL,
               "import": UnresolvedReason.IMPORTLIB}
_MAX_HOPS = 16


# a CommonJS file's own exports object
_OWN_EXPORTS = frozenset({("n", "exports"), ("m", ("n", "module"), "exports")})


class _Ctx:
    """Name binding inside one file (the file being resolved or one it reads)."""

    def __init__(self, facts: Any, lookup: Any) -> None:
        self.facts = facts
        self.lookup = lookup
        self.path = facts.path
        self.module = facts.module
        self.defs: dict[str, Def] = {}
        for d in facts.defs:
            self.defs.setdefault(d.qual, d)
        self.imports = {i.local: i for i in facts.imports if i.local}
        self.exports: dict[str, str] = {}
        for name, local in facts.exports:
            self.exports.setdefault(name, local)
        self.locals = {(s, n): t for s, n, t in facts.locals}
        self.aliases = {(s, n): r for s, n, r in facts.aliases}
        self.added: dict[str, list[Ref]] = {}
        for name, r in facts.added:
            self.added.setdefault(name, []).append(r)
        self._built: set[str] | None = None

    def alias(self, name: str, scope: str) -> Ref | None:
        """What a local bound to a collection's element stands for, innermost scope first."""
        q = scope
        while True:
            got = self.aliases.get((q, name))
            if got is not None or not q:
                return got
            q = q.rpartition(".")[0]

    def named_here(self, qual: str) -> bool:
        """Whether the file constructs, passes, aliases or exports the class ``qual`` (a
        class it keeps to itself and never names so is never built)."""
        if self._built is None:
            named = {local for _, local in self.facts.exports}
            named.update(s.target[1] for s in self.facts.sites
                         if s.kind in ("new", "ref") and s.target[0] == "n")
            named.update(d.value[1] for d in self.facts.defs
                         if d.value is not None and d.value[0] == "n")
            self._built = named
        return qual in self._built

    def node_id(self, qual: str) -> str:
        return f"{self.module}.{qual}" if qual else self.module


def _portable(sym: Sym | None) -> Any:
    """A symbol by its file's path (not another lookup's view of its facts)."""
    if sym is None or sym[0] == "ext":
        return sym
    return (sym[0], sym[1].path, *sym[2:])


class Resolver:
    def __init__(self, facts: TsFacts, lookup: Any) -> None:
        self.lookup = lookup
        self.me = _Ctx(facts, lookup)
        self._ctx: dict[str, _Ctx] = {facts.path: self.me}
        self._impl: dict[str, list[tuple[str, str]]] | None = None
        self._subs: dict[tuple[str, str], list[Sym]] = {}
        self._specs: dict[tuple[str, str], Any] = {}
        self._shared: dict[str, Any] = lookup.shared() if hasattr(lookup, "shared") else {}

    # ------------------------------------------------------------- contexts
    def ctx(self, facts: Any) -> _Ctx:
        got = self._ctx.get(facts.path)
        if got is None:
            got = self._ctx[facts.path] = _Ctx(facts, self.lookup)
        return got

    def module_facts(self, cx: _Ctx, spec: str) -> Any:
        key = (cx.path, spec)
        if key not in self._specs:
            self._specs[key] = resolve_spec(self.lookup, cx.path, spec)
        return self._specs[key]

    # -------------------------------------------------------------- binding
    def bind(self, cx: _Ctx, name: str, scope: str, hops: int = 0) -> Sym | None:
        """What ``name`` means in ``scope`` of the file ``cx``."""
        parts = scope.split(".") if scope else []
        for i in range(len(parts), -1, -1):
            d = cx.defs.get(".".join((*parts[:i], name)))
            if d is not None and d.kind in _VALUE_KINDS:
                return ("def", cx.facts, d.qual)
        imp = cx.imports.get(name)
        if imp is None or hops > _MAX_HOPS:
            return None
        target = self.module_facts(cx, imp.spec)
        if target is None:
            return ("ext", imp.spec)
        if imp.name == "*":
            return ("ns", target)
        return self.export(target, imp.name, hops + 1)

    def export(self, facts: Any, name: str, hops: int = 0) -> Sym | None:
        """The symbol ``facts``'s module exports as ``name``.

        Barrels make this the hot question (every importer of an ``index.ts`` with many
        ``export *`` asks it), so one run answers each (module, name) once: the answer is
        kept with what computing it consulted and read, and every later asker records those
        as its own (its resolution depends on them as if it had asked)."""
        if hops > _MAX_HOPS or not isinstance(unrecorded(facts), TsFacts):
            return None
        if not hasattr(self.lookup, "child"):
            return self._export(facts, name, hops)
        cache = self._shared.setdefault("ts-exports", {})
        busy = self._shared.setdefault("ts-exports-busy", set())
        key = (facts.path, name)
        got = cache.get(key)
        if got is None:
            if key in busy:
                return None  # an `export *` cycle
            busy.add(key)
            try:
                child = self.lookup.child()
                sub = Resolver(unrecorded(child.path(facts.path, record=False)), child)
                sym = sub._export(child.path(facts.path, record=False), name, 0)
            finally:
                busy.discard(key)
            got = (_portable(sym), frozenset(child.consulted), tuple(child.reads()))
            cache[key] = got
        desc, consulted, reads = got
        self.lookup.replay(consulted, reads)
        return self._rehydrate(desc)

    def _rehydrate(self, desc: Any) -> Sym | None:
        if desc is None or desc[0] == "ext":
            return desc  # type: ignore[no-any-return]
        facts = self.lookup.path(desc[1], record=False)
        if facts is None:
            return None
        return (desc[0], facts, *desc[2:])

    def _export(self, facts: Any, name: str, hops: int) -> Sym | None:
        cx = self.ctx(facts)
        local = cx.exports.get(name)
        if local is not None:
            if local in cx.defs:
                return ("def", facts, local)
            return self.bind(cx, local, "", hops + 1)
        for r in facts.reexports:
            if r.exported == name:
                target = self.module_facts(cx, r.spec)
                if target is None:
                    return ("ext", r.spec)
                return ("ns", target) if r.name == "*" else self.export(target, r.name, hops + 1)
        for r in facts.reexports:
            if r.exported == "*" and name != "default":
                target = self.module_facts(cx, r.spec)
                got = self.export(target, name, hops + 1) if target is not None else None
                if got is not None:
                    return got
        return None

    def member(self, sym: Sym, prop: str, hops: int = 0) -> Sym | None:
        """A property of a module namespace, a class (static), a namespace or an enum."""
        if sym[0] == "ns":
            got = self.export(sym[1], prop, hops + 1)
            if got is not None or prop == "default" or hops > _MAX_HOPS:
                return got
            # `require("./build")` is `module.exports`: with `module.exports = build`, a
            # property of `build` (ES code never reads a default's property off `import *`)
            default = self.export(sym[1], "default", hops + 1)
            return self.member(default, prop, hops + 1) if default is not None else None
        if sym[0] != "def":
            return None
        cx = self.ctx(sym[1])
        d = cx.defs.get(sym[2])
        if d is None:
            return None
        if d.kind == CLASS:
            return self.find_member(sym, prop)
        if f"{d.qual}.{prop}" in cx.defs:  # a namespace's or enum's member; a function
            return ("def", sym[1], f"{d.qual}.{prop}")  # assigned to `obj.prop`
        if d.kind in (VARIABLE, FIELD) and d.value is not None and d.value[0] in ("obj", "arr"):
            return self.held(cx, d, prop, hops)
        if d.kind == VARIABLE and d.value is not None and hops < _MAX_HOPS:
            base = self.value(cx, d.value, d.parent, hops + 1)
            return self.member(base, prop, hops + 1) if base is not None else None
        return None

    def held(self, cx: _Ctx, d: Def, prop: str, hops: int = 0) -> Sym | None:
        """The function an object or array literal holds under ``prop``."""
        assert d.value is not None
        if d.value[0] == "obj":
            ref = next((r for k, r in d.value[1] if k == prop), None)
        else:
            items = d.value[1]
            ref = items[int(prop)] if prop.isdigit() and int(prop) < len(items) else None
        return self.value(cx, ref, d.parent, hops + 1) if ref is not None else None

    def holder(self, cx: _Ctx, ref: Ref, scope: str) -> tuple[_Ctx, Def] | None:
        """The variable or field (of an instance) ``ref`` names, when it holds a literal
        object or array of functions."""
        if ref[0] == "m":
            for c in self.instances(cx, ref[1], scope):
                f = self.find_member(c, ref[2])
                if f is not None:
                    fcx = self.ctx(f[1])
                    d = fcx.defs[f[2]]
                    if d.kind == FIELD and d.value is not None:
                        return fcx, d
        sym = self.value(cx, ref, scope)
        if sym is None or sym[0] != "def":
            return None
        hcx = self.ctx(sym[1])
        held = hcx.defs.get(sym[2])
        if held is not None and held.value is not None and held.value[0] in ("obj", "arr"):
            return hcx, held
        return None

    def elements(self, cx: _Ctx, ref: Ref, scope: str) -> list[Sym]:
        """The functions a collection holds: its literal's values and what is pushed onto
        it in its own file."""
        got = self.holder(cx, ref, scope)
        if got is None:
            return []
        hcx, d = got
        lit = d.value
        assert lit is not None
        refs = [r for _, r in lit[1]] if lit[0] == "obj" else list(lit[1])
        if d.kind == VARIABLE and not d.parent:
            refs += hcx.added.get(d.qual, [])
        out = []
        for r in refs:
            sym = self.value(hcx, r, d.parent) if r[0] != "?" else None
            if sym is not None and sym[0] == "def" and sym not in out:
                out.append(sym)
        return out

    def value(self, cx: _Ctx, ref: Ref, scope: str, hops: int = 0) -> Sym | None:
        """The symbol an expression names (not an instance: see :meth:`instances`)."""
        if hops > _MAX_HOPS:
            return None
        tag = ref[0]
        if ref in _OWN_EXPORTS and self.bind(cx, "exports", scope, hops) is None:
            return ("ns", cx.facts)  # `exports.f()`: the file's own export, read at call time
        if tag == "n":
            return self.bind(cx, ref[1], scope, hops)
        if tag == "m":
            base = self.value(cx, ref[1], scope, hops + 1)
            return self.member(base, ref[2], hops + 1) if base is not None else None
        return None

    # ---------------------------------------------------------- classes
    def class_of_scope(self, cx: _Ctx, scope: str) -> Sym | None:
        q = scope
        while q:
            d = cx.defs.get(q)
            if d is not None and d.kind in _CLASSLIKE:
                return ("def", cx.facts, q)
            q = q.rpartition(".")[0]
        return None

    def bases(self, cls: Sym, interfaces: bool = False) -> list[Sym]:
        cx = self.ctx(cls[1])
        d = cx.defs.get(cls[2])
        if d is None:
            return []
        refs = [*d.extends, *(d.implements if interfaces else ())]
        out = []
        for r in refs:
            got = self.value(cx, r, d.parent)
            if got is not None and got[0] == "def":
                out.append(got)
        return out

    def mro(self, cls: Sym) -> Iterator[Sym]:
        seen: set[tuple[str, str]] = set()
        todo = [cls]
        while todo and len(seen) < 64:
            c = todo.pop(0)
            key = (c[1].path, c[2])
            if key in seen:
                continue
            seen.add(key)
            yield c
            todo.extend(self.bases(c))

    def find_member(self, cls: Sym, name: str, skip_self: bool = False) -> Sym | None:
        for c in self.mro(cls):
            if skip_self and c is cls:
                continue
            cx = self.ctx(c[1])
            q = f"{c[2]}.{name}"
            if q in cx.defs:
                return ("def", c[1], q)
        return None

    def implementers(self, iface: Sym) -> list[Sym]:
        """Every repository class implementing ``iface`` or extending one that does: the
        classes naming it in ``extends``/``implements`` (one indexed question per name),
        kept when that reference resolves to it."""
        found: dict[tuple[str, str], Sym] = {}
        todo = [iface]
        while todo and len(found) < 256:
            base = todo.pop()
            name = base[2].rpartition(".")[2]
            for path, qual in self._naming(name):
                if (path, qual) in found:
                    continue
                facts = self.lookup.path(path)
                if facts is None:
                    continue
                cls: Sym = ("def", facts, qual)
                if any(b[1].path == base[1].path and b[2] == base[2]
                       for b in self.bases(cls, interfaces=True)):
                    found[(path, qual)] = cls
                    todo.append(cls)
        return [found[k] for k in sorted(found)]

    def _naming(self, name: str) -> list[tuple[str, str]]:
        """(path, qual) of the classes whose ``extends``/``implements`` ends in ``name``."""
        if hasattr(self.lookup, "named"):
            return self.lookup.named("extends", name)  # type: ignore[no-any-return]
        if self._impl is None:  # a lookup without the index's table: read every file
            self._impl = self._implements_table()
        return self._impl.get(name, [])

    def _implements_table(self) -> dict[str, list[tuple[str, str]]]:
        """Last name of each ``implements``/``extends`` reference → the classes naming it."""
        table: dict[str, list[tuple[str, str]]] = {}
        for path in self.lookup.paths():
            facts = unrecorded(self.lookup.path(path, record=False))
            if not isinstance(facts, TsFacts):
                continue
            for d in facts.defs:
                if d.kind != CLASS:
                    continue
                for r in (*d.implements, *d.extends):
                    if r and r[0] in ("n", "m"):
                        table.setdefault(r[-1], []).append((path, d.qual))
        return table

    # ---------------------------------------------------------- instances
    def type_sym(self, cx: _Ctx, type_text: str, scope: str) -> Sym | None:
        if not type_text:
            return None
        parts = type_text.split(".")
        ref: Ref = ("n", parts[0])
        for p in parts[1:]:
            ref = ("m", ref, p)
        got = self.value(cx, ref, scope)
        if got is None or got[0] != "def":
            return None
        d = self.ctx(got[1]).defs.get(got[2])
        return got if d is not None and d.kind in _CLASSLIKE else None

    def instances(self, cx: _Ctx, ref: Ref, scope: str, hops: int = 0) -> list[Sym]:
        """Classes (or interfaces) the value of ``ref`` is an instance of."""
        if hops > _MAX_HOPS:
            return []
        tag = ref[0]
        if tag == "this":
            c = self.class_of_scope(cx, scope)
            return [c] if c is not None else []
        if tag == "new":
            c = self.value(cx, ref[1], scope, hops + 1)
            if c is not None and c[0] == "ns":  # `new (require("./x"))()`: its default
                c = self.export(c[1], "default")
            return [c] if c is not None and c[0] == "def" and self._is_class(c) else []
        if tag == "call":
            return self._returned(cx, ref[1], scope, hops)
        if tag == "n":
            return self._name_instances(cx, ref[1], scope, hops)
        if tag == "m":
            out = []
            for c in self.instances(cx, ref[1], scope, hops + 1):
                f = self.find_member(c, ref[2])
                if f is None:
                    continue
                fcx = self.ctx(f[1])
                d = fcx.defs[f[2]]
                typ = d.type if d.kind == FIELD else d.returns if d.accessor == "get" else ""
                t = self.type_sym(fcx, typ, d.parent)
                if t is not None:
                    out.append(t)
            return out
        return []

    def _returned(self, cx: _Ctx, fn: Ref, scope: str, hops: int) -> list[Sym]:
        """Instances a call returns, by the callee's return annotation (``this``: the
        receiver's own class)."""
        targets: list[tuple[Sym, list[Sym]]] = []
        sym = self.value(cx, fn, scope, hops + 1)
        if sym is not None and sym[0] == "def":
            owner = self.class_of_scope(self.ctx(sym[1]), sym[2].rpartition(".")[0])
            targets.append((sym, [owner] if owner is not None else []))
        elif fn[0] == "m":
            for c in self.instances(cx, fn[1], scope, hops + 1):
                m = self.find_member(c, fn[2])
                if m is not None:
                    targets.append((m, [c]))
        out: list[Sym] = []
        for m, receivers in targets:
            mcx = self.ctx(m[1])
            d = mcx.defs.get(m[2])
            if d is None or not d.returns:
                continue
            if d.returns == "this":
                out.extend(receivers)
                continue
            t = self.type_sym(mcx, d.returns, d.parent or m[2])
            if t is not None:
                out.append(t)
        return out

    def _name_instances(self, cx: _Ctx, name: str, scope: str, hops: int) -> list[Sym]:
        held = cx.alias(name, scope)
        if held is not None and held[0] == "elem" and held[1][0] == "n":
            typ = self._local_type(cx, held[1][1], scope)  # `for (const s of shapes)`
            got = self.type_sym(cx, typ[:-2], scope) if typ.endswith("[]") else None
            return [got] if got is not None else []
        q = scope
        while True:
            t = cx.locals.get((q, name))
            if t is not None:
                got = self.type_sym(cx, t, q)
                return [got] if got is not None else []
            if not q:
                break
            q = q.rpartition(".")[0]
        sym = self.bind(cx, name, scope)
        if sym is not None and sym[0] == "def":
            vcx = self.ctx(sym[1])
            d = vcx.defs.get(sym[2])
            if d is not None and d.kind == VARIABLE:
                t = self.type_sym(vcx, d.type, d.parent)
                if t is not None:
                    return [t]
                if d.value is not None and d.value[0] == "new":
                    return self.instances(vcx, d.value, d.parent, hops + 1)
        return []

    def _local_type(self, cx: _Ctx, name: str, scope: str) -> str:
        q = scope
        while True:
            t = cx.locals.get((q, name))
            if t is not None or not q:
                return t or ""
            q = q.rpartition(".")[0]

    def dispatch(self, cls: Sym, name: str, res: Resolution, exact: bool = False
                 ) -> list[tuple[Sym, Resolution]]:
        """Targets of ``name`` called on an instance of ``cls`` (of exactly ``cls`` when
        ``exact``: ``new C().m()``): the member each class that may be built — ``cls`` and
        its subclasses — finds in its hierarchy (a template method's ``this.step()``
        reaches the overrides), ambiguous when there are several. A class is never built
        when it is abstract, or kept to its file and never constructed, passed or exported
        there."""
        got = self.find_member(cls, name)
        concrete = got is not None and not self._abstract(got)
        if exact or self.kind_of(cls) != CLASS:
            return [(got, res)] if got is not None and (concrete or exact) else []
        found: dict[tuple[str, str], Sym] = {}
        for c in [cls, *self.subclasses(cls)]:
            if not self.may_be_built(c):
                continue
            m = got if c is cls else self.find_member(c, name)
            if m is not None and not self._abstract(m):
                found.setdefault((m[1].path, m[2]), m)
        if found:
            if len(found) == 1:
                return [(m, res) for m in found.values()]
            return [(found[k], Resolution.AMBIGUOUS) for k in sorted(found)]
        if concrete:
            assert got is not None
            return [(got, res)]
        out = []
        for sub in self.implementers(cls):
            q = f"{sub[2]}.{name}"
            d = self.ctx(sub[1]).defs.get(q)
            if d is not None and d.accessor != "abstract":
                out.append((("def", sub[1], q), Resolution.AMBIGUOUS))
        if not out and got is not None:
            return [(got, res)]
        return out

    def _abstract(self, sym: Sym) -> bool:
        return self.ctx(sym[1]).defs[sym[2]].accessor == "abstract"

    def subclasses(self, cls: Sym) -> list[Sym]:
        key = (cls[1].path, cls[2])
        got = self._subs.get(key)
        if got is None:
            got = self._subs[key] = self.implementers(cls)
        return got

    def may_be_built(self, cls: Sym) -> bool:
        cx = self.ctx(cls[1])
        d = cx.defs.get(cls[2])
        if d is None or d.kind != CLASS or d.accessor == "abstract":
            return False
        return d.exported or "." in d.qual or cx.named_here(d.qual)

    def accessors(self, cx: _Ctx, target: Ref, scope: str) -> list[tuple[Sym, Resolution]]:
        """The getter/setter a property read or assignment runs (none for a plain field)."""
        base, prop = target[1], target[2]
        res = Resolution.EXACT if base[0] in ("this", "new") else Resolution.INFERRED
        if base[0] == "super":
            cls = self.class_of_scope(cx, scope)
            classes = self.bases(cls) if cls is not None else []
        else:
            owner = self.value(cx, base, scope) if base[0] in ("n", "m") else None
            if owner is not None and owner[0] == "def" and self.kind_of(owner) == CLASS:
                classes, res = [owner], Resolution.EXACT  # a static accessor
            else:
                classes = self.instances(cx, base, scope)
        out = []
        for c in classes:
            m = self.find_member(c, prop)
            if m is not None and self.ctx(m[1]).defs[m[2]].accessor in ("get", "set"):
                out.append((m, res))
        return out

    def calls_parameter(self, fn: Sym, index: int) -> bool:
        """Whether the function ``fn`` calls its ``index``-th parameter in its body."""
        fcx = self.ctx(fn[1])
        d = fcx.defs.get(fn[2])
        if d is None or d.params is None or index >= len(d.params):
            return False
        name = d.params[index].name
        return any(site.kind == "call" and site.target == ("n", name)
                   and (site.scope == d.qual or site.scope.startswith(d.qual + "."))
                   for site in fn[1].sites)

    def _is_class(self, sym: Sym) -> bool:
        d = self.ctx(sym[1]).defs.get(sym[2])
        return d is not None and d.kind == CLASS

    def kind_of(self, sym: Sym) -> str:
        d = self.ctx(sym[1]).defs.get(sym[2])
        return d.kind if d is not None else ""

    def sym_id(self, sym: Sym) -> str:
        if sym[0] == "ns":
            return sym[1].module
        return f"{sym[1].module}.{sym[2]}"


# --------------------------------------------------------------------- sites
def call_targets(r: Resolver, cx: _Ctx, target: Ref, scope: str
                 ) -> tuple[list[tuple[Sym, Resolution]], str, str]:
    """(targets with their resolution, unresolved reason or "", names at the site)."""
    tag = target[0]
    if tag == "?":
        why = target[1]
        reason = _UNRESOLVED.get(why)
        return [], (reason.value if reason else UnresolvedReason.UNKNOWN_RECEIVER.value), ""
    if tag == "super":  # `super(...)`: the base class is built, its constructor runs
        cls = r.class_of_scope(cx, scope)
        bases = [b for b in (r.bases(cls) if cls is not None else []) if r._is_class(b)]
        return [(bases[0], Resolution.EXACT)] if bases else [], "", ""
    if tag == "n":
        held = cx.alias(target[1], scope)
        if held is not None and held[0] == "elem":
            funcs = r.elements(cx, held[1], scope)
            res = Resolution.INFERRED if len(funcs) == 1 else Resolution.AMBIGUOUS
            return [(f, res) for f in funcs], "", ""
        sym = r.bind(cx, target[1], scope)
        if sym is None:
            if target[1] in GLOBALS:
                return [], "", ""
            return [], UnresolvedReason.UNKNOWN_NAME.value, target[1]
        if sym[0] == "ext":
            return [], UnresolvedReason.EXTERNAL.value, target[1]
        if sym[0] == "ns":
            d = r.export(sym[1], "default")
            return ([(d, Resolution.EXACT)] if d is not None and d[0] == "def" else []), "", ""
        return [(sym, Resolution.EXACT)], "", ""
    if tag == "m":
        return _member_call(r, cx, target, scope)
    return [], UnresolvedReason.UNKNOWN_RECEIVER.value, ""


def _member_call(r: Resolver, cx: _Ctx, target: Ref, scope: str
                 ) -> tuple[list[tuple[Sym, Resolution]], str, str]:
    base, prop = target[1], target[2]
    if base[0] == "super":
        cls = r.class_of_scope(cx, scope)
        for b in r.bases(cls) if cls is not None else []:
            got = r.find_member(b, prop)
            if got is not None:
                return [(got, Resolution.EXACT)], "", ""
        return [], UnresolvedReason.UNKNOWN_RECEIVER.value, prop
    if base[0] == "this":
        cls = r.class_of_scope(cx, scope)
        if cls is None:
            return [], "", ""
        return r.dispatch(cls, prop, Resolution.EXACT), "", ""
    owner = r.value(cx, base, scope)
    if owner is not None:
        if owner[0] == "ext":
            return [], UnresolvedReason.EXTERNAL.value, prop
        got = r.member(owner, prop)
        if got is not None:
            return [(got, Resolution.EXACT)], "", ""
        if owner[0] == "ns" or r.kind_of(owner) in (CLASS, NAMESPACE, ENUM):
            return [], UnresolvedReason.UNKNOWN_NAME.value, prop
    got = r.holder(cx, base, scope) if base[0] == "m" else None
    if got is not None:  # `this.routes.home()`: a field holding an object of functions
        held = r.held(got[0], got[1], prop)
        if held is not None:
            return [(held, Resolution.INFERRED)], "", ""
    out: list[tuple[Sym, Resolution]] = []
    for c in r.instances(cx, base, scope):
        if r.kind_of(c) == INTERFACE:
            # the implementers' members run; the interface's own (no body) only when no
            # implementer is known (it still says what is called)
            impls = [m for m in (r.find_member(i, prop) for i in r.implementers(c))
                     if m is not None and not r._abstract(m)]
            out.extend((m, Resolution.AMBIGUOUS) for m in impls)
            own = r.find_member(c, prop)
            if own is not None and not impls:
                out.append((own, Resolution.INFERRED))
            continue
        out.extend(r.dispatch(c, prop, Resolution.EXACT if base[0] == "new"
                              else Resolution.INFERRED, exact=base[0] == "new"))
    if out:
        return out, "", ""
    root = _root(base)
    if root is not None and root[0] == "n" and r.bind(cx, root[1], scope) is None:
        if root[1] in GLOBALS:
            return [], "", ""  # `console.log`, `expect(x).toBe(y)`: the environment's
    elif root is not None and root[0] == "n":
        sym = r.bind(cx, root[1], scope)
        if sym is not None and sym[0] == "ext":
            return [], UnresolvedReason.EXTERNAL.value, prop
    return [], UnresolvedReason.UNKNOWN_RECEIVER.value, prop


def _root(ref: Ref) -> Ref | None:
    """The name (or ``this``) an expression chain starts from."""
    while ref[0] in ("m", "call", "new"):
        ref = ref[1]
    return ref if ref[0] in ("n", "this", "super") else None


def detail(nargs: int, spread: bool, bound: bool = False,
           keys: tuple[tuple[int, tuple[str, ...]], ...] = ()) -> str:
    d: dict[str, Any] = {"args": nargs}
    if spread:
        d["star"] = True
    if bound:  # a constructor's instance (its parameter list starts with it)
        d["bound"] = True
    if keys:  # object literals passed: bound to destructured parameters by property name
        d["keys"] = {str(i): list(k) for i, k in keys}
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def resolve_file(facts: Any, lookup: Any) -> FileResolution:
    """Nodes defined in the file, edges whose reference site is in it, its unresolved
    sites. Depends only on ``facts`` and what it asked ``lookup``."""
    if isinstance(facts, ConfigFacts):
        return FileResolution(facts.path, (), (), ())
    from impactlens.index.typescript.emit import Emitter

    return Emitter(Resolver(facts, lookup)).run()
