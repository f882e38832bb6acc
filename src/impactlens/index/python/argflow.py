"""Argument-type flow: what a call passes types the callee's unannotated parameters.

A call ``use(Pool())`` resolved to a repository function whose parameter ``pool`` has no
annotation and is used in its body is a *flow*: the callee's body is evaluated again
with ``pool`` bound to what the argument evaluates to (a child resolver with its own
memos, see :func:`run_flows`), and the edges that differ from the callee's own resolution
are recorded — ``inferred``, detail ``"flow": true`` — at the call in the file making it,
like a receiver context (resolve/contexts.py): only that site knows the argument.
So the flow is read through the same recording lookup as everything else and an
incremental index equals a full one: editing the call re-resolves its own file, editing
the callee re-resolves every file that read the callee's body.

A constructor call types ``__init__``'s parameters and, through ``self.f = param``, the
fields they are stored in: the class's methods that read those fields are evaluated
under the flow as well (``Mailer(Logger())`` → ``self.logger.log()``).

Bounds: at most :data:`MAX_TYPES` values per parameter (more: not flowed), a budget of
:data:`MAX_FLOWS` flows per file (shared by nested flows) and :data:`MAX_DEPTH` levels of
flows started inside flows; flows are processed in the order their calls were resolved,
so the bounds cut deterministically.
"""

from __future__ import annotations

import contextlib
from typing import Any

from impactlens.index.python.facts import (
    B_DEF,
    FUNCTION,
    P_POS,
    P_POSONLY,
    ParamUse,
    enc_names,
    mentioned_names,
)

MAX_TYPES = 4
MAX_FLOWS = 3
MAX_DEPTH = 2
_CONCRETE = frozenset({"I", "F", "C", "SL", "DL", "SEQ"})  # values worth re-evaluating a body for
_P: tuple[Any, ...] = ("p",)


def note(r: Any, mf: Any, sidx: int, fargs: tuple[Any, ...], recv: Any, tk: Any,
         bound: bool, rk: Any, line: int) -> None:
    """Queue a flow into function ``tk`` (called bound or not, on receiver class ``rk``)
    from a call site in scope ``sidx`` of ``mf`` passing ``fargs``."""
    if r.flow_budget[0] <= 0 or type(tk) is not tuple or type(tk[1]) is not int:
        return
    if r.flow_depth == 0 and mf.module != r.facts.module:
        return  # a site of another file (a context, a fixture): no line here to record at
    cmf = r.mod(tk[0])
    if cmf is None or cmf.is_test:
        return
    cs = cmf.scopes[tk[1]]
    if cs.kind != FUNCTION:
        return
    use = param_use(r, cmf, tk[1])
    if not use.plain:
        return
    typed: list[tuple[str, tuple[Any, ...]]] = []
    raw: list[tuple[str, int]] = []  # functions passed as defined, not as decorated
    for pos, aenc in fargs:
        pname = _param(cs, pos, bound, use)
        if pname is None or not _flows_into(r, cmf, tk[1], cs, pname, use):
            continue
        vals, _ = r.vals(mf, sidx, aenc, recv)
        got = tuple(v for v in vals if v[0] in _CONCRETE and (v[0] != "F" or v[1:3] != tk))
        if got and len(got) <= MAX_TYPES:
            typed.append((pname, got))
            if aenc[0] == "def":  # a decorator's argument: the undecorated function
                raw.extend((v[1], v[2]) for v in got if v[0] == "F")
    if not typed:
        return
    if rk is not None and rk == (tk[0], cs.cls):
        rk = None  # on its own class the method runs as its file resolves it
    key = (tk, rk, tuple(typed), tuple(raw))
    if key in r.flow_seen:
        return
    r.flow_seen.add(key)
    r.flow_budget[0] -= 1
    r.flows.append((*key, line))


def param_use(r: Any, mf: Any, sidx: int) -> ParamUse:
    """The parameter summary of function scope ``sidx`` of ``mf``, once per resolver."""
    key = (mf.module, sidx)
    got = r._param_uses.get(key)
    if got is None:
        got = r._param_uses[key] = mf.scopes[sidx].param_use()
    return got  # type: ignore[no-any-return]


def _param(cs: Any, pos: Any, bound: bool, use: ParamUse) -> str | None:
    """The name of the parameter an argument (position or keyword) binds, if unannotated."""
    pname: str | None = None
    if isinstance(pos, int):
        idx = pos + (1 if bound else 0)
        if idx < len(cs.params) and cs.params[idx][1] in (P_POSONLY, P_POS):
            pname = cs.params[idx][0]
    elif any(p[0] == pos for p in cs.params):
        pname = pos
    return pname if pname in use.plain else None


def _flows_into(r: Any, cmf: Any, fsidx: int, cs: Any, pname: str, use: ParamUse) -> bool:
    """Whether the callee's body (or, for ``__init__``, a field it sets) mentions ``pname``."""
    if pname in use.mentioned:
        return True
    return bool(_typed_fields(r, cmf, fsidx, cs, (pname,)))


def scope_names(r: Any, mf: Any, sidx: int) -> frozenset[str]:
    """Names and attribute names mentioned by a function scope's sites and bindings."""
    key = (mf.module, sidx)
    got = r._flow_names.get(key)
    if got is None:
        got = r._flow_names[key] = mentioned_names(mf.scopes[sidx])
    return got  # type: ignore[no-any-return]


def _typed_fields(r: Any, cmf: Any, fsidx: int, cs: Any, pnames: Any) -> set[str]:
    """Fields of an ``__init__``'s class assigned (in it) from one of ``pnames``."""
    if cs.name != "__init__" or cs.cls < 0:
        return set()
    out: set[str] = set()
    for field, entries in cmf.scopes[cs.cls].inst.items():
        for enc, _l, _e, msidx in entries:
            if msidx == fsidx:
                names: set[str] = set()
                enc_names(enc, names, 0)
                if not names.isdisjoint(pnames):
                    out.add(field)
    return out


def _field_readers(r: Any, cmf: Any, fsidx: int, cs: Any, fields: set[str]) -> list[int]:
    """The other methods of ``__init__``'s class that read one of ``fields``."""
    csc = cmf.scopes[cs.cls]
    out: list[int] = []
    for bids in csc.byname.values():
        for b in bids:
            bind = csc.binds[b]
            if (bind[4] == B_DEF and bind[1][1] != fsidx
                    and not fields.isdisjoint(scope_names(r, cmf, bind[1][1]))):
                out.append(bind[1][1])
    return sorted(set(out))


def run_flows(r: Any, raw: list[Any]) -> None:
    """Evaluate the queued flows; append the edges they add to ``raw`` (at the flow's
    call line, ``inferred`` unless ambiguous)."""
    from impactlens.index.python import resolve as rs

    have = {e[:4] for e in raw}
    for at, e in _collect(r):
        key = (e[0], e[1], e[2], at)
        if key in have or not e[0]:
            continue
        have.add(key)
        res = rs.R_INFERRED if e[4] == rs.R_EXACT else e[4]
        raw.append((e[0], e[1], e[2], at, res, rs.flow_detail(e[5]), e[6]))


def _collect(r: Any) -> list[tuple[int, Any]]:
    """(line of the flow's call in this file, raw edge) of every queued flow."""
    out: list[tuple[int, Any]] = []
    while r.flows:
        tk, rk, typed, raw, at = r.flows.pop(0)
        out.extend((at, e) for e in _flow_edges(r, tk, rk, typed, raw))
    return out


def _flow_edges(r: Any, tk: Any, rk: Any, typed: Any, raw: Any) -> list[Any]:
    """Edges of the callee's sites that depend on the flowed parameters (and of the
    sites reading the fields ``__init__`` stores them in), evaluated with the flowed
    values, minus what the same sites give without them."""
    mod, fsidx = tk
    cmf = r.mod(mod)
    if cmf is None:
        return []
    cs = cmf.scopes[fsidx]
    # a child resolver with its own memos, sharing those parameter values cannot change;
    # calling a function passed as defined runs no wrapper (resolve/sites.py wrappers)
    child = r.flow_child({(mod, fsidx, p): list(vals) for p, vals in typed}, raw)
    params = {p for p, _v in typed}
    work = [(fsidx, params)]
    fields = _typed_fields(r, cmf, fsidx, cs, params)
    if fields:
        work += [(m, fields) for m in _field_readers(r, cmf, fsidx, cs, fields)]
    out: list[Any] = []
    for s, seeds in work:
        calls, refs = _dependent_sites(cmf.scopes[s], seeds)
        base = {(e[1], e[2]) for e in _evaluate(r, cmf, s, calls, refs, rk)}
        out.extend(e for e in _evaluate(child, cmf, s, calls, refs, rk)
                   if (e[1], e[2]) not in base)
    child.receiver_contexts(out)  # receiver contexts seeded under the flow (an inherited getter...)
    if child.flow_depth < MAX_DEPTH:
        out.extend(e for _at, e in _collect(child))
    return out


def _dependent_sites(sc: Any, seeds: set[str]) -> tuple[list[Any], list[Any]]:
    """A scope's calls and references that mention ``seeds`` or a local bound from them."""
    names = set(seeds)
    grown = True
    while grown:  # locals assigned from dependent values (``conn = pool.acquire()``)
        grown = False
        for bind in sc.binds:
            if bind[0] not in names and _mentions(bind[1], names):
                names.add(bind[0])
                grown = True
    calls = [site for site in sc.calls
             if _mentions(site[1], names) or any(_mentions(e, names) for _p, e in site[6])]
    refs = [ref for ref in (*sc.refs, *sc.prefs) if _mentions(ref[1], names)]
    return calls, refs


def _mentions(enc: Any, names: set[str]) -> bool:
    found: set[str] = set()
    enc_names(enc, found, 0)
    return not found.isdisjoint(names)


def _evaluate(r: Any, mf: Any, s: Any, calls: list[Any], refs: list[Any],
              rk: Any) -> list[Any]:
    """Raw edges of the given sites of scope ``s`` resolved by ``r`` (receiver ``rk``)."""
    from impactlens.index.python.resolve import Sink

    sink = Sink()
    qual = mf.scopes[s].qual
    for site in calls:
        with contextlib.suppress(RecursionError):
            r.resolve_call(mf, s, site, qual, sink, rk)
    for ref in refs:
        with contextlib.suppress(RecursionError):
            r.resolve_ref(mf, s, ref, qual, sink, rk)
    return sink.edges
