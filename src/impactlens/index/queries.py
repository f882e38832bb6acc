"""Graph queries over the store: symbol look-up, call-graph impact, context, export."""

from __future__ import annotations

import difflib
import json
from collections import deque
from pathlib import Path
from typing import Any

from impactlens.errors import BadInputError, UnknownSymbolError
from impactlens.index.discover import module_name
from impactlens.index.store import Store
from impactlens.model import (
    DEPENDENTS,
    Edge,
    EdgeKind,
    Node,
    NodeKind,
    UnresolvedReason,
    UnresolvedSite,
    normalise_direction,
)

# Edges that decide membership in an impact set (the spec's "hard" edges).
HARD_KINDS = frozenset({
    EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.INHERIT, EdgeKind.OVERRIDE,
    EdgeKind.INSTANTIATE, EdgeKind.USE,
})


def hops_label(depth: int) -> str:
    """A depth level in plain words: ``1 hop``, ``2 hops``, …"""
    return f"{depth} hop" if depth == 1 else f"{depth} hops"
CALLABLE_KINDS = (NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.MODULE, NodeKind.TEST)


# ------------------------------------------------------------------ look-up
def module_of(store: Store, root: Path, path: str) -> str:
    """The dotted module name of the repository file ``path``: the index's, or for a file
    it does not hold, what the package markers on disk make of it."""
    rec = store.file_record(path)
    if rec is not None:
        return rec.module
    return module_name(root, path)


MAX_NAME = 1000  # characters: a longer "name" names no symbol (and overflows SQLite's LIKE)


def _bounded(name: str, what: str) -> str:
    if len(name) > MAX_NAME:
        raise BadInputError(f"{name[:40]}...: {what} of {len(name)} characters is too long "
                            f"(at most {MAX_NAME})")
    if "\0" in name:
        raise BadInputError(f"{name[:40]!r}: {what} holds a NUL character")
    return name


def resolve_symbol(store: Store, ref: str) -> Node:
    """A qualname, a unique dotted suffix, a test node id, or ``path.py:LINE``."""
    ref = _bounded(ref.strip(), "symbol")
    if not ref:
        raise BadInputError("empty symbol")
    node = store.node(ref)
    if node is not None:
        return node
    if ":" in ref and "::" not in ref:
        return _symbol_at(store, ref)
    matches = store.nodes_with_id_suffix(ref)
    ids = sorted({n.id for n in matches})
    if len(ids) == 1:
        return matches[0]
    if len(ids) > 1:
        raise BadInputError(f"{ref!r} is ambiguous: {', '.join(ids[:8])}")
    raise UnknownSymbolError(ref, close_matches(store, ref))


def _symbol_at(store: Store, ref: str) -> Node:
    path, _, line_s = ref.rpartition(":")
    try:
        line = int(line_s)
    except ValueError:
        raise BadInputError(f"{ref!r}: expected path.py:LINE") from None
    if store.file_record(path) is None:
        raise BadInputError(f"{path}: not an indexed file")
    # innermost definition spanning the line (fields/constants only on their own line)
    best: Node | None = None
    for n in store.nodes_in_file(path):
        spans = (n.start_line <= line <= n.end_line and n.kind != NodeKind.MODULE
                 and not n.is_lambda)
        if spans and (best is None or n.end_line - n.start_line <= best.end_line - best.start_line):
            best = n
    if best is None:
        mods = [n for n in store.nodes_in_file(path) if n.kind == NodeKind.MODULE]
        if mods:
            return mods[0]
        raise BadInputError(f"{ref}: no definition at that line")
    return best


def close_matches(store: Store, ref: str, n: int = 5) -> list[str]:
    leaf = ref.rsplit(".", 1)[-1]
    named = sorted({x.id for x in store.nodes_named(leaf)})
    if named:
        return named[:n]
    ids = store.all_node_ids()
    leaves: dict[str, list[str]] = {}
    for i in ids:
        leaves.setdefault(i.rsplit(".", 1)[-1], []).append(i)
    out: list[str] = []
    for m in difflib.get_close_matches(leaf, list(leaves), n=n, cutoff=0.6):
        out.extend(sorted(leaves[m])[:2])
    return out[:n]


def find(store: Store, name: str, limit: int = 20) -> list[Node]:
    """Symbols matching ``name``, ranked: the last name part equal to its last part
    first (a dotted qualname suffix before a bare name), then names starting with it,
    then names containing it, by id within each; close spellings when nothing matches."""
    qualifier, _, leaf = _bounded(name.strip(), "name").rpartition(".")
    found = {n.id: n for n in store.nodes_with_id_suffix(name, limit)} if qualifier else {}
    # over-fetch: the qualifier filter below may drop some
    for n in store.nodes_name_containing(leaf, limit * 4 if qualifier else limit):
        if not qualifier or f"{qualifier}." in n.id:
            found.setdefault(n.id, n)
    if found:
        return list(found.values())[:limit]
    out: list[Node] = []
    for i in close_matches(store, name, limit):
        node = store.node(i)
        if node is not None:
            out.append(node)
    return out


# ------------------------------------------------------------------- impact
def _node_json(n: Node) -> dict[str, Any]:
    return {"id": n.id, "kind": n.kind.value, "file": n.file, "line": n.start_line}


def _hop_json(n: Node, e: Edge, via: str) -> dict[str, Any]:
    return {
        **_node_json(n), "relation": e.kind.value, "via": via,
        "site": {"file": e.file, "line": e.line}, "resolution": e.resolution.value,
    }


def impact(store: Store, target: Node, direction: str, depth: int) -> dict[str, Any]:
    """BFS over hard edges from ``target``: its ``dependents`` (what depends on it) or its
    ``dependencies``; the deprecated ``upstream``/``downstream`` are read as ``impact``
    meant them."""
    try:
        direction = normalise_direction(direction, "impact")
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    if depth < 1:
        raise BadInputError(f"depth must be ≥ 1, not {depth}")
    by_depth: dict[str, list[dict[str, Any]]] = {}
    seen = {target.id}
    tests: dict[str, dict[str, Any]] = {}
    frontier = deque([(target.id, 0)])
    while frontier:
        nid, d = frontier.popleft()
        _collect_tests(store, nid, d, tests)
        if d >= depth:
            continue
        edges = (store.in_edges(nid, HARD_KINDS) if direction == DEPENDENTS
                 else store.out_edges(nid, HARD_KINDS))
        for e in edges:
            other = e.src if direction == DEPENDENTS else e.dst
            if other in seen:
                continue
            seen.add(other)
            node = store.node(other)
            if node is None:
                continue
            if node.kind == NodeKind.TEST:
                tests.setdefault(node.id, {"id": node.id, "file": node.file, "depth": d + 1,
                                           "relation": e.kind.value})
                continue
            by_depth.setdefault(str(d + 1), []).append(_hop_json(node, e, nid))
            frontier.append((other, d + 1))
    for hops in by_depth.values():
        hops.sort(key=lambda h: (h["id"], h["relation"], h["site"]["file"], h["site"]["line"]))
    return {
        "target": _node_json(target),
        "direction": direction,
        "depth": depth,
        "by_depth": {k: by_depth[k] for k in sorted(by_depth, key=int)},
        "tests": sorted(tests.values(), key=lambda t: (t["depth"], t["id"])),
        "unanalyzable": [_unresolved_json(u) for u in unanalyzable_for(store, target)],
    }


def page_impact(result: dict[str, Any], offset: int = 0, limit: int | None = None
                ) -> dict[str, Any]:
    """``result`` with ``by_depth`` cut to the symbols ``offset`` to ``offset + limit``
    (depth by depth, in their order), plus what was left out: ``total``, ``omitted``,
    ``by_file`` (every level's symbol counts per file, for all of them) and
    ``next_offset`` (``None`` when nothing remains). ``limit=None`` keeps every symbol."""
    if offset < 0 or (limit is not None and limit < 1):
        raise BadInputError("offset must be ≥ 0 and limit ≥ 1")
    levels = result.get("by_depth", {})
    total = sum(len(hops) for hops in levels.values())
    end = total if limit is None else min(total, offset + limit)
    shown: dict[str, list[dict[str, Any]]] = {}
    by_file: dict[str, dict[str, int]] = {}
    seen = 0
    for depth, hops in levels.items():
        counts: dict[str, int] = {}
        for h in hops:
            counts[h["file"]] = counts.get(h["file"], 0) + 1
        by_file[depth] = dict(sorted(counts.items(), key=lambda fc: (-fc[1], fc[0])))
        window = hops[max(0, offset - seen):max(0, end - seen)]
        if window:
            shown[depth] = window
        seen += len(hops)
    return {**result, "by_depth": shown, "total": total, "offset": offset,
            "omitted": total - sum(len(v) for v in shown.values()), "by_file": by_file,
            "next_offset": end if end < total else None}


def _collect_tests(store: Store, nid: str, d: int, tests: dict[str, dict[str, Any]]) -> None:
    for e in store.in_edges(nid, frozenset({EdgeKind.TESTS})):
        if e.src not in tests:
            node = store.node(e.src)
            tests[e.src] = {"id": e.src, "file": node.file if node else e.file,
                            "depth": d + 1 if d else 1, "relation": "tests"}


def _unresolved_json(u: UnresolvedSite) -> dict[str, Any]:
    return {"file": u.file, "line": u.line, "scope": u.scope, "reason": u.reason.value,
            "text": u.text}


_STATIC_MISSES = frozenset({"unknown-receiver", "unknown-name", "external"})


def unanalyzable_for(store: Store, target: Node) -> list[UnresolvedSite]:
    """Un-analyzable sites that may reach ``target``: inside it, or naming it/its module."""
    leaf = target.qualname.rsplit(".", 1)[-1]
    module = target.qualname.rsplit(".", 1)[0] if target.kind != NodeKind.MODULE else target.id
    out = []
    # only dynamic sites can name a target; one query, not a scan of every unresolved site
    dynamic = [r.value for r in UnresolvedReason if r.value not in _STATIC_MISSES]
    for u in store.unresolved_sites_where(reasons=dynamic):
        inside = u.scope == target.id or u.scope.startswith(target.id + ".")
        named = any(leaf.startswith(n) or n in (leaf, module) for n in u.names if n)
        if inside or named:
            out.append(u)
    return out


# ------------------------------------------------------------------ context
def context(store: Store, target: Node) -> dict[str, Any]:
    def ends(edges: list[Edge], attr: str) -> list[dict[str, Any]]:
        out = []
        for e in edges:
            other = getattr(e, attr)
            node = store.node(other)
            out.append({"id": other, "kind": node.kind.value if node else "external",
                        "relation": e.kind.value,
                        "site": {"file": e.file, "line": e.line}})
        return out

    callers = store.in_edges(target.id, frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE}))
    callees = store.out_edges(target.id, frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE}))
    tests = sorted({e.src for e in store.in_edges(target.id, frozenset({EdgeKind.TESTS}))})
    return {
        "symbol": {**_node_json(target), "end_line": target.end_line,
                   "signature": target.signature, "decorators": list(target.decorators),
                   "parent": target.parent},
        "callers": ends(callers, "src"),
        "callees": ends(callees, "dst"),
        "tests": tests,
    }


# ------------------------------------------------------------------- export
WORLDS = ("open", "closed")


def export_callgraph(store: Store, fmt: str, world: str = "open") -> Any:
    """The call graph as ``json`` (dict), ``dot`` (text) or ``pycg`` adjacency (dict).

    ``world="closed"`` drops the edges that hold only for receivers the program never
    builds (a whole-program graph; see index/closedworld.py)."""
    if world not in WORLDS:
        raise BadInputError(f"unknown world {world!r} (open, closed)")
    nodes = store.all_nodes(CALLABLE_KINDS)
    calls = store.all_edges(frozenset({EdgeKind.CALL}))
    if world == "closed":
        from impactlens.index.closedworld import edge_key, pruned_edges

        drop = pruned_edges(store)
        calls = [e for e in calls if edge_key(e) not in drop]
    if fmt == "pycg":
        external = store.unresolved_sites_where(reasons=[UnresolvedReason.EXTERNAL.value])
        return _pycg(nodes, calls, external)
    if fmt == "json":
        return {
            "nodes": [_node_json(n) for n in nodes],
            "edges": [{"src": e.src, "dst": e.dst, "file": e.file, "line": e.line,
                       "resolution": e.resolution.value} for e in calls],
        }
    if fmt == "dot":
        lines = ["digraph callgraph {", "  rankdir=LR;"]
        lines += [f"  {json.dumps(n.id)};" for n in nodes]
        pairs = sorted({(e.src, e.dst) for e in calls})
        lines += [f"  {json.dumps(s)} -> {json.dumps(d)};" for s, d in pairs]
        lines.append("}")
        return "\n".join(lines) + "\n"
    raise BadInputError(f"unknown format {fmt!r} (json, dot, pycg)")


def _pycg(nodes: list[Node], calls: list[Edge],
          external: list[UnresolvedSite]) -> dict[str, list[str]]:
    """PyCG adjacency: dotted caller → sorted callees; tests keyed by their qualname.

    Calls into code outside the repository are EXTERNAL sites, not edges; the dotted
    names among a site's names are the external callees it resolved to
    (``asyncio.run``), named by import path as PyCG does. PyCG's graph says what runs:
    a call of a decorated function whose wrapper runs in its place (detail ``"deco"``)
    is the wrapper's edge, recorded beside it, not this one."""
    qual = {n.id: n.qualname for n in nodes}
    out: dict[str, set[str]] = {n.qualname: set() for n in nodes}
    for e in calls:
        if '"deco":true' in e.detail:
            continue
        src = qual.get(e.src, e.src)
        out.setdefault(src, set()).add(qual.get(e.dst, e.dst))
    for u in external:
        targets = {n for n in u.names if "." in n}
        if targets:
            out.setdefault(u.scope, set()).update(targets)
    return {k: sorted(v) for k, v in sorted(out.items())}
