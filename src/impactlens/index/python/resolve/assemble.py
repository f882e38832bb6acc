"""One file's resolution assembled: every scope's sites, the receiver contexts and
argument flows they seed, the structure edges (import, inherit, override), test
discovery, and the nodes (with the ``__init__`` a @dataclass generates)."""

from __future__ import annotations

from typing import Any

from impactlens.index.python import argflow
from impactlens.index.python.facts import B_DEF, CLASS, make_node
from impactlens.index.python.resolve.edges import (
    K_CALL,
    K_CONTAINS,
    K_IMPORT,
    K_INHERIT,
    K_INSTANTIATE,
    K_OVERRIDE,
    KIND_ENUM,
    R_AMBIGUOUS,
    R_EXACT,
    R_INFERRED,
    RESOLUTION_ENUM,
    U_UNKNOWN_NAME,
    RawEdge,
    RawUnresolved,
    call_detail,
    import_detail,
)
from impactlens.index.python.resolve.sites import Sites
from impactlens.index.python.resolve.values import Class, ClassKey, Function, Unknown
from impactlens.index.python.words import ident_tokens
from impactlens.model import Edge, FileResolution, Node, NodeKind, UnresolvedSite

_METHOD = NodeKind.METHOD


def file_resolution(sites: Sites) -> FileResolution:
    """Nodes, edges and unresolved sites of the file ``sites`` resolves."""
    from impactlens.index.python.testdisc import TestDiscovery

    f = sites.facts
    path = f.path
    scopes = f.scopes
    src_ids = [sc.qual for sc in scopes]
    disc = TestDiscovery(sites)
    disc.discover()
    for scope, tid in disc.own.items():
        src_ids[scope] = tid
    raw: list[RawEdge] = []
    unresolved: list[RawUnresolved] = []
    for scope in range(len(scopes)):
        sink = sites.scope_sink(f.module, scope, None, src_ids[scope])
        raw.extend(sink.edges)
        unresolved.extend(sink.unresolved)
    sites.receiver_contexts(raw)
    argflow.run_flows(sites, raw)
    _structure(sites, raw, unresolved, src_ids)
    raw.extend(disc.tests_edges(src_ids))
    nodes: list[Node] = []
    own = disc.own
    for row in f.nodes:
        scope = row[11]
        node = disc.test_node(row, scope) if scope > 0 and scope in own else make_node(row, path)
        nodes.append(node)
        if node.parent is not None:
            raw.append((node.parent, node.id, K_CONTAINS, node.start_line, R_EXACT, "", None))
    for node in (*disc.inherited_nodes(), *dataclass_inits(sites, raw)):
        nodes.append(node)
        raw.append((node.parent or "", node.id, K_CONTAINS, node.start_line, R_EXACT, "", None))
    kinds, ress = KIND_ENUM, RESOLUTION_ENUM
    edges = [Edge(e[0], e[1], kinds[e[2]], path, e[3], ress[e[4]], e[5])
             for e in sorted({e[:6] for e in raw if e[0] and e[1]})]
    unres = [UnresolvedSite(path, u[0], u[1], u[5], u[3], u[4])
             for u in sorted({(u[0], u[1], u[2].value, u[3], u[4], u[2])
                              for u in unresolved})]
    nodes.sort(key=_node_key)
    return FileResolution(path=path, nodes=tuple(nodes), edges=tuple(edges),
                          unresolved=tuple(unres))


def dataclass_inits(sites: Sites, raw: list[RawEdge]) -> list[Node]:
    """A METHOD node for each @dataclass ``__init__`` generated in this file (its
    signature from the fields, so construction sites can be checked against it), with
    the calls the generated code makes: default factories and ``__post_init__``."""
    f = sites.facts
    out: list[Node] = []
    for scope, sc in enumerate(f.scopes):
        if sc.kind != CLASS or sc.dc is None or not sc.dc[0] or "__init__" in sc.byname:
            continue
        ck = (f.module, scope)
        fields = sites.dataclass_fields(ck)
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
        for _n, _a, _d, _k, factory, ffacts, fs in fields:
            if factory is None:
                continue
            vals, _ = sites.vals(ffacts, fs, factory, None)
            for v in vals:
                if type(v) is Function:
                    raw.append((qual, sites.scope_id(v.module, v.scope), K_CALL, line, R_EXACT,
                                call_detail(0, (), False, False, bool(v.bound)), None))
                elif type(v) is Class:
                    raw.append((qual, sites.scope_id(v.module, v.scope), K_INSTANTIATE, line,
                                R_EXACT, call_detail(0, (), False, False, True), None))
        got, _ = sites.class_attr(ck, "__post_init__", True)
        for g in got:
            if type(g) is Function:
                raw.append((qual, sites.scope_id(g.module, g.scope), K_CALL, line, R_EXACT,
                            call_detail(0, (), False, False, True), None))
    return out


def _structure(sites: Sites, raw: list[RawEdge], unresolved: list[Any],
               src_ids: list[str]) -> None:
    """Import, inherit and override edges; unresolvable imports."""
    _imports(sites, raw, unresolved, src_ids)
    f = sites.facts
    scopes = f.scopes
    for scope, sc in enumerate(scopes):
        if sc.kind != CLASS:
            continue
        cid = src_ids[scope]
        for benc in sc.bases:
            vals, inf = sites.vals(f, sc.parent, benc, None)
            cands = [v for v in vals if type(v) is Class]
            res = (R_AMBIGUOUS if len(cands) > 1 else
                   R_INFERRED if inf else R_EXACT)
            for v in cands:
                raw.append((cid, sites.scope_id(v.module, v.scope), K_INHERIT, sc.def_line,
                            res, "", None))
        order, _gap = sites.mro((f.module, scope))
        if len(order) < 2:
            continue
        for name, bids in sc.byname.items():
            defs = [sc.binds[b][1][1] for b in bids if sc.binds[b][4] == B_DEF]
            if not defs:
                continue
            base_id = _overridden(sites, order[1:], name)
            if base_id is None:
                continue
            for fs in defs:
                raw.append((src_ids[fs], base_id, K_OVERRIDE, scopes[fs].def_line,
                            R_EXACT, "", None))


def _imports(sites: Sites, raw: list[RawEdge], unresolved: list[Any],
             src_ids: list[str]) -> None:
    """Import edges; the imports of repository names that do not exist."""
    f = sites.facts
    scopes = f.scopes
    for scope, line, mod, name, alias in f.imports:
        src = src_ids[scope]
        qual = scopes[scope].qual
        if name is None or name == "*":
            m = sites.mod(mod)
            if m is not None:
                raw.append((src, m.module, K_IMPORT, line, R_EXACT,
                            import_detail(mod if name is None else "*", alias), None))
            elif _top_in_repo(sites, mod):
                unresolved.append((line, qual, U_UNKNOWN_NAME,
                                   f"import {mod}", (mod.rpartition(".")[2],)))
            continue
        items = sites.module_member(mod, name)
        if items is None:
            if _top_in_repo(sites, mod):
                unresolved.append((line, qual, U_UNKNOWN_NAME,
                                   f"from {mod} import {name}", (name,)))
            continue
        dsts = [d for d in (sites.item_id(it) for it in items) if d]
        if not dsts:
            if any(type(it) is Unknown for it in items) or not items:
                unresolved.append((line, qual, U_UNKNOWN_NAME,
                                   f"from {mod} import {name}", (name,)))
            continue
        res = R_AMBIGUOUS if len(set(dsts)) > 1 else R_EXACT
        for d in dsts:
            raw.append((src, d, K_IMPORT, line, res, import_detail(name, alias), None))
    for scope, line, text in f.bad_relative:
        unresolved.append((line, scopes[scope].qual, U_UNKNOWN_NAME, text, ()))


def _overridden(sites: Sites, order: list[ClassKey], name: str) -> str | None:
    """The method ``name`` of the first class in ``order`` that defines it, if a method."""
    for k in order:
        facts = sites.mod(k[0])
        if facts is None:
            continue
        sc = facts.scopes[k[1]]
        bids = sc.final.get(name) or sc.byname.get(name)
        if bids:
            for b in bids:
                if sc.binds[b][4] == B_DEF:
                    return sc.qual + "." + name
            return None
        if name in sc.inst:
            return None
    return None


def _top_in_repo(sites: Sites, mod: str) -> bool:
    return sites.mod(mod.partition(".")[0]) is not None


def _node_key(n: Node) -> tuple[Any, ...]:
    return (n.start_line, n.id, n.kind.value, n.end_line)
