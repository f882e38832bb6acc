"""The public Python API: one facade the CLI, the MCP server and the tests share.

>>> from impactlens.api import Project
>>> p = Project("path/to/repo")
>>> p.index()                                  # incremental; Project.index(full=True) rebuilds
>>> p.impact("pkg.mod.Cls.meth", depth=3)      # what depends on it (dependents), by depth
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from impactlens.errors import BadInputError, NotARepositoryError
from impactlens.index import queries
from impactlens.index.indexer import Indexer, ProgressFn
from impactlens.index.store import Store, index_path
from impactlens.model import (
    DEPENDENCIES,
    DEPENDENTS,
    IndexSummary,
    Node,
    UnresolvedSite,
    normalise_direction,
)
from impactlens.settings import DEFAULT, Settings, from_pyproject, to_env

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
    from impactlens.change.git import is_repository
    from impactlens.index.discover import holds_python_files

    if not is_repository(root) and not holds_python_files(root):
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

    # ------------------------------------------------------------------ index
    def index(self, *, full: bool = False, progress: ProgressFn | None = None) -> IndexSummary:
        """Bring the index up to date (incrementally unless ``full``)."""
        check_project(self.root)
        self.close()
        return Indexer(self.root, self.settings).run(full=full, progress=progress)

    @property
    def store(self) -> Store:
        """The open graph store (refreshing the index first if there is none)."""
        if self._store is None:
            if not index_path(self.root).exists():
                self.index()
            self._store = Store.open(index_path(self.root))
        return self._store

    def refresh(self, progress: ProgressFn | None = None) -> IndexSummary | None:
        """Re-index incrementally when files changed on disk; ``None`` when nothing did."""
        if index_path(self.root).exists() and not Indexer(self.root, self.settings).is_stale():
            return None
        return self.index(progress=progress)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
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
        rec = self.store.file_record(path)
        if rec is not None:
            return rec.module
        from impactlens.index.discover import module_name

        return module_name(self.root, path)

    def read_file(self, path: str) -> str | None:
        """Current text of a repository file (``None`` when absent or unreadable)."""
        try:
            return (self.root / path).read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            return None

    # ------------------------------------------------------------ extensions
    # Change-impact analysis (impactlens.impact), slicing (impactlens.pdg) and history
    # (impactlens.index.history) add their methods below, each delegating to its package.

    # --- change impact (impactlens.change → impactlens.impact) ---------------
    def proposed_change(self, **change: Any) -> Any:
        """The proposed edit, without analyzing it. Keywords (by precedence):
        ``before=FILE, after=FILE[, path=REPO_PATH]`` | ``diff=TEXT[, diff_source=NAME]`` |
        ``rev="A..B"|"SHA"`` | nothing (the working tree vs HEAD); plus ``task=TEXT`` and
        ``as_of=DATE`` (ISO date/datetime, ``@EPOCH`` or epoch int)."""
        from impactlens.change.analysis import read_change

        return read_change(self, **change)

    def analyze(self, change: Any = None, *, refresh: bool = True, **opts: Any) -> Any:
        """Impact of a proposed edit (a ``ProposedChange``, or the keywords of
        :meth:`proposed_change`) as an ``ImpactResult``; the index is refreshed first."""
        from impactlens.change.analysis import analyze

        if refresh:
            self.refresh()
        if change is None:
            change = self.proposed_change(**opts)
        return analyze(self, change)

    def analyze_before_after(
        self, path: str, before: str | None, after: str | None, *, task: str = "",
        as_of: str | int | None = None, refresh: bool = True,
    ) -> Any:
        """Impact of replacing file ``path``'s text ``before`` by ``after`` (``None`` = the
        file is absent on that side), without touching the disk."""
        from impactlens.change.inputs import from_texts, parse_as_of

        change = from_texts(self.root, path, before, after, task=task, as_of=parse_as_of(as_of))
        return self.analyze(change, refresh=refresh)

    def retired(self, files: Sequence[Any], at: str | None = None
                ) -> dict[str, tuple[str, ...]]:
        """The library files that mention an identifier the edit ``files`` (``FileChange``s)
        removed the last mention of: ``{path: identifiers}`` (impact/retired.py). The other
        files are read from the work tree, or from commit ``at`` (a past change's base)."""
        from impactlens.impact.retired import (
            project_modules,
            retired_partners,
            retired_partners_at,
        )

        store = self.store
        paths = [r.path for r in store.files()]
        in_project = project_modules(store.module_paths())
        if at is not None:
            return retired_partners_at(self.root, at, files, paths, in_project, self.settings)
        return retired_partners(self.root, files, paths, in_project, self.settings)

    def task_named(self, task: str, edited_files: Iterable[str], at: str | None = None
                   ) -> dict[str, tuple[tuple[str, str], ...]]:
        """The library files (not ``edited_files``) defining a class, function, method or
        module-level binding ``task`` names as code, or that are the module it names:
        ``{path: ((definition or module id, name), …)}`` (impact/tasknamed.py). With ``at``
        (a past change's base) only what that commit's tree has too is kept: the index
        knows the work tree's."""
        from impactlens.change import git
        from impactlens.impact.tasknamed import defined_names, task_named

        found = task_named(self.store.nodes_named, task, edited_files, self.settings)
        if at is None or not found:
            return found
        texts = git.blobs(self.root, [git.spec(at, p) for p in found])
        then = {p: defined_names(blob.decode("utf-8", "replace"))
                for p in found if (blob := texts.get(git.spec(at, p))) is not None}
        # a module named is kept when the base has its file; a definition, when it has that
        kept = {p: tuple(d for d in defs if d[0] == self.module_of(p) or d[1] in then[p])
                for p, defs in found.items() if p in then}
        return {p: defs for p, defs in kept.items() if defs}

    def tests_for_change(self, change: Any = None, **opts: Any) -> list[str]:
        """The targeted validation set (pytest node ids) of a proposed edit."""
        return list(self.analyze(change, **opts).validate)

    def co_change(
        self, edited_files: Iterable[str], task: str = "", as_of: object = None,
        symbols: Mapping[str, Iterable[str]] | None = None, *, as_indexed: bool = True,
    ) -> tuple[dict[str, list[tuple[str, float]]], str]:
        """§3.4 co-change partners of each edited file from commits authored strictly before
        ``as_of`` (``None`` = now; epoch, ``datetime`` or ISO date), weighted by the BM25
        relevance of each commit message to ``task`` and, when ``symbols`` names the edited
        definitions per file, by whether a commit touched them. Files are named as the
        indexed tree names them (``as_indexed``; a file renamed since the cut under its
        new name), or as at the cut (a past commit's files, for ``--rev``). Returns
        ``({file: [(partner, score)]}, note)``; the note says when the channel is empty
        and why."""
        from impactlens.impact.cochange import co_change, cut_time
        from impactlens.index.history import history_state, load_history

        cut = cut_time(as_of)
        store = self.store
        state = history_state(store, news=False)  # the same answer however often run
        # the commits after the cut lend their renames only, and only to the indexed tree
        history = load_history(store, before=None if as_indexed else cut)
        later = [c for c in history if c.author_time >= cut]
        result = co_change(
            history, edited_files, task=task, cut=cut,
            settings=self.settings, exists=lambda p: store.file_record(p) is not None,
            symbols=symbols, renamed_since=later, undated=as_of is None,
        )
        if not state:
            state = "history: not mined yet (run `impactlens index`); co-change channel empty"
        return result.as_dict(), f"{state}; {result.note}"

    def record_tests(self, pytest_args: Sequence[str] = (), *, lines: bool = True
                     ) -> tuple[int, dict[str, Any] | None]:
        """Run the suite under ``pytest --impact-record`` (output to the terminal) and store
        which tests run which functions and lines (:mod:`impactlens.index.recording`;
        ``lines=False``: functions only, cheaper). Returns pytest's exit code and the
        recording's summary (``None`` when no recording was stored)."""
        import json
        import os
        import subprocess
        import sys
        import tempfile

        from impactlens.index.child_trace import start_up_env

        before = self.store.recording_info() if index_path(self.root).exists() else None
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
        return pdg_impact(self.store, SourceCache(self.root), target, target.file, line,
                          direction, depth, callgraph)

    def slice(
        self, file: str | Path, line: int, direction: str = "dependents", depth: int = 3,
        *, use_index: bool = True,
    ) -> dict[str, Any]:
        """``pdg_impact`` addressed by ``FILE:LINE``. Without an index (or ``use_index=False``)
        only the intra-procedural slice is computed, from source."""
        from impactlens.pdg.slicing import enclosing_symbol, pdg_impact
        from impactlens.pdg.source import SourceCache

        path = self._repo_path(file)
        cache = SourceCache(self.root)
        if use_index and index_path(self.root).exists():
            self.refresh()
            target = enclosing_symbol(self.store, path, line)
            callgraph = (self.impact(target.id, direction=_reach(direction), depth=depth)
                         if target is not None else None)
            return pdg_impact(self.store, cache, target, path, line, direction, depth, callgraph)
        return pdg_impact(None, cache, None, path, line, direction, depth, None)

    def _repo_path(self, file: str | Path) -> str:
        p = Path(file)
        if p.is_absolute() or ((Path.cwd() / p).exists() and not (self.root / p).exists()):
            try:
                return p.resolve().relative_to(self.root).as_posix()
            except ValueError:
                from impactlens.errors import BadInputError

                raise BadInputError(f"{file}: not inside the repository {self.root}") from None
        return p.as_posix()


def _reach(slice_direction: str) -> str:
    """The call-graph walk beside a line's slice: a line's dependents travel into what its
    function calls (its dependencies), and the other way round."""
    try:
        word = normalise_direction(slice_direction, "slice")
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    return DEPENDENCIES if word == DEPENDENTS else DEPENDENTS
