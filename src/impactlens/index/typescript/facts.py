"""Per-file facts of a TypeScript/JavaScript file (and of the JSON configuration files
module resolution reads): picklable records, the result of one pass over the syntax tree.

An expression a resolver evaluates is a small tuple (``Ref``):
``("n", name)`` a name, ``("m", base, prop)`` a member of a value, ``("this",)``,
``("super",)``, ``("new", ref)`` a constructed instance, ``("call", ref)`` a call's result,
``("obj", ((key, ref), ...))`` / ``("arr", (ref, ...))`` an object or array literal of
functions, ``("elem", ref)`` an element of a collection,
``("?", why)`` something static analysis cannot follow (``why``: ``computed``, ``eval``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

_T = TypeVar("_T")


def _quick_state(cls: type[_T]) -> type[_T]:
    """Unpickle without the dataclass's generic state hook, which asks ``fields()`` for
    every object: a re-index unpickles the facts of each file the re-resolved ones read.
    The state is the same list of values, so stored facts stay readable."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    setter = object.__setattr__

    def __setstate__(self: Any, state: Any) -> None:
        for name, value in zip(names, state, strict=True):
            setter(self, name, value)

    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
    return cls

Ref = tuple[Any, ...]

# Def.kind values
FUNCTION = "function"
CLASS = "class"
METHOD = "method"
FIELD = "field"
INTERFACE = "interface"
TYPE = "type"
ENUM = "enum"
NAMESPACE = "namespace"
VARIABLE = "variable"


@_quick_state
@dataclass(frozen=True, slots=True)
class Param:
    name: str  # the binding's text ("{a, b}" for a destructured one)
    optional: bool = False  # `?` or a default value
    rest: bool = False
    type: str = ""  # the annotation's text, "" when none
    prop: bool = False  # a constructor parameter property (`private g: Gateway`)
    keys: tuple[str, ...] = ()  # property names of an object-destructured parameter
    # an inline object type's properties (name, optional); ("*", True): any other name too
    # (an index signature)
    props: tuple[tuple[str, bool], ...] = ()


@_quick_state
@dataclass(frozen=True, slots=True)
class Def:
    """A definition: ``qual`` is its dotted name inside the module (``C.m``)."""

    qual: str
    kind: str
    line: int
    end: int
    signature: str = ""
    params: tuple[Param, ...] | None = None  # functions, methods, constructors
    parent: str = ""  # enclosing definition's qual ("" = the module)
    exported: bool = False
    extends: tuple[Ref, ...] = ()  # classes: `extends`; interfaces: their bases
    implements: tuple[Ref, ...] = ()
    # get | set | static | abstract (a method without a body, an abstract class); "param":
    # a constructor parameter property; "overload": a signature declared without a body
    # (an overload, or an ambient declaration)
    accessor: str = ""
    type: str = ""  # fields and variables: the declared or constructed type's text
    value: Ref | None = None  # variables: what they are bound to (a name, `new C()`)
    returns: str = ""  # functions and methods: the return annotation's class-like name


@_quick_state
@dataclass(frozen=True, slots=True)
class Import:
    local: str  # the name bound in this file ("" for a side-effect import)
    spec: str  # the module specifier as written
    name: str  # the exported name, "default", or "*" (the namespace / `require`)
    line: int
    kind: str = "es"  # es | cjs | dynamic | side | type


@_quick_state
@dataclass(frozen=True, slots=True)
class ReExport:
    exported: str  # the name under which this file exports it ("*" for `export *`)
    spec: str
    name: str  # the name in the other module ("*": its namespace)
    line: int


@_quick_state
@dataclass(frozen=True, slots=True)
class Site:
    """A call (``kind`` call/new/jsx), a function passed as a value (``ref``) or a property
    read or written (``get``: runs an accessor)."""

    scope: str  # qual of the enclosing definition ("" = module, a test's id for tests)
    line: int
    kind: str
    target: Ref
    nargs: int = 0
    spread: bool = False
    text: str = ""
    callee: Ref | None = None  # a `ref` passed as an argument: the call it is passed to
    # (argument index, its keys) of each object literal passed (without a spread)
    keys: tuple[tuple[int, tuple[str, ...]], ...] = ()


@_quick_state
@dataclass(frozen=True, slots=True)
class Test:
    """A Jest/Vitest/Mocha test: ``path`` is the describe titles then its own."""

    path: tuple[str, ...]
    line: int
    end: int
    hooks: tuple[str, ...] = ()  # scopes of the beforeEach/beforeAll hooks around it


@_quick_state
@dataclass(frozen=True, slots=True)
class TsFacts:
    path: str
    module: str
    is_test: bool
    defs: tuple[Def, ...] = ()
    imports: tuple[Import, ...] = ()
    exports: tuple[tuple[str, str], ...] = ()  # (exported name, local qual)
    reexports: tuple[ReExport, ...] = ()
    sites: tuple[Site, ...] = ()
    locals: tuple[tuple[str, str, str], ...] = ()  # (scope, name, type text) typed locals
    tests: tuple[Test, ...] = ()
    # (scope, name, ("elem", ref)): a local bound to an element of a collection (a
    # `for … of` variable, a `forEach` callback's parameter)
    aliases: tuple[tuple[str, str, Ref], ...] = ()
    added: tuple[tuple[str, Ref], ...] = ()  # (module-level name, ref) of `name.push(ref)`
    lines: int = 0
    errors: tuple[int, ...] = ()  # lines of syntax errors the parser recovered from

    def index_names(self) -> tuple[tuple[str, str, str], ...]:
        """(``extends``, last name of each class's ``extends``/``implements`` reference, the
        class's qual): the index keeps them so which classes extend or implement a name is
        one indexed query, not a read of every file."""
        return tuple(sorted({("extends", r[-1], d.qual) for d in self.defs if d.kind == CLASS
                             for r in (*d.implements, *d.extends)
                             if r and r[0] in ("n", "m")}))

    def heritage(self) -> tuple[tuple[str, tuple[Ref, ...], tuple[Ref, ...]], ...]:
        """Each class's ``extends`` and ``implements`` (what a question about every file,
        which classes implement an interface, reads of each)."""
        return tuple((d.qual, d.extends, d.implements) for d in self.defs if d.kind == CLASS)


@_quick_state
@dataclass(frozen=True, slots=True)
class ConfigFacts:
    """What module resolution reads of a ``tsconfig.json``/``jsconfig.json`` (``base_url``,
    ``paths``, ``extends``) or a ``package.json`` (``name``, entry points, workspaces)."""

    path: str
    module: str
    is_test: bool = False
    name: str = ""
    base_url: str | None = None
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extends: tuple[str, ...] = ()
    entries: tuple[str, ...] = ()  # package.json: exports "." / module / main / types
    workspaces: tuple[str, ...] = ()

    def index_names(self) -> tuple[tuple[str, str, str], ...]:
        """A package.json's (``package``, its name, ""): a workspace package is found by the
        name it declares, wherever its directory is and whatever it is called."""
        if self.path.rpartition("/")[2] != "package.json" or not self.name:
            return ()
        return (("package", self.name, ""),)
