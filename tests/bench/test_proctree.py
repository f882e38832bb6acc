"""Process-tree measurement: CPU and PSS of a command count its worker processes."""

from __future__ import annotations

import sys

from impactlens.bench.proctree import measure, tree, tree_pss_kb

# a parent that forks two workers; each holds 40 MB of its own and burns CPU
_FORKS = """
import os, time
pids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        block = bytearray(40_000_000)
        for i in range(0, len(block), 4096):
            block[i] = 1
        sum(range(2_000_000))
        time.sleep(0.6)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
print("done")
"""


def test_measure_sums_the_workers_memory_and_cpu():
    got = measure([sys.executable, "-c", _FORKS])
    assert got["rc"] == 0 and got["output"].strip() == "done"
    assert got["peak_processes"] == 3
    assert got["peak_pss_mb"] > 75  # both workers' 40 MB, not the largest process alone
    alone = measure([sys.executable, "-c", "sum(range(10))"])
    assert got["cpu_s"] > alone["cpu_s"]  # the workers' CPU reached the parent's rusage


def test_tree_of_this_process_includes_itself():
    import os

    assert tree(os.getpid())[0] == os.getpid()
    assert tree_pss_kb(os.getpid()) > 0
