"""Whether an index file is one this version of impactlens can use.

An ``index.db`` may be another program's SQLite file, a truncated or corrupted copy, an
index from a newer (or garbage) schema, or one with a table, a column or its stored
counters damaged. :func:`problem` says which, in a few words, from a schema check (the
tables and columns against the ones this version creates) and SQLite's
``PRAGMA quick_check`` where that is cheap; the store then builds a replacement in a new
file and puts it in place only once it is complete.
"""

from __future__ import annotations

import errno
import functools
import json
import sqlite3
from pathlib import Path

from impactlens.errors import ImpactlensError

__all__ = ["QUICK_CHECK_MAX_BYTES", "IndexSpaceError", "out_of_space", "problem",
           "rebuild_path", "stale_rebuilds"]

# ``quick_check`` reads every page: on a file up to this size that costs well under a
# second, so it runs on every index run; a larger file is checked only by ``index --full``
QUICK_CHECK_MAX_BYTES = 64 << 20
_COUNTED_KEYS = ("edges", "nodes", "unresolved")


@functools.cache
def _expected(schema_sql: str) -> dict[str, frozenset[str]]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(schema_sql)
        return _tables(conn)
    finally:
        conn.close()


def _tables(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    return {n: frozenset(r[1] for r in conn.execute(f'PRAGMA table_info("{n}")'))
            for n in names}


def problem(conn: sqlite3.Connection, schema_sql: str, version: int, *, size: int,
            thorough: bool = False) -> str | None:
    """What keeps the database on ``conn`` from being a usable index of schema ``version``
    (``None``: nothing; an empty database is usable, the schema is created in it)."""
    try:
        tables = _tables(conn)
        if not tables:
            return None
        why = _schema_problem(conn, tables, schema_sql, version)
        if why is None and (thorough or size <= QUICK_CHECK_MAX_BYTES):
            got = [str(r[0]) for r in conn.execute("PRAGMA quick_check(3)")]
            if got != ["ok"]:
                why = f"corrupt ({'; '.join(got)[:200]})"
        return why
    except sqlite3.DatabaseError as exc:
        return f"not a readable SQLite database ({exc})"


def _schema_problem(conn: sqlite3.Connection, tables: dict[str, frozenset[str]],
                    schema_sql: str, version: int) -> str | None:
    if "meta" not in tables:
        return "not an impactlens index (another program's database)"
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    try:
        got = int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        return f"schema version {str(row[0])[:40]!r} is not a number"
    if got != version:
        return (f"schema v{got} is from another impactlens version (this one needs v{version})"
                if got is not None else "no schema version")
    for table, columns in sorted(_expected(schema_sql).items()):
        if table not in tables:
            return f"table {table} is missing"
        if missing := sorted(columns - tables[table]):
            return f"table {table} lacks column {missing[0]}"
    counts = conn.execute("SELECT value FROM meta WHERE key='row_counts'").fetchone()
    if counts is not None and not _counts_ok(counts[0]):
        return "its stored row counts are garbage"
    return None


def _counts_ok(text: object) -> bool:
    try:
        got = json.loads(str(text))
        return isinstance(got, dict) and all(
            isinstance(got.get(k), int) and got[k] >= 0 for k in _COUNTED_KEYS)
    except ValueError:
        return False


def rebuild_path(path: Path, pid: int) -> Path:
    """Where a replacement of the index ``path`` is built before it takes its place."""
    return path.with_name(f".{path.name}.rebuild-{pid}")


def stale_rebuilds(path: Path) -> list[Path]:
    """Replacements of ``path`` left by runs that did not finish (killed, out of space),
    with their journals."""
    return sorted(path.parent.glob(f".{path.name}.rebuild-*"))


class IndexSpaceError(ImpactlensError):
    """The disk (or a file size limit) ran out while the index was written."""


_FULL = ("database or disk is full", "disk i/o error")


def out_of_space(exc: BaseException, path: Path) -> IndexSpaceError | None:
    """The one-line error for ``exc`` when it says the index could not be written for want
    of space (``None`` for any other error)."""
    if isinstance(exc, sqlite3.OperationalError):
        full = any(w in str(exc).lower() for w in _FULL)
    else:
        full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG,
                                                          errno.EDQUOT)
    if not full:
        return None
    sizes = [p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()]
    need = max(1, -(-2 * sum(sizes) // (1 << 20)))  # a rewrite may hold old and new pages
    return IndexSpaceError(f"{path}: out of disk space while writing the index (about {need} "
                           "MB free is needed); the previous index is kept as it was")
