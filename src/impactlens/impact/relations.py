"""§3.2 (b) relation-set selection: the fixed CodePlan table plus the escape gate.

Relations not in a change type's row are never traversed; :func:`step` is the only
place a relation is turned into graph edges (§3.3 step 1), always against the
dependency direction (``src`` uses ``dst``; dependents are found on in-edges).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from impactlens.model import (
    AtomicChange,
    ChangeType,
    Edge,
    EdgeKind,
    GraphView,
    NodeKind,
    Relation,
    RelationSet,
)

R = Relation
RELATION_TABLE: Mapping[ChangeType, tuple[Relation, ...]] = MappingProxyType({
    ChangeType.METHOD_SIGNATURE: (R.CALLED_BY, R.OVERRIDES, R.OVERRIDDEN_BY),
    ChangeType.METHOD_BODY: (R.CALLERS,),
    ChangeType.FIELD: (R.USED_BY, R.CONSTRUCTED_BY, R.SUBCLASS_OF),
    ChangeType.CLASS_DECL: (R.INSTANTIATED_BY, R.SUBCLASS_OF, R.SUPERCLASS_OF),
    ChangeType.CONSTRUCTOR: (R.INSTANTIATED_BY,),
    ChangeType.IMPORT: (R.IMPORTED_BY,),
    ChangeType.ADD: (),
    ChangeType.DELETE: (R.CALLED_BY, R.USED_BY, R.IMPORTED_BY, R.INSTANTIATED_BY,
                        R.OVERRIDES, R.OVERRIDDEN_BY),
})

CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__"})


def select_relations(change: AtomicChange) -> RelationSet:
    """The relation set of ``change`` (a table lookup; method-body is escape-gated)."""
    rels = RELATION_TABLE[change.change_type]
    if change.change_type is not ChangeType.METHOD_BODY:
        return RelationSet(change.change_type, rels)
    escapes, reasons = body_escapes(change)
    if escapes:
        return RelationSet(change.change_type, rels, gated=False, gate_reasons=reasons)
    return RelationSet(change.change_type, (), gated=True, gate_reasons=reasons)


def check_relation_set(rs: RelationSet) -> None:
    """Reject a relation set that is not (a subset of) its change type's table row."""
    allowed = RELATION_TABLE.get(rs.change_type)
    if allowed is None or not set(rs.relations) <= set(allowed):
        raise ValueError(
            f"relations {[r.value for r in rs.relations]} are not in the §3.2 row of "
            f"{rs.change_type!s}; a change-type-blind walk is not allowed"
        )


def body_escapes(change: AtomicChange) -> tuple[bool, tuple[str, ...]]:
    """The §3.2 escape gate (a)–(d) for a method-body change, via the PDG's def/use
    analysis. Anything it cannot decide propagates (the conservative answer)."""
    body = change.body
    if body is None:
        return True, (f"{change.kind}-level statement, not a function body: propagates",)
    try:
        from impactlens.pdg.escape import body_change_escapes
    except ImportError:
        return True, ("escape analysis unavailable: propagates",)
    try:
        verdict = body_change_escapes(body.before_src, body.after_src,
                                      body.before_lines, body.after_lines)
    except Exception as exc:  # the gate must never sink the analysis; fall back safely
        return True, (f"escape analysis failed ({type(exc).__name__}): propagates",)
    reasons = tuple(str(r) for r in verdict.reasons)
    if not verdict.escapes and not reasons:
        reasons = ("changed statements only touch local temporaries",)
    return bool(verdict.escapes), reasons


# --------------------------------------------------------------- traversal
class _Nodes:
    """Small memo over ``graph.node`` for kind/parent look-ups."""

    def __init__(self, graph: GraphView) -> None:
        self.graph = graph
        self._memo: dict[str, tuple[NodeKind | None, str | None]] = {}

    def info(self, node_id: str) -> tuple[NodeKind | None, str | None]:
        got = self._memo.get(node_id)
        if got is None:
            n = self.graph.node(node_id)
            got = (n.kind, n.parent) if n is not None else (None, None)
            self._memo[node_id] = got
        return got

    def is_class(self, node_id: str) -> bool:
        kind, _ = self.info(node_id)
        if kind is not None:
            return kind is NodeKind.CLASS
        leaf = node_id.rsplit(".", 1)[-1]
        return leaf[:1].isupper()

    def parent(self, node_id: str) -> str | None:
        _, parent = self.info(node_id)
        if parent:
            return parent
        return node_id.rsplit(".", 1)[0] if "." in node_id else None

    def owner_class(self, node_id: str) -> str | None:
        """The class a field/method belongs to, or the node itself when it is a class."""
        if self.is_class(node_id):
            return node_id
        kind, _ = self.info(node_id)
        if kind not in (None, NodeKind.FIELD):
            return None
        parent = self.parent(node_id)
        return parent if parent is not None and self.is_class(parent) else None


def step(nodes: _Nodes, node_id: str, rel: Relation) -> list[tuple[str, Edge]]:
    """Neighbours of ``node_id`` over one relation: ``(neighbour, admitting edge)``."""
    g = nodes.graph
    out: list[tuple[str, Edge]] = []

    def rev(target: str, *kinds: EdgeKind) -> None:
        out.extend((e.src, e) for e in g.in_edges(target, frozenset(kinds)))

    def fwd(target: str, *kinds: EdgeKind) -> None:
        out.extend((e.dst, e) for e in g.out_edges(target, frozenset(kinds)))

    def instantiated_by(x: str) -> None:
        leaf = x.rsplit(".", 1)[-1]
        if nodes.is_class(x):
            cls = x
        elif leaf in CONSTRUCTOR_NAMES and (p := nodes.parent(x)) is not None:
            cls = p
        else:
            return
        rev(cls, EdgeKind.INSTANTIATE, EdgeKind.CALL)
        for ctor in sorted(CONSTRUCTOR_NAMES):
            rev(f"{cls}.{ctor}", EdgeKind.CALL)

    if rel in (R.CALLED_BY, R.CALLERS):
        rev(node_id, EdgeKind.CALL)
        if rel is R.CALLERS and node_id.rsplit(".", 1)[-1] in CONSTRUCTOR_NAMES:
            instantiated_by(node_id)
    elif rel is R.OVERRIDES:
        fwd(node_id, EdgeKind.OVERRIDE)
    elif rel is R.OVERRIDDEN_BY:
        rev(node_id, EdgeKind.OVERRIDE)
    elif rel is R.USED_BY:
        rev(node_id, EdgeKind.USE)
    elif rel is R.IMPORTED_BY:
        rev(node_id, EdgeKind.IMPORT)
    elif rel is R.INSTANTIATED_BY:
        instantiated_by(node_id)
    elif rel is R.CONSTRUCTED_BY:
        cls = nodes.owner_class(node_id)
        if cls is not None:
            rev(cls, EdgeKind.INSTANTIATE)
    elif rel is R.SUBCLASS_OF:
        cls = nodes.owner_class(node_id)
        if cls is not None:
            rev(cls, EdgeKind.INHERIT)
    elif rel is R.SUPERCLASS_OF and nodes.is_class(node_id):
        fwd(node_id, EdgeKind.INHERIT)
    # dedupe while keeping a deterministic order
    seen: set[tuple[str, Edge]] = set()
    uniq = []
    for item in out:
        if item not in seen and item[0] != node_id:
            seen.add(item)
            uniq.append(item)
    uniq.sort(key=lambda t: (t[0], t[1].kind.value, t[1].file, t[1].line, t[1].detail))
    return uniq
