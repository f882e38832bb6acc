"""§3.7 (g) triage: MUST-INSPECT / MAY-IMPACT / LOW-RISK.

MUST-INSPECT needs proof: a hard-edge neighbour at distance 1 through a relation
the change provably perturbs — a call/instantiation site whose arguments no
longer bind against the *new* parameter list (or bind, but a positional argument
now lands in another parameter), a reference to a removed symbol, or an override
that no longer accepts the calls its base accepts. MAY-IMPACT: hard-edge
reachable but not proven — distance ≥ 2, or distance 1 with no binding break (a
site that still binds or cannot be checked, a reader of a changed value, a caller
of an escaping body change, a subclass; with no evidence at all, ``lex ≥
LEX_MIN``) — a co-change-only candidate with ``score ≥ COCHANGE_MIN``, or a test
with ``confidence ≥ TEST_MIN``. Everything else the walk touched is LOW-RISK.

``conf = max(hard_conf, co_change, test_confidence)`` with
``hard_conf = lex · 0.5^(distance − 1)`` orders the entries; MUST entries report
``conf ≥ MUST_MIN``. ``co_change`` is the §3.4 score, raised by
``settings.cochange_proximity`` for a file that also directly references the changed
entity (:func:`co_change_conf`) — the issue's "co-change of a file that hard edges also
reach raises its combined confidence".

Beyond the walk (what depends on the change), two obligations come from what the edit
itself calls: a call it writes that its callee's current signature does not accept puts
the callee in MUST-INSPECT (:func:`forward_entries`), and a private helper whose last call
it removed is MAY-IMPACT as now unused (:func:`orphan_entries`). A file that mentions an
identifier the edit removed the last mention of is MAY-IMPACT too (:func:`retired_entries`,
impact/retired.py). Within a bucket, the task text's and the edit's own text's relevance
to an entry's file raise it in the order (:func:`by_relevance`).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from impactlens.impact.classify import params_of
from impactlens.impact.dag import cause_label, short_name
from impactlens.impact.graphcache import cached
from impactlens.impact.relations import CONSTRUCTOR_NAMES
from impactlens.impact.retired import retired_reason
from impactlens.index.discover import library_in
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeType,
    Edge,
    EdgeKind,
    IndexGraph,
    MissingName,
    Node,
    NodeKind,
    Params,
    RankedMember,
    Relation,
    Resolution,
    TestImpact,
    Triage,
    TriageEntry,
    Unexported,
    WalkResult,
)
from impactlens.settings import DEFAULT, Settings

BREAK, BINDS, UNKNOWN, AFFECTED, NONE = "break", "binds", "unknown", "affected", "none"
_RANK = {Bucket.MUST: 0, Bucket.MAY: 1, Bucket.LOW: 2}
R = Relation

# relations whose distance-1 references are broken by a delete (references to the removed
# symbol). A field change keeps the symbol: its readers see a new value, nothing breaks.
_REFERENCE = {
    ChangeType.DELETE: frozenset({R.CALLED_BY, R.USED_BY, R.IMPORTED_BY, R.INSTANTIATED_BY}),
}

# distance-1 relations that carry the change to the neighbour by their nature, without a
# binding question: perturbed, not proven broken (MAY-IMPACT whatever the lexical score)
_AFFECTS: Mapping[ChangeType, Mapping[Relation, str]] = {
    ChangeType.METHOD_BODY: {R.CALLERS: "uses what it returns or changes, which the edit alters"},
    ChangeType.FIELD: {R.USED_BY: "reads the field whose value changed",
                       R.CONSTRUCTED_BY: "constructs instances that carry the changed field",
                       R.SUBCLASS_OF: "inherits the changed field"},
    ChangeType.CLASS_DECL: {R.SUBCLASS_OF: "inherits the changed class declaration"},
    ChangeType.IMPORT: {R.IMPORTED_BY: "uses the imported name, which now binds to something else"},
    ChangeType.DELETE: {R.OVERRIDDEN_BY: "overrode the removed method; re-check its callers"},
}


# ------------------------------------------------------------ binding check
def _property_problem(params: Params, keys: object) -> str:
    """An object literal passed to an object-destructured parameter that lacks a required
    property or names one the parameter's type does not have (TypeScript's excess
    property check); "" when none (or no literal was passed there)."""
    given = keys if isinstance(keys, dict) else {}
    for pos, required, known in params.props:
        got = given.get(str(pos))
        if not isinstance(got, list):
            continue
        absent = [k for k in required if k not in got]
        if absent:
            return f"missing property {absent[0]!r} in the object passed as argument {pos + 1}"
        extra = [k for k in got if known and k not in known]
        if extra:
            return f"unknown property {extra[0]!r} in the object passed as argument {pos + 1}"
    return ""


def bind(params: Params, detail: str, *, instantiation: bool = False,
         before: Params | None = None) -> tuple[bool | None, str]:
    """Does a call site (``Edge.detail`` JSON) bind against ``params``?

    ``True`` binds, ``False`` is a proven break (with the TypeError Python would
    raise, in words), ``None`` cannot be decided (``*args``/``**kwargs`` at the
    site, or no site detail recorded). An instantiation always supplies the
    receiver; a plain call supplies it when the site's ``bound`` says so.

    With the ``before`` parameter list a site that still binds by count is also a
    break when one of its positional arguments now lands in a different parameter
    (a parameter inserted before, or a reordering): ``f(a, b)`` against ``f(x, new, y)``.
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
    wrong = _property_problem(params, d.get("keys"))
    if wrong:
        return False, wrong
    if before is not None:
        old = list(before.positional)
        if consume and old:
            old = old[1:]
        new = [n for n, _, _ in plist]
        for i, name in enumerate(old[:nargs]):
            if name in new and new.index(name) != i and i < len(new):
                return False, (f"positional argument {i + 1} still binds but now lands in "
                               f"{new[i]!r} instead of {name!r}")
    return True, "call still binds against the new signature"


# ------------------------------------------------------- override consistency
def _receiverless(p: Params) -> list[tuple[str, bool]]:
    """``(name, optional)`` of the positional parameters a caller passes."""
    pos = list(p.positional)
    n_req = len(pos) - p.n_defaults
    out = [(n, i >= n_req) for i, n in enumerate(pos)]
    return out[1:] if p.binding in ("method", "classmethod") and out else out


def accepts_base_calls(base: Params, override: Params) -> tuple[bool, str]:
    """Does ``override`` accept every call ``base`` accepts, binding each argument to the
    same parameter? (A call through the base interface reaches the override.)"""
    if override.vararg is not None and override.kwarg is not None:
        return True, "the override takes *args and **kwargs"
    b, o = _receiverless(base), _receiverless(override)
    o_names = {n for n, _ in o}
    for i, (name, opt) in enumerate(b):
        if i >= len(o):
            return False, f"the override does not take {name!r}"
        oname, oopt = o[i]
        if oname != name:
            return False, f"parameter {i + 1} is {name!r} in the base, {oname!r} in the override"
        if opt and not oopt:
            return False, f"{name!r} is optional in the base but required in the override"
    for oname, oopt in o[len(b):]:
        if not oopt:
            return False, f"the override requires {oname!r}, which the base does not take"
    if base.vararg is not None and override.vararg is None:
        return False, "the base takes *args, the override does not"
    if base.kwarg is not None and override.kwarg is None:
        return False, "the base takes **kwargs, the override does not"
    for k in base.kwonly:
        if k not in override.kwonly and k not in o_names and override.kwarg is None:
            return False, f"the override does not take keyword {k!r}"
        if k not in base.kwonly_required and k in override.kwonly_required:
            return False, f"{k!r} is optional in the base but required in the override"
    for k in override.kwonly_required:
        if k not in base.kwonly_required:
            return False, f"the override requires keyword {k!r}, which the base does not take"
    return True, "the override still accepts every call through the base"


def node_params(node: Node | None) -> Params | None:
    """The parameter list of an indexed def, parsed from its one-line signature."""
    if node is None or not node.signature:
        return None
    sig = node.signature
    at = sig.find("def ")
    if at < 0:
        return None
    head = sig[at:]
    if sig[:at].strip().endswith("async"):
        head = "async " + head
    try:
        fn = ast.parse(head.rstrip().rstrip(":") + ":\n    pass\n").body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    params = params_of(fn, node.kind is NodeKind.METHOD)
    decos = {d.rsplit(".", 1)[-1] for d in node.decorators}
    if node.kind is NodeKind.METHOD and decos & {"staticmethod", "classmethod"}:
        return replace(params, binding=sorted(decos & {"staticmethod", "classmethod"})[0])
    return params


def override_verdict(change: AtomicChange, relations: Sequence[Relation],
                     member: Node | None) -> tuple[str, str] | None:
    """A signature change and its overridden base / its overriders: does the override still
    accept the base's calls — and did it before? ``None`` when no override is involved."""
    if change.change_type is not ChangeType.METHOD_SIGNATURE:
        return None
    up, down = R.OVERRIDES in relations, R.OVERRIDDEN_BY in relations
    if not (up or down):
        return None
    other = node_params(member)
    if other is None or change.after_params is None:
        return NONE, ""
    if up:  # the changed method overrides `member`
        ok_after, why = accepts_base_calls(other, change.after_params)
        ok_before = (change.before_params is None
                     or accepts_base_calls(other, change.before_params)[0])
        role = "the changed override no longer matches this base"
    else:  # `member` overrides the changed method
        ok_after, why = accepts_base_calls(change.after_params, other)
        ok_before = (change.before_params is None
                     or accepts_base_calls(change.before_params, other)[0])
        role = "this override no longer matches the changed base"
    if ok_after:
        return BINDS, why
    if not ok_before:
        return UNKNOWN, f"override already inconsistent before the change ({why}); re-check it"
    return BREAK, f"{role}: {why}"


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
                 edited: Mapping[str, frozenset[int]] | None = None,
                 member: Node | None = None) -> tuple[str, str]:
    """Verdict for a distance-1 member: ``break`` (proven), ``binds`` (checked, still
    binds), ``unknown`` (a binding site that cannot be checked), ``affected`` (reached over
    a relation that carries the change by its nature: a reader of a changed value, a
    caller of an escaping body change, a subclass) or ``none`` (no evidence either way).
    ``member`` is the neighbour's node (its signature, for override consistency)."""
    ct = change.change_type
    verdicts = [v for v in (_reference_verdict(change, seed, relations, edges, edited),
                            _binding_verdict(change, seed, edges, edited),
                            override_verdict(change, relations, member))
                if v is not None]
    affects = _AFFECTS.get(ct, {})
    verdicts += [(AFFECTED, affects[r]) for r in relations if r in affects]
    if not verdicts:
        return NONE, ""
    order = {BREAK: 0, UNKNOWN: 1, AFFECTED: 2, BINDS: 3, NONE: 4}
    return min(verdicts, key=lambda v: order[v[0]])


def _reference_verdict(change: AtomicChange, seed: str, relations: Sequence[Relation],
                       edges: Sequence[Edge], edited: Mapping[str, frozenset[int]] | None
                       ) -> tuple[str, str] | None:
    ct = change.change_type
    refs = _REFERENCE.get(ct)
    if refs is not None:
        if not any(r in refs for r in relations):
            return None
        what = "removed symbol"
        ref_edges = sorted((e for e in edges if e.kind in _REFERENCE_KINDS),
                           key=lambda e: (e.file, e.line, e.kind.value))
        for e in ref_edges:
            if e.resolution is not Resolution.AMBIGUOUS and not _edited(e, edited):
                return BREAK, f"refers to the {what} at {e.file}:{e.line}"
        if ref_edges and all(_edited(e, edited) for e in ref_edges):
            return UNKNOWN, "the referencing site is edited by this change; re-check it"
        if ref_edges:
            return UNKNOWN, f"may reference the {what} (ambiguous target); re-check it"
        return BREAK, f"refers to the {what}"
    return None


def _binding_verdict(change: AtomicChange, seed: str, edges: Sequence[Edge],
                     edited: Mapping[str, frozenset[int]] | None) -> tuple[str, str] | None:
    sites = _sites(change, seed, edges)
    if not sites:
        return None
    if change.after_params is None:
        return UNKNOWN, "no constructor defined in the class itself; binding not checked"
    verdicts: list[tuple[int, str, str]] = []
    for e, inst in sorted(sites, key=lambda s: (s[0].file, s[0].line, s[0].detail)):
        where = f"{e.file}:{e.line}"
        if _edited(e, edited):
            verdicts.append((1, UNKNOWN, f"site {where} is edited by this change; re-check it"))
            continue
        ok, why = bind(change.after_params, e.detail, instantiation=inst,
                       before=change.before_params if change.before_params is not None
                       and change.change_type is not ChangeType.CLASS_DECL else None)
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
    """The §3.7 bucket and the reported combined confidence of one candidate.

    MUST-INSPECT: a walk member at distance 1 with a proven break. MAY-IMPACT: any other
    walk member at distance ≥ 2 (reachable, not provably perturbed); a distance-1 member
    with no binding break — checked and still binding, uncheckable, or perturbed by the
    nature of its relation — or, with no such evidence at all, lexically coupled
    (``lex ≥ LEX_MIN``); a soft candidate with ``co_change ≥ COCHANGE_MIN``; a test with
    ``test_confidence ≥ TEST_MIN``. LOW-RISK: the rest the walk touched (tests below
    TEST_MIN, weak co-change, a distance-1 neighbour with no evidence and no lexical
    coupling). ``conf`` = max(lex·0.5^(d−1), co-change, test confidence) orders the
    entries; MUST entries report at least MUST_MIN."""
    hard_conf = lex * 0.5 ** (distance - 1) if hard and distance >= 1 else 0.0
    conf = round(max(hard_conf, co_change, test_conf), 4)
    if walked and distance == 1 and verdict == BREAK:
        return Bucket.MUST, max(conf, settings.must_min)
    lex_ok = lex >= settings.lex_min or "lexical" not in settings.channels
    may = (
        (walked and distance >= 2)
        or (walked and distance == 1 and (verdict in (BINDS, UNKNOWN, AFFECTED) or lex_ok))
        or max(hard_conf, co_change) >= settings.may_min
        or co_change >= settings.cochange_min
        or test_conf >= settings.test_min
    )
    return (Bucket.MAY if may else Bucket.LOW), conf


def dependent_files(graph: IndexGraph | None, seed: str, settings: Settings) -> frozenset[str]:
    """Files holding a direct reference to the changed entity (a call, import, use,
    instantiation, subclass or override of it): its 1-hop structural dependents."""
    if graph is None or settings.cochange_proximity == 0 or "walk" not in settings.channels:
        return frozenset()
    return frozenset(e.file for e in graph.in_edges(seed))


def sole_caller_file(graph: IndexGraph | None, seed: str, own_file: str,
                     settings: Settings = DEFAULT) -> str | None:
    """The one library file other than ``own_file`` whose code calls ``seed``; None when
    no file or several do (tests, docs and examples not counted). A function that only
    one other file calls is a piece of that file's work, and a change to it tends to go
    with a change there (measured by `impactlens bench history`)."""
    if graph is None or not settings.sole_caller_weight or "walk" not in settings.channels:
        return None
    library = library_in([own_file])
    files = {e.file for e in graph.in_edges(seed, frozenset({EdgeKind.CALL}))
             if e.file != own_file and library(e.file)}
    return files.pop() if len(files) == 1 else None


def co_change_conf(score: float, dependent: bool, settings: Settings = DEFAULT) -> float:
    """The co-change evidence of a file as it enters the combined confidence: the channel's
    score, raised toward 1 when the file is also a direct structural dependent of the
    changed entity (two independent signals agreeing, ``s + (1 − s)·cochange_proximity``;
    a file with no co-change history gains nothing)."""
    if not dependent or score <= 0:
        return score
    return round(score + (1.0 - score) * settings.cochange_proximity, 4)


def triage(
    change: AtomicChange,
    seed: str,
    result: WalkResult,
    ranked: Sequence[RankedMember],
    tests: Sequence[TestImpact] = (),
    *,
    edited: Mapping[str, frozenset[int]] | None = None,
    graph: IndexGraph | None = None,
    settings: Settings = DEFAULT,
) -> list[TriageEntry]:
    """Triage entries of one atomic change (all buckets), ordered bucket, conf desc.
    ``graph`` supplies the distance-1 neighbours' signatures (override consistency)."""
    out: list[TriageEntry] = []
    if change.change_type is ChangeType.ADD:  # §3.2: no reverse obligation; `ranked` holds
        # only its file's co-change partners, soft evidence triaged as any other
        out.append(TriageEntry(
            entity=seed, file=change.file, conf=0.0, bucket=Bucket.LOW, distance=0,
            reason=f"{change.what or 'added'}: nothing refers to it yet"))
    walked = {m.entity: m for m in result.members}
    test_by_id = {t.test_id: t for t in tests}
    near: dict[str, Node] = {}
    if graph is not None and change.change_type is ChangeType.METHOD_SIGNATURE:
        near = cached(graph).nodes(m.entity for m in result.members if m.distance == 1 and (
            {R.OVERRIDES, R.OVERRIDDEN_BY} & set(m.admitting_relations)))
    dependents = dependent_files(graph, seed, settings)
    sole = sole_caller_file(graph, seed, change.file, settings)
    for r in ranked:
        m = walked.get(r.entity)
        verdict, why = NONE, ""
        if m is not None and m.distance == 1:
            verdict, why = perturbation(change, seed, m.admitting_relations, m.edges, edited,
                                        near.get(m.entity))
        co = co_change_conf(r.co_change_score, r.file in dependents, settings)
        bucket, conf = bucket_for(
            walked=m is not None, hard=r.hard, distance=r.distance, verdict=verdict,
            lex=r.lex, co_change=co, test_conf=r.test_confidence, settings=settings)
        if m is not None:
            rel = "/".join(x.value for x in m.admitting_relations)
            reason = cause_label(change, r.entity, rel,
                                 via=m.parents[0] if m.parents else seed)
        elif r.hard:  # a test reached through the test map
            t = test_by_id.get(r.entity)
            reason = cause_label(change, r.entity, t.relation if t else "TESTS",
                                 via=t.via if t else seed, test=True)
        else:
            # soft evidence only: history, not an obligation (never "must")
            reason = (f"changed together with {change.file} before (git history, score "
                      f"{r.co_change_score}; "
                      + ("the file refers to the changed code)" if co > r.co_change_score
                         else "no code link)"))
        if why:
            reason += f"; {why}"
        if bucket is Bucket.LOW and m is not None and r.lex < settings.lex_min:
            reason += "; shares few words with the change"
        caller_of = seed if r.file == sole else ""
        if caller_of:
            reason += f"; the only library file calling {seed}"
        out.append(TriageEntry(entity=r.entity, file=r.file, conf=conf, reason=reason,
                               bucket=bucket, distance=r.distance, hard=r.hard,
                               sole_caller_of=caller_of))
    return sort_entries(out)


def forward_entries(graph: IndexGraph, calls: Iterable[Edge], edited_files: Iterable[str],
                    settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MUST-INSPECT for each function the edit now calls with arguments its current
    signature does not accept (``calls``: the call edges at the lines the edit wrote,
    change/edit_uses.py) — the callee must change too, or the call is wrong. Callees in the
    edited files are left out (the edit already changes them), as are uncheckable sites
    and ambiguous targets."""
    edited = set(edited_files)
    out: list[TriageEntry] = []
    for e in sorted(calls, key=lambda e: (e.file, e.line, e.dst, e.detail)):
        callee = graph.node(e.dst)
        if (callee is None or callee.file in edited or e.resolution is Resolution.AMBIGUOUS
                or callee.kind not in (NodeKind.FUNCTION, NodeKind.METHOD)):
            continue
        params = node_params(callee)
        if params is None:
            continue
        ok, why = bind(params, e.detail)
        if ok is False:
            out.append(_obligation(callee, Bucket.MUST, settings, (
                f"the edit calls it at {e.file}:{e.line} with arguments its signature does "
                f"not accept ({why}): change it too, or the call")))
    return out


def missing_name_entries(graph: IndexGraph, missing: Iterable[MissingName],
                         edited_files: Iterable[str], settings: Settings = DEFAULT
                         ) -> list[TriageEntry]:
    """MUST-INSPECT for each repository module or class the edit needs a name from that
    it does not have (``missing``, change/edit_uses.py): the name must be defined there
    too, or the import or attribute access fails. Owners in the edited files are left
    out: the edit is changing them, in the state it leaves them in."""
    edited = set(edited_files)
    out: list[TriageEntry] = []
    for m in sorted(missing, key=lambda m: (m.owner, m.name, m.file, m.line)):
        owner = graph.node(m.owner)
        if owner is None or owner.file in edited:
            continue
        if not m.member:
            why = (f"define {m.name} here: the edit imports it at {m.file}:{m.line} "
                   f"(from {m.owner} import {m.name}), and {short_name(m.owner)} has no "
                   "such name")
        elif owner.kind is NodeKind.MODULE:
            why = (f"define {m.name} here: the edit uses {short_name(m.owner)}.{m.name} at "
                   f"{m.file}:{m.line}, and the module has no such name")
        else:
            cls = m.owner.rsplit(".", 1)[-1]
            why = (f"add the member {m.name}: the edit uses it on an instance of {cls} at "
                   f"{m.file}:{m.line}, and neither the class nor its bases define it")
        out.append(_obligation(owner, Bucket.MUST, settings, why))
    return out


def unexported_entries(graph: IndexGraph, unexported: Iterable[Unexported],
                       settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MAY-IMPACT for each package ``__init__.py`` that re-exports names of a module by
    name and not the public name the edit adds to it (``unexported``,
    change/edit_uses.py): it may be meant for the package's interface too."""
    out: list[TriageEntry] = []
    for u in sorted(unexported, key=lambda u: (u.package, u.module, u.name)):
        package = graph.node(u.package)
        if package is None:
            continue
        shown = ", ".join(u.siblings[:3]) + (", …" if len(u.siblings) > 3 else "")
        out.append(_obligation(package, Bucket.MAY, settings, (
            f"re-export {u.name}? {u.init_file} imports {shown} from {u.module}, "
            f"and the edit adds {u.name} there")))
    return out


def _obligation(callee: Node, bucket: Bucket, settings: Settings, reason: str) -> TriageEntry:
    """An entry that comes from what the edit itself calls: proven, so at MUST_MIN."""
    return TriageEntry(entity=callee.id, file=callee.file, conf=settings.must_min,
                       bucket=bucket, distance=1, reason=reason)


_REFERS = frozenset({EdgeKind.CALL, EdgeKind.USE, EdgeKind.IMPORT, EdgeKind.INSTANTIATE})


def orphan_entries(graph: IndexGraph, edited_files: Iterable[str], removed: Iterable[Edge],
                   written: Iterable[Edge], settings: Settings = DEFAULT) -> list[TriageEntry]:
    """MAY-IMPACT for each private function or method (``_name``, not a dunder, not
    decorated, overriding nothing) in an unedited file whose last reference the edit
    removed: called at the lines the edit replaced (``removed``, change/edit_uses.py) and not
    at the lines it wrote (``written``), with nothing else in the repository referring to
    it — it is now unused (delete it, or keep it on purpose). The removed calls themselves
    and an edited file's import of the helper (left behind by the removed call) are not
    uses. A public name may be the API users call, so it is never reported. Reported at
    MUST_MIN confidence: the fact is proven, only the decision is open."""
    edited = set(edited_files)
    still = {e.dst for e in written}
    gone = {(e.file, e.line, e.dst) for e in removed}
    first: dict[str, Edge] = {}
    for e in sorted(removed, key=lambda e: (e.file, e.line, e.dst)):
        if e.dst not in still:
            first.setdefault(e.dst, e)
    out: list[TriageEntry] = []
    for dst, site in sorted(first.items()):
        callee = graph.node(dst)
        if callee is None or callee.file in edited or not _private_plain(graph, callee):
            continue
        others = [e for e in graph.in_edges(dst, _REFERS)
                  if (e.file, e.line, e.dst) not in gone
                  and not (e.file in edited and e.kind is EdgeKind.IMPORT)]
        if not others:
            out.append(_obligation(callee, Bucket.MAY, settings, (
                f"the edit removed its last call (at {site.file}:{site.line}): it is now "
                "unused — delete it, or keep it on purpose")))
    return out


def retired_entries(graph: IndexGraph, retired: Mapping[str, Sequence[str]],
                    module_of: Callable[[str], str], settings: Settings = DEFAULT,
                    listed: Mapping[str, Sequence[str]] = {}) -> list[TriageEntry]:
    """MAY-IMPACT for each file mentioning identifiers the edit removed the last mention of
    (``retired``: file → identifiers, impact/retired.py), at ``settings.retired_conf``: the
    file's own definition of such an identifier when it has one (now unused, or to change
    with the edit); for the other mentions, the entries other channels already list in
    that file (``listed``: file → MUST/MAY entities), else the file's module — one thing
    to inspect per place, not a second, vaguer one beside it."""
    out: list[TriageEntry] = []
    for path, names in sorted(retired.items()):
        module = module_of(path) or path
        defined = [n for n in names if (d := graph.node(f"{module}.{n}")) is not None
                   and d.file == path]
        targets: list[tuple[str, tuple[str, ...]]] = [(f"{module}.{n}", (n,)) for n in defined]
        rest = tuple(n for n in names if n not in defined)
        if rest:
            targets += [(entity, rest) for entity in (listed.get(path) or (module,))]
        out += [TriageEntry(entity=entity, file=path, conf=settings.retired_conf,
                            bucket=Bucket.MAY, distance=1, reason=retired_reason(ns),
                            hard=False, retired=ns) for entity, ns in targets]
    return out


def _private_plain(graph: IndexGraph, node: Node) -> bool:
    """A private, undecorated function or method that overrides nothing: one only this
    repository's code calls, and only by name."""
    name = node.qualname.rsplit(".", 1)[-1]
    return (node.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and name.startswith("_")
            and not name.endswith("__") and not node.decorators
            and not graph.out_edges(node.id, frozenset({EdgeKind.OVERRIDE})))


def sort_entries(entries: Iterable[TriageEntry]) -> list[TriageEntry]:
    return sorted(entries, key=lambda e: (_RANK[e.bucket], -e.conf, e.distance, e.entity))


def order_score(e: TriageEntry, settings: Settings = DEFAULT) -> float:
    """What orders entries within a bucket: the confidence, raised by the task text's and
    the edit's relevance to the entry's file (impact/taskrel.py), by
    ``settings.retired_weight`` when the file mentions what the edit retired, and by
    ``settings.sole_caller_weight`` when it is the only library file calling a changed
    function."""
    return (e.conf + settings.task_relevance_weight * e.relevance
            + settings.edit_relevance_weight * e.edit_relevance
            + (settings.retired_weight if e.retired else 0.0)
            + (settings.sole_caller_weight if e.sole_caller_of else 0.0))


def by_relevance(tri: Triage, task: Mapping[str, float], edit: Mapping[str, float],
                 settings: Settings = DEFAULT) -> Triage:
    """``tri`` with each MUST/MAY entry's file relevance (to the task text, to the edit's
    text) set and each of those buckets ordered by :func:`order_score` (buckets and
    confidences unchanged)."""
    def reorder(entries: Sequence[TriageEntry]) -> tuple[TriageEntry, ...]:
        got = [replace(e, relevance=task.get(e.file, 0.0), edit_relevance=edit.get(e.file, 0.0))
               for e in entries]
        return tuple(sorted(got, key=lambda e: (-order_score(e, settings), e.distance,
                                                e.entity)))

    return replace(tri, must_inspect=reorder(tri.must_inspect),
                   may_impact=reorder(tri.may_impact))


def cut_weak(tri: Triage, edited_files: Iterable[str], settings: Settings = DEFAULT) -> Triage:
    """``tri`` with the weak soft-only MAY-IMPACT entries moved to the head of LOW-RISK (the
    reason says why): those no hard edge admits (§3.6: not members by themselves — a
    co-change partner let in at ``cochange_min`` of the best one, a retired mention) in a
    library file not edited, whose :func:`order_score` is under
    ``settings.may_relative_min`` of the strongest MUST/MAY entry's among such files
    (its retired and sole-caller raises included: they mark the strongest evidence there
    is) — sparing the first ``settings.may_keep_files`` of those files in the ranked order,
    MUST files included. A hard-edge member, an edited file, a test or a doc never falls,
    nor what the task text names: the task points at it, its evidence is not measured
    against the other candidates'."""
    edited = set(edited_files)
    of_language = library_in(edited)

    def library(e: TriageEntry) -> bool:
        return e.file not in edited and of_language(e.file)

    others = [e for e in (*tri.must_inspect, *tri.may_impact) if library(e)]
    if not settings.may_relative_min or not others:
        return tri
    bar = settings.may_relative_min * max(order_score(e, settings) for e in others)
    spared = set(list(dict.fromkeys(e.file for e in others))[: max(0, settings.may_keep_files)])
    kept: list[TriageEntry] = []
    fell: list[TriageEntry] = []
    for e in tri.may_impact:
        score = order_score(e, settings)
        if e.hard or e.task_named or not library(e) or e.file in spared or score >= bar:
            kept.append(e)
            continue
        why = (f"weaker than {settings.may_relative_min:g} of the strongest candidate's "
               f"evidence ({score:.2f} < {bar:.2f})")
        fell.append(replace(e, bucket=Bucket.LOW, reason=f"{e.reason} | {why}"))
    if not fell:
        return tri
    return replace(tri, may_impact=tuple(kept), low_risk=(*fell, *tri.low_risk))


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
            distance=min(old.distance, e.distance), hard=old.hard or e.hard,
            retired=tuple(sorted({*old.retired, *e.retired})),
            sole_caller_of=old.sole_caller_of or e.sole_caller_of,
            task_named=tuple(sorted({*old.task_named, *e.task_named})))
    final = [replace(e, reason=" | ".join(sorted(reasons[k]))) for k, e in best.items()]
    ordered = sort_entries(final)
    return Triage(
        must_inspect=tuple(e for e in ordered if e.bucket is Bucket.MUST),
        may_impact=tuple(e for e in ordered if e.bucket is Bucket.MAY),
        low_risk=tuple(e for e in ordered if e.bucket is Bucket.LOW),
    )
