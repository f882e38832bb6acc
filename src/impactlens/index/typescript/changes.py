"""Atomic changes between two versions of a TypeScript/JavaScript file, in the change
types Python's classifier uses.

Definitions are matched by qualified name (``C.m``; a repeated name — overloads — by its
occurrence). A matched definition whose header differs is a signature change (a
constructor's is ``constructor``, a class's or interface's ``class-decl``), one whose
text differs otherwise a body change; fields, variables, type aliases and enums are
``field`` changes; an import binding that differs is an ``import`` change. A definition
that stops being exported is a ``delete`` of the export (its importers no longer bind),
one that starts is an ``add``. Lines outside every definition and import are the module's
own statements (a ``method-body`` change of the module).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from impactlens.errors import UnparsableError
from impactlens.index.frontend import describe_param_changes
from impactlens.index.typescript.facts import (
    CLASS,
    ENUM,
    FIELD,
    FUNCTION,
    INTERFACE,
    METHOD,
    NAMESPACE,
    TYPE,
    VARIABLE,
    Def,
    Param,
    TsFacts,
)
from impactlens.index.typescript.parse import extract
from impactlens.model import AtomicChange, ChangeType, Params
from impactlens.settings import Settings

_KIND_WORD = {FUNCTION: "function", METHOD: "method", CLASS: "class", INTERFACE: "class",
              FIELD: "field", VARIABLE: "field", TYPE: "field", ENUM: "field",
              NAMESPACE: "class"}


def params(d: Def) -> Params | None:
    """A TypeScript parameter list as the binding check reads it: every parameter is
    positional; optional (``?``) and defaulted ones count as defaults when no required
    one follows; a rest parameter takes the extra arguments. A constructor's list starts
    with the instance (an instantiation supplies it, as Python's ``self``)."""
    if d.params is None:
        return None
    ps: Sequence[Param] = d.params
    rest = next((p.name for p in ps if p.rest), None)
    pos = [p for p in ps if not p.rest]
    n_opt = 0
    for p in reversed(pos):
        if not p.optional:
            break
        n_opt += 1
    names = tuple(p.name for p in pos)
    props = _props(pos)
    if d.qual.rpartition(".")[2] == "constructor":
        return Params(posonly=("this", *names), n_defaults=n_opt, vararg=rest,
                      binding="method", props=props)
    return Params(posonly=names, n_defaults=n_opt, vararg=rest, binding="function",
                  props=props)


def _props(pos: Sequence[Param]) -> tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]:
    """Object-destructured parameters whose inline type says which properties an object
    literal passed there must have and may have."""
    out = []
    for i, p in enumerate(pos):
        if not p.keys or not p.props:
            continue
        required = tuple(n for n, optional in p.props if not optional)
        known = () if any(n == "*" for n, _ in p.props) else tuple(n for n, _ in p.props)
        out.append((i, required, known))
    return tuple(out)


def callable_params(sigs: Sequence[Def]) -> Params | None:
    """One parameter list for a function with overloads, binding a call when some overload
    accepts its argument count: the fewest required, the most accepted, a rest parameter
    if any has one. Positions carry no names (overloads name them differently), so no
    call is taken to have moved between parameters."""
    lists = [p for p in (params(d) for d in sigs) if p is not None]
    if not lists:
        return None
    if len(lists) == 1:
        return lists[0]
    most = max(len(p.positional) for p in lists)
    fewest = min(len(p.positional) - p.n_defaults for p in lists)
    rest = next((p.vararg for p in lists if p.vararg is not None), None)
    return Params(posonly=tuple(f"#{i}" for i in range(most)), n_defaults=most - fewest,
                  vararg=rest, binding=lists[0].binding)


def _callable(defs: Sequence[Def]) -> list[Def]:
    """The signatures a caller binds against: the overloads when there are any (the
    implementation's own list is not callable then), else the definition itself."""
    sigs = [d for d in defs if d.accessor == "overload"]
    return sigs or list(defs)


def _facts(text: str, path: str, which: str) -> TsFacts:
    try:
        facts = extract(path, text.encode("utf-8", "surrogateescape"), "", False)
    except RecursionError:
        raise UnparsableError(path, 0, f"the {which} version nests too deeply to "
                              "analyze") from None
    if facts.errors:
        raise UnparsableError(path, facts.errors[0], f"syntax error in the {which} version")
    return facts


def _keyed(facts: TsFacts) -> dict[tuple[str, int], Def]:
    """Definitions by (qual, occurrence); parameter properties are the constructor's."""
    out: dict[tuple[str, int], Def] = {}
    seen: dict[str, int] = {}
    for d in facts.defs:
        if d.accessor == "param":
            continue
        n = seen.get(d.qual, 0)
        seen[d.qual] = n + 1
        out[(d.qual, n)] = d
    return out


def _exported(facts: TsFacts) -> set[str]:
    """Local definitions the module exports (under any name)."""
    return {local for _, local in facts.exports}


def _lines(text: str, d: Def) -> list[str]:
    return text.splitlines()[d.line - 1: d.end]


_EXPORT = re.compile(r"^\s*export\s+(default\s+)?")


def _body_text(text: str, d: Def) -> str:
    """The definition's lines, stripped, without the ``export`` keyword (exported-ness is
    its own change)."""
    lines = [x.strip() for x in _lines(text, d)]
    if lines and not d.parent:
        lines[0] = _EXPORT.sub("", lines[0])
    return "\n".join(lines)


def _own_lines(text: str, facts: TsFacts) -> list[str]:
    """The module's own statements: lines outside every top-level definition and import."""
    covered: set[int] = set()
    for d in facts.defs:
        if not d.parent:
            covered.update(range(d.line, d.end + 1))
    for i in facts.imports:
        covered.add(i.line)
    return [x.strip() for n, x in enumerate(text.splitlines(), 1)
            if n not in covered and x.strip()]


def classify(before: str | None, after: str | None, path: str, module: str,
             settings: Settings) -> list[AtomicChange]:
    limit = settings.max_entity_chars

    def qual(q: str) -> str:
        return (f"{module}.{q}" if q else module)[:limit]

    if before is None:
        n = max(len((after or "").splitlines()), 1)
        return [AtomicChange(ChangeType.ADD, qual(""), path, (1, n), kind="module",
                             what=f"added module {module}")]
    b = _facts(before, path, "before")
    if after is None:
        gone = [AtomicChange(ChangeType.DELETE, qual(""), path, (1, max(b.lines, 1)),
                             kind="module", what=f"removed module {module}")]
        gone += [_deleted(d, qual, path, "removed") for d in b.defs]
        return gone
    a = _facts(after, path, "after")
    return _diff(b, a, before, after, qual, path)


def _deleted(d: Def, qual: Any, path: str, verb: str) -> AtomicChange:
    kind = _KIND_WORD[d.kind]
    return AtomicChange(ChangeType.DELETE, qual(d.qual), path, (d.line, d.end),
                        before_sig=d.signature, kind=kind,
                        what=f"{verb} {kind} {d.qual.rpartition('.')[2]}",
                        before_params=params(d))


def _diff(b: TsFacts, a: TsFacts, before: str, after: str, qual: Any, path: str
          ) -> list[AtomicChange]:
    out: list[AtomicChange] = []
    bk, ak = _keyed(b), _keyed(a)
    b_exp, a_exp = _exported(b), _exported(a)
    grouped = _overloaded(bk) | _overloaded(ak)
    for q in sorted(grouped):
        got = _compare_overloads(q, bk, ak, before, after, qual, path)
        if got is not None:
            out.append(got)
    bk = {k: d for k, d in bk.items() if k[0] not in grouped}
    ak = {k: d for k, d in ak.items() if k[0] not in grouped}
    for key, d in bk.items():
        if key not in ak:
            if d.parent and (d.parent, 0) not in ak:
                continue  # inside a removed definition: the outer one is the change
            out.append(_deleted(d, qual, path, "removed"))
        elif not d.parent and d.qual in b_exp and d.qual not in a_exp:
            out.append(_deleted(ak[key], qual, path, "no longer exported:"))
    for key, d in ak.items():
        old = bk.get(key)
        if old is None:
            if d.parent and (d.parent, 0) not in bk:
                continue
            out.append(AtomicChange(ChangeType.ADD, qual(d.qual), path, (d.line, d.end),
                                    after_sig=d.signature, kind=_KIND_WORD[d.kind],
                                    what=f"added {_KIND_WORD[d.kind]} {d.qual}"))
            continue
        got = _compare(old, d, before, after, qual, path, bk, ak)
        if got is not None:
            out.append(got)
    out.extend(_imports(b, a, qual, path))
    if _own_lines(before, b) != _own_lines(after, a):
        out.append(AtomicChange(ChangeType.METHOD_BODY, qual(""), path, (1, max(a.lines, 1)),
                                kind="module", what="module-level statements changed"))
    return out


def _overloaded(defs: dict[tuple[str, int], Def]) -> set[str]:
    """Functions and methods declared more than once (overload signatures)."""
    return {q for q, n in defs if n == 1 and defs[(q, 0)].kind in (FUNCTION, METHOD)}


def _compare_overloads(q: str, bk: dict[tuple[str, int], Def], ak: dict[tuple[str, int], Def],
                       before: str, after: str, qual: Any, path: str) -> AtomicChange | None:
    """An overloaded function as one change: its callable signatures (``callable_params``)
    or, when those are the same, its implementation's body. Added or removed as a whole
    falls to the per-definition comparison."""
    old = [d for (k, _n), d in sorted(bk.items()) if k == q]
    new = [d for (k, _n), d in sorted(ak.items()) if k == q]
    if not old or not new:
        gone = old and not new
        d = (old or new)[0]
        if d.parent and (d.parent, 0) not in (ak if gone else bk):
            return None  # inside an added or removed definition: that one is the change
        return (_deleted(d, qual, path, "removed") if gone else AtomicChange(
            ChangeType.ADD, qual(q), path, (d.line, new[-1].end), after_sig=d.signature,
            kind=_KIND_WORD[d.kind], what=f"added {_KIND_WORD[d.kind]} {q}"))
    kind = _KIND_WORD[new[0].kind]
    rng = (new[0].line, new[-1].end)
    bp, ap = callable_params(_callable(old)), callable_params(_callable(new))
    heads = [(d.signature, d.params) for d in _callable(old)]
    if heads != [(d.signature, d.params) for d in _callable(new)]:
        ctype = (ChangeType.CONSTRUCTOR if q.rpartition(".")[2] == "constructor"
                 else ChangeType.METHOD_SIGNATURE)
        return AtomicChange(ctype, qual(q), path, rng, old[0].signature, new[0].signature,
                            kind=kind, what=f"overloads changed ({len(_callable(old))} -> "
                                            f"{len(_callable(new))} signatures)",
                            before_params=bp, after_params=ap)
    if [_body_text(before, d) for d in old] == [_body_text(after, d) for d in new]:
        return None
    return AtomicChange(ChangeType.METHOD_BODY, qual(q), path, rng, old[0].signature,
                        new[0].signature, kind=kind, what="body changed",
                        before_params=bp, after_params=ap)


def _ctor_params(cls: Def, defs: dict[tuple[str, int], Def]) -> Params | None:
    ctor = defs.get((f"{cls.qual}.constructor", 0))
    return params(ctor) if ctor is not None else None


def _compare(old: Def, new: Def, before: str, after: str, qual: Any, path: str,
             bk: dict[tuple[str, int], Def], ak: dict[tuple[str, int], Def]
             ) -> AtomicChange | None:
    rng = (new.line, new.end)
    kind = _KIND_WORD[new.kind]
    name = new.qual.rpartition(".")[2]
    if new.kind in (CLASS, INTERFACE, NAMESPACE):
        if (old.signature, old.extends, old.implements) == (new.signature, new.extends,
                                                            new.implements):
            return None
        return AtomicChange(ChangeType.CLASS_DECL, qual(new.qual), path, (new.line, new.line),
                            old.signature, new.signature, kind="class",
                            what=_describe_class(old, new),
                            before_params=_ctor_params(old, bk),
                            after_params=_ctor_params(new, ak))
    if new.kind in (FUNCTION, METHOD):
        bp, ap = params(old), params(new)
        if old.signature != new.signature or old.params != new.params:
            ctype = (ChangeType.CONSTRUCTOR if name == "constructor"
                     else ChangeType.METHOD_SIGNATURE)
            return AtomicChange(ctype, qual(new.qual), path, rng, old.signature,
                                new.signature, kind=kind, what=_describe_params(old, new),
                                before_params=bp, after_params=ap)
        parent = ak.get((new.parent, 0))
        if parent is not None and parent.kind == INTERFACE:
            return None  # a member signature has no body
        if _body_text(before, old) == _body_text(after, new):
            return None
        return AtomicChange(ChangeType.METHOD_BODY, qual(new.qual), path, rng, old.signature,
                            new.signature, kind=kind, what="body changed",
                            before_params=bp, after_params=ap)
    if _body_text(before, old) == _body_text(after, new):
        return None
    return AtomicChange(ChangeType.FIELD, qual(new.qual), path, rng, old.signature,
                        new.signature, kind="field", what=f"value of {name} changed")


def _describe_class(old: Def, new: Def) -> str:
    parts = []
    if old.extends != new.extends:
        parts.append("extends changed")
    if old.implements != new.implements:
        parts.append("implements changed")
    return "; ".join(parts) or "declaration changed"


def _describe_params(old: Def, new: Def) -> str:
    def changed(name: str, q: Param, p: Param) -> list[str]:
        out = [f"param {name} now {'optional' if p.optional else 'required'}"] \
            if q.optional != p.optional else []
        if q.rest != p.rest:
            out.append(f"param {name} now {'rest' if p.rest else 'single'}")
        if q.type != p.type:
            out.append(f"annotation of {name} changed")
        return out

    parts = describe_param_changes({p.name: p for p in old.params or ()},
                                   {p.name: p for p in new.params or ()}, changed)
    return "; ".join(parts) or "signature changed"


def _imports(b: TsFacts, a: TsFacts, qual: Any, path: str) -> list[AtomicChange]:
    def table(f: TsFacts) -> dict[str, tuple[str, str, str, int]]:
        return {i.local or f"<{i.spec}>": (i.spec, i.name, i.kind, i.line) for i in f.imports}

    bt, at = table(b), table(a)
    out = []
    for local in sorted(bt.keys() | at.keys()):
        o, n = bt.get(local), at.get(local)
        if o is not None and n is not None and o[:3] == n[:3]:
            continue
        line = (n or o)[3]  # type: ignore[index]
        how = "changed" if o and n else "added" if n else "removed"
        out.append(AtomicChange(ChangeType.IMPORT, qual(local.strip("<>")), path,
                                (line, line), kind="import", what=f"import of {local} {how}"))
    return out
