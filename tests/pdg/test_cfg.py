"""CFG shape per statement kind (E = entry, X = exit; numbers are source lines)."""

from __future__ import annotations

from pdg_helpers import cfg_of, edges


def test_straight_line() -> None:
    assert edges("""
    def f(a):
        b = a
        return b
    """) == {"E->1", "1->2", "2->3", "3->X"}


def test_if_elif_else() -> None:
    e = edges("""
    def f(a):
        if a > 1:
            b = 1
        elif a > 0:
            b = 2
        else:
            b = 3
        return b
    """)
    assert {"2->3:T", "2->4:F", "4->5:T", "4->7:F", "3->8", "5->8", "7->8"} <= e


def test_if_without_else_falls_through() -> None:
    e = edges("""
    def f(a):
        if a:
            a = 1
        return a
    """)
    assert {"2->3:T", "2->4:F", "3->4"} <= e


def test_for_else_break_continue() -> None:
    e = edges("""
    def f(xs):
        for x in xs:
            if x:
                continue
            if x is None:
                break
            y = x
        else:
            y = 0
        return y
    """)
    assert {"2->3:T", "2->9:F", "3->4:T", "4->2", "5->6:T", "6->10", "7->2", "9->10"} <= e


def test_while_true_has_no_false_edge() -> None:
    e = edges("""
    def f(n):
        while True:
            n -= 1
            if n < 0:
                break
        return n
    """)
    assert "2->6:F" not in e
    assert {"2->3:T", "5->6"} <= e


def test_while_else() -> None:
    e = edges("""
    def f(n):
        while n:
            n -= 1
        else:
            n = 5
        return n
    """)
    assert {"2->3:T", "2->5:F", "3->2", "5->6"} <= e


def test_return_and_dead_code() -> None:
    cfg = cfg_of("""
    def f(a):
        return a
        a = 2
    """)
    dead = next(n for n in cfg.nodes if n.line == 3)
    assert cfg.pred[dead.id] == []


def test_raise_goes_to_handler_or_exit() -> None:
    e = edges("""
    def f(a):
        try:
            if a:
                raise ValueError(a)
            b = 1
        except ValueError:
            b = 2
        raise KeyError(b)
    """)
    assert {"4->6:raise", "2->6:dispatch", "8->X:raise"} <= e


def test_try_except_else_finally_duplicates_finally() -> None:
    src = """
    def f(a):
        try:
            b = int(a)
        except ValueError:
            return 0
        else:
            b += 1
        finally:
            a = None
        return b
    """
    cfg = cfg_of(src)
    copies = [n for n in cfg.nodes if n.line == 9]
    # one copy per distinct continuation: fall-through, and exit (shared by the
    # handler's return and the re-raise of an unmatched exception)
    assert len(copies) == 2
    e = edges(src)
    assert "2->3" in e and "2->4:dispatch" in e and "4->5:T" in e
    assert {"9->10", "9->X"} <= e
    assert "4->9:F" in e  # unmatched exception → finally → re-raise to exit
    exc = edges(src, include_exc=True) - e
    assert "3->4:exc" in exc


def test_bare_except_has_no_false_edge() -> None:
    e = edges("""
    def f(a):
        try:
            a = a + 1
        except:
            a = 0
        return a
    """)
    assert "4->5:T" in e
    assert not any(x.startswith("4->") and x.endswith(":F") for x in e)


def test_with_and_async_with() -> None:
    assert {"2->3", "3->4"} <= edges("""
    def f(p):
        with open(p) as fh:
            data = fh.read()
        return data
    """)
    assert {"2->3", "3->4"} <= edges("""
    async def f(lock):
        async with lock as held:
            x = await held.get()
        return x
    """)


def test_match_case_chain() -> None:
    e = edges("""
    def f(cmd):
        match cmd:
            case "a":
                r = 1
            case [x, *rest] if x:
                r = 2
            case _:
                r = 3
        return r
    """)
    assert {"2->3", "3->4:T", "3->5:F", "5->6:T", "5->7:F", "7->8:T"} <= e
    assert "7->10:F" not in e  # `case _` is irrefutable


def test_match_without_wildcard_can_fall_out() -> None:
    e = edges("""
    def f(cmd):
        match cmd:
            case 1:
                r = 1
        return 0
    """)
    assert "3->5:F" in e


def test_assert_is_a_predicate() -> None:
    e = edges("""
    def f(a):
        assert a > 0, "positive"
        return a
    """)
    assert {"2->3:T", "2->X:raise"} <= e


def test_simple_statement_kinds_are_single_nodes() -> None:
    cfg = cfg_of("""
    def f(a, b):
        global g
        nonlocal_free = [v for v in a if v]
        del b
        h = lambda z: z + a
        def inner(q):
            return q + a
        class K:
            x = 1
        y = 1 if a else 2
        import os
        pass
        return h, inner, K, y, os
    """)
    kinds = [n.kind for n in cfg.statement_nodes() if n.kind != "params"]
    assert kinds.count("function_def") == 1 and kinds.count("class_def") == 1
    assert {"global", "assign", "delete", "import", "pass", "return"} <= set(kinds)
    lines = sorted(n.line for n in cfg.statement_nodes())
    # the nested def's and class's bodies are not statements of f
    assert 7 not in lines and 9 not in lines
    assert cfg.globals_declared == frozenset({"g"})


def test_yield_and_await_are_recorded() -> None:
    cfg = cfg_of("""
    async def f(q):
        x = await q.get()
        yield x
    """)
    n2 = next(n for n in cfg.nodes if n.line == 2)
    n3 = next(n for n in cfg.nodes if n.line == 3)
    assert n2.du.has_await and n3.du.has_yield


def test_nested_try_in_loop_break_through_finally() -> None:
    src = """
    def f(xs):
        for x in xs:
            try:
                if x:
                    break
            finally:
                x = 0
        return x
    """
    e = edges(src)
    # break runs the finally copy whose continuation is the loop exit
    assert any(x.startswith("5->7") for x in e)
    assert {"7->8", "7->2"} <= e


def test_signature_span_includes_closing_paren_line() -> None:
    from pdg_helpers import fn_of

    from impactlens.pdg.cfg import build_cfg

    src = "def f(\n    a,\n    b,\n):\n    return a\n"
    cfg = build_cfg(fn_of(src), src.splitlines())
    params = cfg.nodes[cfg.params_node]  # type: ignore[index]
    assert (params.line, params.end_line) == (1, 4)
