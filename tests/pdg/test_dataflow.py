"""Post-dominators, control dependence, reaching definitions, slices."""

from __future__ import annotations

from pdg_helpers import cfg_of, controllers, data_preds, slice_lines

from impactlens.pdg.dataflow import postdominators
from impactlens.pdg.graph import UPSTREAM

DIAMOND = """
def f(a):
    if a:
        b = 1
    else:
        b = 2
    return b
"""


def _line_ipdom(src: str) -> dict[int, str]:
    cfg = cfg_of(src)
    ipdom = postdominators(cfg)
    out = {}
    for n in cfg.statement_nodes():
        p = cfg.nodes[ipdom[n.id]]
        out[n.line] = "X" if p.kind == "exit" else str(p.line)
    return out


def test_postdominators_diamond() -> None:
    assert _line_ipdom(DIAMOND) == {1: "2", 2: "6", 3: "6", 5: "6", 6: "X"}


def test_postdominators_infinite_loop_gets_a_fake_exit() -> None:
    ip = _line_ipdom("""
    def f(q):
        while True:
            q.poll()
    """)
    assert ip[2] == "X" and ip[3] == "2"


def test_cdg_diamond_and_guard() -> None:
    assert controllers(DIAMOND) == {1: set(), 2: set(), 3: {2}, 5: {2}, 6: set()}
    ctl = controllers("""
    def f(a):
        if a < 0:
            return 0
        b = a * 2
        return b
    """)
    assert ctl[3] == {2} and ctl[4] == {2} and ctl[5] == {2}


def test_cdg_loop_and_break() -> None:
    ctl = controllers("""
    def f(xs):
        for x in xs:
            if x:
                break
            y = x
        return 1
    """)
    assert ctl[2] == {3}  # the header re-runs iff the break is not taken
    assert ctl[3] == {2} and ctl[4] == {3} and ctl[5] == {3}
    assert ctl[6] == set()


def test_cdg_try_handlers_depend_on_try() -> None:
    ctl = controllers("""
    def f(s):
        try:
            v = int(s)
        except ValueError:
            v = 0
        return v
    """)
    assert ctl[3] == {2} and ctl[4] == {2} and ctl[5] == {4}
    # an exception the clause does not match propagates and skips the return
    assert ctl[6] == {2, 4}


def test_reaching_defs_kill_and_merge() -> None:
    dp = data_preds("""
    def f(a, b):
        x = a
        x = b
        if a:
            x = 3
        return x
    """)
    assert dp[2] == {1} and dp[3] == {1}
    assert dp[6] == {3, 5}  # 2 is killed by 3


def test_reaching_defs_loop_carried() -> None:
    dp = data_preds("""
    def f(xs):
        t = 0
        for x in xs:
            t = t + x
        return t
    """)
    assert dp[4] == {2, 3, 4}
    assert dp[5] == {2, 4}


def test_attribute_paths_and_prefixes() -> None:
    dp = data_preds("""
    def f(self, o):
        self.a = 1
        self.b = 2
        o.x.y = 3
        p = self.a
        q = o.x
        o = None
        r = o
        self.log()
        return self
    """)
    assert dp[5] == {1, 2}  # self.a from 2; self (param) is a prefix
    assert dp[6] == {1, 4}  # o.x overlaps o.x.y
    assert dp[8] == {7}  # strong def of o kills earlier o and o.x.y
    assert dp[9] >= {2, 3}  # a method call reads its whole receiver
    assert dp[10] >= {1, 2, 3, 9}  # returning self reads every write to it


def test_store_base_is_a_reference_use_only() -> None:
    dp = data_preds("""
    def f(self):
        self.total = 1
        self.ticks = 2
    """)
    assert dp[3] == {1}  # not 2: writing self.ticks does not read self.total


def test_subscripts_are_weak_definitions() -> None:
    dp = data_preds("""
    def f(n):
        a = [0, 0]
        a[0] = n
        a[1] = 2
        return a[0]
    """)
    assert dp[5] == {2, 3, 4}
    assert dp[3] == {1, 2}  # reference a, value n


def test_call_may_mutate_arguments_but_not_pure_builtins() -> None:
    dp = data_preds("""
    def f(xs, helper):
        n = len(xs)
        helper(xs)
        return xs
    """)
    assert dp[4] == {1, 3}  # len() is pure: 2 does not define xs


def test_comprehension_scope_and_walrus() -> None:
    dp = data_preds("""
    def f(xs):
        x = 10
        ys = [x for x in xs if (y := x)]
        return x, y
    """)
    assert dp[3] == {1}  # the comprehension's x is its own
    assert dp[4] == {2, 3}  # x from 2; y bound by the walrus on 3


def test_nested_def_and_lambda_capture_free_names() -> None:
    dp = data_preds("""
    def f(a):
        k = a + 1
        g = lambda z: z + k
        def h(q):
            return q * k
        return g, h
    """)
    assert dp[3] == {2} and dp[4] == {2}
    assert dp[6] == {3, 4}


def test_global_and_nonlocal_writes_are_definitions() -> None:
    dp = data_preds("""
    def f():
        global g
        g = 1
        return g
    """)
    assert dp[4] == {3}


def test_match_captures_and_guard() -> None:
    dp = data_preds("""
    def f(cmd):
        match cmd:
            case [x, y] if x > y:
                r = x
            case {"k": v, **rest}:
                r = v
            case _:
                r = 0
        return r
    """)
    assert dp[3] == {2}  # the pattern reads the subject
    assert dp[4] == {3}
    assert dp[6] == {5}
    assert dp[9] == {4, 6, 8}


def test_exception_edges_carry_definitions_into_handlers() -> None:
    dp = data_preds("""
    def f(s):
        v = None
        try:
            v = int(s)
            w = v * 2
        except ValueError as e:
            return v, e
        return w
    """)
    assert dp[7] >= {2, 4, 6}


def test_downstream_and_upstream_slices() -> None:
    src = """
    def f(a, b):
        x = a + 1
        y = b * 2
        if x > 3:
            z = y
        else:
            z = 0
        return z
    """
    assert slice_lines(src, 2) == [4, 5, 7, 8]
    assert slice_lines(src, 8, UPSTREAM) == [1, 2, 3, 4, 5, 7]
    assert slice_lines(src, 3) == [5, 8]
