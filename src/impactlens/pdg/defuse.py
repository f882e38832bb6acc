"""Definitions and uses of one CFG statement.

A *location* is an access path: a tuple of components starting at a name,
``("x",)``, ``("self", "total")``, ``("obj", "a", "b")``; a subscript is the
component ``"[]"`` (``a[i].x`` → ``("a", "[]", "x")``), which makes every write
through it a *weak* (may-) definition. Two paths *overlap* when one is a prefix of
the other: a write of ``obj.a`` affects a read of ``obj`` (the object changed) and
of ``obj.a.b``; a write of ``obj`` affects every ``obj.…`` read.

Calls are modelled conservatively (no inter-procedural alias analysis here):

* ``recv.m(...)`` is a weak definition of ``recv`` unless ``m`` is a known
  non-mutating method (:data:`PURE_METHODS`);
* a path passed as an argument to a callee that is not a known pure builtin is a
  weak definition of that path (the callee may mutate it) when
  :data:`MODEL_ARG_MUTATION` is on.

Nested ``def``/``class``/``lambda`` and comprehensions are opaque single uses of
their free names; a walrus (``:=``) binds in the enclosing function, even inside a
comprehension.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

Path = tuple[str, ...]

SUB = "[]"
#: a computed property key (``o[k]`` in JavaScript, where ``o["a"]`` *is* ``o.a``): it may
#: name any property, so it overlaps every component in its position
ANY = "[*]"
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)  # Python ≥ 3.12

#: arguments passed to non-pure callees are weak definitions (may be mutated)
MODEL_ARG_MUTATION = True

PURE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex",
        "dict", "divmod", "enumerate", "float", "format", "frozenset", "getattr", "hasattr",
        "hash", "hex", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "max",
        "min", "next", "oct", "ord", "pow", "print", "range", "repr", "reversed", "round",
        "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "map", "filter", "vars",
        "dir", "locals", "globals", "super",
    }
)

PURE_METHODS = frozenset(
    {
        "get", "keys", "values", "items", "copy", "count", "index", "find", "rfind", "rindex",
        "startswith", "endswith", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
        "join", "lower", "upper", "casefold", "title", "capitalize", "swapcase", "replace",
        "format", "format_map", "encode", "decode", "isdigit", "isalpha", "isalnum", "isspace",
        "isupper", "islower", "isidentifier", "isnumeric", "isdecimal", "partition",
        "rpartition", "center", "ljust", "rjust", "zfill", "expandtabs", "translate",
        "removeprefix", "removesuffix", "hex", "bit_length", "conjugate", "is_integer",
        "as_integer_ratio", "union", "intersection", "difference", "symmetric_difference",
        "issubset", "issuperset", "isdisjoint", "fromkeys", "group", "groups", "groupdict",
        "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "exists",
        "is_file", "is_dir", "resolve", "with_suffix", "with_name", "relative_to", "isoformat",
        "strftime", "timestamp", "total_seconds", "date", "time",
    }
)


@dataclass(frozen=True, slots=True)
class Def:
    path: Path
    strong: bool  # a strong def kills earlier defs of the path and its extensions
    via_call: bool = False  # a may-mutation through a call (receiver or argument)


@dataclass(slots=True)
class DefUse:
    defs: list[Def] = field(default_factory=list)
    uses: set[Path] = field(default_factory=set)
    # the *reference* a store goes through (``self`` in ``self.x = …``): reached only by
    # definitions of that path or a prefix of it, not by writes to its other attributes
    ref_uses: set[Path] = field(default_factory=set)
    has_yield: bool = False
    has_await: bool = False
    calls: list[ast.Call] = field(default_factory=list)

    def add_def(self, path: Path | None, strong: bool, via_call: bool = False) -> None:
        if path is None:
            return
        if SUB in path or ANY in path:
            strong = False
        self.defs.append(Def(path, strong, via_call))


def overlaps(a: Path, b: Path) -> bool:
    """True when one path is a (component-wise) prefix of the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n] or is_prefix(a[:n], b[:n])


def is_prefix(a: Path, b: Path) -> bool:
    """``a`` is a prefix of ``b``, an :data:`ANY` component matching any component."""
    if len(a) > len(b):
        return False
    return all(x == y or ANY in (x, y) for x, y in zip(a, b, strict=False))


def path_of(expr: ast.AST) -> Path | None:
    """The access path of a Name/Attribute/Subscript chain, else None."""
    parts: list[str] = []
    node = expr
    while True:
        if isinstance(node, ast.Name):
            parts.append(node.id)
            return tuple(reversed(parts))
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            parts.append(SUB)
            node = node.value
        elif isinstance(node, ast.Starred):
            node = node.value
        else:
            return None


def path_text(path: Path) -> str:
    out = path[0]
    for p in path[1:]:
        out += "[…]" if p in (SUB, ANY) else "." + p
    return out


class _Collector:
    """Walks an expression collecting uses, walrus defs, call may-defs, yields."""

    def __init__(self, du: DefUse) -> None:
        self.du = du

    # --- entry points -------------------------------------------------
    def use(self, expr: ast.AST | None) -> None:
        if expr is not None:
            self._expr(expr)

    def store(self, target: ast.AST, strong: bool = True) -> None:
        """A binding target (assignment / for / with / del)."""
        if isinstance(target, ast.Name):
            self.du.add_def((target.id,), strong)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self.store(elt, strong)
        elif isinstance(target, ast.Starred):
            self.store(target.value, strong)
        elif isinstance(target, ast.Attribute):
            p = path_of(target)
            self.du.add_def(p, strong)
            self._base_uses(target.value)
        elif isinstance(target, ast.Subscript):
            p = path_of(target)
            self.du.add_def(p, False)
            self._base_uses(target.value)
            self._expr(target.slice)
        else:  # pragma: no cover - defensive
            self._expr(target)

    # --- internals ----------------------------------------------------
    def _base_uses(self, value: ast.AST) -> None:
        """Uses needed to evaluate the object a store goes into (``a[i].x = …``)."""
        if isinstance(value, ast.Name):
            self.du.ref_uses.add((value.id,))
        elif isinstance(value, ast.Attribute | ast.Subscript):
            p = path_of(value)
            if p is not None:
                self.du.ref_uses.add(p)
            if isinstance(value, ast.Subscript):
                self._expr(value.slice)
                self._base_uses(value.value)
            elif p is None:
                self._expr(value.value)
        else:
            self._expr(value)

    def _expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.du.uses.add((node.id,))
            return
        if isinstance(node, ast.Attribute | ast.Subscript):
            p = path_of(node)
            if p is not None:
                self.du.uses.add(p)
                # evaluate index expressions inside the chain
                cur: ast.AST = node
                while isinstance(cur, ast.Attribute | ast.Subscript):
                    if isinstance(cur, ast.Subscript):
                        self._expr(cur.slice)
                    cur = cur.value
                return
            self._expr(node.value)
            if isinstance(node, ast.Subscript):
                self._expr(node.slice)
            return
        if isinstance(node, ast.Call):
            self._call(node)
            return
        if isinstance(node, ast.NamedExpr):
            self._expr(node.value)
            self.du.add_def((node.target.id,), True)
            return
        if isinstance(node, ast.Lambda):
            self._opaque(node.body, _arg_names(node.args), extra=_arg_defaults(node.args))
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            self._comprehension(node)
            return
        if isinstance(node, ast.Yield | ast.YieldFrom):
            self.du.has_yield = True
            if node.value is not None:
                self._expr(node.value)
            return
        if isinstance(node, ast.Await):
            self.du.has_await = True
            self._expr(node.value)
            return
        for child in ast.iter_child_nodes(node):
            self._expr(child)

    def _call(self, node: ast.Call) -> None:
        self.du.calls.append(node)
        func = node.func
        self._expr(func)
        pure_callee = False
        if isinstance(func, ast.Name):
            pure_callee = func.id in PURE_BUILTINS
        elif isinstance(func, ast.Attribute):
            recv = path_of(func.value)
            if recv is not None:  # a method reads its whole receiver (any attribute)
                self.du.uses.add(recv)
            if func.attr in PURE_METHODS:
                pure_callee = True
            elif recv is not None:
                self.du.add_def(recv, False, via_call=True)
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self._expr(arg)
            if MODEL_ARG_MUTATION and not pure_callee:
                p = path_of(arg)
                if p is not None:
                    self.du.add_def(p, False, via_call=True)

    def _comprehension(self, node: ast.AST) -> None:
        bound: set[str] = set()
        gens: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        for i, gen in enumerate(gens):
            # the first iterable is evaluated in the enclosing scope
            if i == 0:
                self._expr(gen.iter)
            bound |= _target_names(gen.target)
        inner = DefUse()
        sub = _Collector(inner)
        for i, gen in enumerate(gens):
            if i > 0:
                sub._expr(gen.iter)
            for cond in gen.ifs:
                sub._expr(cond)
        if isinstance(node, ast.DictComp):
            sub._expr(node.key)
            sub._expr(node.value)
        else:
            sub._expr(node.elt)  # type: ignore[attr-defined]
        self.du.uses |= {u for u in inner.uses if u[0] not in bound}
        self.du.ref_uses |= {u for u in inner.ref_uses if u[0] not in bound}
        # walrus targets bind in the enclosing scope; call may-defs on free names escape too
        self.du.defs.extend(d for d in inner.defs if d.path[0] not in bound)
        self.du.calls.extend(inner.calls)
        self.du.has_await |= inner.has_await

    def _opaque(self, body: ast.AST | list[ast.stmt], params: set[str],
                extra: list[ast.AST] | None = None) -> None:
        """A nested scope evaluated later: a use of its free names, nothing else."""
        for e in extra or []:
            self._expr(e)
        nodes = body if isinstance(body, list) else [body]
        local = set(params)
        for n in nodes:
            for sub in ast.walk(n):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
                    local.add(sub.id)
        globalish: set[str] = set()
        for n in nodes:
            for sub in ast.walk(n):
                if isinstance(sub, ast.Nonlocal | ast.Global):
                    globalish.update(sub.names)
        for n in nodes:
            for sub in ast.walk(n):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    if sub.id not in local or sub.id in globalish:
                        self.du.uses.add((sub.id,))
                elif isinstance(sub, ast.Attribute | ast.Subscript) and isinstance(
                    sub.ctx, ast.Load
                ):
                    p = path_of(sub)
                    if p is not None and p[0] not in local:
                        self.du.uses.add(p)


def _arg_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def _arg_defaults(args: ast.arguments) -> list[ast.AST]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _target_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def param_names(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    a = func.args
    names = [x.arg for x in [*a.posonlyargs, *a.args]]
    if a.vararg:
        names.append(a.vararg.arg)
    names.extend(x.arg for x in a.kwonlyargs)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


def _pattern_captures(pattern: ast.pattern) -> list[str]:
    out: list[str] = []
    for n in ast.walk(pattern):
        if isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            out.append(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.append(n.rest)
    return out


def _pattern_uses(pattern: ast.pattern, c: _Collector) -> None:
    for n in ast.walk(pattern):
        if isinstance(n, ast.MatchValue):
            c.use(n.value)
        elif isinstance(n, ast.MatchClass):
            c.use(n.cls)
        elif isinstance(n, ast.MatchMapping):
            for k in n.keys:
                c.use(k)


def match_var(line: int, col: int) -> Path:
    """Pseudo-variable carrying a match subject to its case patterns."""
    return (f"<match@{line}:{col}>",)


def header_defuse(node: ast.AST, part: str = "") -> DefUse:
    """Defs/uses of one CFG node: a simple statement or a compound header."""
    du = DefUse()
    c = _Collector(du)
    if isinstance(node, ast.If | ast.While):
        c.use(node.test)
    elif isinstance(node, ast.For | ast.AsyncFor):
        c.use(node.iter)
        c.store(node.target)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            c.use(item.context_expr)
            if item.optional_vars is not None:
                c.store(item.optional_vars)
    elif isinstance(node, ast.ExceptHandler):
        c.use(node.type)
        if node.name:
            du.add_def((node.name,), True)
    elif isinstance(node, ast.Match):
        c.use(node.subject)
        du.add_def(match_var(node.lineno, node.col_offset), True)
    elif isinstance(node, ast.match_case):
        # `part` carries the owning match's pseudo-variable name
        du.uses.add((part,))
        _pattern_uses(node.pattern, c)
        for name in _pattern_captures(node.pattern):
            du.add_def((name,), True)
        c.use(node.guard)
    elif isinstance(node, ast.Try | ast.TryStar):
        pass
    elif isinstance(node, ast.Assign):
        c.use(node.value)
        for t in node.targets:
            c.store(t)
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None:
            c.use(node.value)
            c.store(node.target)
    elif isinstance(node, ast.AugAssign):
        c.use(node.value)
        c.use(_as_load(node.target))
        c.store(node.target)
    elif isinstance(node, ast.Delete):
        for t in node.targets:
            c.store(t)
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name.split(".")[0]
            du.add_def((name,), True)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        for d in node.decorator_list:
            c.use(d)
        c._opaque(node.body, _arg_names(node.args), extra=_arg_defaults(node.args))
        du.add_def((node.name,), True)
    elif isinstance(node, ast.ClassDef):
        for e in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            c.use(e)
        c._opaque(node.body, set())
        du.add_def((node.name,), True)
    elif isinstance(node, ast.Global | ast.Nonlocal | ast.Pass | ast.Break | ast.Continue):
        pass
    elif isinstance(node, ast.Return):
        c.use(node.value)
    elif isinstance(node, ast.Raise):
        c.use(node.exc)
        c.use(node.cause)
    elif isinstance(node, ast.Assert):
        c.use(node.test)
        c.use(node.msg)
    elif isinstance(node, ast.Expr):
        c.use(node.value)
    elif _TYPE_ALIAS is not None and isinstance(node, _TYPE_ALIAS):
        c.use(node.value)  # type: ignore[attr-defined]
        c.store(node.name)  # type: ignore[attr-defined]
    else:  # pragma: no cover - any future statement kind: uses of its expressions
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                c.use(child)
    return du


def _as_load(target: ast.AST) -> ast.AST:
    """AugAssign targets are read before they are written."""
    if isinstance(target, ast.Name):
        return ast.Name(id=target.id, ctx=ast.Load())
    if isinstance(target, ast.Attribute):
        return ast.Attribute(value=target.value, attr=target.attr, ctx=ast.Load())
    if isinstance(target, ast.Subscript):
        return ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load())
    return target
