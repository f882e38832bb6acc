"""Which statements a function-body edit touches: the lines a test must have executed, in a
recorded run, to be able to observe the edit (statement-level test selection).

A deterministic test that executed none of the changed statements runs the same way after
the edit — unless the edit changes what the *other* statements mean. Execution before and
after the edit is the same up to the first changed place a test reaches; so a test that can
see the edit reached that place *before* the edit too, and ran what stood there. The answer
is one of:

- ``lines``: the edit replaces simple statements with simple statements in the same places
  (the function's tree, with the touched statements masked, is unchanged): a test must have
  executed one of the replaced statements' lines — or, for operands of an ``if``/``while``
  condition written ``a and b …`` on lines of their own, one of those operands' lines (the
  rest of the condition stops early without them);
- ``lines`` of the first statement an edit replaces or removes (whoever reaches the edit
  went on into it); for an insertion, the statement right after it in the same block
  (whoever reaches the insertion went straight on into it before the edit: at the start of
  an ``else:``, a test that took the ``else``, not one that only ran the ``if`` header) or,
  when the insertion ends its block, the statement right before it (Python enters a block
  only at its start, so whatever reaches the insertion ran that statement); some line of
  the innermost compound statement (``if``, ``for``, ``try``, …) that holds the edit when it
  touches a header or a clause line (``else:``, ``except``); for the body of a function
  nested in the edited one, some line of that body: its ``def`` line runs when the
  enclosing function runs (a factory at import), the body only when the nested function is
  called;
- ``function``: no narrower claim is sound — the edit starts the function's body, a name
  changes scope (a new local shadowing a global read elsewhere, ``global``/``nonlocal``), the
  function becomes or stops being a generator or coroutine, or the source does not parse;
- statements that only store a value that cannot fail to build (a constant, a parameter,
  a display of those) in an attribute of ``self`` that nothing reads — ``unread``, given by
  the caller who can see the project, says so — run the same for every test that can
  observe anything: before the rest is compared, they are blanked on both sides (a new
  ``self.flag = False`` in ``__init__`` adds no line a test must have run);
- likewise a branch of a module's ``__getattr__`` (PEP 562) taken only for names the module
  always binds — ``present``, given by the caller who can read the module — never runs:
  Python calls the hook only for a name the module lacks, so its test is always false and
  runs no one's code (adding ``if name == "old": warn(…)`` beside an ``import old`` that
  is still there, the first step of a deprecation, changes nothing a test sees);
- beside the scope of the rest of the edit, ``doc`` says who can see a change to the
  function's own docstring, read as ``__doc__`` without running the function: ``"named"``
  — code that holds the function object, so the tests that name it; ``"any"`` for a
  *decorated* function — a decorator may read ``__doc__`` when the module is imported
  (click builds a command's help text from it), so a recording cannot say who sees it.

Lines are 1-based in ``before_src`` (the function's source before the edit, decorators
included). Leaves are simple statements that execute code; a bare constant (a docstring, an
``...`` body) emits no line event, so an edit there is handled by its enclosing block.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import symtable
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["COMPOUND", "INERT", "Touched", "Unread", "touched_statements"]

COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
             ast.TryStar, ast.Match, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCKS = ("body", "orelse", "finalbody")
INERT = ("it only changes what no test can observe (stores nothing reads, branches no "
         "lookup reaches)")


@dataclass(frozen=True)
class Touched:
    """``scope``: ``"lines"`` (a test must have run one of ``lines``) or ``"function"`` (any
    test that ran the function); ``doc``: the docstring changed too and who can read it —
    ``"named"`` (the tests that name the function) or ``"any"`` (a recording cannot tell)."""

    scope: str
    lines: frozenset[int] = frozenset()
    why: str = ""
    doc: str = ""


# attribute → how many stores of it the edited function holds ↦ those nothing else mentions
Unread = Callable[[Mapping[str, int]], set[str]]


def touched_statements(before_src: str, after_src: str, unread: Unread | None = None,
                       present: frozenset[str] = frozenset()) -> Touched:
    """The before-source lines a test must have executed to observe the edit. ``unread``:
    whether nothing in the project but the given number of the edited function's own stores
    mentions an attribute (``None``: every attribute may be read); ``present``: for a
    module's ``__getattr__``, the names attribute lookup on the module always finds."""
    try:
        before, after = _function(before_src), _function(after_src)
    except SyntaxError:
        return Touched("function", why="the function does not parse on its own")
    if before is None or after is None:
        return Touched("function", why="not a single function definition")
    if ast.get_docstring(before, clean=False) != ast.get_docstring(after, clean=False):
        # a decorator may read __doc__ when the module is imported
        doc = "any" if before.decorator_list or after.decorator_list else "named"
        b_code = _without_docstring(before_src, before)
        a_code = _without_docstring(after_src, after)
        if b_code is None or a_code is None:
            return Touched("function", why="its docstring shares a line with code", doc=doc)
        if _code_lines(b_code) == _code_lines(a_code):  # the docstring alone changed
            return Touched("lines", why="only its docstring changed", doc=doc)
        return dataclasses.replace(touched_statements(b_code, a_code, unread, present),
                                   doc=doc)
    if unread is not None or present:
        b_code, a_code = _without_inert(before_src, before, after_src, after, unread, present)
        if (b_code, a_code) != (before_src, after_src):
            if _code_lines(b_code) == _code_lines(a_code):
                return Touched("lines", why=INERT)
            return touched_statements(b_code, a_code)
    suspends = _suspends(before)
    if suspends != _suspends(after):
        return Touched("function", why="it became or stopped being a generator or coroutine")
    b_lines, a_lines = before_src.splitlines(), after_src.splitlines()
    hunks = _line_hunks(b_lines, a_lines)
    if not hunks:
        return Touched("function", why="no line changed")
    changed = {x for i1, i2, _, _ in hunks for x in range(i1 + 1, i2 + 1)}
    if _scope_changed(before_src, after_src, before, changed):
        return Touched("function", why="a name changes scope")
    b_leaves, b_compounds = _statements(before)
    a_leaves, a_compounds = _statements(after)
    touched_b = _touched(b_leaves, [(i1, i2) for i1, i2, _, _ in hunks])
    touched_a = _touched(a_leaves, [(j1, j2) for _, _, j1, j2 in hunks])
    if touched_b and _shape(before, touched_b) == _shape(after, touched_a):
        return Touched("lines", frozenset(x for s in b_leaves if id(s) in touched_b
                                          for x in _span(s)))
    ops_b = _operands(b_compounds, {x for i1, i2, _, _ in hunks for x in range(i1, i2)})
    ops_a = _operands(a_compounds, {x for _, _, j1, j2 in hunks
                                             for x in range(j1, j2)})
    if ops_b and (_shape(before, touched_b | set(ops_b))
                  == _shape(after, touched_a | set(ops_a))):
        return Touched("lines", frozenset(
            [x for s in b_leaves if id(s) in touched_b for x in _span(s)]
            + [x for e in ops_b.values() for x in range(e.lineno, (e.end_lineno or 0) + 1)]))
    resumable = any(suspends)  # a generator resumes mid-block in another test
    lines: set[int] = set()
    for i1, i2, j1, j2 in hunks:
        indent = _indent(b_lines[i1:i2] + a_lines[j1:j2])
        if indent < 0:
            continue  # only comments and blank lines: nothing runs differently
        first = (_first_replaced if i2 > i1 else _next_statement)(
            b_leaves + b_compounds, i1, i2, indent, b_lines)
        if first is not None and _whole(a_leaves + a_compounds, j1, j2, a_lines):
            lines.update(_span(first))
            continue
        lo, hi = (i1 + 1, i2) if i2 > i1 else (i1, i1)
        block = _enclosing(b_compounds, lo, hi, indent)
        if (isinstance(block, ast.FunctionDef | ast.AsyncFunctionDef)
                and _in_nested_body(block, i1, i2, b_lines)):
            lines.update(_nested_lines(block, i1, indent, b_lines))
            continue
        prev = None if resumable else _previous(block or before, i1, indent, b_lines)
        start = None if resumable or block is None else _block_start(block, i1, i2, indent,
                                                                      b_lines)
        if prev is not None:
            lines.update(_span(prev))
        elif start is not None:
            lines.update(_span(start))
        elif block is not None:
            lines.update(_span(block))
        else:
            return Touched("function", why="the edit starts the function's body")
    return Touched("lines", frozenset(lines))


def _without_docstring(src: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """``src`` with ``fn``'s docstring blanked out, line numbers kept (``...`` where it is
    the whole body: a bare constant runs no line either)."""
    if not fn.body or ast.get_docstring(fn, clean=False) is None:
        return src
    doc = fn.body[0]
    lines = src.splitlines()
    first, last = doc.lineno - 1, (doc.end_lineno or doc.lineno) - 1
    if lines[first][:doc.col_offset].strip() or (
            len(fn.body) > 1 and fn.body[1].lineno - 1 == last):
        return None  # shares a line with other code (`def f(): "doc"`, `"doc"; x = 1`)
    lines[first:last + 1] = [""] * (last - first + 1)
    if len(fn.body) == 1:
        lines[first] = " " * doc.col_offset + "..."
    return "\n".join(lines) + "\n"


def _line_hunks(b_lines: Sequence[str], a_lines: Sequence[str]
                ) -> list[tuple[int, int, int, int]]:
    """The changed line ranges (0-based, half-open) of both sides."""
    return [op[1:] for op in difflib.SequenceMatcher(None, b_lines, a_lines, autojunk=False)
            .get_opcodes() if op[0] != "equal"]


def _without_inert(before_src: str, before: ast.FunctionDef | ast.AsyncFunctionDef,
                   after_src: str, after: ast.FunctionDef | ast.AsyncFunctionDef,
                   unread: Unread | None, present: frozenset[str]) -> tuple[str, str]:
    """Both sources with the edit's statements no test can observe blanked out — stores to
    attributes nothing reads, branches no lookup reaches — line numbers kept; unchanged
    when a blanked block would be empty (it would not parse)."""
    b_text, a_text = before_src.splitlines(), after_src.splitlines()
    hunks = _line_hunks(b_text, a_text)
    b_spans, a_spans = [h[:2] for h in hunks], [h[2:] for h in hunks]
    b_dead = [s for s in _unreached(before, present, b_text) if _in_hunks(s, b_spans)]
    a_dead = [s for s in _unreached(after, present, a_text) if _in_hunks(s, a_spans)]
    if unread is not None:
        b_more, a_more = _unread_stores(before, b_text, b_spans, after, a_text, a_spans,
                                        unread)
        b_dead, a_dead = b_dead + b_more, a_dead + a_more
    if not b_dead and not a_dead:
        return before_src, after_src
    b_code = _blank(b_text, b_dead) if b_dead else before_src
    a_code = _blank(a_text, a_dead) if a_dead else after_src
    try:
        ast.parse(b_code), ast.parse(a_code)
    except SyntaxError:
        return before_src, after_src
    return b_code, a_code


def _unread_stores(before: ast.FunctionDef | ast.AsyncFunctionDef, b_text: Sequence[str],
                   b_spans: Sequence[Sequence[int]],
                   after: ast.FunctionDef | ast.AsyncFunctionDef, a_text: Sequence[str],
                   a_spans: Sequence[Sequence[int]], unread: Unread
                   ) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """The edit's stores (before, after) whose attributes nothing reads: nothing in the
    project mentions them but the edited function's own stores (counted after the edit)."""
    b_stores, a_stores = _self_stores(before, b_text), _self_stores(after, a_text)
    b_edit = [(s, attrs) for s, attrs in b_stores if _in_hunks(s, b_spans)]
    a_edit = [(s, attrs) for s, attrs in a_stores if _in_hunks(s, a_spans)]
    if not b_edit and not a_edit:
        return [], []
    asked = sorted({a for _, attrs in (*b_edit, *a_edit) for a in attrs})
    dead = unread({a: sum(a in attrs for _, attrs in a_stores) for a in asked})
    return ([s for s, attrs in b_edit if attrs <= dead],
            [s for s, attrs in a_edit if attrs <= dead])


def _unreached(fn: ast.FunctionDef | ast.AsyncFunctionDef, present: frozenset[str],
               text: Sequence[str]) -> list[ast.stmt]:
    """The ``if`` statements of a module's ``__getattr__`` with no ``else`` that test its
    parameter only for names in ``present`` (``name == "x"``, ``name in ("x", "y")``): the
    hook never runs for such a name, so the test is always false."""
    args = [*fn.args.posonlyargs, *fn.args.args]
    if (not present or fn.name != "__getattr__" or len(args) != 1 or fn.decorator_list
            or args[0].arg in _bound(fn)):
        return []
    param = args[0].arg
    return [n for n in _own_nodes(fn) if isinstance(n, ast.If) and not n.orelse
            and not text[n.lineno - 1][:n.col_offset].strip()
            and (names := _compared(n.test, param)) and names <= present]


def _compared(test: ast.expr, param: str) -> set[str]:
    """The strings ``test`` compares ``param`` with (``param == "x"``, ``"x" == param``,
    ``param in ("x", "y")``); empty for any other test."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return set()
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Name):
        left, right = right, left
    if not (isinstance(left, ast.Name) and left.id == param):
        return set()
    items = ([right] if isinstance(op, ast.Eq)
             else right.elts if isinstance(op, ast.In)
             and isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [])
    names = {e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names if len(names) == len(items) else set()


def _in_hunks(s: ast.stmt, spans: Sequence[Sequence[int]]) -> bool:
    """Whether ``s`` overlaps a changed span (0-based, half-open)."""
    return any(lo < (s.end_lineno or s.lineno) and s.lineno <= hi for lo, hi in spans)


def _self_stores(fn: ast.FunctionDef | ast.AsyncFunctionDef, text: Sequence[str]
                 ) -> list[tuple[ast.stmt, frozenset[str]]]:
    """The statements of ``fn``'s own scope that only store a value that cannot fail to build
    in attributes of its first parameter, each alone on its lines, with those attributes.
    None when ``fn`` is decorated (its first argument may be anything) or rebinds it."""
    args = [*fn.args.posonlyargs, *fn.args.args]
    if fn.decorator_list or not args:
        return []
    me, params = args[0].arg, {a.arg for a in (*args, *fn.args.kwonlyargs)}
    own = list(_own_nodes(fn))
    if _bound(fn) & params:
        return []  # a parameter rebound or deleted: what it holds is unknown
    stmts = [n for n in own if isinstance(n, ast.stmt)]
    out = []
    for s in stmts:
        targets = (s.targets if isinstance(s, ast.Assign)
                   else [s.target] if isinstance(s, ast.AnnAssign) and s.value else [])
        attrs = [t.attr for t in targets if isinstance(t, ast.Attribute)
                 and isinstance(t.value, ast.Name) and t.value.id == me
                 and not t.attr.startswith("__")]
        value = getattr(s, "value", None)
        if (targets and len(attrs) == len(targets) and value is not None
                and _cannot_fail(value, params) and _alone(s, stmts, text)):
            out.append((s, frozenset(attrs)))
    return out


def _bound(fn: ast.AST) -> set[str]:
    """The names ``fn``'s body binds or deletes (its parameters are not counted)."""
    out: set[str] = set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
        for child in ast.iter_child_nodes(n):
            if isinstance(child, _SCOPES) and not isinstance(child, ast.Lambda):
                out.add(child.name)  # a nested def or class binds its name here
    for child in ast.iter_child_nodes(fn):
        if isinstance(child, _SCOPES) and not isinstance(child, ast.Lambda):
            out.add(child.name)
    return out


def _cannot_fail(e: ast.expr, params: set[str]) -> bool:
    """Whether building ``e`` runs no code of anyone's and cannot raise: a constant, a
    parameter, a signed number, a tuple/list/dict/set display of those (set members and
    dict keys constants, which hash)."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in params
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return isinstance(e.operand, ast.Constant) and isinstance(e.operand.value, (int, float))
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(_cannot_fail(x, params) for x in e.elts)
    if isinstance(e, ast.Set):
        return all(isinstance(x, ast.Constant) for x in e.elts)
    if isinstance(e, ast.Dict):
        return (all(isinstance(k, ast.Constant) for k in e.keys)
                and all(_cannot_fail(v, params) for v in e.values))
    return False


def _alone(s: ast.stmt, stmts: Sequence[ast.stmt], text: Sequence[str]) -> bool:
    """Whether ``s`` starts its line and no other statement shares a line with it
    (``if a: self.x = 1``, ``a(); self.x = 1``)."""
    lo, hi = s.lineno, s.end_lineno or s.lineno
    return not text[lo - 1][:s.col_offset].strip() and not any(
        o is not s and not isinstance(o, COMPOUND)
        and o.lineno <= hi and lo <= (o.end_lineno or o.lineno) for o in stmts)


def _blank(lines: Sequence[str], stmts: Sequence[ast.stmt]) -> str:
    out = list(lines)
    for s in stmts:
        out[s.lineno - 1:s.end_lineno or s.lineno] = [""] * _height(s)
    return "\n".join(out) + "\n"


def _height(s: ast.stmt) -> int:
    return (s.end_lineno or s.lineno) - s.lineno + 1


def _code_lines(src: str) -> list[str]:
    return [line for line in src.splitlines() if _is_code(line)]


def _in_nested_body(block: ast.FunctionDef | ast.AsyncFunctionDef, i1: int, i2: int,
                    text: Sequence[str]) -> bool:
    """Whether a hunk (0-based ``[i1, i2)`` of the before text) lies in the body of ``block``,
    a function nested in the edited one — not on its ``def`` line or signature, which run
    when the enclosing function runs."""
    first = block.body[0].lineno  # 1-based; a docstring counts: it is below the signature
    if i2 > i1:
        return i1 + 1 >= first
    header_end = max((x for x in range(block.lineno, first) if _is_code(text[x - 1])),
                     default=block.lineno)
    return i1 >= header_end  # an insertion after the signature's last line


def _nested_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef, i1: int, indent: int,
                  text: Sequence[str]) -> range:
    """What a test must have run to observe an edit at the top level of a nested function's
    body: the statement before it, else any line of the body (every call runs one);
    a nested generator or coroutine resumes mid-block, so any line of its body. Its ``def``
    line is not one: it runs when the enclosing function does, not when the nested one is
    called."""
    prev = None if any(_suspends(fn)) else _previous(fn, i1, indent, text)
    if prev is not None:
        return _span(prev)
    return range(_first(fn.body[0]), (fn.end_lineno or fn.lineno) + 1)


def _function(src: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body = ast.parse(src).body
    if len(body) == 1 and isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return body[0]
    return None


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s own scope (nested functions, classes and lambdas left out)."""
    for child in ast.iter_child_nodes(fn):
        if not isinstance(child, _SCOPES):
            yield child
            yield from _own_nodes(child)


def _suspends(fn: ast.AST) -> tuple[bool, bool]:
    kinds = {type(n) for n in _own_nodes(fn)}
    return (bool(kinds & {ast.Yield, ast.YieldFrom}), ast.Await in kinds)


def _statements(fn: ast.AST) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """Every statement under ``fn``: (leaves, compounds), nested blocks included."""
    leaves: list[ast.stmt] = []
    compounds: list[ast.stmt] = []

    def visit(block: Sequence[ast.stmt]) -> None:
        for s in block:
            if isinstance(s, COMPOUND):
                compounds.append(s)
                for block in _blocks(s):
                    visit(block)
            elif _runs_a_line(s):
                leaves.append(s)

    visit(fn.body)  # type: ignore[attr-defined]
    return leaves, compounds


def _first(s: ast.stmt) -> int:
    marks = [d.lineno for d in getattr(s, "decorator_list", None) or []]
    return min([s.lineno, *marks])


def _span(s: ast.stmt) -> range:
    return range(_first(s), (s.end_lineno or s.lineno) + 1)


def _touched(leaves: Sequence[ast.stmt], spans: Sequence[tuple[int, int]]) -> set[int]:
    """ids of the leaves a hunk (0-based half-open ``[lo, hi)`` lines) overlaps, or splits
    (a pure insertion or deletion inside a multi-line statement)."""
    out = set()
    for lo, hi in spans:
        for s in leaves:
            first, last = _first(s), s.end_lineno or s.lineno
            if (lo + 1 <= last and first <= hi) if hi > lo else (first <= lo < last):
                out.add(id(s))
    return out


def _shape(node: object, masked: set[int]) -> str:
    """``ast.dump`` without positions, each masked statement replaced by a placeholder."""
    if id(node) in masked:
        return "*"
    if isinstance(node, ast.AST):
        fields = ",".join(_shape(getattr(node, f, None), masked) for f in node._fields)
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return "[" + ",".join(_shape(x, masked) for x in node) + "]"
    return repr(node)


def _indent(lines: Sequence[str]) -> int:
    """The least indentation of the hunk's code lines (its outermost statement's column);
    -1 when it has none (comments and blank lines only)."""
    cols = [len(x) - len(x.lstrip()) for x in lines if _is_code(x)]
    return min(cols, default=-1)


def _is_code(line: str) -> bool:
    """Not blank, not only a comment."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _enclosing(compounds: Sequence[ast.stmt], lo: int, hi: int, indent: int) -> ast.stmt | None:
    """The innermost compound statement holding lines ``lo..hi`` whose own column is not
    right of the edit's: the edit is inside it (in a block, or a clause at its column —
    ``else:``, ``except``) or right after it, and whatever reaches the edit ran a line of
    it. (An edit dedented left of it lies after a block that holds it.)"""
    holding = [s for s in compounds
               if _first(s) <= lo and hi <= (s.end_lineno or s.lineno)
               and s.col_offset <= indent]
    return max(holding, key=_first, default=None)


def _previous(holder: ast.AST, line: int, indent: int, text: Sequence[str]) -> ast.stmt | None:
    """The statement right before an edit that starts after ``line``, in the same block of
    ``holder`` (a compound statement or the function): any test that reaches the edit ran
    it (Python enters a block only at its start). Statements that run no line (a docstring,
    ``global``) are passed over; ``None`` when the edit starts a block or only such
    statements precede it."""
    for block in _blocks(holder):
        before = [s for s in block if (s.end_lineno or s.lineno) <= line]
        if not before:
            continue
        prev = before[-1]
        end = prev.end_lineno or prev.lineno
        between = text[end:line]  # nothing but blank lines and comments may separate them
        if prev.col_offset != indent or any(map(_is_code, between)):
            continue
        return next((x for x in reversed(before) if _runs_a_line(x)), None)
    return None


def _operands(compounds: Sequence[ast.stmt], changed: set[int]) -> dict[int, ast.expr]:
    """The operands of ``if``/``while`` conditions written as ``a and b or …`` that lie
    wholly on ``changed`` lines (0-based) and read a name, by id. Python evaluates the
    operands in order and stops early, so only a test that evaluated a changed operand can
    see it change — and evaluating it starts a line of its own: the line event a recorded
    run keeps. (A constant operand is left out: the compiler may fold it into its
    neighbours' line.)"""
    out: dict[int, ast.expr] = {}

    def visit(e: ast.expr) -> None:
        if not isinstance(e, ast.BoolOp):
            return
        for v in e.values:
            lines = set(range(v.lineno - 1, v.end_lineno or v.lineno))
            if lines <= changed and any(isinstance(n, (ast.Name, ast.Attribute))
                                        for n in ast.walk(v)):
                out[id(v)] = v
            else:
                visit(v)

    for s in compounds:
        if isinstance(s, (ast.If, ast.While)):
            visit(s.test)
    return out


def _whole(stmts: Sequence[ast.stmt], j1: int, j2: int, text: Sequence[str]) -> bool:
    """Whether the after side of a hunk (0-based ``[j1, j2)``) is whole statements — every
    code line in one that starts there. A clause it adds (``except``, ``finally:``) is not:
    an exception reaches it, where before the edit nothing after it ran."""
    starts = [s for s in stmts if j1 < _first(s) <= j2]
    return all(any(_first(s) <= k <= (s.end_lineno or s.lineno) for s in starts)
               for k in range(j1 + 1, j2 + 1) if _is_code(text[k - 1]))


def _first_replaced(stmts: Sequence[ast.stmt], i1: int, i2: int, indent: int,
                    text: Sequence[str]) -> ast.stmt | None:
    """The statement a hunk that replaces or removes whole statements (0-based ``[i1, i2)``
    of the before text, at column ``indent``) begins with: a test that reaches the hunk ran
    that statement before the edit — execution up to the first change is the same, and there
    it went on into that statement (in a generator too: the test that resumes it reaches the
    hunk itself). ``None`` for an insertion, or a hunk that starts inside a statement or on a
    clause line (``else:``)."""
    if i2 <= i1:
        return None
    starts = [s for s in stmts if i1 < _first(s) <= i2 and s.col_offset == indent
              and _runs_a_line(s) and not any(map(_is_code, text[i1:_first(s) - 1]))]
    return min(starts, key=_first, default=None)


def _next_statement(stmts: Sequence[ast.stmt], i1: int, i2: int, indent: int,
                    text: Sequence[str]) -> ast.stmt | None:
    """The statement right after an insertion (after 0-based line ``i1`` of the before
    text, at column ``indent``) in the same block: whoever reaches the insertion would, before
    the edit, have gone straight on into it — in a generator too, unlike the statement
    before it, which another test may have run before the generator paused. ``None`` when
    the insertion ends its block."""
    after = [s for s in stmts if _first(s) > i1 and s.col_offset == indent
             and not any(map(_is_code, text[i1:_first(s) - 1]))]
    nxt = min(after, key=_first, default=None)
    return nxt if nxt is not None and _runs_a_line(nxt) else None


def _block_start(holder: ast.stmt, i1: int, i2: int, indent: int, text: Sequence[str]
                 ) -> ast.stmt | None:
    """The first statement that runs a line in the block of ``holder`` an edit (0-based
    ``[i1, i2)`` of the before text, at column ``indent``) starts: a test that reaches the
    edit entered that block, and entering a block runs its first statement — so it ran that
    statement, not merely ``holder``'s header. ``None`` when the edit is not inside one
    block's statements (it touches a header or a clause line: ``else:``, ``except``)."""
    for block in _blocks(holder):
        runs = [s for s in block if _runs_a_line(s)]
        if not runs or indent < block[0].col_offset:
            continue
        first, last = _first(block[0]), block[-1].end_lineno or block[-1].lineno
        gap = text[i1:first - 1]  # an insertion before the block's first statement
        inside = (first <= i1 + 1 and i2 <= last) if i2 > i1 else (
            first <= i1 < last or (i1 < first and not any(map(_is_code, gap))))
        if inside:
            return runs[0]
    return None


def _runs_a_line(s: ast.stmt) -> bool:
    """Whether executing ``s`` emits a line event (a bare constant — a docstring, ``...`` —
    is compiled away; ``global``/``nonlocal`` are declarations)."""
    return not (isinstance(s, (ast.Global, ast.Nonlocal))
                or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)))


def _blocks(holder: ast.AST) -> Iterator[list[ast.stmt]]:
    for name in _BLOCKS:
        if block := getattr(holder, name, None):
            yield block
    for h in getattr(holder, "handlers", None) or []:
        yield h.body
    for c in getattr(holder, "cases", None) or []:
        yield c.body


def _scope_changed(before_src: str, after_src: str, fn: ast.AST, changed: set[int]) -> bool:
    """Whether a name read or written outside the changed lines changes scope (local, global,
    free) in some function of the edit: a new local shadowing a global, a ``global`` or
    ``nonlocal`` added or removed."""
    try:
        b_scopes, a_scopes = _scopes(before_src), _scopes(after_src)
    except SyntaxError:
        return True
    # a name only one side has is used by the changed statements alone (the others are
    # the same on both sides): only a name both have, in another class, can move under them
    moved = {name for key, syms in b_scopes.items() if key in a_scopes
             for name in syms.keys() & a_scopes[key].keys()
             if syms[name] != a_scopes[key][name]}
    if not moved:
        return False
    elsewhere = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                 and n.lineno not in changed}
    return bool(moved & elsewhere)


def _scopes(src: str) -> dict[tuple[str, ...], dict[str, str]]:
    """Each function scope of ``src`` (by its path of names) → its names' classes."""
    out: dict[tuple[str, ...], dict[str, str]] = {}

    def visit(table: symtable.SymbolTable, path: tuple[str, ...]) -> None:
        seen: dict[str, int] = {}
        for child in table.get_children():
            n = seen[child.get_name()] = seen.get(child.get_name(), 0) + 1
            key = (*path, f"{child.get_name()}#{n}")
            if child.get_type() == "function":
                out[key] = {s.get_name(): _class(s) for s in child.get_symbols()}
            visit(child, key)

    visit(symtable.symtable(src, "<function>", "exec"), ())
    return out


def _class(sym: symtable.Symbol) -> str:
    if sym.is_global() or sym.is_declared_global():
        return "global"
    if sym.is_free() or sym.is_nonlocal():
        return "free"
    return "local" if sym.is_local() else "other"
