"""Static reading of pytest decorators: fixtures, parametrize ids, usefixtures.

Parametrize ids follow pytest's ``IdMaker`` (pytest 8/9 defaults): literal
str/bytes (≤ 100 chars) are ascii-escaped, numbers/bools/None use ``str()``,
lambdas ``<lambda>``, containers ``<argname><index>``; explicit ``ids=`` and
``pytest.param(..., id=...)`` win; duplicates get a counter suffix; several
``parametrize`` marks combine closest-decorator-first, joined with ``-``.
Anything not statically known makes the ids ``None`` (not computable).
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from typing import Any

_NONPRINT = {i: f"\\x{i:02x}" for i in range(128) if i not in range(32, 127)}
_NONPRINT.update({ord("\t"): "\\t", ord("\r"): "\\r", ord("\n"): "\\n"})

_UNKNOWN = object()


def dotted(node: ast.AST) -> str:
    """``pytest.mark.parametrize(...)`` → ``"pytest.mark.parametrize"``; else ``""``."""
    if isinstance(node, ast.Call):
        node = node.func
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def is_fixture_text(text: str) -> bool:
    return text in ("pytest.fixture", "fixture", "pytest_asyncio.fixture", "pytest.yield_fixture")


def fixture_info(deco: ast.expr, func_name: str) -> tuple[str, bool]:
    """(fixture name, autouse) of a ``@pytest.fixture`` / ``@pytest.fixture(...)`` decorator."""
    name, autouse = func_name, False
    if isinstance(deco, ast.Call):
        for kw in deco.keywords:
            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(
                kw.value.value, str
            ):
                name = kw.value.value
            elif kw.arg == "autouse" and isinstance(kw.value, ast.Constant):
                autouse = bool(kw.value.value)
    return name, autouse


def usefixtures_names(call: ast.AST) -> tuple[str, ...]:
    if not isinstance(call, ast.Call):
        return ()
    return tuple(
        a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
    )


def ascii_escaped(val: str | bytes) -> str:
    if isinstance(val, bytes):
        ret = val.decode("ascii", "backslashreplace")
    else:
        ret = val.encode("unicode_escape").decode("ascii")
    return ret.translate(_NONPRINT)


def _literal(node: ast.AST) -> Any:
    """A literal value, or _UNKNOWN. Containers come back as the marker 'container'."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _literal(node.operand)
        if isinstance(v, int | float | complex) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        return _UNKNOWN
    return _UNKNOWN


def _idval_from_value(v: Any) -> str | None:
    if isinstance(v, str | bytes):
        return ascii_escaped(v)
    if v is None or isinstance(v, float | int | bool | complex):
        return str(v)
    return None


def _value_id(node: ast.AST, argname: str, idx: int) -> str | None:
    """pytest's id for one parameter value; None when not statically known."""
    if isinstance(node, ast.Lambda):
        return "<lambda>"
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.ListComp | ast.SetComp
                  | ast.DictComp | ast.GeneratorExp | ast.JoinedStr):
        return argname + str(idx)
    v = _literal(node)
    if v is _UNKNOWN:
        return None
    if isinstance(v, str | bytes):
        if len(v) <= 100:
            return ascii_escaped(v)
        return argname + str(idx)
    out = _idval_from_value(v)
    return out if out is not None else argname + str(idx)


def _argnames(node: ast.AST) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [x.strip() for x in node.value.split(",") if x.strip()]
    if isinstance(node, ast.List | ast.Tuple):
        out = []
        for e in node.elts:
            if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
                return None
            out.append(e.value)
        return out
    return None


def _is_param_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func) in ("pytest.param", "param")


def parametrize_ids(call: ast.AST) -> list[str] | None:
    """Ids one ``@pytest.mark.parametrize(...)`` mark generates, or None."""
    if not isinstance(call, ast.Call):
        return None
    args = list(call.args)
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if not args and "argnames" in kw:
        args.append(kw["argnames"])
    if len(args) < 2 and "argvalues" in kw:
        args.append(kw["argvalues"])
    if len(args) < 2:
        return None
    names = _argnames(args[0])
    values = args[1]
    if names is None or not isinstance(values, ast.List | ast.Tuple):
        return None
    explicit: list[Any] | None = None
    if "ids" in kw:
        idsnode = kw["ids"]
        if not isinstance(idsnode, ast.List | ast.Tuple):
            return None
        explicit = []
        for e in idsnode.elts:
            v = _literal(e)
            if v is _UNKNOWN:
                return None
            explicit.append(v)
    single = len(names) == 1
    out: list[str] = []
    for idx, ps in enumerate(values.elts):
        pid: str | None = None
        vals: list[ast.AST]
        if _is_param_call(ps):
            assert isinstance(ps, ast.Call)
            vals = list(ps.args)
            for k in ps.keywords:
                if k.arg == "id":
                    v = _literal(k.value)
                    if v is _UNKNOWN or not (v is None or isinstance(v, str)):
                        return None
                    if v is not None:
                        pid = ascii_escaped(v)
        elif single:
            vals = [ps]
        elif isinstance(ps, ast.List | ast.Tuple):
            vals = list(ps.elts)
        else:
            return None
        if pid is None and explicit is not None and idx < len(explicit):
            pid = None if explicit[idx] is None else _idval_from_value(explicit[idx])
            if explicit[idx] is not None and pid is None:
                return None
        if pid is None:
            if len(vals) != len(names):
                return None
            parts = []
            for val, argname in zip(vals, names, strict=True):
                p = _value_id(val, argname, idx)
                if p is None:
                    return None
                parts.append(p)
            pid = "-".join(parts)
        out.append(pid)
    return _uniquify(out)


def _uniquify(ids: list[str]) -> list[str]:
    if len(ids) == len(set(ids)):
        return ids
    counts = Counter(ids)
    suffixes: dict[str, int] = defaultdict(int)
    out = list(ids)
    for index, i in enumerate(ids):
        if counts[i] > 1:
            suffix = "_" if i and i[-1].isdigit() else ""
            new = f"{i}{suffix}{suffixes[i]}"
            while new in set(out):
                suffixes[i] += 1
                new = f"{i}{suffix}{suffixes[i]}"
            out[index] = new
            suffixes[i] += 1
    return out


def combine(id_lists: list[list[str] | None]) -> tuple[str, ...] | None:
    """Cartesian product of several marks' ids, first mark outermost."""
    acc: list[str] = []
    first = True
    for ids in id_lists:
        if ids is None:
            return None
        if first:
            acc = list(ids)
            first = False
        else:
            acc = [f"{a}-{b}" for a in acc for b in ids]
    return tuple(acc)


def read_marks(decorators: list[ast.expr]) -> tuple[list[list[str] | None], tuple[str, ...]]:
    """Parametrize id lists (closest decorator first) and usefixtures names."""
    params: list[list[str] | None] = []
    use: list[str] = []
    for d in reversed(decorators):
        text = dotted(d)
        if text.endswith("mark.parametrize"):
            params.append(parametrize_ids(d))
        elif text.endswith("mark.usefixtures"):
            use.extend(usefixtures_names(d))
    return params, tuple(use)


def read_pytestmark(value: ast.expr) -> tuple[list[list[str] | None], tuple[str, ...]]:
    """Marks from ``pytestmark = mark`` or ``pytestmark = [mark, ...]``."""
    items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return read_marks(list(reversed(items)))


def plugin_names(value: ast.expr) -> tuple[str, ...]:
    """``pytest_plugins = "a.b"`` / ``["a.b", ...]`` → module names."""
    items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return tuple(e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str))
