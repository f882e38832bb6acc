"""Atomic change-type classification of Python files — stdlib ``ast`` diff, no model.

Both versions of a file are parsed; their definitions (classes, defs, module/class
level imports and field bindings, plus the "residual" statements of each scope)
are matched by ``(kind, parent path, name, occurrence)``. Every matched definition
that differs and every unmatched one becomes a candidate, classified by the
precedence ladder: delete, add, class-decl, constructor, method-signature,
method-body, import, field, default method-body. Line ranges come from a line diff
(:mod:`difflib`).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from impactlens.errors import UnparsableError
from impactlens.index.frontend import describe_param_changes
from impactlens.model import AtomicChange, BodyDelta, ChangeType, Params
from impactlens.settings import DEFAULT, Settings

_DEF = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONSTRUCTORS = frozenset({"__init__", "__new__"})
# compound statements whose bodies are flattened into the enclosing module/class scope
_COMPOUND = (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor,
             ast.While)

@dataclass
class _Entity:
    kind: str  # class | def | import | field | residual
    path: tuple[str, ...]  # enclosing names + own name ("" name for a residual)
    start: int
    end: int
    node: ast.AST | None = None
    in_class: bool = False
    stmt: ast.stmt | None = None  # import / assignment statement
    residual: list[str] = field(default_factory=list)
    residual_spans: list[tuple[int, int]] = field(default_factory=list)
    parent_key: tuple[object, ...] | None = None


def _dump(node: ast.AST | Sequence[ast.AST] | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.AST):
        return ast.dump(node)
    return "[" + ", ".join(ast.dump(n) for n in node) + "]"


def _parse(src: str, path: str, which: str) -> ast.Module:
    try:
        return ast.parse(src, filename=path)
    except SyntaxError as exc:
        raise UnparsableError(path, exc.lineno or 0,
                              f"syntax error in the {which} version: {exc.msg}") from None
    except ValueError as exc:  # e.g. source with NUL bytes
        raise UnparsableError(path, 0, f"cannot parse the {which} version: {exc}") from None
    except (RecursionError, MemoryError):  # what the indexer records as unparsable too
        raise UnparsableError(path, 0, f"the {which} version nests expressions too deeply "
                              "to analyze") from None


def _start(node: ast.AST) -> int:
    decos = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decos)])  # type: ignore[attr-defined]


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


class _Collector:
    """Flattens one module into keyed entities."""

    def __init__(self) -> None:
        self.entities: dict[tuple[object, ...], _Entity] = {}
        self._seen: dict[tuple[object, ...], int] = {}

    def _add(self, ent: _Entity) -> tuple[object, ...]:
        base = (ent.kind, ent.path[:-1], ent.path[-1])
        n = self._seen.get(base, 0)
        self._seen[base] = n + 1
        key = (*base, n)
        self.entities[key] = ent
        return key

    def scope(self, body: list[ast.stmt], path: tuple[str, ...], in_class: bool,
              parent_key: tuple[object, ...] | None, span: tuple[int, int]) -> None:
        res = _Entity("residual", (*path, ""), span[0], span[1], in_class=in_class,
                      parent_key=parent_key)
        for i, stmt in enumerate(body):
            if i == 0 and _is_docstring(stmt):
                continue  # a docstring has no semantic effect on dependents
            self._stmt(stmt, path, in_class, parent_key, res)
        self._add(res)

    def _stmt(self, stmt: ast.stmt, path: tuple[str, ...], in_class: bool,
              parent_key: tuple[object, ...] | None, res: _Entity) -> None:
        end = stmt.end_lineno or stmt.lineno
        if isinstance(stmt, ast.ClassDef):
            ent = _Entity("class", (*path, stmt.name), _start(stmt), end, stmt, in_class,
                          parent_key=parent_key)
            key = self._add(ent)
            self.scope(stmt.body, (*path, stmt.name), True, key, (ent.start, end))
        elif isinstance(stmt, _DEF):
            self._add(_Entity("def", (*path, stmt.name), _start(stmt), end, stmt, in_class,
                              parent_key=parent_key))
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                name = alias.asname or alias.name
                self._add(_Entity("import", (*path, name), stmt.lineno, end, alias, in_class,
                                  stmt=stmt, parent_key=parent_key))
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if names and all(isinstance(t, ast.Name | ast.Tuple | ast.List) for t in targets):
                for name in dict.fromkeys(names):
                    self._add(_Entity("field", (*path, name), stmt.lineno, end, stmt, in_class,
                                      stmt=stmt, parent_key=parent_key))
            else:
                res.residual.append(ast.dump(stmt))
                res.residual_spans.append((stmt.lineno, end))
        elif isinstance(stmt, _COMPOUND):
            header = {k: v for k, v in ast.iter_fields(stmt)
                      if k not in ("body", "orelse", "handlers", "finalbody")}
            res.residual.append(type(stmt).__name__ + repr(sorted(
                (k, _dump(v) if isinstance(v, ast.AST | list) else repr(v))
                for k, v in header.items())))
            res.residual_spans.append((stmt.lineno, stmt.lineno))
            blocks: list[list[ast.stmt]] = [stmt.body, getattr(stmt, "orelse", [])]
            for h in getattr(stmt, "handlers", []):
                res.residual.append("except " + _dump(h.type) + " as " + repr(h.name))
                res.residual_spans.append((h.lineno, h.lineno))
                blocks.append(h.body)
            blocks.append(getattr(stmt, "finalbody", []))
            for block in blocks:
                res.residual.append("{")
                for sub in block:
                    self._stmt(sub, path, in_class, parent_key, res)
                res.residual.append("}")
        else:
            res.residual.append(ast.dump(stmt))
            res.residual_spans.append((stmt.lineno, end))


def _collect(tree: ast.Module, n_lines: int) -> dict[tuple[object, ...], _Entity]:
    c = _Collector()
    c.scope(tree.body, (), False, None, (1, max(n_lines, 1)))
    return c.entities


# ---------------------------------------------------------------- signatures
def params_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> Params:
    a = fn.args
    decos = {ast.unparse(d).rsplit(".", 1)[-1] for d in fn.decorator_list}
    if not in_class:
        binding = "function"
    elif "staticmethod" in decos:
        binding = "staticmethod"
    elif "classmethod" in decos:
        binding = "classmethod"
    else:
        binding = "method"
    return Params(
        posonly=tuple(x.arg for x in a.posonlyargs),
        args=tuple(x.arg for x in a.args),
        n_defaults=len(a.defaults),
        vararg=a.vararg.arg if a.vararg else None,
        kwonly=tuple(x.arg for x in a.kwonlyargs),
        kwonly_required=tuple(x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                              if d is None),
        kwarg=a.kwarg.arg if a.kwarg else None,
        binding=binding,
    )


def def_signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "".join(f"@{ast.unparse(d)} " for d in fn.decorator_list)
    kw = "async def" if isinstance(fn, ast.AsyncFunctionDef) else "def"
    ret = f" -> {ast.unparse(fn.returns)}" if fn.returns is not None else ""
    return f"{prefix}{kw} {fn.name}({ast.unparse(fn.args)}){ret}:"


def class_signature(cls: ast.ClassDef) -> str:
    prefix = "".join(f"@{ast.unparse(d)} " for d in cls.decorator_list)
    parts = [ast.unparse(b) for b in cls.bases] + [ast.unparse(k) for k in cls.keywords]
    inner = f"({', '.join(parts)})" if parts else ""
    return f"{prefix}class {cls.name}{inner}:"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stmt_sig(ent: _Entity) -> str:
    return _short(ast.unparse(ent.stmt)) if ent.stmt is not None else ""


def _sig(ent: _Entity) -> str:
    if ent.kind == "def":
        return def_signature(ent.node)  # type: ignore[arg-type]
    if ent.kind == "class":
        return class_signature(ent.node)  # type: ignore[arg-type]
    if ent.kind in ("import", "field"):
        return _stmt_sig(ent)
    return ""


def _def_parts(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str, str]:
    sig = "|".join((_dump(fn.args), _dump(fn.returns), _dump(fn.decorator_list),
                    type(fn).__name__, _dump(getattr(fn, "type_params", None) or [])))
    return _dump(fn.args), sig, _dump(fn.body)


def _class_decl(cls: ast.ClassDef) -> str:
    return "|".join((_dump(cls.bases), _dump(cls.keywords), _dump(cls.decorator_list),
                     _dump(getattr(cls, "type_params", None) or [])))


def _import_fp(ent: _Entity) -> str:
    alias = ent.node
    stmt = ent.stmt
    mod = getattr(stmt, "module", None) or ""
    level = getattr(stmt, "level", 0) or 0
    return f"{type(stmt).__name__}|{mod}|{level}|{alias.name}"  # type: ignore[union-attr]


def _field_fp(ent: _Entity) -> str:
    return _dump(ent.stmt)


def _describe_params(old: ast.FunctionDef | ast.AsyncFunctionDef,
                     new: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    def table(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[str, str, str]]:
        a = fn.args
        pos = a.posonlyargs + a.args
        defaults: list[ast.expr | None] = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        out: dict[str, tuple[str, str, str]] = {}
        for i, (arg, d) in enumerate(zip(pos, defaults, strict=True)):
            where = "positional-only" if i < len(a.posonlyargs) else "positional"
            out[arg.arg] = (where, _dump(d), _dump(arg.annotation))
        if a.vararg:
            out["*" + a.vararg.arg] = ("vararg", "", _dump(a.vararg.annotation))
        for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
            out[arg.arg] = ("keyword-only", _dump(d), _dump(arg.annotation))
        if a.kwarg:
            out["**" + a.kwarg.arg] = ("kwarg", "", _dump(a.kwarg.annotation))
        return out

    def changed(name: str, b: tuple[str, str, str], a: tuple[str, str, str]) -> list[str]:
        (w0, d0, a0), (w1, d1, a1) = b, a
        out = [f"param {name} now {w1}"] if w0 != w1 else []
        if d0 != d1:
            out.append(f"default of {name} {'removed' if not d1 else 'changed'}")
        if a0 != a1:
            out.append(f"annotation of {name} changed")
        return out

    parts = describe_param_changes(table(old), table(new), changed)
    if _dump(old.returns) != _dump(new.returns):
        parts.append("return annotation changed")
    if _dump(old.decorator_list) != _dump(new.decorator_list):
        parts.append("decorators changed")
    if type(old) is not type(new):
        parts.append("async changed")
    return "; ".join(parts) or "signature changed"


def _describe_class(old: ast.ClassDef, new: ast.ClassDef) -> str:
    parts = []
    if _dump(old.bases) != _dump(new.bases):
        parts.append("bases changed")
    if _dump(old.keywords) != _dump(new.keywords):
        parts.append("keywords changed")
    if _dump(old.decorator_list) != _dump(new.decorator_list):
        parts.append("decorators changed")
    return "; ".join(parts) or "declaration changed"


def _init_params(cls_ent: _Entity, ents: dict[tuple[object, ...], _Entity]) -> Params | None:
    path = cls_ent.path
    for name in ("__init__", "__new__"):
        ent = ents.get(("def", path, name, 0))
        if ent is not None:
            return params_of(ent.node, True)  # type: ignore[arg-type]
    return None


# ------------------------------------------------------------------ line diff
@dataclass(frozen=True)
class _LineDiff:
    before: frozenset[int]  # changed (replaced/deleted) before-lines, 1-based
    after: frozenset[int]  # changed (replaced/inserted) after-lines, 1-based
    after_anchors: frozenset[int]  # after-lines next to a pure deletion
    before_anchors: frozenset[int]  # before-lines next to a pure insertion


def _line_diff(a: list[str], b: list[str]) -> _LineDiff:
    before: set[int] = set()
    after: set[int] = set()
    a_anchor: set[int] = set()
    b_anchor: set[int] = set()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        before.update(range(i1 + 1, i2 + 1))
        after.update(range(j1 + 1, j2 + 1))
        if tag == "delete":
            a_anchor.update(x for x in (j1, j1 + 1) if 1 <= x <= max(len(b), 1))
        if tag == "insert":
            b_anchor.update(x for x in (i1, i1 + 1) if 1 <= x <= max(len(a), 1))
    return _LineDiff(frozenset(before), frozenset(after), frozenset(a_anchor),
                     frozenset(b_anchor))


def _range_in(lines: Iterable[int], start: int, end: int) -> tuple[int, int] | None:
    inside = [x for x in lines if start <= x <= end]
    return (min(inside), max(inside)) if inside else None


def _func_src(lines: list[str], ent: _Entity) -> str:
    col = ent.node.col_offset  # type: ignore[union-attr]
    out = []
    for line in lines[ent.start - 1: ent.end]:
        lead = len(line) - len(line.lstrip(" \t"))
        out.append(line[min(col, lead):])
    return "".join(out)


def _rel(lines: frozenset[int], start: int, end: int) -> frozenset[int]:
    return frozenset(x - start + 1 for x in lines if start <= x <= end)


# ------------------------------------------------------------------ classify
def classify(before_src: str | None, after_src: str | None, path: str, module: str,
             settings: Settings = DEFAULT) -> list[AtomicChange]:
    """Atomic changes of one Python file, uncapped (§3.1). Pure; never consults a model."""
    limit = settings.max_entity_chars

    def qual(parts: Sequence[str]) -> str:
        name = ".".join(p for p in (module, *parts) if p)
        return name[:limit]

    if before_src is None and after_src is None:
        return []
    b_lines = (before_src or "").splitlines(keepends=True)
    a_lines = (after_src or "").splitlines(keepends=True)
    b_tree = _parse(before_src, path, "before") if before_src is not None else None
    a_tree = _parse(after_src, path, "after") if after_src is not None else None

    if b_tree is None:  # whole file added
        return [AtomicChange(ChangeType.ADD, qual(()), path, (1, max(len(a_lines), 1)),
                             kind="module", what=f"added module {module}")]
    b_ents = _collect(b_tree, len(b_lines))
    if a_tree is None:  # whole file deleted: the module and every definition in it
        gone = [AtomicChange(ChangeType.DELETE, qual(()), path, (1, max(len(b_lines), 1)),
                            kind="module", what=f"removed module {module}")]
        for ent in b_ents.values():
            if ent.kind in ("class", "def", "field"):
                gone.append(_deleted(ent, qual, path))
        return gone

    a_ents = _collect(a_tree, len(a_lines))
    diff = _line_diff(b_lines, a_lines)
    after_marks = diff.after | diff.after_anchors
    out: list[AtomicChange] = []

    for key, ent in b_ents.items():
        if key in a_ents or ent.kind == "residual":
            continue
        parent_gone = ent.parent_key is not None and ent.parent_key not in a_ents
        if parent_gone and ent.kind == "import":
            continue
        out.append(_deleted(ent, qual, path))

    for key, new in a_ents.items():
        old = b_ents.get(key)
        if old is None:
            if new.kind == "residual" or (new.parent_key is not None
                                          and new.parent_key not in b_ents):
                continue  # only the outermost added node is an `add`
            rng = _range_in(after_marks, new.start, new.end) or (new.start, new.end)
            out.append(AtomicChange(ChangeType.ADD, qual(new.path), path, rng,
                                    after_sig=_sig(new), kind=_kind(new),
                                    what=f"added {_kind(new)} {new.path[-1]}"))
            continue
        change = _compare(old, new, a_ents, b_ents, qual, path, diff, after_marks, b_lines,
                          a_lines)
        if change is not None:
            out.append(change)
    return out


def _kind(ent: _Entity) -> str:
    if ent.kind == "def":
        return "method" if ent.in_class else "function"
    if ent.kind == "residual":
        return "class" if ent.in_class else "module"
    return ent.kind


def _deleted(ent: _Entity, qual, path: str) -> AtomicChange:  # type: ignore[no-untyped-def]
    name = ent.path[-1] or ".".join(ent.path[:-1])
    params = None
    if ent.kind == "def":
        params = params_of(ent.node, ent.in_class)  # type: ignore[arg-type]
    return AtomicChange(ChangeType.DELETE, qual(ent.path), path, (ent.start, ent.end),
                        before_sig=_sig(ent), kind=_kind(ent),
                        what=f"removed {_kind(ent)} {name}", before_params=params)


def _compare(old: _Entity, new: _Entity, a_ents, b_ents, qual, path: str,  # type: ignore[no-untyped-def]
             diff: _LineDiff, after_marks: frozenset[int], b_lines: list[str],
             a_lines: list[str]) -> AtomicChange | None:
    if new.kind in ("def", "field") and (
            b_lines[old.start - 1: old.end] == a_lines[new.start - 1: new.end]):
        return None  # the same source text parses to the same tree: skip the AST dumps
    rng = _range_in(after_marks, new.start, new.end) or (new.start, new.end)
    entity = qual(new.path)
    if new.kind == "class":
        if _class_decl(old.node) == _class_decl(new.node):  # type: ignore[arg-type]
            return None
        return AtomicChange(
            ChangeType.CLASS_DECL, entity, path, rng, _sig(old), _sig(new), kind="class",
            what=_describe_class(old.node, new.node),  # type: ignore[arg-type]
            before_params=_init_params(old, b_ents), after_params=_init_params(new, a_ents))
    if new.kind == "def":
        o_args, o_sig, o_body = _def_parts(old.node)  # type: ignore[arg-type]
        n_args, n_sig, n_body = _def_parts(new.node)  # type: ignore[arg-type]
        bp = params_of(old.node, old.in_class)  # type: ignore[arg-type]
        ap = params_of(new.node, new.in_class)  # type: ignore[arg-type]
        name = new.path[-1]
        if new.in_class and name in _CONSTRUCTORS and o_args != n_args:
            ctype = ChangeType.CONSTRUCTOR
        elif o_sig != n_sig:
            ctype = ChangeType.METHOD_SIGNATURE
        elif o_body != n_body:
            ctype = ChangeType.METHOD_BODY
        else:
            return None
        if ctype is ChangeType.METHOD_BODY:
            body = BodyDelta(
                before_src=_func_src(b_lines, old), after_src=_func_src(a_lines, new),
                before_lines=_rel(diff.before, old.start, old.end),
                after_lines=_rel(diff.after, new.start, new.end), before_start=old.start,
            )
            lo, hi = rng
            what = f"body line {lo}" if lo == hi else f"body lines {lo}-{hi}"
            return AtomicChange(ctype, entity, path, rng, _sig(old), _sig(new), kind=_kind(new),
                                what=what, before_params=bp, after_params=ap, body=body)
        return AtomicChange(ctype, entity, path, rng, _sig(old), _sig(new), kind=_kind(new),
                            what=_describe_params(old.node, new.node),  # type: ignore[arg-type]
                            before_params=bp, after_params=ap)
    if new.kind == "import":
        if _import_fp(old) == _import_fp(new):
            return None
        return AtomicChange(ChangeType.IMPORT, entity, path, rng, _sig(old), _sig(new),
                            kind="import", what=f"import of {new.path[-1]} changed")
    if new.kind == "field":
        if _field_fp(old) == _field_fp(new):
            return None
        o, n = old.stmt, new.stmt
        o_ann = _dump(getattr(o, "annotation", None))
        n_ann = _dump(getattr(n, "annotation", None))
        what = (f"annotation of {new.path[-1]} changed" if o_ann != n_ann
                else f"value of {new.path[-1]} changed")
        return AtomicChange(ChangeType.FIELD, entity, path, rng, _sig(old), _sig(new),
                            kind="field", what=what)
    # residual statements of a module/class scope: the conservative default
    if old.residual == new.residual:
        return None
    spans = new.residual_spans
    inside = sorted(x for x in after_marks if any(s <= x <= e for s, e in spans))
    if not inside:
        covered = {x for e in a_ents.values() if e.kind != "residual"
                   for x in range(e.start, e.end + 1)}
        inside = sorted(x for x in after_marks if new.start <= x <= new.end
                        and x not in covered)
    if not inside:
        inside = sorted(x for x in after_marks if new.start <= x <= new.end)
    rng = (inside[0], inside[-1]) if inside else (new.start, new.start)
    scope = "module" if not new.in_class else "class"
    return AtomicChange(ChangeType.METHOD_BODY, qual(new.path[:-1]), path, rng,
                        kind=scope, what=f"{scope}-level statements changed")


