"""What a command costs, summed over its process tree: wall time, CPU time and peak PSS.

A process's RSS counts every page it maps, so the RSS of forked workers sharing the
parent's pages counts those pages once per process, and the largest single process's RSS
leaves the workers out. PSS (proportional set size, ``/proc/PID/smaps_rollup``) divides
each shared page among the processes mapping it, so the sum over the tree is the memory
the command holds. The tree is sampled every :data:`SAMPLE_S` seconds; its peak is the
largest sum seen (a peak shorter than the interval can be missed). CPU time is user +
system of the command and every descendant it waited for (``wait4``'s rusage), so workers
count. Linux only (``/proc``).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SAMPLE_S = 0.05


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and its living descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def pss_kb(pid: int) -> int:
    """The PSS of one process in kB (0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_kb(pid: int) -> int:
    return sum(pss_kb(p) for p in tree(pid))


class _Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.peak_processes = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            pids = tree(self.pid)
            total = sum(pss_kb(p) for p in pids)
            if total > self.peak_kb:
                self.peak_kb, self.peak_processes = total, len(pids)
            self.done.wait(SAMPLE_S)


def measure(cmd: Sequence[str], cwd: Path | None = None,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd``; its wall and CPU seconds (tree), peak summed PSS (MB), the number of
    processes at that peak, its exit code and its output (stdout and stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    sampler = _Sampler(proc.pid)
    sampler.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        # wait4, not wait: its rusage is the child's plus that of every descendant it reaped
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        sampler.done.set()
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": time.perf_counter() - t0, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_pss_mb": sampler.peak_kb / 1024, "peak_processes": sampler.peak_processes,
            "rc": proc.returncode, "output": out.decode("utf-8", "replace")}
