"""Hidden channels (§7.4): un-analyzable sites that may reach a changed entity.

The index records every site static analysis cannot follow (``UnresolvedSite``:
``getattr`` with a computed name, registry dispatch, ``importlib``, ``eval``,
calls on receivers of unknown type) with the names and string fragments it
mentions. A site may reach a change when

* it names the changed entity, its module or — for a constructor — its class
  (``HANDLERS["login"]``, ``svc.login(...)``, ``import_module("app.auth")``);
* a string fragment it builds the name from fits the entity: ``"do_" + kind``
  fits ``do_refund``, ``f"to_{unit}"`` fits ``to_celsius``, ``"plugins." + name``
  fits the module ``plugins.email``, ``"get_%s_display"`` fits ``get_name_display``;
* it sits in a function that reads a *registry* holding the entity — a module or
  class constant whose value refers to it (``OPS = {"a": fa}``), or one the entity's
  decorator, or a function it is handed to at module level, writes into
  (``@register("mean")``);
* it sits in a function that reads a *table of names* holding the entity's name as a
  string — a module or class constant such as ``FORMATS = {"csv": "export_csv"}`` read
  by ``getattr(exporters, FORMATS[fmt])`` or by ``for n in NAMES: getattr(obj, n)``;
* it is a dynamic site (not a mere unknown receiver) in the changed module itself.

A string in code naming the entity by dotted path (``load("pkg.mod:func")``, a settings
table of such paths) is an edge of the index (``use``, access ``path``) but not a call:
the function holding it is reported the same way (``dotted-path``), as a strong hit.
A name only a module-level ``__getattr__`` serves (PEP 562) is a dynamic site of its
own (``module-getattr``): it names the attribute, so it matches like ``getattr``.

Such sites are reported (``ImpactResult.unanalyzable``, with ``affects``), never
silently low-risk: a LOW-RISK entry holding one is raised to MAY-IMPACT, and the
functions holding the specific ones (fragment, registry, named dynamic dispatch)
become test-map sources at the ``CALLS`` weight — the dispatch is a call the graph
cannot see. Unknown-receiver matches by method name alone are only that specific
when few sites share the name (≤ ``max_hidden_sources``); a dynamic site that is
merely in the changed module is reported and nothing more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from impactlens.impact import triage as triage_stage
from impactlens.impact.graphcache import CachedGraph
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeType,
    EdgeKind,
    NodeKind,
    Triage,
    TriageEntry,
    UnanalyzableHit,
    UnresolvedReason,
    UnresolvedSite,
    WalkResult,
    unresolved_words,
)

_DYNAMIC = frozenset({
    UnresolvedReason.DYNAMIC_GETATTR, UnresolvedReason.REGISTRY_DISPATCH,
    UnresolvedReason.IMPORTLIB, UnresolvedReason.EVAL, UnresolvedReason.GLOBALS,
    UnresolvedReason.MODULE_GETATTR,
})
_PLACEHOLDER = re.compile(r"%[-#0 +]*\d*(?:\.\d+)?[sdrifxa]|\{[^{}]*\}")
_CONSTANTS = frozenset({NodeKind.CONSTANT, NodeKind.FIELD})
_USE = frozenset({EdgeKind.USE})
_CALL = frozenset({EdgeKind.CALL})

# how specific the evidence that a site reaches a change is: named or fitted by a dynamic
# site, or through a registry (strong); a method name on an unknown receiver or a textual
# mention (weak); only a dynamic site in the changed module (near: reported, no more)
STRONG, WEAK, NEAR = "strong", "weak", "near"
_ORDER = {STRONG: 0, WEAK: 1, NEAR: 2}


@dataclass(frozen=True)
class Hidden:
    """The hits of one atomic change, with how specific each one's evidence is."""

    hits: tuple[UnanalyzableHit, ...]
    strength: Mapping[UnanalyzableHit, str]


def names_of(change: AtomicChange) -> set[str]:
    """The leaf names a site could use for the changed entity (a constructor: its class)."""
    parts = change.entity.split(".")
    names = {parts[-1]}
    if parts[-1] in ("__init__", "__new__") and len(parts) > 1:
        names.add(parts[-2])
    return {n for n in names if n}


def fragment_pattern(text: str) -> re.Pattern[str] | None:
    """A string literal that is a *piece* of a computed name, as a pattern over whole
    names: format placeholders are wildcards; a bare literal ending in ``_``/``.`` is a
    prefix, one starting with ``_``/``.`` a suffix. ``None``: not a recognisable piece."""
    parts = _PLACEHOLDER.split(text)
    if len("".join(parts).strip("_.")) < 2 or any(c.isspace() for c in text):
        return None
    if len(parts) > 1:
        return re.compile(".+".join(re.escape(p) for p in parts))
    if text.endswith(("_", ".")):
        return re.compile(re.escape(text) + r"[\w.]+")
    if text.startswith(("_", ".")):
        return re.compile(r"[\w.]+" + re.escape(text))
    return None


def registries(graph: CachedGraph, seed: str) -> set[str]:
    """Module/class constants that hold ``seed`` (a function or class): a constant whose
    definition refers to it (``OPS = {"a": fa}``), or one written by its decorators or by
    a function it is handed to at module level (``register(fa)``)."""
    node = graph.node(seed)
    if node is None or node.kind not in (NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS):
        return set()
    out: set[str] = set()
    registrants: set[str] = set()
    refs = [e for e in graph.in_edges(seed, _USE) if _access(e.detail) == "ref"]
    for e in refs:
        src = graph.node(e.src)
        if src is not None and src.kind in _CONSTANTS:
            out.add(src.id)
            continue
        if src is None or src.kind not in (NodeKind.MODULE, NodeKind.CLASS):
            continue  # handed around inside a function: not a registry we can name
        for n in graph.nodes_in_file(e.file):
            if n.kind in _CONSTANTS and n.start_line <= e.line <= n.end_line:
                out.add(n.id)
        registrants |= {c.dst for c in graph.out_edges(e.src, _CALL) if c.line == e.line}
    if node.decorators and node.parent:
        leaves = {d.rsplit(".", 1)[-1].split("(", 1)[0] for d in node.decorators}
        registrants |= {c.dst for c in graph.out_edges(node.parent, _CALL)
                        if node.start_line <= c.line <= node.end_line
                        and c.dst.rsplit(".", 1)[-1] in leaves}
    for r in sorted(registrants):
        rnode = graph.node(r)
        scopes = [r] + ([n.id for n in graph.nodes_in_file(rnode.file)
                         if n.id.startswith(r + ".")] if rnode is not None else [])
        used = {e.dst for s in scopes for e in graph.out_edges(s, _USE)}
        out |= {u for u, n in graph.nodes(used).items() if n.kind in _CONSTANTS}
    return out


def _name_tables(graph: CachedGraph, scopes: Iterable[str], names: set[str]) -> set[str]:
    """The scopes (of dynamic sites) that read a module or class constant whose
    definition holds one of ``names`` as a string literal: a table of names its
    ``getattr`` may look up. (A constant's signature is its assignment's text.)"""
    wanted = sorted(set(scopes))
    if not wanted or not names:
        return set()
    quoted = [q + n + q for n in sorted(names) for q in ("'", '"')]
    reads = [e for es in graph.out_edges_many(wanted, _USE).values() for e in es]
    consts = graph.nodes({e.dst for e in reads})
    holding = {i for i, n in consts.items()
               if n.kind in _CONSTANTS and any(q in n.signature for q in quoted)}
    return {e.src for e in reads if e.dst in holding}


def _path_hits(graph: CachedGraph, seed: str) -> list[UnanalyzableHit]:
    """The places a dotted-path string in code names ``seed`` — or, for a constructor,
    its class (see the module doc)."""
    owner, _, leaf = seed.rpartition(".")
    targets = [seed, *([owner] if owner and leaf in ("__init__", "__new__") else [])]
    return [UnanalyzableHit(e.file, e.line, e.src, UnresolvedReason.DOTTED_PATH.value,
                            f'"{t}"', seed)
            for t in targets for e in graph.in_edges(t, _USE) if _access(e.detail) == "path"]


def _access(detail: str) -> str:
    try:
        d = json.loads(detail) if detail else {}
    except ValueError:
        return ""
    return str(d.get("access", "")) if isinstance(d, dict) else ""


def find_hidden(
    graph: CachedGraph,
    change: AtomicChange,
    result: WalkResult,
    seed: str,
    unresolved: Sequence[UnresolvedSite],
    module: str,
    module_of: Callable[[str], str],
) -> Hidden:
    """The un-analyzable sites that may reach one atomic change (see the module doc)."""
    if change.change_type is ChangeType.ADD or result.relations.gated:
        return Hidden((), {})  # nothing references a new node; a local edit escapes nowhere
    names = names_of(change)
    pats = [re.compile(rf"(?<![\w]){re.escape(n)}(?![\w])") for n in sorted(names)]
    if module:
        pats.append(re.compile(rf"(?<![\w.]){re.escape(module)}(?![\w])"))
    dotted = {change.entity, seed, *([module] if module else [])}
    regs = registries(graph, seed)
    readers = {e.src for r in sorted(regs) for e in graph.in_edges(r, _USE)} - regs
    sites = list(unresolved)
    if readers:  # a registry's readers may sit anywhere: fetch them
        files = {n.file for n in graph.nodes(readers).values()}
        for f in sorted(files):
            sites += [u for u in graph.unresolved_in_file(f) if u.scope in readers]

    file_module: dict[str, str] = {}

    def mod(path: str) -> str:
        if path not in file_module:
            try:
                file_module[path] = module_of(path)
            except Exception:  # an unknown file has no module name; it just won't match
                file_module[path] = ""
        return file_module[path]

    tables = _name_tables(graph, [u.scope for u in sites if u.reason in _DYNAMIC], names)
    strength: dict[UnanalyzableHit, str] = {}
    for u in sites:
        if u.reason is UnresolvedReason.EXTERNAL:
            continue
        how = _match(u, names, dotted, module, pats, readers | tables)
        if how is None and u.reason in _DYNAMIC and module and mod(u.file) == module:
            how = NEAR  # a dynamic site in the changed module itself
        if how is None:
            continue
        hit = UnanalyzableHit(u.file, u.line, u.scope, u.reason.value, u.text, seed)
        if hit not in strength or _ORDER[how] < _ORDER[strength[hit]]:
            strength[hit] = how
    for hit in _path_hits(graph, seed):
        strength[hit] = STRONG
    hits = sorted(strength, key=lambda h: (h.file, h.line, h.scope, h.text, h.affects))
    return Hidden(tuple(hits), strength)


def _match(u: UnresolvedSite, names: set[str], dotted: set[str], module: str,
           pats: Sequence[re.Pattern[str]], readers: set[str]) -> str | None:
    dynamic = u.reason in _DYNAMIC
    if u.scope in readers:
        return STRONG  # calls through a registry that holds the entity
    for n in u.names:
        if n in names or n in dotted or any(n.endswith("." + leaf) for leaf in names) or (
                module and n.startswith(module + ".")):
            return STRONG if dynamic else WEAK
        if dynamic and (p := fragment_pattern(n)) is not None and any(
                p.fullmatch(c) for c in (*names, *dotted)):
            return STRONG
    if any(p.search(u.text) for p in pats):
        return WEAK
    return None


def test_sources(graph: CachedGraph, hidden: Hidden, walked: Iterable[str], cap: int
                 ) -> list[str]:
    """Functions holding a hit that become test-map sources (at the CALLS weight): the
    strong ones always, the weak ones when there are at most ``cap`` of them. A module- or
    class-level site (a registration, not a dispatch) calls nothing: no source."""
    seen = set(walked)
    scopes = {h.scope for h in hidden.hits}
    calls = {s for s, n in graph.nodes(scopes).items()
             if n.kind in (NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.TEST)}
    strong = sorted({h.scope for h in hidden.hits if hidden.strength[h] == STRONG}
                    & calls - seen)
    weak = sorted({h.scope for h in hidden.hits if hidden.strength[h] == WEAK}
                  & calls - seen - set(strong))
    return strong + (weak if len(weak) <= cap else [])


test_sources.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def promote(tri: Triage, hidden: Sequence[UnanalyzableHit],
            module_of: Callable[[str], str]) -> Triage:
    """A LOW-RISK entry whose body holds an un-analyzable site that may reach the change
    is raised to MAY-IMPACT: the analysis cannot see through it. (A site's scope is a
    dotted qualname; a test's entity is its pytest node id — both spellings match.)"""
    if not hidden:
        return tri
    by_scope: dict[str, UnanalyzableHit] = {}
    for h in hidden:
        by_scope.setdefault(h.scope, h)
        try:
            module = module_of(h.file)
        except Exception:  # an unknown file: only the dotted spelling can match
            continue
        if module and h.scope.startswith(module + "."):
            rest = h.scope[len(module) + 1:].replace(".", "::")
            by_scope.setdefault(f"{h.file}::{rest}", h)
    low: list[TriageEntry] = []
    raised: list[TriageEntry] = []
    for e in tri.low_risk:
        hit = by_scope.get(e.entity)
        if hit is None:
            low.append(e)
            continue
        raised.append(TriageEntry(
            e.entity, e.file, e.conf, e.reason + f"; {unresolved_words(hit.reason)} at "
            f"{hit.file}:{hit.line} may reach {hit.affects} (static analysis cannot follow it)",
            Bucket.MAY, e.distance, e.hard))
    may = triage_stage.sort_entries([*tri.may_impact, *raised])
    return Triage(tri.must_inspect, tuple(may), tuple(low))
