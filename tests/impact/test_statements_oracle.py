"""Soundness of statement-level selection against execution: for random functions, random
edits and every input, an input whose outcome the edit changes must have run one of the lines
:func:`touched_statements` names, before the edit (what a recorded test run would show)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import FrameType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from impactlens.impact.statements import touched_statements

SIMPLE = ["r.append(1)", "r.append(a)", "a = a + 1", "b = a - 2", "a = a // (b - 1)",
          "self.q = 3", "self.q = b"]  # `q` is never read: its stores are inert

# each statement: ("s", text) | ["if", k, body, orelse, k2] (`if a > k`, `and b > k2` on a
# line of its own when k2 is not None) | ("for", body) | ["try", body, handler, kind, more,
# final] (`except kind:` handler, then `except ZeroDivisionError:` more and `finally:` final
# when not None)
Block = list[Any]

simple = st.sampled_from(SIMPLE).map(lambda t: ("s", t))


def blocks(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Block]:
    return st.lists(inner, min_size=1, max_size=3)


stmts = st.recursive(simple, lambda inner: st.one_of(
    st.tuples(st.just("if"), st.integers(-1, 2), blocks(inner), st.none() | blocks(inner),
              st.none() | st.integers(-1, 2)).map(list),
    st.tuples(st.just("for"), blocks(inner)),
    st.tuples(st.just("try"), blocks(inner), blocks(inner),
              st.sampled_from(["ZeroDivisionError", "ValueError"]), st.none() | blocks(inner),
              st.none() | blocks(inner)).map(list),
), max_leaves=8)


def render(body: Block) -> str:
    out = ["def f(self, a, b):", "    r = self.r = []"]  # `r` seen even when f raises

    def emit(block: Block, depth: int) -> None:
        pad = "    " * depth
        for s in block:
            if s[0] == "s":
                out.append(pad + s[1])
            elif s[0] == "if":
                if s[4] is None:
                    out.append(f"{pad}if a > {s[1]}:")
                else:  # a second operand on a line of its own
                    out.append(f"{pad}if (a > {s[1]}")
                    out.append(f"{pad}        and b > {s[4]}):")
                emit(s[2], depth + 1)
                if s[3]:
                    out.append(f"{pad}else:")
                    emit(s[3], depth + 1)
            elif s[0] == "for":
                out.append(f"{pad}for i in range(b % 3):")
                emit(s[1], depth + 1)
            else:
                out.append(f"{pad}try:")
                emit(s[1], depth + 1)
                out.append(f"{pad}except {s[3]}:")
                emit(s[2], depth + 1)
                for header, clause in (("except ZeroDivisionError:", s[4]), ("finally:", s[5])):
                    if clause:
                        out.append(pad + header)
                        emit(clause, depth + 1)

    emit(body, 1)
    out.append("    return r, a, b")
    return "\n".join(out) + "\n"


def conditions(block: Block) -> list[list[Any]]:
    """Every two-line ``if`` statement, nested ones included."""
    out = []
    for s in block:
        if s[0] == "if" and s[4] is not None:
            out.append(s)
        for child in s[2:4] if s[0] == "if" else s[1:]:
            if isinstance(child, list):
                out += conditions(child)
    return out


def clauses(block: Block) -> list[tuple[list[Any], int]]:
    """Every clause an edit can add: (statement, its slot) — an ``else:``, a second
    ``except``, a ``finally:``."""
    out = []
    for s in block:
        if s[0] == "if" and not s[3]:
            out.append((s, 3))
        if s[0] == "try":
            out += [(s, k) for k in (4, 5) if not s[k]]
        for child in s[2:4] if s[0] == "if" else s[1:]:
            if isinstance(child, list):
                out += clauses(child)
    return out


def places(block: Block) -> list[tuple[Block, int]]:
    """Every (block, index) an edit can happen at, nested blocks included."""
    out = [(block, i) for i in range(len(block) + 1)]
    for s in block:
        for child in s[2:4] if s[0] == "if" else s[1:]:
            if isinstance(child, list):
                out += places(child)
    return out


class Self:
    """The instance ``f`` runs on: ``r`` is set by ``f`` itself, ``q`` never read."""

    def __init__(self) -> None:
        self.q: object = None
        self.r: list[int] = []


def run(src: str, a: int, b: int) -> tuple[object, set[int]]:
    ns: dict[str, Any] = {}
    exec(compile(src, "<f>", "exec"), ns)
    lines: set[int] = set()

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_name != "f":
            return None
        if event == "line":
            lines.add(frame.f_lineno)
        return trace

    me = Self()
    sys.settrace(trace)
    try:
        outcome: object = ns["f"](me, a, b)
    except ZeroDivisionError:
        outcome = ("ZeroDivisionError", me.r)
    finally:
        sys.settrace(None)
    return outcome, lines


def inert(stores: Mapping[str, int]) -> set[str]:
    return {"q"} & set(stores)


@settings(max_examples=1000, deadline=None)
@given(blocks(stmts), st.data())
def test_an_input_the_edit_changes_ran_a_touched_line(body: Block, data: st.DataObject) -> None:
    before = render(body)
    spots = places(body)  # half the edits at a block's start, where the rules differ most
    block, i = data.draw(st.sampled_from([p for p in spots if p[1] == 0]) | st.sampled_from(spots))
    op = data.draw(st.sampled_from(["insert", "replace", "delete", "replace two", "condition",
                                    "clause"]))
    ifs, slots = conditions(body), clauses(body)
    if op == "condition" and ifs:  # the second operand of a condition: `and b > k2`
        data.draw(st.sampled_from(ifs))[4] += data.draw(st.sampled_from([-1, 1]))
    elif op == "clause" and slots:  # reached by an exception, not by the statement before
        owner, slot = data.draw(st.sampled_from(slots))
        owner[slot] = [data.draw(simple)]
    elif op == "insert" or i == len(block):
        block.insert(i, data.draw(simple))
    elif op == "replace" or len(block) == 1:
        block[i] = data.draw(simple)
    elif op == "delete":
        del block[i]
    else:  # a hunk over several statements: the first of them may leave the block
        block[i:i + 2] = data.draw(st.lists(simple, min_size=1, max_size=2))
    after = render(body)
    got = touched_statements(before, after, inert)
    if got.scope == "function":
        return  # every input runs the function
    for a in range(-2, 4):
        for b in range(-1, 4):
            old, ran = run(before, a, b)
            new, _ = run(after, a, b)
            if old != new:
                assert ran & got.lines, (before, after, a, b, sorted(got.lines))
