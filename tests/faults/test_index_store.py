"""An index that is not ours, corrupt, from another schema or damaged is detected on
open and rebuilt into a new file that replaces it only when complete, with one note;
``index --full`` always recovers; a full disk leaves the previous index as it was."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SRC, assert_user_error, impactlens

from impactlens.index.store import Store, index_path

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    return x\n",
    "pkg/use.py": "from pkg.core import f\n\n\ndef a():\n    return f(1)\n",
}


def _sql(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def _foreign(db: Path) -> None:
    db.unlink()
    _sql(db, "CREATE TABLE songs (title TEXT, artist TEXT)", "INSERT INTO songs VALUES ('a', 'b')")


def _zero_pages(db: Path) -> None:
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    for at in range(2 * page, len(data) - page, 3 * page):  # every third page after the 2nd
        data[at:at + page] = bytes(page)
    db.write_bytes(bytes(data))


DAMAGE = {
    "garbage bytes": lambda db: db.write_bytes(b"this is not a database " * 400),
    "empty file": lambda db: db.write_bytes(b""),
    "truncated": lambda db: db.write_bytes(db.read_bytes()[: db.stat().st_size // 2]),
    "zeroed pages": _zero_pages,
    "another program's database": _foreign,
    "garbage schema version": lambda db: _sql(
        db, "UPDATE meta SET value='v13-beta' WHERE key='schema_version'"),
    "newer schema": lambda db: _sql(db, "UPDATE meta SET value='99' WHERE key='schema_version'"),
    "dropped table": lambda db: _sql(db, "DROP TABLE edges"),
    "dropped column": lambda db: _sql(db, "ALTER TABLE nodes DROP COLUMN signature"),
    "garbage counters": lambda db: _sql(
        db, "UPDATE meta SET value='{\"nodes\": \"many\"}' WHERE key='row_counts'"),
}


def _checkpointed(root: Path) -> Path:
    db = index_path(root)
    _sql(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    return db


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_damaged_index_is_rebuilt_on_the_next_query(make_repo, name):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    DAMAGE[name](_checkpointed(root))
    proc = impactlens("impact", "pkg.core.f", "--repo", str(root))
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stderr
    assert "pkg.use.a" in proc.stdout
    if name != "empty file":  # an empty file is simply filled, nothing to say
        notes = [ln for ln in proc.stderr.splitlines() if "rebuilt it" in ln]
        assert len(notes) == 1, proc.stderr
    assert not list(index_path(root).parent.glob(".index.db.rebuild-*"))
    again = impactlens("index", str(root))
    assert again.returncode == 0 and "rebuilt" not in again.stderr, again.stderr


@pytest.mark.parametrize("name", ["zeroed pages", "dropped column", "another program's database"])
def test_index_full_always_recovers(make_repo, name):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    DAMAGE[name](_checkpointed(root))
    proc = impactlens("index", "--full", str(root))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    store = Store.open(index_path(root))
    try:
        assert store.node("pkg.use.a") is not None
    finally:
        store.close()


def _limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``impactlens ARGS`` unable to grow any file past ``limit`` bytes (a full disk, as
    far as SQLite can tell)."""
    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, PYTHONPATH=SRC, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "impactlens", *args], capture_output=True,
                          text=True, env=env, preexec_fn=cap, timeout=60, check=False)


def test_full_disk_keeps_the_previous_index(make_repo):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    db = _checkpointed(root)
    before = db.read_bytes()
    for i in range(80):  # enough new code that the index must grow
        (root / f"pkg/gen{i}.py").write_text(
            "".join(f"def g{i}_{k}(v):\n    return f(v) + {k}\n" for k in range(20))
            + "from pkg.core import f\n")
    proc = _limited(db.stat().st_size + 4096, "index", str(root))
    assert_user_error(proc, says="the previous index is kept")
    assert "MB free is needed" in proc.stderr
    assert db.read_bytes() == before
    store = Store.open(db)
    try:
        assert store.node("pkg.use.a") is not None and store.node("pkg.gen0.g0_0") is None
    finally:
        store.close()


def test_full_disk_during_a_rebuild_leaves_no_half_file(make_repo):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    db = _checkpointed(root)
    DAMAGE["dropped table"](db)
    damaged = db.read_bytes()
    proc = _limited(8192, "index", str(root))
    assert_user_error(proc, says="out of disk space")
    assert db.read_bytes() == damaged
    assert not list(db.parent.glob(".index.db.rebuild-*"))


def _read_only_runs(root: Path, mount: Path, *commands: list[str]
                    ) -> list[subprocess.CompletedProcess[str]] | None:
    """Each of ``commands`` (``impactlens`` arguments, ``{root}`` for the repository) run on
    a read-only view of ``root``: a read-only bind mount at ``mount`` for root (who writes
    any file whatever its mode), read-only modes otherwise; ``None`` when neither can be
    had."""
    state = index_path(root).parent
    env = dict(os.environ, PYTHONPATH=SRC)
    if os.geteuid() != 0:
        locked = [state, *state.iterdir()] if state.exists() else [root]
        for p in locked:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            return [impactlens(*(a.format(root=root) for a in c)) for c in commands]
        finally:
            for p in locked:
                p.chmod(0o755 if p.is_dir() else 0o644)
    mount.mkdir()
    got = []
    for c in commands:
        args = " ".join(f"'{a.format(root=mount)}'" for a in c)
        script = (f"mount --bind '{root}' '{mount}' && mount -o remount,ro,bind '{mount}' && "
                  f"exec '{sys.executable}' -m impactlens {args}")
        proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                              text=True, env=env, timeout=60, check=False)
        if "mount" in proc.stderr and "impactlens" not in proc.stderr:
            return None  # no mount namespace here
        got.append(proc)
    return got


def test_read_only_index_answers_queries(make_repo, tmp_path):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    (root / "pkg/core.py").write_text("def f(x, y=0):\n    return x\n")  # the index is stale
    got = _read_only_runs(root, tmp_path / "ro", ["impact", "pkg.core.f", "--repo", "{root}"],
                          ["index", "{root}"])
    if got is None:
        pytest.skip("no read-only view of the repository can be made here")
    query, index = got
    assert query.returncode == 0 and "pkg.use.a" in query.stdout, query.stderr
    assert "cannot be refreshed" in query.stderr
    assert_user_error(index, says="cannot")


def test_read_only_directory_without_index_is_one_line(make_repo, tmp_path):
    root = make_repo(FILES)
    got = _read_only_runs(root, tmp_path / "ro", ["impact", "pkg.core.f", "--repo", "{root}"])
    if got is None:
        pytest.skip("no read-only view of the repository can be made here")
    assert_user_error(got[0], says="cannot create the index directory")


def test_read_only_open_never_writes(make_repo):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    db = _checkpointed(root)
    before = {p.name: p.read_bytes() for p in db.parent.iterdir() if p.is_file()}
    store = Store._connect(db, read_only=True)
    try:
        assert store.node("pkg.use.a") is not None
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.set_meta("x", "y")
    finally:
        store.close()
    assert {p.name: p.read_bytes() for p in db.parent.iterdir() if p.is_file()} == before
