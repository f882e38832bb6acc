"""The impact pipeline (§3 (a)–(i)): a proposed edit → :class:`ImpactResult`.

Each atomic change is analysed separately — relation set, walk, tests, rank,
triage — and the composite impact is their deduplicated union (strongest bucket,
highest confidence, union of causes), from which the batches and the DAG are
built. Pure and deterministic: the graph is only read.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence

from impactlens.impact import batch as batch_stage
from impactlens.impact import triage as triage_stage
from impactlens.impact.classify import cap_changes, classify
from impactlens.impact.dag import build_dag
from impactlens.impact.graphcache import cached
from impactlens.impact.rank import rank
from impactlens.impact.relations import select_relations
from impactlens.impact.testmap import change_tests, merge_test_map
from impactlens.impact.walk import walk
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeImpact,
    ChangeType,
    FileChange,
    GraphView,
    ImpactResult,
    RelationSet,
    Triage,
    TriageEntry,
    UnanalyzableHit,
    UnresolvedReason,
    UnresolvedSite,
)
from impactlens.settings import DEFAULT, Settings

__all__ = ["FileChange", "run_pipeline"]

_DYNAMIC = frozenset({
    UnresolvedReason.DYNAMIC_GETATTR, UnresolvedReason.REGISTRY_DISPATCH,
    UnresolvedReason.IMPORTLIB, UnresolvedReason.EVAL, UnresolvedReason.GLOBALS,
})


def run_pipeline(
    graph: GraphView,
    changes: Sequence[FileChange],
    *,
    module_of: Callable[[str], str],
    co_change: Mapping[str, Sequence[tuple[str, float]]] = {},
    co_change_note: str = "",
    unresolved: Sequence[UnresolvedSite] = (),
    settings: Settings = DEFAULT,
) -> ImpactResult:
    graph = cached(graph)  # one memo for every stage of this run
    files = sorted(changes, key=lambda f: f.path)
    modules = {f.path: module_of(f.path) for f in files}
    atomic: list[AtomicChange] = []
    edited: dict[str, frozenset[int]] = {}
    for f in files:
        atomic.extend(classify(f.before, f.after, f.path, modules[f.path], settings))
        edited[f.path] = _changed_before_lines(f.before, f.after)
    atomic = sorted(cap_changes(atomic, settings.max_atomic_changes),
                    key=lambda c: (c.file, c.line_range, c.entity, c.change_type.value))
    channels = settings.channels
    cands = _co_change(co_change, settings)
    scoring = cands if "cochange" in channels else {}
    edited_files = set(modules)

    walks, tests, per_entries, per = [], [], [], []
    for ch in atomic:
        seed = graph_id(graph, ch, modules[ch.file])
        rels = select_relations(ch)
        if "walk" not in channels:  # §7.6 ablation: no structural walk
            rels = RelationSet(rels.change_type, (), rels.gated, rels.gate_reasons)
        binding = import_binding(ch, modules[ch.file])
        result = walk(graph, seed, rels, settings, import_binding=binding)
        if ch.change_type is ChangeType.ADD:
            hits: list = []
            ranked: list = []
        else:
            hits = (change_tests(graph, ch, result, seed, settings,
                                 include_seed=binding is None)
                    if "testmap" in channels else [])
            ranked = rank(graph, seed, ch.after_sig or ch.before_sig, result, hits,
                          dict(scoring.get(ch.file, ())), module_of=module_of,
                          exclude_files=edited_files, settings=settings)
        entries = triage_stage.triage(ch, seed, result, ranked, hits, edited=edited,
                                      graph=graph, settings=settings)
        walks.append((ch, result, seed))
        tests.append(hits)
        per_entries.extend(entries)
        per.append(ChangeImpact(ch, result, tuple(entries), tuple(ranked)))

    hidden = unanalyzable_hits(atomic, walks, unresolved, modules, module_of)
    tri = _promote_hidden(triage_stage.merge(per_entries), hidden, module_of)

    seeds = [s for c, _, s in walks if c.change_type is not ChangeType.ADD]
    members = {e.entity: e.distance for e in (*tri.must_inspect, *tri.may_impact) if e.hard}
    links = [(m.entity, p) for _, w, _ in walks for m in w.members for p in m.parents]
    links += [(t.test_id, t.via) for hs in tests for t in hs]
    batches, omitted = batch_stage.batches(graph, seeds, members, settings, links)
    dag = build_dag(graph, walks, tests, tri, batches, settings)
    test_map = merge_test_map(tests, settings)
    best: dict[str, float] = {}  # the validation set is not cut by test_map.txt's pair cap
    for t in (t for hs in tests for t in hs):
        best[t.test_id] = max(best.get(t.test_id, 0.0), t.conf)
    validate = tuple(sorted(best, key=lambda t: (-best[t], t)))
    note = co_change_note or ("" if cands else "co-change: no candidates")
    if "cochange" not in channels:
        note = "co-change channel switched off (ablation); " + note
    return ImpactResult(
        changes=tuple(atomic), per_change=tuple(per), test_map=tuple(test_map), triage=tri,
        batches=tuple(batches), dag=dag, validate=validate,
        co_change=tuple(sorted(cands.items())), co_change_note=note,
        unanalyzable=tuple(hidden), omitted_batches=omitted,
    )


def import_binding(change: AtomicChange, module: str) -> tuple[str, str] | None:
    """``(module, name)`` when the change is to a module-level import statement's name."""
    if change.kind != "import" or not module or not change.entity.startswith(module + "."):
        return None
    return module, change.entity[len(module) + 1:]


def graph_id(graph: GraphView, change: AtomicChange, module: str) -> str:
    """The graph id of a change's entity: its qualname, or the pytest node id for a
    definition in a test file when the index keys tests that way."""
    if graph.node(change.entity) is not None:
        return change.entity
    prefix = module + "."
    if module and change.entity.startswith(prefix):
        rest = change.entity[len(prefix):]
        candidate = f"{change.file}::{rest.replace('.', '::')}"
        if graph.node(candidate) is not None:
            return candidate
    return change.entity


def _changed_before_lines(before: str | None, after: str | None) -> frozenset[int]:
    if before is None:
        return frozenset()
    a = before.splitlines()
    if after is None:
        return frozenset(range(1, len(a) + 1))
    out: set[int] = set()
    sm = difflib.SequenceMatcher(None, a, after.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in sm.get_opcodes():
        if tag != "equal":
            out.update(range(i1 + 1, i2 + 1))
    return frozenset(out)


def _co_change(raw: Mapping[str, Sequence[tuple[str, float]]],
               settings: Settings) -> dict[str, tuple[tuple[str, float], ...]]:
    """Candidates per edited file: ≤ 40, score truncated at 4 decimals, descending."""
    scale = 10 ** settings.cochange_decimals
    out: dict[str, tuple[tuple[str, float], ...]] = {}
    for f in sorted(raw):
        best: dict[str, float] = {}
        for g, s in raw[f]:
            if g == f:
                continue
            score = math.floor(float(s) * scale + 1e-9) / scale
            best[g] = max(best.get(g, 0.0), score)
        ranked = sorted(best.items(), key=lambda x: (-x[1], x[0]))
        out[f] = tuple(ranked[: settings.max_cochange_candidates])
    return out


def _names_of(change: AtomicChange) -> set[str]:
    parts = change.entity.split(".")
    names = {parts[-1]}
    if parts[-1] in ("__init__", "__new__") and len(parts) > 1:
        names.add(parts[-2])
    return {n for n in names if n}


def unanalyzable_hits(
    atomic: Sequence[AtomicChange],
    walks: Sequence[tuple[AtomicChange, object, str]],
    unresolved: Sequence[UnresolvedSite],
    modules: Mapping[str, str],
    module_of: Callable[[str], str],
) -> list[UnanalyzableHit]:
    """Un-analyzable sites that may reach a changed entity: the site mentions its name or
    module (string-keyed dispatch, getattr, reflection, registries, duck typing), or is a
    dynamic site in the changed module itself. Reported, never silently low-risk."""
    file_module: dict[str, str] = {}

    def mod(path: str) -> str:
        if path not in file_module:
            try:
                file_module[path] = module_of(path)
            except Exception:  # an unknown file has no module name; it just won't match
                file_module[path] = ""
        return file_module[path]

    out: set[UnanalyzableHit] = set()
    for change, result, seed in walks:
        if change.change_type is ChangeType.ADD:
            continue
        gated = getattr(getattr(result, "relations", None), "gated", False)
        if gated:  # a body change with no observable escape reaches no dynamic caller
            continue
        module = modules.get(change.file, "")
        names = _names_of(change)
        pats = [re.compile(rf"(?<![\w]){re.escape(n)}(?![\w])") for n in sorted(names)]
        if module:
            pats.append(re.compile(rf"(?<![\w.]){re.escape(module)}(?![\w])"))
        for u in unresolved:
            if u.reason is UnresolvedReason.EXTERNAL:
                continue
            mentioned = any(
                n in names or n == change.entity or n == seed or n.endswith("." + leaf)
                or (module and (n == module or n.startswith(module + ".")))
                for n in u.names for leaf in names
            ) or any(p.search(u.text) for p in pats)
            same_module = u.reason in _DYNAMIC and bool(module) and mod(u.file) == module
            if mentioned or same_module:
                out.add(UnanalyzableHit(u.file, u.line, u.scope, u.reason.value, u.text,
                                        seed))
    return sorted(out, key=lambda h: (h.file, h.line, h.scope, h.text, h.affects))


def _promote_hidden(tri: Triage, hidden: Sequence[UnanalyzableHit],
                    module_of: Callable[[str], str]) -> Triage:
    """A LOW-RISK entry whose body holds an un-analyzable site that may reach the change
    is raised to MAY-IMPACT: the analysis cannot see through it. (A site's scope is a
    dotted qualname; a test's entity is its pytest node id — both spellings match.)"""
    if not hidden:
        return tri
    by_scope: dict[str, UnanalyzableHit] = {}
    for h in hidden:
        by_scope.setdefault(h.scope, h)
        try:
            module = module_of(h.file)
        except Exception:  # an unknown file: only the dotted spelling can match
            continue
        if module and h.scope.startswith(module + "."):
            rest = h.scope[len(module) + 1:].replace(".", "::")
            by_scope.setdefault(f"{h.file}::{rest}", h)
    low: list[TriageEntry] = []
    raised: list[TriageEntry] = []
    for e in tri.low_risk:
        hidden_site = by_scope.get(e.entity)
        if hidden_site is None:
            low.append(e)
            continue
        h = hidden_site
        raised.append(TriageEntry(
            e.entity, e.file, e.conf, e.reason + f"; un-analyzable {h.reason} site at "
            f"{h.file}:{h.line} may reach {h.affects} (invisible to static analysis)",
            Bucket.MAY, e.distance, e.hard))
    may = triage_stage.sort_entries([*tri.may_impact, *raised])
    return Triage(tri.must_inspect, tuple(may), tuple(low))
