"""Strong updates: a store that overwrites an earlier one on straight-line code.

``d["k"] = f1; d["k"] = f2; d["k"]()`` calls only ``f2``; so do ``d = {"k": f1};
d.update(k=f2)``, ``xs = [a, b]; xs[0] = c`` and ``self.cb = self.a; self.cb = self.b``
in one method. Container entries and fields are collected flow-insensitively (every
store counts for every read), so the extractor drops the earlier value when it can tell
nothing could have read it: both stores in the same block (the flow state is the same
object: no branch, loop or handler began or ended between them), no call made between
them (a call could read the container) and no read of the container's name between them
(a read could alias it). The dropped value becomes ``("none",)``, which evaluation skips.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from impactlens.index.python.facts import Enc

NONE: Enc = ("none",)
Kill = Callable[[], None]


class StoreKills:
    """The last literal-key store per (container name or ``self.`` field, key)."""

    __slots__ = ("calls", "last", "reads")

    def __init__(self) -> None:
        self.calls = 0  # call sites met so far in the file
        self.reads: dict[str, int] = {}  # reads of the names a store watches
        # (name, key) -> (flow state object, calls, reads, how to drop the value)
        self.last: dict[tuple[str, Any], tuple[object, int, int, Kill]] = {}

    def read(self, name: str) -> None:
        if name in self.reads:
            self.reads[name] += 1

    def store(self, state: object, name: str, key: Any, kill: Kill,
              own_calls: int = 0, own_reads: int = 1) -> None:
        """A store of ``name[key]`` (or field ``key`` of ``self``) that ``kill`` would
        drop; drops the previous store of the same slot when nothing came between.
        ``own_calls``/``own_reads``: the calls and the reads of ``name`` the store itself
        made (``d["k"] = v`` reads ``d``; ``d.update(k=v)`` is also a call)."""
        k = (name, key)
        reads = self.reads.setdefault(name, 0)
        prev = self.last.get(k)
        if (prev is not None and prev[0] is state and self.calls - own_calls == prev[1]
                and reads - own_reads == prev[2]):
            prev[3]()
        self.last[k] = (state, self.calls, reads, kill)

    def display(self, state: object, name: str, enc: Enc, drop: Callable[[int], None]) -> None:
        """``name = {"k": v, ...}`` / ``name = [a, b]``: each literal entry is a store
        (``drop(i)`` drops entry ``i``) that a later store of that key may overwrite."""
        if enc[0] == "dl":
            keys: Any = enc[1]
        elif enc[0] == "sl" and enc[1] == "list":
            keys = range(len(enc[2]))
        else:
            return
        reads = self.reads.setdefault(name, 0)
        for i, key in enumerate(keys):
            if key is not None:
                self.last[(name, key)] = (state, self.calls, reads,
                                          lambda i=i: drop(i))  # type: ignore[misc]


def nested_name(name: str, key: Any) -> str:
    """The mutation name of the display stored at ``name[key]`` (``d["a"]["b"] = v``)."""
    return f"{name}[{key!r}]"


def without_entry(enc: Enc, i: int) -> Enc:
    """A dict or list display's encoding with value ``i`` dropped."""
    if enc[0] == "dl":
        values = list(enc[2])
        values[i] = NONE
        return ("dl", enc[1], tuple(values))
    elems = list(enc[2])
    elems[i] = NONE
    return ("sl", enc[1], tuple(elems))
