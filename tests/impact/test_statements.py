"""Which statements a function-body edit touches (impact/statements.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from impactlens.impact.statements import INERT, touched_statements

F = textwrap.dedent('''\
    @deco
    def f(x, items):
        """Doc."""
        total = 0
        for item in items:
            if item > x:
                total += item
            else:
                total -= 1
        try:
            check(total)
        except ValueError:
            total = 0
        return total
    ''')


def touched(old: str, new: str) -> tuple[str, list[int]]:
    assert old in F
    got = touched_statements(F, F.replace(old, new))
    return got.scope, sorted(got.lines)


def test_a_replaced_statement_touches_its_lines() -> None:
    assert touched("total += item", "total += 2 * item") == ("lines", [7])
    assert touched("total = 0\n    return", "total = -1\n    return") == ("lines", [13])


def test_a_multi_line_statement_touches_all_its_lines() -> None:
    src = "def f(a):\n    g(a,\n      1)\n    return a\n"
    assert touched_statements(src, src.replace("1)", "2)")).lines == frozenset({2, 3})
    inserted = src.replace("      1)", "      1,\n      2)")  # a line added inside it
    assert touched_statements(src, inserted).lines == frozenset({2, 3})


def test_an_added_statement_touches_the_statement_before_it() -> None:
    assert touched("total -= 1\n", "total -= 1\n            log(total)\n") == ("lines", [9])
    # dedented to the loop's body: after the if/else statement
    assert touched("total -= 1\n", "total -= 1\n        log(total)\n") == (
        "lines", list(range(6, 10)))
    # a statement removed: whoever reaches the gap ran it before (not merely the `try`)
    logged = F.replace("    return total\n", "    log()\n    return total\n")
    assert touched_statements(logged, F).lines == frozenset({14})
    # statements replaced by others of another shape: the first of them
    assert touched("    return total\n", "    log(total)\n    return total, 1\n") == (
        "lines", [14])


def test_an_edit_starting_a_block_touches_the_blocks_first_statement() -> None:
    # whoever reaches the start of the `else` block entered it, so ran `total -= 1` —
    # not merely the `if` header every loop turn runs
    assert touched("        else:\n", "        else:\n            log()\n") == ("lines", [9])
    assert touched("            total += item\n", "            log()\n") == ("lines", [7])
    assert touched("        check(total)\n", "        log()\n        check(total)\n") == (
        "lines", [11])  # the start of a `try` body
    assert touched("        total = 0\n    return",
                   "        log()\n        total = 0\n    return") == ("lines", [13])
    # a multi-line first statement: its continuation lines are inside the block too
    wide = F.replace("check(total)", "check(\n            total)")
    got = touched_statements(wide, wide.replace("            total)", "            total + 1)"))
    assert sorted(got.lines) == [11, 12]
    assert touched("    for item", "    for item")[0] == "function"  # sanity: no change


def test_in_a_generator_an_added_statement_touches_the_statement_it_precedes() -> None:
    # the test that reaches the new line goes on into `yield a`; `a = x` may have run in
    # another test, before the generator paused
    gen = "def g(xs):\n    for x in xs:\n        a = x\n        yield a\n"
    got = touched_statements(gen, gen.replace("a = x\n", "a = x\n        a += 1\n"))
    assert (got.scope, sorted(got.lines)) == ("lines", [4])
    got = touched_statements(gen, gen.replace("yield a\n", "yield a\n        log()\n"))
    assert (got.scope, sorted(got.lines)) == ("lines", [2, 3, 4])  # the end of a block


def test_a_changed_header_or_clause_touches_the_block_around_it() -> None:
    # a header or clause of a compound statement: the tests that ran the statement
    assert touched("if item > x:", "if item >= x:") == ("lines", list(range(6, 10)))
    assert touched("except ValueError:", "except (ValueError, TypeError):") == (
        "lines", list(range(10, 14)))
    assert touched("        else:\n", "        elif item:\n") == ("lines", list(range(6, 10)))


def test_top_level_structure() -> None:
    # whoever reaches the new line goes straight on into `return total` (not merely the
    # `try` statement before it)
    assert touched("    return total\n", "    log()\n    return total\n") == ("lines", [14])
    assert touched("total = 0\n    for", "total = 0\n    n = 1\n    for") == (
        "lines", list(range(5, 10)))  # the `for` statement it precedes
    # the body's first statement: nothing before it runs a line
    assert touched('"""Doc."""\n', '"""Doc."""\n    start()\n') == ("lines", [4])


def test_a_decorated_functions_docstring_may_be_read_by_anyone() -> None:
    # a decorator may read __doc__ at import (click builds a command's help from it)
    got = touched_statements(F, F.replace("Doc.", "Docs."))
    assert (got.scope, got.lines, got.doc) == ("lines", frozenset(), "any")
    got = touched_statements(F, F.replace("Doc.", "Docs.").replace("total -= 1", "total -= 2"))
    assert (got.scope, sorted(got.lines), got.doc) == ("lines", [9], "any")


PLAIN = F.replace("@deco\n", "")


def test_a_docstring_edit_alone_touches_no_statement() -> None:
    got = touched_statements(PLAIN, PLAIN.replace('"""Doc."""', '"""Doc.\n\n    More.\n    """'))
    assert (got.scope, got.lines, got.doc) == ("lines", frozenset(), "named")


def test_a_docstring_edit_keeps_the_rest_of_the_edit_in_before_lines() -> None:
    # the docstring grows by two lines and a statement changes: lines stay the before text's
    after = PLAIN.replace('"""Doc."""', '"""Doc.\n\n    More.\n    """').replace(
        "total -= 1", "total -= 2")
    got = touched_statements(PLAIN, after)
    assert (got.scope, sorted(got.lines), got.doc) == ("lines", [8], "named")
    # a docstring removed together with a change to the body's first statement
    after = PLAIN.replace('    """Doc."""\n', "").replace("total = 0\n    for",
                                                         "total = 1\n    for")
    got = touched_statements(PLAIN, after)
    assert (got.scope, got.doc) == ("lines", "named") and sorted(got.lines) == [3]


def test_scope_and_kind_changes_touch_the_whole_function() -> None:
    # `check` becomes a local: the unchanged `check(total)` reads it
    assert touched("total += item", "check = item")[0] == "function"
    assert touched("total -= 1", "total -= yield")[0] == "function"
    assert touched("total -= 1", "global total")[0] == "function"
    # a new local used only where it is written changes nothing else
    assert touched("total += item", "step = item; total += step")[0] == "lines"


def test_unparsable_or_not_a_function() -> None:
    assert touched_statements(F, F + "  )").scope == "function"
    assert touched_statements("x = 1\n", "x = 2\n").scope == "function"


@given(st.integers(min_value=0, max_value=10**6))
def test_changing_a_constant_touches_exactly_its_statement(value: int) -> None:
    got = touched_statements(F, F.replace("total -= 1", f"total -= {value}"))
    assert (got.scope, sorted(got.lines)) == (("lines", [9]) if value != 1 else ("function", []))


@given(st.lists(st.sampled_from(["a = b", "b = a + 1", "print(a)", "a += 1", "c = a"]),
                min_size=1, max_size=5), st.data())
def test_a_single_statement_replacement_never_misses_its_line(
        body: list[str], data: st.DataObject) -> None:
    src = "def f(a, b):\n" + "".join(f"    {s}\n" for s in body) + "    return a\n"
    i = data.draw(st.integers(min_value=0, max_value=len(body) - 1))
    changed = [*body]
    changed[i] = body[i].replace("a", "b", 1)
    new = "def f(a, b):\n" + "".join(f"    {s}\n" for s in changed) + "    return a\n"
    got = touched_statements(src, new)
    assert got.scope in ("lines", "function")
    if got.scope == "lines":
        assert i + 2 in got.lines
    if len(set(body)) == len(body) and changed[i] != body[i] and changed[i] not in body:
        assert (got.scope, got.lines) == ("lines", frozenset({i + 2}))  # an unambiguous diff


def test_comment_hunks_touch_nothing() -> None:
    commented = F.replace("    try:", "    # then check\n    try:")
    both = commented.replace("total += item", "total += 2 * item").replace(
        "# then check", "# then check it")
    assert touched_statements(commented, both).lines == frozenset({7})
    mixed = F.replace("    for item", "    # sum up\n    for item").replace(
        "total += item", "total += 2 * item")
    assert touched_statements(F, mixed).lines == frozenset({7})


def test_statements_that_run_no_line_are_passed_over() -> None:
    src = ("def f(x):\n"         # 1
           "    y = x\n"          # 2
           "    global G\n"       # 3
           "    G = y\n"          # 4
           "    return y\n")      # 5
    got = touched_statements(src, src.replace("    G = y\n", "    log(y)\n    G = y\n"))
    assert (got.scope, sorted(got.lines)) == ("lines", [4])  # the statement it precedes
    src = 'def f(x):\n    """Doc."""\n    global G\n    return x\n'
    got = touched_statements(src, src.replace("    return x", "    log()\n    return x"))
    assert (got.scope, sorted(got.lines)) == ("lines", [4])
    # at the end of the body, only a docstring and a declaration before it: the function
    got = touched_statements(src, src.replace("    global G\n    return x\n",
                                              "    global G\n"))
    assert got.scope == "lines" and got.lines == frozenset({4})  # the removed `return x`


def test_a_name_new_to_the_function_changes_no_other_statement() -> None:
    src = "def f(x) -> bool:\n    if x:\n        return False\n    return True\n"
    got = touched_statements(src, src.replace("return False", "return bool(0)"))
    assert (got.scope, sorted(got.lines)) == ("lines", [3])  # `bool` only in the annotation


def test_a_docstring_on_a_line_with_code_touches_the_whole_function() -> None:
    src = 'def f(x):\n    """Doc."""; y = x\n    return y\n'
    got = touched_statements(src, src.replace("Doc.", "Docs."))
    assert (got.scope, got.doc) == ("function", "named")


FACTORY = textwrap.dedent('''\
    def make(prefix, sep="-"):
        """Build a namer."""
        def name(x, upper=False):
            """Name x."""
            out = prefix + sep + x
            return out.upper() if upper else out
        return name
    ''')


def test_an_edit_starting_a_nested_functions_body_needs_a_call_not_the_def_line() -> None:
    got = touched_statements(FACTORY, FACTORY.replace(
        '        """Name x."""\n', '        """Name x."""\n        check(x)\n'))
    assert (got.scope, sorted(got.lines)) == ("lines", [5])  # its body's start, not line 3
    got = touched_statements(FACTORY, FACTORY.replace(
        "        return out.upper()", "        log(out)\n        return out.upper()"))
    assert (got.scope, sorted(got.lines)) == ("lines", [6])  # the statement it precedes


def test_a_nested_functions_signature_runs_with_the_enclosing_function() -> None:
    # a default is evaluated when the def statement runs: the def line must have run
    got = touched_statements(FACTORY, FACTORY.replace("upper=False", "upper=True"))
    assert got.scope == "lines" and 3 in got.lines


def test_a_nested_generator_resumes_mid_body() -> None:
    gen = FACTORY.replace("return out.upper() if upper else out", "yield out")
    got = touched_statements(gen, gen.replace("        yield out",
                                              "        log(out)\n        yield out"))
    assert (got.scope, sorted(got.lines)) == ("lines", [6])
    got = touched_statements(gen, gen.replace("        yield out\n",
                                              "        yield out\n        log(out)\n"))
    assert (got.scope, sorted(got.lines)) == ("lines", [4, 5, 6])  # resumes mid-body


INIT = textwrap.dedent('''\
    def __init__(self, name, parent=None):
        self.name = name
        # where it hangs
        self.parent = parent

        self.children = []
    ''')


def every_attribute(stores: Mapping[str, int]) -> set[str]:
    return set(stores)


def test_a_store_nothing_reads_adds_no_line() -> None:
    after = INIT.replace("    self.children = []\n",
                         "    self.children = []\n    # new\n"
                         "    self.soft = False\n    self.level = -1\n")
    got = touched_statements(INIT, after, every_attribute)
    assert (got.scope, got.lines, got.why) == ("lines", frozenset(), INERT)
    # without the project's word on it, the store is a statement like any other
    assert touched_statements(INIT, after).lines == frozenset({6})
    # an attribute something reads keeps its store
    got = touched_statements(INIT, after, lambda stores: {"level"})
    assert got.lines == frozenset({6}) and got.why != INERT


def test_only_the_edits_own_stores_are_asked_about() -> None:
    asked: list[dict[str, int]] = []

    def spy(stores: Mapping[str, int]) -> set[str]:
        asked.append(dict(stores))
        return set(stores)

    after = INIT.replace("    self.parent = parent\n",
                         "    self.parent = parent\n    self.name = 'x'\n")
    assert touched_statements(INIT, after, spy).why == INERT
    assert asked == [{"name": 2}]  # the edit's store of `name`, and the unchanged one


def test_a_mixed_edit_keeps_the_rest() -> None:
    after = INIT.replace("    self.parent = parent\n",
                         "    self.parent = parent\n    self.flag = True\n") \
        .replace("self.children = []", "self.children = list(name)")
    got = touched_statements(INIT, after, lambda stores: {"flag"} & set(stores))
    assert (got.scope, sorted(got.lines)) == ("lines", [6])  # the changed `children` store


@pytest.mark.parametrize("store", [
    "self.flag = compute()",           # runs code
    "self.flag = other",               # a global: may be unbound
    "self.flag = name.upper",          # an attribute read
    "self.flag = {[]: 1}",             # a key that does not hash
    "self.flag += 1",                  # reads it first
    "self.flag, self.x = 1, 2",        # not a plain store
    "x = 1; self.flag = 1",            # shares its line
    "self.__flag = 1",                 # a mangled name, reachable as _Cls__flag
    "other.flag = 1",                  # not the instance
])
def test_a_store_that_may_run_code_or_fail_is_a_statement(store: str) -> None:
    after = INIT.replace("    self.children = []\n",
                         f"    self.children = []\n    {store}\n")
    assert touched_statements(INIT, after, every_attribute).lines == frozenset({6})


def test_a_rebound_instance_or_decorated_method_keeps_every_store() -> None:
    rebound = INIT + "    self = parent\n"
    after = rebound.replace("    self.children = []\n",
                            "    self.children = []\n    self.flag = 1\n")
    assert touched_statements(rebound, after, every_attribute).lines == frozenset({7})
    decorated = "@wraps\n" + INIT
    after = decorated.replace("    self.children = []\n",
                              "    self.children = []\n    self.flag = 1\n")
    assert touched_statements(decorated, after, every_attribute).lines == frozenset({7})


def test_a_store_alone_in_its_block_stays() -> None:
    src = "def f(self, x):\n    if x:\n        pass\n    return x\n"
    after = src.replace("        pass\n", "        self.flag = 1\n")
    # blanking it would leave an empty block: the store is compared like any statement
    assert touched_statements(src, after, every_attribute).lines == frozenset({3})


COND = ("def f(self, a, b):\n"
        "    if (a > 1\n"
        "            and b.ok):\n"
        "        return 1\n"
        "    return 0\n")


def test_a_changed_operand_of_a_condition_needs_a_test_that_evaluated_it() -> None:
    # `a > 1` false: `b.ok` is never evaluated, so the test cannot see the change
    got = touched_statements(COND, COND.replace("b.ok", "(b.ok or b.good)"))
    assert (got.scope, sorted(got.lines)) == ("lines", [3])
    # a constant operand may be folded into another line: the whole statement
    const = COND.replace("b.ok", "True")
    assert touched_statements(const, const.replace("True", "False")).lines == frozenset(
        range(2, 5))
    # the operator changed: not an operand of the same condition
    got = touched_statements(COND, COND.replace("and b.ok", "or b.ok"))
    assert got.lines == frozenset(range(2, 5))


TRY = ("def f(self, a, b):\n"         # 1
       "    try:\n"                    # 2
       "        a = a // b\n"          # 3
       "    except ValueError:\n"      # 4
       "        a = 0\n"               # 5
       "    log(a)\n"                  # 6
       "    return a\n")               # 7


def test_a_clause_an_exception_reaches_is_not_a_statement_after_the_try() -> None:
    # b == 0 raised past the `try` before the edit: `log(a)` never ran, yet the new handler
    # changes what that input does — the tests that ran the `try` statement
    for clause in ("    except ZeroDivisionError:\n        a = -1\n",
                   "    finally:\n        log(b)\n"):
        got = touched_statements(TRY, TRY.replace("    log(a)\n", clause + "    log(a)\n"))
        assert (got.scope, sorted(got.lines)) == ("lines", [2, 3, 4, 5])
    # a whole statement inserted there is reached only through the `try`'s end
    got = touched_statements(TRY, TRY.replace("    log(a)\n", "    check(a)\n    log(a)\n"))
    assert (got.scope, sorted(got.lines)) == ("lines", [6])


HOOK = textwrap.dedent('''\
    def __getattr__(name):
        if name == "Legacy":
            return _Legacy
        raise AttributeError(name)
    ''')
PRESENT = frozenset({"helper", "other"})


@pytest.mark.parametrize("branch", [
    '    if name == "helper":\n        warn("old")\n        return helper\n',
    '    if "helper" == name:\n        return helper\n',
    '    if name in ("helper", "other"):\n        return helper\n',
])
def test_a_hook_branch_for_a_name_the_module_binds_never_runs(branch: str) -> None:
    after = HOOK.replace("    raise AttributeError", branch + "    raise AttributeError")
    got = touched_statements(HOOK, after, present=PRESENT)
    assert (got.scope, got.lines, got.why) == ("lines", frozenset(), INERT)
    # removing one is as invisible; without the module's word, it is a statement
    assert touched_statements(after, HOOK, present=PRESENT).lines == frozenset()
    assert touched_statements(HOOK, after).lines == frozenset({4})


@pytest.mark.parametrize("branch", [
    '    if name == "missing":\n        return 1\n',            # a name the module lacks
    '    if name in ("helper", "missing"):\n        return 1\n',  # one of them lacking
    '    if name.startswith("help"):\n        return 1\n',       # not a plain comparison
    '    if name == "helper":\n        return 1\n    else:\n        pass\n',  # an else runs
])
def test_a_hook_branch_that_may_run_is_a_statement(branch: str) -> None:
    after = HOOK.replace("    raise AttributeError", branch + "    raise AttributeError")
    assert touched_statements(HOOK, after, present=PRESENT).lines == frozenset({4})


def test_only_a_hook_with_its_name_untouched_has_unreached_branches() -> None:
    rebound = HOOK.replace("    if name ==", "    name = name.lower()\n    if name ==")
    branch = '    if name == "helper":\n        return helper\n'
    for before, fn in ((rebound, "__getattr__"), (HOOK, "lookup")):
        before = before.replace("__getattr__", fn)
        after = before.replace("    raise AttributeError", branch + "    raise AttributeError")
        assert touched_statements(before, after, present=PRESENT).why != INERT
