"""Saves to a repository as they happen: a background watcher (watchfiles) that collects
the paths the index reads, a burst of saves at a time, and a barrier that returns once
every save made before it has been reported.

The barrier (:meth:`RepositoryWatcher.sync`) creates a marker file under
``.impactlens/`` and waits for the watcher to report it: the operating system reports a
watch's events in the order they happened, so by then every earlier save has been
reported too. A caller that gets no answer in time checks the disk itself.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import watchfiles

from impactlens.index import discover, frontend
from impactlens.index.python.pytest_config import CONFIG_FILES, TEST_DIRS
from impactlens.index.store import INDEX_DIRNAME

__all__ = ["RepositoryWatcher", "concerns_index"]

MARKER_DIRNAME = "watch-sync"  # under .impactlens/: the barrier's marker files
_CONFIG_NAMES = frozenset({*CONFIG_FILES, ".gitignore"})
_RETRY_S = 0.1  # a marker written before the watch was set up is written again after this


def concerns_index(root: Path, path: str, deleted: bool) -> bool:
    """Whether a change to the repository path ``path`` may change the index: a source
    file, the pytest configuration or a ``.gitignore`` (which files are listed), or a
    directory coming or going (the files it holds are not reported one by one), outside
    the directories the index skips."""
    parent, _, name = path.rpartition("/")
    if discover.in_skipped_dir(root, path) or name.startswith(".#"):  # .#: an editor's lock
        return False
    if frontend.owns(name) or name == ".gitignore":
        return True
    if (not parent or parent in TEST_DIRS) and name in _CONFIG_NAMES:
        return True
    full = root / path
    if full.is_dir():
        return not discover.is_skipped_dir(str(full.parent), name)
    # a removed directory can no longer be told from a file: one without a suffix may be one
    return deleted and "." not in name and name not in discover.SKIP_DIRS


class RepositoryWatcher:
    """A background thread following the saves under ``root``; :meth:`take` hands out
    the repository paths changed since the last call. ``on_change`` runs on the watcher's
    thread after each burst that changed such a path (it must not block)."""

    def __init__(self, root: Path, *, quiet_ms: int, max_burst_ms: int,
                 on_change: Callable[[], None] | None = None) -> None:
        self.root = root.resolve()
        self.error = ""  # why the watcher stopped, when it failed
        self._prefix = str(self.root) + os.sep
        self._markers = self.root / INDEX_DIRNAME / MARKER_DIRNAME
        self._marker_prefix = f"{INDEX_DIRNAME}/{MARKER_DIRNAME}/"
        self._quiet_ms = quiet_ms
        self._max_burst_ms = max_burst_ms
        self._on_change = on_change
        self._cond = threading.Condition()
        self._changed: set[str] = set()
        self._awaited: set[str] = set()  # markers a sync waits for
        self._seen: set[str] = set()  # … and those reported
        self._running = False
        self._stop = threading.Event()
        self._names = itertools.count()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._markers.mkdir(parents=True, exist_ok=True)
        self._running = True
        self._thread = threading.Thread(target=self._run, name="impactlens-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    @property
    def running(self) -> bool:
        return self._running

    def _run(self) -> None:
        try:
            for batch in watchfiles.watch(
                    self.root, watch_filter=self._wanted, debounce=self._max_burst_ms,
                    step=self._quiet_ms, stop_event=self._stop, raise_interrupt=False):
                self._record({self._relative(p) for _change, p in batch})
        except Exception as exc:  # e.g. the system's limit on watches: callers fall back
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            with self._cond:
                self._running = False
                self._cond.notify_all()

    def _relative(self, path: str) -> str:
        return path[len(self._prefix):].replace(os.sep, "/") if path.startswith(
            self._prefix) else ""

    def _wanted(self, change: watchfiles.Change, path: str) -> bool:
        rel = self._relative(path)
        if not rel:
            return False
        if rel.startswith(self._marker_prefix):
            return True
        return concerns_index(self.root, rel, change == watchfiles.Change.deleted)

    def _record(self, paths: set[str]) -> None:
        markers = {p[len(self._marker_prefix):] for p in paths
                   if p.startswith(self._marker_prefix)}
        changed = {p for p in paths if not p.startswith(self._marker_prefix)}
        with self._cond:
            self._changed |= changed
            self._seen |= markers & self._awaited
            self._cond.notify_all()
        if changed and self._on_change is not None:
            self._on_change()

    # -------------------------------------------------------------- queries
    def sync(self, timeout_s: float) -> bool:
        """Wait until every save made before this call has been reported (True), or
        ``timeout_s`` passed or the watcher stopped (False)."""
        deadline = time.monotonic() + timeout_s
        names: list[str] = []

        def reported() -> bool:
            return not self._seen.isdisjoint(names) or not self._running

        try:
            self._markers.mkdir(parents=True, exist_ok=True)  # .impactlens/ may be gone
            while self._running and time.monotonic() < deadline:
                # a marker made before the watch was set up goes unreported: make another
                name = f"{os.getpid()}-{next(self._names)}"
                names.append(name)
                with self._cond:
                    self._awaited.add(name)
                (self._markers / name).touch()
                with self._cond:
                    self._cond.wait_for(reported, min(_RETRY_S, deadline - time.monotonic()))
                    if not self._seen.isdisjoint(names):
                        return True
            return False
        except OSError:  # the marker cannot be written: no barrier
            return False
        finally:
            with self._cond:
                self._awaited.difference_update(names)
                self._seen.difference_update(names)
            for name in names:
                (self._markers / name).unlink(missing_ok=True)

    def take(self) -> set[str]:
        """The repository paths reported changed since the last call."""
        with self._cond:
            changed, self._changed = self._changed, set()
        return changed

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until a change is pending (True), or the watcher stopped or ``timeout_s``
        passed (False)."""
        with self._cond:
            return self._cond.wait_for(lambda: bool(self._changed) or not self._running,
                                       timeout_s) and bool(self._changed)
