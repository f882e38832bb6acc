"""Concurrent `index` runs with queries looping against the same repository while its files
change: no traceback, no corrupt index; every query answers or says in one line that the
index is busy; the index left behind equals a clean full index of the tree."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

from conftest import impactlens
from edit_sequences import dump

from impactlens.index.store import index_path

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    return x\n",
    **{f"pkg/m{i}.py": f"from pkg.core import f\n\n\ndef g{i}(v):\n    return f(v) + {i}\n"
       for i in range(12)},
    "tests/test_m.py": "from pkg.m1 import g1\n\n\ndef test_g1():\n    assert g1(1) == 2\n",
}
BUSY = "another `impactlens index` is running"
EDIT_SECONDS = 4.0  # how long the files keep changing under the runs (at least)
RUNS = 3  # concurrent `index` loops, beside one loop of each query


def _edit(root, step: int) -> None:
    """One change to the tree: a body, a signature, a file added, a file deleted."""
    k = step % 12
    kind = step % 4
    if kind == 0:
        (root / f"pkg/m{k}.py").write_text(
            f"from pkg.core import f\n\n\ndef g{k}(v):\n    return f(v) * {step}\n")
    elif kind == 1:
        (root / "pkg/core.py").write_text(f"def f(x, y={step}):\n    return x\n")
    elif kind == 2:
        (root / f"pkg/extra{k}.py").write_text(f"from pkg.m{k} import g{k}\n\n\n"
                                               f"def h(v):\n    return g{k}(v)\n")
    else:
        (root / f"pkg/extra{(k + 10) % 12}.py").unlink(missing_ok=True)


def _loop(args: tuple[str, ...], stop: threading.Event, out: list) -> None:
    rounds = 0
    while not stop.is_set() or rounds < 2:  # each at least twice, the edits going on
        rounds += 1
        proc = impactlens("--set", "lock_timeout_s=3", *args, timeout=120)
        out.append((args[0], proc.returncode, proc.stdout, proc.stderr))


def _check(name: str, code: int, stdout: str, stderr: str) -> str:
    """``answered`` or ``busy``; anything else fails the test."""
    assert "Traceback" not in stderr, (name, stderr)
    if code == 2:
        errors = [ln for ln in stderr.splitlines() if ln.startswith("impactlens: error:")]
        assert len(errors) == 1 and BUSY in errors[0], (name, stderr)
        return "busy"
    assert code == 0, (name, code, stdout[-500:], stderr)
    if name == "impact":
        assert "pkg.core.f" in stdout, stdout
    elif name == "find":
        assert "pkg.m1.g1" in stdout, stdout
    elif name == "analyze":
        assert "summary" in json.loads(stdout)
    return "answered"


def test_concurrent_index_runs_and_queries(make_repo):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    r = str(root)
    loops = [("index", r)] * RUNS + [("impact", "pkg.core.f", "--repo", r),
                                     ("find", "g1", "--repo", r),
                                     ("analyze", "--repo", r, "--json")]
    stop, out = threading.Event(), []
    threads = [threading.Thread(target=_loop, args=(a, stop, out)) for a in loops]
    for t in threads:
        t.start()
    step, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < EDIT_SECONDS or (len(out) < len(loops) and step < 200):
        _edit(root, step)
        step += 1
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(timeout=180)
    outcomes = [(name, _check(name, *rest)) for name, *rest in out]
    for kind in ("index", "impact", "find", "analyze"):
        assert (kind, "answered") in outcomes, (kind, outcomes)

    final = impactlens("index", r)
    assert final.returncode == 0 and "Traceback" not in final.stderr, final.stderr
    con = sqlite3.connect(index_path(root))
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    incremental = dump(root)
    assert impactlens("index", "--full", r).returncode == 0
    assert dump(root) == incremental
