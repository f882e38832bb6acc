"""Worker count for a cold index: `impactlens-bench workers REPO [--pairs N] [--json]`.

Runs a from-scratch ``index`` of REPO with ``index_workers`` = each of ``--workers``
(default 1 and 2), in back-to-back pairs whose order alternates (so a load that drifts
during the run favours neither), each in a fresh process, and reports per setting the
median wall time, CPU time and peak PSS summed over the process tree (bench/proctree.py)
and, per pair, the ratios. The default ``index_workers`` in settings.py is chosen from it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.proctree import measure

_CHILD = """
import json, sys, time
from impactlens.api import Project, repository_settings
from impactlens.settings import override
from pathlib import Path
root = Path(sys.argv[1])
settings = override(repository_settings(root), [f"index_workers={sys.argv[2]}"])
t = time.perf_counter()
s = Project(root, settings).index(full=True)
print(json.dumps({"index_seconds": time.perf_counter() - t, "files": s.files,
                  "edges": s.edges}))
"""


def cold_run(root: Path, workers: int) -> dict[str, Any]:
    """One from-scratch index with ``workers`` workers, measured over its process tree."""
    shutil.rmtree(root / ".impactlens", ignore_errors=True)
    got = measure([sys.executable, "-c", _CHILD, str(root), str(workers)])
    if got["rc"] != 0:
        raise RuntimeError(f"index with {workers} workers failed: {got['output'][-500:]}")
    inner = json.loads(got["output"].strip().splitlines()[-1])
    return {"workers": workers, "wall_s": got["wall_s"], "cpu_s": got["cpu_s"],
            "peak_pss_mb": got["peak_pss_mb"], "edges": inner["edges"]}


def pairs(root: Path, n: int, settings: tuple[int, int]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for i in range(n):
        order = settings if i % 2 == 0 else settings[::-1]
        runs.extend(cold_run(root, w) for w in order)
    out: dict[str, Any] = {"pairs": n, "runs": runs}
    for w in settings:
        mine = [r for r in runs if r["workers"] == w]
        out[f"workers_{w}"] = {k: statistics.median(r[k] for r in mine)
                               for k in ("wall_s", "cpu_s", "peak_pss_mb")}
    a, b = settings
    out["ratios"] = []
    for i in range(n):
        pair = {r["workers"]: r for r in runs[2 * i:2 * i + 2]}
        out["ratios"].append({k: pair[b][k] / pair[a][k]
                              for k in ("wall_s", "cpu_s", "peak_pss_mb")})
    out["ratio_of"] = f"workers={b} over workers={a}"
    return out


def _print(r: dict[str, Any], settings: tuple[int, int]) -> None:
    for w in settings:
        m = r[f"workers_{w}"]
        print(f"index_workers={w}: median wall {m['wall_s']:.2f}s, CPU {m['cpu_s']:.2f}s, "
              f"peak PSS (tree) {m['peak_pss_mb']:.0f} MB over {r['pairs']} runs")
    for i, q in enumerate(r["ratios"]):
        print(f"pair {i + 1} ({r['ratio_of']}): wall {q['wall_s']:.2f}x, CPU "
              f"{q['cpu_s']:.2f}x, PSS {q['peak_pss_mb']:.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench workers", description=__doc__)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--pairs", type=at_least(1), default=4)
    ap.add_argument("--workers", default="1,2", help="two worker counts, comma-separated")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        a, b = (int(x) for x in args.workers.split(","))
    except ValueError:
        print("impactlens: error: --workers takes two counts, e.g. 1,2", file=sys.stderr)
        return 2
    if not (args.repo / ".git").exists():
        print(f"impactlens: error: {args.repo}: not a git work tree (git init it first)",
              file=sys.stderr)
        return 2
    report = pairs(args.repo.resolve(), args.pairs, (a, b))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report, (a, b))
    return 0
