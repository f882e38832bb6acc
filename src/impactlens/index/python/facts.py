"""Per-file facts: the compact, picklable result of one pass over a module's AST.

Nothing here holds an AST object. Expressions are encoded as small tuples whose
first item is a tag (see :data:`EXPR_TAGS`); resolution (``resolve/``)
evaluates them lazily against the facts of other modules.

Expression encodings (``enc``)::

    ("n", name, reach)      a name read; ``reach`` = ids of this scope's bindings
                            that reach the read (empty: not bound locally on
                            this path → enclosing scopes / module / builtins);
                            an int inside loops: ``scope.lreach[reach]``
    ("a", base, attr)       attribute of ``base`` (``getattr(x, "lit")`` too)
    ("c", func)             the result of calling ``func``
    ("sub", base, key)      ``base[key]``; ``key`` a literal str/int, ``("slice", lo,
                            hi)``, ``("key", enc)`` (a name: a constant's literal)
                            or None
    ("sup", cls_sidx)       ``super()`` inside class scope ``cls_sidx``
    ("ctype", enc)          ``type(x)``
    ("k", typename)         an instance of a builtin type (literal, f-string...);
                            ``("k", "str", text)`` a module/class-level str constant
    ("none",)               ``None``
    ("sl", type, elems)     list/tuple/set display or comprehension (elements)
    ("dl", keys, values)    dict display (keys: literal str/int, ``("key", enc)``
                            or None)
    ("it", enc)             an element obtained by iterating ``enc``
    ("ix", enc, i)          element ``i`` of unpacking ``enc`` (``a, b = f()``)
    ("prop", fget, fset)    ``property(fget, fset)`` in a class body
    ("en", enc)             the value bound by ``with enc as x``
    ("an", alts, sidx, v)   annotated: type alternatives ``alts`` evaluated in
                            scope ``sidx``; ``v`` the assigned value or None
    ("isi", encs)           narrowed by ``isinstance(x, encs)``: instance of any
    ("nisi", enc, encs)     ``enc`` after ``if isinstance(x, encs): return``: no
                            instance of those classes
    ("or", encs)            any of (``a or b``, ``a if c else b``)
    ("def", sidx)           the function defined by scope ``sidx``
    ("cls", sidx)           the class defined by scope ``sidx``
    ("imp", module)         ``import a.b as x`` → module ``a.b``
    ("from", module, name)  ``from module import name``
    ("self", cls_sidx)      first parameter of a method (an instance)
    ("clsp", cls_sidx)      first parameter of a classmethod (the class)
    ("p",)                  a parameter of unknown type
    ("def", sidx)           (also) a lambda: scope sidx is its `<lambdaN>` function
    ("u",)                  unknown

Annotation alternatives (inside ``("an", alts, ...)``)::

    ("t", enc)              an instance of the class ``enc`` evaluates to
    ("seq", alts)           an iterable of ``alts``
    ("tup", (alts, ...))    a fixed tuple ``tuple[A, B]``
    ("map", kalts, valts)   a mapping ``dict[K, V]``
    ("type", alts)          the class object itself (``type[X]``)
    ("self",)               ``Self``
    ("none",)               ``None``
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from impactlens.model import Node, NodeKind

# scope kinds
MODULE, CLASS, FUNCTION = 0, 1, 2

# binding kinds (5th item of a binding tuple)
B_ASSIGN, B_DEF, B_CLASS, B_IMPORT, B_OTHER, B_PARAM = 0, 1, 2, 3, 4, 5

# function flags
F_PROPERTY = 1
F_CLASSMETHOD = 2
F_STATICMETHOD = 4
F_OVERLOAD = 8
F_ASYNC = 16
F_GENERATOR = 32
F_ABSTRACT = 64
F_FIXTURE = 128
F_CONTEXTMANAGER = 256
# class flags
C_DATACLASS = 1

Enc = tuple[Any, ...]
# a binding: (name, enc, line, end_line, kind)
Binding = tuple[str, Enc, int, int, int]
# a call site: (line, func_enc, nargs, kwnames, star, dstar, fargs, special)
#   fargs: ((position:int | keyword:str, enc), ...) for Name/Attribute arguments
#   special: None or (kind, literal_name | None, names) for getattr/eval/importlib/...
CallSite = tuple[int, Enc, int, tuple[str, ...], bool, bool, tuple[Any, ...], Any]
# a reference: (line, enc, access) with access "r" | "w" | "rw"
Ref = tuple[int, Enc, str]


@dataclass(slots=True)
class Scope:
    """One module, class or function body."""

    kind: int
    name: str
    qual: str  # dotted id (tests get their pytest id at resolution)
    parent: int  # index of the enclosing scope, -1 for the module
    line: int  # first line (decorators included)
    end: int
    def_line: int = 0  # the `def` / `class` line itself
    binds: list[Binding] = field(default_factory=list)
    byname: dict[str, tuple[int, ...]] = field(default_factory=dict)  # all bindings per name
    final: dict[str, tuple[int, ...]] = field(default_factory=dict)  # reach at the end
    calls: list[CallSite] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    # reads of an unannotated parameter's attributes (``p.x``): resolved only under an
    # argument flow (argflow.py), which may type the parameter
    prefs: list[Ref] = field(default_factory=list)
    glob: frozenset[str] = frozenset()
    decos: tuple[str, ...] = ()  # dotted decorator texts
    flags: int = 0
    # class scopes
    bases: tuple[Enc, ...] = ()
    meta: Enc | None = None  # the metaclass= keyword
    # @dataclass: [init, kw_only, [(field, annotation text, has default, kw_only,
    #              default_factory enc | None), ...]]
    dc: list[Any] | None = None
    inst: dict[str, list[tuple[Enc, int, int, int]]] = field(default_factory=dict)
    # function scopes
    params: tuple[tuple[str, int, bool], ...] = ()  # (name, kind, has_default); kind below
    ret: Enc | None = None  # ("an", ...) return annotation
    returns: list[Enc] = field(default_factory=list)
    yields: list[Enc] = field(default_factory=list)
    # parameters this function (or a closure inside it) calls:
    # name → (nargs, kwnames, star, dstar, scope of the calling function)
    pcalls: dict[str, tuple[int, tuple[str, ...], bool, bool, int]] = field(default_factory=dict)
    cls: int = -1  # enclosing class scope for methods
    setter: int = -1  # property setter scope for a getter
    # pytest
    fixture: tuple[str, bool] | None = None  # (fixture name, autouse)
    param_ids: tuple[str, ...] | None = None  # parametrize ids; None = not computable
    parametrized: bool = False
    usefixtures: tuple[str, ...] = ()
    param_refs: tuple[Enc, ...] = ()  # names in parametrize argvalues (enclosing scope)
    # container mutations: name → [(literal key | None, value enc, scope of the store)]
    muts: dict[str, list[tuple[Any, Enc, int]]] = field(default_factory=dict)
    # reach of name reads inside loops: ("n", name, i) with an int i means lreach[i]
    lreach: tuple[tuple[int, ...], ...] = ()
    # a decorated function: what its name is bound to, the outermost decorator's result
    # (``("c", deco_enc)``, evaluated in the parent scope); None when not decorated
    dval: Enc | None = None
    # a method's sites whose target depends on the runtime class of self/cls:
    # (attr, index into calls) and (attr, index into refs); see resolve/contexts.py
    selfs: tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]] = ((), ())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_scope, tuple(getattr(self, f) for f in _SCOPE_FIELDS))

    def param_use(self) -> ParamUse:
        """What a call site asks of this function's body about its parameters (see
        :class:`ParamUse`)."""
        plain = []
        for name, _kind, _default in self.params:
            for b in self.byname.get(name, ()):
                bind = self.binds[b]
                if bind[4] == B_PARAM:
                    # unannotated: unknown, or its default's value (an argument replaces it)
                    if bind[1] == _P or bind[1][:2] == ("an", ()):
                        plain.append(name)
                    break
        mentioned = mentioned_names(self)
        return ParamUse(tuple(plain), tuple(n for n in plain if n in mentioned),
                        dict(sorted(self.pcalls.items())))


class ParamUse(NamedTuple):
    """A function's parameters as its callers' resolution sees them: a summary of its
    body that a body edit changes only when a caller's answer may change.

    A caller reads this, not the body, to decide whether an argument flows into the
    function (argflow.py) and whether a function passed to it is called
    (resolve/sites.py); read-recording views record it under its own key (``P:``,
    index/read_fingerprints.py)."""

    plain: tuple[str, ...]  # parameters with neither annotation nor inferred type, in order
    mentioned: tuple[str, ...]  # those of them the body mentions
    pcalls: dict[str, tuple[int, tuple[str, ...], bool, bool, int]]  # Scope.pcalls


_P: Enc = ("p",)


def mentioned_names(sc: Scope) -> frozenset[str]:
    """Names and attribute names mentioned by a function scope's sites and bindings."""
    out: set[str] = set()
    for site in sc.calls:
        enc_names(site[1], out, 0)
        for _p, e in site[6]:
            enc_names(e, out, 0)
    for bind in sc.binds:
        enc_names(bind[1], out, 0)
    for ref in (*sc.refs, *sc.prefs):
        enc_names(ref[1], out, 0)
    for e in sc.returns:
        enc_names(e, out, 0)
    return frozenset(out)


def enc_names(enc: Any, out: set[str], depth: int) -> None:
    """Add the names and attribute names an expression encoding mentions to ``out``."""
    if depth > 12 or type(enc) is not tuple or not enc:
        return
    tag = enc[0]
    if tag == "n" and len(enc) > 1:
        out.add(enc[1])
    elif tag == "a" and len(enc) > 2:
        out.add(enc[2])
    for part in enc[1:]:
        if type(part) is tuple:
            enc_names(part, out, depth + 1)


_SCOPE_FIELDS = tuple(f.name for f in fields(Scope))


def _make_scope(*values: Any) -> Scope:
    return Scope(*values)


# parameter kinds
P_POSONLY, P_POS, P_VARARG, P_KWONLY, P_VARKW = 0, 1, 2, 3, 4


@dataclass(slots=True)
class PyFileFacts:
    """Everything one file contributes, independent of every other file."""

    path: str
    module: str
    is_test: bool
    is_package: bool
    is_conftest: bool
    # node rows: (id, kind, qualname, start, end, signature, decorators, parent, ids, strs,
    # imports, scope index or -1) — plain tuples pickle fast; see :func:`make_node`
    nodes: tuple[tuple[Any, ...], ...]
    scopes: tuple[Scope, ...]
    # import statements: (scope, line, module, name | None, alias | None)
    imports: tuple[tuple[int, int, str, str | None, str | None], ...] = ()
    stars: tuple[tuple[str, int], ...] = ()  # module-level `from m import *`
    all_spec: tuple[Any, ...] | None = None  # __all__: str names and ("ref", enc) parts
    mod_imports: tuple[str, ...] = ()
    usefixtures: tuple[str, ...] = ()  # module pytestmark usefixtures
    param_ids: tuple[str, ...] | None = ()  # module pytestmark parametrize ids
    parametrized: bool = False
    bad_relative: tuple[tuple[int, int, str], ...] = ()  # (scope, line, text)
    plugins: tuple[str, ...] = ()  # pytest_plugins = [...] (conftest / test module)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_facts, tuple(getattr(self, f) for f in _FACTS_FIELDS))


_FACTS_FIELDS = tuple(f.name for f in fields(PyFileFacts))


def _make_facts(*values: Any) -> PyFileFacts:
    return PyFileFacts(*values)


_KINDS = {k.value: k for k in NodeKind}


def make_node(row: tuple[Any, ...], path: str, params: tuple[str, ...] = ()) -> Node:
    return Node(
        id=row[0], kind=_KINDS[row[1]], qualname=row[2], file=path, start_line=row[3],
        end_line=row[4], signature=row[5], decorators=row[6], parent=row[7], ids=row[8],
        strs=row[9], imports=row[10], params=params)
