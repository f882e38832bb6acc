"""Corpus loading for `impactlens bench pdg`: ours, or the GitNexus corpus read in place.

Our corpora (``bench/impact-pdg``, ``bench/impact-pdg-ts``) name symbols by their
impactlens id (``app.chain.scale_total``, ``src/route.pick``). The GitNexus corpus
(``gitnexus/bench/impact-pdg`` of its repository: ``fixtures/<case>/{src,ground-truth.json}``)
uses the same schema but names a symbol by its plain (class-qualified) name inside
``filePath`` (``chainCompute``, ``Alpha.process``) and records the id-precision
expectation of its overload case as an ``idBridge`` block of GitNexus ids
(``Method:src/route.ts:Alpha.process#1``). The adapter rewrites both into our ids in
memory — ``<filePath without extension>.<name>`` — so the fixtures are scored by the
same code and never copied into this repository (the harness copies each case to a
temporary directory to index it, as for ours). Its gates read
``bench/impact-pdg-peer/baselines.json`` here unless ``--baselines`` says otherwise.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

PEER_BASELINES = (Path(__file__).resolve().parents[3] / "bench" / "impact-pdg-peer"
                  / "baselines.json")


def peer_fixtures(root: Path) -> Path | None:
    """The fixtures directory when ``root`` is (or holds) a GitNexus impact-pdg corpus."""
    for cand in (root / "fixtures", root / "bench" / "impact-pdg" / "fixtures",
                 root / "gitnexus" / "bench" / "impact-pdg" / "fixtures"):
        if cand.is_dir() and any(cand.glob("*/ground-truth.json")):
            return cand
    if root.name == "fixtures" and any(root.glob("*/ground-truth.json")) \
            and (root.parent / "measure.mjs").exists():
        return root
    return None


def _module(file_path: str) -> str:
    return file_path.rsplit(".", 1)[0]


def _our_id(name: str, file_path: str) -> str:
    return f"{_module(file_path)}.{name}"


def gitnexus_id_to_ours(gn_id: str) -> str:
    """``Method:src/route.ts:Alpha.process#1`` → ``src/route.Alpha.process``."""
    parts = gn_id.split(":", 2)
    if len(parts) != 3:
        return gn_id
    return _our_id(re.sub(r"#\d+$", "", parts[2]), parts[1])


def adapt_peer_gt(gt: dict[str, Any]) -> dict[str, Any]:
    """The GitNexus ground truth with every symbol named by its impactlens id."""
    out = copy.deepcopy(gt)
    c = out["criterion"]
    c["name"] = _our_id(c["name"], c["filePath"])
    for key in ("intra_AIS", "inter_AIS"):
        for a in out.get(key) or []:
            a["symbol"] = _our_id(a["symbol"], a["filePath"])
    bridge = out.get("idBridge")
    if bridge:
        out["gate"] = "id-precision"
        out["idPrecisionExpected"] = sorted(gitnexus_id_to_ours(i) for i in bridge["idProven"])
    return out


def read_cases(root: Path, only: set[str] | None
               ) -> tuple[list[tuple[str, Path, dict[str, Any]]], bool]:
    """(name, directory, ground truth) per case, and whether this is the peer's corpus."""
    fixtures = peer_fixtures(root)
    base = fixtures if fixtures is not None else root
    out = []
    for gt_path in sorted(base.glob("*/ground-truth.json")):
        name = gt_path.parent.name
        if only and name not in only:
            continue
        gt = json.loads(gt_path.read_text())
        out.append((name, gt_path.parent, adapt_peer_gt(gt) if fixtures is not None else gt))
    return out, fixtures is not None
