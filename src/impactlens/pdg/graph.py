"""The program dependence graph of one function: CFG + control and data dependence.

Built on demand from source (see ``bench/impact-pdg/README.md`` for the on-demand vs
persisted latency measurement that chose this). Slicing is a closure over dependence
edges at statement granularity:

* downstream (forward): statements data- or control-dependent on the criterion,
  transitively;
* upstream (backward): statements the criterion depends on, transitively.

The criterion's own statements are not part of the result.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from impactlens.model import DEPENDENCIES, DEPENDENTS
from impactlens.pdg.cfg import CFG, FunctionNode, ScopeNode, build_cfg
from impactlens.pdg.dataflow import control_dependence, data_dependence
from impactlens.pdg.defuse import Path

# downstream = the statements depending on the criterion, upstream = those it depends on
DOWNSTREAM, UPSTREAM = DEPENDENTS, DEPENDENCIES


@dataclass(eq=False)
class FunctionPDG:
    cfg: CFG
    cd: list[set[int]]  # n → controllers of n
    dd: list[set[int]]  # n → definition nodes reaching a use at n
    dd_detail: list[list[tuple[int, Path]]]
    cd_rev: list[set[int]]
    dd_rev: list[set[int]]

    @classmethod
    def build(cls, scope: ScopeNode, lines: list[str] | None = None) -> FunctionPDG:
        return cls.from_cfg(build_cfg(scope, lines))

    @classmethod
    def from_cfg(cls, cfg: CFG) -> FunctionPDG:
        """Dependence over any frontend's CFG (the analyses read only its nodes' def/use
        sets, kinds and edges)."""
        cd = control_dependence(cfg)
        dd, detail = data_dependence(cfg)
        n = len(cfg.nodes)
        cd_rev: list[set[int]] = [set() for _ in range(n)]
        dd_rev: list[set[int]] = [set() for _ in range(n)]
        for v in range(n):
            for c in cd[v]:
                cd_rev[c].add(v)
            for d in dd[v]:
                dd_rev[d].add(v)
        return cls(cfg, cd, dd, detail, cd_rev, dd_rev)

    # ------------------------------------------------------------------
    def edge_counts(self) -> dict[str, int]:
        """Dependence edges between real statements (entry/exit excluded)."""
        real = {n.id for n in self.cfg.nodes if not n.is_synthetic}
        cdg = sum(1 for v in real for c in self.cd[v] if c in real)
        rd = sum(1 for v in real for d in self.dd[v] if d in real)
        return {"CDG": cdg, "REACHING_DEF": rd}

    def closure(self, seeds: Iterable[int], direction: str, *, data: bool = True,
                control: bool = True) -> set[int]:
        """Nodes reachable from ``seeds`` over dependence edges (seeds excluded
        unless reached again through a loop-carried dependence)."""
        if direction == DOWNSTREAM:
            edges = [self.dd_rev if data else None, self.cd_rev if control else None]
        else:
            edges = [self.dd if data else None, self.cd if control else None]
        seen: set[int] = set()
        stack = list(seeds)
        while stack:
            v = stack.pop()
            for table in edges:
                if table is None:
                    continue
                for w in table[v]:
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
        return {v for v in seen if not self.cfg.nodes[v].is_synthetic}

    def slice_nodes(self, seeds: Iterable[int], direction: str) -> set[int]:
        seeds = set(seeds)
        return self.closure(seeds, direction) - seeds


def function_nodes(tree: ast.AST) -> list[tuple[str, FunctionNode]]:
    """Every function/method in ``tree`` with its dotted qualname inside the module."""
    out: list[tuple[str, FunctionNode]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                q = f"{prefix}{child.name}"
                out.append((q, child))
                visit(child, q + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.stmt):
                visit(child, prefix)

    visit(tree, "")
    return out


def innermost_scope(tree: ast.Module, line: int) -> tuple[str, ScopeNode]:
    """The innermost function (else class body, else module) whose span covers ``line``.

    Decorator lines belong to the enclosing scope (they run there)."""
    best: tuple[str, ScopeNode] = ("<module>", tree)

    def covers(n: ast.AST) -> bool:
        return n.lineno <= line <= (n.end_lineno or n.lineno)  # type: ignore[attr-defined]

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if covers(child):
                    q = f"{prefix}{child.name}"
                    best = (q, child)
                    visit(child, q + ".")
            elif isinstance(child, ast.stmt) and covers(child):
                visit(child, prefix)

    visit(tree, "")
    return best


def is_bodyless(fn: FunctionNode) -> bool:
    """No executable body: a docstring and/or ``...``/``pass``/``raise NotImplementedError``."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    for s in body:
        if isinstance(s, ast.Pass):
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) \
                and s.value.value is Ellipsis:
            continue
        if isinstance(s, ast.Raise) and s.exc is not None:
            exc = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True


def is_abstract(fn: FunctionNode) -> bool:
    for d in fn.decorator_list:
        name = d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
        if name in ("abstractmethod", "abstractproperty", "overload"):
            return True
    return False
