"""Interpreter settings for the index's hot loops, always restored as they were."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector.

    The index builds no reference cycles (ASTs, facts and rows are freed by reference
    counting), so the collector would only rescan a growing heap of fresh objects: ~35% of
    extraction time, and 22.6 s → 19.3 s on a cold Django index when paused."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def recursion_limit_at_least(limit: int) -> Iterator[None]:
    """Raise the recursion limit to ``limit`` for deeply nested sources."""
    old = sys.getrecursionlimit()
    if old < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        if old < limit:
            sys.setrecursionlimit(old)
