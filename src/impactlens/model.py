"""Value objects that cross stage boundaries.

Graph records (`Node`, `Edge`, `UnresolvedSite`) are what the index writes and
every query reads. Edge direction is uniform: ``src`` *uses* ``dst`` (the caller
calls the callee, the importer imports the module, the subclass inherits the
base, the overriding method overrides the base method, the test exercises the
unit). Impact walks therefore go *against* edges (reverse / upstream).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class NodeKind(StrEnum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    TEST = "test"
    FIELD = "field"  # class attribute or instance attribute (self.x)
    CONSTANT = "constant"  # module-level binding


class EdgeKind(StrEnum):
    CALL = "call"  # src calls dst (functions, methods, property getters)
    IMPORT = "import"  # src (module or function) imports dst (module or symbol)
    INHERIT = "inherit"  # src class derives from dst class
    OVERRIDE = "override"  # src method overrides dst method
    INSTANTIATE = "instantiate"  # src constructs an instance of class dst
    USE = "use"  # src reads/writes field or constant dst (class-member use)
    CONTAINS = "contains"  # src module/class contains dst definition
    TESTS = "tests"  # test src exercises unit dst (directly or through fixtures)


class Resolution(StrEnum):
    EXACT = "exact"  # the only possible target, proven from the source
    INFERRED = "inferred"  # target from an inferred receiver type
    AMBIGUOUS = "ambiguous"  # one of several candidates, each recorded


class UnresolvedReason(StrEnum):
    DYNAMIC_GETATTR = "dynamic-getattr"  # getattr/setattr/hasattr with a non-literal name
    REGISTRY_DISPATCH = "registry-dispatch"  # call through a dict/list subscript of callables
    IMPORTLIB = "importlib"  # importlib.import_module / __import__ with a non-literal
    EVAL = "eval"  # eval / exec / compile
    GLOBALS = "globals"  # globals()[...] / locals()[...] / vars()[...]
    UNKNOWN_RECEIVER = "unknown-receiver"  # attribute call on a value of unknown type
    UNKNOWN_NAME = "unknown-name"  # name not bound anywhere visible
    EXTERNAL = "external"  # resolves outside the repository (stdlib/third party)


@dataclass(frozen=True, slots=True)
class Node:
    """A definition: module, class, function, method, test, field or constant.

    ``id`` is the dotted qualname from the import root for code, and the pytest
    node id (``tests/test_x.py::TestX::test_y``) for tests.
    """

    id: str
    kind: NodeKind
    qualname: str
    file: str
    start_line: int
    end_line: int
    signature: str = ""
    decorators: tuple[str, ...] = ()
    parent: str | None = None
    ids: tuple[str, ...] = ()  # identifier tokens (qualname, signature, class name)
    strs: tuple[str, ...] = ()  # string-literal tokens in the definition
    imports: tuple[str, ...] = ()  # modules imported by the enclosing module/function
    params: tuple[str, ...] = ()  # parametrized test ids, e.g. ("1-2", "x")


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    dst: str
    kind: EdgeKind
    file: str  # file of the reference site (the file whose resolution produced it)
    line: int
    resolution: Resolution = Resolution.EXACT
    # Site detail as compact JSON. CALL/INSTANTIATE: {"args": positional count,
    # "kwargs": [names], "star": *args used, "dstar": **kw used, "bound": receiver
    # supplies self/cls}. IMPORT: {"name": imported name, "alias": local name}.
    # USE: {"access": "read"|"write"}. Empty when there is nothing to add.
    detail: str = ""


@dataclass(frozen=True, slots=True)
class UnresolvedSite:
    """A reference static analysis cannot follow: recorded, never guessed."""

    file: str
    line: int
    scope: str  # qualname of the enclosing definition
    reason: UnresolvedReason
    text: str  # the source expression, truncated
    names: tuple[str, ...] = ()  # names/strings the site mentions (for hidden-channel matching)


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    sha256: str
    language: str
    module: str
    size: int
    status: str  # ok | syntax-error | decode-error | too-large | unreadable
    error: str = ""
    is_test: bool = False


@dataclass(frozen=True, slots=True)
class FileResolution:
    """Everything the index stores for one file after resolution."""

    path: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    unresolved: tuple[UnresolvedSite, ...]


@dataclass(frozen=True, slots=True)
class IndexSummary:
    files: int
    parsed: int  # files (re)parsed in this run
    symbols: int
    edges: int
    unresolved: int
    parse_failures: int
    seconds: float
    full: bool
    failures: tuple[tuple[str, str], ...] = ()  # (path, error) of files that did not parse
    notes: tuple[str, ...] = field(default=())


class GraphView(Protocol):
    """Read-only graph queries every stage uses; the store implements it."""

    def node(self, node_id: str) -> Node | None: ...

    def nodes_in_file(self, path: str) -> list[Node]: ...

    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]: ...

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]: ...

    def unresolved_sites(self) -> list[UnresolvedSite]: ...


# ---------------------------------------------------------------------------
# Change-stage records (§3 of the impact spec) live below this line.
# ---------------------------------------------------------------------------
