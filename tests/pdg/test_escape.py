"""The §3.2 conservative escape gate, built on the PDG."""

from __future__ import annotations

import textwrap

from impactlens.pdg.escape import EscapeVerdict, body_change_escapes


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def gate(before: str | None, after: str | None, bl: set[int], al: set[int]) -> EscapeVerdict:
    return body_change_escapes(
        None if before is None else _src(before), None if after is None else _src(after),
        frozenset(bl), frozenset(al),
    )


BASE = """
def f(self, xs, n):
    total = 0
    tmp = n * 2
    for x in xs:
        if x > 0:
            total += x
    self.total = total
    log = []
    log.append(tmp)
    return total
"""


def same(line: int) -> EscapeVerdict:
    return gate(BASE, BASE, {line}, {line})


def test_purely_local_temporary_does_not_escape() -> None:
    assert same(3) == EscapeVerdict(False, ())  # tmp only feeds a fresh local list
    assert same(9).escapes is False  # log.append(tmp) on a fresh local


def test_writes_self_attribute() -> None:
    assert "writes self.total" in same(7).reasons


def test_reaches_return_through_locals() -> None:
    v = same(6)  # total += x
    assert v.escapes
    assert "reaches return (line 10)" in v.reasons
    assert "reaches a statement that writes self.total (line 7)" in v.reasons


def test_predicate_reaches_return_by_control() -> None:
    assert same(5).escapes  # `if x > 0:` decides which `total += x` run


def test_return_itself() -> None:
    assert same(10).reasons == ("is a return (line 10)",)


def test_header_change() -> None:
    assert same(1).reasons == ("changes the def header (line 1)",)


def test_parameter_writes() -> None:
    before = """
    def g(p, q, r):
        a = 1
        return None
    """
    after = """
    def g(p, q, r):
        p = 2
        q[0] = 1
        r.append(3)
        r.attr = 4
        return None
    """
    v = gate(before, after, {2}, {2, 3, 4, 5})
    assert "writes parameter 'p'" in v.reasons
    assert "writes parameter 'q' (q[…])" in v.reasons
    assert "may mutate parameter 'r' through a call" in v.reasons
    assert "writes r.attr" in v.reasons


def test_global_and_nonlocal() -> None:
    src = """
    def h():
        global g
        g = 1
        CACHE["k"] = 2
        x = 3
        return None
    """
    v = gate(src, src, {3, 4, 5}, {3, 4, 5})
    assert "writes global 'g'" in v.reasons
    assert "writes global 'CACHE' (CACHE[…])" in v.reasons
    assert not any("'x'" in r for r in v.reasons)

    nl = """
    def outer():
        def inner():
            nonlocal c
            c = 1
    """
    # judged inside the given function only: `inner` is one statement of `outer`
    assert not gate(nl, nl, {4}, {4}).escapes


def test_alias_of_self_state() -> None:
    src = """
    def k(self, v):
        items = self.items
        items.append(v)
    """
    v = gate(src, src, {3}, {3})
    assert v.escapes
    assert any("may alias" in r for r in v.reasons)


def test_deleted_statement_judged_in_before() -> None:
    before = """
    def m(self):
        self.count = 0
        return 1
    """
    after = """
    def m(self):
        return 1
    """
    v = gate(before, after, {2}, set())
    assert v.reasons == ("writes self.count in before",)


def test_yield_and_raise() -> None:
    src = """
    def gen(n):
        k = n + 1
        yield k
        if k > 3:
            raise ValueError(k)
    """
    v = gate(src, src, {2}, {2})
    assert "reaches yield (line 3)" in v.reasons
    assert "reaches raise (line 5)" in v.reasons


def test_comment_only_change_does_not_escape() -> None:
    before = """
    def c(x):
        # old comment
        y = x
        return y
    """
    after = """
    def c(x):
        # new comment
        y = x
        return y
    """
    assert gate(before, after, {2}, {2}) == EscapeVerdict(False, ())


def test_docstring_change_does_not_escape() -> None:
    before = '''
    def d(x):
        """Old."""
        return x
    '''
    after = '''
    def d(x):
        """New words."""
        return x
    '''
    assert not gate(before, after, {2}, {2}).escapes


def test_changed_jump_is_judged_as_its_loop() -> None:
    src = """
    def j(xs):
        out = 0
        for x in xs:
            if x:
                break
            out += x
        return out
    """
    assert gate(src, src, {5}, {5}).escapes


def test_missing_and_unparseable_sources_escape() -> None:
    assert gate(None, BASE, set(), {3}).escapes
    assert gate("def broken(:\n", BASE, {1}, set()).escapes
    assert gate(None, None, set(), set()) == EscapeVerdict(False, ())
    assert gate(BASE, BASE, set(), set()) == EscapeVerdict(False, ())


def test_dedents_method_source() -> None:
    src = "    def meth(self):\n        self.x = 1\n"
    v = body_change_escapes(src, src, frozenset({2}), frozenset({2}))
    assert v.reasons == ("writes self.x",)
