"""`impactlens bench pdg`: statement-level PDG vs call-graph accuracy on a hand-annotated corpus.

Corpus: ``bench/impact-pdg/<case>/`` — a small package plus ``ground-truth.json`` (the
peer's schema: criterion {name, filePath, direction, line, marker, pdgEdgeKinds},
intra_AIS, inter_AIS, locus, provenance, analyzerVersion, rationale), written from source
semantics before the tool ran. Per case the harness copies the package to a temp dir,
indexes it, and asks both engines:

* call-graph → ``Project.impact(name, direction, depth=3)``: symbols (``by_depth``), scored
  at symbol granularity against ``inter_AIS``;
* PDG → ``Project.pdg_impact(name, line, direction, depth=3)``: ``affected_statements``
  inside the criterion's own function, scored at line granularity against ``intra_AIS``.

Each engine is scored in its case's locus stratum at its native granularity; the unified
axes table scores ``statement:`` and ``symbol:`` keys separately for the rows callgraph,
pdg (statements + call-graph reach ``by_depth``), pdg-precise (statements +
``statement_precise_by_depth``) and composed-current (standalone call graph ∪ PDG
statements). Empty denominators are ``n/a`` and excluded from means.

Step 0 (after annotation, never deriving it): the criterion must produce ≥ 1 dependence
edge and no other function may start on its line; failures are excluded and logged.

``--check`` gates against ``bench/impact-pdg/baselines.json``: one-sided F1 bands (median
of ``IMPACTLENS_PDG_K`` runs), the order-independent annotation fingerprint, the
id-precision gate and the explicit-degradation gate. ``--mutation`` adds the dynamic
value-diff oracle (:mod:`impactlens.bench.mutation`); ``--mutation-strict`` fails on
novel recall holes. ``--peer`` adds GitNexus (npm ``gitnexus``) on the same fixtures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.bench.metrics import Score, fmt, mean, ratio, score_sets

STRATA = ("intra", "inter", "mixed")
MODES = ("callgraph", "pdg")
UNIFIED_ROWS = ("callgraph", "pdg", "pdg-precise", "composed-current")
AXES = ("statement", "symbol")
FLOOR_PER_STRATUM = 3
FLOOR_TOTAL = 12
DEPTH = 3
UNDERPOWERED = "underpowered — directional only"


def default_corpus() -> Path:
    return Path(__file__).resolve().parents[3] / "bench" / "impact-pdg"


# ------------------------------------------------------------------- corpus
@dataclass
class Case:
    name: str
    dir: Path
    gt: dict[str, Any]
    external: bool = False  # another project's corpus: nothing is written next to it

    @property
    def criterion(self) -> dict[str, Any]:
        return self.gt["criterion"]

    @property
    def excluded(self) -> bool:
        return self.gt.get("pdgScoring") == "exclude"

    @property
    def locus(self) -> str:
        return str(self.gt["locus"])

    def intra_ais(self) -> set[str]:
        return {f"{a['filePath']}:{a['line']}" for a in self.gt["intra_AIS"]}

    def inter_ais(self) -> set[str]:
        return {f"{a['symbol']}@{a['filePath']}" for a in self.gt["inter_AIS"]}


def load_corpus(root: Path, only: set[str] | None = None) -> list[Case]:
    """Our corpus, or the GitNexus one read in place (see :mod:`pdg_corpus`)."""
    from impactlens.bench.pdg_corpus import read_cases

    cases, peer = read_cases(root, only)
    return [Case(name, d, gt, external=peer) for name, d, gt in cases]


def canonical_gt(case: Case) -> dict[str, Any]:
    c = case.gt["criterion"]
    return {
        "case": case.name,
        "criterion": {
            "name": c["name"], "filePath": c["filePath"], "direction": c["direction"],
            "line": c.get("line"), "marker": c.get("marker"),
            "pdgEdgeKinds": sorted(c.get("pdgEdgeKinds") or []),
        },
        "intra_AIS": sorted([a["symbol"], a["filePath"], a["line"]]
                            for a in case.gt["intra_AIS"]),
        "inter_AIS": sorted([a["symbol"], a["filePath"]] for a in case.gt["inter_AIS"]),
        "locus": case.gt["locus"],
        "pdgScoring": case.gt.get("pdgScoring"),
        "gate": case.gt.get("gate"),
    }


def fingerprint(cases: list[Case]) -> str:
    """sha256 over the sorted canonical ground truth (prose and entry order excluded)."""
    canon = sorted((canonical_gt(c) for c in cases), key=lambda d: d["case"])
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


# ------------------------------------------------------------------ running
@dataclass
class CaseRun:
    case: Case
    status: str = "ok"  # ok | excluded: <why> | error: <why>
    warnings: list[str] = field(default_factory=list)
    pdg_lines: set[str] = field(default_factory=set)
    pdg_all_lines: set[str] = field(default_factory=set)  # intra + inter-procedural
    cg_symbols: set[str] = field(default_factory=set)
    pdg_symbols: set[str] = field(default_factory=set)
    precise_symbols: set[str] = field(default_factory=set)
    pdg_result: dict[str, Any] = field(default_factory=dict)
    gate: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    span: tuple[int, int] = (0, 0)


#: the annotated symbol universe: callables (a class stands for its constructor call).
#: Fields, constants and modules the call graph also reaches are outside it and are not
#: scored for any row (documented in bench/impact-pdg/README.md).
SYMBOL_KINDS = frozenset({"function", "method", "class"})


def _sym_keys(by_depth: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {f"{h['id']}@{h['file']}" for hops in by_depth.values() for h in hops
            if h.get("kind", "function") in SYMBOL_KINDS}


def _copy_case(case: Case, dest: Path) -> None:
    shutil.copytree(case.dir, dest, ignore=shutil.ignore_patterns(
        "ground-truth.json", "mutation-ground-truth.json", ".impactlens", "__pycache__"))


def run_case(case: Case, work: Path) -> CaseRun:
    from impactlens.api import Project
    from impactlens.errors import ImpactlensError
    from impactlens.model import NodeKind

    run = CaseRun(case)
    t0 = time.perf_counter()
    root = work / case.name
    _copy_case(case, root)
    c = case.criterion
    try:
        with Project(root) as project:
            project.index()
            target = project.resolve_symbol(c["name"])
            run.span = (target.start_line, target.end_line)
            line = c.get("line") or target.start_line
            pdg = project.pdg_impact(target.id, line, c["direction"], DEPTH)
            run.pdg_result = pdg
            if case.excluded:
                run.status = "excluded: pdgScoring=exclude"
                run.gate = {"reason": pdg.get("reason"), "empty_success": not pdg.get("reason")}
                if case.gt.get("gate") == "id-precision" and not pdg.get("reason"):
                    run.gate.update(_id_precision(project, target, pdg, case))
                return run
            # --- Step 0: measurable substrate (never derives ground truth)
            edges = pdg.get("pdg_edges") or {}
            if sum(edges.values()) < 1:
                run.status = "excluded: criterion has no dependence edge"
                return run
            same_line = [n.id for n in project.store.nodes_in_file(target.file)
                         if n.id != target.id and n.start_line == target.start_line
                         and n.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and not n.is_lambda]
            if same_line:
                run.status = f"excluded: shares its start line with {', '.join(same_line)}"
                return run
            declared = set(c.get("pdgEdgeKinds") or [])
            nonzero = {k for k, v in edges.items() if v}
            if declared != nonzero:
                run.warnings.append(f"declared pdgEdgeKinds {sorted(declared)} but the "
                                    f"criterion produces {sorted(nonzero)}")
            if pdg.get("reason"):
                run.status = f"excluded: pdg degraded ({pdg['reason']}: {pdg['message']})"
                return run
            lo, hi = run.span
            run.pdg_lines = {f"{s['file']}:{s['line']}" for s in pdg["affected_statements"]
                             if s["file"] == target.file and lo <= s["line"] <= hi}
            run.pdg_all_lines = run.pdg_lines | {
                f"{s['file']}:{s['line']}" for s in pdg["interprocedural_statements"]}
            run.pdg_symbols = _sym_keys(pdg["by_depth"])
            run.precise_symbols = _sym_keys(pdg["statement_precise_by_depth"])
            cg = project.impact(target.id, direction=c["direction"], depth=DEPTH)
            run.cg_symbols = _sym_keys(cg["by_depth"])
            if case.gt.get("gate") == "id-precision":
                run.gate = _id_precision(project, target, pdg, case)
    except ImpactlensError as exc:
        run.status = f"error: {exc}"
    finally:
        run.seconds = time.perf_counter() - t0
    return run


def _id_precision(project: Any, target: Any, pdg: dict[str, Any], case: Case) -> dict[str, Any]:
    """Ids proven by resolved call edges vs what a leaf-name match would attribute."""
    from impactlens.model import EdgeKind, NodeKind

    lines = {s["line"] for s in pdg["affected_statements"]} | {
        s["line"] for s in pdg["criterion"]["statements"]}
    ids = {r["id"] for r in pdg["statement_precise_callees"]}
    leaves = {e.dst.rsplit(".", 1)[-1] for e in project.store.out_edges(
        target.id, frozenset({EdgeKind.CALL})) if e.line in lines}
    by_name = {n.id for leaf in leaves for n in project.store.nodes_named(leaf)
               if n.kind in (NodeKind.FUNCTION, NodeKind.METHOD)}
    expected = set(case.gt.get("idPrecisionExpected")
                   or [a["symbol"] for a in case.gt["inter_AIS"]])
    return {"id_match": sorted(ids), "name_match": sorted(by_name), "expected": sorted(expected),
            "passed": ids == expected, "name_match_false_positives": sorted(by_name - expected)}


def run_corpus(cases: list[Case]) -> list[CaseRun]:
    work = Path(tempfile.mkdtemp(prefix="impactlens-bench-pdg-"))
    try:
        return [run_case(c, work) for c in cases]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------------ scoring
def case_f1(s: Score) -> float | None:
    """F1 of one case; 0.0 when either side is 0 even if the other is n/a — an empty
    answer to a non-empty truth (P n/a, R 0) must count as a miss, not drop out."""
    if s.recall == 0 or s.precision == 0:
        return 0.0
    return s.f1


def _cell(scores: list[Score]) -> dict[str, Any]:
    return {
        "precision": mean(s.precision for s in scores),
        "recall": mean(s.recall for s in scores),
        "f1": mean(case_f1(s) for s in scores),
        "size_ratio": mean(ratio(s.predicted, s.truth) for s in scores),
        "fpis": sum(s.fp for s in scores),
        "fnis": sum(s.fn for s in scores),
        "n": len(scores),
    }


def _native(run: CaseRun, mode: str) -> Score:
    if mode == "pdg":
        return score_sets(run.pdg_lines, run.case.intra_ais())
    return score_sets(run.cg_symbols, run.case.inter_ais())


def _unified(run: CaseRun, row: str, axis: str) -> Score:
    if axis == "statement":
        truth = {f"statement:{k}" for k in run.case.intra_ais()}
        got = set() if row == "callgraph" else {f"statement:{k}" for k in run.pdg_lines}
    else:
        truth = {f"symbol:{k}" for k in run.case.inter_ais()}
        syms = {"callgraph": run.cg_symbols, "pdg": run.pdg_symbols,
                "pdg-precise": run.precise_symbols, "composed-current": run.cg_symbols}[row]
        got = {f"symbol:{k}" for k in syms}
    return score_sets(got, truth)


def score(runs: list[CaseRun]) -> dict[str, Any]:
    measured = [r for r in runs if r.status == "ok"]
    strata: dict[str, dict[str, Any]] = {}
    for s in STRATA:
        rs = [r for r in measured if r.case.locus == s]
        strata[s] = {m: _cell([_native(r, m) for r in rs]) for m in MODES}
    unified: dict[str, dict[str, Any]] = {}
    for row in UNIFIED_ROWS:
        unified[row] = {}
        for axis in AXES:
            if row == "callgraph" and axis == "statement":
                unified[row][axis] = {**_cell([_unified(r, row, axis) for r in measured]),
                                      "note": "no statement output"}
                continue
            unified[row][axis] = _cell([_unified(r, row, axis) for r in measured])
            unified[row][axis]["by_stratum"] = {
                s: _cell([_unified(r, row, axis) for r in measured if r.case.locus == s])
                for s in STRATA
            }
    counts = {s: sum(1 for r in measured if r.case.locus == s) for s in STRATA}
    underpowered = (sum(counts.values()) < FLOOR_TOTAL
                    or any(v < FLOOR_PER_STRATUM for v in counts.values()))
    return {"strata": strata, "unified": unified, "counts": counts,
            "measurable": sum(counts.values()), "underpowered": underpowered}


# ------------------------------------------------------------------ report
def _case_json(r: CaseRun) -> dict[str, Any]:
    out: dict[str, Any] = {"case": r.case.name, "locus": r.case.locus, "status": r.status,
                           "seconds": round(r.seconds, 3)}
    if r.warnings:
        out["warnings"] = r.warnings
    if r.status == "ok":
        out.update({
            "pdg": {"cis": sorted(r.pdg_lines), "ais": sorted(r.case.intra_ais()),
                    **_native(r, "pdg").as_dict()},
            "callgraph": {"cis": sorted(r.cg_symbols), "ais": sorted(r.case.inter_ais()),
                          **_native(r, "callgraph").as_dict()},
            "pdg_precise_symbols": sorted(r.precise_symbols),
            "interprocedural_statements": sorted(r.pdg_all_lines - r.pdg_lines),
        })
    if r.gate:
        out["gate"] = r.gate
    if r.case.excluded:
        out["reason"] = r.pdg_result.get("reason")
    return out


def _fmt_row(cols: list[str], widths: list[int]) -> str:
    return "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    out = [_fmt_row(header, widths), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [_fmt_row(r, widths) for r in rows]
    return out


def _r(c: dict[str, Any], under: bool) -> list[str]:
    def f(v: float | None) -> str:
        return "~" + fmt(v) if under and v is not None else fmt(v)
    return [f(c["precision"]), f(c["recall"]), f(c["f1"]), fmt(c["size_ratio"]),
            str(c["fpis"]), str(c["fnis"]), str(c["n"])]


def render(report: dict[str, Any]) -> str:
    sc = report["scores"]
    under = sc["underpowered"]
    lines = [f"impactlens bench pdg — {sc['measurable']} measurable cases "
             f"(intra {sc['counts']['intra']}, inter {sc['counts']['inter']}, "
             f"mixed {sc['counts']['mixed']}), {report['excluded']} excluded; "
             f"fingerprint {report['annotationFingerprint'][:16]}…"]
    if under:
        lines.append(f"!! {UNDERPOWERED}: below the floor ({FLOOR_PER_STRATUM}/stratum, "
                     f"{FLOOR_TOTAL} total); read the direction, not the decimals (~)")
    lines.append("")
    lines.append("Step 0 / per case:")
    for c in report["cases"]:
        if c["status"] != "ok":
            lines.append(f"  {c['case']:<28} {c['status']}"
                         + (f" (reason: {c.get('reason')})" if c.get("reason") else ""))
            continue
        p, g = c["pdg"], c["callgraph"]
        lines.append(f"  {c['case']:<28} pdg line/intra: fp={p['fp']} fn={p['fn']} "
                     f"{_short(p['cis'])} | cg symbol/inter: fp={g['fp']} fn={g['fn']} "
                     f"{_short(g['cis'])}")
        for w in c.get("warnings", []):
            lines.append(f"  {'':<28} warn: {w}")
    lines.append("")
    lines.append("Native granularity (PDG line vs intra_AIS; call graph symbol vs inter_AIS):")
    rows = []
    for s in STRATA:
        for m in MODES:
            gran = "line/intra" if m == "pdg" else "symbol/inter"
            rows.append([s, m, gran, *_r(sc["strata"][s][m], under)])
    lines += _table(["scope", "mode", "granularity", "P", "R", "F1", "|CIS|/|AIS|", "FPIS",
                     "FNIS", "n"], rows)
    lines.append("")
    lines.append("Unified impact axes (statement:<file>:<line>, symbol:<id>@<file>; all strata):")
    rows = []
    for row in UNIFIED_ROWS:
        for axis in AXES:
            rows.append([row, axis, *_r(sc["unified"][row][axis], under)])
    lines += _table(["row", "axis", "P", "R", "F1", "|CIS|/|AIS|", "FPIS", "FNIS", "n"], rows)
    if report.get("gates"):
        lines.append("")
        lines.append("Gates (--check):")
        for g in report["gates"]:
            lines.append(f"  [{'PASS' if g['passed'] else 'FAIL'}] {g['name']}: {g['detail']}")
    if report.get("mutation"):
        lines.append("")
        lines += render_mutation(report["mutation"])
    if report.get("peer"):
        lines.append("")
        lines += render_peer(report["peer"])
        if not report["peer"].get("skipped"):
            lines.append("")
            lines += render_versus(report)
    return "\n".join(lines)


def _short(items: list[str], n: int = 6) -> str:
    keys = [i.split("@")[0].rsplit(".", 1)[-1] if "@" in i else i.rsplit(":", 1)[-1]
            for i in items]
    s = ",".join(keys[:n]) + (",…" if len(keys) > n else "")
    return "{" + s + "}"


# -------------------------------------------------------------------- gates
def load_baselines(corpus: Path) -> dict[str, Any]:
    p = corpus / "baselines.json"
    return json.loads(p.read_text()) if p.exists() else {}


def _default_baselines(corpus: Path, cases: list[Case]) -> Path:
    from impactlens.bench.pdg_corpus import PEER_BASELINES

    return PEER_BASELINES if cases and cases[0].external else corpus / "baselines.json"


def _band_failures(bands: dict[str, Any], k_runs: list[dict[str, Any]], section: str,
                   label: str, eps: float) -> list[str]:
    """One line per (row, column) band whose median F1 over the K runs falls below it."""
    fails = []
    for row, cols in bands.items():
        for col, band in cols.items():
            if band is None:
                continue
            vals = [r[section][row][col]["f1"] for r in k_runs]
            defined = [v for v in vals if v is not None]
            med = statistics.median(defined) if defined else None
            if med is None or med < band - eps:
                fails.append(f"{label}{row}/{col} F1 {fmt(med)} < band {band}")
    return fails


def gates(report: dict[str, Any], baselines: dict[str, Any], k_runs: list[dict[str, Any]],
          strict_mutation: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    eps = float(baselines.get("epsilon", 0.001))
    bands = baselines.get("f1Bands", {})
    fails = (_band_failures(bands, k_runs, "strata", "", eps)
             + _band_failures(baselines.get("unifiedF1Bands", {}), k_runs, "unified",
                              "unified ", eps))
    out.append({"name": "Gate 1 F1 bands (one-sided, median of K)", "passed": not fails,
                "detail": "; ".join(fails) or f"all bands met (K={len(k_runs)}, ε={eps})"})
    want = baselines.get("annotationFingerprint")
    got = report["annotationFingerprint"]
    out.append({"name": "Gate 2 annotation fingerprint", "passed": want == got,
                "detail": "matches" if want == got else
                f"ground truth changed: {got[:16]}… ≠ baseline {str(want)[:16]}… "
                "(review the change, then re-baseline)"})
    idg = [c for c in report["cases"] if c.get("gate", {}).get("id_match") is not None]
    ok = all(c["gate"]["passed"] for c in idg) and bool(idg)
    det = "; ".join(
        f"{c['case']}: id {c['gate']['id_match']} (name-match would add "
        f"{c['gate']['name_match_false_positives']})" for c in idg) or "no id-precision case"
    out.append({"name": "Gate 3 id-precise callee matching", "passed": ok, "detail": det})
    nob = [c for c in report["cases"] if c["status"].startswith("excluded: pdgScoring")
           and c["locus"] == "n/a"]
    ok = bool(nob) and all(c.get("reason") == "no-body" for c in nob)
    out.append({"name": "Gate 4 explicit degradation (no-body → reason, never empty success)",
                "passed": ok,
                "detail": ", ".join(f"{c['case']}={c.get('reason')}" for c in nob) or "none"})
    mut = report.get("mutation")
    if mut:
        band = baselines.get("mutationRecallBands", {}).get("intra")
        rec = mut["strata"]["intra"]["recall"]
        novel = mut["novel"]
        passed = not (strict_mutation and novel)
        detail = (f"intra mutation recall {fmt(rec)} (band {band}); novel holes: "
                  f"{novel or 'none'}" + ("" if strict_mutation else " — report-only"))
        out.append({"name": "Gate 5 mutation recall", "passed": passed, "detail": detail})
    return out


# ------------------------------------------------------------------ mutation
def run_mutation(runs: list[CaseRun]) -> dict[str, Any]:
    from impactlens.bench.mutation import run_oracle
    from impactlens.bench.mutation_ts import run_ts_oracle

    rows = []
    for r in runs:
        c = r.case
        if r.status != "ok":
            continue
        crit = c.criterion
        if crit["filePath"].endswith(".py"):
            mod = crit["filePath"][:-3].replace("/", ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            qual = crit["name"][len(mod) + 1:]
            res = run_oracle(c.dir, c.name, crit["filePath"], mod, qual, crit["line"])
        else:  # TypeScript/JavaScript, run with Node
            mod = crit["filePath"].rsplit(".", 1)[0]
            res = run_ts_oracle(c.dir, c.name, crit["filePath"], crit["name"][len(mod) + 1:],
                                crit["line"])
        row: dict[str, Any] = {"case": c.name, "locus": c.locus, "status": res.status,
                               "direction": crit["direction"], "inputs": len(res.inputs),
                               "mutants": res.mutants, "behavioral": res.behavioral}
        if res.status == "ok":
            b = set(res.behavioral)
            static = r.pdg_all_lines
            lo, hi = r.span
            crit_file = crit["filePath"]
            b_intra = {k for k in b if k.rsplit(":", 1)[0] == crit_file
                       and lo <= int(k.rsplit(":", 1)[1]) <= hi}
            row["recall"] = ratio(len(b & static), len(b))
            row["missed"] = [{"line": k, "class": _classify(k, r, crit)}
                             for k in sorted(b - static)]
            row["slice_minus_b"] = len(static - b)
            row["gated"] = crit["direction"] == "downstream"
            if row["gated"]:
                row["circularity"] = sorted(b_intra - c.intra_ais())
                ais_syms = {a["symbol"] for a in c.gt["inter_AIS"]}
                changed_fns = {_owner(c.dir, k) for k in b - b_intra} - {None, crit["name"]}
                row["circularity_symbols"] = sorted(str(f) for f in changed_fns - ais_syms)
            else:
                row["note"] = "oracle-direction-excluded (forward oracle, upstream criterion): " \
                              "recall and circularity are not applicable"
        rows.append(row)
        if not c.external:
            _write_sidecar(c, row)
    strata = {}
    for s in STRATA:
        rs = [x for x in rows if x["locus"] == s and x.get("gated") and x["status"] == "ok"]
        strata[s] = {"recall": mean(x["recall"] for x in rs), "n": len(rs)}
    novel = sorted(f"{x['case']}:{m['line']}" for x in rows if x.get("gated")
                   for m in x.get("missed", []) if m["class"].startswith("novel"))
    return {"cases": rows, "strata": strata, "novel": novel}


def _owner(case_dir: Path, key: str) -> str | None:
    """Dotted id of the innermost function containing ``file:line`` (from source)."""
    import ast

    file, _, ln = key.rpartition(":")
    line = int(ln)
    if not file.endswith(".py"):
        from impactlens.pdg.typescript.source import TsParsedFile

        try:
            text = (case_dir / file).read_text(encoding="utf-8")
        except OSError:
            return None
        name, _ = TsParsedFile(file, text, text.splitlines()).innermost_scope(line)
        return None if name == "<module>" else f"{file.rsplit('.', 1)[0]}.{name}"
    try:
        tree = ast.parse((case_dir / file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None
    mod = file[:-3].replace("/", ".").removesuffix(".__init__")
    best: str | None = None

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                q = f"{prefix}.{ch.name}"
                if ch.lineno <= line <= (ch.end_lineno or ch.lineno):
                    if not isinstance(ch, ast.ClassDef):
                        best = q
                    visit(ch, q)

    visit(tree, mod)
    return best


def _classify(key: str, run: CaseRun, crit: dict[str, Any]) -> str:
    file, _, ln = key.rpartition(":")
    lo, hi = run.span
    if crit["direction"] != "downstream":
        return "oracle-direction-excluded"
    if file == crit["filePath"] and lo <= int(ln) <= hi:
        return "novel: intra statement missed by the static slice"
    reached = {s.split("@")[0] for s in run.precise_symbols}
    if not reached:
        return "known-gap: callee not reached (unresolved call / no index edge)"
    return "novel: inter-procedural statement missed by the descent"


def _write_sidecar(case: Case, row: dict[str, Any]) -> None:
    side = {"schemaVersion": 1, "provenance": "mutation", "case": case.name,
            "criterion": case.criterion, "status": row["status"],
            "inputs": row.get("inputs"), "mutants": row["mutants"],
            "behavioral_AIS": row["behavioral"],
            "note": "regenerated by `impactlens bench pdg --mutation`; audit cache, never "
                    "a replacement for the manual ground-truth.json"}
    (case.dir / "mutation-ground-truth.json").write_text(json.dumps(side, indent=2) + "\n")


def render_mutation(m: dict[str, Any]) -> list[str]:
    lines = ["Mutation oracle (value-diff dynamic slice B vs static slice; criterion line "
             "excluded):"]
    rows = []
    for x in m["cases"]:
        if x["status"] != "ok":
            rows.append([x["case"], x["locus"], x["status"], "", "", "", ""])
            continue
        killed = sum(1 for mu in x["mutants"] if mu["status"] == "killed")
        rows.append([x["case"], x["locus"], "ok" if x["gated"] else "not gated (upstream)",
                     f"{killed}/{len(x['mutants'])}", str(len(x["behavioral"])),
                     fmt(x["recall"]) if x["gated"] else "n/a",
                     ", ".join(f"{mm['line']} [{mm['class'].split(':')[0]}]"
                               for mm in x["missed"]) or "-"])
    lines += _table(["case", "locus", "status", "killed", "|B|", "recall", "missed"], rows)
    for s in STRATA:
        lines.append(f"  {s}: mutation recall {fmt(m['strata'][s]['recall'])} "
                     f"(n={m['strata'][s]['n']})")
    circ = [(x["case"], x["circularity"]) for x in m["cases"] if x.get("circularity")]
    for case, lines_ in circ:
        lines.append(f"  WARN circularity: {case}: dynamic lines missing from the hand "
                     f"annotation: {lines_}")
    csym = [(x["case"], x["circularity_symbols"]) for x in m["cases"]
            if x.get("circularity_symbols")]
    for case, syms in csym:
        lines.append(f"  WARN circularity: {case}: functions whose values changed but are "
                     f"not in inter_AIS: {syms}")
    if not circ and not csym:
        lines.append("  circularity check: every dynamically observed change (intra lines, "
                     "changed callees) is in the hand annotation")
    for x in m["cases"]:
        if x.get("note"):
            lines.append(f"  {x['case']}: {x['note']}")
    lines.append(f"  novel recall holes: {m['novel'] or 'none'}")
    return lines


# ---------------------------------------------------------------------- peer
def render_peer(p: dict[str, Any]) -> list[str]:
    if p.get("skipped"):
        return [f"Peer (GitNexus): skipped — {p['skipped']}"]
    lines = [f"Peer (GitNexus {p.get('version', '?')}, same fixtures, same scoring):"]
    rows = []
    for s in STRATA:
        c = p["strata"][s]
        rows.append([s, "gitnexus pdg", "line/intra", *_r(c["pdg"], False)])
        rows.append([s, "gitnexus callgraph", "symbol/inter", *_r(c["callgraph"], False)])
        rows.append([s, "gitnexus pdg-precise", "symbol/inter",
                     *_r(c["pdg-precise"], False)])
    lines += _table(["scope", "mode", "granularity", "P", "R", "F1", "|CIS|/|AIS|", "FPIS",
                     "FNIS", "n"], rows)
    errs = [c for c in p.get("cases", []) if c.get("error")]
    if errs:
        lines.append(f"  {len(errs)} case(s) did not run under GitNexus and are left out of "
                     "its rows (n shows what was scored):")
        lines += [f"  {c['case']}: {c['error'][:160]}" for c in errs]
    return lines


def versus(report: dict[str, Any]) -> list[dict[str, Any]]:
    """impactlens vs GitNexus, per stratum and measure (same fixtures, same scoring)."""
    ours_s = report["scores"]["strata"]
    ours_u = report["scores"]["unified"]
    peer = report["peer"]["strata"]
    out = []
    for s in STRATA:
        out.append({"scope": s, "measure": "pdg line/intra",
                    "impactlens": ours_s[s]["pdg"], "gitnexus": peer[s]["pdg"]})
        out.append({"scope": s, "measure": "callgraph symbol/inter",
                    "impactlens": ours_s[s]["callgraph"], "gitnexus": peer[s]["callgraph"]})
        out.append({"scope": s, "measure": "pdg statement-precise symbol/inter",
                    "impactlens": ours_u["pdg-precise"]["symbol"]["by_stratum"][s],
                    "gitnexus": peer[s]["pdg-precise"]})
    return out


def render_versus(report: dict[str, Any]) -> list[str]:
    rows = []
    for v in versus(report):
        a, b = v["impactlens"], v["gitnexus"]
        rows.append([v["scope"], v["measure"], fmt(a["f1"]), fmt(b["f1"]),
                     f"{a['fpis']}/{a['fnis']}", f"{b['fpis']}/{b['fnis']}"])
    return ["impactlens vs GitNexus (F1; FPIS/FNIS):",
            *_table(["scope", "measure", "impactlens F1", "GitNexus F1", "ours FP/FN",
                     "GitNexus FP/FN"], rows)]


# ---------------------------------------------------------------------- main
def build_report(cases: list[Case], runs: list[CaseRun]) -> dict[str, Any]:
    return {
        "annotationFingerprint": fingerprint(cases),
        "scores": score(runs),
        "excluded": sum(1 for r in runs if r.status != "ok"),
        "cases": [_case_json(r) for r in runs],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench pdg", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="machine-readable report")
    ap.add_argument("--check", action="store_true", help="gate against baselines.json")
    ap.add_argument("--only", default=os.environ.get("IMPACTLENS_PDG_ONLY", ""),
                    help="comma-separated case names")
    ap.add_argument("--mutation", action="store_true", help="run the dynamic mutation oracle")
    ap.add_argument("--mutation-strict", action="store_true",
                    help="fail on novel mutation-recall holes (implies --mutation)")
    ap.add_argument("--peer", action="store_true", help="add GitNexus on the same fixtures")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="corpus directory: ours, or GitNexus's gitnexus/bench/impact-pdg "
                         "(read in place)")
    ap.add_argument("--baselines", type=Path, default=None,
                    help="baselines file for --check (default: the corpus's baselines.json; "
                         "bench/impact-pdg-peer/baselines.json for the GitNexus corpus)")
    args = ap.parse_args(argv)
    corpus = args.corpus or default_corpus()
    if not corpus.is_dir():
        print(f"impactlens: error: {corpus}: no PDG corpus here (use --corpus)", file=sys.stderr)
        return 2
    only = {x.strip() for x in args.only.split(",") if x.strip()} or None
    cases = load_corpus(corpus, only)
    if not cases:
        print(f"impactlens: error: no cases selected in {corpus}", file=sys.stderr)
        return 2
    k = max(1, int(os.environ.get("IMPACTLENS_PDG_K", "1"))) if args.check else 1
    k_scores = []
    runs: list[CaseRun] = []
    for _ in range(k):
        runs = run_corpus(cases)
        k_scores.append(score(runs))
    report = build_report(cases, runs)
    if args.mutation or args.mutation_strict:
        report["mutation"] = run_mutation(runs)
    if args.peer:
        from impactlens.bench.pdg_peer import run_peer

        report["peer"] = run_peer(cases)
        if not report["peer"].get("skipped"):
            report["versus"] = versus(report)
    status = 0
    if args.check:
        bfile = args.baselines or _default_baselines(corpus, cases)
        baselines = json.loads(bfile.read_text()) if bfile.exists() else {}
        if not baselines:
            print(f"impactlens: error: {bfile} missing", file=sys.stderr)
            return 2
        report["gates"] = gates(report, baselines, k_scores, args.mutation_strict)
        status = 0 if all(g["passed"] for g in report["gates"]) else 1
    errors = [r for r in runs if r.status.startswith("error")]
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True, default=sorted))
    else:
        print(render(report))
    if errors and args.check:
        status = 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
