"""Statement slices: intra-procedural (pure, from source) and inter-procedural (over the
index's resolved call edges).

Intra: :func:`local_slice` seeds the statements covering a line and closes over the
function's data and control dependence (downstream = what depends on the line,
upstream = what the line depends on).

Inter (:func:`pdg_impact`): a context-insensitive, bounded descent/ascent over the
resolved call graph, one shared visited set (terminates on recursion):

* downstream descent — a callee invoked from a slice statement (matched by resolved
  symbol id: the store's call edges at that statement's lines) is seeded at its
  parameters when the call's arguments may change, or as a whole when the call's
  *execution* may change (the site is control-dependent on the slice);
* downstream return ascent — when a slice reaches a ``return``/``yield`` (the
  function's *return-value summary* says its result is affected), each caller's call
  site statement and its forward slice are affected;
* upstream mirrors both: callees whose return values feed the slice (seeded at their
  returns, backward), and callers' argument computations when the slice reaches the
  parameters.

Every degraded answer carries a ``reason``; it is never an empty success.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from impactlens.model import Edge, EdgeKind, GraphView, Node, NodeKind, normalise_direction
from impactlens.pdg.graph import (
    DOWNSTREAM,
    UPSTREAM,
    FunctionPDG,
)
from impactlens.pdg.source import AnyParsedFile, SourceCache

MAX_HOPS = 3  # inter-procedural function hops (descent/ascent), spec default
MAX_FUNCTIONS = 300  # functions visited by one inter-procedural slice
MAX_STATEMENTS = 5000  # statements collected across functions

CALL_KINDS = frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE})
FUNC_KINDS = (NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.TEST)

NOTE = (
    "statement slice over data (reaching definitions on names, attribute paths, "
    "subscripts) and control (post-dominator) dependence; calls are opaque: a call "
    "statement's results depend on all its inputs, and receivers/arguments passed to "
    "non-pure callees may be mutated. Inter-procedural: context-insensitive, ≤{hops} "
    "function hops over resolved call edges, callee seeded at its parameters (or whole "
    "body when the call's execution changes), return-value ascent into callers' call "
    "sites. Not modelled: out-parameter / mutated-argument ascent into callers, "
    "callee-written self/global/captured state read later by the caller, exception "
    "ascent (a raise caught by a caller), aliasing across calls, implicit exceptions as "
    "branches (handlers depend on their `try`), dispatch the resolver could not see "
    "(see unanalyzable)."
)


@dataclass(frozen=True, slots=True)
class Stmt:
    file: str
    line: int
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "text": self.text}


@dataclass(eq=False)
class LocalSlice:
    file: str
    scope: str  # qualname inside the module, or "<module>"
    scope_line: int
    direction: str
    line: int
    criterion: tuple[Stmt, ...] = ()
    statements: tuple[Stmt, ...] = ()
    reason: str | None = None
    message: str = ""
    pdg: FunctionPDG | None = None
    crit_nodes: frozenset[int] = frozenset()
    slice_nodes: frozenset[int] = frozenset()
    edge_counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "scope": self.scope, "scope_line": self.scope_line,
            "direction": self.direction, "line": self.line,
            "criterion": [s.as_dict() for s in self.criterion],
            "affected_statements": [s.as_dict() for s in self.statements],
            "affected_statement_count": len(self.statements),
            "pdg_edges": dict(sorted(self.edge_counts.items())),
            "reason": self.reason, "message": self.message,
        }


def _stmts(pf: AnyParsedFile, pdg: FunctionPDG, ids: set[int] | frozenset[int]) -> tuple[Stmt, ...]:
    lines = sorted({pdg.cfg.nodes[i].line for i in ids if pdg.cfg.nodes[i].line > 0})
    return tuple(Stmt(pf.path, ln, pf.line_text(ln)) for ln in lines)


def _check_direction(direction: str) -> str:
    """``dependents``/``dependencies``; the deprecated words as ``slice`` meant them."""
    try:
        return normalise_direction(direction, "slice")
    except ValueError as exc:
        from impactlens.errors import BadInputError

        raise BadInputError(str(exc)) from None


def local_slice(cache: SourceCache, path: str, line: int, direction: str = DOWNSTREAM,
                scope: Any = None, scope_name: str | None = None) -> LocalSlice:
    """Intra-procedural slice of the statement(s) at ``path:line``."""
    direction = _check_direction(direction)
    pf = cache.file(path)
    if pf is None and path in cache.refused:
        reason, message = cache.refused[path]
        return LocalSlice(path, "", 0, direction, line, reason=reason, message=message)
    if pf is None:
        return LocalSlice(path, "", 0, direction, line, reason="file-not-found",
                          message=f"{path}: cannot read the file")
    if not 1 <= line <= max(len(pf.lines), 1):
        return LocalSlice(path, "", 0, direction, line, reason="line-out-of-range",
                          message=f"{path}:{line}: the file has {len(pf.lines)} lines")
    if scope is None:
        if pf.tree is None:
            return LocalSlice(path, "", 0, direction, line, reason="syntax-error",
                              message=f"{path}: {pf.error}")
        scope_name, scope = pf.innermost_scope(line)
    name = scope_name or "<module>"
    scope_line = pf.scope_line(scope)
    base = LocalSlice(path, name, scope_line, direction, line)
    if pf.is_function(scope) and pf.is_bodyless(scope):
        base.reason = "no-body"
        base.message = (f"{path}:{scope_line}: {name} has no executable body "
                        "(Protocol/abstract/stub); there is no dependence to slice")
        return base
    try:
        pdg = cache.pdg(path, scope)
    except RecursionError:  # a pathological nesting depth the frontends do not flatten
        base.reason = "too-deep"
        base.message = f"{path}:{scope_line}: {name}: {TOO_DEEP}"
        return base
    base.pdg = pdg
    base.edge_counts = pdg.edge_counts()
    crit = [n for n in pdg.cfg.nodes_at_line(line)]
    if not crit:
        near = sorted({n.line for n in pdg.cfg.statement_nodes()}, key=lambda x: (abs(x - line), x))
        base.reason = "no-statement-at-line"
        base.message = (f"{path}:{line} is not a statement of {name} (blank, comment, "
                        f"decorator or a keyword line such as else:/finally:); nearest "
                        f"statement lines: {', '.join(map(str, sorted(near[:3])))}")
        return base
    ids = frozenset(n.id for n in crit)
    got = pdg.slice_nodes(ids, direction)
    base.crit_nodes = ids
    base.slice_nodes = frozenset(got)
    base.criterion = _stmts(pf, pdg, ids)
    crit_lines = {s.line for s in base.criterion}
    base.statements = tuple(s for s in _stmts(pf, pdg, got) if s.line not in crit_lines)
    return base


# ---------------------------------------------------------------- inter-procedural
@dataclass(eq=False)
class _Fn:
    node: Node
    pf: AnyParsedFile
    fn: Any  # the function's syntax node (Python ast / tree-sitter)
    pdg: FunctionPDG
    calls: list[tuple[Edge, list[int]]]  # call edge + the CFG statements at its line


def _node_json(n: Node) -> dict[str, Any]:
    return {"id": n.id, "kind": n.kind.value, "file": n.file, "line": n.start_line}


class _Program:
    """Symbol id → function source + PDG + its call sites, loaded lazily."""

    def __init__(self, view: GraphView, cache: SourceCache) -> None:
        self.view = view
        self.cache = cache
        self._fns: dict[str, _Fn | None] = {}

    def fn(self, sym: str) -> _Fn | None:
        if sym not in self._fns:
            self._fns[sym] = self._load(sym)
        return self._fns[sym]

    def _load(self, sym: str) -> _Fn | None:
        node = self.view.node(sym)
        if node is None:
            return None
        if node.kind == NodeKind.CLASS:
            init = self.view.node(sym + ".__init__") or self.view.node(sym + ".constructor")
            return self._load(init.id) if init is not None else None
        if node.kind not in FUNC_KINDS:
            return None
        pf = self.cache.file(node.file)
        if pf is None:
            return None
        fn = pf.function_span(node.start_line, node.end_line, _leaf(node))
        if fn is None or pf.is_bodyless(fn):
            return None
        try:
            pdg = self.cache.pdg(node.file, fn)
        except RecursionError:
            return None
        calls: list[tuple[Edge, list[int]]] = []
        for e in self.view.out_edges(sym, CALL_KINDS):
            if e.file != node.file:
                continue
            at = [n.id for n in pdg.cfg.nodes_at_line(e.line)]
            if at:
                calls.append((e, at))
        return _Fn(node, pf, fn, pdg, calls)


def enclosing_symbol(view: GraphView, path: str, line: int) -> Node | None:
    """Innermost indexed function/method/test whose span covers ``path:line``."""
    best: Node | None = None
    for n in view.nodes_in_file(path):
        if n.kind in FUNC_KINDS and n.start_line <= line <= n.end_line and not n.is_lambda and (
            best is None or n.end_line - n.start_line <= best.end_line - best.start_line
        ):
            best = n
    return best


def pdg_impact(
    view: GraphView | None,
    cache: SourceCache,
    target: Node | None,
    path: str,
    line: int,
    direction: str = DOWNSTREAM,
    depth: int = MAX_HOPS,
    callgraph: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The unified PDG result for ``path:line`` inside ``target`` (see module doc)."""
    direction = _check_direction(direction)
    hops = max(0, min(depth, MAX_HOPS))
    out: dict[str, Any] = {
        "mode": "pdg",
        "target": _node_json(target) if target is not None else None,
        "direction": direction,
        "depth": depth,
        "criterion": {"file": path, "line": line, "statements": []},
        "affected_statements": [],
        "affected_statement_count": 0,
        "interprocedural_statements": [],
        "statement_precise_callees": [],
        "statement_precise_by_depth": {},
        "return_ascent": [],
        "by_depth": (callgraph or {}).get("by_depth", {}),
        "tests": (callgraph or {}).get("tests", []),
        "unanalyzable": (callgraph or {}).get("unanalyzable", []),
        "pdg_edges": {},
        "reason": None,
        "message": "",
        "truncated": False,
        "truncated_by": [],
        "note": NOTE.format(hops=hops),
    }
    scope: Any = None
    scope_name: str | None = None
    pf = cache.file(path)
    if target is not None and pf is not None:
        if target.kind == NodeKind.CLASS and pf.bodyless_type(target.start_line, _leaf(target)):
            out["reason"] = "no-body"
            out["message"] = (f"{path}:{target.start_line}: {target.id} is an interface or "
                              "a class of abstract members only; nothing in it executes, so "
                              "there is no dependence to slice")
            return out
        if target.kind not in FUNC_KINDS:
            out["reason"] = "not-a-function"
            out["message"] = (f"{target.id} is a {target.kind.value}; the PDG mode slices "
                              "inside a function or method")
            return out
        if not target.start_line <= line <= target.end_line:
            out["reason"] = "line-outside-symbol"
            out["message"] = (f"{path}:{line} is outside {target.id} "
                              f"(lines {target.start_line}-{target.end_line})")
            return out
        name = _leaf(target)
        fn = pf.function_span(target.start_line, target.end_line, name)
        if fn is None:
            if pf.tree is None:
                out["reason"] = "syntax-error"
                out["message"] = f"{path}: {pf.error}"
                return out
            out["reason"] = "function-not-in-file"
            out["message"] = (f"{path}: no function {name} starts at line "
                              f"{target.start_line} in the file's current content "
                              "(re-index: the file changed since)")
            return out
        scope_name, scope = target.qualname, fn
        # a line inside a nested def belongs to the nested function
        nested = pf.innermost_nested(fn, line)
        if nested is not None:
            scope_name, scope = f"{target.qualname}.<locals>.{nested[0]}", nested[1]
    try:
        local = local_slice(cache, path, line, direction, scope, scope_name)
    except RecursionError:  # parsed, but too deep for the graph's walks
        out["reason"] = "too-deep"
        out["message"] = f"{path}: {TOO_DEEP}"
        return out
    out["criterion"]["statements"] = [s.as_dict() for s in local.criterion]
    out["criterion"]["scope"] = local.scope
    out["pdg_edges"] = dict(sorted(local.edge_counts.items()))
    if local.reason is not None:
        out["reason"] = local.reason
        out["message"] = local.message
        return out
    out["affected_statements"] = [s.as_dict() for s in local.statements]
    out["affected_statement_count"] = len(local.statements)
    if view is None or target is None or local.pdg is None:
        why = ("no index" if view is None else
               "no indexed function encloses this line (module/class level, or a file "
               "changed since the last index)")
        out["note"] += f" ({why}: inter-procedural parts skipped)"
        return out
    try:
        _interprocedural(view, cache, target, local, direction, hops, out)
    except RecursionError:  # a function on the way is too deep: what was found stays
        out["truncated"] = True
        out["truncated_by"] = sorted({*out["truncated_by"], "nesting"})
        out["note"] += f" (a function on the way: {TOO_DEEP}; inter-procedural parts cut)"
    return out


TOO_DEEP = "expressions nested too deeply to analyze"


def _leaf(node: Node) -> str:
    return node.qualname.rsplit(".", 1)[-1].split("::")[-1].split("[")[0]


def _interprocedural(view: GraphView, cache: SourceCache, target: Node, local: LocalSlice,
                     direction: str, hops: int, out: dict[str, Any]) -> None:
    prog = _Program(view, cache)
    assert local.pdg is not None
    root = prog.fn(target.id)
    if root is None or root.pdg is not local.pdg:
        # the criterion is in a nested function: its calls are recorded on the nested
        # function's own symbol (if indexed), so only ascent/descent from what we have
        pf = cache.file(local.file)
        assert pf is not None
        scope = local.pdg.cfg.scope
        if not pf.is_function(scope):
            return
        root = _Fn(target, pf, scope, local.pdg, [])
    visited: set[tuple[str, str]] = {(target.id, "criterion")}
    stmts: dict[tuple[str, int], dict[str, Any]] = {}
    precise: dict[int, dict[str, dict[str, Any]]] = {}
    ascent: dict[str, dict[str, Any]] = {}
    truncated: dict[str, int] = {}
    # (function, hop, seed kind, seeds, affected, the callee an ascent came from)
    queue: deque[tuple[_Fn, int, str, frozenset[int], frozenset[int], str]] = deque()
    queue.append((root, 0, "criterion", local.crit_nodes, local.slice_nodes, ""))
    # functions entered through an ascent (and their descendants) are not the criterion's
    # callees: their statements count, their callees do not enter statement_precise
    via_ascent: set[str] = set()
    n_functions = 1
    n_statements = len(local.statements)
    while queue:
        f, hop, kind, seeds, affected, came_from = queue.popleft()
        ascended = kind == "site" or f.node.id in via_ascent
        reach = seeds | affected
        if hop > 0:
            for i in sorted(affected | (seeds if kind in ("site", "all", "returns") else set())):
                node = f.pdg.cfg.nodes[i]
                if node.line <= 0 or node.kind == "params":
                    continue
                at = (f.node.file, node.line)
                if at not in stmts:
                    stmts[at] = {"file": f.node.file, "line": node.line,
                                  "text": f.pf.line_text(node.line), "symbol": f.node.id,
                                  "hop": hop, "via": "ascent" if kind == "site" else "descent"}
                    n_statements += 1
        # (symbol, seed kind, site line, its json row)
        nxt: list[tuple[str, str, int, dict[str, Any]]] = []
        me = f.node.id
        # --- descent into callees invoked from affected statements
        for e, call_nodes in f.calls:
            hit = [i for i in call_nodes if i in reach]
            if not hit:
                continue
            if kind == "site" and e.dst == came_from and set(hit) <= seeds:
                continue  # the call an ascent came through: only its result changed
            if direction == DOWNSTREAM:
                exec_changed = kind == "all" or any(
                    f.pdg.cd[i] & reach for i in hit
                )
                data_changed = any(i in seeds or f.pdg.dd[i] & reach for i in hit)
                if not (exec_changed or data_changed):
                    continue
                seed = "all" if exec_changed else "params"
            else:
                seed = "returns"
            if hop + 1 > hops:  # beyond the hop budget: reported as truncation, not reach
                truncated["depth"] = truncated.get("depth", 0) + 1
                continue
            callee = view.node(e.dst)
            if callee is None:
                continue
            entry: dict[str, Any] = {**_node_json(callee), "via": f.node.id, "sites": set()}
            if not ascended:  # precise callees: descent from the criterion's own slice only
                entry = precise.setdefault(hop + 1, {}).setdefault(e.dst, entry)
            entry["sites"].add(e.line)
            nxt.append((e.dst, seed, e.line, entry))
        # --- ascent into callers: the return value (downstream) / parameters (upstream)
        # only the criterion's own function and the callers reached by ascent return
        # upward (realizable paths): a callee entered by descent returns to its caller,
        # whose slice already covers the call's result
        if direction == DOWNSTREAM:
            ascend = any(f.pdg.cfg.nodes[i].is_return or f.pdg.cfg.nodes[i].du.has_yield
                         for i in reach)
        else:
            pn = f.pdg.cfg.params_node
            ascend = pn is not None and pn in reach and bool(f.pdg.cfg.params)
        if ascend and kind in ("criterion", "site"):
            for e in view.in_edges(f.node.id, CALL_KINDS):
                if hop + 1 > hops:
                    truncated["depth"] = truncated.get("depth", 0) + 1
                    continue
                caller = view.node(e.src)
                if caller is None or caller.kind not in FUNC_KINDS:
                    continue
                a = ascent.setdefault(caller.id, {**_node_json(caller), "callee": f.node.id,
                                                  "hop": hop + 1, "sites": set()})
                a["sites"].add(e.line)
                nxt.append((caller.id, "site", e.line, a))
        for sym, seed, site_line, _ in nxt:
            key = (sym, seed if seed != "site" else f"site:{site_line}")
            if key in visited or (seed == "params" and (sym, "all") in visited):
                continue
            if hop + 1 > hops:
                truncated["depth"] = truncated.get("depth", 0) + 1
                continue
            if n_functions >= MAX_FUNCTIONS:
                truncated["function-cap"] = truncated.get("function-cap", 0) + 1
                continue
            if n_statements >= MAX_STATEMENTS:
                truncated["statement-cap"] = truncated.get("statement-cap", 0) + 1
                continue
            g = prog.fn(sym)
            if g is None:
                continue
            visited.add(key)
            n_functions += 1
            cfg = g.pdg.cfg
            pdir = direction
            aff: frozenset[int]
            if seed == "all":
                s0 = frozenset(n.id for n in cfg.statement_nodes())
                aff = frozenset()
            elif seed == "params":
                s0 = frozenset([cfg.params_node]) if cfg.params_node is not None else frozenset()
                aff = frozenset(g.pdg.slice_nodes(s0, DOWNSTREAM))
            elif seed == "returns":
                s0 = frozenset(n.id for n in cfg.nodes if n.is_return or n.du.has_yield)
                aff = frozenset(g.pdg.slice_nodes(s0, UPSTREAM))
            else:  # the caller's call site
                s0 = frozenset(n.id for n in cfg.nodes_at_line(site_line))
                aff = frozenset(g.pdg.slice_nodes(s0, pdir))
            if ascended or seed == "site":
                via_ascent.add(sym)
            queue.append((g, hop + 1, seed, s0, aff, me if seed == "site" else ""))
    out["interprocedural_statements"] = sorted(
        stmts.values(), key=lambda s: (s["hop"], s["file"], s["line"]))
    by_depth: dict[str, list[dict[str, Any]]] = {}
    for d in sorted(precise):
        rows = []
        for sym in sorted(precise[d]):
            if sym == target.id:  # recursion: the criterion's own function
                continue
            r = dict(precise[d][sym])
            r["sites"] = sorted(r["sites"])
            rows.append(r)
        by_depth[str(d)] = rows
    # a symbol is listed at its shallowest depth only
    seen_syms: set[str] = set()
    for depth in sorted(by_depth, key=int):
        by_depth[depth] = [r for r in by_depth[depth] if r["id"] not in seen_syms]
        seen_syms.update(r["id"] for r in by_depth[depth])
    out["statement_precise_by_depth"] = {k: v for k, v in by_depth.items() if v}
    out["statement_precise_callees"] = by_depth.get("1", [])
    out["return_ascent"] = sorted(
        ({**a, "sites": sorted(a["sites"])} for a in ascent.values() if a["id"] != target.id),
        key=lambda a: (a["hop"], a["id"]))
    if truncated:
        out["truncated"] = True
        out["truncated_by"] = [f"{k} ({v} skipped)" for k, v in sorted(truncated.items())]
