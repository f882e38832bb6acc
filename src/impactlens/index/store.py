"""The graph store: the only module that speaks SQL.

One SQLite file per repository (``.impactlens/index.db``, WAL mode). Writers
work inside :meth:`Store.transaction`, so an interrupted index leaves the
previous index intact and readable.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import re
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from impactlens.errors import ImpactlensError
from impactlens.index.state import state_path
from impactlens.index.store_health import problem, rebuild_path, stale_rebuilds
from impactlens.index.store_tables import HistoryTables, RecordingTables
from impactlens.model import (
    Edge,
    EdgeKind,
    FileRecord,
    Node,
    NodeKind,
    Resolution,
    UnresolvedReason,
    UnresolvedSite,
)

# v6: facts hold lambda scopes, decorated values, self-dispatch sites; v7: file_reads;
# v8: commits.parents (root commits kept out of co-change); v9: read-fingerprint keys name scopes
# (file_reads); v10: commit_files.symbols / renamed (the definitions each commit touched);
# v11: facts hold parameter attribute reads (Scope.prefs) and list-display arguments;
# v12: recorded test runs (test_runs, recorded_files, recorded_tests); v13: the lines each
# test ran per function (test_runs.lines → line_sets); v14: facts hold references by
# dotted-path string, namespace reads (vars(m)["f"]) and operator getters; v15: names a
# file's facts declare for questions about every file (facts_names); v16: facts hold
# literal slice keys, constant and dict-display keys, ``d.get(k, default)``'s default,
# defaults of parameters, ``for k, v in d.items()`` targets and strong updates; external
# sites name builtin callees; v17: a call site's read of its callee's parameters is the
# callee's P: key (read_fingerprints.py), and facts are stored compressed (pack_facts);
# v18: commits.unread (what a partial clone, or one missing objects, could not give)
SCHEMA_VERSION = 18
INDEX_DIRNAME = ".impactlens"
INDEX_FILENAME = "index.db"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, language TEXT NOT NULL,
    module TEXT NOT NULL, size INTEGER NOT NULL, status TEXT NOT NULL,
    error TEXT NOT NULL DEFAULT '', is_test INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0, facts BLOB
);
CREATE INDEX files_module ON files(module);
CREATE TABLE nodes (
    id TEXT NOT NULL, kind TEXT NOT NULL, qualname TEXT NOT NULL, name TEXT NOT NULL,
    file TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    signature TEXT NOT NULL, decorators TEXT NOT NULL, parent TEXT,
    ids TEXT NOT NULL, strs TEXT NOT NULL, imports TEXT NOT NULL, params TEXT NOT NULL
);
CREATE INDEX nodes_id ON nodes(id);
CREATE INDEX nodes_file ON nodes(file, start_line);
CREATE INDEX nodes_name ON nodes(name);
CREATE TABLE edges (
    src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
    file TEXT NOT NULL, line INTEGER NOT NULL, resolution TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX edges_src ON edges(src, kind);
CREATE INDEX edges_dst ON edges(dst, kind);
CREATE INDEX edges_file ON edges(file);
CREATE TABLE unresolved (
    file TEXT NOT NULL, line INTEGER NOT NULL, scope TEXT NOT NULL,
    reason TEXT NOT NULL, text TEXT NOT NULL, names TEXT NOT NULL
);
CREATE INDEX unresolved_file ON unresolved(file);
CREATE INDEX unresolved_reason ON unresolved(reason);
CREATE TABLE file_deps (file TEXT NOT NULL, module TEXT NOT NULL);
CREATE INDEX file_deps_module ON file_deps(module);
CREATE INDEX file_deps_file ON file_deps(file);
CREATE TABLE file_reads (file TEXT NOT NULL, path TEXT NOT NULL, reads TEXT NOT NULL);
CREATE TABLE facts_names (file TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    qual TEXT NOT NULL);
CREATE INDEX facts_names_key ON facts_names(kind, name);
CREATE INDEX facts_names_file ON facts_names(file);
CREATE INDEX file_reads_path ON file_reads(path);
CREATE INDEX file_reads_file ON file_reads(file);
CREATE TABLE commits (
    sha TEXT PRIMARY KEY, author_time INTEGER NOT NULL, message TEXT NOT NULL,
    n_files INTEGER NOT NULL, parents INTEGER NOT NULL DEFAULT 1,
    unread TEXT NOT NULL DEFAULT ''
);
CREATE INDEX commits_time ON commits(author_time);
CREATE TABLE commit_files (
    sha TEXT NOT NULL, path TEXT NOT NULL, old_path TEXT,
    added INTEGER NOT NULL, deleted INTEGER NOT NULL,
    symbols TEXT NOT NULL DEFAULT '', renamed TEXT NOT NULL DEFAULT ''
);
CREATE INDEX commit_files_path ON commit_files(path);
CREATE INDEX commit_files_sha ON commit_files(sha);
CREATE TABLE recorded_tests (
    id INTEGER PRIMARY KEY, test TEXT NOT NULL UNIQUE, outcome TEXT NOT NULL
);
CREATE TABLE recorded_nodes (id INTEGER PRIMARY KEY, node TEXT NOT NULL, file TEXT NOT NULL);
CREATE INDEX recorded_nodes_node ON recorded_nodes(node);
CREATE INDEX recorded_nodes_file ON recorded_nodes(file);
CREATE TABLE test_runs (
    node INTEGER NOT NULL, test INTEGER NOT NULL, lines INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (node, test)
) WITHOUT ROWID;
CREATE TABLE line_sets (id INTEGER PRIMARY KEY, lines TEXT NOT NULL UNIQUE);
CREATE TABLE recorded_files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
"""


_BUSY_TIMEOUT_MS = 30_000  # how long a connection waits for another's write lock

# resolution tables whose row counts are tallied in meta (see Store._save_row_counts)
_COUNTED = ("nodes", "edges", "unresolved")
# a file that did not parse whole but kept facts (what its parser recovered) is partial
_FILE_COLS = ("path, sha256, language, module, size, status, error, is_test, "
              "(facts IS NOT NULL AND status = 'syntax-error') AS partial")


def _json_ids(ids: Iterable[str]) -> str:
    return json.dumps(sorted(set(ids)))


_WORD = re.compile(r"[A-Za-z0-9_]+")


class _SiteMemo:
    """The non-external unresolved sites with look-ups by reason, file and word token
    (what :meth:`Store.unresolved_sites_where` asks), valid for one ``data_version``."""

    def __init__(self, version: int, sites: list[UnresolvedSite]) -> None:
        self.version = version
        self.sites = sites
        self.by_reason: dict[str, list[int]] = {}
        self.by_file: dict[str, list[int]] = {}
        self.by_token: dict[str, list[int]] = {}
        for i, u in enumerate(sites):
            self.by_reason.setdefault(u.reason.value, []).append(i)
            self.by_file.setdefault(u.file, []).append(i)
            for tok in {*_WORD.findall(u.text), *(t for n in u.names for t in _WORD.findall(n))}:
                self.by_token.setdefault(tok, []).append(i)

    def where(self, reasons: set[str], files: set[str], words: list[str]
              ) -> list[UnresolvedSite]:
        hit: set[int] = set()
        for r in reasons:
            hit.update(self.by_reason.get(r, ()))
        for f in files:
            hit.update(self.by_file.get(f, ()))
        for w in words:
            toks = _WORD.findall(w)
            if not toks:
                continue
            cands = min((self.by_token.get(t, []) for t in toks), key=len)
            pat = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_])")
            dot_w, w_dot = "." + w, w + "."
            for i in cands:
                if i in hit:
                    continue
                u = self.sites[i]
                if pat.search(u.text) or any(n == w or n.endswith(dot_w) or n.startswith(w_dot)
                                             for n in u.names):
                    hit.add(i)
        found = {(u.file, u.line, u.scope, u.text, u.reason.value): u
                 for u in (self.sites[i] for i in sorted(hit))}
        return [found[k] for k in sorted(found)]


class StoreError(ImpactlensError):
    """A problem with the index file itself (missing, stale schema, corrupt)."""


class _Locked(StoreError):
    """Another connection holds the index's write lock."""


def facts_names(facts: object | None) -> tuple[tuple[str, str, str], ...]:
    """(kind, name, qual) a language's facts declare for a question about every file (which
    classes extend a name, which package.json declares a package name), or none."""
    names = getattr(facts, "index_names", None)
    return names() if names is not None else ()  # type: ignore[no-any-return]


def _ignore_in_git(directory: Path) -> None:
    """An index directory ignores itself (as ``.pytest_cache`` does): a ``git add -A`` in
    the repository must not commit a database."""
    ignore = directory / ".gitignore"
    if directory.name == INDEX_DIRNAME and not ignore.exists() and not ignore.is_symlink():
        with contextlib.suppress(OSError):  # a read-only checkout keeps working
            ignore.write_text("# created by impactlens: the index is local, never committed\n*\n")


def writable(path: Path) -> bool:
    """Whether the index ``path`` (and its directory, for the journal) can be written."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def index_path(root: Path) -> Path:
    return root / INDEX_DIRNAME / INDEX_FILENAME


def _json_list(items: Any) -> str:
    # most nodes have no decorators, imports or params: skip json's per-call set-up for them
    return json.dumps(items) if items else "[]"


def _node_row(n: Node) -> tuple[Any, ...]:
    name = n.qualname.rsplit(".", 1)[-1]
    return (
        n.id, n.kind.value, n.qualname, name, n.file, n.start_line, n.end_line, n.signature,
        _json_list(n.decorators), n.parent, _json_list(n.ids), _json_list(n.strs),
        _json_list(n.imports), _json_list(n.params),
    )


# enum members by value: a dict look-up is ~10x cheaper than calling the enum per row
_NODE_KIND = {k.value: k for k in NodeKind}
_EDGE_KIND = {k.value: k for k in EdgeKind}
_RESOLUTION = {k.value: k for k in Resolution}


def _tup(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def pack_facts(facts: object) -> bytes:
    """A file's facts as the store keeps them: pickled, then zlib-compressed at the fastest
    level (Django's 40 MB of pickles take 13 MB; compressing costs 0.5 s of CPU spread over
    the parse workers, decompressing all of it 0.2 s)."""
    return zlib.compress(pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpack_facts(blob: bytes) -> Any:
    return pickle.loads(zlib.decompress(blob))


def _row_node(r: sqlite3.Row) -> Node:
    # positional access (the `nodes` column order) is cheaper than by name on big reads
    return Node(
        id=r[0], kind=_NODE_KIND[r[1]], qualname=r[2], file=r[4], start_line=r[5],
        end_line=r[6], signature=r[7], decorators=_tup(r[8]), parent=r[9], ids=_tup(r[10]),
        strs=_tup(r[11]), imports=_tup(r[12]), params=_tup(r[13]),
    )


def _row_edge(r: sqlite3.Row) -> Edge:
    return Edge(
        src=r["src"], dst=r["dst"], kind=_EDGE_KIND[r["kind"]], file=r["file"], line=r["line"],
        resolution=_RESOLUTION[r["resolution"]], detail=r["detail"],
    )


def _row_unresolved(r: sqlite3.Row) -> UnresolvedSite:
    return UnresolvedSite(
        file=r["file"], line=r["line"], scope=r["scope"], reason=UnresolvedReason(r["reason"]),
        text=r["text"], names=tuple(json.loads(r["names"])),
    )


def _kinds_clause(kinds: frozenset[EdgeKind] | None) -> tuple[str, list[str]]:
    if not kinds:
        return "", []
    marks = ",".join("?" * len(kinds))
    return f" AND kind IN ({marks})", sorted(k.value for k in kinds)


ResolutionRows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]],
                       list[tuple[Any, ...]], list[tuple[Any, ...]]]


def resolution_rows(
    path: str,
    nodes: Iterable[Node],
    edges: Iterable[Edge],
    unresolved: Iterable[UnresolvedSite],
    deps: Iterable[str],
    reads: Iterable[tuple[str, Iterable[str]]] = (),
) -> ResolutionRows:
    """Encode one file's resolution as SQL rows (picklable; built in worker processes).
    ``reads``: (path, read-fingerprint keys) of the other files' facts it read (see
    :mod:`impactlens.index.read_fingerprints`)."""
    return (
        [_node_row(n) for n in nodes],
        [(e.src, e.dst, e.kind.value, e.file, e.line, e.resolution.value, e.detail)
         for e in edges],
        [(u.file, u.line, u.scope, u.reason.value, u.text, _json_list(u.names))
         for u in unresolved],
        [(path, m) for m in sorted(set(deps))],
        [(path, other, json.dumps(sorted(keys))) for other, keys in sorted(reads)],
    )


class Store(HistoryTables, RecordingTables):
    """SQLite-backed graph store. Implements :class:`impactlens.model.GraphView`."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._sites: _SiteMemo | None = None  # non-external unresolved sites, in memory
        # rows added (+) / deleted (-) per resolution table in the open transaction; folded
        # into the `row_counts` meta entry at COMMIT, so counts() needs no COUNT(*) scans
        self._delta: dict[str, int] | None = None
        self.read_only = False  # opened read-only: it cannot be refreshed
        self.replaces: Path | None = None  # the unusable index this new file replaces
        self.replace_note = ""

    # ----------------------------------------------------------------- open
    @classmethod
    def open(cls, path: Path, *, create: bool = False, thorough: bool = False) -> Store:
        """Open an index. Without ``create`` (a query) as it is — read-only when it cannot
        be written — refusing one this version cannot use. With ``create`` (an index run)
        make one, and when the one there is unusable (another program's file, corrupt, a
        foreign or damaged schema) open a new file instead, which :meth:`install` puts in
        its place once the run is complete. ``thorough``: check every page (``--full``)."""
        exists = path.exists()
        if not exists and not create:
            raise StoreError(f"{path}: no index here; run `impactlens index` first")
        if not create:
            store = cls._connect(path, read_only=not writable(path))
            why = store._problem(quick_check=False)
            if why is None and store._schema_version() is None:
                why = "an empty index"
            if why is not None:
                store.close()
                raise StoreError(f"{path}: {why}; run `impactlens index` to rebuild it")
            return store
        state_path(path)
        _ignore_in_git(path.parent)
        for old in stale_rebuilds(path):  # left by a run that was killed or ran out of space
            old.unlink(missing_ok=True)
        try:
            store = cls._connect(path)
        except _Locked:
            raise
        except StoreError as exc:
            why = str(exc.__cause__ or exc)
        else:
            why = store._problem(quick_check=True, thorough=thorough) if exists else None
            if why is None:
                if store._schema_version() is None:
                    store._create_schema()
                return store
            store.close()
        fresh = cls._connect(rebuild_path(path, os.getpid()))
        fresh.replaces, fresh.replace_note = path, f"{path}: {why}; rebuilt it"
        try:
            fresh._create_schema()
        except BaseException:
            fresh.close()  # discards the new file
            raise
        return fresh

    @classmethod
    def _connect(cls, path: Path, *, read_only: bool = False) -> Store:
        try:
            if read_only:  # nothing can change it while we read: no locks, no journal
                conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1",
                                       uri=True, isolation_level=None)
            else:
                conn = sqlite3.connect(str(path), timeout=_BUSY_TIMEOUT_MS / 1000,
                                       isolation_level=None)
            conn.row_factory = sqlite3.Row
            if not read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA temp_store=MEMORY")
            conn.execute("PRAGMA cache_size=-65536")
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise StoreError(f"{path}: not a readable impactlens index ({exc})") from exc
            raise _Locked(f"{path}: the index is locked by an `impactlens index` building "
                          "it; try again when it finishes") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a readable impactlens index ({exc})") from exc
        store = cls(path, conn)
        store.read_only = read_only
        return store

    def _problem(self, *, quick_check: bool, thorough: bool = False) -> str | None:
        size = self.path.stat().st_size if quick_check else 1 << 62
        return problem(self._conn, _SCHEMA, SCHEMA_VERSION, size=size, thorough=thorough)

    def install(self) -> str | None:
        """Put a replacement built by :meth:`open` in place of the unusable index, all at
        once (a reader sees the old file or the new one, never a mix); the note to show.
        ``None`` when this store is the index itself."""
        if self.replaces is None:
            return None
        self._conn.execute("PRAGMA journal_mode=DELETE")  # the file holds everything now
        self._conn.close()
        for suffix in ("-wal", "-shm"):  # the old file's: they must not meet the new one
            Path(f"{self.replaces}{suffix}").unlink(missing_ok=True)
        os.replace(self.path, self.replaces)
        self.path, self.replaces = self.replaces, None
        self._conn = self._connect(self.path)._conn
        return self.replace_note

    def close(self) -> None:
        self._conn.close()
        if self.replaces is not None:  # a replacement never completed: the old file stays
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self.replaces = None

    def _schema_version(self) -> int | None:
        row = self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='meta'"
        ).fetchone()
        if row is None:
            return None
        got = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(got[0]) if got else 0

    def _create_schema(self) -> None:
        with self.transaction():
            for stmt in _SCHEMA.strip().split(";"):
                if stmt.strip():
                    self._conn.execute(stmt)
            self._conn.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing write scope (BEGIN IMMEDIATE … COMMIT / ROLLBACK)."""
        self._conn.execute("BEGIN IMMEDIATE")
        self._delta = dict.fromkeys(_COUNTED, 0)
        try:
            yield
            self._save_row_counts()
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        finally:
            self._delta = None
        self._conn.execute("COMMIT")

    @contextmanager
    def rollback_journal(self) -> Iterator[None]:
        """Write through a rollback journal instead of the WAL for the span.

        Loading a whole index in one transaction costs seconds more in WAL mode (on Django
        ~2 s at COMMIT alone: every spilled page is looked up in the WAL index, and all of it
        is copied again at checkpoint). It is only safe to leave WAL when no one else has the
        database open — the first index of a repository — so the switch is tried without
        waiting and the span simply stays in WAL if another connection holds the file."""
        self._conn.execute("PRAGMA busy_timeout=0")
        try:
            mode = str(self._conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0])
        except sqlite3.OperationalError:
            mode = "wal"
        finally:
            self._conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
        try:
            yield
        finally:
            if mode != "wal":  # a reader that opened meanwhile may have switched it already
                with suppress(sqlite3.OperationalError):
                    self._conn.execute("PRAGMA journal_mode=WAL")

    # ---------------------------------------------------------------- files
    def file_stats(self) -> dict[str, tuple[str, int, int, str]]:
        """path → (sha256, size, mtime_ns, module) for every indexed file."""
        return {
            r[0]: (r[1], r[2], r[3], r[4])
            for r in self._conn.execute("SELECT path, sha256, size, mtime_ns, module FROM files")
        }

    def failures(self, changed: Iterable[str]) -> list[tuple[str, str]]:
        """(path, error) of every file resolution gave up on, and of the files among
        ``changed`` that could not be parsed, by path."""
        return [(r[0], r[1]) for r in self._conn.execute(
            "SELECT path, error FROM files WHERE status = 'resolve-error' OR (status != 'ok' "
            "AND path IN (SELECT value FROM json_each(?))) ORDER BY path",
            (_json_ids(changed),))]

    def file_record(self, path: str) -> FileRecord | None:
        r = self._conn.execute(f"SELECT {_FILE_COLS} FROM files WHERE path=?", (path,)).fetchone()
        return None if r is None else self._row_file(r)

    def files(self) -> list[FileRecord]:
        # explicit columns: `SELECT *` would also read every file's pickled facts blob
        return [self._row_file(r)
                for r in self._conn.execute(f"SELECT {_FILE_COLS} FROM files ORDER BY path")]

    @staticmethod
    def _row_file(r: sqlite3.Row) -> FileRecord:
        return FileRecord(
            path=r["path"], sha256=r["sha256"], language=r["language"], module=r["module"],
            size=r["size"], status=r["status"], error=r["error"], is_test=bool(r["is_test"]),
            partial=bool(r["partial"]),
        )

    def put_file(self, rec: FileRecord, facts: object | None, mtime_ns: int = 0,
                 blob: bytes | None = None) -> None:
        """Insert or replace one file; ``blob``: ``facts`` already packed
        (:func:`pack_facts`), if at hand."""
        if blob is None and facts is not None:
            blob = pack_facts(facts)
        self._conn.execute(
            "INSERT OR REPLACE INTO files(path, sha256, language, module, size, status, error, "
            "is_test, mtime_ns, facts) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (rec.path, rec.sha256, rec.language, rec.module, rec.size, rec.status, rec.error,
             int(rec.is_test), mtime_ns, blob),
        )
        self._conn.execute("DELETE FROM facts_names WHERE file=?", (rec.path,))
        self._conn.executemany(
            "INSERT INTO facts_names(file, kind, name, qual) VALUES (?,?,?,?)",
            [(rec.path, *row) for row in facts_names(facts)])

    def named(self, kind: str, name: str) -> list[tuple[str, str]]:
        """(file, qual) of what the files' facts declare under ``name`` (``facts_names``)."""
        return [(r[0], r[1]) for r in self._conn.execute(
            "SELECT file, qual FROM facts_names WHERE kind=? AND name=? ORDER BY file, qual",
            (kind, name))]

    def names_of(self, paths: Iterable[str]) -> set[tuple[str, str, str, str]]:
        """(file, kind, name, qual) rows of ``paths`` as stored."""
        out: set[tuple[str, str, str, str]] = set()
        for p in paths:
            out.update((p, r[0], r[1], r[2]) for r in self._conn.execute(
                "SELECT kind, name, qual FROM facts_names WHERE file=?", (p,)))
        return out

    def touch_file(self, path: str, mtime_ns: int) -> None:
        """Record a new mtime for a file whose content hash did not change."""
        self._conn.execute("UPDATE files SET mtime_ns=? WHERE path=?", (mtime_ns, path))

    def mark_unresolvable(self, path: str, error: str) -> None:
        """Record that a parsed file could not be resolved (counted as a failure)."""
        self._conn.execute(
            "UPDATE files SET status='resolve-error', error=? WHERE path=?", (error, path)
        )

    def mark_resolved(self, path: str) -> None:
        self._conn.execute(
            "UPDATE files SET status='ok', error='' WHERE path=? AND status='resolve-error'",
            (path,),
        )

    def clear_all(self) -> None:
        self._sites = None
        for table in ("files", "nodes", "edges", "unresolved", "file_deps", "file_reads"):
            self._count(table, -self._conn.execute(f"DELETE FROM {table}").rowcount)
        self._conn.execute("DELETE FROM facts_names")

    def delete_file(self, path: str) -> None:
        self._conn.execute("DELETE FROM files WHERE path=?", (path,))
        self._conn.execute("DELETE FROM facts_names WHERE file=?", (path,))
        self.clear_resolution(path)

    def facts(self, path: str) -> object | None:
        row = self._conn.execute("SELECT facts FROM files WHERE path=?", (path,)).fetchone()
        if row is None or row[0] is None:
            return None
        return unpack_facts(row[0])

    def facts_by_module(self, module: str) -> list[tuple[str, object]]:
        """Facts of every parsed file that defines ``module`` (usually one)."""
        rows = self._conn.execute(
            "SELECT path, facts FROM files WHERE module=? AND facts IS NOT NULL ORDER BY path",
            (module,),
        ).fetchall()
        return [(r[0], unpack_facts(r[1])) for r in rows]

    def all_facts(self) -> Iterator[tuple[str, object]]:
        for r in self._conn.execute(
            "SELECT path, facts FROM files WHERE facts IS NOT NULL ORDER BY path"
        ):
            yield r[0], unpack_facts(r[1])

    def module_paths(self) -> dict[str, str]:
        """module name → path for every indexed file (first path wins)."""
        out: dict[str, str] = {}
        for r in self._conn.execute("SELECT module, path FROM files ORDER BY path"):
            out.setdefault(r[0], r[1])
        return out

    # ------------------------------------------------------- resolution rows
    def clear_resolution(self, path: str) -> None:
        self._sites = None
        for table, col in (("nodes", "file"), ("edges", "file"), ("unresolved", "file"),
                           ("file_deps", "file"), ("file_reads", "file")):
            self._count(table, -self._conn.execute(f"DELETE FROM {table} WHERE {col}=?",
                                                   (path,)).rowcount)

    def put_resolution(
        self,
        path: str,
        nodes: Iterable[Node],
        edges: Iterable[Edge],
        unresolved: Iterable[UnresolvedSite],
        deps: Iterable[str],
        *,
        replace: bool = True,
    ) -> None:
        """Write one file's resolution; ``replace=False`` skips deleting old rows (bulk loads
        into emptied tables, where a per-file DELETE would scan index-less tables)."""
        if replace:
            self.clear_resolution(path)
        self.put_rows(resolution_rows(path, nodes, edges, unresolved, deps))

    def put_rows(self, rows: ResolutionRows) -> None:
        """Insert pre-encoded rows (see :func:`resolution_rows`)."""
        node_rows, edge_rows, unresolved_rows, dep_rows, read_rows = rows
        self._conn.executemany("INSERT INTO nodes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", node_rows)
        self._conn.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?)", edge_rows)
        self._conn.executemany("INSERT INTO unresolved VALUES (?,?,?,?,?,?)", unresolved_rows)
        self._conn.executemany("INSERT INTO file_deps VALUES (?,?)", dep_rows)
        self._conn.executemany("INSERT INTO file_reads VALUES (?,?,?)", read_rows)
        self._count("nodes", len(node_rows))
        self._count("edges", len(edge_rows))
        self._count("unresolved", len(unresolved_rows))

    def _count(self, table: str, n: int) -> None:
        if table not in _COUNTED or not n:
            return
        if self._delta is None:  # a write outside transaction(): the tally is void
            self._conn.execute("DELETE FROM meta WHERE key='row_counts'")
        else:
            self._delta[table] += n

    def _save_row_counts(self) -> None:
        """Fold this transaction's row deltas into the stored tally (before COMMIT)."""
        assert self._delta is not None
        if not any(self._delta.values()):
            return
        got = self.get_meta("row_counts")  # as of BEGIN: only this method writes it
        if got is None:  # no tally yet: count once (this includes the transaction's rows)
            counts = {t: int(self._conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                      for t in _COUNTED}
        else:
            old = json.loads(got)
            counts = {t: int(old[t]) + self._delta[t] for t in _COUNTED}
        self.set_meta("row_counts", json.dumps(counts, sort_keys=True))

    def dependents_of_modules(self, modules: Iterable[str]) -> set[str]:
        """Files whose resolution consulted any of ``modules``."""
        mods = sorted(set(modules))
        out: set[str] = set()
        for i in range(0, len(mods), 500):
            chunk = mods[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out.update(
                r[0] for r in self._conn.execute(
                    f"SELECT DISTINCT file FROM file_deps WHERE module IN ({marks})", chunk
                )
            )
        return out

    def reads_of(self, path: str) -> dict[str, set[str]]:
        """file → the read-fingerprint keys of ``path``'s facts its resolution read."""
        return {r[0]: set(json.loads(r[1])) for r in self._conn.execute(
            "SELECT file, reads FROM file_reads WHERE path=?", (path,))}

    def drop_secondary_indexes(self) -> None:
        """Bulk loads are faster without indexes; :meth:`create_secondary_indexes` restores."""
        for stmt in _SCHEMA.split(";"):
            words = stmt.split()
            if words[:2] == ["CREATE", "INDEX"]:
                self._conn.execute(f"DROP INDEX IF EXISTS {words[2]}")

    def create_secondary_indexes(self) -> None:
        for stmt in _SCHEMA.strip().split(";"):
            s = stmt.strip()
            if s.startswith("CREATE INDEX"):
                self._conn.execute(s.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))

    # ------------------------------------------------------------ GraphView
    def node(self, node_id: str) -> Node | None:
        r = self._conn.execute(
            "SELECT * FROM nodes WHERE id=? ORDER BY file, start_line LIMIT 1", (node_id,)
        ).fetchone()
        return None if r is None else _row_node(r)

    def nodes_in_file(self, path: str) -> list[Node]:
        return [
            _row_node(r)
            for r in self._conn.execute(
                "SELECT * FROM nodes WHERE file=? ORDER BY start_line, id", (path,)
            )
        ]

    def nodes_named(self, name: str) -> list[Node]:
        return [
            _row_node(r)
            for r in self._conn.execute("SELECT * FROM nodes WHERE name=? ORDER BY id", (name,))
        ]

    def nodes_with_id_suffix(self, suffix: str, limit: int = 50) -> list[Node]:
        rows = self._conn.execute(
            "SELECT * FROM nodes WHERE id=? OR id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
            (suffix, "%." + suffix.replace("%", "\\%").replace("_", "\\_"), limit),
        )
        return [_row_node(r) for r in rows]

    def nodes_name_containing(self, part: str, limit: int = 50) -> list[Node]:
        """Nodes whose name contains ``part`` (any case): the name equal to it first, then
        the names starting with it, then the rest; by id within each."""
        esc = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._conn.execute(
            "SELECT * FROM nodes WHERE name LIKE ? ESCAPE '\\' ORDER BY"
            " CASE WHEN name=? THEN 0 WHEN name LIKE ? ESCAPE '\\' THEN 1 ELSE 2 END, id"
            " LIMIT ?",
            ("%" + esc + "%", part, esc + "%", limit),
        )
        return [_row_node(r) for r in rows]

    def all_nodes(self, kinds: Iterable[NodeKind] | None = None) -> list[Node]:
        if kinds is None:
            rows = self._conn.execute("SELECT * FROM nodes ORDER BY id")
        else:
            ks = sorted(k.value for k in kinds)
            marks = ",".join("?" * len(ks))
            rows = self._conn.execute(
                f"SELECT * FROM nodes WHERE kind IN ({marks}) ORDER BY id", ks
            )
        return [_row_node(r) for r in rows]

    def all_node_ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT DISTINCT id FROM nodes ORDER BY id")]

    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        clause, args = _kinds_clause(kinds)
        rows = self._conn.execute(
            f"SELECT * FROM edges WHERE dst=?{clause} ORDER BY src, kind, file, line",
            [node_id, *args],
        )
        return [_row_edge(r) for r in rows]

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        clause, args = _kinds_clause(kinds)
        rows = self._conn.execute(
            f"SELECT * FROM edges WHERE src=?{clause} ORDER BY dst, kind, file, line",
            [node_id, *args],
        )
        return [_row_edge(r) for r in rows]

    # Batch reads: the id set travels as one JSON parameter (``json_each``), so one query
    # serves any number of ids and SQLite still probes its indexes per id.
    def nodes(self, ids: Iterable[str]) -> dict[str, Node]:
        """The node of each known id among ``ids`` (as :meth:`node` picks it: the first by
        file and start line)."""
        out: dict[str, Node] = {}
        rows = self._conn.execute(
            "SELECT * FROM nodes WHERE id IN (SELECT value FROM json_each(?)) "
            "ORDER BY id, file, start_line", (_json_ids(ids),),
        )
        for r in rows:
            if r["id"] not in out:
                out[r["id"]] = _row_node(r)
        return out

    def in_edges_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                      ) -> dict[str, list[Edge]]:
        """:meth:`in_edges` of every id in ``ids`` (ids without edges are absent)."""
        return self._edges_many("dst", "src", ids, kinds)

    def out_edges_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                       ) -> dict[str, list[Edge]]:
        """:meth:`out_edges` of every id in ``ids`` (ids without edges are absent)."""
        return self._edges_many("src", "dst", ids, kinds)

    def out_neighbours_many(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                            ) -> dict[str, set[str]]:
        """The ``dst`` of every out-edge of each id (no edge records: cheap on big sets)."""
        clause, kargs = _kinds_clause(kinds)
        out: dict[str, set[str]] = {}
        for src, dst in self._conn.execute(
            f"SELECT DISTINCT src, dst FROM edges WHERE src IN (SELECT value FROM json_each(?))"
            f"{clause}", [_json_ids(ids), *kargs],
        ):
            out.setdefault(src, set()).add(dst)
        return out

    def edges_among(self, ids: Iterable[str], kinds: frozenset[EdgeKind] | None = None
                    ) -> set[tuple[str, str]]:
        """``(src, dst)`` of the edges with both ends in ``ids`` (self-loops excluded)."""
        clause, kargs = _kinds_clause(kinds)
        js = _json_ids(ids)
        return {(a, b) for a, b in self._conn.execute(
            "SELECT DISTINCT src, dst FROM edges WHERE src IN (SELECT value FROM json_each(?)) "
            f"AND dst IN (SELECT value FROM json_each(?)){clause}", [js, js, *kargs],
        ) if a != b}

    def _edges_many(self, key: str, other: str, ids: Iterable[str],
                    kinds: frozenset[EdgeKind] | None) -> dict[str, list[Edge]]:
        clause, kargs = _kinds_clause(kinds)
        out: dict[str, list[Edge]] = {}
        for r in self._conn.execute(
            f"SELECT * FROM edges WHERE {key} IN (SELECT value FROM json_each(?)){clause} "
            f"ORDER BY {key}, {other}, kind, file, line", [_json_ids(ids), *kargs],
        ):
            out.setdefault(r[key], []).append(_row_edge(r))
        return out

    def all_edges(self, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        clause, args = _kinds_clause(kinds)
        rows = self._conn.execute(
            f"SELECT * FROM edges WHERE 1=1{clause} ORDER BY src, dst, kind, file, line", args
        )
        return [_row_edge(r) for r in rows]

    def edge_ends(self, kinds: frozenset[EdgeKind]) -> list[tuple[str, str, EdgeKind]]:
        """(src, dst, kind) of every edge of ``kinds``: the light view whole-graph passes
        need (building an :class:`Edge` per row costs more than the query)."""
        clause, args = _kinds_clause(kinds)
        rows = self._conn.execute(
            f"SELECT DISTINCT src, dst, kind FROM edges WHERE 1=1{clause} ORDER BY src, dst, kind",
            args)
        return [(r[0], r[1], EdgeKind(r[2])) for r in rows]

    def node_places(self, kinds: Iterable[NodeKind]) -> list[tuple[str, str | None, str]]:
        """(id, parent, file) of every node of ``kinds``, by id."""
        ks = sorted(k.value for k in kinds)
        rows = self._conn.execute(
            f"SELECT id, parent, file FROM nodes WHERE kind IN ({','.join('?' * len(ks))}) "
            "ORDER BY id", ks)
        return [(r[0], r[1], r[2]) for r in rows]

    def unresolved_sites(self) -> list[UnresolvedSite]:
        rows = self._conn.execute("SELECT * FROM unresolved ORDER BY file, line, scope, text")
        return [_row_unresolved(r) for r in rows]

    def unresolved_sites_where(
        self, *, reasons: Iterable[str] = (), words: Iterable[str] = (),
        files: Iterable[str] = (), external: bool = True,
    ) -> list[UnresolvedSite]:
        """Sites with one of ``reasons``, or in one of ``files``, or mentioning one of
        ``words`` (identifiers or dotted names): as a whole word in the site's text, or as
        a name, a dotted-name suffix (``.word``) or a dotted-name prefix (``word.``) in its
        names. A cheap superset query for change-impact matching.

        With ``external=False`` sites that resolve outside the repository are left out
        and the answer comes from an in-memory table of the other sites (loaded on first
        use, reloaded when the index changes): milliseconds instead of a table scan."""
        ws = sorted({w for w in words if w and not any(c in w for c in "*?[]")})
        if not external:
            return self._site_memo().where(set(reasons), set(files), ws)
        clauses: list[str] = []
        args: list[str] = []
        rs, fs = sorted(set(reasons)), sorted(set(files))
        if rs:
            clauses.append(f"reason IN ({','.join('?' * len(rs))})")
            args += rs
        if fs:
            clauses.append(f"file IN ({','.join('?' * len(fs))})")
            args += fs
        b = "[^A-Za-z0-9_]"
        for w in ws:
            clauses.append(
                "(instr(text, ?) > 0 AND (text = ? OR text GLOB ? OR text GLOB ? OR text GLOB ?))"
                " OR instr(names, ?) > 0 OR instr(names, ?) > 0 OR instr(names, ?) > 0"
            )
            args += [w, w, f"{w}{b}*", f"*{b}{w}", f"*{b}{w}{b}*",
                     json.dumps(w), "." + json.dumps(w)[1:], json.dumps(w)[:-1] + "."]
        if not clauses:
            return []
        found: dict[tuple[str, int, str, str, str], UnresolvedSite] = {}
        pos = 0
        for i in range(0, len(clauses), 100):  # stay under SQLite's expression limits
            chunk = clauses[i : i + 100]
            k = sum(c.count("?") for c in chunk)
            for r in self._conn.execute(
                f"SELECT * FROM unresolved WHERE {' OR '.join(chunk)}", args[pos : pos + k]
            ):
                u = _row_unresolved(r)
                found[(u.file, u.line, u.scope, u.text, u.reason.value)] = u
            pos += k
        return [found[k] for k in sorted(found)]

    def _site_memo(self) -> _SiteMemo:
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        memo = self._sites
        if memo is None or memo.version != version:
            rows = self._conn.execute(
                "SELECT * FROM unresolved WHERE reason != ? ORDER BY rowid",
                (UnresolvedReason.EXTERNAL.value,),
            )
            memo = self._sites = _SiteMemo(version, [_row_unresolved(r) for r in rows])
        return memo

    def unresolved_in_file(self, path: str) -> list[UnresolvedSite]:
        rows = self._conn.execute(
            "SELECT * FROM unresolved WHERE file=? ORDER BY line, scope, text", (path,)
        )
        return [_row_unresolved(r) for r in rows]

    def counts(self) -> dict[str, int]:
        files, failures = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(status != 'ok'), 0) FROM files").fetchone()
        got = self.get_meta("row_counts")
        rows = (json.loads(got) if got is not None else
                {t: int(self._conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                 for t in _COUNTED})
        return {"files": int(files), "symbols": int(rows["nodes"]), "edges": int(rows["edges"]),
                "unresolved": int(rows["unresolved"]), "parse_failures": int(failures)}
