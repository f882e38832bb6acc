"""`impactlens bench pdg-realcode REPO`: PDG vs call graph on a large real repository.

Not an accuracy score (a real repository has no curated truth): a latency and
quality-proxy probe over a deterministic sample of functions (seeded), each anchored at
an early-interior statement (the statement at ⌊M/3⌋ of its M statements):

* latency p50/p95 of ``Project.impact`` (call graph) vs ``Project.pdg_impact`` (which
  includes the call-graph reach it attaches), on a warm index;
* symbol-reach preservation: recall/precision of the PDG result's ``by_depth`` against the
  call graph's for the same target and direction;
* blast-radius localization: intra slice size / function size (statements), median;
* statement-precise callees: how often ``statement_precise_by_depth`` is strictly smaller
  than the call-graph reach, and whether it stays inside it;
* on-demand vs persisted PDG: per-function build-from-source cost vs loading a persisted
  dependence graph from SQLite (plus the cost and size of persisting every function) —
  the measurement behind building PDGs on demand.
"""

from __future__ import annotations

import argparse
import ast
import json
import pickle
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from impactlens.bench.metrics import fmt, percentile, ratio

DEFAULT_SAMPLE = 120
SEED = 20240101
MIN_STATEMENTS = 4


def _syms(by_depth: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {h["id"] for hs in by_depth.values() for h in hs}


def sample_functions(project: Any, n: int, seed: int, prefix: str) -> list[tuple[Any, int, int]]:
    """(node, anchor line, statement count) for a seeded sample of functions with bodies."""
    from impactlens.model import NodeKind
    from impactlens.pdg.source import SourceCache

    nodes = [x for x in project.store.all_nodes([NodeKind.FUNCTION, NodeKind.METHOD])
             if x.file.startswith(prefix) and not x.is_lambda]
    nodes.sort(key=lambda x: (x.id, x.file, x.start_line))
    rng = random.Random(seed)
    rng.shuffle(nodes)
    cache = SourceCache(project.root)
    out: list[tuple[Any, int, int]] = []
    seen: set[str] = set()
    for node in nodes:
        if node.id in seen:
            continue
        seen.add(node.id)
        pf = cache.file(node.file)
        if pf is None or pf.tree is None:
            continue
        fn = pf.function_span(node.start_line, node.end_line, node.qualname.rsplit(".", 1)[-1])
        if fn is None or pf.is_bodyless(fn):
            continue
        pdg = cache.pdg(node.file, fn)
        lines = sorted({s.line for s in pdg.cfg.statement_nodes() if s.kind != "params"})
        if len(lines) < MIN_STATEMENTS:
            continue
        out.append((node, lines[len(lines) // 3], len(lines)))
        if len(out) >= n:
            break
    return out


class _NoUnresolved:
    """Store view without the un-analyzable-site list: times the call-graph BFS alone."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def unresolved_sites(self) -> list[Any]:
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def probe(project: Any, sample: list[tuple[Any, int, int]], direction: str,
          shipped: int = 20) -> dict[str, Any]:
    """Per function: shipped ``Project.impact`` (call graph, incl. its un-analyzable-site
    scan), the call-graph BFS alone, the PDG's own work (slice + descent/ascent +
    statement-precise callees, given the call-graph result) and the shipped
    ``Project.pdg_impact`` = call graph + PDG work."""
    from impactlens.index import queries
    from impactlens.pdg.slicing import pdg_impact
    from impactlens.pdg.source import SourceCache

    cg_ms: list[float] = []
    bfs_ms: list[float] = []
    work_ms: list[float] = []
    pdg_ms: list[float] = []
    rows = []
    bare = _NoUnresolved(project.store)
    for node, _line, _ in sample[:5]:  # warm-up (index pages, imports) — not timed
        queries.impact(bare, node, direction, 3)  # type: ignore[arg-type]
    for i, (node, line, m) in enumerate(sample):
        t0 = time.perf_counter()
        if i < shipped:  # the shipped path is slow on big indexes: time a prefix only
            project.impact(node.id, direction=direction, depth=3)
        t1 = time.perf_counter()
        cg = queries.impact(bare, node, direction, 3)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        pdg = pdg_impact(project.store, SourceCache(project.root), node, node.file, line,
                         direction, 3, cg)
        t3 = time.perf_counter()
        if i < shipped:
            cg_ms.append((t1 - t0) * 1000)
            pdg_ms.append((t1 - t0 + t3 - t2) * 1000)
        bfs_ms.append((t2 - t1) * 1000)
        work_ms.append((t3 - t2) * 1000)
        cg_s, pdg_s = _syms(cg["by_depth"]), _syms(pdg["by_depth"])
        cg_all = set(cg_s)
        if direction == "upstream":  # callers that are tests are listed apart in `tests`
            cg_all |= {t["id"] for t in cg.get("tests", [])}
        # the statement-precise counterpart of the call-graph reach in this direction:
        # downstream = callees invoked from the slice; upstream = callers whose
        # arguments reach the criterion (parameter ascent)
        precise = (_syms(pdg["statement_precise_by_depth"]) if direction == "downstream"
                   else {a["id"] for a in pdg["return_ascent"]})
        rows.append({
            "id": node.id, "line": line, "statements": m, "reason": pdg["reason"],
            "slice": pdg["affected_statement_count"],
            "inter_statements": len(pdg["interprocedural_statements"]),
            "cg": len(cg_s), "precise": len(precise),
            "recall": ratio(len(cg_s & pdg_s), len(cg_s)),
            "precision": ratio(len(cg_s & pdg_s), len(pdg_s)),
            "precise_outside_cg": sorted(precise - cg_all),
            "cg_with_tests": len(cg_all),
            "truncated": pdg["truncated"],
        })
    ok = [r for r in rows if r["reason"] is None]
    with_slice = [r for r in ok if r["slice"] > 0]
    with_cg = [r for r in with_slice if r["cg_with_tests"] > 0]
    tighter = [r for r in with_cg if r["precise"] < r["cg_with_tests"]]
    recalls = [r["recall"] for r in rows if r["recall"] is not None]
    precisions = [r["precision"] for r in rows if r["precision"] is not None]
    loc = [r["slice"] / r["statements"] for r in ok]
    return {
        "direction": direction,
        "functions": len(rows),
        "degraded": sorted({r["reason"] for r in rows if r["reason"]}),
        "degraded_count": len(rows) - len(ok),
        "latency_ms": {
            "shipped_sample": min(shipped, len(sample)),
            "callgraph": {"p50": percentile(cg_ms, 0.5), "p95": percentile(cg_ms, 0.95)},
            "callgraph_bfs": {"p50": percentile(bfs_ms, 0.5), "p95": percentile(bfs_ms, 0.95)},
            "pdg_work": {"p50": percentile(work_ms, 0.5), "p95": percentile(work_ms, 0.95)},
            "pdg": {"p50": percentile(pdg_ms, 0.5), "p95": percentile(pdg_ms, 0.95)},
            "ratio_p50": ratio(percentile(pdg_ms, 0.5) or 0, percentile(cg_ms, 0.5) or 0),
            # the PDG mode built on the BFS alone vs the BFS alone (ill-conditioned when
            # the BFS is a single index lookup: most upstream targets have ≤ 1 caller)
            "ratio_p50_bfs": ratio((percentile(bfs_ms, 0.5) or 0) + (percentile(work_ms, 0.5) or 0),
                                   percentile(bfs_ms, 0.5) or 0),
        },
        "symbol_reach": {
            "mean_recall": statistics.fmean(recalls) if recalls else None,
            "min_recall": min(recalls) if recalls else None,
            "mean_precision": statistics.fmean(precisions) if precisions else None,
            "cases_with_reach": len(recalls),
        },
        "localization": {
            "median_slice_over_function": statistics.median(loc) if loc else None,
            "localized_below_whole_body": sum(1 for r in ok if r["slice"] < r["statements"]),
            "with_slice": len(with_slice),
            "empty_slice": len(ok) - len(with_slice),
        },
        "statement_precise": {
            "strictly_tighter": len(tighter),
            "with_slice_and_reach": len(with_cg),
            "median_precise": statistics.median([r["precise"] for r in with_cg])
            if with_cg else None,
            "median_callgraph": statistics.median([r["cg_with_tests"] for r in with_cg])
            if with_cg else None,
            "outside_callgraph": sum(1 for r in rows if r["precise_outside_cg"]),
        },
        "inter_statements_median": statistics.median([r["inter_statements"] for r in ok])
        if ok else None,
        "truncated": sum(1 for r in rows if r["truncated"]),
        "rows": rows,
    }


def storage_probe(project: Any, sample: list[tuple[Any, int, int]]) -> dict[str, Any]:
    """On-demand build vs loading a persisted per-function dependence graph."""
    from impactlens.pdg.graph import DOWNSTREAM, function_nodes
    from impactlens.pdg.source import SourceCache

    # persist every function of every file the sample touches, then the whole repo's cost
    files = sorted({n.file for n, _, _ in sample})
    db_path = Path(tempfile.mkdtemp(prefix="impactlens-pdgstore-")) / "pdg.db"
    conn = sqlite3.connect(str(db_path))
    conn.execute("CREATE TABLE pdg (file TEXT, line INTEGER, blob BLOB, "
                 "PRIMARY KEY (file, line))")
    cache = SourceCache(project.root)
    for f in files:
        pf = cache.file(f)
        if pf is None or pf.tree is None:
            continue
        for _, fn in pf.functions:
            pdg = cache.pdg(f, fn)
            conn.execute("INSERT OR REPLACE INTO pdg VALUES (?,?,?)",
                         (f, fn.lineno, pickle.dumps(_slim(pdg), pickle.HIGHEST_PROTOCOL)))
    conn.commit()
    on_demand: list[float] = []
    persisted: list[float] = []
    for node, line, _ in sample:
        t0 = time.perf_counter()
        c = SourceCache(project.root)  # the shipped on-demand path: segment parse
        pf = c.file(node.file)
        assert pf is not None
        fn = pf.function_span(node.start_line, node.end_line, node.qualname.rsplit(".", 1)[-1])
        assert fn is not None
        pdg = c.pdg(node.file, fn)
        seeds = {n.id for n in pdg.cfg.nodes_at_line(line)}
        pdg.slice_nodes(seeds, DOWNSTREAM)
        t1 = time.perf_counter()
        row = conn.execute("SELECT blob FROM pdg WHERE file=? AND line=?",
                           (node.file, fn.lineno)).fetchone()
        slim = pickle.loads(row[0])
        _slim_slice(slim, line)
        t2 = time.perf_counter()
        on_demand.append((t1 - t0) * 1000)
        persisted.append((t2 - t1) * 1000)
    conn.close()
    # whole-repository persisting cost: parse + build every function's PDG, serialize
    t0 = time.perf_counter()
    n_funcs = 0
    size = 0
    parse_s = 0.0
    for rec in project.store.files():
        if rec.status != "ok":
            continue
        p0 = time.perf_counter()
        try:
            tree = ast.parse((project.root / rec.path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        parse_s += time.perf_counter() - p0
        from impactlens.pdg.graph import FunctionPDG

        for _, fn in function_nodes(tree):
            size += len(pickle.dumps(_slim(FunctionPDG.build(fn)), pickle.HIGHEST_PROTOCOL))
            n_funcs += 1
    whole = time.perf_counter() - t0
    return {
        "on_demand_ms": {"p50": percentile(on_demand, 0.5), "p95": percentile(on_demand, 0.95)},
        "persisted_load_ms": {"p50": percentile(persisted, 0.5),
                              "p95": percentile(persisted, 0.95)},
        "persist_all": {"functions": n_funcs, "seconds": round(whole, 2),
                        "parse_seconds": round(parse_s, 2), "bytes": size},
    }


def _slim(pdg: Any) -> dict[str, Any]:
    nodes = [(n.line, n.end_line, n.kind) for n in pdg.cfg.nodes]
    return {"nodes": nodes, "cd_rev": [sorted(x) for x in pdg.cd_rev],
            "dd_rev": [sorted(x) for x in pdg.dd_rev]}


def _slim_slice(slim: dict[str, Any], line: int) -> set[int]:
    seeds = [i for i, (lo, hi, k) in enumerate(slim["nodes"])
             if k not in ("entry", "exit") and lo <= line <= hi]
    seen: set[int] = set()
    stack = list(seeds)
    while stack:
        v = stack.pop()
        for table in (slim["dd_rev"], slim["cd_rev"]):
            for w in table[v]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
    return seen


def render(rep: dict[str, Any]) -> str:
    lines = [f"impactlens bench pdg-realcode — {rep['repo']} ({rep['symbols']} symbols, "
             f"index {rep['index_seconds']:.1f}s), sample {rep['sample']} functions "
             f"(seed {rep['seed']}, anchor ⌊M/3⌋)"]
    for d in rep["directions"]:
        lat = d["latency_ms"]
        sr, lo, sp = d["symbol_reach"], d["localization"], d["statement_precise"]
        lines += [
            f"[{d['direction']}] {d['functions']} functions, degraded {d['degraded_count']} "
            f"{d['degraded'] or ''}, truncated {d['truncated']}",
            f"  latency ms   shipped (first {lat['shipped_sample']}): callgraph p50 "
            f"{fmt(lat['callgraph']['p50'], 1)} "
            f"p95 {fmt(lat['callgraph']['p95'], 1)} | pdg p50 {fmt(lat['pdg']['p50'], 1)} "
            f"p95 {fmt(lat['pdg']['p95'], 1)} | pdg/callgraph p50 {fmt(lat['ratio_p50'], 2)}×",
            f"  latency ms   call-graph BFS alone p50 {fmt(lat['callgraph_bfs']['p50'], 1)} "
            f"p95 {fmt(lat['callgraph_bfs']['p95'], 1)} | PDG work p50 "
            f"{fmt(lat['pdg_work']['p50'], 1)} p95 {fmt(lat['pdg_work']['p95'], 1)} | "
            f"(BFS + PDG work)/BFS p50 {fmt(lat['ratio_p50_bfs'], 2)}×",
            f"  symbol reach recall mean {fmt(sr['mean_recall'])} min {fmt(sr['min_recall'])} "
            f"precision mean {fmt(sr['mean_precision'])} over {sr['cases_with_reach']} targets",
            f"  localization median slice/function {fmt(lo['median_slice_over_function'])}; "
            f"{lo['localized_below_whole_body']}/{d['functions'] - d['degraded_count']} below "
            f"the whole body; {lo['empty_slice']} empty slices",
            f"  statement-precise {'callees' if d['direction'] == 'downstream' else 'callers'}"
            f" strictly tighter on {sp['strictly_tighter']}/"
            f"{sp['with_slice_and_reach']} with-slice functions (median "
            f"{sp['median_precise']} vs call graph {sp['median_callgraph']}); outside the "
            f"call-graph reach: {sp['outside_callgraph']}",
        ]
    st = rep.get("storage")
    if st:
        lines.append(
            f"on-demand vs persisted: build+slice p50 {fmt(st['on_demand_ms']['p50'], 2)} ms "
            f"(p95 {fmt(st['on_demand_ms']['p95'], 2)}) vs load+slice p50 "
            f"{fmt(st['persisted_load_ms']['p50'], 2)} ms (p95 "
            f"{fmt(st['persisted_load_ms']['p95'], 2)}); persisting all "
            f"{st['persist_all']['functions']} functions takes "
            f"{st['persist_all']['seconds']} s and {st['persist_all']['bytes'] / 1e6:.1f} MB")
    for g in rep.get("gates", []):
        lines.append(f"[{'PASS' if g['passed'] else 'FAIL'}] {g['name']}: {g['detail']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench pdg-realcode")
    ap.add_argument("repo", type=Path)
    ap.add_argument("--sample", type=int, default=DEFAULT_SAMPLE)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--prefix", default="", help="only functions in files under this path")
    ap.add_argument("--direction", choices=["downstream", "upstream", "both"],
                    default="both")
    ap.add_argument("--no-storage", action="store_true", help="skip on-demand vs persisted")
    ap.add_argument("--shipped", type=int, default=20,
                    help="time the shipped Project.impact/pdg_impact on the first N only")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="fail if PDG p50 > 2× call-graph p50 or symbol recall < 1.0")
    args = ap.parse_args(argv)
    from impactlens.api import Project

    if not args.repo.is_dir():
        print(f"impactlens: error: {args.repo}: not a directory", file=sys.stderr)
        return 2
    project = Project(args.repo)
    t0 = time.perf_counter()
    project.refresh()
    index_s = time.perf_counter() - t0
    sample = sample_functions(project, args.sample, args.seed, args.prefix)
    dirs = ["downstream", "upstream"] if args.direction == "both" else [args.direction]
    rep: dict[str, Any] = {
        "repo": str(args.repo), "symbols": project.store.counts()["symbols"],
        "index_seconds": index_s, "sample": len(sample), "seed": args.seed,
        "directions": [probe(project, sample, d, args.shipped) for d in dirs],
    }
    if not args.no_storage:
        rep["storage"] = storage_probe(project, sample)
    status = 0
    if args.check:
        gates = []
        for d in rep["directions"]:
            # the BFS-only ratio is gated downstream; upstream the BFS p50 is a single
            # index lookup (sub-millisecond) and the ratio is reported, not gated
            keys = [("ratio_p50", "shipped")]
            if d["direction"] == "downstream":
                keys.append(("ratio_p50_bfs", "BFS-only"))
            for key, what in keys:
                r = d["latency_ms"][key]
                gates.append({"name": f"{d['direction']} PDG p50 ≤ 2× call graph p50 ({what})",
                              "passed": r is not None and r <= 2.0, "detail": f"{fmt(r, 2)}×"})
            rec = d["symbol_reach"]["min_recall"]
            gates.append({"name": f"{d['direction']} symbol reach preserved",
                          "passed": rec is None or rec >= 1.0, "detail": f"min {fmt(rec)}"})
        rep["gates"] = gates
        status = 0 if all(g["passed"] for g in gates) else 1
    if args.json:
        print(json.dumps(rep, indent=2, sort_keys=True))
    else:
        print(render(rep))
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
