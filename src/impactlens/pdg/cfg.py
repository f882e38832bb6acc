"""Statement-granular control-flow graph of one Python function (or module/class body).

One node per simple statement and one per compound-statement *header* (``if``/``elif``
test, ``while``/``for`` header, ``try:``, each ``except`` clause, ``with`` items, ``match``
subject, each ``case`` pattern+guard). Nested ``def``/``class`` and lambdas are single
statements of the outer function. Synthetic nodes: ``entry``, ``params`` (the ``def``
line: binds the parameters) and ``exit`` (every ``return`` and every uncaught raise ends
there).

Edge labels:

* ``""`` plain fall-through, ``"T"``/``"F"`` the two arms of a predicate;
* ``"dispatch"``: ``try:`` header → first ``except`` clause (exception raised somewhere in
  the body). Handlers are control-dependent on the ``try`` header, not on each statement
  that may raise — implicit exceptions are not modelled as branches;
* ``"raise"``: an explicit ``raise``/failing ``assert`` to the innermost handler or exit;
* ``"exc"``: a statement inside a ``try`` body/handler may raise part-way through; these
  edges carry definitions into the handlers (data flow) but are ignored for control
  dependence.

``finally`` bodies are duplicated per continuation (fall-through, return, break,
continue, exception), so each copy flows only to its own continuation; the copies share
source lines.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from impactlens.pdg.defuse import DefUse, header_defuse, match_var, param_names

ENTRY, EXIT, PARAMS = "entry", "exit", "params"
CD_LABELS = frozenset({"", "T", "F", "dispatch", "raise", "fake"})

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Module | ast.ClassDef


@dataclass(eq=False, slots=True)
class CFGNode:
    id: int
    kind: str  # entry | exit | params | the statement's AST class name in snake form
    line: int  # first line of the statement/header (0 for entry/exit)
    end_line: int  # last line of the header (compound) or the statement (simple)
    stmt: ast.AST | None
    du: DefUse
    is_return: bool = False
    is_raise: bool = False
    is_predicate: bool = False

    @property
    def is_synthetic(self) -> bool:
        return self.kind in (ENTRY, EXIT)


@dataclass(eq=False)
class CFG:
    nodes: list[CFGNode]
    succ: list[list[tuple[int, str]]]
    entry: int
    exit: int
    params_node: int | None
    params: tuple[str, ...]
    scope: Any  # the scope's syntax node: a Python ast node, or a tree-sitter node
    pred: list[list[tuple[int, str]]] = field(default_factory=list)
    _declared: tuple[frozenset[str], frozenset[str]] | None = None

    @property
    def globals_declared(self) -> frozenset[str]:
        """Names the scope declares ``global`` (computed on first use)."""
        if self._declared is None:
            self._declared = _declared(self.scope)
        return self._declared[0]

    @property
    def nonlocals_declared(self) -> frozenset[str]:
        if self._declared is None:
            self._declared = _declared(self.scope)
        return self._declared[1]

    def __post_init__(self) -> None:
        self.pred = [[] for _ in self.nodes]
        for a, outs in enumerate(self.succ):
            for b, label in outs:
                self.pred[b].append((a, label))

    def statement_nodes(self) -> list[CFGNode]:
        return [n for n in self.nodes if not n.is_synthetic]

    def nodes_at_line(self, line: int) -> list[CFGNode]:
        """Statements whose (header) span covers ``line``."""
        return [n for n in self.nodes if not n.is_synthetic and n.line <= line <= n.end_line]


@dataclass(slots=True)
class _Ctx:
    break_t: int | None
    continue_t: int | None
    return_t: int
    raise_t: int
    in_try: bool = False  # statements get "exc" edges to raise_t

    def but(self, **kw: object) -> _Ctx:
        d = {s: getattr(self, s) for s in self.__slots__}
        d.update(kw)
        return _Ctx(**d)  # type: ignore[arg-type]


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _end(*nodes: ast.AST | None) -> int:
    return max((getattr(n, "end_lineno", 0) or 0) for n in nodes if n is not None)


def header_span(s: ast.AST) -> tuple[int, int]:
    """First and last source line that belong to ``s`` itself (not its body)."""
    if isinstance(s, ast.If | ast.While):
        return s.lineno, max(s.lineno, _end(s.test))
    if isinstance(s, ast.For | ast.AsyncFor):
        return s.lineno, max(s.lineno, _end(s.target, s.iter))
    if isinstance(s, ast.With | ast.AsyncWith):
        parts: list[ast.AST | None] = []
        for it in s.items:
            parts += [it.context_expr, it.optional_vars]
        return s.lineno, max(s.lineno, _end(*parts))
    if isinstance(s, ast.Try | ast.TryStar):
        return s.lineno, s.lineno
    if isinstance(s, ast.ExceptHandler):
        return s.lineno, max(s.lineno, _end(s.type) if s.type else s.lineno)
    if isinstance(s, ast.Match):
        return s.lineno, max(s.lineno, _end(s.subject))
    if isinstance(s, ast.match_case):
        return s.pattern.lineno, max(s.pattern.lineno, _end(s.pattern, s.guard))
    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        start = min([s.lineno, *(d.lineno for d in s.decorator_list)])
        return start, s.end_lineno or s.lineno
    return s.lineno, getattr(s, "end_lineno", None) or s.lineno  # type: ignore[attr-defined]


def signature_span(fn: FunctionNode, lines: list[str] | None = None) -> tuple[int, int]:
    """The ``def`` line through the last line of the signature (``lines`` = the source,
    used to include a closing ``) -> T:`` line of its own)."""
    a = fn.args
    parts: list[ast.AST | None] = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg,
                                   *a.defaults, *a.kw_defaults, fn.returns]
    end = max([fn.lineno, _end(*parts) if any(p is not None for p in parts) else 0])
    first_body = fn.body[0].lineno if fn.body else end
    while lines is not None and end + 1 < first_body and end < len(lines) \
            and lines[end].lstrip().startswith(")"):
        end += 1
    return fn.lineno, end


def _const_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _irrefutable(case: ast.match_case) -> bool:
    p = case.pattern
    return case.guard is None and isinstance(p, ast.MatchAs) and p.pattern is None


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[CFGNode] = []
        self.succ: list[list[tuple[int, str]]] = []

    def new(self, kind: str, stmt: ast.AST | None, du: DefUse | None = None,
            span: tuple[int, int] | None = None) -> int:
        nid = len(self.nodes)
        if span is None:
            span = header_span(stmt) if stmt is not None else (0, 0)
        if du is None:
            du = header_defuse(stmt) if stmt is not None else DefUse()
        self.nodes.append(CFGNode(nid, kind, span[0], span[1], stmt, du))
        self.succ.append([])
        return nid

    def edge(self, a: int, b: int | None, label: str = "") -> None:
        if b is None:
            return
        if (b, label) not in self.succ[a]:
            self.succ[a].append((b, label))

    def exc(self, n: int, ctx: _Ctx) -> None:
        if ctx.in_try:
            self.edge(n, ctx.raise_t, "exc")

    # ----------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], nxt: int, ctx: _Ctx) -> int:
        cur = nxt
        for s in reversed(stmts):
            cur = self.stmt(s, cur, ctx)
        return cur

    def stmt(self, s: ast.stmt, nxt: int, ctx: _Ctx) -> int:
        kind = _snake(type(s).__name__)
        if isinstance(s, ast.If):
            n = self.new(kind, s)
            self.nodes[n].is_predicate = True
            self.edge(n, self.block(s.body, nxt, ctx), "T")
            self.edge(n, self.block(s.orelse, nxt, ctx) if s.orelse else nxt, "F")
            self.exc(n, ctx)
            return n
        if isinstance(s, ast.While | ast.For | ast.AsyncFor):
            n = self.new(kind, s)
            self.nodes[n].is_predicate = True
            inner = ctx.but(break_t=nxt, continue_t=n)
            self.edge(n, self.block(s.body, n, inner), "T")
            if not (isinstance(s, ast.While) and _const_true(s.test)):
                self.edge(n, self.block(s.orelse, nxt, ctx) if s.orelse else nxt, "F")
            self.exc(n, ctx)
            return n
        if isinstance(s, ast.Try | ast.TryStar):
            return self.try_(s, nxt, ctx)
        if isinstance(s, ast.With | ast.AsyncWith):
            n = self.new(kind, s)
            self.edge(n, self.block(s.body, nxt, ctx))
            self.exc(n, ctx)
            return n
        if isinstance(s, ast.Match):
            n = self.new(kind, s)
            var = match_var(s.lineno, s.col_offset)[0]
            cur = nxt
            for case in reversed(s.cases):
                cn = self.new("case", case, du=header_defuse(case, var))
                self.nodes[cn].is_predicate = True
                self.edge(cn, self.block(case.body, nxt, ctx), "T")
                if not _irrefutable(case):
                    self.edge(cn, cur, "F")
                self.exc(cn, ctx)
                cur = cn
            self.edge(n, cur)
            self.exc(n, ctx)
            return n
        n = self.new(kind, s)
        node = self.nodes[n]
        if isinstance(s, ast.Return):
            node.is_return = True
            self.edge(n, ctx.return_t)
            self.exc(n, ctx)
        elif isinstance(s, ast.Raise):
            node.is_raise = True
            self.edge(n, ctx.raise_t, "raise")
        elif isinstance(s, ast.Break):
            self.edge(n, ctx.break_t if ctx.break_t is not None else nxt)
        elif isinstance(s, ast.Continue):
            self.edge(n, ctx.continue_t if ctx.continue_t is not None else nxt)
        elif isinstance(s, ast.Assert):
            node.is_predicate = True
            self.edge(n, nxt, "T")
            self.edge(n, ctx.raise_t, "raise")
        else:
            self.edge(n, nxt)
            self.exc(n, ctx)
        return n

    def try_(self, s: ast.Try | ast.TryStar, nxt: int, ctx: _Ctx) -> int:
        cache: dict[int, int] = {}

        def fin(target: int | None) -> int | None:
            if target is None or not s.finalbody:
                return target
            if target not in cache:
                cache[target] = self.block(s.finalbody, target, ctx)
            return cache[target]

        after = fin(nxt)
        assert after is not None
        raise_out = fin(ctx.raise_t)
        assert raise_out is not None
        tctx = ctx.but(
            break_t=fin(ctx.break_t), continue_t=fin(ctx.continue_t),
            return_t=fin(ctx.return_t), raise_t=raise_out,
            in_try=ctx.in_try or bool(s.finalbody),
        )
        else_entry = self.block(s.orelse, after, tctx) if s.orelse else after
        dispatch = raise_out
        for h in reversed(s.handlers):
            hn = self.new("except_handler", h)
            self.nodes[hn].is_predicate = True
            self.edge(hn, self.block(h.body, after, tctx), "T")
            if h.type is not None:
                self.edge(hn, dispatch, "F")
            dispatch = hn
        bctx = tctx.but(raise_t=dispatch, in_try=True)
        body = self.block(s.body, else_entry, bctx)
        tn = self.new(_snake(type(s).__name__), s)
        self.nodes[tn].is_predicate = True
        self.edge(tn, body)
        self.edge(tn, dispatch, "dispatch")
        return tn


def _declared(scope: Any) -> tuple[frozenset[str], frozenset[str]]:
    g: set[str] = set()
    nl: set[str] = set()
    if not isinstance(scope, ast.AST):  # no global/nonlocal declarations outside Python
        return frozenset(), frozenset()
    stack: list[ast.AST] = list(getattr(scope, "body", []))
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Global):
            g.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            nl.update(n.names)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(g), frozenset(nl)


def build_cfg(scope: ScopeNode, lines: list[str] | None = None) -> CFG:
    """CFG of a function (or of a module / class body, which has no parameters).

    ``lines`` (the source text's lines) only refines the span of the signature."""
    b = _Builder()
    entry = b.new(ENTRY, None)
    exit_ = b.new(EXIT, None)
    params_node: int | None = None
    params: tuple[str, ...] = ()
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        params = tuple(param_names(scope))
        du = DefUse()
        for p in params:
            du.add_def((p,), True)
        params_node = b.new(PARAMS, None, du=du, span=signature_span(scope, lines))
    ctx = _Ctx(break_t=None, continue_t=None, return_t=exit_, raise_t=exit_)
    body = [s for s in scope.body]
    first = b.block(body, exit_, ctx)
    if params_node is not None:
        b.edge(entry, params_node)
        b.edge(params_node, first)
    else:
        b.edge(entry, first)
    return CFG(b.nodes, b.succ, entry, exit_, params_node, params, scope)
