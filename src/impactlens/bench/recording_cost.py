"""Cost and effect of a recorded test run: `impactlens bench record REPO [--runs N] [--json]`.

On a git work tree whose suite runs under the current interpreter's pytest:

- the suite's wall time plain, under ``--impact-record`` and under ``--impact-record
  --impact-record-functions`` (runs interleaved, medians and their ratios to plain), and the
  recording's size (tests, (test, function) pairs, index growth);
- for ``--sample`` functions the recording saw run (seeded choice), a body edit (a
  statement inserted before one of the body's simple statements, at any depth, seeded; in
  memory only) analysed with the static test map alone and with the recording:
  validation-set size as a share of the suite, and ``analyze`` latency (medians).

The repository's files are never modified; the index lives in its ``.impactlens``.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.impact.statements import COMPOUND
from impactlens.index.recording import IMPORT_TIME, is_pseudo_test


def _suite_seconds(root: Path, args: Sequence[str]) -> float:
    """Wall time of the suite, the work tree's code first on the path (as `bench history`)."""
    from impactlens.bench.history import suite_env

    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                   cwd=root, env=suite_env(root), capture_output=True, check=False)
    return time.perf_counter() - t


def _body_lines(source: str) -> dict[tuple[int, int], list[int]]:
    """(first line with decorators, last line) of each ``def`` → the first lines of its
    body's simple statements (any depth)."""
    out: dict[tuple[int, int], list[int]] = {}
    for d in ast.walk(ast.parse(source)):
        if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef):
            key = (min([d.lineno, *(x.lineno for x in d.decorator_list)]), d.end_lineno or 0)
            out[key] = sorted({s.lineno for b in d.body for s in ast.walk(b)
                               if isinstance(s, ast.stmt) and not isinstance(s, COMPOUND)})
    return out


def _sample(project: Any, n: int, seed: int) -> list[tuple[str, str, int]]:
    """``(node id, file, line of one of its simple statements)`` of ``n`` functions of
    non-test files that the recording saw run in a test (not only at an import)."""
    store = project.store
    rows = store.recording_rows()
    ran = {node for test, node, _, _ in rows if test != IMPORT_TIME and not is_pseudo_test(test)}
    pick = random.Random(seed)
    out: list[tuple[str, str, int]] = []
    for path in sorted({f for _, _, f, _ in rows}):
        rec = store.file_record(path)
        text = project.read_file(path)
        if text is None or rec is None or rec.is_test:
            continue
        body = _body_lines(text)
        out.extend((n.id, path, pick.choice(lines)) for n in store.nodes_in_file(path)
                   if n.id in ran and (lines := body.get((n.start_line, n.end_line))))
    pick.shuffle(out)
    return out[:n]


def run(repo: Path, runs: int, pytest_args: Sequence[str], sample: int,
        seed: int = 0) -> dict[str, Any]:
    from impactlens.api import Project
    from impactlens.bench.perf import insert_statement
    from impactlens.index.store import index_path

    plain: list[float] = []
    functions: list[float] = []
    recorded: list[float] = []
    for _ in range(runs):  # the lines recording last: it is the one analysed below
        plain.append(_suite_seconds(repo, pytest_args))
        functions.append(_suite_seconds(repo, [*pytest_args, "--impact-record",
                                               "--impact-record-functions"]))
        recorded.append(_suite_seconds(repo, [*pytest_args, "--impact-record"]))
    base = statistics.median(plain)
    out: dict[str, Any] = {
        "repo": repo.name, "runs": runs,
        "suite_s": {"plain": base, "recorded": statistics.median(recorded),
                    "ratio": statistics.median(recorded) / base,
                    "functions_only": statistics.median(functions),
                    "functions_only_ratio": statistics.median(functions) / base},
    }
    project = Project(repo)
    info = json.loads(project.store.recording_info() or "{}")
    out["recording"] = {**info, "index_mb": index_path(repo).stat().st_size / 2**20}
    tests = max(1, int(info.get("tests", 0)))
    static = Project(repo, project.settings.replace(use_recorded_runs=False))
    rows = []
    for nid, path, first in _sample(project, sample, seed):
        before = project.read_file(path) or ""
        after = insert_statement(before, first, "_impactlens_probe = 0")
        row: dict[str, Any] = {"function": nid}
        chosen: dict[str, set[str]] = {}
        for name, p in (("static", static), ("recorded", project)):
            t = time.perf_counter()
            res = p.analyze_before_after(path, before, after, refresh=False)
            row[f"{name}_s"] = time.perf_counter() - t
            row[f"{name}_selected"] = len(res.validate) / tests
            chosen[name] = set(res.validate)
        # tests the recording saw run the function that no static path reaches, and back
        row["only_recorded"] = len(chosen["recorded"] - chosen["static"])
        row["only_static"] = len(chosen["static"] - chosen["recorded"])
        rows.append(row)
    out["functions"] = rows
    if rows:
        out["median"] = {k: statistics.median(r[k] for r in rows)
                         for k in ("static_s", "recorded_s", "static_selected",
                                   "recorded_selected")}
        out["mean_selected"] = {k: statistics.fmean(r[k] for r in rows)
                                for k in ("static_selected", "recorded_selected")}
        out["functions_with_tests_only_recorded"] = sum(1 for r in rows if r["only_recorded"])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench record", description=__doc__)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--runs", type=at_least(1), default=3, help="suite runs of each kind (median)")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments")
    ap.add_argument("--sample", type=at_least(1), default=20, help="functions edited (seeded)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if not (args.repo / ".git").exists():
        print(f"impactlens: error: {args.repo} is not a git work tree", file=sys.stderr)
        return 2
    got = run(args.repo.resolve(), args.runs, shlex.split(args.pytest_args), args.sample)
    if not got["recording"].get("tests"):
        print(f"impactlens: error: no test ran under --impact-record in {args.repo} "
              "(does `pytest` run there?)", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(got, indent=2))
        return 0
    s, r = got["suite_s"], got["recording"]
    print(f"{got['repo']}: suite {s['plain']:.1f} s plain, {s['recorded']:.1f} s recorded "
          f"(×{s['ratio']:.2f}; functions only ×{s['functions_only_ratio']:.2f}; medians of "
          f"{got['runs']}); {r.get('tests')} tests, "
          f"{r.get('rows')} (test, function) pairs, index {r['index_mb']:.1f} MB")
    if "median" in got:
        m, a = got["median"], got["mean_selected"]
        print(f"{len(got['functions'])} function body edits: selected {a['static_selected']:.3f}"
              f" of the suite (static) vs {a['recorded_selected']:.3f} (recorded), means; "
              f"analyze {m['static_s'] * 1000:.0f} ms vs {m['recorded_s'] * 1000:.0f} ms, "
              f"medians; {got['functions_with_tests_only_recorded']} edits had tests that "
              "ran the function but no static path reaches")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
