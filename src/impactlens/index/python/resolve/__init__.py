"""Cross-file name and call resolution over :class:`PyFileFacts`.

``resolve_file(facts, lookup)`` evaluates the file's encoded call sites and
references against the facts of the modules it (transitively) names, which it
obtains only through ``lookup`` — so the result depends on nothing else and an
incremental re-resolution equals a full one. Everything is memoized inside one
call only.

The package, bottom up: :mod:`.values` (the abstract values and locations),
:mod:`.memo` (the memo with a cycle guard), :mod:`.edges` (what resolution emits),
:mod:`.modules` and :mod:`.classes` (module and class lookups) and :mod:`.evaluate`
(the evaluator of encoded expressions), :mod:`.sites` (call and reference sites →
edges, built around an evaluator) with :mod:`.contexts` (receiver-class contexts),
and :mod:`.assemble` (one file's resolution).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from impactlens.index.python.facts import PyFileFacts
from impactlens.index.python.resolve.assemble import file_resolution
from impactlens.index.python.resolve.edges import (
    K_CALL,
    K_CONTAINS,
    K_IMPORT,
    K_INHERIT,
    K_INSTANTIATE,
    K_OVERRIDE,
    K_TESTS,
    K_USE,
    R_AMBIGUOUS,
    R_EXACT,
    R_INFERRED,
    RawEdge,
    Sink,
    call_detail,
    deco_detail,
    flow_detail,
    recv_detail,
    render,
    use_detail,
)
from impactlens.index.python.resolve.evaluate import Evaluator
from impactlens.index.python.resolve.modules import ModuleLookup
from impactlens.index.python.resolve.sites import Sites
from impactlens.index.runtime import gc_paused, recursion_limit_at_least
from impactlens.model import FileResolution

__all__ = ["K_CALL", "K_CONTAINS", "K_IMPORT", "K_INHERIT", "K_INSTANTIATE", "K_OVERRIDE",
           "K_TESTS", "K_USE", "R_AMBIGUOUS", "R_EXACT", "R_INFERRED", "Evaluator",
           "ModuleLookup", "RawEdge", "Sink", "Sites", "call_detail", "deco_detail",
           "flow_detail", "recv_detail", "render", "resolve_file", "resolver", "use_detail"]

_RECURSION = 12_000


def resolve_file(facts: PyFileFacts, lookup: ModuleLookup) -> FileResolution:
    """Nodes, edges and unresolved sites of one file (pure given facts and lookup)."""
    with resolver(facts, lookup) as r:
        return file_resolution(r)


@contextmanager
def resolver(facts: PyFileFacts, lookup: ModuleLookup) -> Iterator[Sites]:
    """The resolver of one file, for passes that ask it more than :func:`resolve_file`
    does (index/closedworld.py evaluates methods under chosen receiver classes)."""
    with recursion_limit_at_least(_RECURSION), gc_paused():
        yield Sites(facts, lookup)
