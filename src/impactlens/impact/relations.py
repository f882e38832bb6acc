"""§3.2 (b) relation-set selection: the fixed CodePlan table plus the escape gate.

Relations not in a change type's row are never traversed; :func:`step` is the only
place a relation is turned into graph edges (§3.3 step 1), always against the
dependency direction (``src`` uses ``dst``; dependents are found on in-edges).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from impactlens.fileio import parse_python
from impactlens.impact.graphcache import cached
from impactlens.model import (
    AtomicChange,
    ChangeType,
    Edge,
    EdgeKind,
    IndexGraph,
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

CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__", "constructor"})  # Python, TypeScript

# Relations that admit a site observing what it references (a caller, reader,
# instantiator): what changes there is its behaviour, not its signature, its place in a
# class hierarchy or what it exports.
REFERENCES = frozenset({R.CALLED_BY, R.CALLERS, R.USED_BY, R.INSTANTIATED_BY,
                        R.CONSTRUCTED_BY})


def onward(admitted: Iterable[Relation], relations: Sequence[Relation]) -> tuple[Relation, ...]:
    """The relations of the row followed *from* a member admitted over ``admitted``.

    The seed follows its whole row. A referencing site follows the references only — its
    callers, readers, instantiators see its behaviour change, but its own base methods
    and overriders are untouched (a caller of a changed method does not make its
    ``super()`` method's other overriders impacted), and a module importing it is not
    touched either (the importer's users are its callers). An importer continues along
    the import chain (ImportedBy: the users of the name it imports); an overridden base
    continues up (Overrides) and an overrider down (OverriddenBy), each with its own
    callers; a subclass continues down; a superclass only further up (the base's other
    users and subclasses do not see a subclass's change).
    """
    follow: set[Relation] = set()
    for a in admitted:
        if a is R.SUPERCLASS_OF:
            follow.add(a)
        else:
            follow |= REFERENCES | {a}
    return tuple(r for r in relations if r in follow)


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
    if alpha_equivalent(body.before_src, body.after_src):
        return False, ("only local names are renamed: the function computes the same",)
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


_REFLECTIVE = frozenset({"locals", "vars", "eval", "exec", "dir"})


def _canonical(src: str | None) -> str | None:
    """The function's AST with every name it binds locally renamed by first binding
    order (parameters, ``global``/``nonlocal`` names and everything else kept)."""
    tree = parse_python(src)
    if tree is None:
        return None
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if len(fns) != 1:
        return None
    fn = fns[0]
    keep = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    bound: dict[str, str] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Global | ast.Nonlocal):
            keep.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in _REFLECTIVE):
            return None  # the names themselves are observable
    for node in ast.walk(fn):  # breadth-first: a stable first-binding order
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            name = node.id
        elif isinstance(node, ast.ExceptHandler):
            name = node.name
        if name and name not in keep and name not in bound:
            bound[name] = f"_local{len(bound)}"

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(bound.get(node.id, node.id), node.ctx), node)

        def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
            self.generic_visit(node)
            if node.name:
                node.name = bound.get(node.name, node.name)
            return node

    return ast.dump(_Rename().visit(fn))


def alpha_equivalent(before: str | None, after: str | None) -> bool:
    """Do two versions of a function differ only in the names of their locals?"""
    a = _canonical(before)
    return a is not None and a == _canonical(after)


# --------------------------------------------------------------- traversal
class _Nodes:
    """Kind/parent look-ups over a (cached) graph."""

    def __init__(self, graph: IndexGraph) -> None:
        self.graph = cached(graph)

    def info(self, node_id: str) -> tuple[NodeKind | None, str | None]:
        n = self.graph.node(node_id)
        return (n.kind, n.parent) if n is not None else (None, None)

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


_IN, _OUT = True, False
_Target = tuple[bool, str, frozenset[EdgeKind]]  # (incoming?, node id, edge kinds)


def _ks(*kinds: EdgeKind) -> frozenset[EdgeKind]:
    return frozenset(kinds)


def shadowed(nodes: _Nodes, node_id: str) -> list[str]:
    """The same-named fields of a class field's ancestors, nearest first. A read of
    ``self.name`` in a base method resolves to the base's ``name`` statically, yet on an
    instance of the subclass it reads the subclass's: those readers use this field too."""
    kind, parent = nodes.info(node_id)
    if kind is not NodeKind.FIELD or not parent or not nodes.is_class(parent):
        return []
    leaf = node_id.rsplit(".", 1)[-1]
    inherit = _ks(EdgeKind.INHERIT)
    out: list[str] = []
    seen = {parent}
    level = [parent]
    for _ in range(8):  # a bounded climb up the class hierarchy
        bases = sorted({e.dst for c in level for e in nodes.graph.out_edges(c, inherit)}
                       - seen)
        if not bases:
            break
        seen.update(bases)
        out += [f for b in bases if nodes.info(f := f"{b}.{leaf}")[0] is NodeKind.FIELD]
        level = bases
    return out


def targets(nodes: _Nodes, node_id: str, rel: Relation) -> list[_Target]:
    """The edge look-ups one relation makes from ``node_id`` (§3.3 step 1): which node's
    in- or out-edges, of which kinds. :func:`step` follows them; a walk level prefetches
    them all at once."""
    def instantiated_by(x: str) -> list[_Target]:
        leaf = x.rsplit(".", 1)[-1]
        if nodes.is_class(x):
            cls = x
        elif leaf in CONSTRUCTOR_NAMES and (p := nodes.parent(x)) is not None:
            cls = p
        else:
            return []
        out = [(_IN, cls, _ks(EdgeKind.INSTANTIATE, EdgeKind.CALL))]
        out += [(_IN, f"{cls}.{ctor}", _ks(EdgeKind.CALL)) for ctor in sorted(CONSTRUCTOR_NAMES)]
        return out

    if rel in (R.CALLED_BY, R.CALLERS):
        out = [(_IN, node_id, _ks(EdgeKind.CALL))]
        if rel is R.CALLERS and node_id.rsplit(".", 1)[-1] in CONSTRUCTOR_NAMES:
            out += instantiated_by(node_id)
        return out
    if rel is R.OVERRIDES:
        return [(_OUT, node_id, _ks(EdgeKind.OVERRIDE))]
    if rel is R.OVERRIDDEN_BY:
        return [(_IN, node_id, _ks(EdgeKind.OVERRIDE))]
    if rel is R.USED_BY:
        return [(_IN, f, _ks(EdgeKind.USE)) for f in [node_id, *shadowed(nodes, node_id)]]
    if rel is R.IMPORTED_BY:
        return [(_IN, node_id, _ks(EdgeKind.IMPORT))]
    if rel is R.INSTANTIATED_BY:
        return instantiated_by(node_id)
    if rel is R.CONSTRUCTED_BY:
        cls = nodes.owner_class(node_id)
        return [] if cls is None else [(_IN, cls, _ks(EdgeKind.INSTANTIATE))]
    if rel is R.SUBCLASS_OF:
        cls = nodes.owner_class(node_id)
        return [] if cls is None else [(_IN, cls, _ks(EdgeKind.INHERIT))]
    if rel is R.SUPERCLASS_OF and nodes.is_class(node_id):
        return [(_OUT, node_id, _ks(EdgeKind.INHERIT))]
    return []


def prefetch_level(nodes: _Nodes, frontier: Mapping[str, Sequence[Relation]]) -> None:
    """Load everything :func:`step` will read for a BFS level (node → the relations
    followed from it), in a few batched reads."""
    g = nodes.graph
    g.nodes([*frontier, *(p for x in frontier if (p := x.rsplit(".", 1)[0]) != x)])
    want: dict[tuple[bool, frozenset[EdgeKind]], list[str]] = {}
    for x, rels in frontier.items():
        for rel in rels:
            for incoming, t, kinds in targets(nodes, x, rel):
                want.setdefault((incoming, kinds), []).append(t)
    for (incoming, kinds), ids in sorted(want.items(), key=lambda kv: (kv[0][0], sorted(kv[0][1]))):
        if incoming:
            g.prefetch(ids, in_kinds=kinds)
        else:
            g.prefetch(ids, out_kinds=kinds)


_HEADER_REFS = frozenset({EdgeKind.CALL, EdgeKind.USE, EdgeKind.INSTANTIATE})
_DEFS = frozenset({NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS})


def header_owner(nodes: _Nodes, e: Edge) -> str:
    """The site a reference belongs to. A module- or class-level reference on a line of a
    definition is part of that ``def``/``class`` statement — a default value, a decorator,
    an annotation, a base class — evaluated where it stands but read as that definition's:
    ``def tax(amount, rate=TAX_RATE)`` makes ``tax`` a reader of ``TAX_RATE``."""
    if e.kind not in _HEADER_REFS:
        return e.src
    src = nodes.graph.node(e.src)
    if src is None or src.kind not in (NodeKind.MODULE, NodeKind.CLASS) or src.file != e.file:
        return e.src
    best = None
    for n in nodes.graph.nodes_in_file(e.file):
        if (n.kind in _DEFS and n.start_line <= e.line <= n.end_line and not n.is_lambda
                and n.id.startswith(e.src + ".") and "::" not in n.id
                and (best is None or n.start_line >= best.start_line)):
            best = n
    return best.id if best is not None else e.src


def step(nodes: _Nodes, node_id: str, rel: Relation) -> list[tuple[str, Edge]]:
    """Neighbours of ``node_id`` over one relation: ``(neighbour, admitting edge)``."""
    g = nodes.graph
    out: list[tuple[str, Edge]] = []
    for incoming, t, kinds in targets(nodes, node_id, rel):
        if incoming:
            out.extend((header_owner(nodes, e), e) for e in g.in_edges(t, kinds))
        else:
            out.extend((e.dst, e) for e in g.out_edges(t, kinds))
    # dedupe while keeping a deterministic order
    seen: set[tuple[str, Edge]] = set()
    uniq = []
    for item in out:
        if item not in seen and item[0] != node_id:
            seen.add(item)
            uniq.append(item)
    uniq.sort(key=lambda t: (t[0], t[1].kind.value, t[1].file, t[1].line, t[1].detail))
    return uniq


# ------------------------------------------------------------ import bindings
_USES = frozenset({EdgeKind.CALL, EdgeKind.USE, EdgeKind.INSTANTIATE, EdgeKind.INHERIT,
                   EdgeKind.IMPORT})
_IMPORT = frozenset({EdgeKind.IMPORT})


def _import_names(e: Edge) -> tuple[str, str]:
    """``(imported name, local name)`` of an IMPORT edge (``import a.b`` binds ``a``)."""
    try:
        d = json.loads(e.detail) if e.detail else {}
    except ValueError:
        d = {}
    name = str(d.get("name") or e.dst.rsplit(".", 1)[-1]) if isinstance(d, dict) else ""
    alias = d.get("alias") if isinstance(d, dict) else None
    return name, str(alias) if alias else name.split(".", 1)[0]


def binding_users(nodes: _Nodes, module: str, local: str) -> list[tuple[str, Edge]]:
    """Dependents of the import binding ``local`` of ``module`` (an import statement's
    name): the definitions of ``module`` that use what it binds, and the modules that
    import that name *through* ``module`` (``from module import local``: the index
    resolves the edge to the original target; the file's recorded dependency on
    ``module`` tells it apart from a direct import of the original)."""
    g = nodes.graph
    first = local.split(".", 1)[0]
    targets = sorted({e.dst for e in g.out_edges(module, _IMPORT)
                      if _import_names(e)[1] == first})
    through = g.dependents_of_modules([module])
    mod = g.node(module)
    own_file = mod.file if mod is not None else None
    out: list[tuple[str, Edge]] = []
    for t in targets:
        for e in g.in_edges(t, _USES):
            if e.kind is EdgeKind.IMPORT:
                if e.src == module or e.file == own_file:
                    continue
                if _import_names(e)[0].rsplit(".", 1)[-1] != t.rsplit(".", 1)[-1]:
                    continue
                if e.file not in through:
                    continue
                out.append((e.src, e))
            elif e.src.startswith(module + "."):
                out.append((e.src, e))
    return sorted(set(out), key=lambda t: (t[0], t[1].kind.value, t[1].file, t[1].line,
                                           t[1].detail))
