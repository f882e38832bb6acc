"""Terse helpers: build a function's CFG/PDG from source text and read it by line."""

from __future__ import annotations

import ast
import textwrap

from impactlens.pdg.cfg import CFG, build_cfg
from impactlens.pdg.graph import DOWNSTREAM, FunctionPDG


def fn_of(src: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    tree = ast.parse(textwrap.dedent(src).lstrip("\n"))
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
    return fn


def cfg_of(src: str) -> CFG:
    return build_cfg(fn_of(src))


def _name(cfg: CFG, i: int) -> str:
    n = cfg.nodes[i]
    return {"entry": "E", "exit": "X"}.get(n.kind, str(n.line))


def edges(src: str, *, include_exc: bool = False) -> set[str]:
    """``{"3->4", "4->5:T", "4->X:F", ...}`` with E/X for entry/exit (lines 1-based)."""
    cfg = cfg_of(src)
    out = set()
    for a, outs in enumerate(cfg.succ):
        for b, label in outs:
            if label == "exc" and not include_exc:
                continue
            out.add(f"{_name(cfg, a)}->{_name(cfg, b)}" + (f":{label}" if label else ""))
    return out


def pdg_of(src: str) -> FunctionPDG:
    return FunctionPDG.build(fn_of(src))


def controllers(src: str) -> dict[int, set[int]]:
    """line → lines it is control-dependent on (statements only)."""
    p = pdg_of(src)
    out: dict[int, set[int]] = {}
    for n in p.cfg.statement_nodes():
        ctl = {p.cfg.nodes[c].line for c in p.cd[n.id] if not p.cfg.nodes[c].is_synthetic}
        out.setdefault(n.line, set()).update(ctl)
    return out


def data_preds(src: str) -> dict[int, set[int]]:
    """line → lines whose definitions reach a use on it."""
    p = pdg_of(src)
    out: dict[int, set[int]] = {}
    for n in p.cfg.statement_nodes():
        out.setdefault(n.line, set()).update(p.cfg.nodes[d].line for d in p.dd[n.id])
    return out


def slice_lines(src: str, line: int, direction: str = DOWNSTREAM) -> list[int]:
    p = pdg_of(src)
    seeds = {n.id for n in p.cfg.nodes_at_line(line)}
    assert seeds, f"no statement at line {line}"
    got = p.slice_nodes(seeds, direction)
    return sorted({p.cfg.nodes[i].line for i in got} - {line})
