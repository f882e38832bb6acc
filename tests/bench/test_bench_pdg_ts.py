"""The PDG harness on TypeScript: our corpus under --check, and a GitNexus-layout corpus
read in place through the adapter."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

from impactlens.bench import pdg as bench
from impactlens.bench.pdg_corpus import adapt_peer_gt, gitnexus_id_to_ours, peer_fixtures

TS_CORPUS = bench.default_corpus().parent / "impact-pdg-ts"


def _main(*args: str) -> tuple[int, dict]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = bench.main([*args, "--json"])
    return status, json.loads(buf.getvalue())


def test_ts_corpus_meets_the_floor() -> None:
    cases = bench.load_corpus(TS_CORPUS)
    scored = [c for c in cases if not c.excluded]
    by = {s: sum(1 for c in scored if c.locus == s) for s in bench.STRATA}
    assert len(scored) >= 15 and min(by.values()) >= 3
    suffixes = {c.criterion["filePath"].rsplit(".", 1)[-1] for c in cases}
    assert suffixes == {"ts", "js"}


def test_ts_check_gate_passes(tmp_path: Path) -> None:
    corpus = tmp_path / "impact-pdg-ts"
    shutil.copytree(TS_CORPUS, corpus)
    status, report = _main("--check", "--corpus", str(corpus))
    failed = [g for g in report["gates"] if not g["passed"]]
    assert status == 0, failed
    strata = report["scores"]["strata"]
    assert strata["intra"]["pdg"]["f1"] == 1.0 and strata["mixed"]["pdg"]["f1"] == 1.0
    assert report["scores"]["unified"]["pdg-precise"]["symbol"]["f1"] == 1.0


GN_SRC = (
    "export function boost(n: number): number {\n"   # 1
    "  return n + 1;\n"                                # 2
    "}\n"                                              # 3
    "export function other(n: number): number {\n"    # 4
    "  return n - 1;\n"                                # 5
    "}\n"                                              # 6
    "export function run(n: number, on: boolean): number {\n"  # 7
    "  const m = n * 2;\n"                             # 8
    "  const o = other(n);\n"                          # 9
    "  if (on) {\n"                                    # 10
    "    return boost(m) + o;\n"                      # 11
    "  }\n"                                            # 12
    "  return m;\n"                                    # 13
    "}\n"                                              # 14
)


def _gitnexus_corpus(root: Path) -> Path:
    """A corpus in GitNexus's layout: plain names, fixtures/<case>/src, measure.mjs."""
    bench_dir = root / "gitnexus" / "bench" / "impact-pdg"
    case = bench_dir / "fixtures" / "mixed-run"
    (case / "src").mkdir(parents=True)
    (case / "src" / "run.ts").write_text(GN_SRC)
    (bench_dir / "measure.mjs").write_text("// the peer's driver\n")
    gt = {
        "schemaVersion": 1,
        "criterion": {"name": "run", "filePath": "src/run.ts", "direction": "downstream",
                      "line": 8, "marker": "n * 2", "pdgEdgeKinds": ["REACHING_DEF", "CDG"]},
        "intra_AIS": [{"symbol": "run", "filePath": "src/run.ts", "line": 11},
                      {"symbol": "run", "filePath": "src/run.ts", "line": 13}],
        "inter_AIS": [{"symbol": "boost", "filePath": "src/run.ts"}],
        "locus": "mixed", "provenance": "manual",
        "idBridge": {"idProven": ["Function:src/run.ts:boost"]},
    }
    (case / "ground-truth.json").write_text(json.dumps(gt))
    return bench_dir


def test_gitnexus_names_become_our_ids() -> None:
    assert gitnexus_id_to_ours("Method:src/route.ts:Alpha.process#1") == "src/route.Alpha.process"
    got = adapt_peer_gt({"criterion": {"name": "Alpha.process", "filePath": "src/a.ts"},
                         "intra_AIS": [{"symbol": "f", "filePath": "src/a.ts", "line": 3}],
                         "inter_AIS": [{"symbol": "g", "filePath": "src/b.ts"}]})
    assert got["criterion"]["name"] == "src/a.Alpha.process"
    assert got["intra_AIS"][0]["symbol"] == "src/a.f"
    assert got["inter_AIS"][0]["symbol"] == "src/b.g"


def test_a_gitnexus_corpus_is_scored_in_place(tmp_path: Path) -> None:
    bench_dir = _gitnexus_corpus(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for root in (tmp_path / "gitnexus", bench_dir, bench_dir / "fixtures"):
        assert peer_fixtures(root) == bench_dir / "fixtures"
    status, report = _main("--corpus", str(tmp_path / "gitnexus"))
    assert status == 0
    (case,) = report["cases"]
    assert case["status"] == "ok"
    assert case["pdg"]["cis"] == ["src/run.ts:11", "src/run.ts:13"]
    assert case["pdg_precise_symbols"] == ["src/run.boost@src/run.ts"]
    # the call graph also reaches `other`, which the changed line does not feed
    assert "src/run.other@src/run.ts" in case["callgraph"]["cis"]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_node_oracle_finds_the_dynamic_slice(tmp_path: Path) -> None:
    import pytest

    from impactlens.bench.mutation_ts import node_binary, run_ts_oracle, ts_mutants

    if node_binary() is None:
        pytest.skip("node is not installed")
    src = ("interface Unused { a: number }\n"                     # 1
           "export function f(a: number, ok: boolean): number {\n"  # 2
           "  const b = a * 2;\n"                                  # 3
           "  const c = (b as number) + 1;\n"                      # 4
           "  const d = a - 1;\n"                                  # 5
           "  if (ok) {\n"                                         # 6
           "    return c!;\n"                                      # 7
           "  }\n"                                                 # 8
           "  return d;\n"                                         # 9
           "}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f.ts").write_text(src)
    ops = [m[0] for m in ts_mutants(src.encode(), "src/f.ts", 3)]
    assert ops[:3] == ["AOR", "CRP", "CRP"]
    res = run_ts_oracle(tmp_path, "f", "src/f.ts", "f", 3)
    assert res.status == "ok", res.status
    assert res.behavioral == ["src/f.ts:4", "src/f.ts:7"]
    assert len(res.inputs) == 4 * 2
