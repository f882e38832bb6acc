"""Repository → graph store, incrementally.

One run: discover files, hash them (mtime+size short-cut), parse the changed
ones in parallel worker processes, then — inside ONE write transaction —
replace their facts and re-resolve every file whose resolution consulted a
changed module or path. Resolution of a file depends only on its own facts and
what it looked up (recorded as its dependencies), so an incremental index
equals a from-scratch index of the same tree.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from impactlens.fileio import OUTSIDE, outside_root
from impactlens.index import discover, git, read_fingerprints
from impactlens.index.frontend import ParseFailure, frontend_for
from impactlens.index.lock import Lock, index_lock
from impactlens.index.python import pytest_config
from impactlens.index.python.pytest_config import Collect
from impactlens.index.runtime import gc_paused
from impactlens.index.store import (
    INDEX_DIRNAME,
    ResolutionRows,
    Store,
    facts_names,
    index_path,
    pack_facts,
    resolution_rows,
    unpack_facts,
)
from impactlens.index.store_health import out_of_space
from impactlens.model import FileRecord, FileResolution, IndexSummary
from impactlens.settings import Settings

ProgressFn = Callable[[str, int, int], None]  # (phase, done, total)
LOCK_FILENAME = "index.lock"
COLLECT_META = "pytest_collect"  # the pytest collection rules the index is built with
EVERY_FILE = "*"  # the dependency key of a resolution that read every file
NAMED = "named:"  # + kind:name, the dependency key of a question of :meth:`FactsLookup.named`
_SHARED = "\0shared"  # FactsLookup.shared's place among the facts by path (no path is this)


@dataclass(frozen=True, slots=True)
class _Parsed:
    record: FileRecord
    facts: Any
    mtime_ns: int
    blob: bytes | None = None  # the facts packed as the store keeps them, when known


# ------------------------------------------------------------------ workers
def _read(root: str, path: str, max_bytes: int) -> tuple[bytes | None, int, int, str]:
    """(content or None, size, mtime_ns, error)."""
    full = os.path.join(root, path)
    if outside_root(root, path):
        return None, 0, 0, OUTSIDE
    try:
        st = os.stat(full)
        if st.st_size > max_bytes:
            return None, st.st_size, st.st_mtime_ns, f"file is {st.st_size} bytes (cap {max_bytes})"
        with open(full, "rb") as fh:
            return fh.read(), st.st_size, st.st_mtime_ns, ""
    except OSError as exc:
        reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        return None, 0, 0, reason


def _parse_one(root: str, path: str, module: str, is_test: bool, max_bytes: int) -> _Parsed:
    fe = frontend_for(path)
    language = fe.language if fe is not None else ""
    data, size, mtime, err = _read(root, path, max_bytes)
    if data is None or fe is None:
        status = ("too-large" if err.startswith("file is")
                  else "skipped" if err == OUTSIDE else "unreadable")
        rec = FileRecord(path, "", language, module, size, status, err or "no language",
                         is_test)
        return _Parsed(rec, None, mtime)
    sha = hashlib.sha256(data).hexdigest()
    skip = fe.skipped(path, data)
    if skip is not None:
        return _Parsed(FileRecord(path, sha, language, module, size, "skipped", skip.why,
                                  is_test), None, mtime)
    try:
        facts = fe.parse(path, data, module, is_test)
    except ParseFailure as exc:  # a partial parse keeps the facts of what was recovered
        return _Parsed(FileRecord(path, sha, language, module, size, exc.status, exc.message,
                                  is_test, partial=exc.partial), exc.facts, mtime)
    return _Parsed(FileRecord(path, sha, language, module, size, "ok", "", is_test), facts,
                   mtime)


def _parse_chunk(root: str, items: list[tuple[str, str, bool]], max_bytes: int
                 ) -> list[_Parsed]:
    """Parse in a worker and hand back the facts packed (pickled and compressed): the pool
    would pickle them anyway to send them, and these are the bytes the store keeps, so the
    parent, which writes every file, need not pack them again."""
    out = []
    for p, m, is_test in items:
        got = _parse_one(root, p, m, is_test, max_bytes)
        blob = None if got.facts is None else pack_facts(got.facts)
        out.append(_Parsed(got.record, None, got.mtime_ns, blob))
    return out


def _unpack(item: _Parsed) -> _Parsed:
    if item.blob is None:
        return item
    return _Parsed(item.record, unpack_facts(item.blob), item.mtime_ns, item.blob)


# ------------------------------------------------------------------- lookup
class FactsLookup:
    """Module/path lookup for the resolver that records every key it is asked for, and
    hands out read-recording views of the facts (:class:`read_fingerprints.Tracked`)."""

    def __init__(self, by_path: dict[str, Any], store: Store | None,
                 module_paths: dict[str, str], collect: Collect | None = None) -> None:
        self._by_path = by_path
        self._store = store
        self._module_paths = module_paths
        self.consulted: set[str] = set()
        self._views: dict[str, read_fingerprints.Tracked | read_fingerprints.Whole] = {}
        self._collect = collect

    @property
    def collect(self) -> Collect:
        """The pytest collection rules the index is built with (test discovery reads them)."""
        if self._collect is None:
            self._collect = (stored_collect(self._store) if self._store is not None
                             else pytest_config.DEFAULT)
        return self._collect

    def module(self, name: str) -> Any:
        self.consulted.add(name)
        path = self._module_paths.get(name)
        return None if path is None else self.path(path, record=False)

    def path(self, relpath: str, record: bool = True) -> Any:
        if record:
            self.consulted.add("/" + relpath)
        view = self._views.get(relpath)
        if view is not None:
            return view
        if relpath in self._by_path:
            facts = self._by_path[relpath]
        else:
            facts = self._store.facts(relpath) if self._store is not None else None
            self._by_path[relpath] = facts
        if facts is None:
            return None
        view = self._views[relpath] = read_fingerprints.view(facts)
        return view

    def paths(self) -> list[str]:
        """Every indexed file's path, sorted: a question about every file (which classes
        implement an interface) consults ``*``, re-resolved whenever any file changes."""
        self.consulted.add(EVERY_FILE)
        return sorted(set(self._module_paths.values()))

    def named(self, kind: str, name: str) -> list[tuple[str, str]]:
        """(path, qual) of what every file's facts declare as ``kind`` ``name``
        (``index_names()`` of a language's facts: the classes that extend or implement a
        name, the package.json that declares a package name), sorted. Consults
        ``named:kind:name``: re-resolved when a file gains or loses such a row. Facts held
        here (parsed in this run, or an edit's state) stand in for what the store has."""
        self.consulted.add(f"{NAMED}{kind}:{name}")
        if self._store is None:  # every file's facts are at hand: one table for the run
            shared = self.shared()
            table = shared.get("named")
            if table is None:
                table = shared["named"] = _names_table(self._by_path.items())
            return table.get((kind, name), [])
        out = {row for row in self._store.named(kind, name) if row[0] not in self._by_path}
        rows = self.shared().setdefault("names-of", {})  # path → (facts, their rows)
        for path, facts in self._by_path.items():
            if path == _SHARED or facts is None:
                continue
            got = rows.get(path)
            if got is None or got[0] is not facts:
                got = rows[path] = (facts, facts_names(facts))
            out.update((path, q) for k, n, q in got[1] if k == kind and n == name)
        return sorted(out)

    def child(self) -> FactsLookup:
        """A lookup over the same facts that records afresh (what one cached answer read)."""
        child = FactsLookup(self._by_path, self._store, self._module_paths, self._collect)
        return child

    def replay(self, consulted: Iterable[str], reads: Iterable[tuple[str, set[str]]]
               ) -> None:
        """Record what a cached answer consulted and read as this lookup's own."""
        self.consulted.update(consulted)
        for path, keys in reads:
            view = self.path(path, record=False)
            if view is not None:
                view.reads.update(keys)

    def shared(self) -> dict[str, Any]:
        """A cache shared by every lookup over the same facts in one run (what a question
        about every file computes once)."""
        got = self._by_path.get(_SHARED)
        if got is None:
            got = self._by_path[_SHARED] = {}
        return got  # type: ignore[no-any-return]

    def reads(self) -> list[tuple[str, set[str]]]:
        """(path, read-fingerprint keys) of every file whose facts were read."""
        return [(p, v.reads) for p, v in self._views.items() if v.reads]


def _names_table(items: Iterable[tuple[str, Any]]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    table: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path, facts in sorted(items, key=lambda x: x[0]):
        if path == _SHARED or facts is None:
            continue
        for kind, name, qual in facts_names(facts):
            table.setdefault((kind, name), []).append((path, qual))
    return table


def name_keys(old: Iterable[tuple[str, str, str, str]], new: Iterable[tuple[str, str, str, str]]
              ) -> set[str]:
    """The ``named:`` dependency keys whose answer differs between two sets of (path, kind,
    name, qual) rows."""
    return {f"{NAMED}{kind}:{name}" for _p, kind, name, _q in set(old) ^ set(new)}


def stored_collect(store: Store) -> Collect:
    """The pytest collection rules the index at ``store`` was built with."""
    return Collect.from_key(store.get_meta(COLLECT_META))


# facts, module map and collection rules handed to forked resolution workers (set only
# while a pool runs)
_FORK_STATE: tuple[dict[str, Any], dict[str, str], Collect] | None = None


def _resolve_rows(path: str, facts: Any, lookup: FactsLookup) -> tuple[ResolutionRows, str]:
    """Encoded rows of one file, or empty rows and the reason resolution gave up.

    A file too deeply nested for the resolver is recorded like a parse failure, so one
    pathological file never costs the rest of the repository its index."""
    fe = frontend_for(path)
    if fe is None:
        return resolution_rows(path, (), (), (), lookup.consulted, lookup.reads()), ""
    try:
        res: FileResolution = fe.resolve(facts, lookup)
    except RecursionError:  # keep what it consulted: a later change there retries it
        rows = resolution_rows(path, (), (), (), lookup.consulted, lookup.reads())
        return rows, "too deeply nested to resolve (recursion limit)"
    return resolution_rows(path, res.nodes, res.edges, res.unresolved, lookup.consulted,
                           lookup.reads()), ""


def _resolve_chunk(paths: list[str]) -> list[tuple[str, ResolutionRows, str]]:
    assert _FORK_STATE is not None
    by_path, module_paths, collect = _FORK_STATE
    return [(p, *_resolve_rows(p, by_path[p], FactsLookup(by_path, None, module_paths, collect)))
            for p in paths]


def every_file_changed(old: Any, new: Any) -> bool:
    """Whether an edit may change an answer about every file (``EVERY_FILE``): which
    classes extend or implement which (``heritage()`` of a language's facts)."""
    h_old, h_new = getattr(old, "heritage", None), getattr(new, "heritage", None)
    if h_old is None and h_new is None:
        return False
    return h_old is None or h_new is None or h_old() != h_new()


def readers_of_change(store: Store, path: str, module: str, old: Any, new: Any) -> set[str]:
    """Files whose stored resolution may differ once ``path``'s facts go from ``old`` (what
    they were resolved against) to ``new``: those that consulted ``path`` and read a part
    of its facts that differs, and those whose resolution failed (retried on any change of
    what they consulted). Everything else would resolve the same against ``new``."""
    candidates = store.dependents_of_modules({module, "/" + path})
    if not candidates:
        return set()
    out = candidates & {f for f, _error in store.failures(())}
    changed = read_fingerprints.changed_keys(old, new)
    if changed:
        out |= {f for f, keys in store.reads_of(path).items()
                if f in candidates and not keys.isdisjoint(changed)}
    return out


def _is_test(path: str, collect: Collect) -> bool:
    fe = frontend_for(path)
    return fe is not None and fe.is_test_file(path, collect)


# ------------------------------------------------------------------ indexer
class Indexer:
    def __init__(self, root: Path, settings: Settings) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.dir = self.root / INDEX_DIRNAME
        self.note = ""  # why the last run rebuilt the index ("" = it did not)
        self._lock: Lock | None = None  # held while a run writes
        self._head: tuple[Path | None, str | None] = (None, None)  # (work tree, HEAD) indexed

    # -------------------------------------------------------------- locking
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with index_lock(self.dir / LOCK_FILENAME, self.settings.lock_timeout_s) as lock:
            self._lock = lock
            try:
                yield
            finally:
                self._lock = None

    def _lock_fds(self) -> tuple[int, ...]:
        return (self._lock.fd,) if self._lock is not None else ()

    # ------------------------------------------------------------- scanning
    def _scan(self, known: dict[str, tuple[str, int, int, str]], full: bool, paths: list[str]
              ) -> tuple[dict[str, str], list[str], list[str], list[tuple[str, int]]]:
        """(modules of current files, changed paths, deleted paths, touched (path, mtime)).

        A file whose size and mtime match the index is taken as unchanged without reading
        it (what make and git's index do): an edit that keeps both — same size, mtime
        restored or within the file system's timestamp granularity — goes unseen until
        ``--full``, which rehashes everything. A differing stat is confirmed by the hash,
        so a touched-but-identical file is not re-parsed."""
        if known.keys() == set(paths):  # module names depend only on the set of paths
            modules = {p: known[p][3] for p in paths}
        else:
            modules = discover.module_names(paths)
        changed: list[str] = []
        touched: list[tuple[str, int]] = []
        root = str(self.root)
        for p in paths:
            prev = known.get(p)
            if full or prev is None:
                changed.append(p)
                continue
            try:
                st = os.stat(os.path.join(root, p))
            except OSError:
                changed.append(p)
                continue
            if st.st_size == prev[1] and st.st_mtime_ns == prev[2]:
                continue
            data, _, mtime, err = _read(root, p, self.settings.max_file_bytes)
            if err or data is None or hashlib.sha256(data).hexdigest() != prev[0]:
                changed.append(p)
            else:
                touched.append((p, mtime))
        deleted = sorted(known.keys() - set(paths))
        return modules, changed, deleted, touched

    def is_stale(self) -> bool:
        """Whether files changed on disk since the last index."""
        path = index_path(self.root)
        if not path.exists():
            return True
        try:
            store = Store.open(path)
        except Exception:
            return True
        try:
            known = store.file_stats()
            if store.get_meta(COLLECT_META) != pytest_config.read(self.root).key():
                return True
        finally:
            store.close()
        paths = discover.list_source_files(self.root)
        modules, changed, deleted, _ = self._scan(known, False, paths)
        return bool(changed or deleted or any(known[p][3] != m for p, m in modules.items()))

    # ---------------------------------------------------------------- parse
    def _parse(self, items: list[tuple[str, str, bool]], progress: ProgressFn | None
               ) -> list[_Parsed]:
        workers = self.settings.index_workers or os.cpu_count() or 1
        total = len(items)
        if total < 64 or workers == 1:
            out = []
            for i, (p, m, is_test) in enumerate(items):
                out.append(_parse_one(str(self.root), p, m, is_test,
                                      self.settings.max_file_bytes))
                if progress:
                    progress("parse", i + 1, total)
            return out
        from impactlens.index.workers import worker_pool  # multiprocessing: loaded when used

        size = max(8, min(64, total // (workers * 8) or 1))
        chunks = [items[i : i + size] for i in range(0, total, size)]
        out = []
        with worker_pool(workers, self._lock_fds()) as pool:
            futures = [
                pool.submit(_parse_chunk, str(self.root), c, self.settings.max_file_bytes)
                for c in chunks
            ]
            for fut in futures:
                out.extend(_unpack(item) for item in fut.result())
                if progress:
                    progress("parse", len(out), total)
        return out

    # ------------------------------------------------------------------ run
    def run(self, *, full: bool = False, progress: ProgressFn | None = None,
            history_budget: int | None = None) -> IndexSummary:
        """Index the code (one transaction), then mine history (its own transactions, at
        most ``history_budget`` commits; ``None``: the whole horizon): the code index is
        committed, and answers, before history catches up."""
        t0 = time.perf_counter()
        with gc_paused(), self._locked():
            store: Store | None = None
            try:
                store = Store.open(index_path(self.root), create=True, thorough=full)
                known = store.file_stats()
                # a first index has no readers to keep serving: load it without the WAL
                with store.rollback_journal() if not known else contextlib.nullcontext():
                    summary = self._run(store, known, full, progress, t0)
                note = store.install()  # a rebuilt index takes the unusable one's place
                self.note = note or ""
                said = tuple(n for n in (note, self._lock and self._lock.note) if n)
                history, facts = self._update_history(store, *self._head, history_budget,
                                                      progress)
                summary = replace(summary, notes=(*summary.notes, *history), history=facts)
                return replace(summary, notes=(*said, *summary.notes)) if said else summary
            except (sqlite3.OperationalError, OSError) as exc:
                no_space = out_of_space(exc, index_path(self.root))
                if no_space is None:
                    raise
                raise no_space from None
            finally:
                if store is not None:
                    store.close()

    def _run(self, store: Store, known: dict[str, tuple[str, int, int, str]], full: bool,
             progress: ProgressFn | None, t0: float) -> IndexSummary:
        notes: list[str] = []
        collect = pytest_config.read(self.root)
        # which files and names are tests follows the pytest configuration: when that
        # changed, every file is taken again
        full = full or not known or store.get_meta(COLLECT_META) != collect.key()
        self._head = git.work_tree_head(self.root)
        top = self._head[0]
        paths = discover.list_source_files(self.root, top)
        if paths.skipped:
            notes.append(f"skipped {len(paths.skipped)} file(s) whose name is not valid UTF-8: "
                         + ", ".join(paths.skipped[:5]))
        linked = discover.linked_outside(self.root, top)
        if linked:
            notes.append(f"skipped {len(linked)} director{'y' if len(linked) == 1 else 'ies'} "
                         "symlinked to outside the repository (not followed): "
                         + ", ".join(linked[:5]))
        skipped = sorted([*((p, discover.LINKED_OUT) for p in linked),
                          *((p, "name is not valid UTF-8") for p in paths.skipped)])
        modules, changed, deleted, touched = self._scan(known, full, paths)
        stored = {p: k[3] for p, k in known.items()}  # path → module as indexed
        # a moved package boundary renames modules: those files must be re-extracted
        renamed = [p for p, m in modules.items() if p in stored and stored[p] != m]
        changed = sorted(set(changed) | set(renamed))
        parsed = self._parse([(p, modules[p], _is_test(p, collect)) for p in changed],
                             progress)
        # files edited in place (same module, parsed before and now): their dependents are
        # re-resolved only if they read a part of the facts that changed
        edited = {i.record.path: i.facts for i in parsed if not full and i.facts is not None
                  and i.record.path in known and i.record.path not in renamed}
        old_facts = {p: store.facts(p) for p in edited}
        edited = {p: f for p, f in edited.items() if old_facts[p] is not None}
        old_names = store.names_of([*changed, *deleted])
        new_names = {(i.record.path, *row) for i in parsed for row in facts_names(i.facts)}

        with store.transaction():
            if full:
                store.clear_all()
            for p in deleted:
                store.delete_file(p)
            for p, mtime in touched:
                store.touch_file(p, mtime)
            for item in parsed:
                store.put_file(item.record, item.facts, item.mtime_ns, item.blob)
            coarse = [p for p in changed if p not in edited]
            keys = {"/" + p for p in [*coarse, *deleted]}
            keys |= {modules[p] for p in coarse} | {stored[p] for p in deleted}
            keys |= {stored[p] for p in renamed}
            if coarse or deleted or any(every_file_changed(old_facts[p], f)
                                        for p, f in edited.items()):
                keys.add(EVERY_FILE)
            keys |= name_keys(old_names, new_names)
            to_resolve = set(changed) | store.dependents_of_modules(keys)
            for p, facts in edited.items():
                to_resolve |= readers_of_change(store, p, modules[p], old_facts[p], facts)
            to_resolve -= set(deleted)
            store.set_meta(COLLECT_META, collect.key())
            self._resolve(store, sorted(to_resolve), parsed, modules, full, progress,
                          collect=collect)
            store.set_meta("indexed_at", str(int(time.time())))
        counts = store.counts()
        failures = tuple(store.failures(changed))
        return IndexSummary(
            files=counts["files"], parsed=len(parsed), symbols=counts["symbols"],
            edges=counts["edges"], unresolved=counts["unresolved"],
            parse_failures=counts["parse_failures"], seconds=time.perf_counter() - t0,
            full=full, failures=failures, notes=tuple(notes), skipped=tuple(skipped),
        )

    def _resolve(self, store: Store, paths: list[str], parsed: list[_Parsed],
                 modules: dict[str, str], full: bool, progress: ProgressFn | None,
                 collect: Collect) -> None:
        """Re-resolve ``paths``."""
        by_path: dict[str, Any] = {i.record.path: i.facts for i in parsed}
        module_paths: dict[str, str] = {}
        for p in sorted(modules):
            module_paths.setdefault(modules[p], p)
        if full:
            # every file is resolved against the facts parsed in this run: fan out to
            # forked workers (they inherit the facts) and bulk-load into index-less tables
            store.drop_secondary_indexes()
            for path, rows, error in self._resolve_parallel(paths, by_path, module_paths,
                                                             progress, collect):
                store.put_rows(rows)
                if error:
                    store.mark_unresolvable(path, error)
            store.create_secondary_indexes()
            return
        for i, path in enumerate(paths):
            facts = by_path[path] if path in by_path else store.facts(path)
            store.clear_resolution(path)
            if facts is not None:  # a file that did not parse has nothing to resolve
                rows, error = _resolve_rows(path, facts,
                                            FactsLookup(by_path, store, module_paths, collect))
                store.put_rows(rows)
                store.mark_unresolvable(path, error) if error else store.mark_resolved(path)
            if progress and (i % 50 == 0 or i + 1 == len(paths)):
                progress("resolve", i + 1, len(paths))

    def _resolve_parallel(self, paths: list[str], by_path: dict[str, Any],
                          module_paths: dict[str, str], progress: ProgressFn | None,
                          collect: Collect) -> Iterator[tuple[str, ResolutionRows, str]]:
        global _FORK_STATE
        todo = [p for p in paths if by_path.get(p) is not None]
        workers = self.settings.index_workers or os.cpu_count() or 1
        if workers == 1 or len(todo) < 64:
            for i, path in enumerate(todo):
                yield (path, *_resolve_rows(path, by_path[path],
                                            FactsLookup(by_path, None, module_paths, collect)))
                if progress and (i % 50 == 0 or i + 1 == len(todo)):
                    progress("resolve", i + 1, len(todo))
            return
        from impactlens.index.workers import worker_pool

        _FORK_STATE = (by_path, module_paths, collect)
        try:
            size = max(8, min(64, len(todo) // (workers * 8) or 1))
            chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
            done = 0
            with worker_pool(workers, self._lock_fds()) as pool:
                results = pool.map(_resolve_chunk, chunks)  # submits every chunk now
                for result in results:
                    yield from result
                    done += len(result)
                    if progress:
                        progress("resolve", done, len(todo))
        finally:
            _FORK_STATE = None

    def _update_history(self, store: Store, top: Path | None, head: str | None,
                        budget: int | None, progress: ProgressFn | None
                        ) -> tuple[list[str], dict[str, object] | None]:
        """The history's note and what it holds (:func:`history_facts`), mined first
        unless it already describes ``head``."""
        if "cochange" not in self.settings.channels:  # nothing reads it: mined when needed
            return [], None
        try:
            from impactlens.index.history import (
                history_facts,
                history_is_current,
                history_state,
                update_history,
            )
        except ModuleNotFoundError:
            return [], None
        if top is not None and head is not None and history_is_current(
                store, self.root, top, head, self.settings):
            note = history_state(store, unchanged=True)  # HEAD has not moved: nothing mined
        else:
            note = update_history(store, self.root, self.settings, budget=budget,
                                  progress=progress).note
        return ([note] if note else []), history_facts(store)
