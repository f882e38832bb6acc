"""Symbol-level dependencies: what of another module's facts a file's resolution read.

Resolving a file reads the facts of the modules it names. The indexer hands the resolver
read-recording views of those facts (:class:`Tracked`), and :func:`fingerprint` digests a
module's facts under the same keys. A file is re-resolved after an edit of a module it
consulted only when one of the keys it read has a different digest in the edited
module: the resolver is a deterministic function of its own facts and of what it read,
so equal digests for every key read mean the same resolution (and the same reads).

Keys (strings; a module's facts are split so that a body-only edit of one function
changes only that function's key)::

    N:<name>    module-level name: its bindings (with their indices), reach at the end
                and container mutations (``byname``/``final``/``binds``/``muts``)
    K:<field>   the key set of ``byname``/``final``/``muts`` (``from m import *``...)
    S:<i>       scope ``i``: a class (every field but line numbers, see
                :func:`_lineless`) or a function's header (name, parameters, flags,
                decorators, annotations). Scopes refer to each other by index only, so
                reading a nested scope goes through ``scopes[i]`` and is recorded on its
                own: a method's body edit is not a change of its class
    B:<i>       function scope ``i``'s body: bindings, call sites, returns, yields...
    A0:<field>  any other field of the module scope (``calls``, ``lreach``, ...)
    A:<field>   a field of the facts record itself (``nodes``, ``imports``, ``stars``...)
    ALL         everything (iterating or counting the scopes)

``module`` and ``path`` are not keys: they are the file's identity, and a file whose
module name changes is re-resolved with all its dependents anyway. Scopes and bindings are
numbered in source order, so a def, class or module-level binding *inserted* above others
renumbers them and counts as a change of every one below it (a conservative, not a wrong,
answer); a body-only edit or an addition at the end keeps the numbering. The keys are
stored (``file_reads``): changing what a key means needs a store SCHEMA_VERSION bump.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from impactlens.index.python.facts import FUNCTION

ALL = "ALL"
# a function scope's body: what its statements bind, call, return. The rest (name, params,
# flags, decorators, annotations, pytest marks) is its header.
_BODY = frozenset({"binds", "byname", "final", "calls", "refs", "prefs", "glob", "inst",
                   "returns", "yields", "pcalls", "muts", "lreach"})
_OWN = ("module", "path", "scopes")
_SCOPE0_TRACKED = ("byname", "final", "binds", "muts")

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


class _FunctionScope:
    """A function scope whose header and body fields are recorded as separate keys."""

    __slots__ = ("_body", "_head", "_reads", "_sc")

    def __init__(self, sc: Any, i: int, reads: set[str]) -> None:
        self._sc = sc
        self._reads = reads
        self._head = "S:" + str(i)
        self._body = "B:" + str(i)

    def __getattr__(self, field: str) -> Any:
        self._reads.add(self._body if field in _BODY else self._head)
        return getattr(self._sc, field)


class _Scopes:
    __slots__ = ("_fns", "_reads", "_s0", "_scopes")

    def __init__(self, facts: Any, reads: set[str]) -> None:
        self._scopes = facts.scopes
        self._reads = reads
        self._s0 = _Scope0(facts.scopes[0], reads)
        self._fns: dict[int, _FunctionScope] = {}

    def __getitem__(self, i: int) -> Any:
        if i == 0:
            return self._s0
        if isinstance(i, slice) or i < 0:
            self._reads.add(ALL)
            return self._scopes[i]
        sc = self._scopes[i]
        if sc.kind != FUNCTION:
            self._reads.add("S:" + str(i))
            return sc
        view = self._fns.get(i)
        if view is None:
            view = self._fns[i] = _FunctionScope(sc, i, self._reads)
        return view

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
    if field in ("calls", "refs", "prefs"):  # (line, ...)
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


def _scope_digest_value(sc: Any, fields: Any = None) -> tuple[Any, ...]:
    return tuple(_lineless(f, getattr(sc, f)) for f in fields or type(sc).__slots__
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
    for i in range(1, len(scopes)):
        sc = scopes[i]
        if sc.kind != FUNCTION:
            out["S:" + str(i)] = _digest(_scope_digest_value(sc))
            continue
        fields = type(sc).__slots__
        out["S:" + str(i)] = _digest(_scope_digest_value(sc, [f for f in fields
                                                              if f not in _BODY]))
        out["B:" + str(i)] = _digest(_scope_digest_value(sc, [f for f in fields if f in _BODY]))
    return out


def changed_keys(old: Any, new: Any) -> set[str]:
    """Keys whose digest differs between two versions of one module's facts (a key
    present in only one version counts as changed)."""
    a, b = fingerprint(old), fingerprint(new)
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
