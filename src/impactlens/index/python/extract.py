"""One pass over a module's AST → :class:`PyFileFacts`.

The visitor dispatches on the node class (one handler per statement and
expression type, like pyflakes), tracks which bindings of each local name reach
each read (flow-sensitive across ``if``/loops/``try``/``match``, so a name
rebound later does not pollute an earlier call), and encodes every call site,
attribute/global reference, binding, class base and return expression as small
tuples (see ``facts.py``). Nothing is resolved here: that needs other files.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

from impactlens.index.python import pytest_marks as pm
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
    F_GENERATOR,
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
from impactlens.index.python.tokens import add_string_words, ident_tokens
from impactlens.index.runtime import gc_paused, recursion_limit_at_least

# shared encodings (one object each: pickles once per file)
U: Enc = ("u",)
P: Enc = ("p",)
NONE: Enc = ("none",)
GLOB: Enc = ("glob",)
DYN: Enc = ("dyn",)  # the value of a dynamic expression already reported as unresolved
# implicit call sites (the `special` item of a call site)
DECO = ("deco",)  # a decorator factory's result applied to the definition
RAISE = ("raise",)  # `raise Error` (instantiates when Error is a class)
ITER, AITER = ("iter", "__iter__", "__next__"), ("iter", "__aiter__", "__anext__")
WITH, AWITH = ("with", "__enter__", "__exit__"), ("with", "__aenter__", "__aexit__")
K_STR: Enc = ("k", "str")
K_BYTES: Enc = ("k", "bytes")
K_INT: Enc = ("k", "int")
K_FLOAT: Enc = ("k", "float")
K_COMPLEX: Enc = ("k", "complex")
K_BOOL: Enc = ("k", "bool")
K_TUPLE: Enc = ("k", "tuple")
K_DICT: Enc = ("k", "dict")
K_ELLIPSIS: Enc = ("k", "ellipsis")
_CONST_ENC = {str: K_STR, bytes: K_BYTES, int: K_INT, float: K_FLOAT, complex: K_COMPLEX,
              bool: K_BOOL, type(None): NONE, type(...): K_ELLIPSIS}

_PROPERTY_DECOS = frozenset({
    "property", "cached_property", "functools.cached_property", "abc.abstractproperty",
    "abstractproperty", "django.utils.functional.cached_property",
})
_SEQ_NAMES = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence",
    "Iterable", "Iterator", "Collection", "Generator", "AsyncIterator", "AsyncIterable",
    "AsyncGenerator", "AbstractSet", "MutableSet", "Deque", "deque", "KeysView", "Reversible",
    "dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict",
    "Counter", "ChainMap",
})
_MAP_NAMES = frozenset({
    "dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict",
    "ChainMap",
})
_WRAPPER_NAMES = frozenset({
    "Annotated", "ClassVar", "Final", "Required", "NotRequired", "ReadOnly", "InitVar",
})
_AWAIT_NAMES = frozenset({"Awaitable", "Coroutine"})
_DYN_ATTR = frozenset({"getattr", "setattr", "hasattr", "delattr"})
_EVAL = frozenset({"eval", "exec", "compile"})
_GLOBALS_FUNCS = frozenset({"globals", "locals", "vars"})
_BINOP_DUNDER = {
    ast.Add: ("__add__", "__radd__"), ast.Sub: ("__sub__", "__rsub__"),
    ast.Mult: ("__mul__", "__rmul__"), ast.MatMult: ("__matmul__", "__rmatmul__"),
    ast.Div: ("__truediv__", "__rtruediv__"), ast.FloorDiv: ("__floordiv__", "__rfloordiv__"),
    ast.Mod: ("__mod__", "__rmod__"), ast.Pow: ("__pow__", "__rpow__"),
    ast.LShift: ("__lshift__", "__rlshift__"), ast.RShift: ("__rshift__", "__rrshift__"),
    ast.BitOr: ("__or__", "__ror__"), ast.BitXor: ("__xor__", "__rxor__"),
    ast.BitAnd: ("__and__", "__rand__"),
}
_OP_RESULTS = frozenset(d for pair in _BINOP_DUNDER.values() for d in pair)
_CMP_DUNDER = {
    ast.Eq: ("__eq__", "__eq__"), ast.NotEq: ("__ne__", "__ne__"), ast.Lt: ("__lt__", "__gt__"),
    ast.LtE: ("__le__", "__ge__"), ast.Gt: ("__gt__", "__lt__"), ast.GtE: ("__ge__", "__le__"),
}
_UNARY_DUNDER = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
_BUILTIN_DUNDER = {
    "len": "__len__", "str": "__str__", "repr": "__repr__", "bool": "__bool__",
    "hash": "__hash__", "iter": "__iter__", "next": "__next__", "abs": "__abs__",
    "reversed": "__reversed__", "int": "__int__", "float": "__float__", "bytes": "__bytes__",
    "format": "__format__",
}
# argument encodings that may carry a function ("def": a lambda written in place)
_VALUE_TAGS = frozenset({"n", "a", "c", "sub", "def", "sl"})
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})
_ARG0_FUNCS = frozenset({
    "enumerate", "list", "sorted", "reversed", "tuple", "set", "frozenset", "iter", "next",
    "copy", "deepcopy",
})
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_BRACKETS = re.compile(r"[()\[\]{}:]")
_WS = re.compile(r"\s+")
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_RECURSION = 12_000  # deep but valid expression nesting (long "+" chains, nested calls)


def decode_source(source: bytes) -> str:
    """Decode per PEP 263 (coding cookie, BOM). Raises SyntaxError/UnicodeDecodeError."""
    if source.isascii():
        return source.decode("ascii")
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding)


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


class _Loop:
    __slots__ = ("breaks", "conts", "start", "uses")

    def __init__(self, start: int) -> None:
        self.start = start
        self.uses: list[tuple[str, list[int]]] = []
        self.breaks: list[dict[str, tuple[int, ...]]] = []
        self.conts: list[dict[str, tuple[int, ...]]] = []


State = dict[str, tuple[int, ...]]


def _merge(states: list[State], names: set[str]) -> State:
    out = dict(states[0])
    if len(states) == 1:
        return out
    for n in sorted(names):  # sorted: facts are byte-identical run to run
        acc: set[int] = set()
        for s in states:
            r = s.get(n)
            if r:
                acc.update(r)
        if acc:
            out[n] = tuple(sorted(acc))
    return out


class _Extractor:
    def __init__(self, path: str, text: str, module: str, is_test: bool, is_package: bool):
        self.path = path
        self.text = text
        self._lines: list[str] | None = None
        self.module = module
        self.is_test = is_test
        self.is_package = is_package
        self.is_conftest = path.rpartition("/")[2] == "conftest.py"
        self.scopes: list[Scope] = []
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
        self.loops: list[_Loop] = []
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

    # ------------------------------------------------------------- bindings
    def bind(self, name: str, enc: Enc, line: int, end: int, kind: int) -> int:
        sc = self.sc
        if sc.glob and name in sc.glob:
            sc.refs.append((line, ("n", name, ()), "w"))
            return -1
        bid = len(sc.binds)
        sc.binds.append((name, enc, line, end, kind))
        self.cur[name] = (bid,)
        self.asg.add(name)
        return bid

    def bind_temp(self, name: str, enc: Enc, line: int) -> int:
        bid = len(self.sc.binds)
        self.sc.binds.append((name, enc, line, line, B_OTHER))
        self.cur[name] = (bid,)
        self.temp.add(bid)
        return bid

    def bind_target(self, t: ast.expr, enc: Enc, stmt: ast.stmt, kind: int = B_ASSIGN) -> None:
        tt = type(t)
        if tt is ast.Name:
            self.bind(t.id, enc, stmt.lineno, stmt.end_lineno or stmt.lineno, kind)
            if kind == B_ASSIGN and self.sc.kind != FUNCTION:
                self._stmt_sigs[(self.sidx, stmt.lineno)] = self.stmt_text(stmt)
        elif tt is ast.Attribute:
            base = self.ev(t.value)
            aenc = ("a", base, t.attr)
            self.sc.refs.append((t.lineno, aenc, "w"))
            if (self.selfname is not None and type(t.value) is ast.Name
                    and t.value.id == self.selfname and self.sc.cls >= 0):
                cls_scope = self.scopes[self.sc.cls]
                cls_scope.inst.setdefault(t.attr, []).append(
                    (enc, t.lineno, stmt.end_lineno or t.lineno, self.sidx))
                if (-1, t.lineno) not in self._stmt_sigs:
                    self._stmt_sigs[(-1, t.lineno)] = self.stmt_text(stmt)
        elif tt is ast.Tuple or tt is ast.List:
            elts = t.elts  # type: ignore[attr-defined]
            parts: list[Enc] | None = None
            stars = [i for i, e in enumerate(elts) if type(e) is ast.Starred]
            if enc[0] == "sl":
                vals = enc[2]
                if not stars and len(vals) == len(elts):
                    parts = list(vals)
                elif len(stars) == 1 and len(vals) >= len(elts) - 1:
                    si = stars[0]
                    after = len(elts) - si - 1
                    parts = [*vals[:si], ("sl", "list", tuple(vals[si:len(vals) - after])),
                             *vals[len(vals) - after:]]
            if parts is None and not stars and enc[0] in ("c", "n", "a", "sub", "an"):
                parts = [("ix", enc, i) for i in range(len(elts))]
            for i, e in enumerate(elts):
                if type(e) is ast.Starred:
                    self.bind_target(e.value, parts[i] if parts is not None else U, stmt,
                                     B_OTHER)
                else:
                    self.bind_target(e, parts[i] if parts is not None else U, stmt, B_OTHER)
        elif tt is ast.Starred:
            self.bind_target(t.value, U, stmt, B_OTHER)  # type: ignore[attr-defined]
        elif tt is ast.Subscript:
            cont = self.ev(t.value)  # type: ignore[attr-defined]
            sl = t.slice  # type: ignore[attr-defined]
            self.ev(sl)
            self._op_site(t.lineno, cont, "__setitem__", 2)
            if type(t.value) is ast.Name:  # type: ignore[attr-defined]
                key = sl.value if (type(sl) is ast.Constant
                                   and type(sl.value) in (str, int)) else None
                self._note_store(t.value.id, key, enc)  # type: ignore[attr-defined]
        else:
            self.ev(t)

    def _maybe_instance(self, enc: Enc) -> bool:
        """Could ``enc`` be an instance of a repository class? (cheap, conservative)"""
        tag = enc[0]
        if tag == "n":
            reach = self.reach_of(enc)
            if reach and self.sc.kind == FUNCTION:
                binds = self.sc.binds
                return any(binds[b][1] is not P and binds[b][1] is not U for b in reach)
            return True
        return tag in ("a", "c", "sub", "an", "self")

    def _op_site(self, line: int, recv: Enc, dunder: str, nargs: int,
                 right: Enc | None = None, rdunder: str | None = None) -> None:
        """An implicit ``recv.dunder(...)`` (operator, subscript, len(x), ...)."""
        left_ok = self._maybe_instance(recv)
        right_ok = right is not None and rdunder is not None and self._maybe_instance(right)
        if left_ok or right_ok:
            self.sc.calls.append((line, recv if left_ok else U, nargs, (), False, False, (),
                                  ("op", dunder, rdunder if right_ok else None,
                                   right if right_ok else None)))

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
                        if type(n) is ast.Name or (type(n) is ast.Attribute
                                                   and type(n.value) is ast.Name):
                            out.append(self._name_noref(n.id) if type(n) is ast.Name
                                       else ("a", self._name_noref(n.value.id), n.attr))
        finally:
            self.loops = saved_loops
            self.noref -= 1
        return tuple(out[:64])

    def _note_store(self, name: str, key: Any, enc: Enc) -> None:
        """``name[key] = enc`` / ``name.append(enc)``: the container gains an entry."""
        if self.cur.get(name) or self.sc.kind == MODULE:
            owner = self.sc
        else:
            owner = self.scopes[0]
        owner.muts.setdefault(name, []).append((key, enc, self.sidx))

    def _note_mutator(self, name: str, method: str, args: list[ast.expr],
                      encs: list[Enc]) -> None:
        if method in ("append", "add") and len(encs) == 1:
            self._note_store(name, None, encs[0])
        elif method == "insert" and len(encs) == 2:
            self._note_store(name, None, encs[1])
        elif method == "setdefault" and len(encs) == 2:
            a0 = args[0]
            key = a0.value if type(a0) is ast.Constant and type(a0.value) in (str, int) else None
            self._note_store(name, key, encs[1])
        elif method in ("extend", "update") and len(encs) == 1:
            e = encs[0]
            if e[0] == "sl":
                for x in e[2]:
                    self._note_store(name, None, x)
            elif e[0] == "dl":
                for k, v in zip(e[1], e[2], strict=False):
                    self._note_store(name, k, v)
            else:
                self._note_store(name, None, ("it", e))

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
            sc.selfs = _self_sites(sc)
        _freeze(sc)
        (self.sc, self.sidx, self.cur, self.dead, self.asg, self.loops, self.selfname,
         self.temp, self.strs, self.cls_ctx, self.lreach, self.encs) = saved

    def block(self, stmts: list[ast.stmt]) -> None:
        table = _STMT
        for st in stmts:
            h = table.get(type(st))
            if h is not None:
                h(self, st)

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

    def s_Break(self, node: ast.Break) -> None:
        if self.loops:
            self.loops[-1].breaks.append(dict(self.cur))
        self.dead = True

    def s_Continue(self, node: ast.Continue) -> None:
        if self.loops:
            self.loops[-1].conts.append(dict(self.cur))
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

    def s_Assert(self, node: ast.Assert) -> None:
        narrow = self._isinstance_narrow(node.test)
        self.ev(node.test)
        if node.msg is not None:
            self.ev(node.msg)
        if narrow is not None:
            self.bind_temp(narrow[0], narrow[1], node.lineno)

    def s_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if self.sc.kind != FUNCTION:
            enc = self._ev_collecting_strs(value, node.lineno)
            if (len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                    and _looks_like_type(value)):
                alts = self.ann(value)
                if alts:  # `UserList = list[User]`: a type alias usable in annotations
                    enc = ("alias", alts, self.sidx, enc)
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
        dunders = _BINOP_DUNDER.get(type(node.op))
        if dunders is not None and type(t) in (ast.Name, ast.Attribute):
            self.noref += 1
            try:
                tenc = self.ev(t) if type(t) is ast.Attribute else self._name_noref(t.id)
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

    # ------------------------------------------------------- control flow
    def _isinstance_narrow(self, test: ast.expr) -> tuple[str, Enc] | None:
        if (type(test) is ast.Call and type(test.func) is ast.Name
                and test.func.id == "isinstance" and len(test.args) == 2
                and type(test.args[0]) is ast.Name):
            target = test.args[0].id
            cls = test.args[1]
            self.noref += 1
            try:
                if type(cls) is ast.Tuple:
                    encs = tuple(self.ev(e) for e in cls.elts)
                else:
                    encs = (self.ev(cls),)
            finally:
                self.noref -= 1
            return target, ("isi", encs)
        return None

    def s_If(self, node: ast.If) -> None:
        narrow = self._isinstance_narrow(node.test)
        neg = None
        if narrow is None and type(node.test) is ast.UnaryOp and type(node.test.op) is ast.Not:
            neg = self._isinstance_narrow(node.test.operand)  # `if not isinstance(x, A):`
        self.ev(node.test)
        s0 = self.cur
        outer = self.asg
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        if narrow is not None:
            nb = self.bind_temp(narrow[0], narrow[1], node.lineno)
        self.block(node.body)
        s1 = None if self.dead else self.cur
        a1 = self.asg
        if narrow is not None and s1 is not None and s1.get(narrow[0]) == (nb,):
            prev = s0.get(narrow[0])
            if prev:
                s1[narrow[0]] = prev
            else:
                del s1[narrow[0]]
        if node.orelse or (neg is not None and s1 is None):
            self.cur = dict(s0)
            self.asg = set()
            self.dead = False
            if neg is not None:
                # the else path (and, after an early exit, the rest) has x: A
                self.bind_temp(neg[0], neg[1], node.lineno)
                self.asg.add(neg[0])
            self.block(node.orelse)
            s2 = None if self.dead else self.cur
            a2 = self.asg
            if neg is not None and s1 is not None and s2 is not None:
                prev = s0.get(neg[0])
                if prev:
                    s2[neg[0]] = prev
                else:
                    s2.pop(neg[0], None)
        elif (narrow is not None and s1 is None and self.sc.kind == FUNCTION
              and s0.get(narrow[0])):
            # `if isinstance(x, A): return ...`: the rest sees x without A's instances
            self.cur = dict(s0)
            self.bind_temp(narrow[0], ("nisi", ("n", narrow[0], s0[narrow[0]]), narrow[1][1]),
                           node.lineno)
            s2 = self.cur
            a2 = {narrow[0]}
        else:
            s2 = s0
            a2 = set()
        names = a1 | a2
        alive = [s for s in (s1, s2) if s is not None]
        if alive:
            self.cur = _merge(alive, names) if len(alive) > 1 else alive[0]
            self.dead = False
        else:
            self.cur = dict(s0)
            self.dead = True
        outer |= names
        self.asg = outer

    def _loop_body(self, node: ast.For | ast.AsyncFor | ast.While,
                   target: ast.expr | None, it: Enc | None) -> None:
        sc = self.sc
        frame = _Loop(len(sc.binds))
        s0 = self.cur
        outer = self.asg
        self.loops.append(frame)
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        if target is not None and it is not None:
            self._bind_iter_target(target, it, node)
        self.block(node.body)
        self.loops.pop()
        ends = [s0]
        if not self.dead:
            ends.append(self.cur)
        ends.extend(frame.conts)
        names = self.asg
        # reads inside the loop also see bindings made later in the loop body
        if frame.uses and len(sc.binds) > frame.start:
            later: dict[str, list[int]] = {}
            for bid in range(frame.start, len(sc.binds)):
                later.setdefault(sc.binds[bid][0], []).append(bid)
            table = self.lreach
            for name, ridx in frame.uses:
                more = later.get(name)
                if more:
                    reach = table[ridx]
                    for b in more:
                        if b not in reach and b not in self.temp:
                            reach.append(b)
        if self.loops:
            self.loops[-1].uses.extend(frame.uses)
        head = _merge(ends, names)
        if node.orelse:
            self.cur = head
            self.dead = False
            self.block(node.orelse)
            exits = [] if self.dead else [self.cur]
        else:
            exits = [head]
        exits.extend(frame.breaks)
        names |= self.asg
        if exits:
            self.cur = _merge(exits, names)
            self.dead = False
        else:
            self.cur = head
            self.dead = True
        outer |= names
        self.asg = outer

    def _bind_iter_target(self, target: ast.expr, it: Enc, stmt: ast.stmt) -> None:
        if type(target) is ast.Name:
            self.bind(target.id, ("it", it), stmt.lineno, stmt.lineno, B_OTHER)
        elif (type(target) is ast.Tuple and len(target.elts) == 2 and it[0] == "c"
              and len(it) > 2 and it[1][0] == "n" and it[1][1] == "enumerate"):
            self.bind_target(target.elts[0], K_INT, stmt, B_OTHER)
            self.bind_target(target.elts[1], ("it", it[2]), stmt, B_OTHER)
        else:
            self.bind_target(target, U, stmt, B_OTHER)

    def s_For(self, node: ast.For | ast.AsyncFor) -> None:
        it = self.ev(node.iter)
        self.sc.calls.append((node.iter.lineno, it, 0, (), False, False, (),
                              AITER if type(node) is ast.AsyncFor else ITER))
        self._loop_body(node, node.target, it)

    def s_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self._loop_body(node, None, None)

    def s_With(self, node: ast.With | ast.AsyncWith) -> None:
        proto = AWITH if type(node) is ast.AsyncWith else WITH
        for item in node.items:
            v = self.ev(item.context_expr)
            self.sc.calls.append((item.context_expr.lineno, v, 0, (), False, False, (), proto))
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars, ("en", v), node, B_OTHER)
        self.block(node.body)

    def s_Try(self, node: ast.Try) -> None:
        s0 = self.cur
        outer = self.asg
        self.cur = dict(s0)
        self.asg = set()
        self.dead = False
        self.block(node.body)
        body_dead = self.dead
        sb = self.cur
        names = self.asg
        ends: list[dict[str, tuple[int, ...]]] = []
        hstart = _merge([s0, sb], names)
        for h in node.handlers:
            self.cur = dict(hstart)
            self.asg = set()
            self.dead = False
            types: tuple[Enc, ...] = ()
            if h.type is not None:
                self.noref += 1
                try:
                    if type(h.type) is ast.Tuple:
                        types = tuple(self.ev(e) for e in h.type.elts)
                    else:
                        types = (self.ev(h.type),)
                finally:
                    self.noref -= 1
            if h.name:
                self.bind(h.name, ("isi", types) if types else U, h.lineno, h.lineno, B_OTHER)
            self.block(h.body)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        if node.orelse:
            self.cur = sb
            self.asg = set()
            self.dead = body_dead
            self.block(node.orelse)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        elif not body_dead:
            ends.append(sb)
        if ends:
            self.cur = _merge(ends, names)
            self.dead = False
        else:
            self.cur = hstart
            self.dead = True
        if node.finalbody:
            was_dead = self.dead
            self.asg = set()
            self.dead = False
            self.block(node.finalbody)
            names |= self.asg
            self.dead = self.dead or was_dead
        outer |= names
        self.asg = outer

    def s_Match(self, node: ast.Match) -> None:
        self.ev(node.subject)
        s0 = self.cur
        outer = self.asg
        ends = [s0]
        names: set[str] = set()
        for case in node.cases:
            self.cur = dict(s0)
            self.asg = set()
            self.dead = False
            self._pattern(case.pattern, node)
            if case.guard is not None:
                self.ev(case.guard)
            self.block(case.body)
            if not self.dead:
                ends.append(self.cur)
            names |= self.asg
        self.cur = _merge(ends, names)
        self.dead = False
        outer |= names
        self.asg = outer

    def _pattern(self, p: ast.pattern, stmt: ast.stmt) -> None:
        for sub in ast.walk(p):
            if isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
                self.bind(sub.name, U, stmt.lineno, stmt.lineno, B_OTHER)
            elif isinstance(sub, ast.MatchMapping) and sub.rest:
                self.bind(sub.rest, K_DICT, stmt.lineno, stmt.lineno, B_OTHER)
            elif isinstance(sub, ast.MatchValue):
                self.ev(sub.value)
            elif isinstance(sub, ast.MatchClass):
                self.ev(sub.cls)

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
        for d in args.defaults:
            self.ev(d)
        for d in args.kw_defaults:
            if d is not None:
                self.ev(d)
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
                enc = P
            pencs.append((a.arg, enc))
        if args.vararg is not None:
            params.append((args.vararg.arg, P_VARARG, False))
            enc = K_TUPLE
            if args.vararg.annotation is not None:
                alts = self.ann(args.vararg.annotation)
                if alts:
                    enc = ("an", (("seq", alts),), psidx, None)
            pencs.append((args.vararg.arg, enc))
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False):
            params.append((a.arg, P_KWONLY, d is not None))
            if a.annotation is not None:
                alts = self.ann(a.annotation)
                enc = ("an", alts, psidx, None) if alts else P
            else:
                enc = P
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

    # ---------------------------------------------------------- annotations
    def ann(self, node: ast.expr) -> tuple[Enc, ...]:
        self.noref += 1
        try:
            return self._ann(node)
        finally:
            self.noref -= 1

    def _ann(self, node: ast.expr) -> tuple[Enc, ...]:
        t = type(node)
        if t is ast.Name or t is ast.Attribute:
            last = node.id if t is ast.Name else node.attr  # type: ignore[attr-defined]
            if last in ("Any", "object", "Never", "NoReturn", "TypeVar"):
                return ()
            if last == "Self":
                return (("self",),)
            return (("t", self.ev(node)),)
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if v is None:
                return (NONE,)
            if type(v) is str:
                try:
                    sub = ast.parse(v.strip(), mode="eval").body
                except (SyntaxError, ValueError):
                    return ()
                saved = (self.cur, self.loops)
                self.cur, self.loops = {}, []
                try:
                    return self._ann(sub)
                finally:
                    self.cur, self.loops = saved
            return ()
        if t is ast.Subscript:
            head_node = node.value  # type: ignore[attr-defined]
            head = (head_node.id if type(head_node) is ast.Name else
                    head_node.attr if type(head_node) is ast.Attribute else "")
            sl = node.slice  # type: ignore[attr-defined]
            items = sl.elts if type(sl) is ast.Tuple else [sl]
            if head == "Optional":
                return (*self._ann(items[0]), NONE)
            if head == "Union":
                out: tuple[Enc, ...] = ()
                for it in items:
                    out += self._ann(it)
                return out
            if head in _WRAPPER_NAMES:
                return self._ann(items[0])
            if head in ("Type", "type"):
                inner = self._ann(items[0])
                return (("type", inner),) if inner else ()
            if head in ("tuple", "Tuple"):
                if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...:
                    inner = self._ann(items[0])
                    return (("seq", inner),) if inner else ()
                return (("tup", tuple(self._ann(it) for it in items)),)
            if head in _MAP_NAMES and len(items) == 2:
                return (("map", self._ann(items[0]), self._ann(items[1])),)
            if head in _SEQ_NAMES:
                inner = self._ann(items[0])
                return (("seq", inner),) if inner else ()
            if head in _AWAIT_NAMES:
                return self._ann(items[-1])
            if head in ("Callable", "Literal", "Generic", "Protocol"):
                return ()
            if head:
                return (("t", self.ev(head_node)),)
            return ()
        if t is ast.BinOp and isinstance(node.op, ast.BitOr):  # type: ignore[attr-defined]
            return self._ann(node.left) + self._ann(node.right)  # type: ignore[attr-defined]
        return ()

    # ---------------------------------------------------------- expressions
    def ev(self, node: ast.expr) -> Enc:
        h = _EXPR.get(type(node))
        if h is None:
            return U
        return h(self, node)

    def e_Name(self, node: ast.Name) -> Enc:
        name = node.id
        reach = self.cur.get(name, ())
        if self.loops:
            ridx = len(self.lreach)
            self.lreach.append(list(reach))
            self.loops[-1].uses.append((name, ridx))
            enc: Enc = ("n", name, ridx)
        else:
            key = (name, reach)
            enc = self.encs.get(key)  # type: ignore[assignment]
            if enc is None:
                enc = self.encs[key] = ("n", name, reach)
        if not self.noref and (not reach or self.sc.kind != FUNCTION):
            self.sc.refs.append((node.lineno, enc, "r"))
        return enc

    def _name_noref(self, name: str) -> Enc:
        reach = self.cur.get(name, ())
        if self.loops:
            ridx = len(self.lreach)
            self.lreach.append(list(reach))
            self.loops[-1].uses.append((name, ridx))
            return ("n", name, ridx)
        key = (name, reach)
        enc = self.encs.get(key)
        if enc is None:
            enc = self.encs[key] = ("n", name, reach)
        return enc

    def _scope_names(self, sidx: int) -> set[str]:
        """Names bound so far in an enclosing (still open) scope."""
        return {b[0] for b in self.scopes[sidx].binds}

    def reach_of(self, enc: Enc) -> Any:
        """The binding ids of a name encoding (loop reads keep them in a side table)."""
        r = enc[2]
        return self.lreach[r] if type(r) is int else r

    def e_Attribute(self, node: ast.Attribute) -> Enc:
        value = node.value
        if type(value) is ast.Name:
            # a name used as a receiver: recorded as a "b" (base) read, which makes a use
            # edge for a variable/constant but no reference edge to a class/function
            base = self._name_noref(value.id)
            if not self.noref and (not self.reach_of(base) or self.sc.kind != FUNCTION):
                self.sc.refs.append((value.lineno, base, "b"))
        else:
            base = self.ev(value)
        akey = (id(base), node.attr)
        enc = self.encs.get(akey)  # type: ignore[assignment]
        if enc is None or enc[1] is not base:
            enc = self.encs[akey] = ("a", base, node.attr)
        if not self.noref and base[0] != "k":
            breach = self.reach_of(base) if base[0] == "n" else ()
            if breach and self.sc.kind == FUNCTION:
                binds = self.sc.binds
                for b in breach:
                    if binds[b][1] is not P and binds[b][1] is not U:
                        self.sc.refs.append((node.lineno, enc, "r"))
                        break
                else:  # only an argument flow (argflow.py) can type the parameter
                    if any(binds[b][1] is P for b in breach):
                        self.sc.prefs.append((node.lineno, enc, "r"))
            else:
                self.sc.refs.append((node.lineno, enc, "r"))
        return enc

    def e_Constant(self, node: ast.Constant) -> Enc:
        v = node.value
        if type(v) is str:
            if len(self.strs) < 64:
                add_string_words(self.strs, v)
            return K_STR
        return _CONST_ENC.get(type(v), U)

    def e_JoinedStr(self, node: ast.JoinedStr) -> Enc:
        for v in node.values:
            if type(v) is ast.Constant:
                if len(self.strs) < 64 and type(v.value) is str:
                    add_string_words(self.strs, v.value)
            else:
                self.ev(v)
        return K_STR

    def e_FormattedValue(self, node: ast.FormattedValue) -> Enc:
        self.ev(node.value)
        if node.format_spec is not None:
            self.ev(node.format_spec)
        return K_STR

    def e_Subscript(self, node: ast.Subscript) -> Enc:
        base = self.ev(node.value)
        sl = node.slice
        key = None
        if type(sl) is ast.Constant and type(sl.value) in (str, int):
            key = sl.value
        elif (type(sl) is ast.UnaryOp and type(sl.op) is ast.USub
              and type(sl.operand) is ast.Constant and type(sl.operand.value) is int):
            key = -sl.operand.value
        else:
            self.ev(sl)
        if base is GLOB and type(node.ctx) is ast.Load:
            names = _site_names(sl)
            self.sc.calls.append((node.lineno, ("sub", base, key), 0, (), False, False, (),
                                  ("globals", key if type(key) is str else None, names)))
        elif not self.noref:
            self._op_site(node.lineno, base, "__getitem__", 1)
        return ("sub", base, key)

    def e_BinOp(self, node: ast.BinOp) -> Enc:
        left = self.ev(node.left)
        right = self.ev(node.right)
        if left is K_STR and isinstance(node.op, ast.Mod | ast.Add):
            return K_STR
        dunders = _BINOP_DUNDER.get(type(node.op))
        if dunders is None or self.noref:
            return U
        self._op_site(node.lineno, left, dunders[0], 1, right, dunders[1])
        if self._maybe_instance(left) and not (left[0] == "c" and left[1][0] == "a"
                                               and left[1][2] in _OP_RESULTS):
            return ("c", ("a", left, dunders[0]))
        return U  # (chained operators are not typed further: long "+" chains stay linear)

    def e_BoolOp(self, node: ast.BoolOp) -> Enc:
        return ("or", tuple(self.ev(v) for v in node.values))

    def e_Compare(self, node: ast.Compare) -> Enc:
        left = self.ev(node.left)
        for op, c in zip(node.ops, node.comparators, strict=False):
            right = self.ev(c)
            t = type(op)
            if t is ast.In or t is ast.NotIn:
                self._op_site(node.lineno, right, "__contains__", 1)
            else:
                d = _CMP_DUNDER.get(t)
                if d is not None:
                    self._op_site(node.lineno, left, d[0], 1, right, d[1])
            left = right
        return K_BOOL

    def e_UnaryOp(self, node: ast.UnaryOp) -> Enc:
        v = self.ev(node.operand)
        if isinstance(node.op, ast.Not):
            return K_BOOL
        if v[0] == "k":
            return v
        d = _UNARY_DUNDER.get(type(node.op))
        if d is not None:
            self._op_site(node.lineno, v, d, 0)
        return U

    def e_IfExp(self, node: ast.IfExp) -> Enc:
        self.ev(node.test)
        return ("or", (self.ev(node.body), self.ev(node.orelse)))

    def e_List(self, node: ast.List) -> Enc:
        return ("sl", "list", tuple(self.ev(e) for e in node.elts))

    def e_Tuple(self, node: ast.Tuple) -> Enc:
        return ("sl", "tuple", tuple(self.ev(e) for e in node.elts))

    def e_Set(self, node: ast.Set) -> Enc:
        return ("sl", "set", tuple(self.ev(e) for e in node.elts))

    def e_Dict(self, node: ast.Dict) -> Enc:
        keys: list[Any] = []
        for k in node.keys:
            if k is None:
                keys.append(None)
            elif type(k) is ast.Constant and type(k.value) is str:
                if len(self.strs) < 64:
                    add_string_words(self.strs, k.value)
                keys.append(k.value)
            elif type(k) is ast.Constant and type(k.value) is int:
                keys.append(k.value)
            else:
                self.ev(k)
                keys.append(None)
        return ("dl", tuple(keys), tuple(self.ev(v) for v in node.values))

    def e_Starred(self, node: ast.Starred) -> Enc:
        self.ev(node.value)
        return U

    def e_Slice(self, node: ast.Slice) -> Enc:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part)
        return U

    def e_Await(self, node: ast.Await) -> Enc:
        return self.ev(node.value)

    def e_Yield(self, node: ast.Yield | ast.YieldFrom) -> Enc:
        self.sc.flags |= F_GENERATOR
        if node.value is not None:
            v = self.ev(node.value)
            self.sc.yields.append(v if type(node) is ast.Yield else U)
        return U

    def e_NamedExpr(self, node: ast.NamedExpr) -> Enc:
        v = self.ev(node.value)
        self.bind(node.target.id, v, node.lineno, node.lineno, B_OTHER)
        return v

    def _comprehension(self, gens: list[ast.comprehension], elts: list[ast.expr]) -> list[Enc]:
        saved: dict[str, tuple[int, ...] | None] = {}
        for g in gens:
            it = self.ev(g.iter)
            for n in ast.walk(g.target):
                if type(n) is ast.Name and n.id not in saved:
                    saved[n.id] = self.cur.get(n.id)
            if type(g.target) is ast.Name:
                self.bind_temp(g.target.id, ("it", it), g.target.lineno)
            else:
                for n in ast.walk(g.target):
                    if type(n) is ast.Name:
                        self.bind_temp(n.id, U, n.lineno)
            for cond in g.ifs:
                self.ev(cond)
        out = [self.ev(e) for e in elts]
        for name, prev in saved.items():
            if prev is None:
                self.cur.pop(name, None)
            else:
                self.cur[name] = prev
        return out

    def e_ListComp(self, node: ast.ListComp) -> Enc:
        return ("sl", "list", tuple(self._comprehension(node.generators, [node.elt])))

    def e_SetComp(self, node: ast.SetComp) -> Enc:
        return ("sl", "set", tuple(self._comprehension(node.generators, [node.elt])))

    def e_GeneratorExp(self, node: ast.GeneratorExp) -> Enc:
        return ("sl", "gen", tuple(self._comprehension(node.generators, [node.elt])))

    def e_DictComp(self, node: ast.DictComp) -> Enc:
        self._comprehension(node.generators, [node.key, node.value])
        return K_DICT

    def e_Lambda(self, node: ast.Lambda) -> Enc:
        args = node.args
        for d in args.defaults:
            self.ev(d)
        for d in args.kw_defaults:
            if d is not None:
                self.ev(d)
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

    def e_Call(self, node: ast.Call) -> Enc:
        func = node.func
        ft = type(func)
        special: Any = None
        result: Enc | None = None
        pending_prop = False
        args = node.args
        if ft is ast.Name:
            fname = func.id
            fenc = self._name_noref(fname)
            if fname in _DYN_ATTR and len(args) >= 2:
                obj = self.ev(args[0])
                namearg = args[1]
                if type(namearg) is ast.Constant and type(namearg.value) is str:
                    aenc = ("a", obj, namearg.value)
                    if fname == "getattr":
                        self.sc.refs.append((node.lineno, aenc, "r"))
                        result = aenc
                    elif fname == "setattr":
                        self.sc.refs.append((node.lineno, aenc, "w"))
                else:
                    special = ("getattr", None, _site_names(namearg))
                    result = DYN
                for a in args[1:]:
                    self.ev(a)
                for k in node.keywords:
                    self.ev(k.value)
                self.sc.calls.append((node.lineno, fenc, len(args), (), False, False, (),
                                      special))
                return result if result is not None else U
            if fname in _EVAL:
                special = ("eval", None, _site_names(args[0]) if args else ())
                result = DYN
            elif fname == "__import__":
                special = self._importlib_special(args, node.lineno)
                if special[1] is not None:
                    result = ("imp", special[1].partition(".")[0])
            elif fname == "import_module":
                special = self._importlib_special(args, node.lineno)
                if special[1] is not None:
                    result = ("imp", special[1])
            elif fname in _GLOBALS_FUNCS and (fname != "vars" or not args):
                result = GLOB
            elif fname == "super":
                result = ("sup", self.cls_ctx)
            elif fname == "property" and self.sc.kind == CLASS:
                pending_prop = True
            elif fname == "type" and len(args) == 1 and not node.keywords:
                result = ("ctype", self.ev(args[0]))
                self.sc.calls.append((node.lineno, fenc, 1, (), False, False, (), None))
                return result
            elif fname == "cast" and len(args) == 2:
                alts = self.ann(args[0])
                self.ev(args[1])
                self.sc.calls.append((node.lineno, fenc, 2, (), False, False, (), None))
                return ("an", alts, self.sidx, None) if alts else U
        elif ft is ast.Attribute:
            value = func.value
            if type(value) is ast.Name:
                base = self._name_noref(value.id)
                if not self.noref and (not self.reach_of(base) or self.sc.kind != FUNCTION):
                    self.sc.refs.append((value.lineno, base, "b"))
            else:
                base = self.ev(value)
            akey = (id(base), func.attr)
            fenc = self.encs.get(akey)
            if fenc is None or fenc[1] is not base:
                fenc = self.encs[akey] = ("a", base, func.attr)
            if func.attr == "import_module" and base[0] == "n" and base[1] == "importlib":
                special = self._importlib_special(args, node.lineno)
                if special[1] is not None:
                    result = ("imp", special[1])
        else:
            fenc = self.ev(func)
        nargs = 0
        star = False
        fargs: list[tuple[Any, Enc]] = []
        arg0: Enc = U
        aencs: list[Enc] = []
        for i, a in enumerate(args):
            if type(a) is ast.Starred:
                star = True
                self.ev(a.value)
                continue
            e = self.ev(a)
            aencs.append(e)
            if i == 0:
                arg0 = e
            nargs += 1
            if not star and e[0] in _VALUE_TAGS:
                fargs.append((i, e))
        kws: list[str] = []
        kwencs: list[Enc] = []
        dstar = False
        for k in node.keywords:
            e = self.ev(k.value)
            kwencs.append(e)
            if k.arg is None:
                dstar = True
            else:
                kws.append(k.arg)
                if e[0] in _VALUE_TAGS:
                    fargs.append((k.arg, e))
        kwt = tuple(sorted(kws))
        self.sc.calls.append((node.lineno, fenc, nargs, kwt, star, dstar, tuple(fargs), special))
        if (ft is ast.Attribute and func.attr in _MUTATORS and type(func.value) is ast.Name
                and not star and not node.keywords):
            self._note_mutator(func.value.id, func.attr, args, aencs)
        freach = self.reach_of(fenc) if ft is ast.Name else ()
        if freach and self.sc.kind == FUNCTION:
            binds = self.sc.binds
            if all(binds[b][4] == B_PARAM for b in freach):
                self.sc.pcalls.setdefault(fenc[1], (nargs, kwt, star, dstar, self.sidx))
        elif ft is ast.Name and self.sc.kind == FUNCTION and not freach:
            # a closure calling a parameter of an enclosing function
            s = self.sc.parent
            while s > 0:
                outer = self.scopes[s]
                if outer.kind != FUNCTION:
                    break
                if any(p[0] == func.id for p in outer.params):
                    outer.pcalls.setdefault(func.id, (nargs, kwt, star, dstar, self.sidx))
                    break
                if func.id in outer.byname or func.id in self._scope_names(s):
                    break
                s = outer.parent
        if pending_prop:
            fget = aencs[0] if aencs else U
            fset = aencs[1] if len(aencs) > 1 else None
            for k, e in zip(node.keywords, kwencs, strict=False):
                if k.arg == "fget":
                    fget = e
                elif k.arg == "fset":
                    fset = e
            return ("prop", fget, fset)
        if result is not None:
            return result
        if ft is ast.Name and nargs == 1 and not self.cur.get(func.id):
            d = _BUILTIN_DUNDER.get(func.id)
            if d is not None:
                self._op_site(node.lineno, arg0, d, 0)
        if ft is ast.Name and nargs and fenc[1] in _ARG0_FUNCS:
            return ("c", fenc, arg0)
        return ("c", fenc)

    def _importlib_special(self, args: list[ast.expr], line: int) -> tuple[str, str | None,
                                                                          tuple[str, ...]]:
        if args and type(args[0]) is ast.Constant and type(args[0].value) is str:
            lit = args[0].value
            if lit and not lit.startswith("."):
                self.imports.append((self.sidx, line, lit, None, None))
                return ("importlib", lit, (lit,))
        return ("importlib", None, _site_names(args[0]) if args else ())

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
# is freed by reference counting while the cyclic GC is paused): s_X / e_X handle ast.X
def _table(prefix: str, aliases: dict[str, str]) -> dict[type, Any]:
    out: dict[type, Any] = {}
    for name, fn in vars(_Extractor).items():
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


def _self_sites(sc: Scope) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """A method's ``self.x(...)``, ``cls.x``, ``super().x``, ``cls(...)`` calls and
    ``self.x`` references: where a subclass instance may dispatch differently."""
    calls = []
    for i, site in enumerate(sc.calls):
        enc = site[1]
        if enc[0] == "a" or enc[0] == "n":
            a = _self_attr(sc, enc)
            if a is not None:
                calls.append((a, i))
    refs = []
    for i, ref in enumerate(sc.refs):
        enc = ref[1]
        if enc[0] == "a":
            a = _self_attr(sc, enc)
            if a is not None:
                refs.append((a, i))
    return tuple(calls), tuple(refs)


def _self_attr(sc: Scope, enc: Enc) -> str | None:
    """The attribute ``enc`` looks up on the runtime class of ``self``/``cls``
    (``__init__`` for ``cls(...)``), or None."""
    if enc[0] == "a":
        bt = enc[1][0]
        if bt == "sup" or bt == "self" or bt == "clsp":
            return str(enc[2])
        if bt == "n" and _param_tag(sc, enc[1]) in ("self", "clsp"):
            return str(enc[2])
    elif _param_tag(sc, enc) == "clsp":
        return "__init__"
    return None


def _param_tag(sc: Scope, enc: Enc) -> str | None:
    """The encoding tag of the parameter a name read ``enc`` reads, if only that."""
    reach = enc[2]
    if type(reach) is int:
        reach = sc.lreach[reach]
    if len(reach) != 1:
        return None
    b = sc.binds[reach[0]]
    return str(b[1][0]) if b[4] == B_PARAM else None


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


def _site_names(node: ast.AST) -> tuple[str, ...]:
    """String literals in an expression, or failing that its identifiers."""
    strs: list[str] = []
    idents: list[str] = []
    for n in ast.walk(node):
        if type(n) is ast.Constant and type(n.value) is str and n.value:
            strs.append(n.value)
        elif type(n) is ast.Name:
            idents.append(n.id)
        elif type(n) is ast.Attribute:
            idents.append(n.attr)
    out = strs or idents
    return tuple(dict.fromkeys(out))[:16]


def extract_file(path: str, source: bytes, module: str, is_test: bool,
                 is_package: bool) -> PyFileFacts:
    """Parse one file and extract its facts (pure; runs in worker processes).

    Raises SyntaxError / UnicodeDecodeError / ValueError on unparseable input.
    """
    text = decode_source(source)
    try:
        with recursion_limit_at_least(_RECURSION), gc_paused():
            tree = ast.parse(text, filename=path)
            return _Extractor(path, text, module, is_test, is_package).run(tree)
    except RecursionError as exc:
        raise ValueError(f"{path}: expressions nested too deeply to analyze") from exc
