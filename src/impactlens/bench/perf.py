"""Speed on a large real repository: `impactlens bench perf REPO [--gitnexus DIR] [--json]`.

Measures, on a git work tree (e.g. Django 5.1.4's source distribution, git-initialised):
files, lines, symbols, edges; cold index wall and CPU time and peak PSS summed over the
process tree (medians of --runs, each in a fresh child process; bench/proctree.py) and the
index's size on disk; incremental re-index after editing one file (a function appended
to a mid-sized file, and a body-only edit of the module the most files consulted), wall
and CPU; the freshness check queries make; `impact` latency p50/p95 over 100 random
symbols (seeded) that have dependents, and the share of random symbols that have none;
the whole-process CLI (`--version`, `impact`); `analyze` latency for a one-function
signature change; receiver typing (callers attributed to one method, unresolved receiver
sites).
With ``--gitnexus`` (a directory holding ``node_modules/.bin/gitnexus``) the peer's
``analyze --index-only`` runs on a copy of the same tree for the ratio. The repository's
files are restored after every edit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.history_cost import history_mining, print_history
from impactlens.bench.proctree import measure

_CHILD_INDEX = """
import json, sys, time
from impactlens.api import Project
t = time.perf_counter()
s = Project(sys.argv[1]).index(full=True)
print(json.dumps({"seconds": time.perf_counter() - t, "files": s.files,
                  "symbols": s.symbols, "edges": s.edges, "unresolved": s.unresolved,
                  "parse_failures": s.parse_failures}))
"""


def _cpu() -> float:
    """CPU seconds of this process and of the children it has reaped (index workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


_CPU: dict[str, list[float]] = {}  # file name → CPU seconds of its last timed re-index runs


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def _count_lines(root: Path, files: list[str]) -> int:
    total = 0
    for f in files:
        try:
            with open(root / f, "rb") as fh:
                total += fh.read().count(b"\n")
        except OSError:
            pass
    return total


def index_size_mb(root: Path) -> float:
    """The index on disk: the database and its write-ahead log, if any."""
    db = root / ".impactlens" / "index.db"
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal"))
               if p.exists()) / 1e6


def cold_index(root: Path, runs: int) -> dict[str, Any]:
    """From-scratch index, each run in a fresh process: wall and CPU seconds and peak PSS
    summed over the process tree (workers included, bench/proctree.py), medians; and the
    index's size on disk."""
    results = []
    for _ in range(runs):
        shutil.rmtree(root / ".impactlens", ignore_errors=True)
        got = measure([sys.executable, "-c", _CHILD_INDEX, str(root)])
        if got["rc"] != 0:
            raise RuntimeError(f"cold index failed: {got['output'][-500:]}")
        inner = json.loads(got["output"].strip().splitlines()[-1])
        results.append({**inner, "wall_s": got["wall_s"], "cpu_s": got["cpu_s"],
                        "peak_pss_mb": got["peak_pss_mb"]})
    last = results[-1]
    return {**last, "seconds_runs": [round(r["wall_s"], 2) for r in results],
            "cpu_runs": [round(r["cpu_s"], 2) for r in results],
            "seconds": statistics.median(r["wall_s"] for r in results),
            "cpu_seconds": statistics.median(r["cpu_s"] for r in results),
            "peak_pss_mb": statistics.median(r["peak_pss_mb"] for r in results),
            "index_mb": index_size_mb(root)}


_TS_SKIP = {".impactlens", "node_modules", "dist", "build"}


def _pick_edit_target(root: Path) -> Path:
    """A mid-sized Python file; in a repository without one, a TypeScript file."""
    for pattern in ("*.py", "*.ts"):
        cands = sorted(root.rglob(pattern), key=lambda p: str(p))
        cands = [p for p in cands if not _TS_SKIP & set(p.parts) and not p.name.endswith(".d.ts")
                 and 2_000 < p.stat().st_size < 40_000]
        if cands:
            return cands[len(cands) // 2]
    raise ValueError(f"{root}: no Python or TypeScript file of 2-40 kB to edit")


def appended(target: Path, text: str, i: int) -> str:
    """``text`` with a new function appended, in the file's language."""
    if target.suffix == ".py":
        return text + f"\n\ndef _bench_added_{i}():\n    return {i}\n"
    return text + f"\nexport function benchAdded{i}(): number {{\n    return {i};\n}}\n"


def incremental(root: Path, runs: int, target: Path | None = None) -> dict[str, Any]:
    target = target or _pick_edit_target(root)
    original = target.read_text()
    times = _timed_reindex(root, target, runs, lambda i: appended(target, original, i))
    return {"file": str(target.relative_to(root)), "seconds_p50": statistics.median(times),
            "seconds_runs": [round(t, 3) for t in times],
            "cpu_seconds_p50": statistics.median(_CPU[target.name])}


def _timed_reindex(root: Path, target: Path, runs: int, edit: Callable[[int], str]
                   ) -> list[float]:
    """Wall seconds of each incremental index after writing ``edit(i)`` into ``target``
    (one file re-parsed each time; the CPU seconds go to ``_CPU``); the file and the index
    are restored afterwards."""
    from impactlens.api import Project

    original = target.read_bytes()
    times: list[float] = []
    cpus: list[float] = []
    try:
        for i in range(runs):
            target.write_text(edit(i))
            t, cpu = time.perf_counter(), time.process_time()
            s = Project(root).index()
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() - cpu)
            assert s.parsed == 1, s
    finally:
        target.write_bytes(original)
        Project(root).index()
    _CPU[target.name] = cpus  # CPU seconds of the same runs (the steadier figure under load)
    return times


def _pick_hub(root: Path) -> tuple[Path, int]:
    """The non-test module most other files' resolution consulted (ties by path), and
    how many consulted it."""
    from impactlens.api import Project

    store = Project(root).store
    best: tuple[int, str] = (-1, "")
    for rec in store.files():
        if rec.is_test or rec.status != "ok" or rec.path.endswith("__init__.py"):
            continue
        if _body_edit((root / rec.path).read_text(), 0) is None:
            continue
        n = len(store.dependents_of_modules({rec.module, "/" + rec.path}) - {rec.path})
        if n > best[0] or (n == best[0] and rec.path < best[1]):
            best = (n, rec.path)
    return root / best[1], best[0]


def _body_edit(text: str, i: int) -> str | None:
    """``text`` with one statement added at the top of the first top-level function's body
    (a body-only edit that shifts every line below it), or None if there is no such
    function with a one-line signature."""
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines[:-1]):
        if line.startswith("def ") and line.rstrip().endswith(":"):
            body = lines[n + 1]
            if not body.strip() or not body[0].isspace():
                continue
            return insert_statement(text, n + 2, f"_bench_local = {i}")
    return None


def insert_statement(text: str, line: int, statement: str) -> str:
    """``text`` with ``statement`` inserted before line ``line`` (1-based), indented as it."""
    lines = text.splitlines(keepends=True)
    at = lines[line - 1]
    indent = at[: len(at) - len(at.lstrip())]
    return "".join([*lines[: line - 1], f"{indent}{statement}\n", *lines[line - 1:]])


def _def_inserted(text: str, i: int) -> str:
    """``text`` with a new function inserted above its first top-level def or class (every
    definition below it is renumbered in the facts)."""
    lines = text.splitlines(keepends=True)
    at = next((n for n, line in enumerate(lines) if line.startswith(("def ", "class ", "@"))),
              len(lines))
    lines.insert(at, f"def _bench_inserted_{i}():\n    return {i}\n\n\n")
    return "".join(lines)


def incremental_hub(root: Path, runs: int) -> dict[str, Any]:
    """Re-index after a body-only edit of the module most others depend on, and after a
    new function inserted above its definitions."""

    target, dependents = _pick_hub(root)
    if dependents < 0:
        return {"skipped": "no Python module to edit"}
    original = target.read_text()
    times = _timed_reindex(root, target, runs, lambda i: _body_edit(original, i) or original)
    cpu = _CPU[target.name]
    inserts = _timed_reindex(root, target, runs, lambda i: _def_inserted(original, i))
    return {"file": str(target.relative_to(root)), "dependents": dependents,
            "seconds_p50": statistics.median(times), "cpu_p50": statistics.median(cpu),
            "seconds_runs": [round(t, 3) for t in times],
            "insert_seconds_p50": statistics.median(inserts),
            "insert_seconds_runs": [round(t, 3) for t in inserts]}


def freshness(root: Path, runs: int) -> dict[str, Any]:
    """The freshness check every query and `analyze` makes (nothing changed on disk)."""
    from impactlens.index.indexer import Indexer
    from impactlens.settings import DEFAULT

    ix = Indexer(root, DEFAULT)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        stale = ix.is_stale()
        times.append(time.perf_counter() - t)
        assert not stale
    return {"seconds_p50": statistics.median(times)}


def impact_latency(root: Path, n: int, seed: int) -> dict[str, Any]:
    """``impact`` (depth 3) over random symbols: the share of a sample of ``n`` that have
    no dependent at all, and the latency over ``n`` symbols that have one (drawn until
    there are ``n``) — a median over empty answers would measure nothing."""
    from impactlens.api import Project
    from impactlens.model import NodeKind

    p = Project(root)
    nodes = p.store.all_nodes([NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS])
    order = random.Random(seed).sample(nodes, len(nodes))
    times, cpu, sizes, empty = [], [], [], 0
    for k, node in enumerate(order):
        if k >= n and len(times) >= n:
            break
        t, c = time.perf_counter(), time.process_time()
        r = p.impact(node.id, depth=3)
        wall, used = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
        reach = sum(len(v) for v in r["by_depth"].values()) + len(r.get("tests", []))
        if reach == 0:
            empty += k < n
        elif len(times) < n:
            times.append(wall)
            cpu.append(used)
            sizes.append(float(reach))
    return {"n": len(times), "sampled": min(n, len(order)),
            "share_without_dependents": empty / max(1, min(n, len(order))),
            "ms_p50": _pct(times, 0.5), "ms_p95": _pct(times, 0.95),
            "cpu_ms_p50": _pct(cpu, 0.5), "reach_p50": _pct(sizes, 0.5)}


_CLI_RUNS = 9


def startup(root: Path, symbol: str) -> dict[str, Any]:
    """Whole-process cost of one CLI call (what an agent or a hook pays per question):
    ``impactlens --version`` and ``impactlens impact SYMBOL`` on the indexed repository,
    median wall and CPU of :data:`_CLI_RUNS` runs each."""
    out: dict[str, Any] = {"symbol": symbol}
    for name, args in (("version", ["--version"]), ("impact", ["impact", symbol])):
        runs = [measure([sys.executable, "-m", "impactlens", *args], cwd=root)
                for _ in range(_CLI_RUNS)]
        out[name] = {"wall_s": statistics.median(r["wall_s"] for r in runs),
                     "cpu_s": statistics.median(r["cpu_s"] for r in runs)}
    return out


def receiver_typing(root: Path, method: str) -> dict[str, Any]:
    from impactlens.api import Project
    from impactlens.model import EdgeKind, UnresolvedReason

    p = Project(root)
    callers = p.store.in_edges(method, frozenset({EdgeKind.CALL}))
    unresolved = p.store.unresolved_sites()
    unknown_recv = [u for u in unresolved if u.reason == UnresolvedReason.UNKNOWN_RECEIVER]
    named = [u for u in unknown_recv if u.text.endswith(".filter") or ".filter(" in u.text]
    calls = len(p.store.all_edges(frozenset({EdgeKind.CALL})))
    return {"method": method, "call_sites_attributed": len(callers),
            "distinct_callers": len({e.src for e in callers}),
            "unknown_receiver_sites": len(unknown_recv),
            "unknown_receiver_filter_sites": len(named), "resolved_call_edges": calls}


def analyze_latency(root: Path, runs: int, seed: int) -> dict[str, Any]:
    """A one-function signature change (a new required parameter), analysed warm."""
    from impactlens.api import Project
    from impactlens.model import NodeKind

    p = Project(root)
    funcs = [n for n in p.store.all_nodes([NodeKind.FUNCTION])
             if n.signature.startswith("def ") and "(" in n.signature and not n.decorators]
    rng = random.Random(seed)
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(runs if funcs else 0):
        node = rng.choice(funcs)
        text = (root / node.file).read_text()
        lines = text.splitlines(keepends=True)
        idx = node.start_line - 1
        if "(" not in lines[idx] or "()" in lines[idx]:
            continue
        lines[idx] = lines[idx].replace("(", "(bench_new_arg, ", 1)
        after = "".join(lines)
        t, c = time.perf_counter(), _cpu()
        p.analyze_before_after(node.file, text, after)
        times.append(time.perf_counter() - t)
        cpu.append(_cpu() - c)
    return {"runs": len(times), "seconds_p50": statistics.median(times) if times else None,
            "seconds_p95": _pct(times, 0.95) if times else None,
            "cpu_p50": statistics.median(cpu) if cpu else None}


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Wall and CPU time, exit code and peak PSS of ``cmd``, summed over its process tree
    like ours (bench/proctree.py)."""
    got = measure(cmd, cwd=cwd, env=env)
    return {"seconds": got["wall_s"], "cpu_s": got["cpu_s"], "rc": got["rc"],
            "peak_pss_mb": got["peak_pss_mb"],
            "tail": got["output"][-300:] if got["rc"] else ""}


def gitnexus(root: Path, gn_dir: Path, edit: Path | None = None) -> dict[str, Any]:
    exe = gn_dir / "node_modules" / ".bin" / "gitnexus"
    if not exe.exists():
        return {"skipped": f"{exe} not found"}
    env = {**os.environ, "GITNEXUS_LBUG_EXTENSION_INSTALL": "never",
           "GITNEXUS_HOME": tempfile.mkdtemp(prefix="gnhome-")}
    cmd = [str(exe), "analyze", "--index-only"]
    with tempfile.TemporaryDirectory(prefix="gn-bench-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".impactlens"), symlinks=True)
        cold = _timed(cmd, copy, env)
        target = copy / edit.relative_to(root) if edit is not None else _pick_edit_target(copy)
        target.write_text(appended(target, target.read_text(), 0))
        inc = _timed(cmd, copy, env)
    return {"cold_seconds": cold["seconds"], "cold_cpu_s": cold["cpu_s"], "cold_rc": cold["rc"],
            "peak_pss_mb": cold["peak_pss_mb"], "incremental_seconds": inc["seconds"],
            "incremental_cpu_s": inc["cpu_s"],
            "incremental_rc": inc["rc"], "stderr_tail": cold["tail"]}


def run(root: Path, *, runs: int, gitnexus_dir: Path | None, method: str,
        seed: int = 7, edit: Path | None = None, scale: bool = False) -> dict[str, Any]:
    """Every measure; with ``scale`` only those the scale figures fit (cold index, disk,
    one-file re-index, impact latency), which a generated monorepo makes slow to repeat."""
    from impactlens.index.discover import list_source_files

    files = list_source_files(root)
    report: dict[str, Any] = {"repo": str(root), "files": len(files),
                              "lines": _count_lines(root, files)}
    report["cold_index"] = cold_index(root, runs)
    if scale:
        report["incremental"] = incremental(root, 5, edit)
        report["impact"] = impact_latency(root, 100, seed)
        return report
    report["history"] = history_mining(root, runs)
    report["incremental"] = incremental(root, max(5, runs), edit)
    report["incremental_hub"] = incremental_hub(root, max(5, runs))
    report["is_stale"] = freshness(root, 11)
    report["impact"] = impact_latency(root, 100, seed)
    report["startup"] = startup(root, method)
    report["receiver_typing"] = receiver_typing(root, method)
    try:
        report["analyze"] = analyze_latency(root, 20, seed)
    except AttributeError as exc:  # stage not wired yet
        report["analyze"] = {"skipped": str(exc)}
    if gitnexus_dir is not None:
        report["gitnexus"] = gitnexus(root, gitnexus_dir, edit)
    return report


def _print(r: dict[str, Any]) -> None:
    c, i, m = r["cold_index"], r["incremental"], r["impact"]
    print(f"repo {r['repo']}: {r['files']} files, {r['lines']} lines, {c['symbols']} symbols, "
          f"{c['edges']} edges, {c['unresolved']} unresolved sites")
    print(f"cold index   median {c['seconds']:.2f}s wall, {c['cpu_seconds']:.2f}s CPU (runs "
          f"{c['seconds_runs']}, CPU {c['cpu_runs']}), peak PSS {c['peak_pss_mb']:.0f} MB "
          f"summed over the process tree; index {c['index_mb']:.0f} MB on disk")
    if "history" in r:
        print_history(r["history"])
    print(f"incremental  p50 {i['seconds_p50'] * 1000:.0f} ms ({i['cpu_seconds_p50'] * 1000:.0f}"
          f" ms CPU) after editing {i['file']}")
    h = r.get("incremental_hub", {"skipped": "not measured (--scale)"})
    if "skipped" not in h:
        print(f"incremental  p50 {h['seconds_p50'] * 1000:.0f} ms after a body-only edit of "
              f"{h['file']} ({h['dependents']} files consulted it); p50 "
              f"{h['insert_seconds_p50'] * 1000:.0f} ms after a def inserted above its others")
    else:
        print(f"incremental  hub edit skipped: {h['skipped']}")
    if "is_stale" in r:
        print(f"freshness    p50 {r['is_stale']['seconds_p50'] * 1000:.0f} ms (is_stale, "
              "nothing changed)")
    print(f"impact       p50 {m['ms_p50']:.1f} ms ({m['cpu_ms_p50']:.1f} ms CPU), p95 "
          f"{m['ms_p95']:.1f} ms over {m['n']} symbols with dependents (reach p50 "
          f"{m['reach_p50']:.0f}); {m['share_without_dependents']:.0%} of {m['sampled']} "
          f"random symbols have none")
    st = r.get("startup")
    if st:
        print(f"whole CLI    --version {st['version']['wall_s'] * 1000:.0f} ms wall, "
              f"{st['version']['cpu_s'] * 1000:.0f} ms CPU; impact {st['symbol']} "
              f"{st['impact']['wall_s'] * 1000:.0f} ms wall, "
              f"{st['impact']['cpu_s'] * 1000:.0f} ms CPU (medians of {_CLI_RUNS})")
    a = r.get("analyze", {})
    if a.get("seconds_p50") is not None:
        print(f"analyze      p50 {a['seconds_p50'] * 1000:.0f} ms wall, "
              f"{a['cpu_p50'] * 1000:.0f} ms CPU, p95 {a['seconds_p95'] * 1000:.0f} ms "
              "(one-function signature change)")
    rt = r.get("receiver_typing")
    if rt:
        _print_receivers(rt)
    _print_gitnexus(r.get("gitnexus"), c)


def _print_receivers(rt: dict[str, Any]) -> None:
    print(f"receivers    {rt['method']}: {rt['call_sites_attributed']} call sites from "
          f"{rt['distinct_callers']} callers; {rt['unknown_receiver_sites']} attribute calls "
          f"left unresolved (unknown receiver), {rt['resolved_call_edges']} call edges resolved")


def _print_gitnexus(g: dict[str, Any] | None, c: dict[str, Any]) -> None:
    if g and "skipped" not in g:
        ratio = g["cold_seconds"] / c["seconds"]
        print(f"gitnexus     cold {g['cold_seconds']:.1f}s wall, {g['cold_cpu_s']:.1f}s CPU "
              f"(rc {g['cold_rc']}), peak PSS {g['peak_pss_mb']:.0f} MB; incremental "
              f"{g['incremental_seconds']:.1f}s; ratio cold {ratio:.1f}× wall, "
              f"{g['cold_cpu_s'] / c['cpu_seconds']:.1f}× CPU")
    elif g:
        print(f"gitnexus     skipped: {g['skipped']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench perf", description=__doc__)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--runs", type=at_least(1), default=3,
                    help="cold-index runs (median reported)")
    ap.add_argument("--gitnexus", type=Path, default=None, metavar="DIR")
    ap.add_argument("--method", default="django.db.models.query.QuerySet.filter")
    ap.add_argument("--edit", type=Path, default=None, metavar="FILE",
                    help="the file the one-file re-index appends a function to (relative "
                         "to REPO; default: a mid-sized file picked by path)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--scale", action="store_true",
                    help="only cold index, disk, one-file re-index and impact latency (for a "
                         "generated monorepo: `impactlens-bench monorepo`)")
    ap.add_argument("--history-only", action="store_true",
                    help="only the history mining figure (any git repository, bare too)")
    ap.add_argument("--history-horizon", type=at_least(0), default=None, metavar="N",
                    help="commits mined for the history figure (default: the setting's; 0 = "
                         "all)")
    args = ap.parse_args(argv)
    if args.history_only:
        h = history_mining(args.repo.resolve(), args.runs, args.history_horizon)
        if args.json:
            print(json.dumps(h, indent=2))
        else:
            print_history(h)
        return 0
    if not (args.repo / ".git").exists():
        print(f"impactlens: error: {args.repo}: not a git work tree (git init it first)",
              file=sys.stderr)
        return 2
    repo = args.repo.resolve()
    report = run(repo, runs=args.runs, gitnexus_dir=args.gitnexus, method=args.method,
                 edit=repo / args.edit if args.edit is not None else None, scale=args.scale)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    return 0
