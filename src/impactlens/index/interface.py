"""Symbol-level dependencies: what of another module's facts a file's resolution read.

Resolving a file reads the facts of the modules it names. :func:`tracked` hands the
resolver a read-recording view of those facts, and :func:`fingerprint` digests a
module's facts under the same keys. A file is re-resolved after an edit of a module it
consulted only when one of the keys it read has a different digest in the edited
module: the resolver is a deterministic function of its own facts and of what it read,
so equal digests for every key read mean the same resolution (and the same reads).

Keys (strings; a module's facts are split so that a body-only edit of one function
changes only that function's keys)::

    N:<name>    module-level name: its bindings (with their indices), reach at the end
                and container mutations (``byname``/``final``/``binds``/``muts``)
    K:<field>   the key set of ``byname``/``final``/``muts`` (``from m import *``...)
    S:<i>       the subtree of top-level scope ``i`` (a def or class and all its nested
                scopes, every field but line numbers: see :func:`_lineless`)
    A0:<field>  any other field of the module scope (``calls``, ``lreach``, ...)
    A:<field>   a field of the facts record itself (``nodes``, ``imports``, ``stars``...)
    ALL         everything (iterating or counting the scopes)

``module`` and ``path`` are not keys: they are the file's identity, and a file whose
module name changes is re-resolved with all its dependents anyway.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

ALL = "ALL"
_OWN = ("module", "path", "scopes")
_SCOPE0_TRACKED = ("byname", "final", "binds", "muts")

# path -> (facts, top-level ancestor index of every scope); shared by the files one
# process resolves (forked workers inherit it), checked by identity against the facts
_TOPS: dict[str, tuple[Any, list[int]]] = {}


def clear_cache() -> None:
    """Forget the scope trees computed so far (call at the end of an index run)."""
    _TOPS.clear()


def _tops(facts: Any) -> list[int]:
    got = _TOPS.get(facts.path)
    if got is not None and got[0] is facts:
        return got[1]
    scopes = facts.scopes
    tops = [0] * len(scopes)
    for i in range(1, len(scopes)):
        tops[i] = _top(scopes, i, tops)
    _TOPS[facts.path] = (facts, tops)
    return tops


def _top(scopes: Any, i: int, tops: list[int]) -> int:
    p = scopes[i].parent
    if p <= 0:
        return i
    if p < i:  # parents are numbered before their children
        return tops[p]
    return _top(scopes, p, tops)


class _Names:
    """A module-scope name → value dict that records the names asked for."""

    __slots__ = ("_d", "_keys", "_reads")

    def __init__(self, d: dict[str, Any], reads: set[str], field: str) -> None:
        self._d = d
        self._reads = reads
        self._keys = "K:" + field  # iterating / sizing reads the dict's key set

    def get(self, name: str, default: Any = None) -> Any:
        self._reads.add("N:" + name)
        return self._d.get(name, default)

    def __getitem__(self, name: str) -> Any:
        self._reads.add("N:" + name)
        return self._d[name]

    def __contains__(self, name: object) -> bool:
        self._reads.add("N:" + str(name))
        return name in self._d

    def __iter__(self) -> Iterator[str]:
        self._reads.add(self._keys)
        return iter(self._d)

    def keys(self) -> Any:
        self._reads.add(self._keys)
        return self._d.keys()

    def __len__(self) -> int:
        self._reads.add(self._keys)
        return len(self._d)

    def __bool__(self) -> bool:
        self._reads.add(self._keys)
        return bool(self._d)

    def items(self) -> Any:
        self._reads.add(ALL)
        return self._d.items()

    def values(self) -> Any:
        self._reads.add(ALL)
        return self._d.values()


class _Binds:
    """The module scope's binding list; reading binding ``b`` reads its name."""

    __slots__ = ("_b", "_reads")

    def __init__(self, binds: list[Any], reads: set[str]) -> None:
        self._b = binds
        self._reads = reads

    def __getitem__(self, i: int) -> Any:
        bind = self._b[i]
        self._reads.add("N:" + bind[0])
        return bind

    def __iter__(self) -> Iterator[Any]:
        self._reads.add(ALL)
        return iter(self._b)

    def __len__(self) -> int:
        self._reads.add(ALL)
        return len(self._b)


class _Scope0:
    __slots__ = ("_reads", "_sc", "binds", "byname", "final", "muts")

    def __init__(self, sc: Any, reads: set[str]) -> None:
        self._sc = sc
        self._reads = reads
        self.byname = _Names(sc.byname, reads, "byname")
        self.final = _Names(sc.final, reads, "final")
        self.muts = _Names(sc.muts, reads, "muts")
        self.binds = _Binds(sc.binds, reads)

    def __getattr__(self, field: str) -> Any:
        self._reads.add("A0:" + field)
        return getattr(self._sc, field)


class _Scopes:
    __slots__ = ("_reads", "_s0", "_scopes", "_tops")

    def __init__(self, facts: Any, reads: set[str]) -> None:
        self._scopes = facts.scopes
        self._tops = _tops(facts)
        self._reads = reads
        self._s0 = _Scope0(facts.scopes[0], reads)

    def __getitem__(self, i: int) -> Any:
        if i == 0:
            return self._s0
        if isinstance(i, slice) or i < 0:
            self._reads.add(ALL)
            return self._scopes[i]
        self._reads.add("S:" + str(self._tops[i]))
        return self._scopes[i]

    def __iter__(self) -> Iterator[Any]:
        self._reads.add(ALL)
        yield self._s0
        yield from self._scopes[1:]

    def __len__(self) -> int:
        self._reads.add(ALL)
        return len(self._scopes)


class Tracked:
    """A read-recording view of one module's facts (what the resolver gets from lookups)."""

    __slots__ = ("_f", "module", "path", "reads", "scopes")

    def __init__(self, facts: Any) -> None:
        self._f = facts
        self.reads: set[str] = set()
        self.module = facts.module
        self.path = facts.path
        self.scopes = _Scopes(facts, self.reads)

    def __getattr__(self, field: str) -> Any:
        self.reads.add("A:" + field)
        return getattr(self._f, field)


def _digest(value: Any) -> str:
    # repr, not pickle: equal facts give equal text whatever their object sharing
    return hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"),
                           digest_size=12).hexdigest()


# Line numbers are left out of the digests, so an edit that shifts the lines below it does
# not count as a change of everything there. This relies on an invariant of resolution
# (resolve.py, testdisc.py): the line numbers in a file's output are its own — sites,
# definitions and test nodes of the file itself; another module's lines are never copied
# into it (foreign call-site lines only rank candidates within one resolution, and
# inherited test nodes take the inheriting class's lines). The property tests in
# tests/index/test_indexer.py compare such edits against a full index.
_NO_LINE_SCOPE = frozenset({"line", "end", "def_line"})


def _lineless(field: str, value: Any) -> Any:
    """``value`` of a facts/scope ``field`` without its line numbers."""
    if field == "binds":  # (name, enc, line, end_line, kind)
        return [(b[0], b[1], b[4]) for b in value]
    if field in ("calls", "refs"):  # (line, ...)
        return [c[1:] for c in value]
    if field == "inst":  # name -> [(enc, line, end, scope)]
        return {k: [(e[0], e[3]) for e in v] for k, v in value.items()}
    if field == "nodes":  # (id, kind, qualname, start, end, ...)
        return [(*n[:3], *n[5:]) for n in value]
    if field in ("imports", "bad_relative"):  # (scope, line, ...)
        return [(i[0], *i[2:]) for i in value]
    if field == "stars":  # (module, line)
        return [st[0] for st in value]
    return value


def _scope_digest_value(sc: Any) -> tuple[Any, ...]:
    return tuple(_lineless(f, getattr(sc, f)) for f in type(sc).__slots__
                 if f not in _NO_LINE_SCOPE)


def fingerprint(facts: Any) -> dict[str, str]:
    """Digest of every key (see the module docstring) of one module's facts."""
    out: dict[str, str] = {}
    for field in type(facts).__slots__:
        if field not in _OWN:
            out["A:" + field] = _digest(_lineless(field, getattr(facts, field)))
    scopes = facts.scopes
    out[ALL] = _digest((list(out.items()), [_scope_digest_value(sc) for sc in scopes]))
    sc0 = scopes[0]
    for field in type(sc0).__slots__:
        if field not in _SCOPE0_TRACKED and field not in _NO_LINE_SCOPE:
            out["A0:" + field] = _digest(_lineless(field, getattr(sc0, field)))
    by_name: dict[str, list[Any]] = {}
    for i, bind in enumerate(sc0.binds):
        by_name.setdefault(bind[0], []).append((i, (bind[1], bind[4])))
    names = {*sc0.byname, *sc0.final, *sc0.muts, *by_name}
    for name in names:
        out["N:" + name] = _digest((sc0.byname.get(name), sc0.final.get(name),
                                    by_name.get(name), sc0.muts.get(name)))
    for field in ("byname", "final", "muts"):
        out["K:" + field] = _digest(list(getattr(sc0, field)))
    subtrees: dict[int, list[Any]] = {}
    for i, top in enumerate(_tops(facts)):
        if i:
            subtrees.setdefault(top, []).append((i, _scope_digest_value(scopes[i])))
    for top, members in subtrees.items():
        out["S:" + str(top)] = _digest(members)
    return out


def changed_keys(old: Any, new: Any) -> set[str]:
    """Keys whose digest differs between two versions of one module's facts (a key
    present in only one version counts as changed)."""
    a, b = fingerprint(old), fingerprint(new)
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
