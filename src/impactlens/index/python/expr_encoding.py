"""Expression and call-site encoding: each expression → the tuple the resolver evaluates.

The extractor's mixin for expressions (``e_X`` handles ``ast.X``; the tags are
listed in ``facts.py``) and annotations. Evaluating an expression also records the
call sites it makes — explicit calls with their arguments, and the implicit ones
(operators, subscripts, ``len(x)``-style builtins: ``_op_site``) — and the
attribute and name references the resolver turns into use edges. Calls of the
builtins that change what a call means (``getattr``, ``eval``, ``importlib``,
``super``, ``type``, ``cast``, ``property``) have handlers of their own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from impactlens.index.python.facts import (
    B_OTHER,
    B_PARAM,
    CLASS,
    F_GENERATOR,
    FUNCTION,
    CallSite,
    Enc,
    Scope,
)
from impactlens.index.python.words import add_string_words

if TYPE_CHECKING:
    from impactlens.index.python.binding_flow import LoopFrame
    from impactlens.index.python.strong_updates import StoreKills

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
# marks a `property(...)` call in a class body until its arguments are encoded (never stored)
_PROPERTY: Enc = ("property",)
_CONST_ENC = {str: K_STR, bytes: K_BYTES, int: K_INT, float: K_FLOAT, complex: K_COMPLEX,
              bool: K_BOOL, type(None): NONE, type(...): K_ELLIPSIS}

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
_GETTERS = frozenset({"attrgetter", "methodcaller"})
# "pkg.mod.func", "pkg.mod:Class.attr": a dotted path a loader or an entry point resolves
_DOTTED_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:[.:][A-Za-z_]\w*)")
BINOP_DUNDER = {
    ast.Add: ("__add__", "__radd__"), ast.Sub: ("__sub__", "__rsub__"),
    ast.Mult: ("__mul__", "__rmul__"), ast.MatMult: ("__matmul__", "__rmatmul__"),
    ast.Div: ("__truediv__", "__rtruediv__"), ast.FloorDiv: ("__floordiv__", "__rfloordiv__"),
    ast.Mod: ("__mod__", "__rmod__"), ast.Pow: ("__pow__", "__rpow__"),
    ast.LShift: ("__lshift__", "__rlshift__"), ast.RShift: ("__rshift__", "__rrshift__"),
    ast.BitOr: ("__or__", "__ror__"), ast.BitXor: ("__xor__", "__rxor__"),
    ast.BitAnd: ("__and__", "__rand__"),
}
_OP_RESULTS = frozenset(d for pair in BINOP_DUNDER.values() for d in pair)
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
_DEFAULTED = frozenset({"get", "pop", "setdefault"})  # (key, default) methods of a dict
_ARG0_FUNCS = frozenset({
    "enumerate", "list", "sorted", "reversed", "tuple", "set", "frozenset", "iter", "next",
    "copy", "deepcopy",
})


class ExprEncoding:
    """Expression handlers, annotation encoding and call-site emission."""

    # the extractor's state this mixin reads and writes (see extract._Extractor)
    sc: Scope
    sidx: int
    scopes: list[Scope]
    cur: dict[str, tuple[int, ...]]
    loops: list[LoopFrame]
    encs: dict[Any, Enc]
    noref: int
    strs: dict[str, None]
    cls_ctx: int
    imports: list[tuple[int, int, str, str | None, str | None]]
    module: str
    kills: StoreKills

    if TYPE_CHECKING:  # provided by the extractor and the binding flow
        def ev(self, node: ast.expr) -> Enc: ...
        def bind(self, name: str, enc: Enc, line: int, end: int, kind: int) -> int: ...
        def reach_of(self, enc: Enc) -> Any: ...
        def _name_noref(self, name: str) -> Enc: ...
        def _scope_names(self, sidx: int) -> set[str]: ...
        def _comprehension(self, gens: list[ast.comprehension],
                           elts: list[ast.expr]) -> list[Enc]: ...
        def _note_mutator(self, name: str, method: str, args: list[ast.expr],
                          encs: list[Enc]) -> None: ...
        def _note_store(self, name: str, key: Any, enc: Enc, call: bool = False,
                        overwrites: bool = True) -> None: ...

    # ----------------------------------------------------- implicit call sites
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
    def _receiver(self, value: ast.expr) -> Enc:
        """The encoding of what an attribute is looked up on."""
        if type(value) is ast.Name:
            # a name used as a receiver: recorded as a "b" (base) read, which makes a use
            # edge for a variable/constant but no reference edge to a class/function
            base = self._name_noref(value.id)
            if not self.noref and (not self.reach_of(base) or self.sc.kind != FUNCTION):
                self.sc.refs.append((value.lineno, base, "b"))
            return base
        return self.ev(value)

    def _attr_enc(self, base: Enc, attr: str) -> Enc:
        """``("a", base, attr)``, one tuple per scope for the same base object."""
        akey = (id(base), attr)
        enc = self.encs.get(akey)
        if enc is None or enc[1] is not base:
            enc = self.encs[akey] = ("a", base, attr)
        return enc

    def e_Attribute(self, node: ast.Attribute) -> Enc:
        base = self._receiver(node.value)
        enc = self._attr_enc(base, node.attr)
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
            if ("." in v or ":" in v) and not self.noref and _DOTTED_PATH.fullmatch(v):
                self._dotted_ref(node.lineno, v)
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

    def _dotted_ref(self, line: int, path: str) -> None:
        """``"pkg.mod.func"`` / ``"pkg.mod:Class"``: a string an ``import_string``-style
        loader, an entry point or a settings table resolves. It is recorded as a reference
        to what it names (access "p": by path), from the first segment as an import down
        the attributes; one that names nothing in the repository resolves to nothing."""
        head, *rest = path.replace(":", ".").split(".")
        enc: Enc = ("imp", head)
        for part in rest:
            enc = ("a", enc, part)
        self.sc.refs.append((line, enc, "p"))

    def e_FormattedValue(self, node: ast.FormattedValue) -> Enc:
        self.ev(node.value)
        if node.format_spec is not None:
            self.ev(node.format_spec)
        return K_STR

    def e_Subscript(self, node: ast.Subscript) -> Enc:
        sl = node.slice
        key: Any = None
        if type(sl) is ast.Constant and type(sl.value) in (str, int):
            key = sl.value
        elif (type(sl) is ast.UnaryOp and type(sl.op) is ast.USub
              and type(sl.operand) is ast.Constant and type(sl.operand.value) is int):
            key = -sl.operand.value
        elif type(sl) is ast.Slice and sl.step is None:
            key = _slice_key(sl)
        elif type(sl) is ast.Name or type(sl) is ast.Attribute:
            key = ("key", self.ev(sl))  # a constant's name: its literal, when it has one
        if type(node.ctx) is ast.Load:
            ns = self._namespace_of(node.value, key)
            if ns is not None:
                return self._namespace_item(node, ns, key)
        base = self.ev(node.value)
        if key is None:
            self.ev(sl)
        if base is GLOB and type(node.ctx) is ast.Load:
            names = _site_names(sl)
            self.sc.calls.append((node.lineno, ("sub", base, key), 0, (), False, False, (),
                                  ("globals", key if type(key) is str else None, names)))
        elif not self.noref:
            self._op_site(node.lineno, base, "__getitem__", 1)
        return ("sub", base, key)

    def _namespace_of(self, value: ast.expr, key: Any) -> Enc | None:
        """The object whose namespace a subscripted ``value`` is: ``x`` for ``vars(x)`` and
        ``x.__dict__``, this module for ``globals()`` read with a literal key (a computed
        one stays a ``globals`` site); None for any other value."""
        if type(value) is ast.Call and type(value.func) is ast.Name and not value.keywords:
            if value.func.id == "vars" and len(value.args) == 1:
                return self.ev(value.args[0])
            if value.func.id == "globals" and not value.args and type(key) is str:
                return ("imp", self.module)
        if type(value) is ast.Attribute and value.attr == "__dict__":
            return self._receiver(value.value)
        return None

    def _namespace_item(self, node: ast.Subscript, ns: Enc, key: Any) -> Enc:
        """``ns.__dict__[key]``: a literal key reads the attribute ``key`` of ``ns`` (an
        edge); a computed one is a dynamic site, like ``getattr(ns, key)``."""
        if type(key) is str:
            enc = self._attr_enc(ns, key)
            if not self.noref:
                self.sc.refs.append((node.lineno, enc, "r"))
            return enc
        self.ev(node.slice)
        self._plain_site(node.lineno, ("sub", ns, None), 1,
                         ("getattr", None, _site_names(node.slice)))
        return DYN

    def e_BinOp(self, node: ast.BinOp) -> Enc:
        left = self.ev(node.left)
        right = self.ev(node.right)
        if left is K_STR and isinstance(node.op, ast.Mod | ast.Add):
            return K_STR
        dunders = BINOP_DUNDER.get(type(node.op))
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
            elif type(k) is ast.Name or type(k) is ast.Attribute:
                keys.append(("key", self.ev(k)))  # a constant's name (see e_Subscript)
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

    def e_ListComp(self, node: ast.ListComp) -> Enc:
        return ("sl", "list", tuple(self._comprehension(node.generators, [node.elt])))

    def e_SetComp(self, node: ast.SetComp) -> Enc:
        return ("sl", "set", tuple(self._comprehension(node.generators, [node.elt])))

    def e_GeneratorExp(self, node: ast.GeneratorExp) -> Enc:
        return ("sl", "gen", tuple(self._comprehension(node.generators, [node.elt])))

    def e_DictComp(self, node: ast.DictComp) -> Enc:
        self._comprehension(node.generators, [node.key, node.value])
        return K_DICT

    # ------------------------------------------------------------- call sites
    def e_Call(self, node: ast.Call) -> Enc:
        func = node.func
        ft = type(func)
        if ft is ast.Name:
            return self._call_of_name(node, func.id)  # type: ignore[attr-defined]
        if ft is ast.Attribute:
            return self._call_of_attribute(node, func)  # type: ignore[arg-type]
        fenc = self.ev(func)
        self._call_site(node, fenc, None)
        return ("c", fenc)

    def _call_of_name(self, node: ast.Call, name: str) -> Enc:
        """``f(...)``: a builtin may give the call a meaning (``_BUILTIN_MEANINGS``) or
        a site of its own (``_OWN_SITE_CALLS``); a parameter called is noted."""
        fenc = self._name_noref(name)
        own = _OWN_SITE_CALLS.get(name)
        if own is not None:
            enc = own(self, node, name, fenc)
            if enc is not None:
                return enc
        meaning = _BUILTIN_MEANINGS.get(name)
        special, result = meaning(self, node, name) if meaning is not None else (None, None)
        site, aencs, kwencs = self._call_site(node, fenc, special)
        _line, _fenc, nargs, kwt, star, dstar, _fargs, _special = site
        if self.sc.kind == FUNCTION:
            self._note_param_call(name, fenc, (nargs, kwt, star, dstar, self.sidx))
        if result is _PROPERTY:
            return self._property_value(node.keywords, aencs, kwencs)
        if result is not None:
            return result
        if not nargs:
            return ("c", fenc)
        arg0 = U if type(node.args[0]) is ast.Starred else aencs[0]
        if nargs == 1 and not self.cur.get(name):
            d = _BUILTIN_DUNDER.get(name)
            if d is not None:
                self._op_site(node.lineno, arg0, d, 0)
        if name in _ARG0_FUNCS:
            return ("c", fenc, arg0)
        return ("c", fenc)

    def _call_of_attribute(self, node: ast.Call, func: ast.Attribute) -> Enc:
        """``x.m(...)``: ``importlib.import_module`` imports, and a mutator called on a
        local container (``xs.append(v)``) stores into it."""
        fenc = self._attr_enc(self._receiver(func.value), func.attr)
        special: Any = None
        result: Enc | None = None
        base = fenc[1]
        if func.attr == "import_module" and base[0] == "n" and base[1] == "importlib":
            special, result = self._call_import_module(node, func.attr)
        elif func.attr in _GETTERS and base[0] == "n" and base[1] == "operator":
            special, result = self._call_getter(node, func.attr)
        site, aencs, kwencs = self._call_site(node, fenc, special)
        if (func.attr in _MUTATORS and type(func.value) is ast.Name and not site[4]
                and not node.keywords):
            self._note_mutator(func.value.id, func.attr, node.args, aencs)
        elif (func.attr == "update" and type(func.value) is ast.Name and not node.args
              and not site[5]):
            for k, e in zip(node.keywords, kwencs, strict=False):  # d.update(k=v)
                self._note_store(func.value.id, k.arg, e, call=True)
        if result is None and func.attr in _DEFAULTED and len(aencs) == 2:
            return ("c", fenc, aencs[1])  # ``d.get(k, default)``: the default may come back
        return result if result is not None else ("c", fenc)

    def _call_site(self, node: ast.Call, fenc: Enc,
                   special: Any) -> tuple[CallSite, list[Enc], Sequence[Enc]]:
        """Encode the arguments and record the call site. Returns the site and the
        encodings of the positional (not starred) and keyword arguments."""
        star = False
        fargs: list[tuple[Any, Enc]] = []
        aencs: list[Enc] = []
        for i, a in enumerate(node.args):
            if type(a) is ast.Starred:
                star = True
                self.ev(a.value)
                continue
            e = self.ev(a)
            aencs.append(e)
            if not star and e[0] in _VALUE_TAGS:
                fargs.append((i, e))
        kwt: tuple[str, ...] = ()
        dstar = False
        kwencs: Sequence[Enc] = ()
        if node.keywords:
            kwt, dstar, kwencs = self._call_keywords(node.keywords, fargs)
        site = (node.lineno, fenc, len(aencs), kwt, star, dstar, tuple(fargs), special)
        self.sc.calls.append(site)
        self.kills.calls += 1
        return site, aencs, kwencs

    def _call_keywords(self, keywords: list[ast.keyword], fargs: list[tuple[Any, Enc]],
                       ) -> tuple[tuple[str, ...], bool, list[Enc]]:
        """Keyword arguments: their sorted names, whether ``**kw`` is passed, and their
        encodings; the ones that may carry a function go to ``fargs``."""
        kws: list[str] = []
        kwencs: list[Enc] = []
        dstar = False
        for k in keywords:
            e = self.ev(k.value)
            kwencs.append(e)
            if k.arg is None:
                dstar = True
            else:
                kws.append(k.arg)
                if e[0] in _VALUE_TAGS:
                    fargs.append((k.arg, e))
        return tuple(sorted(kws)), dstar, kwencs

    def _note_param_call(self, name: str, fenc: Enc,
                         shape: tuple[int, tuple[str, ...], bool, bool, int]) -> None:
        """A function calling its parameter, or a closure calling a parameter of an
        enclosing function: the call's shape, for the functions passed there."""
        freach = self.reach_of(fenc)
        if freach:
            binds = self.sc.binds
            if all(binds[b][4] == B_PARAM for b in freach):
                self.sc.pcalls.setdefault(name, shape)
            return
        s = self.sc.parent
        while s > 0:
            outer = self.scopes[s]
            if outer.kind != FUNCTION:
                break
            if any(p[0] == name for p in outer.params):
                outer.pcalls.setdefault(name, shape)
                break
            if name in outer.byname or name in self._scope_names(s):
                break
            s = outer.parent

    def _property_value(self, keywords: list[ast.keyword], aencs: list[Enc],
                        kwencs: Sequence[Enc]) -> Enc:
        """``property(fget, fset)`` in a class body (positional or ``fget=``/``fset=``)."""
        fget = aencs[0] if aencs else U
        fset = aencs[1] if len(aencs) > 1 else None
        for k, e in zip(keywords, kwencs, strict=False):
            if k.arg == "fget":
                fget = e
            elif k.arg == "fset":
                fset = e
        return ("prop", fget, fset)

    def _plain_site(self, line: int, fenc: Enc, nargs: int, special: Any = None) -> None:
        """A call site without keyword or value arguments."""
        self.sc.calls.append((line, fenc, nargs, (), False, False, (), special))

    # builtins whose call records a site of its own (None: not this form, a plain call)
    def _call_dyn_attr(self, node: ast.Call, name: str, fenc: Enc) -> Enc | None:
        """``getattr(x, "a")`` reads ``x.a``, ``setattr`` writes it; a computed name is a
        dynamic site (reported unresolved)."""
        args = node.args
        if len(args) < 2:
            return None
        special = None
        result: Enc | None = None
        obj = self.ev(args[0])
        namearg = args[1]
        if type(namearg) is ast.Constant and type(namearg.value) is str:
            aenc = ("a", obj, namearg.value)
            if name == "getattr":
                self.sc.refs.append((node.lineno, aenc, "r"))
                result = aenc
            elif name == "setattr":
                self.sc.refs.append((node.lineno, aenc, "w"))
        else:
            special = ("getattr", None, _site_names(namearg))
            result = DYN
        for a in args[1:]:
            self.ev(a)
        for k in node.keywords:
            self.ev(k.value)
        self._plain_site(node.lineno, fenc, len(args), special)
        return result if result is not None else U

    def _call_type(self, node: ast.Call, name: str, fenc: Enc) -> Enc | None:
        """``type(x)``: the class of ``x``."""
        if len(node.args) != 1 or node.keywords:
            return None
        result = ("ctype", self.ev(node.args[0]))
        self._plain_site(node.lineno, fenc, 1)
        return result

    def _call_cast(self, node: ast.Call, name: str, fenc: Enc) -> Enc | None:
        """``cast(T, v)``: an instance of ``T``."""
        if len(node.args) != 2:
            return None
        alts = self.ann(node.args[0])
        self.ev(node.args[1])
        self._plain_site(node.lineno, fenc, 2)
        return ("an", alts, self.sidx, None) if alts else U

    # builtins that give a plain call site its `special` item or its value
    def _call_eval(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        return ("eval", None, _site_names(node.args[0]) if node.args else ()), DYN

    def _call_dunder_import(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        special = self._importlib_special(node.args, node.lineno)
        return special, ("imp", special[1].partition(".")[0]) if special[1] is not None else None

    def _call_import_module(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        special = self._importlib_special(node.args, node.lineno)
        return special, ("imp", special[1]) if special[1] is not None else None

    def _call_getter(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        """``attrgetter("a", "b.c")`` / ``methodcaller("m", ...)``: a getattr by name on
        whatever the getter is applied to, a receiver of unknown type — a dynamic site
        naming the attributes (each part of a dotted one)."""
        args = node.args if name == "attrgetter" else node.args[:1]
        names: list[str] = []
        for a in args:
            if type(a) is ast.Constant and type(a.value) is str:
                names.extend([a.value, *a.value.split(".")] if "." in a.value else [a.value])
            else:
                names.extend(_site_names(a))
        return ("getattr", None, tuple(dict.fromkeys(names))[:16]), DYN

    def _call_namespace(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        """``globals()``/``locals()``/``vars()``: subscripting it is a dynamic site."""
        return None, GLOB if name != "vars" or not node.args else None

    def _call_super(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        return None, ("sup", self.cls_ctx)

    def _call_property(self, node: ast.Call, name: str) -> tuple[Any, Enc | None]:
        return None, _PROPERTY if self.sc.kind == CLASS else None

    def _importlib_special(self, args: list[ast.expr], line: int) -> tuple[str, str | None,
                                                                          tuple[str, ...]]:
        if args and type(args[0]) is ast.Constant and type(args[0].value) is str:
            lit = args[0].value
            if lit and not lit.startswith("."):
                self.imports.append((self.sidx, line, lit, None, None))
                return ("importlib", lit, (lit,))
        return ("importlib", None, _site_names(args[0]) if args else ())


_OWN_SITE_CALLS = {
    **dict.fromkeys(_DYN_ATTR, ExprEncoding._call_dyn_attr),
    "type": ExprEncoding._call_type,
    "cast": ExprEncoding._call_cast,
}
_BUILTIN_MEANINGS = {
    **dict.fromkeys(_EVAL, ExprEncoding._call_eval),
    "__import__": ExprEncoding._call_dunder_import,
    "import_module": ExprEncoding._call_import_module,
    **dict.fromkeys(_GLOBALS_FUNCS, ExprEncoding._call_namespace),
    **dict.fromkeys(_GETTERS, ExprEncoding._call_getter),
    "super": ExprEncoding._call_super,
    "property": ExprEncoding._call_property,
}


def _literal_int(node: ast.expr | None) -> int | bool | None:
    """The value of a literal (possibly negative) int bound of a slice; None when absent;
    False when not a literal."""
    if node is None:
        return None
    neg = type(node) is ast.UnaryOp and type(node.op) is ast.USub
    v = node.operand if neg else node  # type: ignore[attr-defined]
    if type(v) is ast.Constant and type(v.value) is int:
        return -v.value if neg else v.value
    return False


def _slice_key(sl: ast.Slice) -> Any:
    """``("slice", lower, upper)`` for ``xs[1:3]`` with literal bounds, else None."""
    lo, hi = _literal_int(sl.lower), _literal_int(sl.upper)
    if lo is False or hi is False:
        return None
    return ("slice", lo, hi)


def self_sites(sc: Scope) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
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


