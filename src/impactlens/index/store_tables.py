"""The store's tables beside the graph: key-value meta, recorded test runs and mined
history. Mixed into :class:`impactlens.index.store.Store`, which owns the connection and
the transactions; these are the queries on those tables (no SQL elsewhere)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any


class MetaTable:
    """Key-value settings of the index (schema version, counters, the recording's summary)."""

    _conn: sqlite3.Connection

    def get_meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )


class RecordingTables(MetaTable):
    """Recorded test runs (index/recording.py): which tests executed which functions and
    lines in a real run."""

    def put_recording(self, rows: Iterable[tuple[str, str, str, str]], files: dict[str, str],
                      tests: dict[str, str], info: str) -> None:
        """Replace the recording: ``(test, node, file, lines)`` rows (``lines``: the node's
        lines the test executed, as ``"3-5,9"``; ``""`` when not recorded), the recorded
        files' sha256, every test run with its outcome, and a JSON summary. Tests, nodes
        and distinct line sets are stored once each, the rows as integer triples (a large
        suite records millions of rows)."""
        for table in ("test_runs", "line_sets", "recorded_nodes", "recorded_files",
                      "recorded_tests"):
            self._conn.execute(f"DELETE FROM {table}")
        test_ids: dict[str, int] = {t: i for i, t in enumerate(sorted(tests), 1)}
        outcomes = dict(tests)
        node_ids: dict[tuple[str, str], int] = {}
        merged: dict[tuple[int, int], str] = {}
        for test, node, file, lines in rows:
            if test not in test_ids:  # lines run outside any test, or a test with no report
                test_ids[test] = len(test_ids) + 1
                outcomes.setdefault(test, "")
            key = (node_ids.setdefault((node, file), len(node_ids) + 1), test_ids[test])
            merged[key] = _join_lines(merged.get(key, ""), lines)
        line_ids: dict[str, int] = {"": 0}
        triples = {k: line_ids.setdefault(x, len(line_ids)) for k, x in merged.items()}
        self._conn.executemany("INSERT INTO recorded_tests(id, test, outcome) VALUES (?,?,?)",
                               [(i, t, outcomes[t]) for t, i in test_ids.items()])
        self._conn.executemany("INSERT INTO recorded_nodes(id, node, file) VALUES (?,?,?)",
                               [(i, n, f) for (n, f), i in node_ids.items()])
        self._conn.executemany("INSERT INTO line_sets(id, lines) VALUES (?,?)",
                               [(i, x) for x, i in line_ids.items() if i])
        self._conn.executemany("INSERT INTO test_runs(node, test, lines) VALUES (?,?,?)",
                               sorted((n, t, x) for (n, t), x in triples.items()))
        self._conn.executemany("INSERT INTO recorded_files(path, sha256) VALUES (?,?)",
                               sorted(files.items()))
        self.set_meta("recording", info)

    def recording_info(self) -> str | None:
        return self.get_meta("recording")

    def recording_files(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._conn.execute("SELECT path, sha256 FROM recorded_files")}

    def recorded_tests(self) -> dict[str, str]:
        """Every test the recording ran, with its outcome."""
        rows = self._conn.execute("SELECT test, outcome FROM recorded_tests WHERE outcome != ''")
        return {r[0]: r[1] for r in rows}

    _RUNS = ("SELECT DISTINCT t.test FROM recorded_nodes n JOIN test_runs r ON r.node = n.id "
             "JOIN recorded_tests t ON t.id = r.test WHERE ")

    def recording_rows(self) -> list[tuple[str, str, str, str]]:
        """The recording's ``(test, node, file, lines)`` rows."""
        rows = self._conn.execute(
            "SELECT t.test, n.node, n.file, COALESCE(s.lines, '') FROM test_runs r "
            "JOIN recorded_nodes n ON n.id = r.node JOIN recorded_tests t ON t.id = r.test "
            "LEFT JOIN line_sets s ON s.id = r.lines")
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def test_lines(self, node: str) -> dict[str, str]:
        """Test id → the lines of ``node`` it executed (``"3-5,9"``; ``""``: not recorded)."""
        rows = self._conn.execute(
            "SELECT t.test, COALESCE(s.lines, '') FROM recorded_nodes n JOIN test_runs r ON "
            "r.node = n.id JOIN recorded_tests t ON t.id = r.test LEFT JOIN line_sets s ON "
            "s.id = r.lines WHERE n.node = ?", (node,))
        out: dict[str, str] = {}
        for test, lines in rows:  # one node id may sit in two files' rows: join their lines
            out[test] = _join_lines(out.get(test, ""), lines)
        return out

    def tests_running_files(self, files: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for f in files:
            out.update(r[0] for r in self._conn.execute(self._RUNS + "n.file = ?", (f,)))
        return out


class HistoryTables:
    """Mined history (index/history.py): commits and the files each changed. Rows are
    plain tuples; :mod:`impactlens.index.history` wraps them in records."""

    _conn: sqlite3.Connection

    def history_count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM commits").fetchone()[0])

    def history_shas(self) -> set[str]:
        return {r[0] for r in self._conn.execute("SELECT sha FROM commits")}

    def clear_history(self) -> None:
        self._conn.execute("DELETE FROM commit_files")
        self._conn.execute("DELETE FROM commits")

    def delete_commits(self, shas: Iterable[str]) -> None:
        rows = [(s,) for s in shas]
        self._conn.executemany("DELETE FROM commit_files WHERE sha=?", rows)
        self._conn.executemany("DELETE FROM commits WHERE sha=?", rows)

    def put_commits(self, commits: Iterable[Any], *, fresh: bool = False) -> None:
        """Insert (or replace) commit records: ``sha, author_time, message, n_files, parents,
        unread, files`` where each file has ``path, old_path, added, deleted, symbols`` (names) and
        ``renamed`` (``(old, new)`` name pairs); both are stored space-separated (a Python
        name holds no space), a rename as ``old>new``. ``fresh``: the caller knows none of
        them is stored (no look-up per commit)."""
        commits = list(commits)
        # the files of a commit stored before are replaced; new commits (the usual case)
        # skip the delete, which scans the table while a cold index has dropped its indexes
        stored = [] if fresh else [(c.sha,) for c in commits if self._conn.execute(
            "SELECT 1 FROM commits WHERE sha=?", (c.sha,)).fetchone() is not None]
        self._conn.executemany("DELETE FROM commit_files WHERE sha=?", stored)
        self._conn.executemany(
            "INSERT OR REPLACE INTO commits(sha, author_time, message, n_files, parents, "
            "unread) VALUES (?,?,?,?,?,?)",
            [(c.sha, int(c.author_time), c.message, int(c.n_files), int(c.parents), c.unread)
             for c in commits])
        self._conn.executemany(
            "INSERT INTO commit_files(sha, path, old_path, added, deleted, symbols, renamed) "
            "VALUES (?,?,?,?,?,?,?)",
            [(c.sha, f.path, f.old_path, int(f.added), int(f.deleted), " ".join(f.symbols),
              " ".join(f"{a}>{b}" for a, b in f.renamed)) for c in commits for f in c.files])

    def history_unread(self) -> dict[str, int]:
        """How many stored commits lacked what (``commits.unread``), by kind."""
        return {r[0]: int(r[1]) for r in self._conn.execute(
            "SELECT unread, COUNT(*) FROM commits WHERE unread != '' GROUP BY unread")}

    def history_commits(
        self, *, before: int | None = None
    ) -> list[tuple[str, int, str, int, int, str]]:
        """``(sha, author_time, message, n_files, parents, unread)`` authored strictly
        before ``before``, oldest first (ties by sha)."""
        sql = "SELECT sha, author_time, message, n_files, parents, unread FROM commits"
        args: tuple[Any, ...] = ()
        if before is not None:
            sql += " WHERE author_time < ?"
            args = (int(before),)
        rows = self._conn.execute(sql + " ORDER BY author_time, sha", args)
        return [(r[0], int(r[1]), r[2], int(r[3]), int(r[4]), r[5]) for r in rows]

    def history_files(self, *, before: int | None = None) -> list[tuple[
            str, str, str | None, int, int, tuple[str, ...], tuple[tuple[str, str], ...]]]:
        """``(sha, path, old_path, added, deleted, symbols, renamed)`` of commits authored
        strictly before ``before`` (all when ``None``), ordered by sha and path."""
        sql = (
            "SELECT cf.sha, cf.path, cf.old_path, cf.added, cf.deleted, cf.symbols, cf.renamed "
            "FROM commit_files cf JOIN commits c ON c.sha = cf.sha"
        )
        args: tuple[Any, ...] = ()
        if before is not None:
            sql += " WHERE c.author_time < ?"
            args = (int(before),)
        sql += " ORDER BY cf.sha, cf.path, cf.old_path"
        return [(r[0], r[1], r[2], int(r[3]), int(r[4]), tuple(r[5].split()),
                 tuple((a, b) for a, _, b in (p.partition(">") for p in r[6].split())))
                for r in self._conn.execute(sql, args)]


def _join_lines(a: str, b: str) -> str:
    """Two line sets (``"3-5,9"``) as one (ranges may overlap; readers take the union)."""
    return ",".join(x for x in (a, b) if x)
