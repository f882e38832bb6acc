"""The public Python API: one facade the CLI, the MCP server and the tests share.

>>> from impactlens.api import Project
>>> p = Project("path/to/repo")
>>> p.index()                                  # incremental; Project.index(full=True) rebuilds
>>> p.impact("pkg.mod.Cls.meth", depth=3)      # what depends on it (dependents), by depth
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from impactlens.errors import BadInputError, ImpactlensError, NotARepositoryError, WatchError
from impactlens.fileio import outside_root, read_source
from impactlens.index import queries
from impactlens.index.indexer import Indexer, ProgressFn
from impactlens.index.store import Store, index_path, writable
from impactlens.model import (
    DEPENDENCIES,
    DEPENDENTS,
    FileChange,
    ImpactResult,
    IndexSummary,
    Node,
    UnresolvedSite,
    normalise_direction,
)
from impactlens.settings import DEFAULT, Settings, from_pyproject, to_env

if TYPE_CHECKING:
    from impactlens.change.inputs import ProposedChange
    from impactlens.index.watch import RepositoryWatcher
    from impactlens.run import Workspace

__all__ = ["Project", "check_project", "repository_settings"]


def repository_settings(root: Path, base: Settings = DEFAULT) -> Settings:
    """``base`` with ``root/pyproject.toml``'s ``[tool.impactlens]`` applied; a wrong
    entry is a :class:`BadInputError` naming it."""
    try:
        return from_pyproject(root, base)
    except ValueError as exc:
        raise BadInputError(str(exc)) from None


def check_project(root: Path) -> None:
    """Refuse a directory that is no project (not in git, no Python file), before an index
    (``.impactlens/``) is made there."""
    from impactlens.index.discover import holds_source_files
    from impactlens.index.git import is_repository

    if not is_repository(root) and not holds_source_files(root):
        raise NotARepositoryError(f"{root} is not a git repository and holds no Python files; "
                                  "run impactlens in a project")


class Project:
    """A repository under analysis, with its index at ``ROOT/.impactlens/index.db``."""

    def __init__(self, root: str | Path, settings: Settings | None = None) -> None:
        """``settings``: ``None`` = the defaults with the repository's own
        ``[tool.impactlens]`` (its ``pyproject.toml``) applied."""
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotARepositoryError(f"{root}: not a directory")
        self.settings = settings if settings is not None else repository_settings(self.root)
        self._store: Store | None = None
        self._watcher: RepositoryWatcher | None = None
        self._watch_checked = False  # the disk was scanned since the watcher started
        self.staleness_scans = 0  # how often refresh() scanned the disk for changes
        self.note = ""  # one line about the index for the user (it could not be refreshed)

    # ------------------------------------------------------------------ index
    def index(self, *, full: bool = False, progress: ProgressFn | None = None,
              history_budget: int | None = None) -> IndexSummary:
        """Bring the index up to date (incrementally unless ``full``), mining at most
        ``history_budget`` new commits (``None``: the whole horizon)."""
        check_project(self.root)
        self.close()
        indexer = Indexer(self.root, self.settings)
        summary = indexer.run(full=full, progress=progress, history_budget=history_budget)
        self.note = indexer.note
        return summary

    @property
    def store(self) -> Store:
        """The open graph store (refreshing the index first if there is none)."""
        if self._store is None:
            if not index_path(self.root).exists():
                self.index(history_budget=self.settings.history_refresh_commits)
            self._store = Store.open(index_path(self.root))
        return self._store

    def refresh(self, progress: ProgressFn | None = None) -> IndexSummary | None:
        """Re-index incrementally when files changed on disk, or history mining has commits
        left (``settings.history_refresh_commits`` more per call); ``None`` when neither.

        While :meth:`start_watching` follows the saves, what the watcher reported decides,
        without scanning the disk; a watcher that does not catch up within
        ``watch_sync_timeout_s`` (or has not yet been checked against the disk) leaves it to
        the scan."""
        watcher = self._watcher
        path = index_path(self.root)
        budget = self.settings.history_refresh_commits
        if path.exists() and not writable(path):
            self.note = (f"{path} is read-only: answers come from it as it is; it cannot be "
                         "refreshed")
            return None
        try:
            if watcher is not None and self._watch_checked and watcher.sync(
                    self.settings.watch_sync_timeout_s):
                return (self.index(progress=progress, history_budget=budget)
                        if watcher.take() or self._history_pending() else None)
            if watcher is not None:
                watcher.take()  # the scan below sees these changes
            self.staleness_scans += 1
            summary = (None if index_path(self.root).exists()
                       and not Indexer(self.root, self.settings).is_stale()
                       and not self._history_pending()
                       else self.index(progress=progress, history_budget=budget))
            self._watch_checked = watcher is not None
            return summary
        except BaseException:
            self._watch_checked = False  # what the watcher reported may be lost: scan next
            raise

    # ------------------------------------------------------------------ watch
    def start_watching(self, on_change: Callable[[], None] | None = None) -> None:
        """Follow the saves under the root from now on (:mod:`impactlens.index.watch`), so
        that :meth:`refresh` re-indexes when a file the index reads changed and skips the
        staleness scan when none did. ``on_change`` runs on the watcher's thread after a
        burst of such saves (it must not block). :class:`WatchError` when the watcher does
        not start."""
        if self._watcher is not None:
            return
        from impactlens.index.watch import RepositoryWatcher

        check_project(self.root)
        watcher = RepositoryWatcher(self.root, quiet_ms=self.settings.watch_quiet_ms,
                                    max_burst_ms=self.settings.watch_max_burst_ms,
                                    on_change=on_change)
        watcher.start()
        if not watcher.sync(self.settings.watch_start_timeout_s):
            watcher.stop()
            why = watcher.error or (f"no file event seen within "
                                    f"{self.settings.watch_start_timeout_s:g}s")
            raise WatchError(f"{self.root}: cannot watch for changes: {why}")
        self._watcher, self._watch_checked = watcher, False

    def wait_for_change(self, timeout_s: float | None = None) -> bool:
        """Block until the watcher reports a change to a file the index reads (True), or
        ``timeout_s`` passes (False); :class:`WatchError` when the watcher stopped."""
        if self._watcher is None:
            raise WatchError("not watching: call start_watching() first")
        if self._watcher.wait(timeout_s):
            return True
        if not self._watcher.running:
            raise WatchError(f"{self.root}: the file watcher stopped: "
                             f"{self._watcher.error or 'no reason given'}")
        return False

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher, self._watch_checked = None, False

    def _history_pending(self) -> bool:
        """Whether history mining stopped with commits of the horizon left (a refresh then
        mines the next slice)."""
        from impactlens.index.history import history_pending

        path = index_path(self.root)
        if "cochange" not in self.settings.channels or not path.exists():
            return False
        if self._store is not None:
            return history_pending(self._store) > 0
        try:
            store = Store.open(path)
        except ImpactlensError:  # an unusable index: the refresh rebuilds it anyway
            return True
        try:
            return history_pending(store) > 0
        finally:
            store.close()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_watching()
        self.close()

    # ---------------------------------------------------------------- queries
    def resolve_symbol(self, ref: str) -> Node:
        """A qualname, a unique suffix of one, a test node id, or ``path.py:LINE``."""
        return queries.resolve_symbol(self.store, ref)

    def find(self, name: str, limit: int = 20) -> list[Node]:
        return queries.find(self.store, name, limit)

    def impact(
        self, symbol: str, *, direction: str = "dependents", depth: int = 3,
        offset: int = 0, limit: int | None = None,
    ) -> dict[str, Any]:
        """Call-graph impact, grouped by depth (see README for the schema): ``dependents``
        = what depends on ``symbol`` (callers, importers, subclasses), ``dependencies`` =
        what it depends on (deprecated: ``upstream`` = dependents, ``downstream`` =
        dependencies). ``offset``/``limit`` page the symbols; ``total``, ``omitted`` and
        ``by_file`` count them all (:func:`queries.page_impact`)."""
        result = queries.impact(self.store, self.resolve_symbol(symbol), direction, depth)
        return queries.page_impact(result, offset, limit)

    def context(self, symbol: str) -> dict[str, Any]:
        return queries.context(self.store, self.resolve_symbol(symbol))

    def export_callgraph(self, fmt: str = "json", world: str = "open") -> Any:
        """The whole call graph as ``json`` (dict), ``dot`` (str) or ``pycg`` (dict);
        ``world="closed"`` keeps only what receivers the program builds can reach."""
        return queries.export_callgraph(self.store, fmt, world)

    def unresolved(self) -> list[UnresolvedSite]:
        return self.store.unresolved_sites()

    def module_of(self, path: str) -> str:
        return queries.module_of(self.store, self.root, path)

    def read_file(self, path: str) -> str | None:
        """Current text of a repository file (``None`` when absent or unreadable)."""
        if outside_root(self.root, path):
            return None
        return read_source(self.root / path)

    # ------------------------------------------------------------ extensions
    # Change-impact analysis (impactlens.impact), slicing (impactlens.pdg) and history
    # (impactlens.index.history) add their methods below, each delegating to its package.

    # --- change impact (impactlens.run) ------------------------------------
    def workspace(self) -> Workspace:
        """What one analysis reads: the root, the settings and the open index."""
        from impactlens.run import Workspace  # the pipeline (numpy, BM25): loaded when used

        return Workspace(self.root, self.settings, self.store)

    def proposed_change(self, **change: Any) -> ProposedChange:
        """The proposed edit, without analyzing it. Keywords (by precedence):
        ``before=FILE, after=FILE[, path=REPO_PATH]`` | ``diff=TEXT[, diff_source=NAME]`` |
        ``rev="A..B"|"SHA"`` | nothing (the working tree vs HEAD); plus ``task=TEXT`` and
        ``as_of=DATE`` (ISO date/datetime, ``@EPOCH`` or epoch int)."""
        from impactlens.change.inputs import read_change  # git diffs: loaded when used

        return read_change(self.root, **change)

    def analyze(self, change: ProposedChange | None = None, *, refresh: bool = True,
                **opts: Any) -> ImpactResult:
        """Impact of a proposed edit (a ``ProposedChange``, or the keywords of
        :meth:`proposed_change`) as an ``ImpactResult``; the index is refreshed first."""
        if refresh:
            self.refresh()
        if change is None:
            change = self.proposed_change(**opts)
        from impactlens import run

        return run.analyze(self.workspace(), change)

    def analyze_before_after(
        self, path: str, before: str | None, after: str | None, *, task: str = "",
        as_of: str | int | None = None, refresh: bool = True,
    ) -> ImpactResult:
        """Impact of replacing file ``path``'s text ``before`` by ``after`` (``None`` = the
        file is absent on that side), without touching the disk."""
        from impactlens.change.inputs import from_texts, parse_as_of

        change = from_texts(self.root, path, before, after, task=task, as_of=parse_as_of(as_of))
        return self.analyze(change, refresh=refresh)

    def tests_for_change(self, change: ProposedChange | None = None, **opts: Any) -> list[str]:
        """The targeted validation set (pytest node ids) of a proposed edit."""
        return list(self.analyze(change, **opts).validate)

    def retired(self, files: Sequence[FileChange], at: str | None = None
                ) -> dict[str, tuple[str, ...]]:
        """:func:`impactlens.run.retired`: the files mentioning what the edit stopped
        mentioning (read from the work tree, or from commit ``at``)."""
        from impactlens import run

        return run.retired(self.workspace(), files, at)

    def task_named(self, task: str, edited_files: Iterable[str], at: str | None = None
                   ) -> dict[str, tuple[tuple[str, str], ...]]:
        """:func:`impactlens.run.task_named`: the files defining what ``task`` names."""
        from impactlens import run

        return run.task_named(self.workspace(), task, edited_files, at)

    def co_change(
        self, edited_files: Iterable[str], task: str = "", as_of: object = None,
        symbols: Mapping[str, Iterable[str]] | None = None, *, as_indexed: bool = True,
    ) -> tuple[dict[str, list[tuple[str, float]]], str]:
        """:func:`impactlens.run.co_change`: co-change partners of each edited file from
        the commits before ``as_of``, with a note saying when the channel is empty."""
        from impactlens import run

        return run.co_change(self.workspace(), edited_files, task, as_of, symbols,
                             as_indexed=as_indexed)

    def record_tests(self, pytest_args: Sequence[str] = (), *, lines: bool = True
                     ) -> tuple[int, dict[str, Any] | None]:
        """Run the suite under ``pytest --impact-record`` (output to the terminal) and store
        which tests run which functions and lines (:mod:`impactlens.index.recording`;
        ``lines=False``: functions only, cheaper). Returns pytest's exit code and the
        recording's summary (``None`` when no recording was stored). Without arguments, a
        suite configured in its own directory (``tests/pytest.ini``) runs as ``pytest
        tests``: with that configuration, as the repository runs it."""
        import json
        import os
        import subprocess
        import sys
        import tempfile

        from impactlens.index.child_trace import start_up_env
        from impactlens.index.python.pytest_config import config_dir

        before = self.store.recording_info() if index_path(self.root).exists() else None
        if not pytest_args and (where := config_dir(self.root)):
            pytest_args = [where]
        cmd = [sys.executable, "-m", "pytest", "--impact-record", *pytest_args]
        if not lines:
            cmd[4:4] = ["--impact-record-functions"]
        if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            cmd[3:3] = ["-p", "impactlens.serve.pytest_plugin"]
        with tempfile.TemporaryDirectory(prefix="impactlens-start-") as stub:
            # traced from start-up: what a plugin's import of the project ran is recorded
            env = start_up_env(self.root, Path(stub), lines) | to_env(self.settings)
            code = subprocess.run(cmd, cwd=self.root, env=env, check=False).returncode
        self.close()  # the run wrote the index from another process: reopen it
        after = self.store.recording_info() if index_path(self.root).exists() else None
        return code, (json.loads(after) if after and after != before else None)


    # --- statement-level slicing (impactlens.pdg) -----------------------------
    def pdg_impact(
        self, symbol: str, line: int, direction: str = "dependents", depth: int = 3
    ) -> dict[str, Any]:
        """Statement-level impact of ``line`` inside ``symbol`` — ``dependents``: the
        statements the line affects; ``dependencies``: those it depends on (deprecated:
        ``downstream`` = dependents, ``upstream`` = dependencies): the intra-procedural slice
        (``affected_statements``), inter-procedural statements and statement-precise callees
        (resolved ids), plus the call-graph reach in ``by_depth``. Degraded answers carry a
        ``reason``. The PDG is built on demand from the file's current content."""
        from impactlens.pdg.slicing import pdg_impact
        from impactlens.pdg.source import SourceCache

        target = self.resolve_symbol(symbol)
        callgraph = self.impact(target.id, direction=_reach(direction), depth=depth)
        cache = SourceCache(self.root, max_bytes=self.settings.max_file_bytes)
        return pdg_impact(self.store, cache, target, target.file, line, direction, depth,
                          callgraph)

    def slice(
        self, file: str | Path, line: int, direction: str = "dependents", depth: int = 3,
        *, use_index: bool = True,
    ) -> dict[str, Any]:
        """``pdg_impact`` addressed by ``FILE:LINE``. Without an index (or ``use_index=False``)
        only the intra-procedural slice is computed, from source."""
        from impactlens.pdg.slicing import enclosing_symbol, pdg_impact
        from impactlens.pdg.source import SourceCache

        path = self._repo_path(file)
        cache = SourceCache(self.root, max_bytes=self.settings.max_file_bytes)
        if use_index and index_path(self.root).exists():
            self.refresh()
            target = enclosing_symbol(self.store, path, line)
            callgraph = (self.impact(target.id, direction=_reach(direction), depth=depth)
                         if target is not None else None)
            return pdg_impact(self.store, cache, target, path, line, direction, depth, callgraph)
        return pdg_impact(None, cache, None, path, line, direction, depth, None)

    def _repo_path(self, file: str | Path) -> str:
        p = str(file)
        if not os.path.isabs(p) and os.path.exists(p) and not (self.root / p).exists():
            p = os.path.abspath(p)  # a path from the working directory
        from impactlens.change.inputs import repo_path

        return repo_path(self.root, p, what="file")


def _reach(slice_direction: str) -> str:
    """The call-graph walk beside a line's slice: a line's dependents travel into what its
    function calls (its dependencies), and the other way round."""
    try:
        word = normalise_direction(slice_direction, "slice")
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    return DEPENDENCIES if word == DEPENDENTS else DEPENDENTS
