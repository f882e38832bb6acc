"""Incremental == full on real history: `impactlens bench replay REPO [--commits N] [--json]`.

The property test proves the incremental index equal to a from-scratch one on random
edit sequences of small synthetic repositories; this harness checks the same invariant
on the edits maintainers actually made. It walks the last N first-parent commits of
REPO's HEAD, oldest first, in one temporary ``git worktree`` that is indexed once cold
and then *incrementally* after each checkout; after every step a second worktree at the
same commit is indexed from scratch, and the two graphs (nodes, edges, unresolved sites)
must be identical. Reported: steps that differ (with the first differing rows), and the
incremental and full wall times (median, p95) — the speed-up of the incremental path on
real edits, not a single hand-picked one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.metrics import percentile
from impactlens.index import git

GraphRows = dict[str, set[tuple[Any, ...]]]


def graph_rows(root: Path) -> GraphRows:
    """The index's graph at ``root`` as comparable row sets (history tables excluded)."""
    from impactlens.api import Project

    with Project(root) as p:
        s = p.store
        return {
            "nodes": {dataclasses.astuple(n) for n in s.all_nodes()},
            "edges": {dataclasses.astuple(e) for e in s.all_edges()},
            "unresolved": {dataclasses.astuple(u) for u in s.unresolved_sites()},
        }


def diff_rows(inc: GraphRows, full: GraphRows, show: int = 3) -> dict[str, Any]:
    """Per table: rows only the incremental index has, rows only the full one has."""
    out: dict[str, Any] = {}
    for table in full:
        extra, missing = inc[table] - full[table], full[table] - inc[table]
        if extra or missing:
            out[table] = {"extra": len(extra), "missing": len(missing),
                          "extra_rows": [repr(r) for r in sorted(extra, key=repr)[:show]],
                          "missing_rows": [repr(r) for r in sorted(missing, key=repr)[:show]]}
    return out


@contextmanager
def worktree(repo: Path, at: str, dst: Path) -> Iterator[Path]:
    git.run(repo, "worktree", "add", "-q", "--detach", str(dst), at)
    try:
        yield dst
    finally:
        git.run(repo, "worktree", "remove", "--force", str(dst), ok_codes=(0, 128))


def _index(root: Path, *, full: bool) -> tuple[float, int]:
    from impactlens.api import Project

    t = time.perf_counter()
    with Project(root) as p:
        summary = p.index(full=full)
    return time.perf_counter() - t, summary.parsed


def replay(repo: Path, commits: int) -> dict[str, Any]:
    shas = git.run(repo, "rev-list", "--first-parent", f"--max-count={commits + 1}",
                   "HEAD").split()[::-1]
    if len(shas) < 2:
        raise SystemExit(f"impactlens: error: {repo}: needs at least 2 commits")
    steps: list[dict[str, Any]] = []
    with (tempfile.TemporaryDirectory(prefix="impactlens-replay-") as tmp,
          worktree(repo, shas[0], Path(tmp) / "inc") as inc):
        cold, _ = _index(inc, full=True)
        for sha in shas[1:]:
            git.run(inc, "checkout", "-q", "--detach", sha)
            dt, parsed = _index(inc, full=False)
            with worktree(repo, sha, Path(tmp) / "full") as fresh:
                full_dt, _ = _index(fresh, full=True)
                diff = diff_rows(graph_rows(inc), graph_rows(fresh))
            steps.append({"sha": sha[:10], "parsed": parsed, "incremental_s": round(dt, 3),
                          "full_s": round(full_dt, 3), "diff": diff})
    inc_s = [s["incremental_s"] for s in steps]
    full_s = [s["full_s"] for s in steps]
    return {
        "repo": str(repo), "steps": len(steps), "cold_s": round(cold, 3),
        "mismatched_steps": sum(1 for s in steps if s["diff"]),
        "incremental_p50_s": round(statistics.median(inc_s), 3),
        "incremental_p95_s": round(percentile(inc_s, 0.95) or 0.0, 3),
        "full_p50_s": round(statistics.median(full_s), 3),
        "files_parsed_p50": statistics.median(s["parsed"] for s in steps),
        "step_details": steps,
    }


def _print(r: dict[str, Any]) -> None:
    print(f"{r['repo']}: {r['steps']} commits replayed, {r['mismatched_steps']} where the "
          f"incremental index differs from a full one")
    print(f"incremental p50 {r['incremental_p50_s']:.3f} s (p95 {r['incremental_p95_s']:.3f} s, "
          f"{r['files_parsed_p50']} files re-parsed p50) vs full p50 {r['full_p50_s']:.3f} s")
    for s in r["step_details"]:
        if s["diff"]:
            print(f"  {s['sha']}: {json.dumps(s['diff'])[:400]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens bench replay", description=__doc__)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=at_least(1), default=20,
                    help="commits to replay (default 20)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not git.is_repository(args.repo) or not git.has_head(args.repo):
        print(f"impactlens: error: {args.repo}: not a git repository with commits",
              file=sys.stderr)
        return 2
    report = replay(args.repo.resolve(), args.commits)
    print(json.dumps(report, indent=2)) if args.json else _print(report)
    return 1 if report["mismatched_steps"] else 0
