"""The resolver's abstract values and locations: one named tuple type per kind.

Each type is a ``NamedTuple`` whose first field is its one-letter ``tag``, so a value
is equal to, hashes like and pickles like the plain tuple ``(tag, *fields)`` (code
outside the resolver still reads ``v[0] == "F"``); inside it, code reads ``v.module``
and tests ``type(v) is Function``. Every value is built by its type (never as a plain
tuple), which is what makes the ``type(v) is`` tests exact.

A *class key* (``ClassKey``) is ``(module, scope index)`` of a repository class or
function; ``recv`` fields hold the class key of the receiver a method runs for.

Locations (``Variable``, ``Field``, ``Property``) are what a name or attribute denotes
before its stored values are read (``Evaluator.deref``); they are also the targets of
``use`` edges.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from impactlens.index.python.facts import Enc

ClassKey = tuple[str, int]  # (module, scope index) of a class (or function) scope
# a container variable whose later ``x[k] = v`` / ``x.append(v)`` add entries:
# (module, scope index, variable name)
Mutation = tuple[str, int, str]


class Module(NamedTuple):
    """A repository module (or a namespace package)."""

    tag: Literal["M"]
    module: str


class Class(NamedTuple):
    """A class object."""

    tag: Literal["C"]
    module: str
    scope: int


class Instance(NamedTuple):
    """An instance of a repository class."""

    tag: Literal["I"]
    module: str
    scope: int


class Function(NamedTuple):
    """A function; ``bound``: the receiver supplies self/cls; ``recv``: the receiver's
    class, or None."""

    tag: Literal["F"]
    module: str
    scope: int
    bound: bool
    recv: ClassKey | None


class CopiedMethod(NamedTuple):
    """A method a framework's class factory copied onto another class as a generated
    wrapper (frameworks.py): calling it runs the function ``wrapper``, which runs method
    ``(module, scope)`` on a fresh instance of its class ``recv``."""

    tag: Literal["CM"]
    module: str
    scope: int
    recv: ClassKey
    wrapper: ClassKey | None


class External(NamedTuple):
    """Something outside the repository, by its dotted name."""

    tag: Literal["X"]
    dotted: str


class ExternalValue(NamedTuple):
    """A value produced by code outside the repository; ``dotted``: its class when known
    (``queue.Queue()``, a parameter annotated ``pathlib.Path``), else ""."""

    tag: Literal["XI"]
    dotted: str = ""


class ExternalMember(NamedTuple):
    """An attribute of an instance of an external class (``q.put`` of a ``queue.Queue``),
    by the dotted name of its class and its own: calling it is a call of that external
    callee; what it returns, and its own attributes, are unknown external values."""

    tag: Literal["XM"]
    dotted: str


class Builtin(NamedTuple):
    """A builtin name (``len``, ``object``)."""

    tag: Literal["B"]
    name: str


class BuiltinInstance(NamedTuple):
    """An instance of a builtin type (``str``, ``int``...)."""

    tag: Literal["K"]
    typename: str


class BuiltinMember(NamedTuple):
    """A method of a builtin-type value (``", ".join``, ``d.get``), named as PyCG names it
    (``<**PyStr**>.join``); ``recv``: the value it is read on (what it returns may depend
    on it: a dict display's ``values()``)."""

    tag: Literal["BM"]
    pseudo: str
    recv: Any


class NoneValue(NamedTuple):
    """``None``."""

    tag: Literal["N"]


class SeqDisplay(NamedTuple):
    """A list/tuple/set display or comprehension, its elements evaluated lazily in
    ``scope`` of ``module``; ``mutation``: the variable it is stored in, when later
    stores add entries."""

    tag: Literal["SL"]
    module: str
    scope: int
    elems: tuple[Enc, ...]
    recv: ClassKey | None
    mutation: Mutation | None
    kind: str = "list"  # list, tuple, set or gen (a comprehension's generator)


class DictDisplay(NamedTuple):
    """A dict display (``enc`` is its ``("dl", keys, values)`` encoding)."""

    tag: Literal["DL"]
    module: str
    scope: int
    enc: Enc
    recv: ClassKey | None
    mutation: Mutation | None


class Sequence(NamedTuple):
    """An iterable of ``items`` (from a builtin such as ``sorted``, or an annotation)."""

    tag: Literal["SEQ"]
    items: tuple[Any, ...]


class FixedTuple(NamedTuple):
    """``tuple[A, B]``: per position, the values there."""

    tag: Literal["TUP"]
    parts: tuple[tuple[Any, ...], ...]


class Mapping(NamedTuple):
    """``dict[K, V]``: the key values and the item values."""

    tag: Literal["MAP"]
    keys: tuple[Any, ...]
    values: tuple[Any, ...]


class Generator(NamedTuple):
    """The generator a call of generator function ``scope`` returns."""

    tag: Literal["GEN"]
    module: str
    scope: int
    recv: ClassKey | None


class Globals(NamedTuple):
    """``globals()``."""

    tag: Literal["G"]


class Super(NamedTuple):
    """``super()`` inside class ``scope``, for receiver class ``recv`` (or None)."""

    tag: Literal["SUP"]
    module: str
    scope: int
    recv: ClassKey | None


class PropertyObject(NamedTuple):
    """``property(fget, fset)`` in a class body (``enc`` its ``("prop", ...)``)."""

    tag: Literal["PROPOBJ"]
    module: str
    scope: int
    enc: Enc


class TypeAlias(NamedTuple):
    """A type alias: its annotation alternatives, evaluated in ``scope``."""

    tag: Literal["ALIAS"]
    module: str
    scope: int
    alts: tuple[Enc, ...]


class Unknown(NamedTuple):
    """Unknown: ``reason`` "recv" (no type), "name" (bound nowhere) or "lazy" (served by a
    module-level ``__getattr__``)."""

    tag: Literal["U"]
    reason: str


class Variable(NamedTuple):
    """A module-level variable (a constant node), by its assignment bindings."""

    tag: Literal["V"]
    module: str
    name: str
    bindings: tuple[int, ...]


class Field(NamedTuple):
    """A class or instance attribute (a field node) of class ``scope``; ``recv``: the
    instance's class when read through an instance."""

    tag: Literal["FLD"]
    module: str
    scope: int
    name: str
    recv: ClassKey | None


class Property(NamedTuple):
    """A property read on an instance (reading calls the getter ``scope``); ``setter``:
    the class key of ``property(fget, fset)``'s fset, or None."""

    tag: Literal["P"]
    module: str
    scope: int
    recv: ClassKey | None
    setter: ClassKey | None


Val = Any  # one of the types above (kept open: the tuples travel through plain code)
Items = list[Val]

U_RECV = Unknown("U", "recv")
U_NAME = Unknown("U", "name")
U_LAZY = Unknown("U", "lazy")  # served by a module-level __getattr__ (PEP 562)
XI = ExternalValue("XI")
NONE_V = NoneValue("N")
GLOBALS = Globals("G")
EMPTY: tuple[Items, bool] = ([], False)

# kinds whose attributes are outside the repository (a builtin's or external value's)
OPAQUE = frozenset({ExternalValue, ExternalMember, BuiltinMember, BuiltinInstance,
                    SeqDisplay, Sequence, DictDisplay, Builtin, Generator, FixedTuple,
                    Mapping})
LOCATIONS = frozenset({Variable, Field, Property})
