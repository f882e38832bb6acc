"""Worker processes die with the ``index`` that started them, and the next run goes
ahead at once; a lock left by a run that is gone is taken over with a note; an ``index``
killed at seeded points of a full or an incremental run leaves an index that answers
queries and that the next run makes equal to a clean one."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SRC, impactlens

BUSY_MODULE = "".join(f"def f{k}(v):\n    w = v + {k}\n    return [w * i for i in range(w)]\n\n\n"
                 for k in range(120))


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:  # it ended meanwhile
        return ""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_a_killed_index(make_repo, sig):
    root = make_repo({"pkg/__init__.py": "", **{f"pkg/m{i}.py": BUSY_MODULE for i in range(240)}})
    env = dict(os.environ, PYTHONPATH=SRC)
    parent = subprocess.Popen(
        [sys.executable, "-m", "impactlens", "--set", "index_workers=2", "index", str(root)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    workers: list[int] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and parent.poll() is None:
        workers = [c for c in _children(parent.pid) if "impactlens" in _cmdline(c)]
        if len(workers) >= 2:
            break
        time.sleep(0.01)
    assert len(workers) >= 2, "the index ended before its workers could be seen"
    parent.send_signal(sig)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)]
    t0 = time.monotonic()
    proc = impactlens("--set", "lock_timeout_s=2", "index", str(root))
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - t0 < 30
    if sig == signal.SIGKILL:  # nothing ran the release: the lock names the dead holder
        assert f"process {parent.pid}" in proc.stderr and "took over" in proc.stderr


def test_lock_left_by_a_process_that_is_gone_is_taken_over(make_repo):
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "X = 1\n"})
    assert impactlens("index", str(root)).returncode == 0
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (root / ".impactlens/index.lock").write_text(str(gone.pid))
    proc = impactlens("index", str(root))
    assert proc.returncode == 0 and f"process {gone.pid}" in proc.stderr, proc.stderr
    assert (root / ".impactlens/index.lock").read_text() == ""


MODULE = ("from pkg.m0 import f0\n\n\n"
          + "".join(f"def f{k}(v):\n    return f0(v) + {k}\n\n\n" for k in range(1, 40)))
FILES = {"pkg/__init__.py": "", "pkg/m0.py": "def f0(v):\n    return v\n",
         **{f"pkg/m{i}.py": MODULE for i in range(1, 80)}}


def _graph(root) -> str:
    proc = impactlens("export", "callgraph", str(root))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _kill_at(root, delay: float, *args: str) -> None:
    run = subprocess.Popen([sys.executable, "-m", "impactlens", "index", *args, str(root)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, PYTHONPATH=SRC))
    time.sleep(delay)
    run.kill()
    run.wait(timeout=10)


def _clean_graph(root, tmp_path) -> str:
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".impactlens"))
    assert impactlens("index", str(copy)).returncode == 0
    return _graph(copy)


@pytest.mark.parametrize("mode", ["full", "incremental"])
def test_index_killed_midway_leaves_a_usable_index(make_repo, tmp_path, mode):
    root = make_repo(FILES)
    t0 = time.monotonic()
    assert impactlens("index", str(root)).returncode == 0
    took = time.monotonic() - t0
    rng = random.Random(f"kill-{mode}")
    for point in range(2):
        if mode == "incremental":  # an edit for the run to take in
            (root / f"pkg/m{point + 1}.py").write_text(MODULE + f"\n\nX{point} = f0(1)\n")
        _kill_at(root, rng.uniform(0.05, took), *(["--full"] if mode == "full" else []))
        query = impactlens("impact", "pkg.m0.f0", "--repo", str(root))
        assert query.returncode == 0 and "Traceback" not in query.stderr, query.stderr
        assert "pkg.m0.f0" in query.stdout
    rerun = impactlens("index", str(root))
    assert rerun.returncode == 0 and "Traceback" not in rerun.stderr, rerun.stderr
    assert _graph(root) == _clean_graph(root, tmp_path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_index_killed_while_mining_history_keeps_the_code_and_the_next_run_resumes(
        tmp_path):
    from impactlens.bench.history_cost import synthetic_history
    from impactlens.index.history import history_pending, load_history
    from impactlens.index.store import Store

    root = synthetic_history(tmp_path / "repo", 6_000, files=300)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True)
    env = dict(os.environ, PYTHONPATH=SRC)
    parent = subprocess.Popen([sys.executable, "-m", "impactlens", "index", str(root)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    git_log: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and parent.poll() is None and not git_log:
        git_log = [c for c in _children(parent.pid) if "\0log\0--no-walk" in _cmdline(c)]
        time.sleep(0.005)
    assert git_log, "the index ended before its history mining could be seen"
    parent.kill()
    parent.wait(timeout=10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(git_log[0]):
        time.sleep(0.05)
    assert not _alive(git_log[0])  # git ends with the index that read it
    store = Store.open(root / ".impactlens/index.db")
    assert store.file_record("pkg0/mod0.py") is not None  # the code index was committed
    mined = store.history_count()
    store.close()
    proc = impactlens("index", str(root))
    assert proc.returncode == 0, proc.stderr
    assert f"history: 6000 commits indexed ({6000 - mined} new)" in proc.stderr
    store = Store.open(root / ".impactlens/index.db")
    resumed = load_history(store)
    assert history_pending(store) == 0
    store.close()
    clean = tmp_path / "clean"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns(".impactlens"))
    assert impactlens("index", str(clean)).returncode == 0
    store = Store.open(clean / ".impactlens/index.db")
    assert load_history(store) == resumed
    store.close()
