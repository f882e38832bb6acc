"""Post-dominators, control dependence and reaching definitions over a :class:`CFG`.

* Post-dominators: Cooper–Harvey–Kennedy iterative algorithm on the reverse CFG
  (control edges only — ``exc`` edges are data-flow only). ``entry → exit`` is added
  (Ferrante–Ottenstein–Warren), and a node that cannot reach ``exit`` (an infinite
  loop) gets a fake edge from its loop header, so every node has an immediate
  post-dominator.
* Control dependence: for every control edge ``a → b`` with ``b`` not post-dominating
  ``a``, the nodes on the post-dominator-tree path from ``b`` up to (excluding)
  ``ipdom(a)`` are control-dependent on ``a``.
* Reaching definitions: classic forward may-analysis with bitsets; a definition is a
  ``(node, path)`` pair, strong definitions kill the path and its extensions, weak
  ones (subscripts, call may-mutations) kill nothing. Along an ``exc`` edge the
  statement may have raised before or after its own writes, so ``IN ∪ OUT`` flows.
"""

from __future__ import annotations

from dataclasses import dataclass

from impactlens.pdg.cfg import CD_LABELS, CFG
from impactlens.pdg.defuse import Path, is_prefix, overlaps

#: loop-header node kinds of every frontend (Python's, and TypeScript's for…of/do)
LOOP_KINDS = frozenset({"while", "for", "async_for", "for_in", "do"})


def control_succ(cfg: CFG) -> list[list[int]]:
    """Successor lists used for post-dominance (with the fake edges added)."""
    succ = [[b for b, label in outs if label in CD_LABELS] for outs in cfg.succ]
    if cfg.exit not in succ[cfg.entry]:
        succ[cfg.entry].append(cfg.exit)
    n = len(succ)
    while True:
        pred: list[list[int]] = [[] for _ in range(n)]
        for a in range(n):
            for b in succ[a]:
                pred[b].append(a)
        seen = {cfg.exit}
        stack = [cfg.exit]
        while stack:
            x = stack.pop()
            for p in pred[x]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        missing = [i for i in range(n) if i not in seen]
        if not missing:
            return succ
        # prefer a loop header (an infinite `while True:`), earliest in the source
        headers = [i for i in missing if cfg.nodes[i].kind in LOOP_KINDS]
        pool = headers or missing
        pick = min(pool, key=lambda i: (cfg.nodes[i].line, i))
        succ[pick].append(cfg.exit)


def postdominators(cfg: CFG, succ: list[list[int]] | None = None) -> list[int]:
    """Immediate post-dominator of every node (``exit`` maps to itself)."""
    succ = succ if succ is not None else control_succ(cfg)
    n = len(succ)
    pred: list[list[int]] = [[] for _ in range(n)]
    for a in range(n):
        for b in succ[a]:
            pred[b].append(a)
    # post-order of the reverse graph (walk CFG predecessors from exit)
    order: list[int] = []
    seen = [False] * n
    seen[cfg.exit] = True
    stack: list[tuple[int, int]] = [(cfg.exit, 0)]
    while stack:
        node, i = stack[-1]
        if i < len(pred[node]):
            stack[-1] = (node, i + 1)
            p = pred[node][i]
            if not seen[p]:
                seen[p] = True
                stack.append((p, 0))
        else:
            stack.pop()
            order.append(node)
    rank = {v: i for i, v in enumerate(order)}
    ipdom = [-1] * n
    ipdom[cfg.exit] = cfg.exit

    def intersect(a: int, b: int) -> int:
        while a != b:
            while rank[a] < rank[b]:
                a = ipdom[a]
            while rank[b] < rank[a]:
                b = ipdom[b]
        return a

    changed = True
    rpo = list(reversed(order))
    while changed:
        changed = False
        for v in rpo:
            if v == cfg.exit:
                continue
            new = -1
            for s in succ[v]:
                if ipdom[s] != -1:
                    new = s if new == -1 else intersect(s, new)
            if new != -1 and ipdom[v] != new:
                ipdom[v] = new
                changed = True
    return ipdom


def control_dependence(cfg: CFG) -> list[set[int]]:
    """``cd[n]`` = the nodes ``n`` is control-dependent on (its controllers)."""
    succ = control_succ(cfg)
    ipdom = postdominators(cfg, succ)
    cd: list[set[int]] = [set() for _ in cfg.nodes]
    for a, outs in enumerate(succ):
        if ipdom[a] == -1:
            continue
        for b in outs:
            runner = b
            while runner != ipdom[a] and runner != -1:
                cd[runner].add(a)
                if runner == ipdom[runner]:
                    break
                runner = ipdom[runner]
    return cd


@dataclass(frozen=True, slots=True)
class DefSite:
    node: int
    path: Path
    strong: bool
    via_call: bool


def reaching_definitions(cfg: CFG) -> tuple[list[DefSite], list[int]]:
    """All definition sites and, per node, the bitset of sites reaching its entry."""
    sites: list[DefSite] = []
    gen = [0] * len(cfg.nodes)
    for node in cfg.nodes:
        for d in node.du.defs:
            gen[node.id] |= 1 << len(sites)
            sites.append(DefSite(node.id, d.path, d.strong, d.via_call))
    by_root: dict[str, list[int]] = {}
    for i, s in enumerate(sites):
        by_root.setdefault(s.path[0], []).append(i)
    kill = [0] * len(cfg.nodes)
    for node in cfg.nodes:
        for d in node.du.defs:
            if not d.strong:
                continue
            for i in by_root.get(d.path[0], ()):
                other = sites[i]
                if other.path[: len(d.path)] == d.path and other.node != node.id:
                    kill[node.id] |= 1 << i
    n = len(cfg.nodes)
    inn = [0] * n
    out = [0] * n
    work = list(range(n))
    in_work = [True] * n
    while work:
        v = work.pop()
        in_work[v] = False
        acc = 0
        for p, label in cfg.pred[v]:
            acc |= (inn[p] | out[p]) if label == "exc" else out[p]
        inn[v] = acc
        new_out = gen[v] | (acc & ~kill[v])
        if new_out != out[v] or v == cfg.entry:
            out[v] = new_out
            for after, _ in cfg.succ[v]:
                if not in_work[after]:
                    in_work[after] = True
                    work.append(after)
    return sites, inn


def data_dependence(cfg: CFG) -> tuple[list[set[int]], list[list[tuple[int, Path]]]]:
    """``dd[n]`` = nodes whose definitions reach a use at ``n``; plus (def node, path) detail."""
    sites, inn = reaching_definitions(cfg)
    by_root: dict[str, list[int]] = {}
    for i, s in enumerate(sites):
        by_root.setdefault(s.path[0], []).append(i)
    dd: list[set[int]] = [set() for _ in cfg.nodes]
    detail: list[list[tuple[int, Path]]] = [[] for _ in cfg.nodes]
    for node in cfg.nodes:
        bits = inn[node.id]
        if not bits:
            continue
        wanted = [(u, False) for u in node.du.uses] + [(u, True) for u in node.du.ref_uses]
        for use, ref in wanted:
            for i in by_root.get(use[0], ()):
                if not bits >> i & 1:
                    continue
                path = sites[i].path
                if is_prefix(path, use) if ref else overlaps(path, use):
                    dd[node.id].add(sites[i].node)
                    detail[node.id].append((sites[i].node, path))
    return dd, detail
