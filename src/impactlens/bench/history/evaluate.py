"""One case evaluated: index the parent in a temporary work tree, run the stage (and each
channel's ablation) and the baselines on every seed, and, with ``--run-tests``, the
regression measure."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.bench.history.baselines import FileGraph, baseline_runs
from impactlens.bench.history.cases import Case, Seed, worktree
from impactlens.bench.history.peer import GitNexus, peer
from impactlens.bench.history.regression import (
    SuiteRun,
    cached_recording,
    confirmed_breaking,
    seeded_suite,
)
from impactlens.bench.history.results import CaseResult, MethodRun
from impactlens.bench.history.sources import is_source, is_test_path
from impactlens.index.recording import base_test_id
from impactlens.model import FileChange, NodeKind
from impactlens.settings import DEFAULT, Settings

CHANNELS = ("walk", "cochange", "testmap", "lexical", "retired", "named", "siblings",
            "namesakes")


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def stage_predictions(result: Any, seed_file: str, seed_entity: str,
                      symbol_ids: set[str], partners: Sequence[tuple[str, float]] = (),
                      settings: Settings = DEFAULT, counts: Callable[[str], bool] = is_source,
                      ) -> tuple[list[str], list[str], list[str], list[dict[str, Any]]]:
    """(ranked files, ranked symbols, validation test ids, each ranked file's evidence) of
    an ImpactResult. ``partners`` = the seed file's co-change candidates in the channel's
    order; ``counts``: the files a list may hold (the case's universe)."""
    from impactlens.impact.triage import order_score

    tri = result.triage
    # the stage's own order within a bucket; a tie goes to the co-change channel's own order
    # (more shared commits, more lines churned) before the name, not the alphabet
    order = {g: i for i, (g, _) in enumerate(partners)}

    def key(e: Any) -> tuple[float, int, str]:
        return (-order_score(e, settings), order.get(e.file, len(order)), e.entity)

    entries = [*sorted(tri.must_inspect, key=key), *sorted(tri.may_impact, key=key)]
    files = _dedupe(e.file for e in entries if e.file and e.file != seed_file
                    and counts(e.file))
    syms = _dedupe(e.entity for e in entries if e.entity != seed_entity
                   and e.entity in symbol_ids and not is_test_path(e.file or ""))
    return files, syms, list(result.validate), file_evidence(entries, files, partners, settings)


def file_evidence(entries: Sequence[Any], files: Sequence[str],
                  partners: Sequence[tuple[str, float]], settings: Settings = DEFAULT,
                  ) -> list[dict[str, Any]]:
    """Why each of ``files`` ranks where it does: its first (best-placed) entry's bucket,
    confidence, hard edge, distance and the two relevances, with the file's co-change
    score and how many entries name it — the figures an ordering is read off."""
    from impactlens.impact.triage import order_score

    score = dict(partners)
    first: dict[str, Any] = {}
    count: dict[str, int] = {}
    for e in entries:
        first.setdefault(e.file, e)
        count[e.file] = count.get(e.file, 0) + 1
    out = []
    for f in files:
        e = first[f]
        out.append({"file": f, "bucket": e.bucket.value, "conf": round(e.conf, 4),
                    "hard": e.hard, "distance": e.distance,
                    "task_relevance": round(e.relevance, 4),
                    "edit_relevance": round(e.edit_relevance, 4),
                    "order": round(order_score(e, settings), 4),
                    "cochange": score.get(f), "retired": list(e.retired),
                    "entries": count[f]})
    return out


@dataclass
class _Parent:
    """A case's parent, indexed once and shared by its seeds."""

    proj: Any  # the Project on the parent's work tree
    seconds_index: float
    graph: FileGraph
    symbol_ids: set[str]
    unresolved: Any  # the parent's un-analyzable sites: the same for every variant
    suite: SuiteRun  # a cached suite run in the parent's work tree
    outcomes: dict[str, str] | None = None  # the parent's suite (None: not run)
    recording: Any = None  # the parent's recorded run, when the suite ran
    not_run: str = ""  # why the regression measure has nothing for this case
    current: dict[str, str] = field(default_factory=dict)  # path -> sha256, as indexed
    peer: GitNexus | None = None  # GitNexus on the same parent (``--gitnexus``)
    graph_dist: dict[str, int] = field(default_factory=dict)  # the current seed's gold


def evaluate_case(repo: Path, case: Case, settings: Settings, *, run_tests: bool,
                  test_timeout: float, cache: Path | None, plugin_dir: Path,
                  pytest_args: Sequence[str] = (), progress: Any = None,
                  gitnexus: bool = False) -> list[CaseResult]:
    from impactlens.api import Project

    results: list[CaseResult] = []
    with worktree(repo, case.parent) as wt:
        t0 = time.perf_counter()
        proj = Project(wt, settings)
        proj.index()
        store = proj.store
        parent = _Parent(
            proj=proj, seconds_index=time.perf_counter() - t0, graph=FileGraph(store),
            symbol_ids={n.id for n in store.all_nodes(
                [NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS])},
            unresolved=store.unresolved_sites(),
            suite=functools.partial(seeded_suite, cache, case.sha, wt, test_timeout,
                                    plugin_dir, pytest_args))
        if run_tests:
            _run_parent_suite(parent, case, wt, settings, test_timeout, cache, plugin_dir,
                              pytest_args)
        # after the recording run, which re-indexes
        parent.current = {r.path: r.sha256 for r in store.files()}
        parent.peer = peer(gitnexus, wt, test_timeout)
        try:
            if parent.peer is not None:
                parent.peer.analyze()
            for seed in case.seeds:
                r = _evaluate_seed(parent, case, seed, settings)
                if parent.outcomes is not None:
                    _measure_regression(r, parent.outcomes, parent.suite, seed, test_timeout)
                results.append(r)
                if progress:
                    progress(r)
        finally:
            if parent.peer is not None:
                parent.peer.close()
    return results


def _peer_run(parent: _Parent, case: Case, seed: Seed, r: CaseResult) -> None:
    """GitNexus's answer for ``seed`` into ``r`` (no row when its index failed; an empty
    list when it answered nothing for the seed)."""
    gn = parent.peer
    if gn is None:
        return
    if gn.error:
        r.note = f"{r.note}; gitnexus: {gn.error}" if r.note else f"gitnexus: {gn.error}"
        return
    run = gn.impact(seed.file, seed.qualname, seed.file, case.universe.counts)
    r.methods["gitnexus"] = run if run is not None else MethodRun([])
    r.dist["gitnexus"] = [parent.graph_dist.get(f) for f in r.methods["gitnexus"].files]
    r.seconds_peer = gn.seconds_cpu


def _run_parent_suite(parent: _Parent, case: Case, wt: Path, settings: Settings,
                      test_timeout: float, cache: Path | None, plugin_dir: Path,
                      pytest_args: Sequence[str]) -> None:
    """The parent's suite outcomes and recorded run, or why the case has none."""
    outcomes = parent.suite("parent")
    if outcomes is None:
        parent.not_run = f"the parent's suite ran over --test-timeout {test_timeout:g} s"
    elif "passed" not in outcomes.values():
        outcomes = None  # interrupted at collection: the suite did not run
        parent.not_run = "no test passed at the parent (collection failed?)"
    if outcomes is not None:
        parent.recording = cached_recording(cache, case.sha, wt, parent.proj.store,
                                            test_timeout, plugin_dir, pytest_args, settings)
    parent.outcomes = outcomes


def _evaluate_seed(parent: _Parent, case: Case, seed: Seed, settings: Settings) -> CaseResult:
    """Every method's predictions for one seed, scored against the rest of the commit."""
    proj = parent.proj
    seed_entity = f"{proj.module_of(seed.file)}.{seed.qualname}"
    gold_files = sorted(p for p in case.source_files if p != seed.file)
    gold_syms = sorted(
        f"{proj.module_of(p)}.{q}" for p, qs in case.changed_defs.items() for q in qs
        if not (p == seed.file and q == seed.qualname)
    )
    methods, partners, note, t_stage = _stage_runs(parent, case, seed, seed_entity, settings)
    methods.update(baseline_runs(proj.store, parent.graph, seed.file, seed_entity, partners,
                                 parent.symbol_ids, case.universe.counts))
    dist = parent.graph.distances_from(gold_files) if gold_files else {}
    parent.graph_dist = dist
    r = CaseResult(
        sha=case.sha, seed_file=seed.file, seed=seed_entity,
        message=case.message.splitlines()[0][:100] if case.message else "",
        gold_files=gold_files, gold_symbols=gold_syms, added_files=list(case.added_files),
        methods=methods, seconds_index=parent.seconds_index, seconds_stage=t_stage,
        note=note, dist={m: [dist.get(f) for f in run.files] for m, run in methods.items()},
        not_run=parent.not_run,
    )
    _peer_run(parent, case, seed, r)
    return r


def _stage_runs(parent: _Parent, case: Case, seed: Seed, seed_entity: str,
                settings: Settings,
                ) -> tuple[dict[str, MethodRun], Sequence[tuple[str, float]], str, float]:
    """The stage and each channel's ablation on one seed, with the channels' inputs
    gathered as `analyze` gathers them: (runs, the seed file's co-change partners, the
    co-change note, mean seconds per variant)."""
    from impactlens.change.edit_uses import edit_uses
    from impactlens.impact.cochange import edited_symbols
    from impactlens.impact.observed import recorded_tests
    from impactlens.impact.pipeline import run_pipeline

    proj, store = parent.proj, parent.proj.store
    change = [FileChange(seed.file, case.before[seed.file], seed.seeded)]
    t1 = time.perf_counter()
    symbols = (edited_symbols(change, proj.module_of, settings)
               if settings.weighs_symbols else None)
    cc, note = proj.co_change([seed.file], task=case.message, as_of=case.author_time,
                              symbols=symbols)
    uses = edit_uses(store, change, proj.module_of)
    retired = proj.retired(change)  # the work tree is the parent: as analyze reads it
    named = proj.task_named(case.message, [seed.file])
    partners = cc.get(seed.file, ())
    methods: dict[str, MethodRun] = {}
    variants = {"stage": frozenset(CHANNELS)}
    variants.update({f"-{ch}": frozenset(CHANNELS) - {ch} for ch in CHANNELS})
    if parent.recording is not None:  # the static test map alone, for comparison
        variants["-recording"] = frozenset(CHANNELS)
    for name, chans in variants.items():
        s = settings.replace(channels=chans)
        rec = None if name == "-recording" else recorded_tests(
            parent.recording, parent.current, change, proj.root)
        res = run_pipeline(
            store, change, module_of=proj.module_of,
            co_change=cc if "cochange" in chans else {},
            co_change_note=note, unresolved=parent.unresolved,
            task=case.message, written=uses.written, removed=uses.removed,
            missing=uses.missing, unexported=uses.unexported, recorded=rec,
            retired=retired, named=named, settings=s,
        )
        files, syms, tests, why = stage_predictions(
            res, seed.file, seed_entity, parent.symbol_ids, partners, s, case.universe.counts)
        methods[name] = MethodRun(files, syms, tests, why if name == "stage" else None)
    return methods, partners, note, (time.perf_counter() - t1) / len(variants)


def _measure_regression(r: CaseResult, before: dict[str, str], suite: SuiteRun, seed: Seed,
                        test_timeout: float) -> None:
    """The seeded suite's confirmed breaking tests into ``r`` (or why there are none);
    ``before``: the parent's outcomes."""
    after = suite(seed.key, seed=seed)
    if after is None:
        r.not_run = f"the seeded suite ran over --test-timeout {test_timeout:g} s"
        return
    r.breaking = confirmed_breaking(before, after, seed, suite)
    r.suite = sorted({base_test_id(t) for t in before})
    r.all_tests = len(r.suite)
