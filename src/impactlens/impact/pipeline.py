"""The impact pipeline (§3 (a)–(i)): a proposed edit → :class:`ImpactResult`.

Each atomic change is analysed separately — relation set, walk, tests, rank,
triage — and the composite impact is their deduplicated union (strongest bucket,
highest confidence, union of causes), from which the batches and the DAG are
built. Pure and deterministic: the graph is only read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from impactlens.impact import batch as batch_stage
from impactlens.impact import triage as triage_stage
from impactlens.impact.classify import Classified, cap_changes, classify_files
from impactlens.impact.config_refs import config_hits
from impactlens.impact.dag import build_dag
from impactlens.impact.graphcache import cached
from impactlens.impact.hidden import find_hidden, promote, test_sources
from impactlens.impact.observed import RecordedTests
from impactlens.impact.rank import rank
from impactlens.impact.relations import select_relations
from impactlens.impact.siblings import sibling_entries
from impactlens.impact.tasknamed import task_named_entries
from impactlens.impact.taskrel import relevances
from impactlens.impact.testmap import added_tests, change_tests, merge_test_map
from impactlens.impact.walk import walk
from impactlens.linediff import changed_lines
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeImpact,
    ChangeType,
    Edge,
    FileChange,
    GraphView,
    ImpactResult,
    IndexGraph,
    MissingName,
    RelationSet,
    Triage,
    UnanalyzableHit,
    Unexported,
    UnresolvedSite,
)
from impactlens.settings import DEFAULT, Settings

__all__ = ["FileChange", "run_pipeline"]

UNPARSABLE = "unparsable"  # an un-analyzable "site" that is a whole edited file left out

def run_pipeline(
    graph: IndexGraph,
    changes: Sequence[FileChange],
    *,
    module_of: Callable[[str], str],
    co_change: Mapping[str, Sequence[tuple[str, float]]] = {},
    co_change_note: str = "",
    unresolved: Sequence[UnresolvedSite] = (),
    config: Mapping[str, str] = {},
    task: str = "",
    written: Sequence[Edge] = (),
    removed: Sequence[Edge] = (),
    missing: Sequence[MissingName] = (),
    unexported: Sequence[Unexported] = (),
    recorded: RecordedTests | None = None,
    retired: Mapping[str, Sequence[str]] = {},
    named: Mapping[str, Sequence[tuple[str, str]]] = {},
    classified: Classified | None = None,
    settings: Settings = DEFAULT,
) -> ImpactResult:
    """The impact of the edit ``changes``; ``classified``: their classification when the
    caller already has it (:func:`classify_files`), which says the files it analyses."""
    graph = cached(graph)  # one memo for every stage of this run
    if classified is None:
        classified = classify_files(changes, module_of, settings)
    files = sorted(classified.files, key=lambda f: f.path)
    modules = {f.path: module_of(f.path) for f in files}
    atomic: list[AtomicChange] = list(classified.changes)
    edited: dict[str, frozenset[int]] = {}
    edit_text: list[str] = []  # the lines the edit replaced and wrote
    for f in files:
        old, new = changed_lines(f.before, f.after)
        edited[f.path] = old
        edit_text += _lines(f.before, old) + _lines(f.after, new)
    atomic = sorted(cap_changes(atomic, settings.max_atomic_changes),
                    key=lambda c: (c.file, c.line_range, c.entity, c.change_type.value))
    channels = settings.channels
    cands = _co_change(co_change, settings)
    scoring = cands if "cochange" in channels else {}
    edited_files = set(modules)

    walks, tests, per_entries, per = [], [], [], []
    # a file left out is a place the analysis cannot see, like a dynamic site
    hidden: set[UnanalyzableHit] = {
        UnanalyzableHit(n.file, n.line, module_of(n.file), UNPARSABLE, n.why, "")
        for n in classified.not_analyzed}
    for ch in atomic:
        seed = graph_id(graph, ch, modules[ch.file])
        rels = select_relations(ch)
        if "walk" not in channels:  # §7.6 ablation: no structural walk
            rels = RelationSet(rels.change_type, (), rels.gated, rels.gate_reasons)
        binding = import_binding(ch, modules[ch.file])
        result = walk(graph, seed, rels, settings, import_binding=binding)
        found = find_hidden(graph, ch, result, seed, unresolved, modules[ch.file], module_of)
        hidden.update(found.hits)
        hidden.update(config_hits(config, ch, seed, modules[ch.file],
                                  gated=result.relations.gated))
        if ch.change_type is ChangeType.ADD:  # no obligation; only what the new node runs in
            hits: list = (added_tests(graph, ch, modules[ch.file], settings)
                          if "testmap" in channels else [])
            # its tests are to run, not candidates; nothing references a new node, but its
            # file's co-change partners (soft, never MUST) still rank below
            ranked_tests: list = []
        else:
            reach = test_sources(graph, found, [seed, *(m.entity for m in result.members)],
                                 settings.max_hidden_sources)
            hits = (change_tests(graph, ch, result, seed, settings,
                                 include_seed=binding is None, hidden=reach)
                    if "testmap" in channels else [])
            if recorded is not None and "testmap" in channels:
                hits = recorded.refine(ch, seed, hits, settings, graph)
            ranked_tests = hits
        ranked = rank(graph, seed, ch.after_sig or ch.before_sig, result, ranked_tests,
                      dict(scoring.get(ch.file, ())), module_of=module_of,
                      exclude_files=edited_files, settings=settings)
        entries = triage_stage.triage(ch, seed, result, ranked, hits, edited=edited,
                                      graph=graph, settings=settings)
        walks.append((ch, result, seed))
        tests.append(hits)
        per_entries.extend(entries)
        per.append(ChangeImpact(ch, result, tuple(entries), tuple(ranked)))

    if "walk" in channels:  # what the edit calls now, and what it stopped calling
        per_entries.extend(triage_stage.forward_entries(graph, written, edited_files,
                                                        settings))
        per_entries.extend(triage_stage.orphan_entries(graph, edited_files, removed, written,
                                                       settings))
        per_entries.extend(triage_stage.missing_name_entries(graph, missing, edited_files,
                                                             settings))
        per_entries.extend(triage_stage.unexported_entries(graph, unexported, settings))
    if "siblings" in channels:  # the other implementations of what a change overrides
        per_entries.extend(sibling_entries(graph, atomic, edited_files, settings))
    if "named" in channels:  # what the task text names, where it is defined
        per_entries.extend(task_named_entries(named, settings))
    if "retired" in channels:  # who else mentions what the edit stopped mentioning
        listed: dict[str, dict[str, None]] = {}  # file → its MUST/MAY entities, in order
        for e in per_entries:
            if e.bucket is not Bucket.LOW:
                listed.setdefault(e.file, {})[e.entity] = None
        per_entries.extend(triage_stage.retired_entries(
            graph, retired, module_of, settings, {f: list(es) for f, es in listed.items()}))
    unanalyzable = sorted(hidden, key=lambda h: (h.file, h.line, h.scope, h.text, h.affects))
    tri = promote(triage_stage.merge(per_entries), unanalyzable, module_of)
    if "lexical" in channels:
        tri = _by_relevance(graph, tri, task, "\n".join(edit_text), settings)
    tri = triage_stage.cut_weak(tri, edited_files, settings)

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
        unanalyzable=tuple(unanalyzable), omitted_batches=omitted,
        tests_note=recorded.note() if recorded is not None else "",
        not_analyzed=classified.not_analyzed,
    )


def _by_relevance(graph: GraphView, tri: Triage, task: str, edit: str,
                  settings: Settings) -> Triage:
    """The buckets ordered by :func:`triage_stage.order_score`: the confidence and the task
    text's and the edit's relevance to each file, with the retired/sole-caller weights."""
    files = {e.file for e in (*tri.must_inspect, *tri.may_impact) if e.file}
    by_task, by_edit = relevances(graph, [task if settings.task_relevance_weight else "",
                                          edit if settings.edit_relevance_weight else ""],
                                  files)
    # ordered even when neither text names a file: the retired and sole-caller weights
    return triage_stage.by_relevance(tri, by_task, by_edit, settings)


def _lines(text: str | None, numbers: frozenset[int]) -> list[str]:
    rows = (text or "").splitlines()
    return [rows[i - 1] for i in sorted(numbers) if i <= len(rows)]


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
