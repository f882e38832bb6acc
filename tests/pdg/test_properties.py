"""Property tests over randomly generated functions (hypothesis)."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from impactlens.pdg.cfg import build_cfg
from impactlens.pdg.dataflow import control_succ, postdominators
from impactlens.pdg.graph import DOWNSTREAM, UPSTREAM, FunctionPDG

VARS = ["a", "b", "c"]


def _expr(draw: st.DrawFn) -> str:
    return draw(st.sampled_from([
        "a + 1", "b * c", "c", "len(a) if a else b", "[x for x in b if x]", "f(a, b)",
        "a.x", "b[0]", "(c := a)", "lambda q: q + b",
    ]))


@st.composite
def block(draw: st.DrawFn, depth: int = 0, in_loop: bool = False, indent: int = 1) -> str:
    pad = "    " * indent
    n = draw(st.integers(1, 3))
    out: list[str] = []
    for _ in range(n):
        kinds = ["assign", "aug", "expr", "attr", "sub"]
        if depth < 3:
            kinds += ["if", "while", "for", "try", "with", "match"]
        if in_loop:
            kinds += ["break", "continue"]
        kinds += ["return", "raise", "pass"]
        k = draw(st.sampled_from(kinds))
        v = draw(st.sampled_from(VARS))

        def sub(loop: bool = in_loop) -> str:
            return draw(block(depth + 1, loop, indent + 1))

        if k == "assign":
            out.append(f"{pad}{v} = {_expr(draw)}")
        elif k == "aug":
            out.append(f"{pad}{v} += 1")
        elif k == "expr":
            out.append(f"{pad}g({v})")
        elif k == "attr":
            out.append(f"{pad}{v}.x = {_expr(draw)}")
        elif k == "sub":
            out.append(f"{pad}{v}[0] = {_expr(draw)}")
        elif k == "if":
            out.append(f"{pad}if {v}:\n{sub()}")
            if draw(st.booleans()):
                out.append(f"{pad}elif {_expr(draw)}:\n{sub()}")
            if draw(st.booleans()):
                out.append(f"{pad}else:\n{sub()}")
        elif k == "while":
            test = draw(st.sampled_from([v, "True"]))
            out.append(f"{pad}while {test}:\n{sub(True)}")
            if draw(st.booleans()):
                out.append(f"{pad}else:\n{sub()}")
        elif k == "for":
            out.append(f"{pad}for {v} in {_expr(draw)}:\n{sub(True)}")
        elif k == "try":
            out.append(f"{pad}try:\n{sub()}")
            handlers = draw(st.integers(0, 2))
            for _ in range(handlers):
                typ = draw(st.sampled_from(["ValueError", "KeyError as e", ""]))
                out.append(f"{pad}except {typ}:\n{sub()}" if typ else f"{pad}except:\n{sub()}")
                if not typ:
                    break
            if handlers and draw(st.booleans()):
                out.append(f"{pad}else:\n{sub()}")
            if not handlers or draw(st.booleans()):
                out.append(f"{pad}finally:\n{sub()}")
        elif k == "with":
            out.append(f"{pad}with open({v}) as {v}:\n{sub()}")
        elif k == "match":
            inner = "    " * (indent + 1)
            deeper = draw(block(depth + 1, in_loop, indent + 2))
            out.append(f"{pad}match {v}:\n{inner}case 1 | 2:\n{deeper}")
            if draw(st.booleans()):
                out.append(f"{inner}case _:\n{draw(block(depth + 1, in_loop, indent + 2))}")
        elif k == "break":
            out.append(f"{pad}break")
        elif k == "continue":
            out.append(f"{pad}continue")
        elif k == "return":
            out.append(f"{pad}return {v}")
        elif k == "raise":
            out.append(f"{pad}raise ValueError({v})")
        else:
            out.append(f"{pad}pass")
    return "\n".join(out)


@st.composite
def functions(draw: st.DrawFn) -> ast.FunctionDef:
    src = "def f(a, b, c):\n" + draw(block())
    tree = ast.parse(src)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(functions())
def test_every_reachable_node_reaches_exit(fn: ast.FunctionDef) -> None:
    cfg = build_cfg(fn)
    seen = {cfg.entry}
    stack = [cfg.entry]
    while stack:
        v = stack.pop()
        for w, _ in cfg.succ[v]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    back = {cfg.exit}
    stack = [cfg.exit]
    while stack:
        v = stack.pop()
        for w, _ in cfg.pred[v]:
            if w not in back:
                back.add(w)
                stack.append(w)
    # infinite loops (while True without break) are the only way to never reach exit;
    # the control graph used for post-dominance always does
    ctl = control_succ(cfg)
    cback = {cfg.exit}
    stack = [cfg.exit]
    rev: dict[int, list[int]] = {}
    for a, outs in enumerate(ctl):
        for b in outs:
            rev.setdefault(b, []).append(a)
    while stack:
        v = stack.pop()
        for w in rev.get(v, []):
            if w not in cback:
                cback.add(w)
                stack.append(w)
    assert seen <= cback
    if "while True" not in ast.unparse(fn):
        assert seen <= back


@SETTINGS
@given(functions())
def test_postdominator_tree_is_well_formed(fn: ast.FunctionDef) -> None:
    cfg = build_cfg(fn)
    ipdom = postdominators(cfg)
    for v in range(len(cfg.nodes)):
        assert ipdom[v] != -1
        # walking up the tree ends at exit
        steps, x = 0, v
        while x != cfg.exit:
            x = ipdom[x]
            steps += 1
            assert steps <= len(cfg.nodes)


@SETTINGS
@given(functions(), st.data())
def test_slicing_is_monotone_and_closed(fn: ast.FunctionDef, data: st.DataObject) -> None:
    pdg = FunctionPDG.build(fn)
    ids = [n.id for n in pdg.cfg.statement_nodes()]
    small = set(data.draw(st.lists(st.sampled_from(ids), max_size=3)))
    big = small | set(data.draw(st.lists(st.sampled_from(ids), max_size=3)))
    for direction in (DOWNSTREAM, UPSTREAM):
        s_small = pdg.closure(small, direction)
        s_big = pdg.closure(big, direction)
        assert s_small <= s_big
        # closed: slicing the slice adds nothing new
        assert pdg.closure(s_small | small, direction) <= s_small | small


@SETTINGS
@given(functions(), st.data())
def test_downstream_and_upstream_are_converse(fn: ast.FunctionDef, data: st.DataObject) -> None:
    pdg = FunctionPDG.build(fn)
    ids = [n.id for n in pdg.cfg.statement_nodes()]
    a = data.draw(st.sampled_from(ids))
    for b in pdg.closure({a}, DOWNSTREAM):
        assert a in pdg.closure({b}, UPSTREAM)
