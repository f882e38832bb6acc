"""GitNexus (npm ``gitnexus``) on the same PDG fixtures, scored by the same rules.

Per case: copy the fixture, ``gitnexus analyze --pdg --skip-git --index-only`` under a
temporary ``GITNEXUS_HOME`` (offline: ``GITNEXUS_LBUG_EXTENSION_INSTALL=never``), then
``gitnexus impact NAME -f FILE --direction D --mode pdg --line N`` and the same without
``--mode pdg`` (call graph). PDG CIS = its ``affectedStatements`` tagged ``intra`` inside
the criterion function; symbol CIS = ``byDepth`` ids, mapped onto our ground-truth keys
by file + (class.)name — an id that maps to no annotated symbol counts as a false
positive under its own name.

The binary: ``$IMPACTLENS_GITNEXUS``, else ``/tmp/gn/node_modules/.bin/gitnexus``
(``npm install --prefix /tmp/gn gitnexus``), else ``gitnexus`` on PATH; absent → the
row is skipped with a note.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from impactlens.bench import installed_binary
from impactlens.bench.metrics import Score, score_sets

ANALYZE_TIMEOUT_S = 600
IMPACT_TIMEOUT_S = 180
ANALYZE_ATTEMPTS = 3


def gitnexus_binary() -> str | None:
    return installed_binary("IMPACTLENS_GITNEXUS", "/tmp/gn/node_modules/.bin/gitnexus",
                            "gitnexus")


def _json_out(text: str) -> dict[str, Any] | None:
    i = text.find("{")
    if i < 0:
        return None
    try:
        out: dict[str, Any] = json.loads(text[i:])
    except ValueError:
        return None
    return out


def _map_symbol(gn_id: str, ais: list[dict[str, Any]]) -> str:
    """``Function:app/x.py:f`` / ``Method:app/x.py:C.m`` → our ``symbol@file`` key."""
    parts = gn_id.split(":", 2)
    if len(parts) != 3:
        return f"gitnexus:{gn_id}"
    _, path, name = parts
    name = re.sub(r"#\d+$", "", name)  # GitNexus tags methods with an arity suffix
    for a in ais:
        if a["filePath"] != path:
            continue
        sym = a["symbol"]
        tail2 = ".".join(sym.split(".")[-2:])
        if name == tail2 or ("." not in name and sym.rsplit(".", 1)[-1] == name):
            return f"{sym}@{path}"
    return f"gitnexus:{name}@{path}"


def run_peer(cases: list[Any]) -> dict[str, Any]:
    from impactlens.bench.pdg import STRATA, _cell

    gn = gitnexus_binary()
    if gn is None:
        return {"skipped": "gitnexus not installed (npm install --prefix /tmp/gn gitnexus, "
                           "or set IMPACTLENS_GITNEXUS)"}
    try:
        version = subprocess.run([gn, "--version"], capture_output=True, text=True,
                                 timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return {"skipped": f"gitnexus does not run: {exc}"}
    work = Path(tempfile.mkdtemp(prefix="impactlens-gitnexus-"))
    env = dict(os.environ, GITNEXUS_HOME=str(work / "home"),
               GITNEXUS_LBUG_EXTENSION_INSTALL="never", NO_COLOR="1")
    rows: list[dict[str, Any]] = []
    try:
        for case in cases:
            if case.excluded:
                continue
            rows.append(_run_case(gn, case, work, env))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    strata: dict[str, Any] = {}
    for s in STRATA:
        rs = [r for r in rows if r["locus"] == s and not r.get("error")]
        strata[s] = {
            "pdg": _cell([Score(**r["pdg_score"]) for r in rs]),
            "callgraph": _cell([Score(**r["cg_score"]) for r in rs]),
            "pdg-precise": _cell([Score(**r["precise_score"]) for r in rs]),
        }
    return {"version": version, "cases": rows, "strata": strata}


def _run_case(gn: str, case: Any, work: Path, env: dict[str, str]) -> dict[str, Any]:
    c = case.criterion
    dest = work / case.name
    shutil.copytree(case.dir, dest, ignore=shutil.ignore_patterns(
        "ground-truth.json", "mutation-ground-truth.json", ".impactlens", "__pycache__"))
    row: dict[str, Any] = {"case": case.name, "locus": case.locus}
    err = ""
    for _ in range(ANALYZE_ATTEMPTS):  # its native bindings fail transiently under load
        try:
            proc = subprocess.run(
                [gn, "analyze", "--pdg", "--skip-git", "--index-only", str(dest)],
                capture_output=True, text=True, env=env, cwd=dest, timeout=ANALYZE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            err = "analyze timed out"
            continue
        if proc.returncode == 0:
            err = ""
            break
        err = "analyze failed: " + " ".join(proc.stderr.split())[:300]
    if err:
        row["error"] = err
        return row
    leaf = c["name"].rsplit(".", 1)[-1]
    base = [gn, "impact", leaf, "-r", dest.name, "-f", c["filePath"], "--direction",
            c["direction"], "--depth", "3"]
    out: dict[str, dict[str, Any] | None] = {}
    for mode, extra in (("pdg", ["--mode", "pdg", "--line", str(c["line"])]), ("cg", [])):
        try:
            p = subprocess.run(base + extra, capture_output=True, text=True, env=env, cwd=dest,
                               timeout=IMPACT_TIMEOUT_S)
            out[mode] = _json_out(p.stdout)
        except subprocess.TimeoutExpired:
            out[mode] = None
    pdg, cg = out["pdg"], out["cg"]
    if pdg is None or cg is None:
        row["error"] = "impact produced no JSON"
        return row
    span = _span(dest / c["filePath"], leaf, c["line"])
    lines = {f"{s['filePath']}:{s['line']}" for s in pdg.get("affectedStatements", [])
             if s.get("scope", "intra") == "intra" and s["filePath"] == c["filePath"]
             and span[0] <= s["line"] <= span[1]}
    ais = case.gt["inter_AIS"]
    pdg_syms = {_map_symbol(h["id"], ais) for hs in (pdg.get("byDepth") or {}).values()
                for h in hs}
    cg_syms = {_map_symbol(h["id"], ais) for hs in (cg.get("byDepth") or {}).values()
               for h in hs}
    inter = pdg.get("pdgInterprocedural") or {}
    spb = pdg.get("statementPreciseByDepth") or inter.get("statementPreciseByDepth") or {}
    precise = {_map_symbol(h["id"], ais) for hs in spb.values() for h in hs}
    row.update({
        "pdg_cis": sorted(lines), "pdg_symbols": sorted(pdg_syms), "cg_symbols": sorted(cg_syms),
        "precise_symbols": sorted(precise), "reason": pdg.get("status") or pdg.get("error"),
        "pdg_score": _as_counts(score_sets(lines, case.intra_ais())),
        "cg_score": _as_counts(score_sets(cg_syms, case.inter_ais())),
        "precise_score": _as_counts(score_sets(precise, case.inter_ais())),
    })
    return row


def _as_counts(s: Score) -> dict[str, int]:
    return {"tp": s.tp, "fp": s.fp, "fn": s.fn}


def _span(path: Path, name: str, line: int) -> tuple[int, int]:
    """Lines of the function ``name`` covering ``line`` (the criterion's own function)."""
    import ast

    if path.suffix != ".py":
        from impactlens.pdg.typescript.source import TsParsedFile

        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return (0, 10**9)
        return TsParsedFile(str(path), text, text.splitlines()).function_named(name, line)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return (0, 10**9)
    best = (0, 10**9)
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name \
                and n.lineno <= line <= (n.end_lineno or n.lineno):
            best = (n.lineno, n.end_lineno or n.lineno)
    return best
