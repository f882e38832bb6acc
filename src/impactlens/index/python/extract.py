"""One pass over a module's AST → :class:`PyFileFacts`.

The visitor dispatches on the node class (one handler per statement and
expression type, like pyflakes). Its state and the statements, definitions,
imports and scopes are here; two mixins hold the rest: ``binding_flow.py`` tracks
which bindings of each local name reach each read (flow-sensitive across
``if``/loops/``try``/``match``, so a name rebound later does not pollute an
earlier call), and ``expr_encoding.py`` encodes every expression, call site and
attribute/global reference as small tuples (see ``facts.py``). Nothing is
resolved here: that needs other files.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from impactlens.fileio import decode_source
from impactlens.index.python import pytest_marks as pm
from impactlens.index.python.binding_flow import BindingFlow, LoopFrame
from impactlens.index.python.expr_encoding import (
    AWITH,
    BINOP_DUNDER,
    DECO,
    K_DICT,
    K_TUPLE,
    NONE,
    RAISE,
    WITH,
    ExprEncoding,
    P,
    U,
    self_sites,
)
from impactlens.index.python.facts import (
    B_ASSIGN,
    B_CLASS,
    B_DEF,
    B_IMPORT,
    B_OTHER,
    B_PARAM,
    C_DATACLASS,
    CLASS,
    F_ABSTRACT,
    F_ASYNC,
    F_CLASSMETHOD,
    F_CONTEXTMANAGER,
    F_FIXTURE,
    F_OVERLOAD,
    F_PROPERTY,
    F_STATICMETHOD,
    FUNCTION,
    MODULE,
    P_KWONLY,
    P_POS,
    P_POSONLY,
    P_VARARG,
    P_VARKW,
    Enc,
    PyFileFacts,
    Scope,
)
from impactlens.index.python.strong_updates import StoreKills
from impactlens.index.python.words import ident_tokens
from impactlens.index.runtime import gc_paused, recursion_limit_at_least

_PROPERTY_DECOS = frozenset({
    "property", "cached_property", "functools.cached_property", "abc.abstractproperty",
    "abstractproperty", "django.utils.functional.cached_property",
})
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_BRACKETS = re.compile(r"[()\[\]{}:]")
_WS = re.compile(r"\s+")
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_RECURSION = 12_000  # deep but valid expression nesting (long "+" chains, nested calls)


def _deco_flags(text: str) -> int:
    if not text:
        return 0
    if text in _PROPERTY_DECOS or text.endswith(".cached_property"):
        return F_PROPERTY
    if text == "classmethod":
        return F_CLASSMETHOD
    if text == "staticmethod":
        return F_STATICMETHOD
    last = text.rpartition(".")[2]
    if last == "overload":
        return F_OVERLOAD
    if last in ("abstractmethod", "abstractclassmethod", "abstractstaticmethod"):
        return F_ABSTRACT | (F_CLASSMETHOD if last == "abstractclassmethod" else 0) | (
            F_STATICMETHOD if last == "abstractstaticmethod" else 0)
    if last in ("contextmanager", "asynccontextmanager"):
        return F_CONTEXTMANAGER
    if pm.is_fixture_text(text):
        return F_FIXTURE
    return 0




_MAX_KEY_CONSTANT = 80  # longest module/class-level str constant kept literally


def _defaulted(default: Enc | None, psidx: int) -> Enc:
    """An unannotated parameter: its default's value when the default names something
    (``table=ACTIONS``: what runs when no argument is passed), else unknown."""
    if default is not None and default[0] in ("n", "a"):
        return ("an", (), psidx, default)
    return P


class _Extractor(BindingFlow, ExprEncoding):
    """The visitor: the per-file and per-scope state, statements, definitions, imports
    and scopes; flow tracking and expression encoding come from the two mixins."""

    def __init__(self, path: str, text: str, module: str, is_test: bool, is_package: bool):
        self.path = path
        self.text = text
        self._lines: list[str] | None = None
        self.module = module
        self.is_test = is_test
        self.is_package = is_package
        self.is_conftest = path.rpartition("/")[2] == "conftest.py"
        self.scopes: list[Scope] = []
        self.kills = StoreKills()
        self.aux: list[tuple[set[int], dict[str, None], dict[str, None]]] = []
        self.imports: list[tuple[int, int, str, str | None, str | None]] = []
        self.stars: list[tuple[str, int]] = []
        self.bad_relative: list[tuple[int, int, str]] = []
        self.all_spec: list[Any] | None = None
        self.mod_marks: tuple[list[list[str] | None], tuple[str, ...]] = ([], ())
        self.plugins: tuple[str, ...] = ()
        self.noref = 0
        # per-scope state
        self.sc: Scope
        self.sidx = 0
        self.cur: dict[str, tuple[int, ...]] = {}
        self.dead = False
        self.asg: set[str] = set()
        self.loops: list[LoopFrame] = []
        self.selfname: str | None = None
        self.temp: set[int] = set()
        self.strs: dict[str, None] = {}
        self.cls_ctx = -1  # class scope for super()
        self.lreach: list[list[int]] = []  # reach of name reads inside loops (fixed up)
        # identical encodings share one tuple per scope (pickled once, kept once)
        self.encs: dict[Any, Enc] = {}
        self.skip_overload_nodes: set[int] = set()
        self.lambdas: dict[int, int] = {}  # lambdas numbered so far per scope
        self._sig_cache: dict[int, str] = {}
        self._stmt_sigs: dict[tuple[int, int], str] = {}
        self._stmt_strs: dict[tuple[int, int], tuple[str, ...]] = {}

    # ------------------------------------------------------------ source text
    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _LINE_SPLIT.split(self.text)
        return self._lines

    def _line_from(self, lineno: int, col: int) -> str:
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if line.isascii():
            return line[col:]
        return line.encode("utf-8")[col:].decode("utf-8", "replace")

    def _line_upto(self, lineno: int, col: int) -> str:
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if line.isascii():
            return line[:col]
        return line.encode("utf-8")[:col].decode("utf-8", "replace")

    def _segment(self, l1: int, c1: int, l2: int, c2: int) -> str:
        if l1 == l2:
            line = self.lines[l1 - 1] if 0 < l1 <= len(self.lines) else ""
            if line.isascii():
                return line[c1:c2]
            return line.encode("utf-8")[c1:c2].decode("utf-8", "replace")
        parts = [self._line_from(l1, c1)]
        parts.extend(self.lines[l1:l2 - 1])
        parts.append(self._line_upto(l2, c2))
        return "\n".join(parts)

    def header(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
        """The one-line ``def f(a, b=1):`` / ``class C(B):`` header."""
        body0 = node.body[0]
        seg = self._segment(node.lineno, node.col_offset, body0.lineno, body0.col_offset)
        if '"' in seg or "'" in seg or "#" in seg:
            seg = _cut_header_slow(seg)
        else:
            depth = 0
            for m in _BRACKETS.finditer(seg):
                ch = m.group()
                if ch == ":":
                    if depth == 0:
                        seg = seg[: m.end()]
                        break
                elif ch in "([{":
                    depth += 1
                else:
                    depth -= 1
        out = _WS.sub(" ", seg).strip()
        if "( " in out or " )" in out or ",)" in out or ", )" in out:
            out = out.replace("( ", "(").replace(", )", ")").replace(" )", ")").replace(",)", ")")
        return out

    def stmt_text(self, node: ast.stmt) -> str:
        first = self._line_from(node.lineno, node.col_offset).rstrip()
        end = node.end_lineno or node.lineno
        if end > node.lineno:
            first += " ..."
        if len(first) > 80:
            first = first[:77] + "..."
        return first

    def _param_refs(self, decos: list[ast.expr]) -> tuple[Enc, ...]:
        """Names/attributes inside parametrize argvalues (classes or functions the test
        receives as parameters), encoded in the enclosing scope."""
        out: list[Enc] = []
        self.noref += 1
        saved_loops, self.loops = self.loops, []
        try:
            for d in decos:
                if type(d) is ast.Call and pm.dotted(d).endswith("mark.parametrize") and \
                        len(d.args) > 1:
                    for n in ast.walk(d.args[1]):
                        if type(n) is ast.Name:
                            out.append(self._name_noref(n.id))
                        elif type(n) is ast.Attribute and type(n.value) is ast.Name:
                            out.append(("a", self._name_noref(n.value.id), n.attr))
        finally:
            self.loops = saved_loops
            self.noref -= 1
        return tuple(out[:64])

    # ---------------------------------------------------------------- scopes
    def push_scope(self, sc: Scope) -> tuple[Any, ...]:
        saved = (self.sc, self.sidx, self.cur, self.dead, self.asg, self.loops, self.selfname,
                 self.temp, self.strs, self.cls_ctx, self.lreach, self.encs)
        self.scopes.append(sc)
        self.sidx = len(self.scopes) - 1
        self.sc = sc
        self.cur = {}
        self.dead = False
        self.asg = set()
        self.loops = []
        self.temp = set()
        self.strs = {}
        self.lreach = []
        self.encs = {}
        self.aux.append((self.temp, self.strs, {}))
        return saved

    def pop_scope(self, saved: tuple[Any, ...]) -> None:
        sc = self.sc
        byname: dict[str, list[int]] = {}
        temp = self.temp
        for bid, b in enumerate(sc.binds):
            if bid not in temp:
                byname.setdefault(b[0], []).append(bid)
        sc.byname = {k: tuple(v) for k, v in byname.items()}
        if sc.kind != FUNCTION:
            sc.final = self.cur
        if self.lreach:
            sc.lreach = tuple(tuple(r) for r in self.lreach)
        if sc.cls >= 0:
            sc.selfs = self_sites(sc)
        _freeze(sc)
        (self.sc, self.sidx, self.cur, self.dead, self.asg, self.loops, self.selfname,
         self.temp, self.strs, self.cls_ctx, self.lreach, self.encs) = saved

    def block(self, stmts: list[ast.stmt]) -> None:
        """Visit statements in order (``s_X`` handles ``ast.X``)."""
        table = _STMT
        for st in stmts:
            h = table.get(type(st))
            if h is not None:
                h(self, st)

    def ev(self, node: ast.expr) -> Enc:
        """The encoding of an expression; its handler (``e_X``) records the sites in it."""
        h = _EXPR.get(type(node))
        if h is None:
            return U
        return h(self, node)

    # ------------------------------------------------------------- run
    def run(self, tree: ast.Module) -> PyFileFacts:
        nlines = len(self.lines)
        mod = Scope(kind=MODULE, name=self.module.rpartition(".")[2], qual=self.module,
                    parent=-1, line=1, end=max(nlines, 1), def_line=1)
        self.scopes.append(mod)
        self.aux.append((self.temp, self.strs, {}))
        self.sc = mod
        self.sidx = 0
        self.block(tree.body)
        byname: dict[str, list[int]] = {}
        for bid, b in enumerate(mod.binds):
            if bid not in self.temp:
                byname.setdefault(b[0], []).append(bid)
        mod.byname = {k: tuple(v) for k, v in byname.items()}
        mod.final = self.cur
        if self.lreach:
            mod.lreach = tuple(tuple(r) for r in self.lreach)
        facts = self.finish()
        _freeze(mod)
        return facts

    # ---------------------------------------------------------- statements
    def s_Pass(self, node: ast.Pass) -> None:
        return

    def s_Expr(self, node: ast.Expr) -> None:
        v = node.value
        if (self.sidx == 0 and type(v) is ast.Call and type(v.func) is ast.Attribute
                and type(v.func.value) is ast.Name and v.func.value.id == "__all__"):
            if v.func.attr == "extend" and v.args:
                self._all_extend(v.args[0])
            elif v.func.attr == "append" and v.args:
                a = v.args[0]
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    self._all_extend(ast.List(elts=[a]))
        self.ev(v)

    def s_Return(self, node: ast.Return) -> None:
        self.sc.returns.append(self.ev(node.value) if node.value is not None else NONE)
        self.dead = True

    def s_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            enc = self.ev(node.exc)
            if enc[0] == "n" or enc[0] == "a":
                # `raise Error` instantiates the class
                self.sc.calls.append((node.lineno, enc, 0, (), False, False, (), RAISE))
        if node.cause is not None:
            self.ev(node.cause)
        self.dead = True

    def s_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            if type(t) is ast.Attribute:
                self.ev(t.value)
            elif type(t) is ast.Subscript:
                cont = self.ev(t.value)
                self.ev(t.slice)
                self._op_site(t.lineno, cont, "__delitem__", 1)

    def s_Global(self, node: ast.Global) -> None:
        if self.sc.kind != MODULE:
            self.sc.glob = self.sc.glob | frozenset(node.names)

    def s_Nonlocal(self, node: ast.Nonlocal) -> None:
        return

    def s_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if self.sc.kind != FUNCTION:
            enc = self._ev_collecting_strs(value, node.lineno)
            if (len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                    and _looks_like_type(value)):
                alts = self.ann(value)
                if alts:  # `UserList = list[User]`: a type alias usable in annotations
                    enc = ("alias", alts, self.sidx, enc)
            elif type(value) is ast.Constant and type(value.value) is str and len(
                    value.value) <= _MAX_KEY_CONSTANT:
                enc = ("k", "str", value.value)  # a constant that may key a table
        else:
            enc = self.ev(value)
        for t in node.targets:
            if self.sidx == 0 and type(t) is ast.Name:
                if t.id == "__all__":
                    self.all_spec = []
                    self._all_extend(value)
                elif t.id == "pytestmark":
                    self.mod_marks = pm.read_pytestmark(value)
                elif t.id == "pytest_plugins":
                    self.plugins = pm.plugin_names(value)
            self.bind_target(t, enc, node)

    def _ev_collecting_strs(self, value: ast.expr, line: int) -> Enc:
        """Evaluate a module/class-level value, keeping its string words for the
        constant/field node (they also count for the enclosing scope)."""
        outer = self.strs
        self.strs = {}
        try:
            enc = self.ev(value)
        finally:
            mine = self.strs
            self.strs = outer
        if mine:
            self._stmt_strs[(self.sidx, line)] = tuple(sorted(mine))
            for w in mine:
                if len(outer) >= 64:
                    break
                outer.setdefault(w, None)
        return enc

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        enc = self.ev(node.value)
        t = node.target
        dunders = BINOP_DUNDER.get(type(node.op))
        if dunders is not None and type(t) in (ast.Name, ast.Attribute):
            self.noref += 1
            try:
                tenc = self._name_noref(t.id) if type(t) is ast.Name else self.ev(t)
            finally:
                self.noref -= 1
            self._op_site(node.lineno, tenc, "__i" + dunders[0][2:], 1, None, dunders[0])
        if type(t) is ast.Name:
            if self.sidx == 0 and t.id == "__all__" and isinstance(node.op, ast.Add):
                self._all_extend(node.value)
            if self.sc.kind == FUNCTION and t.id in self.sc.glob:
                self.sc.refs.append((t.lineno, ("n", t.id, ()), "rw"))
            elif not self.cur.get(t.id):
                # augmenting a name not bound on this path: a (re)binding
                self.bind(t.id, enc, node.lineno, node.end_lineno or node.lineno, B_ASSIGN)
        elif type(t) is ast.Attribute:
            base = self.ev(t.value)
            self.sc.refs.append((t.lineno, ("a", base, t.attr), "rw"))
        elif type(t) is ast.Subscript:
            self.ev(t.value)
            self.ev(t.slice)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        alts = self.ann(node.annotation)
        if node.value is None:
            venc = None
        elif self.sc.kind != FUNCTION:
            venc = self._ev_collecting_strs(node.value, node.lineno)
        else:
            venc = self.ev(node.value)
        enc: Enc = ("an", alts, self.sidx, venc) if alts else (venc if venc is not None else U)
        t = node.target
        if self.sc.kind == CLASS and self.sc.dc is not None and type(t) is ast.Name:
            self._dataclass_field(node, t.id, venc)
        if node.value is None and self.sc.kind == FUNCTION and type(t) is ast.Name:
            # a bare declaration: types later bindings, binds nothing itself
            self.bind(t.id, enc, node.lineno, node.end_lineno or node.lineno, B_OTHER)
            return
        self.bind_target(t, enc, node)

    def _dataclass_field(self, node: ast.AnnAssign, name: str, _venc: Enc | None) -> None:
        """Record a field of a @dataclass body: (name, annotation text, has default,
        kw_only, default_factory enc) — ClassVars and init=False fields are not fields of
        the generated ``__init__``."""
        dc = self.sc.dc
        assert dc is not None
        ann = node.annotation
        head = pm.dotted(ann.value) if type(ann) is ast.Subscript else pm.dotted(ann)
        last = head.rpartition(".")[2]
        if last == "ClassVar" or (type(ann) is ast.Constant and "ClassVar" in str(ann.value)):
            return
        if last == "KW_ONLY":
            dc[1] = True
            return
        kw_only = dc[1]
        has_default = node.value is not None
        factory = None
        v = node.value
        if type(v) is ast.Call and pm.dotted(v.func).rpartition(".")[2] == "field":
            has_default = False
            for kw in v.keywords:
                if kw.arg == "default":
                    has_default = True
                elif kw.arg == "default_factory":
                    has_default = True
                    fv = kw.value
                    if type(fv) is ast.Name:
                        factory = self._name_noref(fv.id)
                    elif type(fv) is ast.Attribute and type(fv.value) is ast.Name:
                        factory = ("a", self._name_noref(fv.value.id), fv.attr)
                elif kw.arg == "init" and type(kw.value) is ast.Constant and not kw.value.value:
                    return
                elif kw.arg == "kw_only" and type(kw.value) is ast.Constant:
                    kw_only = bool(kw.value.value)
        text = _WS.sub(" ", self._segment(ann.lineno, ann.col_offset, ann.end_lineno or ann.lineno,
                                          ann.end_col_offset or 0)).strip()
        dc[2].append((name, text, has_default, kw_only, factory))

    def _all_extend(self, value: ast.expr) -> None:
        if self.all_spec is None:
            self.all_spec = []
        parts = self._all_parts(value)
        if parts is None:
            self.all_spec.append(("unknown",))
        else:
            self.all_spec.extend(parts)

    def _all_parts(self, node: ast.expr) -> list[Any] | None:
        t = type(node)
        if t is ast.List or t is ast.Tuple:
            out: list[Any] = []
            for e in node.elts:  # type: ignore[attr-defined]
                if isinstance(e, ast.Constant) and isinstance(e.value, str):
                    out.append(e.value)
                elif isinstance(e, ast.Starred):
                    sub = self._all_parts(e.value)
                    if sub is None:
                        return None
                    out.extend(sub)
                else:
                    return None
            return out
        if t is ast.BinOp and isinstance(node.op, ast.Add):  # type: ignore[attr-defined]
            left = self._all_parts(node.left)  # type: ignore[attr-defined]
            right = self._all_parts(node.right)  # type: ignore[attr-defined]
            if left is None or right is None:
                return None
            return left + right
        if t is ast.Name or t is ast.Attribute:
            self.noref += 1
            try:
                return [("ref", self.ev(node))]
            finally:
                self.noref -= 1
        return None

    def s_With(self, node: ast.With | ast.AsyncWith) -> None:
        proto = AWITH if type(node) is ast.AsyncWith else WITH
        for item in node.items:
            v = self.ev(item.context_expr)
            self.sc.calls.append((item.context_expr.lineno, v, 0, (), False, False, (), proto))
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars, ("en", v), node, B_OTHER)
        self.block(node.body)

    # ------------------------------------------------------------ imports
    def _abs_module(self, module: str | None, level: int) -> str | None:
        if level == 0:
            return module
        parts = self.module.split(".")
        if not self.is_package:
            parts = parts[:-1]
        if level - 1 > len(parts):
            return None
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        if module:
            parts = [*parts, module]
        if not parts:
            return None
        return ".".join(parts)

    def _note_import(self, name: str) -> None:
        self.aux[self.sidx][2][name] = None

    def s_Import(self, node: ast.Import) -> None:
        end = node.end_lineno or node.lineno
        for alias in node.names:
            name = alias.name
            if alias.asname:
                self.bind(alias.asname, ("imp", name), node.lineno, end, B_IMPORT)
            else:
                top = name.partition(".")[0]
                self.bind(top, ("imp", top), node.lineno, end, B_IMPORT)
            self.imports.append((self.sidx, node.lineno, name, None, alias.asname))
            self._note_import(name)

    def s_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__":
            return
        end = node.end_lineno or node.lineno
        mod = self._abs_module(node.module, node.level)
        if mod is None:
            text = "from " + "." * node.level + (node.module or "") + " import ..."
            self.bad_relative.append((self.sidx, node.lineno, text))
            for alias in node.names:
                if alias.name != "*":
                    self.bind(alias.asname or alias.name, U, node.lineno, end, B_IMPORT)
            return
        self._note_import(mod)
        for alias in node.names:
            if alias.name == "*":
                if self.sidx == 0:
                    self.stars.append((mod, node.lineno))
                self.imports.append((self.sidx, node.lineno, mod, "*", None))
                continue
            local = alias.asname or alias.name
            self.bind(local, ("from", mod, alias.name), node.lineno, end, B_IMPORT)
            self.imports.append((self.sidx, node.lineno, mod, alias.name, alias.asname))

    # ---------------------------------------------------------- definitions
    def _decorators(self, decos: list[ast.expr], fname: str, in_class: bool,
                    target: Enc) -> tuple[tuple[str, ...], int, int, str | None, Enc | None]:
        """Evaluate decorators in the enclosing scope. Each is called with what the
        decorator below it returned (the innermost with the definition itself). The last
        item is what the decorated name is bound to (None: the definition itself)."""
        texts: list[str] = []
        flags = 0
        line0 = 10**9
        accessor_of: str | None = None
        applied: list[tuple[ast.expr, Enc, Any] | None] = []
        for d in decos:
            line0 = min(line0, d.lineno)
            text = pm.dotted(d)
            texts.append(text)
            flags |= _deco_flags(text)
            if type(d) is ast.Call:
                # the factory's result is called with the decorated definition
                applied.append((d, self.ev(d), DECO))
                continue
            if (in_class and type(d) is ast.Attribute and type(d.value) is ast.Name
                    and d.value.id == fname and d.attr in ("setter", "deleter", "getter")):
                accessor_of = d.attr
                applied.append(None)
                continue
            self.noref += 1
            try:
                enc = self.ev(d)
            finally:
                self.noref -= 1
            applied.append(None if text in ("property", "staticmethod", "classmethod")
                           else (d, enc, None))
        bound: Enc | None = None
        for item in reversed(applied):
            if item is None:
                continue
            d, enc, special = item
            self.sc.calls.append((d.lineno, enc, 1, (), False, False, ((0, target),), special))
            target = bound = ("c", enc)
        return tuple(texts), flags, line0, accessor_of, bound

    def s_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.s_FunctionDef(node, True)  # type: ignore[arg-type]

    def s_FunctionDef(self, node: ast.FunctionDef, is_async: bool = False) -> None:
        psc = self.sc
        psidx = self.sidx
        in_class = psc.kind == CLASS
        name = node.name
        decos, flags, line0, accessor, dval = self._decorators(
            node.decorator_list, name, in_class, ("def", len(self.scopes)))
        if is_async:
            flags |= F_ASYNC
        if in_class and name in _IMPLICIT_CLASSMETHODS and name != "__new__":
            flags |= F_CLASSMETHOD
        args = node.args
        defaults = [self.ev(d) for d in args.defaults]
        kw_defaults = [self.ev(kd) if kd is not None else None for kd in args.kw_defaults]
        is_static = bool(flags & F_STATICMETHOD)
        is_cm = bool(flags & F_CLASSMETHOD) or (in_class and name == "__new__")
        positional = [*args.posonlyargs, *args.args]
        ndef_start = len(positional) - len(args.defaults)
        params: list[tuple[str, int, bool]] = []
        pencs: list[tuple[str, Enc]] = []
        for i, a in enumerate(positional):
            kind = P_POSONLY if i < len(args.posonlyargs) else P_POS
            params.append((a.arg, kind, i >= ndef_start))
            if i == 0 and in_class and not is_static:
                enc: Enc = ("clsp", psidx) if is_cm else ("self", psidx)
            elif a.annotation is not None:
                alts = self.ann(a.annotation)
                enc = ("an", alts, psidx, None) if alts else P
            else:
                enc = _defaulted(defaults[i - ndef_start] if i >= ndef_start else None, psidx)
            pencs.append((a.arg, enc))
        if args.vararg is not None:
            params.append((args.vararg.arg, P_VARARG, False))
            enc = K_TUPLE
            if args.vararg.annotation is not None:
                alts = self.ann(args.vararg.annotation)
                if alts:
                    enc = ("an", (("seq", alts),), psidx, None)
            pencs.append((args.vararg.arg, enc))
        for a, kd in zip(args.kwonlyargs, kw_defaults, strict=False):
            params.append((a.arg, P_KWONLY, kd is not None))
            if a.annotation is not None:
                alts = self.ann(a.annotation)
                enc = ("an", alts, psidx, None) if alts else P
            else:
                enc = _defaulted(kd, psidx)
            pencs.append((a.arg, enc))
        if args.kwarg is not None:
            params.append((args.kwarg.arg, P_VARKW, False))
            pencs.append((args.kwarg.arg, K_DICT))
        ret = None
        if node.returns is not None:
            alts = self.ann(node.returns)
            if alts:
                ret = ("an", alts, psidx, None)
        sidx = len(self.scopes)
        end = node.end_lineno or node.lineno
        if accessor is not None:
            # @x.setter / @x.deleter: part of the property x, no new binding
            if accessor == "setter":
                for bid in self.cur.get(name, ()):
                    b = psc.binds[bid]
                    if b[4] == B_DEF:
                        self.scopes[b[1][1]].setter = sidx
            flags |= F_PROPERTY
        elif flags & F_OVERLOAD:
            self.skip_overload_nodes.add(sidx)
        else:
            self.bind(name, ("def", sidx), node.lineno, end, B_DEF)
        fixture = None
        if flags & F_FIXTURE:
            for d in node.decorator_list:
                if pm.is_fixture_text(pm.dotted(d)):
                    fixture = pm.fixture_info(d, name)
        self._sig_cache[sidx] = self.header(node)
        sc = Scope(kind=FUNCTION, name=name, qual=psc.qual + "." + name, parent=psidx,
                   line=min(line0, node.lineno), end=end, def_line=node.lineno, decos=decos,
                   flags=flags, params=tuple(params), ret=ret, cls=psidx if in_class else -1,
                   dval=dval)
        if flags & F_FIXTURE:
            sc.fixture = fixture
        if self.is_test or self.is_conftest:
            marks, use = pm.read_marks(node.decorator_list)
            if marks:
                sc.parametrized = True
                ids = pm.combine(marks)
                sc.param_ids = ids
                sc.param_refs = self._param_refs(node.decorator_list)
            sc.usefixtures = use
        cls_ctx = psidx if in_class else self.cls_ctx
        saved = self.push_scope(sc)
        self.cls_ctx = cls_ctx
        self.selfname = positional[0].arg if (in_class and positional and not is_static
                                              and not is_cm) else None
        for pname, penc in pencs:
            self.bind(pname, penc, node.lineno, node.lineno, B_PARAM)
        self.block(node.body)
        self.pop_scope(saved)

    def s_ClassDef(self, node: ast.ClassDef) -> None:
        psc = self.sc
        psidx = self.sidx
        decos, _flags, line0, _, _dval = self._decorators(node.decorator_list, node.name, False,
                                                   ("cls", len(self.scopes)))
        cflags = 0
        dc: list[Any] | None = None
        for t, d in zip(decos, node.decorator_list, strict=False):
            last = t.rpartition(".")[2]
            if last in ("dataclass", "define", "frozen", "mutable", "s", "attrs"):
                cflags |= C_DATACLASS
                if last != "s":  # annotated fields: a generated __init__ we can describe
                    dc = [True, False, []]  # init, kw_only, fields
                    if type(d) is ast.Call:
                        for kw in d.keywords:
                            if kw.arg in ("init", "kw_only") and type(kw.value) is ast.Constant:
                                dc[0 if kw.arg == "init" else 1] = bool(kw.value.value)
        self.noref += 1
        try:
            bases = tuple(self.ev(b) for b in node.bases)
        finally:
            self.noref -= 1
        meta = None
        for kw in node.keywords:
            v = self.ev(kw.value)
            if kw.arg == "metaclass":
                meta = v
        sidx = len(self.scopes)
        end = node.end_lineno or node.lineno
        if node.bases or meta is not None:
            # creating the class runs the metaclass and the bases' __init_subclass__
            self.sc.calls.append((node.lineno, ("cls", sidx), 0, (), False, False, (),
                                  ("classdef",)))
        self.bind(node.name, ("cls", sidx), node.lineno, end, B_CLASS)
        self._sig_cache[sidx] = self.header(node)
        sc = Scope(kind=CLASS, name=node.name, qual=psc.qual + "." + node.name, parent=psidx,
                   line=min(line0, node.lineno), end=end, def_line=node.lineno, decos=decos,
                   flags=cflags, bases=bases, meta=meta)
        if dc is not None:
            sc.dc = dc
        if self.is_test:
            marks, use = pm.read_marks(node.decorator_list)
            if marks:
                sc.parametrized = True
                sc.param_ids = pm.combine(marks)
            sc.usefixtures = use
        saved = self.push_scope(sc)
        self.cls_ctx = sidx
        self.block(node.body)
        self.pop_scope(saved)

    def e_Lambda(self, node: ast.Lambda) -> Enc:
        args = node.args
        for d in args.defaults:
            self.ev(d)
        for kd in args.kw_defaults:
            if kd is not None:
                self.ev(kd)
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        if args.vararg:
            names.append(args.vararg.arg)
        if args.kwarg:
            names.append(args.kwarg.arg)
        # a function scope of its own, ``<lambdaN>`` numbered per enclosing scope in
        # source order (PyCG's naming): its body's calls are the lambda's, and the
        # lambda is a value like any ``def`` (called where it flows)
        psidx = self.sidx
        n = self.lambdas[psidx] = self.lambdas.get(psidx, 0) + 1
        in_class = self.sc.kind == CLASS
        sidx = len(self.scopes)
        line, end = node.lineno, node.end_lineno or node.lineno
        self._sig_cache[sidx] = f"lambda {', '.join(names)}:" if names else "lambda:"
        sc = Scope(kind=FUNCTION, name=f"<lambda{n}>", qual=f"{self.sc.qual}.<lambda{n}>",
                   parent=psidx, line=line, end=end, def_line=line,
                   params=tuple((a, P_POS, False) for a in names),
                   cls=psidx if in_class else -1)
        enc: Enc = ("def", sidx)
        self.sc.refs.append((line, enc, "r"))  # the defining scope holds the function
        saved = self.push_scope(sc)
        self.selfname = None
        if in_class:
            self.cls_ctx = psidx
        for i, a in enumerate(names):
            self.bind(a, ("self", psidx) if in_class and i == 0 else P, line, line, B_PARAM)
        sc.returns.append(self.ev(node.body))
        self.pop_scope(saved)
        return enc

    # -------------------------------------------------------------- finish
    def finish(self) -> PyFileFacts:
        scopes = self.scopes
        mod_imports = tuple(sorted(self.aux[0][2]))
        nodes: list[tuple[Any, ...]] = []
        ids_of: list[str] = [sc.qual for sc in scopes]
        for sidx, sc in enumerate(scopes):
            _temp, strs, limps = self.aux[sidx]
            imports = mod_imports
            if sidx and limps:
                imports = tuple(sorted(set(mod_imports) | set(limps)))
            strs_t = tuple(sorted(strs))
            if sc.kind == MODULE:
                nodes.append((sc.qual, "module", sc.qual, 1, sc.end, "", (), None,
                              ident_tokens(sc.qual), strs_t, imports, 0))
            elif sidx not in self.skip_overload_nodes:
                kind = ("class" if sc.kind == CLASS else
                        "method" if sc.cls >= 0 else "function")
                sig = self._sig_cache.get(sidx, "")
                nodes.append((sc.qual, kind, sc.qual, sc.line, sc.end, sig,
                              tuple(t for t in sc.decos if t), ids_of[sc.parent],
                              ident_tokens(sc.qual, sig), strs_t, imports, sidx))
            if sc.kind == MODULE or sc.kind == CLASS:
                self._members(sc, sidx, nodes, mod_imports)
        return PyFileFacts(
            path=self.path, module=self.module, is_test=self.is_test,
            is_package=self.is_package, is_conftest=self.is_conftest, nodes=tuple(nodes),
            scopes=tuple(scopes), imports=tuple(self.imports), stars=tuple(self.stars),
            all_spec=tuple(self.all_spec) if self.all_spec is not None else None,
            mod_imports=mod_imports, usefixtures=self.mod_marks[1],
            param_ids=pm.combine(self.mod_marks[0]) if self.mod_marks[0] else (),
            parametrized=bool(self.mod_marks[0]), bad_relative=tuple(self.bad_relative),
            plugins=self.plugins)

    def _members(self, sc: Scope, sidx: int, nodes: list[tuple[Any, ...]],
                 imports: tuple[str, ...]) -> None:
        """Field / constant nodes of a class or module scope."""
        kind = "constant" if sc.kind == MODULE else "field"
        binds = sc.binds
        seen: set[str] = set()
        for name, bids in sc.byname.items():
            if any(binds[b][4] in (B_DEF, B_CLASS, B_IMPORT) for b in bids):
                continue
            first = None
            for b in bids:
                if binds[b][4] == B_ASSIGN:
                    first = binds[b]
                    break
            if first is None:
                continue
            seen.add(name)
            qual = sc.qual + "." + name
            sig = self._stmt_sigs.get((sidx, first[2]), name + " = ...")
            nodes.append((qual, kind, qual, first[2], first[3], sig, (), sc.qual,
                          ident_tokens(qual, sig), self._stmt_strs.get((sidx, first[2]), ()),
                          imports, -1))
        if sc.kind == CLASS:
            for name, sites in sc.inst.items():
                if name in seen or name in sc.byname:
                    continue
                _enc, line, end, _m = min(sites, key=lambda s: s[1])
                qual = sc.qual + "." + name
                sig = self._stmt_sigs.get((-1, line), "self." + name + " = ...")
                nodes.append((qual, "field", qual, line, end, sig, (), sc.qual,
                              ident_tokens(qual, sig), (), imports, -1))


# dispatch tables (class-level functions, so the extractor holds no reference cycles and
# is freed by reference counting while the cyclic GC is paused): s_X / e_X handle ast.X,
# wherever in the extractor's classes they are defined
def _table(prefix: str, aliases: dict[str, str]) -> dict[type, Any]:
    out: dict[type, Any] = {}
    for klass in reversed(_Extractor.__mro__):
        for name, fn in vars(klass).items():
            if name.startswith(prefix) and hasattr(ast, name[2:]):
                out[getattr(ast, name[2:])] = fn
    for node_name, handler in aliases.items():
        if hasattr(ast, node_name):
            out[getattr(ast, node_name)] = getattr(_Extractor, handler)
    return out


_STMT = _table("s_", {"AsyncFor": "s_For", "AsyncWith": "s_With", "TryStar": "s_Try"})
_EXPR = _table("e_", {"YieldFrom": "e_Yield"})


_GENERIC_HEADS = frozenset({"Optional", "Union", "List", "Dict", "Set", "FrozenSet", "Tuple",
                            "Sequence", "Iterable", "Iterator", "Mapping", "Type", "type",
                            "list", "dict", "set", "frozenset", "tuple", "Annotated"})


def _looks_like_type(node: ast.expr) -> bool:
    """``list[User]``, ``Optional[User]``, ``A | B | None`` — a type alias definition."""
    if type(node) is ast.Subscript:
        head = node.value
        name = head.id if type(head) is ast.Name else (
            head.attr if type(head) is ast.Attribute else "")
        return name in _GENERIC_HEADS
    if type(node) is ast.BinOp and type(node.op) is ast.BitOr:
        return all(type(x) in (ast.Name, ast.Attribute, ast.Subscript) or (
            type(x) is ast.Constant and x.value is None) or _looks_like_type(x)
            for x in (node.left, node.right))
    return False


def _freeze(sc: Scope) -> None:
    """Lists → tuples once a scope is closed: tuples of atoms are untracked by the cyclic
    GC, which keeps a process holding every file's facts cheap to collect."""
    sc.binds = tuple(sc.binds)  # type: ignore[assignment]
    sc.calls = tuple(sc.calls)  # type: ignore[assignment]
    sc.refs = tuple(sc.refs)  # type: ignore[assignment]
    sc.returns = tuple(sc.returns)  # type: ignore[assignment]
    sc.yields = tuple(sc.yields)  # type: ignore[assignment]
    if sc.inst:
        sc.inst = {k: tuple(v) for k, v in sc.inst.items()}  # type: ignore[misc]
    if sc.muts:
        sc.muts = {k: tuple(v) for k, v in sc.muts.items()}  # type: ignore[misc]


def _cut_header_slow(seg: str) -> str:
    """Cut at the header's colon, skipping strings and comments."""
    out: list[str] = []
    depth = 0
    i = 0
    n = len(seg)
    while i < n:
        ch = seg[i]
        if ch == "#":
            j = seg.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in "\"'":
            q = seg[i: i + 3] if seg[i: i + 3] in ('"""', "'''") else ch
            j = i + len(q)
            while j < n:
                if seg[j] == "\\":
                    j += 2
                    continue
                if seg.startswith(q, j):
                    j += len(q)
                    break
                j += 1
            out.append(seg[i:j])
            i = j
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            out.append(":")
            return "".join(out)
        out.append(ch)
        i += 1
    return "".join(out)


def extract_file(path: str, source: bytes, module: str, is_test: bool,
                 is_package: bool) -> PyFileFacts:
    """Parse one file and extract its facts (pure; runs in worker processes).

    Raises SyntaxError / UnicodeDecodeError / ValueError on unparseable input.
    """
    text = decode_source(source, strict=True)
    try:
        with recursion_limit_at_least(_RECURSION), gc_paused():
            tree = ast.parse(text, filename=path)
            return _Extractor(path, text, module, is_test, is_package).run(tree)
    except RecursionError as exc:
        raise ValueError(f"{path}: expressions nested too deeply to analyze") from exc
