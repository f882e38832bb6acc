"""What the edit's new lines call: the callee's file is often part of the same fix.

The walk answers "what depends on what I changed"; a fix also reaches forward. A call
the edit writes — a new argument passed, a helper called for the first time, an
exception raised — is half of a pair whose other half is often in the callee: the
keyword is added to it, the helper gains the branch the caller now needs, the exception
class is defined or widened. On real fix commits (`impactlens-bench history`, the
"callees" channel), a library file defining a function the edit's written lines call was
changed by the same commit about half the time — more often than what the stage ranked
in its first three before it. Each such callee (not in an edited file, not a test, its
target resolved — an ambiguous site names no single callee) is MAY-IMPACT at
``settings.callee_conf``: soft evidence that the callee may have to change with the call,
not a proof (a binding break is :func:`~impactlens.impact.triage.forward_entries`'
MUST-INSPECT). A callee more library files call than ``settings.callee_max_callers`` is
a shared utility: its callers' fixes rarely touch it, so it is not listed.
"""

from __future__ import annotations

from collections.abc import Iterable

from impactlens.index.discover import is_source
from impactlens.model import Bucket, Edge, EdgeKind, GraphView, NodeKind, Resolution, TriageEntry
from impactlens.settings import DEFAULT, Settings

__all__ = ["callee_entries"]

_KINDS = frozenset({NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS})
_CALLS = frozenset({EdgeKind.CALL, EdgeKind.INSTANTIATE})


def callee_entries(graph: GraphView, written: Iterable[Edge], edited_files: Iterable[str],
                   settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MAY-IMPACT at ``settings.callee_conf`` for each library function, method or class
    the edit's written lines call (``written``: call edges at those lines,
    change/edit_uses.py) outside the edited files, once per callee, at its first site."""
    edited = set(edited_files)
    out: dict[str, TriageEntry] = {}
    for e in sorted(written, key=lambda e: (e.file, e.line, e.dst)):
        if e.dst in out or e.resolution is Resolution.AMBIGUOUS:
            continue
        callee = graph.node(e.dst)
        if (callee is None or callee.kind not in _KINDS or callee.file in edited
                or not is_source(callee.file) or _shared(graph, e.dst, edited, settings)):
            continue
        out[e.dst] = TriageEntry(
            entity=e.dst, file=callee.file, conf=settings.callee_conf, bucket=Bucket.MAY,
            distance=1, hard=False,
            reason=(f"the edit calls it at {e.file}:{e.line}: the callee may have to change "
                    "with the call (a new argument, a case it must now handle)"))
    return list(out.values())


def _shared(graph: GraphView, callee: str, edited: set[str], settings: Settings) -> bool:
    """Whether more library files than ``settings.callee_max_callers`` call ``callee``
    (the edited files aside): a utility everyone calls says little about this fix."""
    cap = settings.callee_max_callers
    if cap <= 0:
        return False
    files = {e.file for e in graph.in_edges(callee, _CALLS)
             if e.file not in edited and is_source(e.file)}
    return len(files) > cap
