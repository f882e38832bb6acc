"""One TypeScript/JavaScript file's nodes, edges and unresolved sites, from the resolver's
answers: definitions and tests as nodes, containment, imports, inheritance and overrides,
calls, instantiations, uses and TESTS edges."""

from __future__ import annotations

import json
from typing import Any

from impactlens.index.python.words import ident_tokens
from impactlens.index.typescript.facts import CLASS, FIELD, FUNCTION, INTERFACE, METHOD, Def
from impactlens.index.typescript.resolve import NODE_KIND, Resolver, Sym, call_targets, detail
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

# builtin methods handed a function they store or compare, never call
_STORES = frozenset({"push", "unshift", "splice", "concat", "includes", "indexOf",
                     "lastIndexOf", "add", "set", "has", "delete", "fill"})


class Emitter:
    def __init__(self, r: Resolver) -> None:
        self.r = r
        self.cx = r.me
        self.f = r.me.facts
        self.nodes: list[Node] = []
        self.edges: set[Edge] = set()
        self.unresolved: set[UnresolvedSite] = set()
        self.test_ids = {" > ".join((self.f.path, *t.path)) for t in self.f.tests}
        self._scope_targets: dict[str, list[tuple[str, Resolution, int]]] = {}

    def run(self) -> FileResolution:
        self.definitions()
        self.imports()
        self.hierarchy()
        self.sites()
        self.tests()
        edges = sorted(self.edges, key=lambda e: (e.src, e.dst, e.kind.value, e.line,
                                                   e.resolution.value, e.detail))
        unresolved = sorted(self.unresolved, key=lambda u: (u.line, u.scope, u.text, u.reason))
        return FileResolution(self.f.path, tuple(self.nodes), tuple(edges), tuple(unresolved))

    # ------------------------------------------------------------ nodes
    def _id(self, qual: str) -> str:
        return self.cx.node_id(qual)

    def definitions(self) -> None:
        f = self.f
        mod = f.module
        imports = tuple(sorted({i.spec for i in f.imports}))
        self.nodes.append(Node(mod, NodeKind.MODULE, mod, f.path, 1, max(f.lines, 1),
                               ids=ident_tokens(mod.replace("/", ".")), imports=imports))
        seen: set[str] = set()
        for d in f.defs:
            if d.qual in seen:
                continue  # overloads and re-declarations share the id (the first is kept)
            seen.add(d.qual)
            kind = NODE_KIND[d.kind]
            parent = self._id(d.parent) if d.parent else mod
            decos = tuple(x for x in (d.accessor, "export" if d.exported else "") if x)
            self.nodes.append(Node(self._id(d.qual), kind, self._id(d.qual), f.path, d.line,
                                   d.end, d.signature, decos, parent,
                                   ids=ident_tokens(d.qual, d.signature)))
            self.edges.add(Edge(parent, self._id(d.qual), EdgeKind.CONTAINS, f.path, d.line))

    # ---------------------------------------------------------- imports
    def imports(self) -> None:
        f, r = self.f, self.r
        for imp in f.imports:
            target = r.module_facts(self.cx, imp.spec)
            if target is None:
                continue  # an external package: nothing of the repository is imported
            if imp.name in ("*", "") or imp.kind in ("side", "dynamic"):
                dst: Sym | None = ("ns", target)
            else:
                dst = r.export(target, imp.name)
            detail = json.dumps({"alias": imp.local, "name": imp.name}, sort_keys=True,
                                separators=(",", ":"))
            if dst is None:
                self.unresolved.add(UnresolvedSite(
                    f.path, imp.line, f.module, UnresolvedReason.UNKNOWN_NAME,
                    f"import {{ {imp.name} }} from {imp.spec!r}", (imp.name,)))
                continue
            if dst[0] in ("def", "ns"):
                self.edges.add(Edge(f.module, r.sym_id(dst), EdgeKind.IMPORT, f.path, imp.line,
                                    detail=detail))
                if dst[0] == "def":  # the module the symbol lives in is imported too
                    self.edges.add(Edge(f.module, dst[1].module, EdgeKind.IMPORT, f.path,
                                        imp.line))
        for rx in f.reexports:
            target = r.module_facts(self.cx, rx.spec)
            if target is None:
                continue
            dst = ("ns", target) if rx.name == "*" else r.export(target, rx.name)
            if dst is not None and dst[0] in ("def", "ns"):
                self.edges.add(Edge(f.module, r.sym_id(dst), EdgeKind.IMPORT, f.path, rx.line,
                                    detail=json.dumps({"alias": rx.exported, "name": rx.name},
                                                      sort_keys=True, separators=(",", ":"))))

    # -------------------------------------------------------- hierarchy
    def hierarchy(self) -> None:
        r, f = self.r, self.f
        for d in f.defs:
            if d.kind not in (CLASS, INTERFACE):
                continue
            me: Sym = ("def", f, d.qual)
            bases = r.bases(me, interfaces=True)
            for b in bases:
                self.edges.add(Edge(self._id(d.qual), r.sym_id(b), EdgeKind.INHERIT, f.path,
                                    d.line))
            self._overrides(d, bases)

    def _overrides(self, cls: Def, bases: list[Sym]) -> None:
        r, f = self.r, self.f
        for m in f.defs:
            if m.parent != cls.qual or m.kind not in (METHOD, FIELD):
                continue
            name = m.qual.rpartition(".")[2]
            if name == "constructor":
                continue
            for b in bases:
                got = r.find_member(b, name)
                if got is not None:
                    self.edges.add(Edge(self._id(m.qual), r.sym_id(got), EdgeKind.OVERRIDE,
                                        f.path, m.line))

    # ------------------------------------------------------------ sites
    def _src(self, scope: str) -> str:
        if not scope:
            return self.f.module
        if scope in self.test_ids:
            return scope
        if scope.startswith(self.f.path + " > "):  # a hook: its calls are the module's
            return self.f.module
        return self._id(scope)

    def sites(self) -> None:
        for s in self.f.sites:
            if s.kind == "ref":
                self._ref(s)
            elif s.kind == "get":
                self._get(s)
            else:
                self._call(s)

    def _get(self, s: Any) -> None:
        """A property read or assignment that runs a getter or setter: a call of it."""
        src = self._src(s.scope)
        for sym, res in self.r.accessors(self.cx, s.target, s.scope):
            dst = self.r.sym_id(sym)
            if dst != src:
                self.edges.add(Edge(src, dst, EdgeKind.CALL, self.f.path, s.line, res))
                self._note(s.scope, dst, res, s.line)

    def _ref(self, s: Any) -> None:
        sym = self.r.value(self.cx, s.target, s.scope)
        if sym is None or sym[0] != "def" or self.r.kind_of(sym) not in (FUNCTION, CLASS,
                                                                          METHOD):
            return
        dst = self.r.sym_id(sym)
        src = self._src(s.scope)
        if dst == src:
            return
        self.edges.add(Edge(src, dst, EdgeKind.USE, self.f.path, s.line,
                            Resolution.EXACT, '{"access":"read"}'))
        if s.callee is not None and self.r.kind_of(sym) in (FUNCTION, METHOD):
            self._passed(s, src, dst)

    def _passed(self, s: Any, src: str, dst: str) -> None:
        """A function passed as an argument is called by whoever calls that parameter: a
        repository function that calls it, or — handed to the environment or a package
        (``arr.map(f)``, ``setTimeout(f)``) — the passing scope itself (inferred)."""
        targets, _reason, _name = call_targets(self.r, self.cx, s.callee, s.scope)
        repo = [t for t, _ in targets if t[0] == "def"
                and self.r.kind_of(t) in (FUNCTION, METHOD)]
        if not repo and s.callee[0] == "m" and s.callee[2] in _STORES:
            return  # `handlers.push(f)` keeps the function for later: not a call of it
        if not repo:
            self.edges.add(Edge(src, dst, EdgeKind.CALL, self.f.path, s.line,
                                Resolution.INFERRED))
            self._note(s.scope, dst, Resolution.INFERRED, s.line)
            return
        for t in repo:
            if self.r.calls_parameter(t, s.nargs):
                self.edges.add(Edge(self.r.sym_id(t), dst, EdgeKind.CALL, self.f.path, s.line,
                                    Resolution.INFERRED))

    def _call(self, s: Any) -> None:
        r, f = self.r, self.f
        src = self._src(s.scope)
        targets, reason, name = call_targets(r, self.cx, s.target, s.scope)
        if reason:
            self.unresolved.add(UnresolvedSite(f.path, s.line, src, UnresolvedReason(reason),
                                               s.text, (name,) if name else ()))
            return
        for sym, res in targets:
            if sym[0] != "def":
                continue
            kind = r.kind_of(sym)
            dst = r.sym_id(sym)
            if s.kind in ("new", "jsx") and kind == CLASS:
                self.edges.add(Edge(src, dst, EdgeKind.INSTANTIATE, f.path, s.line, res,
                                    detail(s.nargs, s.spread, keys=s.keys)
                                    if s.kind == "new" else ""))
                self._note(s.scope, dst, res, s.line)
                ctor = r.find_member(sym, "constructor")
                if ctor is not None and s.kind == "new":
                    self.edges.add(Edge(src, r.sym_id(ctor), EdgeKind.CALL, f.path, s.line, res,
                                        detail(s.nargs, s.spread, True, s.keys)))
                    self._note(s.scope, r.sym_id(ctor), res, s.line)
                continue
            if kind not in (FUNCTION, METHOD, CLASS, FIELD):
                continue
            site = "" if s.kind == "jsx" else detail(s.nargs, s.spread, keys=s.keys)
            self.edges.add(Edge(src, dst, EdgeKind.CALL, f.path, s.line, res, site))
            self._note(s.scope, dst, res, s.line)

    def _note(self, scope: str, dst: str, res: Resolution, line: int) -> None:
        self._scope_targets.setdefault(scope, []).append((dst, res, line))

    # ------------------------------------------------------------ tests
    def tests(self) -> None:
        f = self.f
        for t in f.tests:
            tid = " > ".join((f.path, *t.path))
            self.nodes.append(Node(tid, NodeKind.TEST, tid, f.path, t.line, t.end, "", (),
                                   f.module, ids=ident_tokens(" ".join(t.path))))
            self.edges.add(Edge(f.module, tid, EdgeKind.CONTAINS, f.path, t.line))
            for scope in (tid, *t.hooks):
                for dst, res, line in self._scope_targets.get(scope, ()):
                    self.edges.add(Edge(tid, dst, EdgeKind.TESTS, f.path, line, res))
