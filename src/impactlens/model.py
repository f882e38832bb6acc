"""Value objects that cross stage boundaries.

Graph records (`Node`, `Edge`, `UnresolvedSite`) are what the index writes and
every query reads. Edge direction is uniform: ``src`` *uses* ``dst`` (the caller
calls the callee, the importer imports the module, the subclass inherits the
base, the overriding method overrides the base method, the test exercises the
unit). Impact walks therefore go *against* edges (reverse / upstream).
"""

from __future__ import annotations

from collections.abc import Iterable
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
    MODULE_GETATTR = "module-getattr"  # a name only a module-level __getattr__ serves
    CONFIG = "config"  # a dotted path in the configuration the repository ships
    DOTTED_PATH = "dotted-path"  # a string in code naming it by dotted path ("pkg.mod:f")
    UNKNOWN_RECEIVER = "unknown-receiver"  # attribute call on a value of unknown type
    UNKNOWN_NAME = "unknown-name"  # name not bound anywhere visible
    EXTERNAL = "external"  # resolves outside the repository (stdlib/third party)


_UNRESOLVED_WORDS = {
    UnresolvedReason.DYNAMIC_GETATTR: "getattr with a computed name",
    UnresolvedReason.REGISTRY_DISPATCH: "call through a registry",
    UnresolvedReason.IMPORTLIB: "import of a computed module",
    UnresolvedReason.EVAL: "eval/exec",
    UnresolvedReason.GLOBALS: "lookup in globals()",
    UnresolvedReason.MODULE_GETATTR: "name served by a module __getattr__",
    UnresolvedReason.CONFIG: "named in configuration",
    UnresolvedReason.DOTTED_PATH: "a string naming it by dotted path",
    UnresolvedReason.UNKNOWN_RECEIVER: "call on a value of unknown type",
    UnresolvedReason.UNKNOWN_NAME: "name bound nowhere visible",
    UnresolvedReason.EXTERNAL: "call outside the repository",
}


def unresolved_words(reason: str) -> str:
    """Why a site cannot be followed, in words (``reason`` as stored)."""
    return _UNRESOLVED_WORDS.get(reason, reason)  # type: ignore[call-overload]


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

    @property
    def is_lambda(self) -> bool:
        """A ``lambda`` expression (``mod.f.<lambda1>``): a function node, but never the
        definition a source line belongs to (that is the ``def`` around it)."""
        return self.qualname.endswith(">") and "<lambda" in self.qualname


@dataclass(frozen=True, slots=True)
class MissingName:
    """A name the edit needs from another definition of the repository that does not
    have it: ``from owner import name`` newly written at ``file:line`` (``owner`` a
    module), or an attribute read or method call ``x.name`` the edit writes where ``x``
    is that module or an instance of the class ``owner`` (``member``)."""

    file: str
    line: int
    owner: str
    name: str
    member: bool = False


@dataclass(frozen=True, slots=True)
class Unexported:
    """A public name the edit adds to ``module`` that its package's ``__init__.py``
    (``package``, at ``init_file``) does not import, while it imports ``siblings`` from
    that module by name: the package may mean to re-export it too."""

    module: str
    name: str
    package: str
    init_file: str
    siblings: tuple[str, ...]


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
    status: str  # ok | syntax-error | decode-error | too-large | unreadable | skipped
    error: str = ""
    is_test: bool = False
    partial: bool = False  # did not parse whole, but what the parser recovered is indexed


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
    # (path, why) of what the run left out of the index altogether: names that are not
    # UTF-8, directories symlinked to outside the repository
    skipped: tuple[tuple[str, str], ...] = ()
    # what the mined git history holds (commits, pending, shallow, by_path_only,
    # without_definitions); None when history was not mined
    history: dict[str, object] | None = None

    def as_json(self) -> dict[str, object]:
        """The summary as the `index --json` / MCP `reindex` object (notes not included)."""
        out: dict[str, object] = {
            "files": self.files, "parsed": self.parsed, "symbols": self.symbols,
            "edges": self.edges, "unresolved": self.unresolved,
            "parse_failures": self.parse_failures, "seconds": round(self.seconds, 3),
            "full": self.full, "failures": [list(f) for f in self.failures],
            "skipped": [list(s) for s in self.skipped],
        }
        if self.history is not None:
            out["history"] = dict(self.history)
        return out


class GraphView(Protocol):
    """Read-only graph queries every stage uses; the store implements it."""

    def node(self, node_id: str) -> Node | None: ...

    def nodes_in_file(self, path: str) -> list[Node]: ...

    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]: ...

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]: ...

    def unresolved_sites(self) -> list[UnresolvedSite]: ...


class IndexGraph(GraphView, Protocol):
    """The graph queries beyond :class:`GraphView` that the index answers from its tables
    (the store, and every view over it)."""

    def unresolved_sites_where(
        self, *, reasons: Iterable[str] = (), words: Iterable[str] = (),
        files: Iterable[str] = (), external: bool = True,
    ) -> list[UnresolvedSite]:
        """Sites with one of ``reasons``, in one of ``files``, or whose text or names
        mention one of ``words``; ``external=False`` leaves out sites resolving outside."""
        ...

    def unresolved_in_file(self, path: str) -> list[UnresolvedSite]: ...

    def dependents_of_modules(self, modules: Iterable[str]) -> set[str]:
        """Files whose resolution consulted any of ``modules`` (dotted names, or ``/path``)."""
        ...


class SourceTree(Protocol):
    """The files of a tree as texts: what a stage reads beyond the edit, handed to it (the
    work tree: :class:`impactlens.index.worktree.WorkTree`)."""

    def text_files(self) -> Iterable[str]:
        """Every file of the tree (repository-relative POSIX paths)."""
        ...

    def text(self, path: str) -> str | None:
        """``path``'s text when it is a readable text file of code size, else ``None``."""
        ...


# ---------------------------------------------------------------------------
# Change-stage records (§3 of the impact spec) live below this line.
# ---------------------------------------------------------------------------


class ChangeType(StrEnum):
    """§3.1 atomic change types, in precedence-ladder order."""

    DELETE = "delete"
    ADD = "add"
    CLASS_DECL = "class-decl"
    CONSTRUCTOR = "constructor"
    METHOD_SIGNATURE = "method-signature"
    METHOD_BODY = "method-body"
    IMPORT = "import"
    FIELD = "field"


class Relation(StrEnum):
    """§3.2 CodePlan relations (traversed in the reverse, dependent-ward direction)."""

    CALLED_BY = "CalledBy"
    CALLERS = "Callers"  # method-body, escape-gated
    OVERRIDES = "Overrides"
    OVERRIDDEN_BY = "OverriddenBy"
    USED_BY = "UsedBy"
    CONSTRUCTED_BY = "ConstructedBy"
    SUBCLASS_OF = "SubclassOf"
    SUPERCLASS_OF = "SuperclassOf"
    INSTANTIATED_BY = "InstantiatedBy"
    IMPORTED_BY = "ImportedBy"


class Bucket(StrEnum):
    MUST = "must_inspect"
    MAY = "may_impact"
    LOW = "low_risk"


@dataclass(frozen=True, slots=True)
class FileChange:
    """One touched file: ``before`` is None for an added file, ``after`` None for a deleted one."""

    path: str
    before: str | None
    after: str | None
    # why a version's bytes are not source text (a binary file, not UTF-8): the file is
    # left out of the analysis, said why; its missing text reads as ""
    unreadable: str = ""


@dataclass(frozen=True, slots=True)
class NotAnalyzed:
    """An edited file left out of the analysis, as the indexer leaves such a file out of
    the index: over the size cap, a syntax error, nesting too deep to parse, bytes that are
    not source text. ``line``: where the parser stopped (0: nowhere in particular)."""

    file: str
    line: int
    why: str

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "why": self.why}


@dataclass(frozen=True, slots=True)
class Params:
    """A parameter list, enough to bind a call site against it (§3.7 binding check)."""

    posonly: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    n_defaults: int = 0  # defaults of the last n of posonly + args
    vararg: str | None = None
    kwonly: tuple[str, ...] = ()
    kwonly_required: tuple[str, ...] = ()
    kwarg: str | None = None
    binding: str = "function"  # function | method | staticmethod | classmethod
    # object-destructured parameters bound by property name (TypeScript): (argument index,
    # required property names, known names — () when any name is accepted)
    props: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = ()

    @property
    def positional(self) -> tuple[str, ...]:
        return self.posonly + self.args


@dataclass(frozen=True, slots=True)
class BodyDelta:
    """A function's before/after source (dedented, 1-based lines) and its changed lines."""

    before_src: str | None
    after_src: str | None
    before_lines: frozenset[int]
    after_lines: frozenset[int]
    before_start: int = 1  # the file line of before_src's first line


@dataclass(frozen=True, slots=True)
class AtomicChange:
    """§3.1: one classified change. ``line_range`` is in after-file lines (before-file for
    ``delete``)."""

    change_type: ChangeType
    entity: str
    file: str
    line_range: tuple[int, int]
    before_sig: str = ""
    after_sig: str = ""
    kind: str = ""  # class | function | method | import | field | module | statement
    what: str = ""  # what changed, for cause labels ("added param mfa_code")
    before_params: Params | None = None
    after_params: Params | None = None  # new parameter list (new __init__ for classes)
    body: BodyDelta | None = None  # method-body changes of a def: input of the escape gate
    folded: int = 0  # changes folded into this one by the 64-change cap

    def to_json(self) -> dict[str, object]:
        return {
            "change_type": self.change_type.value,
            "entity": self.entity,
            "file": self.file,
            "line_range": list(self.line_range),
            "before_sig": self.before_sig,
            "after_sig": self.after_sig,
        }

    def seed_json(self) -> dict[str, object]:
        return {
            "change_type": self.change_type.value,
            "entity": self.entity,
            "file": self.file,
            "line_range": list(self.line_range),
        }


@dataclass(frozen=True, slots=True)
class RelationSet:
    """§3.2: the relations one atomic change may traverse (built only by
    :func:`impactlens.impact.relations.select_relations`)."""

    change_type: ChangeType
    relations: tuple[Relation, ...]
    gated: bool = False  # method-body change whose escape gate said "no escape"
    gate_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WalkMember:
    """§3.3: one reached node. ``edges`` are the graph edges that admitted it (from the
    previous BFS level); ``parents`` the nodes at ``distance - 1`` it was reached from."""

    entity: str
    file: str
    distance: int
    admitting_relations: tuple[Relation, ...]
    parents: tuple[str, ...] = ()
    edges: tuple[Edge, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "entity": self.entity,
            "file": self.file,
            "distance": self.distance,
            "admitting_relations": [r.value for r in self.admitting_relations],
        }


@dataclass(frozen=True, slots=True)
class WalkResult:
    seed: str
    relations: RelationSet
    members: tuple[WalkMember, ...]
    truncated: bool = False
    omitted: int = 0
    tests: tuple[tuple[str, str], ...] = ()  # (test id, reached node it TESTS), sorted


@dataclass(frozen=True, slots=True)
class TestImpact:
    """§3.5: one affected test. ``via`` = the impacted entity the admitting path starts at,
    ``relation`` = the weakest edge type on that path (TESTS for a direct test)."""

    __test__ = False  # not a pytest class

    file: str  # the changed file
    test_id: str
    conf: float
    via: str
    relation: str


@dataclass(frozen=True, slots=True)
class RankedMember:
    """§3.6: a candidate with its evidence. ``hard`` = admitted by a hard edge (a member)."""

    entity: str
    file: str
    distance: int  # walk distance; 0 for candidates not reached by the walk
    admitting: tuple[str, ...]
    lex: float
    co_change_score: float
    test_confidence: float
    hard: bool

    def to_json(self) -> dict[str, object]:
        return {"entity": self.entity, "distance": self.distance,
                "admitting": list(self.admitting), "lex": self.lex,
                "co_change_score": self.co_change_score,
                "test_confidence": self.test_confidence, "member": self.hard}


def is_test_id(entity: str, file: str) -> bool:
    """A test (pytest node id), or a definition in a test file (fixtures, test modules)."""
    if "::" in entity:
        return True
    name = file.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


@dataclass(frozen=True, slots=True)
class TriageEntry:
    entity: str
    file: str
    conf: float
    reason: str
    bucket: Bucket
    distance: int = 0
    hard: bool = True
    # task-text and edit-text relevance of the entry's file (impact/taskrel.py): they
    # order entries within a bucket beside ``conf``; 0 when the text names nothing of it
    relevance: float = 0.0
    edit_relevance: float = 0.0
    # identifiers the edit removed the last mention of that the entry's file mentions
    # (impact/retired.py)
    retired: tuple[str, ...] = ()
    # the entry's file is the only library file calling a changed function (its name)
    sole_caller_of: str = ""
    # identifiers the task text names as code that the entry defines (impact/tasknamed.py)
    task_named: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"entity": self.entity, "file": self.file, "conf": self.conf,
                                  "reason": self.reason}
        if self.relevance:
            out["task_relevance"] = self.relevance
        if self.edit_relevance:
            out["edit_relevance"] = self.edit_relevance
        if self.retired:
            out["retired"] = list(self.retired)
        if self.sole_caller_of:
            out["sole_caller_of"] = self.sole_caller_of
        if self.task_named:
            out["task_named"] = list(self.task_named)
        return out


@dataclass(frozen=True, slots=True)
class Triage:
    must_inspect: tuple[TriageEntry, ...] = ()
    may_impact: tuple[TriageEntry, ...] = ()
    low_risk: tuple[TriageEntry, ...] = ()

    def entries(self) -> tuple[TriageEntry, ...]:
        return self.must_inspect + self.may_impact + self.low_risk

    def to_json(self) -> dict[str, object]:
        return {
            "must_inspect": [e.to_json() for e in self.must_inspect],
            "may_impact": [e.to_json() for e in self.may_impact],
            "low_risk": [e.to_json() for e in self.low_risk],
        }


@dataclass(frozen=True, slots=True)
class Batch:
    batch_id: int
    members: tuple[str, ...]
    split: bool = False

    @property
    def size(self) -> int:
        return len(self.members)

    def to_json(self) -> dict[str, object]:
        return {"batch_id": self.batch_id, "members": list(self.members), "size": self.size,
                "split": self.split}


@dataclass(frozen=True, slots=True)
class DagNode:
    entity: str
    kind: str
    file: str
    line: int
    signature: str
    batch_id: int | None

    def to_json(self) -> dict[str, object]:
        return {"entity": self.entity, "kind": self.kind, "file": self.file, "line": self.line,
                "signature": self.signature, "batch_id": self.batch_id}


@dataclass(frozen=True, slots=True)
class DagEdge:
    src: str
    dst: str
    cause: str  # the fixed form programs parse
    why: str = ""  # the same cause in words

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"from": self.src, "to": self.dst, "cause": self.cause}
        if self.why:
            out["why"] = self.why
        return out


@dataclass(frozen=True, slots=True)
class ImpactDag:
    nodes: tuple[DagNode, ...]
    edges: tuple[DagEdge, ...]
    truncated: bool = False
    omitted_nodes: int = 0
    omitted_edges: int = 0
    tokens: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "nodes": [n.to_json() for n in self.nodes],
            "edges": [e.to_json() for e in self.edges],
            "truncated": self.truncated,
            "omitted_nodes": self.omitted_nodes,
            "omitted_edges": self.omitted_edges,
        }


@dataclass(frozen=True, slots=True)
class UnanalyzableHit:
    """An un-analyzable site that may reach a changed entity (hidden channel)."""

    file: str
    line: int
    scope: str
    reason: str
    text: str
    affects: str

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "scope": self.scope,
                "reason": self.reason, "text": self.text, "affects": self.affects}


@dataclass(frozen=True, slots=True)
class ChangeImpact:
    """Everything computed for one atomic change (before the composite union)."""

    change: AtomicChange
    walk: WalkResult
    entries: tuple[TriageEntry, ...]  # this change's triage (all buckets)
    ranked: tuple[RankedMember, ...] = ()  # §3.6 ranked members (and soft-only candidates)

    def to_json(self) -> dict[str, object]:
        rel = self.walk.relations
        return {
            "entity": self.change.entity,
            "change_type": self.change.change_type.value,
            "relations": [r.value for r in rel.relations],
            "escape": {"gated": rel.gated, "reasons": list(rel.gate_reasons)},
            "impact_set": [m.to_json() for m in self.walk.members],
            "truncated": self.walk.truncated,
            "omitted": self.walk.omitted,
            "obligations": sorted(e.entity for e in self.entries
                                  if e.bucket is not Bucket.LOW),
            "ranked_members": [r.to_json() for r in self.ranked],
        }


@dataclass(frozen=True, slots=True)
class ImpactResult:
    """The composite impact of one proposed edit (§3.1–§3.9)."""

    changes: tuple[AtomicChange, ...]
    per_change: tuple[ChangeImpact, ...]
    test_map: tuple[TestImpact, ...]
    triage: Triage
    batches: tuple[Batch, ...]
    dag: ImpactDag
    validate: tuple[str, ...]
    co_change: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    co_change_note: str = ""
    unanalyzable: tuple[UnanalyzableHit, ...] = ()
    omitted_batches: int = 0
    tests_note: str = ""  # how a recorded test run shaped the validation set, if one did
    not_analyzed: tuple[NotAnalyzed, ...] = ()  # edited files that could not be read

    def changes_json(self) -> dict[str, object]:
        """The §3.1 object."""
        return {"changes": [c.to_json() for c in self.changes]}

    def impact_json(self) -> dict[str, object]:
        """The §3.9 schema plus triage, batches, co-change, un-analyzable sites, test map."""
        return {
            "seed": self.changes[0].seed_json() if self.changes else None,
            "changes": [c.to_json() for c in self.changes],
            "obligations": {
                "change": [{"batch_id": b.batch_id, "members": list(b.members)}
                           for b in self.batches],
                "validate": list(self.validate),
            },
            "dag": self.dag.to_json(),
            "triage": self.triage.to_json(),
            "batches": [b.to_json() for b in self.batches],
            "omitted_batches": self.omitted_batches,
            "co_change": {
                "note": self.co_change_note,
                "candidates": {
                    f: [{"file": g, "co_change_score": s} for g, s in cands]
                    for f, cands in self.co_change
                },
            },
            "unanalyzable": [u.to_json() for u in self.unanalyzable],
            "not_analyzed": [n.to_json() for n in self.not_analyzed],
            "test_map": [{"file": t.file, "test_id": t.test_id, "conf": t.conf,
                          "via": t.via, "relation": t.relation} for t in self.test_map],
            "tests_note": self.tests_note,
            "impact_sets": [p.to_json() for p in self.per_change],
        }

    def test_map_text(self) -> str:
        """``test_map.txt``: one ``file test_id conf`` line per pair (§3.5)."""
        return "".join(f"{t.file} {t.test_id} {t.conf!r}\n" for t in self.test_map)


# ------------------------------------------------------------------ direction
# One meaning everywhere: "dependents" = what depends on X (callers, importers,
# subclasses; for a line, the statements it affects); "dependencies" = what X depends on.
DEPENDENTS, DEPENDENCIES = "dependents", "dependencies"
DIRECTIONS = (DEPENDENTS, DEPENDENCIES)
# the deprecated words, whose sense differed by surface: `impact` said upstream for what
# depends on X, `slice` said downstream for it; forward/backward were the MCP slice's
_OLD_WORDS = {
    "impact": {"upstream": DEPENDENTS, "downstream": DEPENDENCIES},
    "slice": {"downstream": DEPENDENTS, "upstream": DEPENDENCIES},
}
_SLICE_WORDS = {"forward": DEPENDENTS, "backward": DEPENDENCIES}
OLD_DIRECTION_WORDS = ("upstream", "downstream", "forward", "backward")


def normalise_direction(word: str, old_meaning: str = "impact") -> str:
    """``dependents`` or ``dependencies`` for ``word``: one of those, or a deprecated
    word read as the surface ``old_meaning`` (``"impact"`` or ``"slice"``) meant it.
    Raises ``ValueError`` on anything else."""
    if word in DIRECTIONS:
        return word
    new = _OLD_WORDS[old_meaning].get(word) or _SLICE_WORDS.get(word)
    if new is None:
        raise ValueError(f"direction must be {DEPENDENTS} or {DEPENDENCIES}, not {word!r}")
    return new
