"""Statement-granular CFG of one TypeScript/JavaScript function (tree-sitter), in the
representation of :mod:`impactlens.pdg.cfg` so post-dominators, control dependence,
reaching definitions and slicing are shared with the Python frontend.

One node per simple statement and per compound *header*: the ``if``/``while`` test,
``for`` initializer, test and update (three nodes on the header line), the ``for…of``/
``for…in`` header, the ``do…while`` test (at its ``while`` line), the ``switch``
discriminant and each ``case`` test, ``try`` and ``catch (e)``. Nested functions and
classes are single statements of the outer function. Synthetic nodes: ``entry``,
``params`` (the signature: binds the parameters) and ``exit``.

* ``switch``: the cases are tested in order (``F`` to the next test, the last one to
  ``default`` or past the switch); a case body falls through into the next body unless
  it breaks.
* Labelled ``break``/``continue`` jump to the labelled statement's exit / the labelled
  loop's continue point.
* ``try``/``catch``/``finally``: as for Python (``dispatch`` edge from ``try`` to the
  ``catch``; statements in the body get ``exc`` edges; ``finally`` is duplicated per
  continuation). A JavaScript ``catch`` catches everything.
* An expression statement whose side effect is short-circuited — ``a && f()``,
  ``a || f()``, ``a ?? f()``, ``c ? f() : g()``, ``obj?.m()`` — is split into a
  predicate node (the guard) and the guarded part, both on the statement's lines, so
  what the guard decides is control-dependent on it.
* An arrow function with an expression body is one ``return`` node.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from impactlens.pdg.cfg import CFG, ENTRY, EXIT, PARAMS, _Builder
from impactlens.pdg.defuse import DefUse
from impactlens.pdg.typescript.defuse import (
    CLASS_TYPES,
    FUNCTION_TYPES,
    TYPE_NODES,
    Collector,
    free_names,
    has_side_effect,
    named,
    operator,
    pattern_names,
    text,
    unwrap,
)
from impactlens.pdg.typescript.defuse import field as fld

_SKIP = frozenset({"empty_statement", "interface_declaration", "type_alias_declaration",
                   "ambient_declaration", "comment", "import_statement", "debugger_statement",
                   "function_signature"})
_DECLS = frozenset({"lexical_declaration", "variable_declaration"})


@dataclass(slots=True)
class _Ctx:
    break_t: int | None
    continue_t: int | None
    return_t: int
    raise_t: int
    in_try: bool = False
    labels: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)

    def but(self, **kw: Any) -> _Ctx:
        return replace(self, **kw)


def lines_of(node: Any) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1


def _span(start: Any, end: Any | None = None) -> tuple[int, int]:
    last = end if end is not None else start
    return start.start_point[0] + 1, max(start.start_point[0], last.end_point[0]) + 1


def local_closures(fn: Any) -> dict[str, tuple[set[str], set[str]]]:
    """Names the function binds to a nested function → that function's free names."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    body = fld(fn, "body")
    stack = [body] if body is not None else []
    while stack:
        n = stack.pop()
        if n.type == "variable_declarator":
            v = unwrap(fld(n, "value"))
            nm = fld(n, "name")
            if v is not None and nm is not None and nm.type == "identifier" \
                    and v.type in FUNCTION_TYPES:
                out[text(nm)] = free_names(v)
        elif n.type in ("function_declaration", "generator_function_declaration"):
            nm = fld(n, "name")
            if nm is not None:
                out[text(nm)] = free_names(n)
            continue
        if n.type in FUNCTION_TYPES or n.type in CLASS_TYPES:
            continue
        stack.extend(named(n))
    return out


class _TsBuilder(_Builder):
    def __init__(self, closures: dict[str, tuple[set[str], set[str]]]) -> None:
        super().__init__()
        self.closures = closures

    def du(self) -> tuple[DefUse, Collector]:
        du = DefUse()
        return du, Collector(du, self.closures)

    def exc(self, n: int, ctx: _Ctx) -> None:  # type: ignore[override]
        if ctx.in_try:
            self.edge(n, ctx.raise_t, "exc")

    def simple(self, kind: str, node: Any, du: DefUse, nxt: int, ctx: _Ctx,
               span: tuple[int, int] | None = None) -> int:
        n = self.new(kind, node, du=du, span=span or lines_of(node))
        self.edge(n, nxt)
        self.exc(n, ctx)
        return n

    def predicate(self, kind: str, node: Any, du: DefUse, span: tuple[int, int]) -> int:
        n = self.new(kind, node, du=du, span=span)
        self.nodes[n].is_predicate = True
        return n

    # --------------------------------------------------------------- blocks
    def block(self, stmts: list[Any], nxt: int, ctx: _Ctx) -> int:  # type: ignore[override]
        cur = nxt
        for s in reversed(stmts):
            cur = self.stmt(s, cur, ctx)
        return cur

    def body_of(self, node: Any | None, nxt: int, ctx: _Ctx) -> int:
        if node is None:
            return nxt
        if node.type == "statement_block":
            return self.block(list(named(node)), nxt, ctx)
        return self.stmt(node, nxt, ctx)

    def stmt(self, s: Any, nxt: int, ctx: _Ctx, label: str | None = None) -> int:  # type: ignore[override]
        t = s.type
        handler = _HANDLERS.get(t)
        if handler is not None:
            return handler(self, s, nxt, ctx, label)
        if t in _SKIP or t in TYPE_NODES:
            return nxt
        if t == "statement_block":
            return self.block(list(named(s)), nxt, ctx)
        if t == "export_statement":
            decl = fld(s, "declaration") or fld(s, "value")
            if decl is not None:
                return self.stmt(decl, nxt, ctx)
            return nxt
        du, c = self.du()
        if t in _DECLS:
            for d in named(s):
                if d.type == "variable_declarator":
                    self._declarator(d, c, s)
        elif t in ("function_declaration", "generator_function_declaration") or t in CLASS_TYPES:
            c.opaque(s, runs_here=False)
            nm = fld(s, "name")
            du.add_def((text(nm),) if nm is not None else None, True)
        elif t == "enum_declaration":
            nm = fld(s, "name")
            du.add_def((text(nm),) if nm is not None else None, True)
        elif t == "expression_statement":
            expr = unwrap(s.named_children[0]) if s.named_children else None
            if expr is not None and _guarded(expr):
                return self.guarded(expr, s, nxt, ctx)
            c.use(expr)
        else:
            for ch in named(s):
                c.use(ch)
        return self.simple(_kind(t), s, du, nxt, ctx)

    def _declarator(self, d: Any, c: Collector, decl: Any) -> None:
        name, value = fld(d, "name"), fld(d, "value")
        if name is None:
            return
        if value is None:
            # `let x;` binds undefined; `var x;` re-declares without a value
            if not any(ch.type == "var" for ch in decl.children):
                c.store(name)
            return
        if name.type in ("object_pattern", "array_pattern"):
            c.destructure(name, value)
        elif unwrap(value).type in FUNCTION_TYPES:  # a local closure: runs where called
            c.opaque(unwrap(value), runs_here=False)
            c.store(name)
        else:
            c.use(value)
            c.store(name)

    # ------------------------------------------------------ short circuits
    def guarded(self, expr: Any, s: Any, nxt: int, ctx: _Ctx) -> int:
        """``a && f()`` etc.: the guard as a predicate, the guarded part under it."""
        span = lines_of(s)
        expr = unwrap(expr)
        t = expr.type
        if t == "binary_expression" and operator(expr) in ("&&", "||", "??"):
            du, c = self.du()
            c.use(fld(expr, "left"))
            p = self.predicate("guard", expr, du, span)
            right = self.expr_part(fld(expr, "right"), s, nxt, ctx)
            arm = "F" if operator(expr) == "||" else "T"
            self.edge(p, right, arm)
            self.edge(p, nxt, "T" if arm == "F" else "F")
            self.exc(p, ctx)
            return p
        if t == "ternary_expression":
            du, c = self.du()
            c.use(fld(expr, "condition"))
            p = self.predicate("guard", expr, du, span)
            self.edge(p, self.expr_part(fld(expr, "consequence"), s, nxt, ctx), "T")
            self.edge(p, self.expr_part(fld(expr, "alternative"), s, nxt, ctx), "F")
            self.exc(p, ctx)
            return p
        # obj?.m(…): the call (and its arguments) run only when obj is not nullish
        fn = unwrap(fld(expr, "function"))
        obj = unwrap(fld(fn, "object")) if fn is not None and fn.type == "member_expression" \
            else fn
        du, c = self.du()
        c.use(obj)
        p = self.predicate("guard", expr, du, span)
        cdu, cc = self.du()
        cc.use(expr)
        call = self.simple("expression_statement", s, cdu, nxt, ctx, span)
        self.edge(p, call, "T")
        self.edge(p, nxt, "F")
        self.exc(p, ctx)
        return p

    def expr_part(self, expr: Any | None, s: Any, nxt: int, ctx: _Ctx) -> int:
        if expr is None:
            return nxt
        if _guarded(unwrap(expr)):
            return self.guarded(expr, s, nxt, ctx)
        du, c = self.du()
        c.use(expr)
        return self.simple("expression_statement", s, du, nxt, ctx, lines_of(s))


def _guarded(expr: Any) -> bool:
    """An expression whose side effect runs only when a guard allows it."""
    t = expr.type
    if t == "binary_expression" and operator(expr) in ("&&", "||", "??"):
        right = fld(expr, "right")
        return right is not None and has_side_effect(right)
    if t == "ternary_expression":
        return any(x is not None and has_side_effect(x)
                   for x in (fld(expr, "consequence"), fld(expr, "alternative")))
    if t == "call_expression":
        fn = unwrap(fld(expr, "function"))
        direct = any(ch.type == "optional_chain" for ch in expr.children)
        via_member = fn is not None and fn.type == "member_expression" and any(
            ch.type == "optional_chain" for ch in fn.children)
        return direct or via_member
    return False


def _kind(t: str) -> str:
    return t.removesuffix("_statement") if t.endswith("_statement") and t not in (
        "expression_statement",) else t


# ------------------------------------------------------------- compound kinds
def _if(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    cond = fld(s, "condition")
    du, c = b.du()
    c.use(cond)
    n = b.predicate("if", s, du, _span(s, cond))
    b.edge(n, b.body_of(fld(s, "consequence"), nxt, ctx), "T")
    alt = fld(s, "alternative")
    if alt is not None:
        inner = [x for x in named(alt)]
        b.edge(n, b.body_of(inner[0], nxt, ctx) if inner else nxt, "F")
    else:
        b.edge(n, nxt, "F")
    b.exc(n, ctx)
    return n


def _labels(ctx: _Ctx, label: str | None, brk: int, cont: int | None) -> _Ctx:
    if label is None:
        return ctx.but(break_t=brk, continue_t=cont)
    labels = dict(ctx.labels)
    labels[label] = (brk, cont)
    return ctx.but(break_t=brk, continue_t=cont, labels=labels)


def _while(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    cond = fld(s, "condition")
    du, c = b.du()
    c.use(cond)
    n = b.predicate("while", s, du, _span(s, cond))
    inner = _labels(ctx, label, nxt, n)
    b.edge(n, b.body_of(fld(s, "body"), n, inner), "T")
    if not _const_true(cond):
        b.edge(n, nxt, "F")
    b.exc(n, ctx)
    return n


def _do(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    cond = fld(s, "condition")
    du, c = b.du()
    c.use(cond)
    n = b.predicate("do", s, du, lines_of(cond) if cond is not None else lines_of(s))
    inner = _labels(ctx, label, nxt, n)
    body = b.body_of(fld(s, "body"), n, inner)
    b.edge(n, body, "T")
    if not _const_true(cond):
        b.edge(n, nxt, "F")
    b.exc(n, ctx)
    return body


def _for(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    init, cond, upd = fld(s, "initializer"), fld(s, "condition"), fld(s, "increment")
    head = _span(s, fld(s, "body").prev_sibling if fld(s, "body") is not None else s)
    du, c = b.du()
    cexpr = unwrap(cond.named_children[0]) if cond is not None and cond.type == \
        "expression_statement" and cond.named_children else cond
    if cexpr is not None and cexpr.type != "empty_statement":
        c.use(cexpr)
    test = b.predicate("for", s, du, head)
    if upd is not None:
        udu, uc = b.du()
        uc.use(upd)
        update = b.new("for_update", upd, du=udu, span=head)
        b.edge(update, test)
        b.exc(update, ctx)
    else:
        update = test
    inner = _labels(ctx, label, nxt, update)
    b.edge(test, b.body_of(fld(s, "body"), update, inner), "T")
    if cexpr is not None and cexpr.type != "empty_statement" and not _const_true(cexpr):
        b.edge(test, nxt, "F")
    b.exc(test, ctx)
    if init is None or init.type == "empty_statement":
        return test
    idu, ic = b.du()
    if init.type in _DECLS:
        for d in named(init):
            if d.type == "variable_declarator":
                b._declarator(d, ic, init)
    else:
        ic.use(unwrap(init.named_children[0]) if init.type == "expression_statement"
               and init.named_children else init)
    first = b.new("for_init", init, du=idu, span=head)
    b.edge(first, test)
    b.exc(first, ctx)
    return first


def _for_in(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    left, right = fld(s, "left"), fld(s, "right")
    du, c = b.du()
    c.use(right)
    if left is not None:
        c.store(left)
    body = fld(s, "body")
    n = b.predicate("for_in", s, du, _span(s, body.prev_sibling if body is not None else s))
    inner = _labels(ctx, label, nxt, n)
    b.edge(n, b.body_of(body, n, inner), "T")
    b.edge(n, nxt, "F")
    b.exc(n, ctx)
    return n


def _switch(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    value = fld(s, "value")
    var = (f"<switch@{s.start_point[0] + 1}:{s.start_point[1]}>",)
    du, c = b.du()
    c.use(value)
    du.add_def(var, True)
    head = b.new("switch", s, du=du, span=_span(s, value))
    b.exc(head, ctx)
    body = fld(s, "body")
    clauses = [x for x in named(body)] if body is not None else []
    clauses = [x for x in clauses if x.type in ("switch_case", "switch_default")]
    inner = ctx.but(break_t=nxt)
    if label is not None:
        inner = inner.but(labels={**ctx.labels, label: (nxt, None)})
    # bodies back to front: each falls through into the next one
    starts: list[int] = [0] * len(clauses)
    after = nxt
    for i in range(len(clauses) - 1, -1, -1):
        cl = clauses[i]
        stmts = [ch for j, ch in enumerate(cl.children)
                 if cl.field_name_for_child(j) == "body"]
        after = b.block(stmts, after, inner)
        starts[i] = after
    default = next((i for i, x in enumerate(clauses) if x.type == "switch_default"), None)
    miss = starts[default] if default is not None else nxt
    for i in range(len(clauses) - 1, -1, -1):
        cl = clauses[i]
        if cl.type == "switch_default":
            continue
        cv = fld(cl, "value")
        cdu, cc = b.du()
        cdu.uses.add(var)
        cc.use(cv)
        test = b.predicate("case", cl, cdu, _span(cl, cv))
        b.edge(test, starts[i], "T")
        b.edge(test, miss, "F")
        b.exc(test, ctx)
        miss = test
    b.edge(head, miss)
    return head


def _labelled(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    name = text(fld(s, "label"))
    body = fld(s, "body") or (s.named_children[-1] if s.named_children else None)
    if body is None:
        return nxt
    if body.type in _LOOPS:
        return b.stmt(body, nxt, ctx, name)
    labels = dict(ctx.labels)
    labels[name] = (nxt, None)
    return b.body_of(body, nxt, ctx.but(labels=labels))


def _jump(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    lab = fld(s, "label") or next((c for c in s.named_children
                                   if c.type == "statement_identifier"), None)
    is_break = s.type == "break_statement"
    if lab is not None and text(lab) in ctx.labels:
        brk, cont = ctx.labels[text(lab)]
        target = brk if is_break else cont
    else:
        target = ctx.break_t if is_break else ctx.continue_t
    n = b.new("break" if is_break else "continue", s, du=DefUse(), span=lines_of(s))
    b.edge(n, target if target is not None else nxt)
    return n


def _return(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    """``return``/``throw``: to the function's exit / the innermost handler."""
    du, c = b.du()
    for ch in named(s):
        c.use(ch)
    is_throw = s.type == "throw_statement"
    n = b.new("throw" if is_throw else "return", s, du=du, span=lines_of(s))
    if is_throw:
        b.nodes[n].is_raise = True
        b.edge(n, ctx.raise_t, "raise")
    else:
        b.nodes[n].is_return = True
        b.edge(n, ctx.return_t)
        b.exc(n, ctx)
    return n


def _try(b: _TsBuilder, s: Any, nxt: int, ctx: _Ctx, label: str | None) -> int:
    handler, final = fld(s, "handler"), fld(s, "finalizer")
    final_body = fld(final, "body") if final is not None else None
    cache: dict[int, int] = {}

    def fin(target: int | None) -> int | None:
        if target is None or final_body is None:
            return target
        if target not in cache:
            cache[target] = b.body_of(final_body, target, ctx)
        return cache[target]

    after = fin(nxt)
    raise_out = fin(ctx.raise_t)
    assert after is not None and raise_out is not None
    labels = {k: (fin(v[0]), fin(v[1])) for k, v in ctx.labels.items()}
    tctx = ctx.but(break_t=fin(ctx.break_t), continue_t=fin(ctx.continue_t),
                   return_t=fin(ctx.return_t), raise_t=raise_out,
                   in_try=ctx.in_try or final_body is not None, labels=labels)
    dispatch = raise_out
    if handler is not None:
        param = fld(handler, "parameter")
        du, c = b.du()
        if param is not None:
            c.store(param)
        hn = b.predicate("catch", handler, du, _span(handler, param) if param is not None
                         else (handler.start_point[0] + 1,) * 2)
        b.edge(hn, b.body_of(fld(handler, "body"), after, tctx), "T")
        dispatch = hn
    bctx = tctx.but(raise_t=dispatch, in_try=True)
    body = b.body_of(fld(s, "body"), after, bctx)
    line = s.start_point[0] + 1
    tn = b.predicate("try", s, DefUse(), (line, line))
    b.edge(tn, body)
    b.edge(tn, dispatch, "dispatch")
    return tn


def _const_true(cond: Any) -> bool:
    e = unwrap(cond)
    return e is not None and (e.type == "true" or (e.type == "number" and text(e) not in (
        "0", "0.0")))


_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_HANDLERS: dict[str, Any] = {
    "if_statement": _if, "while_statement": _while, "do_statement": _do,
    "for_statement": _for, "for_in_statement": _for_in, "switch_statement": _switch,
    "labeled_statement": _labelled, "break_statement": _jump, "continue_statement": _jump,
    "return_statement": _return, "throw_statement": _return, "try_statement": _try,
}


# ----------------------------------------------------------------- functions
def param_nodes(fn: Any) -> list[Any]:
    params = fld(fn, "parameters")
    if params is not None:
        return [p for p in named(params)]
    single = fld(fn, "parameter")
    return [single] if single is not None else []


def signature_lines(fn: Any) -> tuple[int, int]:
    """The function's first line through the line its body opens on."""
    body = fld(fn, "body")
    start = fn.start_point[0] + 1
    end = body.start_point[0] + 1 if body is not None else fn.end_point[0] + 1
    return start, max(start, end)


def build_ts_cfg(scope: Any) -> CFG:
    """CFG of a function-like node (or of a whole program / class body: no parameters)."""
    closures = local_closures(scope) if scope.type in FUNCTION_TYPES else {}
    b = _TsBuilder(closures)
    entry = b.new(ENTRY, None, du=DefUse(), span=(0, 0))
    exit_ = b.new(EXIT, None, du=DefUse(), span=(0, 0))
    ctx = _Ctx(break_t=None, continue_t=None, return_t=exit_, raise_t=exit_)
    params_node: int | None = None
    names: list[str] = []
    if scope.type in FUNCTION_TYPES:
        du, c = b.du()
        for p in param_nodes(scope):
            c.store(p)
            names.extend(sorted(pattern_names(p)))
            if any(ch.type == "accessibility_modifier" or ch.type == "readonly"
                   for ch in p.children):  # constructor(private x) also sets this.x
                for nm in pattern_names(p):
                    du.add_def(("this", nm), True)
        params_node = b.new(PARAMS, scope, du=du, span=signature_lines(scope))
        body = fld(scope, "body")
        if body is None:
            first = exit_
        elif body.type == "statement_block":
            first = b.block(list(named(body)), exit_, ctx)
        else:  # an arrow function's expression body is its return value
            rdu, rc = b.du()
            rc.use(body)
            first = b.new("return", body, du=rdu, span=lines_of(body))
            b.nodes[first].is_return = True
            b.edge(first, exit_)
        b.edge(entry, params_node)
        b.edge(params_node, first)
    else:
        stmts = [x for x in named(scope)]
        b.edge(entry, b.block(stmts, exit_, ctx))
    return CFG(b.nodes, b.succ, entry, exit_, params_node, tuple(names), scope)
