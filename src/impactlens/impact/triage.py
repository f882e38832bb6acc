"""§3.7 (g) triage: MUST-INSPECT / MAY-IMPACT / LOW-RISK.

MUST-INSPECT needs proof: a hard-edge neighbour at distance 1 through a relation
the change provably perturbs — a call/instantiation site whose arguments no
longer bind against the *new* parameter list, or a reference to a removed symbol
or changed field. MAY-IMPACT: hard-edge reachable but not proven (a site that
still binds, or cannot be checked, or any member with ``lex ≥ LEX_MIN``), a
co-change-only candidate with ``score ≥ COCHANGE_MIN``, or a test with
``confidence ≥ TEST_MIN``. Everything else is LOW-RISK.

``conf = max(hard_conf, co_change_score, test_confidence)`` with
``hard_conf = lex · 0.5^(distance − 1)``; MUST entries report ``conf ≥ MUST_MIN``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from impactlens.impact.dag import cause_label
from impactlens.impact.relations import CONSTRUCTOR_NAMES
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeType,
    Edge,
    EdgeKind,
    Params,
    RankedMember,
    Relation,
    Resolution,
    TestImpact,
    Triage,
    TriageEntry,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

BREAK, BINDS, UNKNOWN, NONE = "break", "binds", "unknown", "none"
_RANK = {Bucket.MUST: 0, Bucket.MAY: 1, Bucket.LOW: 2}

# relations whose distance-1 references are broken by a delete / field change
_REFERENCE = {
    ChangeType.DELETE: frozenset({Relation.CALLED_BY, Relation.USED_BY, Relation.IMPORTED_BY,
                                  Relation.INSTANTIATED_BY}),
    ChangeType.FIELD: frozenset({Relation.USED_BY}),
}


# ------------------------------------------------------------ binding check
def bind(params: Params, detail: str, *, instantiation: bool = False) -> tuple[bool | None, str]:
    """Does a call site (``Edge.detail`` JSON) bind against ``params``?

    ``True`` binds, ``False`` is a proven break (with the TypeError Python would
    raise, in words), ``None`` cannot be decided (``*args``/``**kwargs`` at the
    site, or no site detail recorded). An instantiation always supplies the
    receiver; a plain call supplies it when the site's ``bound`` says so.
    """
    try:
        d = json.loads(detail) if detail else None
    except ValueError:
        d = None
    if not isinstance(d, dict) or "args" not in d:
        return None, "call-site arguments not recorded; binding not checked"
    nargs = int(d.get("args") or 0)
    kwargs = [str(k) for k in d.get("kwargs") or []]
    star, dstar = bool(d.get("star")), bool(d.get("dstar"))
    pos = list(params.positional)
    n_req = len(pos) - params.n_defaults
    plist = [(name, i >= n_req, i < len(params.posonly)) for i, name in enumerate(pos)]
    consume = instantiation or (bool(d.get("bound")) and params.binding != "staticmethod")
    if consume and plist:
        plist = plist[1:]
    names = {n: (dflt, po) for n, dflt, po in plist}

    problems: list[str] = []
    if nargs > len(plist) and params.vararg is None:
        problems.append(f"too many positional arguments ({nargs} given, "
                        f"{len(plist)} accepted)")
    filled = {n for n, _, _ in plist[:nargs]}
    for kw in kwargs:
        if kw in filled:
            problems.append(f"multiple values for argument {kw!r}")
        elif (kw in names and not names[kw][1]) or kw in params.kwonly:
            filled.add(kw)
        elif params.kwarg is not None:
            continue
        elif kw in names:
            problems.append(f"positional-only argument {kw!r} passed by keyword")
        else:
            problems.append(f"unexpected keyword argument {kw!r}")
    if problems:
        return False, problems[0]
    if star or dstar:
        used = " and ".join(x for x, on in (("*args", star), ("**kwargs", dstar)) if on)
        return None, f"call site passes {used}; binding cannot be checked statically"
    missing = [n for n, dflt, _ in plist if not dflt and n not in filled]
    missing += [k for k in params.kwonly_required if k not in filled]
    if missing:
        return False, f"missing required argument {missing[0]!r}"
    return True, "call still binds against the new signature"


def _sites(change: AtomicChange, seed: str, edges: Iterable[Edge]) -> list[tuple[Edge, bool]]:
    """Binding sites among a member's admitting edges: (edge, is_instantiation)."""
    ct = change.change_type
    out: list[tuple[Edge, bool]] = []
    if ct is ChangeType.METHOD_SIGNATURE:
        out = [(e, False) for e in edges if e.kind is EdgeKind.CALL and e.dst == seed]
    elif ct in (ChangeType.CONSTRUCTOR, ChangeType.CLASS_DECL):
        cls = seed.rsplit(".", 1)[0] if ct is ChangeType.CONSTRUCTOR else seed
        for e in edges:
            if e.kind is EdgeKind.INSTANTIATE or (e.kind is EdgeKind.CALL and e.dst == cls):
                out.append((e, True))
            elif e.kind is EdgeKind.CALL and e.dst.rsplit(".", 1)[-1] in CONSTRUCTOR_NAMES:
                out.append((e, False))
    return out


_REFERENCE_KINDS = frozenset({EdgeKind.CALL, EdgeKind.USE, EdgeKind.IMPORT,
                              EdgeKind.INSTANTIATE})


def _edited(e: Edge, edited: Mapping[str, frozenset[int]] | None) -> bool:
    return edited is not None and e.line in edited.get(e.file, frozenset())


def perturbation(change: AtomicChange, seed: str, relations: Sequence[Relation],
                 edges: Sequence[Edge],
                 edited: Mapping[str, frozenset[int]] | None = None) -> tuple[str, str]:
    """Verdict for a distance-1 member: ``break`` (proven), ``binds``, ``unknown``
    (a binding site that cannot be checked) or ``none`` (no binding site)."""
    ct = change.change_type
    refs = _REFERENCE.get(ct)
    if refs is not None:
        hit = sorted(r.value for r in relations if r in refs)
        if not hit:
            return NONE, ""
        what = "removed symbol" if ct is ChangeType.DELETE else "changed field"
        ref_edges = sorted((e for e in edges if e.kind in _REFERENCE_KINDS),
                           key=lambda e: (e.file, e.line, e.kind.value))
        for e in ref_edges:
            if e.resolution is not Resolution.AMBIGUOUS and not _edited(e, edited):
                return BREAK, f"references the {what} via {hit[0]} at {e.file}:{e.line}"
        if ref_edges and all(_edited(e, edited) for e in ref_edges):
            return UNKNOWN, "the referencing site is edited by this change; re-check it"
        if ref_edges:
            return UNKNOWN, f"may reference the {what} (ambiguous target); re-check it"
        return BREAK, f"references the {what} via {hit[0]}"
    sites = _sites(change, seed, edges)
    if not sites:
        return NONE, ""
    if change.after_params is None:
        return UNKNOWN, "no constructor defined in the class itself; binding not checked"
    verdicts: list[tuple[int, str, str]] = []
    for e, inst in sorted(sites, key=lambda s: (s[0].file, s[0].line, s[0].detail)):
        where = f"{e.file}:{e.line}"
        if _edited(e, edited):
            verdicts.append((1, UNKNOWN, f"site {where} is edited by this change; re-check it"))
            continue
        ok, why = bind(change.after_params, e.detail, instantiation=inst)
        if ok is False and e.resolution is Resolution.AMBIGUOUS:
            verdicts.append((1, UNKNOWN, f"site {where} would not bind ({why}) but its "
                                         "target is ambiguous; re-check it"))
            continue
        if ok is False:
            verdicts.append((0, BREAK, f"{'instantiation' if inst else 'call'} at {where} "
                                       f"no longer binds: {why}"))
        elif ok is None:
            verdicts.append((1, UNKNOWN, f"site {where}: {why}"))
        else:
            verdicts.append((2, BINDS, f"site {where}: {why}"))
    _, verdict, why = min(verdicts)
    return verdict, why


# ------------------------------------------------------------------ buckets
def bucket_for(*, walked: bool, hard: bool, distance: int, verdict: str, lex: float,
               co_change: float, test_conf: float,
               settings: Settings = DEFAULT) -> tuple[Bucket, float]:
    """The §3.7 bucket and the reported combined confidence of one candidate."""
    hard_conf = lex * 0.5 ** (distance - 1) if hard and distance >= 1 else 0.0
    conf = round(max(hard_conf, co_change, test_conf), 4)
    if walked and distance == 1 and verdict == BREAK:
        return Bucket.MUST, max(conf, settings.must_min)
    lex_ok = lex >= settings.lex_min or "lexical" not in settings.channels
    may = (
        (walked and (verdict in (BINDS, UNKNOWN) or lex_ok))
        or max(hard_conf, co_change) >= settings.may_min
        or co_change >= settings.cochange_min
        or test_conf >= settings.test_min
    )
    return (Bucket.MAY if may else Bucket.LOW), conf


def triage(
    change: AtomicChange,
    seed: str,
    result: WalkResult,
    ranked: Sequence[RankedMember],
    tests: Sequence[TestImpact] = (),
    *,
    edited: Mapping[str, frozenset[int]] | None = None,
    settings: Settings = DEFAULT,
) -> list[TriageEntry]:
    """Triage entries of one atomic change (all buckets), ordered bucket, conf desc."""
    if change.change_type is ChangeType.ADD:
        return [TriageEntry(
            entity=seed, file=change.file, conf=0.0, bucket=Bucket.LOW, distance=0,
            reason=(f"add changed ({change.what}) → nothing references it yet "
                    "(no reverse obligation)"))]
    walked = {m.entity: m for m in result.members}
    test_by_id = {t.test_id: t for t in tests}
    out: list[TriageEntry] = []
    for r in ranked:
        m = walked.get(r.entity)
        verdict, why = NONE, ""
        if m is not None and m.distance == 1:
            verdict, why = perturbation(change, seed, m.admitting_relations, m.edges, edited)
        bucket, conf = bucket_for(
            walked=m is not None, hard=r.hard, distance=r.distance, verdict=verdict,
            lex=r.lex, co_change=r.co_change_score, test_conf=r.test_confidence,
            settings=settings)
        if m is not None:
            rel = "/".join(x.value for x in m.admitting_relations)
            reason = cause_label(change, r.entity, rel)
        elif r.hard:  # a test reached through the test map
            t = test_by_id.get(r.entity)
            reason = cause_label(change, r.entity, t.relation if t else "TESTS", test=True)
        else:
            reason = cause_label(change, r.entity, "co-change") + (
                f" (admitted by co-change, score {r.co_change_score}; no structural edge)")
        if why:
            reason += f"; {why}"
        if bucket is Bucket.LOW and m is not None and r.lex < settings.lex_min:
            reason += "; lexical coupling below LEX_MIN"
        out.append(TriageEntry(entity=r.entity, file=r.file, conf=conf, reason=reason,
                               bucket=bucket, distance=r.distance, hard=r.hard))
    return sort_entries(out)


def sort_entries(entries: Iterable[TriageEntry]) -> list[TriageEntry]:
    return sorted(entries, key=lambda e: (_RANK[e.bucket], -e.conf, e.distance, e.entity))


def merge(entries: Iterable[TriageEntry]) -> Triage:
    """Composite union: one entry per entity with the strongest bucket, the highest
    confidence, the nearest distance and the union of the causes."""
    best: dict[str, TriageEntry] = {}
    reasons: dict[str, list[str]] = {}
    for e in entries:
        reasons.setdefault(e.entity, [])
        if e.reason not in reasons[e.entity]:
            reasons[e.entity].append(e.reason)
        old = best.get(e.entity)
        if old is None:
            best[e.entity] = e
            continue
        bucket = min(old.bucket, e.bucket, key=_RANK.__getitem__)
        best[e.entity] = replace(
            old, bucket=bucket, conf=max(old.conf, e.conf),
            distance=min(old.distance, e.distance), hard=old.hard or e.hard)
    final = [replace(e, reason=" | ".join(sorted(reasons[k]))) for k, e in best.items()]
    ordered = sort_entries(final)
    return Triage(
        must_inspect=tuple(e for e in ordered if e.bucket is Bucket.MUST),
        may_impact=tuple(e for e in ordered if e.bucket is Bucket.MAY),
        low_risk=tuple(e for e in ordered if e.bucket is Bucket.LOW),
    )
