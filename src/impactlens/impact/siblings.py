"""Other implementations of the contract a changed override implements.

When the edit changes an override (``TrioBackend.read``) and the method it overrides
has other overrides (``AsyncioBackend.read``), the same change is often due in those
too — a lock added to one backend and not the other. They are soft evidence (no edge
runs from the change to them), reported as MAY-IMPACT below structural obligations.
A base with more overrides than ``max_siblings`` is a broad interface (a visitor's
``visit``): its siblings say little about this edit and are not listed.
"""

from __future__ import annotations

from collections.abc import Iterable

from impactlens.impact.dag import short_name
from impactlens.model import AtomicChange, Bucket, ChangeType, EdgeKind, GraphView, TriageEntry
from impactlens.settings import DEFAULT, Settings

__all__ = ["sibling_entries"]

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
