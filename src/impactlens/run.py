"""One analysis, end to end: each evidence channel's input gathered from the index, the
disk and git, computed, the pure pipeline run over it, and the outputs written.

The caller brings the collaborators (:class:`Workspace`: the repository root, the
settings and the open, fresh index) and the change (:func:`impactlens.change.inputs.
read_change`); :class:`impactlens.api.Project` is the facade that does both. This is the
one module that reads the store, the disk and git on the pipeline's behalf; the stages
under ``impact/`` get what they need as arguments.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from impactlens.answer import impact_json_text
from impactlens.change.edit_uses import edit_uses
from impactlens.change.inputs import ProposedChange, cut_time
from impactlens.change.sites import relevant_unresolved
from impactlens.errors import BadInputError
from impactlens.fileio import atomic_write
from impactlens.impact.classify import classify_files
from impactlens.impact.cochange import co_change as score_co_change
from impactlens.impact.cochange import edited_symbols
from impactlens.impact.config_refs import CONFIG_FILES, CONFTEST
from impactlens.impact.observed import RecordedTests, recorded_tests
from impactlens.impact.pipeline import run_pipeline
from impactlens.impact.retired import (
    partners_in_matches,
    project_modules,
    retired_partners,
    retired_patterns,
)
from impactlens.impact.tasknamed import defined_names
from impactlens.impact.tasknamed import task_named as named_in
from impactlens.index import git, queries
from impactlens.index.history import history_state, load_history
from impactlens.index.overlay import overlay_for
from impactlens.index.recording import Recording
from impactlens.index.state import state_path
from impactlens.index.store import Store
from impactlens.index.worktree import WorkTree
from impactlens.model import FileChange, ImpactResult, IndexGraph
from impactlens.settings import DEFAULT, Settings

__all__ = ["OUTPUT_FILES", "Workspace", "analyze", "before_graph", "co_change",
           "recorded_runs", "retired", "shipped_config", "task_named", "write_outputs"]

OUTPUT_FILES = ("changes.json", "impact.json", "test_map.txt")

CoChangeCandidates = dict[str, list[tuple[str, float]]]


@dataclass(frozen=True, slots=True)
class Workspace:
    """What a run reads: the repository at ``root``, its ``settings`` and its open index."""

    root: Path
    settings: Settings
    store: Store

    def module_of(self, path: str) -> str:
        return queries.module_of(self.store, self.root, path)


def analyze(ws: Workspace, change: ProposedChange) -> ImpactResult:
    """The impact of ``change`` against ``ws``'s index (brought up to date by the caller)."""
    settings = ws.settings
    channels = settings.channels
    # a file the indexer would not parse either is left out of every channel, said why
    classified = classify_files(change.files, ws.module_of, settings)
    change = replace(change, files=classified.files)
    co, note = _co_change_of(ws, change)
    graph = before_graph(ws, change)
    uses = edit_uses(ws.store, change.files, ws.module_of)
    # a past commit's neighbours are not the disk's: what reads an attribute is unknown
    tree = None if change.mode == "rev" else WorkTree(ws.root)
    past = change.base if change.mode == "rev" else None
    return run_pipeline(
        graph,
        change.files,
        module_of=ws.module_of,
        co_change=co,
        co_change_note=note,
        unresolved=relevant_unresolved(graph, change.files, ws.module_of),
        config=shipped_config(ws, past),
        task=change.task or "",
        written=uses.written,
        removed=uses.removed,
        missing=uses.missing,
        unexported=uses.unexported,
        recorded=(recorded_runs(ws.store, change.files, tree)
                  if settings.use_recorded_runs else None),
        retired=(retired(ws, change.files, at=past)
                 if "retired" in channels and (past or change.mode != "rev") else {}),
        named=(task_named(ws, change.task, change.paths, at=past)
               if "named" in channels and change.task and (past or change.mode != "rev")
               else {}),
        classified=classified,
        settings=settings,
    )


def shipped_config(ws: Workspace, at: str | None = None) -> dict[str, str]:
    """The configuration files that may name code by dotted path (entry points, pytest
    plugins; :mod:`impactlens.impact.config_refs`): those at the root and every indexed
    ``conftest.py``, from the work tree or, for a past commit ``at``, from git."""
    paths = [*CONFIG_FILES, *sorted(f.path for f in ws.store.files()
                                    if f.path.rsplit("/", 1)[-1] == CONFTEST)]
    if at is not None:
        raw = git.blobs(ws.root, [git.spec(at, p) for p in paths])
        got = {p: raw.get(git.spec(at, p)) for p in paths}
        return {p: b.decode("utf-8", "replace") for p, b in got.items() if b is not None}
    tree = WorkTree(ws.root)
    texts = {p: tree.text(p) for p in paths}
    return {p: t for p, t in texts.items() if t is not None}


def before_graph(ws: Workspace, change: ProposedChange) -> IndexGraph:
    """The graph of the tree *before* the change: the index itself for ``--diff`` and
    ``--before/--after`` (the indexed tree is the before state), else the index with the
    files that read what the change removed re-resolved against the before texts, in
    memory (:mod:`impactlens.index.overlay`)."""
    if change.mode in ("diff", "before-after"):
        return ws.store
    return overlay_for(ws.store, change.files, ws.module_of) or ws.store


def _co_change_of(ws: Workspace, change: ProposedChange) -> tuple[CoChangeCandidates, str]:
    if "cochange" not in ws.settings.channels:  # (the pipeline's note says so)
        return {}, ""
    if not change.files:
        return {}, "co-change: history channel not available"
    symbols = (edited_symbols(change.files, ws.module_of, ws.settings)
               if ws.settings.weighs_symbols else None)
    # a past commit's files are named as then; the other inputs are the indexed tree's
    return co_change(ws, change.paths, task=change.task,
                     as_of=change.as_of if change.dated else None, symbols=symbols,
                     as_indexed=change.mode != "rev")


def co_change(
    ws: Workspace, edited_files: Iterable[str], task: str = "", as_of: object = None,
    symbols: Mapping[str, Iterable[str]] | None = None, *, as_indexed: bool = True,
) -> tuple[CoChangeCandidates, str]:
    """Co-change partners of each edited file from the commits authored strictly before
    ``as_of`` (``None`` = now; epoch, ``datetime`` or ISO date), weighted by the BM25
    relevance of each commit message to ``task`` and, when ``symbols`` names the edited
    definitions per file, by whether a commit touched them. Files are named as the indexed
    tree names them (``as_indexed``; a file renamed since the cut under its new name), or
    as at the cut (a past commit's files, for ``--rev``). Returns ``({file: [(partner,
    score)]}, note)``; the note says when the channel is empty and why."""
    cut = cut_time(as_of)
    store = ws.store
    state = history_state(store, news=False)  # the same answer however often run
    # the commits after the cut lend their renames only, and only to the indexed tree
    history = load_history(store, before=None if as_indexed else cut)
    later = [c for c in history if c.author_time >= cut]
    result = score_co_change(
        history, edited_files, task=task, cut=cut, settings=ws.settings,
        exists=lambda p: store.file_record(p) is not None,
        symbols=symbols, renamed_since=later, undated=as_of is None,
    )
    if not state:
        state = "history: not mined yet (run `impactlens index`); co-change channel empty"
    return result.as_dict(), f"{state}; {result.note}"


def retired(ws: Workspace, files: Sequence[FileChange], at: str | None = None
            ) -> dict[str, tuple[str, ...]]:
    """The library files that mention an identifier the edit ``files`` removed the last
    mention of: ``{path: identifiers}`` (:mod:`impactlens.impact.retired`). The other files
    are read from the work tree, or from commit ``at`` (a past change's base)."""
    paths = [r.path for r in ws.store.files()]
    in_project = project_modules(ws.store.module_paths())
    if at is None:
        return retired_partners(WorkTree(ws.root), files, paths, in_project, ws.settings)
    matches = git.grep_words(ws.root, at, retired_patterns(files, in_project), "*.py")
    return partners_in_matches(files, paths, matches, in_project, ws.settings)


def task_named(ws: Workspace, task: str, edited_files: Iterable[str], at: str | None = None
               ) -> dict[str, tuple[tuple[str, str], ...]]:
    """The library files (not ``edited_files``) defining a class, function, method or
    module-level binding ``task`` names as code, or that are the module it names:
    ``{path: ((definition or module id, name), …)}`` (:mod:`impactlens.impact.tasknamed`).
    With ``at`` (a past change's base) only what that commit's tree has too is kept: the
    index knows the work tree's."""
    found = named_in(ws.store.nodes_named, task, edited_files, ws.settings)
    if at is None or not found:
        return found
    texts = git.blobs(ws.root, [git.spec(at, p) for p in found])
    then = {p: defined_names(blob.decode("utf-8", "replace"))
            for p in found if (blob := texts.get(git.spec(at, p))) is not None}
    # a module named is kept when the base has its file; a definition, when it has that
    kept = {p: tuple(d for d in defs if d[0] == ws.module_of(p) or d[1] in then[p])
            for p, defs in found.items() if p in then}
    return {p: defs for p, defs in kept.items() if defs}


def recorded_runs(store: Store, files: Sequence[FileChange], tree: WorkTree | None = None
                  ) -> RecordedTests | None:
    """The store's recorded test run prepared for this change (``None``: nothing
    recorded); ``tree``: the work tree, searched for what reads an attribute the change
    stores."""
    recording = Recording.load(store)
    if recording is None:
        return None
    return recorded_tests(recording, {r.path: r.sha256 for r in store.files()}, files, tree)


def write_outputs(result: ImpactResult, out_dir: Path, settings: Settings = DEFAULT, *,
                  detail: bool = False) -> list[Path]:
    """``changes.json``, ``impact.json``, ``test_map.txt`` into ``out_dir`` (each atomic);
    ``test_map.txt`` is always whole, ``impact.json`` whole only with ``detail``."""
    try:
        state_path(out_dir, is_dir=True)  # never through a symlinked .impactlens/out
    except OSError as exc:
        raise BadInputError(f"{out_dir}: cannot create the output directory ({exc.strerror})") \
            from None
    texts: Sequence[tuple[str, str]] = (
        ("changes.json", json.dumps(result.changes_json(), indent=2, ensure_ascii=False) + "\n"),
        ("impact.json", impact_json_text(result, settings, detail=detail)),
        ("test_map.txt", result.test_map_text()),
    )
    written = []
    for name, text in texts:
        p = out_dir / name
        try:
            atomic_write(p, text)
        except OSError as exc:
            raise BadInputError(f"{p}: cannot write ({exc.strerror})") from None
        written.append(p)
    return written
