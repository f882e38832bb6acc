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
    S:<qual>    a scope by its dotted name (``#k`` appended to the k-th repeat of a name):
                a class (every field but line numbers, see :func:`_lineless`) or a
                function's header (name, parameters, flags, decorators, annotations).
                Scopes refer to each other by index only, so reading a nested scope goes
                through ``scopes[i]`` and is recorded on its own: a method's body edit is
                not a change of its class
    B:<qual>    a function scope's body: bindings, call sites, returns, yields...
    P:<qual>    a function's parameter summary (``Scope.param_use``): which parameters
                are untyped, which of them the body mentions, which it calls. A call
                site reads this, not the body, so a body edit that keeps it re-resolves
                only the callers that evaluated the body itself (its returns, a flow)
    A0:<field>  any other field of the module scope (``calls``, ``lreach``, ...)
    A:<field>   a field of the facts record itself (``nodes``, ``imports``, ``stars``...)
    ALL         everything (iterating or counting the scopes)

``module`` and ``path`` are not keys: they are the file's identity, and a file whose
module name changes is re-resolved with all its dependents anyway. Scopes and module-level
bindings are numbered in source order and refer to each other by number; the digests
translate those numbers into names (:class:`_Canon`: a scope by its key name, a
module-level binding by its name and rank among the bindings of that name), so a def,
class or binding inserted or removed *above* others is not a change of the ones below it
(the resolver's output is names, never another module's numbers). The keys are stored
(``file_reads``): changing what a key means needs a store SCHEMA_VERSION bump.
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
    """A function scope whose header, body and parameter summary are recorded as separate
    keys."""

    __slots__ = ("_body", "_head", "_params", "_reads", "_sc")

    def __init__(self, sc: Any, name: str, reads: set[str]) -> None:
        self._sc = sc
        self._reads = reads
        self._head = "S:" + name
        self._body = "B:" + name
        self._params = "P:" + name

    def param_use(self) -> Any:
        self._reads.add(self._params)
        return self._sc.param_use()

    def __getattr__(self, field: str) -> Any:
        self._reads.add(self._body if field in _BODY else self._head)
        return getattr(self._sc, field)


class _Scopes:
    __slots__ = ("_fns", "_names", "_reads", "_s0", "_scopes")

    def __init__(self, facts: Any, reads: set[str]) -> None:
        self._scopes = facts.scopes
        self._reads = reads
        self._s0 = _Scope0(facts.scopes[0], reads)
        self._fns: dict[int, _FunctionScope] = {}
        self._names: list[str] | None = None

    def _name(self, i: int) -> str:
        if self._names is None:
            self._names = scope_names(self._scopes)
        return self._names[i]

    def __getitem__(self, i: int) -> Any:
        if i == 0:
            return self._s0
        if isinstance(i, slice) or i < 0:
            self._reads.add(ALL)
            return self._scopes[i]
        sc = self._scopes[i]
        if sc.kind != FUNCTION:
            self._reads.add("S:" + self._name(i))
            return sc
        view = self._fns.get(i)
        if view is None:
            view = self._fns[i] = _FunctionScope(sc, self._name(i), self._reads)
        return view

    def __iter__(self) -> Iterator[Any]:
        self._reads.add(ALL)
        yield self._s0
        yield from self._scopes[1:]

    def __len__(self) -> int:
        self._reads.add(ALL)
        return len(self._scopes)


class Whole:
    """A view of facts read as one piece (a language whose facts have no scopes): any
    read is a read of everything."""

    __slots__ = ("_f", "module", "path", "reads")

    def __init__(self, facts: Any) -> None:
        self._f = facts
        self.reads: set[str] = set()
        self.module = facts.module
        self.path = facts.path

    def __getattr__(self, field: str) -> Any:
        self.reads.add(ALL)
        return getattr(self._f, field)


def view(facts: Any) -> Tracked | Whole:
    """The read-recording view of one file's facts."""
    return Tracked(facts) if hasattr(facts, "scopes") else Whole(facts)


def unrecorded(seen: Any) -> Any:
    """The facts behind a read-recording view (the facts themselves if ``seen`` is not one);
    for asking what kind of file a lookup found without that counting as a read."""
    return seen._f if isinstance(seen, (Tracked, Whole)) else seen


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
# (resolve/, testdisc.py): the line numbers in a file's output are its own — sites,
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


def scope_names(scopes: Any) -> list[str]:
    """The key name of each scope: its dotted name, ``#k`` added to the k-th repeat of a
    name (redefinitions, ``@overload``s, property setters) — stable when scopes above it
    are added or removed, unlike its index."""
    quals = [sc.qual for sc in scopes]
    if len(set(quals)) == len(quals):  # the common case, and the hot path of a full index
        return quals
    return [q if k == 0 else f"{q}#{k}" for q, k in zip(quals, _ranks(quals), strict=True)]


def _ranks(names: list[str]) -> list[int]:
    """For each name, how many times it occurred before it."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        out.append(seen.get(n, 0))
        seen[n] = out[-1] + 1
    return out


# expression tags whose item 1 is a scope index (see the encodings in facts.py)
_SCOPE_TAGS = frozenset({"def", "cls", "sup", "self", "clsp"})


# scope fields evaluated in the enclosing scope (decorators, bases, parametrize values)
_IN_PARENT = frozenset({"bases", "meta", "dval", "param_refs"})


class _Canon:
    """Facts values with scope and module-level binding numbers replaced by names.

    A name read ``("n", name, reach)`` lists the bindings of the scope it is evaluated in
    that reach it; only the module scope's are renamed (a class or function is digested
    whole, its own numbering moves only when it changes)."""

    def __init__(self, facts: Any) -> None:
        self.scopes = scope_names(facts.scopes)
        sc0 = facts.scopes[0]
        names = [bind[0] for bind in sc0.binds]
        # module-level binding i → "name#rank"
        self.binds0 = [f"{n}#{k}" for n, k in zip(names, _ranks(names), strict=True)]
        self.lreach0 = sc0.lreach

    def enc(self, e: Any, where: int) -> Any:
        """An expression, or any list/tuple/dict of them, evaluated in scope ``where``."""
        if isinstance(e, list):
            return [self.enc(x, where) for x in e]
        if isinstance(e, dict):
            return {k: self.enc(v, where) for k, v in e.items()}
        if not isinstance(e, tuple) or not e:
            return e
        tag = e[0]
        if tag in _SCOPE_TAGS and len(e) == 2 and isinstance(e[1], int):
            return (tag, self.scopes[e[1]])
        if tag == "an" and len(e) == 4 and isinstance(e[2], int):
            return (tag, self.enc(e[1], e[2]), self.scopes[e[2]], self.enc(e[3], where))
        if tag == "n" and len(e) == 3 and where == 0:
            reach = self.lreach0[e[2]] if isinstance(e[2], int) else e[2]
            return (tag, e[1], self.bind_names(reach))
        return tuple(self.enc(x, where) for x in e)

    def bind_names(self, ids: Any) -> Any:
        return None if ids is None else tuple(self.binds0[i] for i in ids)

    def field(self, sc: Any, own: int, field: str, value: Any) -> Any:
        """Field ``field`` of scope ``sc`` (index ``own``): line numbers dropped, numbers
        named."""
        value = _lineless(field, value)
        if field in ("parent", "cls", "setter"):
            return self.scopes[value] if value >= 0 else value
        if field in _IN_PARENT:
            return self.enc(value, sc.parent)
        if field == "muts":  # name -> [(key, enc, scope)]
            return {k: [(m[0], self.enc(m[1], m[2]), self.scopes[m[2]]) for m in v]
                    for k, v in value.items()}
        if field == "inst":  # name -> [(enc, scope)] once lines are dropped
            return {k: [(self.enc(x[0], x[1]), self.scopes[x[1]]) for x in v]
                    for k, v in value.items()}
        if field == "selfs":
            # the attributes, not their indices into the body's calls and refs: a reader
            # that follows an index reads the body (its B: key) as well, and a statement
            # added above a self site is not a change of the function's header
            return tuple(tuple(a for a, _i in part) for part in value)
        if field == "pcalls":  # name -> (nargs, kwnames, star, dstar, scope)
            return {k: (*v[:4], self.scopes[v[4]]) for k, v in value.items()}
        if own == 0 and field in ("byname", "final"):
            return {k: self.bind_names(v) for k, v in value.items()}
        if own == 0 and field == "lreach":
            return tuple(self.bind_names(r) for r in value)
        if own == 0 and field == "binds":  # (name, enc, kind); the position is the rank
            return [(b[0], self.enc(b[1], 0), b[2]) for b in value]
        return self.enc(value, own)

    def facts_field(self, field: str, value: Any) -> Any:
        """Field ``field`` of the facts record: line numbers dropped, numbers named."""
        value = _lineless(field, value)
        if field == "nodes":  # (id, kind, qualname, ..., scope index or -1)
            return [(*n[:-1], self.scopes[n[-1]] if n[-1] >= 0 else -1) for n in value]
        if field in ("imports", "bad_relative"):  # (scope, ...)
            return [(self.scopes[x[0]], *x[1:]) for x in value]
        return self.enc(value, 0)  # all_spec: names and module-level expressions

    def scope(self, i: int, sc: Any) -> dict[str, Any]:
        """Every field of scope ``i`` but its line numbers, in field order."""
        return {f: self.field(sc, i, f, getattr(sc, f))
                for f in type(sc).__slots__ if f not in _NO_LINE_SCOPE}


def fingerprint(facts: Any) -> dict[str, str]:
    """Digest of every key (see the module docstring) of one module's facts."""
    canon = _Canon(facts)
    out: dict[str, str] = {}
    for field in type(facts).__slots__:
        if field not in _OWN:
            out["A:" + field] = _digest(canon.facts_field(field, getattr(facts, field)))
    scopes = facts.scopes
    values = [canon.scope(i, sc) for i, sc in enumerate(scopes)]  # once: ALL, S: and B: keys
    out[ALL] = _digest((list(out.items()), [tuple(v.values()) for v in values]))
    sc0 = scopes[0]
    for field in type(sc0).__slots__:
        if field not in _SCOPE0_TRACKED and field not in _NO_LINE_SCOPE:
            out["A0:" + field] = _digest(canon.field(sc0, 0, field, getattr(sc0, field)))
    by_name: dict[str, list[Any]] = {}
    for bind in sc0.binds:  # in order: the position in the list is the binding's rank
        by_name.setdefault(bind[0], []).append((canon.enc(bind[1], 0), bind[4]))
    muts = canon.field(sc0, 0, "muts", sc0.muts)
    for name in {*sc0.byname, *sc0.final, *sc0.muts, *by_name}:
        out["N:" + name] = _digest((canon.bind_names(sc0.byname.get(name)),
                                    canon.bind_names(sc0.final.get(name)),
                                    by_name.get(name), muts.get(name)))
    for field in ("byname", "final", "muts"):
        out["K:" + field] = _digest(list(getattr(sc0, field)))
    for i in range(1, len(scopes)):
        v, name = values[i], canon.scopes[i]
        if scopes[i].kind != FUNCTION:
            out["S:" + name] = _digest(tuple(v.values()))
            continue
        out["S:" + name] = _digest(tuple(x for f, x in v.items() if f not in _BODY))
        out["B:" + name] = _digest(tuple(x for f, x in v.items() if f in _BODY))
        use = scopes[i].param_use()
        out["P:" + name] = _digest((use.plain, use.mentioned,
                                    canon.field(scopes[i], i, "pcalls", use.pcalls)))
    return out


def changed_keys(old: Any, new: Any) -> set[str]:
    """Keys whose digest differs between two versions of one module's facts (a key
    present in only one version counts as changed)."""
    if not hasattr(old, "scopes") or not hasattr(new, "scopes"):  # read whole: one key
        return {ALL} if _digest(old) != _digest(new) else set()
    a, b = fingerprint(old), fingerprint(new)
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
