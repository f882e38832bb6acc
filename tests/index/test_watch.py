"""The file watcher behind watch mode: which saves concern the index, the barrier, and
`Project.refresh` trusting the watcher instead of scanning the disk (real writes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from impactlens.api import Project
from impactlens.index.watch import RepositoryWatcher, concerns_index
from impactlens.settings import DEFAULT

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def base():\n    return 1\n",
    "pkg/use.py": "from pkg.core import base\n\n\ndef use():\n    return base()\n",
    "README.md": "docs\n",
}


def test_what_concerns_the_index(make_repo) -> None:
    root = make_repo({**FILES, "tools/pyproject.toml": ""})
    (root / "venv-x").mkdir()
    (root / "venv-x" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "newdir").mkdir()
    yes = ["pkg/core.py", "pkg/new.py", "pyproject.toml", "pytest.ini", "setup.cfg",
           "pkg/.gitignore", "newdir"]
    no = ["README.md", "tools/pyproject.toml", "pkg/core.pyc", "pkg/.#core.py",
          ".git/HEAD", ".impactlens/index.db", "node_modules/x/y.py", "build/lib/a.py",
          "pkg/__pycache__/core.cpython-311.pyc", "venv-x/lib/site.py", "x.egg-info/a.py",
          "venv-x"]
    assert [p for p in yes if not concerns_index(root, p, deleted=False)] == []
    assert [p for p in no if concerns_index(root, p, deleted=False)] == []
    # gone: a path without a suffix may have been a directory of Python files
    assert concerns_index(root, "oldpkg", deleted=True)
    assert not concerns_index(root, "notes.txt", deleted=True)
    assert not concerns_index(root, "build", deleted=True)


def _watcher(root: Path) -> RepositoryWatcher:
    w = RepositoryWatcher(root, quiet_ms=DEFAULT.watch_quiet_ms,
                          max_burst_ms=DEFAULT.watch_max_burst_ms)
    w.start()
    assert w.sync(DEFAULT.watch_start_timeout_s), w.error
    return w


def test_watcher_reports_saves_the_index_reads(make_repo) -> None:
    root = make_repo(FILES)
    w = _watcher(root)
    try:
        assert w.take() == set()
        (root / "pkg" / "core.py").write_text("def base(x):\n    return x\n")
        (root / "README.md").write_text("more docs\n")
        (root / ".git" / "scratch").write_text("x")
        (root / "node_modules" / "m").mkdir(parents=True)
        (root / "node_modules" / "m" / "a.py").write_text("x = 1\n")
        assert w.sync(DEFAULT.watch_sync_timeout_s)  # every save above is reported by now
        assert w.take() == {"pkg/core.py"}
        os.rename(root / "pkg", root / "lib")  # a directory move: reported by its name
        assert w.sync(DEFAULT.watch_sync_timeout_s)
        assert {"pkg", "lib"} <= w.take()
        assert not list((root / ".impactlens" / "watch-sync").iterdir())  # markers removed
    finally:
        w.stop()
    assert not w.running and not w.sync(1.0)


def test_refresh_trusts_the_watcher_and_scans_only_once(make_repo) -> None:
    root = make_repo(FILES)
    with Project(root) as project:
        project.start_watching()
        assert project.refresh() is not None and project.staleness_scans == 1
        assert project.refresh() is None  # nothing saved: neither a scan nor an index run
        (root / "pkg" / "extra.py").write_text("def extra():\n    return 2\n")
        summary = project.refresh()  # right after the save, with no wait
        assert summary is not None and summary.parsed == 1 and not summary.full
        assert {n.id for n in project.find("extra")} >= {"pkg.extra.extra", "pkg.extra"}
        (root / "pkg" / "extra.py").unlink()
        project.refresh()
        assert not [n for n in project.find("extra") if "extra" in n.id]
        (root / "README.md").write_text("not indexed\n")
        assert project.refresh() is None
        assert project.staleness_scans == 1
        project.stop_watching()
        project.refresh()
        assert project.staleness_scans == 2  # without the watcher every refresh scans


def test_refresh_scans_when_the_watcher_does_not_catch_up(make_repo) -> None:
    root = make_repo(FILES)
    with Project(root, DEFAULT.replace(watch_sync_timeout_s=0.0)) as project:
        project.start_watching()
        project.refresh()
        (root / "pkg" / "extra.py").write_text("def extra():\n    return 2\n")
        assert project.refresh() is not None  # no answer in time: the scan finds the save
        assert project.staleness_scans == 2
        assert "pkg.extra.extra" in [n.id for n in project.find("extra")]


def test_waiting_needs_a_watcher(make_repo) -> None:
    from impactlens.errors import WatchError

    with Project(make_repo(FILES)) as project, pytest.raises(WatchError, match="not watching"):
        project.wait_for_change(0.1)
