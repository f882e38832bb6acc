"""Other implementations of the contract a changed override implements.

When the edit changes an override (``TrioBackend.read``) and the method it overrides
has other overrides (``AsyncioBackend.read``), the same change is often due in those
too — a lock added to one backend and not the other. They are soft evidence (no edge
runs from the change to them), reported as MAY-IMPACT below structural obligations.
A base with more overrides than ``max_siblings`` is a broad interface (a visitor's
``visit``): its siblings say little about this edit and are not listed.

The same contract without a base class: modules of one package that each define a
module-level function of the same name (``preconf/json.py``, ``preconf/msgpack.py`` …,
each with its ``configure_converter``) are implementations of one interface by
convention, and a fix to one is often due in the others. They are listed the same way
(:func:`module_sibling_entries`), up to ``max_siblings`` of them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence

from impactlens.impact.dag import short_name
from impactlens.index.discover import is_source
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeType,
    EdgeKind,
    GraphView,
    Node,
    NodeKind,
    TriageEntry,
)
from impactlens.settings import DEFAULT, Settings

__all__ = ["module_sibling_entries", "sibling_entries"]

_OVERRIDE = frozenset({EdgeKind.OVERRIDE})
_METHOD_CHANGES = frozenset({ChangeType.METHOD_BODY, ChangeType.METHOD_SIGNATURE})


def sibling_entries(graph: GraphView, changes: Iterable[AtomicChange],
                    edited_files: Iterable[str], settings: Settings = DEFAULT
                    ) -> list[TriageEntry]:
    """MAY-IMPACT at ``settings.sibling_conf`` for each other override of a method that
    a changed method overrides (not in the edited files: the edit is changing those)."""
    edited = set(edited_files)
    changed = {c.entity for c in changes}
    out: dict[str, TriageEntry] = {}
    for ch in sorted(changes, key=lambda c: c.entity):
        if ch.change_type not in _METHOD_CHANGES:
            continue
        for base in sorted({e.dst for e in graph.out_edges(ch.entity, _OVERRIDE)}):
            others = sorted({e.src for e in graph.in_edges(base, _OVERRIDE)} - changed)
            if not others or len(others) > settings.max_siblings:
                continue
            for sid in others:
                node = graph.node(sid)
                if node is None or node.file in edited or sid in out:
                    continue
                out[sid] = TriageEntry(
                    entity=sid, file=node.file, conf=settings.sibling_conf, bucket=Bucket.MAY,
                    distance=2, hard=False,
                    reason=(f"another implementation of {short_name(base)}, as "
                            f"{short_name(ch.entity)} is, which the edit changes: the same "
                            "change may be due here"))
    return list(out.values())


def module_sibling_entries(graph: GraphView, nodes_named: Callable[[str], Sequence[Node]],
                           changes: Iterable[AtomicChange], edited_files: Iterable[str],
                           settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MAY-IMPACT at ``settings.sibling_conf`` for each module-level function of the same
    name as a changed module-level function, in another library module of the same
    package directory (``nodes_named(name)``: the index's nodes of that name) — unless
    more than ``settings.max_siblings`` modules have one (a name every module defines)."""
    edited = set(edited_files)
    out: dict[str, TriageEntry] = {}
    for ch in sorted(changes, key=lambda c: c.entity):
        if ch.change_type not in _METHOD_CHANGES or ch.kind != "function":
            continue
        name = ch.entity.rsplit(".", 1)[-1]
        folder = posixpath.dirname(ch.file)
        same = [n for n in nodes_named(name)
                if n.kind is NodeKind.FUNCTION and _module_level(graph, n) and is_source(n.file)]
        if not any(n.id == ch.entity for n in same):  # not a module-level function
            continue
        others = [n for n in same
                  if n.file != ch.file and posixpath.dirname(n.file) == folder]
        if not others or len(others) > settings.max_siblings:
            continue
        for n in sorted(others, key=lambda n: n.id):
            if n.file in edited or n.id in out:
                continue
            out[n.id] = TriageEntry(
                entity=n.id, file=n.file, conf=settings.sibling_conf, bucket=Bucket.MAY,
                distance=2, hard=False,
                reason=(f"{posixpath.basename(n.file)} defines {name} too, as "
                        f"{posixpath.basename(ch.file)} does, where the edit changes it: "
                        "the same change may be due here"))
    return list(out.values())


def _module_level(graph: GraphView, node: Node) -> bool:
    parent = graph.node(node.parent) if node.parent else None
    return parent is not None and parent.kind is NodeKind.MODULE
