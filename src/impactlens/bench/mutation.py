"""Dynamic mutation oracle: a value-diff dynamic slice to cross-check the static one.

Per fixture: mutate the criterion line (≤ 4 mutants: arithmetic, relational, logical,
constant; negation only when nothing else applies), run the original and every mutant on
inputs derived from the criterion function's parameter annotations, and record — by
*statement line* — every value the program computes. A line whose recorded value
sequence differs between original and mutant (changed, appeared, disappeared) is in the
dynamic slice ``B``; the criterion line itself is excluded. Equivalent mutants (empty
``B``) and invalid ones (syntax error, non-termination) are discarded.

Why AST instrumentation and not ``sys.settrace``: a line-event tracer sees the locals
*before* a line runs, so attributing a value to the line that produced it needs a
one-event lag that breaks across calls, returns and exceptions, and it cannot see
values that are never bound to a local (call results, branch tests, return values). An
instrumenter wraps exactly those expressions in a value-transparent
``__il_trace__(value, file, line)`` that returns ``value`` unchanged, keeps every node's
original line number, and attributes each value to its enclosing statement's first line
— the same coordinate the static slice reports. Traced: assignment values (for augmented
assignments the target's new value), return/yield values, every call's result, branch
and loop tests, each loop item, match subjects and case guards, assert tests.

Each variant runs in its own ``python`` subprocess (fresh imports, a wall-clock
timeout) with a step budget inside the tracer against non-terminating mutants.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRACE = "__il_trace__"
TRACE_ITER = "__il_trace_iter__"
MAX_MUTANTS = 4
MAX_INPUTS = 64
STEP_BUDGET = 200_000
RUN_TIMEOUT_S = 30.0

INT_INPUTS = [5, -3, 0]
LIST_INT_INPUTS = [[1, 2, 3], [-1, -2], []]
BOOL_INPUTS = [True, False]
STR_INPUTS = ["a", "7", ""]


# ------------------------------------------------------------------- mutants
_AOR = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult,
        ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
_ROR = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
        ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
        ast.In: ast.NotIn, ast.NotIn: ast.In}


@dataclass(frozen=True, slots=True)
class Mutant:
    operator: str  # AOR | ROR | LCR | CRP | UOI
    description: str
    source: str  # the whole mutated file


def _stmt_at(tree: ast.Module, line: int) -> ast.stmt | None:
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line and (
            best is None or node.col_offset > best.col_offset
        ):
            best = node
    return best


def _header_exprs(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions that belong to the statement's own line (not its body)."""
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [i.context_expr for i in stmt.items]
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Try):
        return []
    return [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)]


def _replace(lines: list[str], node: ast.AST, text: str) -> list[str] | None:
    """Replace ``node``'s source span (single line only) by ``text``."""
    if node.lineno != node.end_lineno:  # type: ignore[attr-defined]
        return None
    i = node.lineno - 1  # type: ignore[attr-defined]
    raw = lines[i].encode("utf-8")
    a, b = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    new = raw[:a] + text.encode("utf-8") + raw[b:]
    out = list(lines)
    out[i] = new.decode("utf-8")
    return out


def mutants(source: str, line: int, limit: int = MAX_MUTANTS) -> list[Mutant]:
    """Up to ``limit`` syntactically valid mutants of the statement starting at ``line``."""
    tree = ast.parse(source)
    stmt = _stmt_at(tree, line)
    if stmt is None:
        return []
    lines = source.splitlines(keepends=True)
    cands: list[tuple[str, str, ast.AST, str]] = []
    for root in _header_exprs(stmt):
        for node in ast.walk(root):
            if getattr(node, "lineno", None) != line:
                continue
            if isinstance(node, ast.BinOp) and type(node.op) in _AOR:
                m = copy.deepcopy(node)
                m.op = _AOR[type(node.op)]()
                cands.append(("AOR", f"{type(node.op).__name__} → {type(m.op).__name__}",
                              node, f"({ast.unparse(m)})"))
            elif isinstance(node, ast.Compare) and type(node.ops[0]) in _ROR:
                m = copy.deepcopy(node)
                m.ops[0] = _ROR[type(node.ops[0])]()
                cands.append(("ROR", f"{type(node.ops[0]).__name__} → "
                              f"{type(m.ops[0]).__name__}", node, f"({ast.unparse(m)})"))
            elif isinstance(node, ast.BoolOp):
                m = copy.deepcopy(node)
                m.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
                cands.append(("LCR", f"{type(node.op).__name__} → {type(m.op).__name__}",
                              node, f"({ast.unparse(m)})"))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                cands.append(("LCR", "drop not", node, f"({ast.unparse(node.operand)})"))
            elif isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                    and not isinstance(node.value, bool):
                cands.append(("CRP", f"{node.value} → {node.value + 1}", node,
                              repr(node.value + 1)))
                if node.value != 0:
                    cands.append(("CRP", f"{node.value} → 0", node, "0"))
    if not cands:
        target: ast.AST | None = None
        if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
            target = stmt.value
        elif isinstance(stmt, ast.If | ast.While):
            target = stmt.test
        elif isinstance(stmt, ast.Expr):
            target = stmt.value
        if target is not None:
            neg = "not" if isinstance(stmt, ast.If | ast.While) else "-"
            cands.append(("UOI", f"negate {ast.unparse(target)}", target,
                          f"({neg} ({ast.unparse(target)}))"))
    # round-robin over operator classes so a small budget still covers each class
    by_op: dict[str, list[tuple[str, str, ast.AST, str]]] = {}
    for cand in cands:
        by_op.setdefault(cand[0], []).append(cand)
    ordered = [c for group in itertools.zip_longest(*by_op.values()) for c in group if c]
    out: list[Mutant] = []
    for op, desc, node, text in ordered:
        new = _replace(lines, node, text)
        if new is None:
            continue
        src = "".join(new)
        try:
            ast.parse(src)
        except SyntaxError:
            continue
        if src == source:
            continue
        out.append(Mutant(op, desc, src))
        if len(out) >= limit:
            break
    return out


# -------------------------------------------------------------- instrumenting
class _Instrument(ast.NodeTransformer):
    def __init__(self, relpath: str) -> None:
        self.file = relpath
        self.line = 0

    def _t(self, value: ast.expr, line: int | None = None) -> ast.expr:
        call = ast.Call(
            func=ast.Name(id=TRACE, ctx=ast.Load()),
            args=[value, ast.Constant(self.file), ast.Constant(line or self.line)],
            keywords=[],
        )
        return ast.copy_location(call, value)

    def visit(self, node: ast.AST) -> Any:
        if isinstance(node, ast.stmt):
            saved = self.line
            self.line = node.lineno
            try:
                return super().visit(node)
            finally:
                self.line = saved
        return super().visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        # decorators and defaults run in the enclosing scope; only the body is traced
        node.body = self._body(node.body)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            r = self.visit(s)
            if isinstance(r, list):
                out.extend(r)
            elif r is not None:
                out.append(r)
        return out

    def visit_Assign(self, node: ast.Assign) -> Any:
        node.value = self._t(self.visit(node.value))
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is not None:
            node.value = self._t(self.visit(node.value))
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        node.value = self.visit(node.value)
        if isinstance(node.target, ast.Name | ast.Attribute):
            load = copy.deepcopy(node.target)
            for n in ast.walk(load):
                if hasattr(n, "ctx"):
                    n.ctx = ast.Load()
            after = ast.Expr(value=self._t(load, node.lineno))
            ast.copy_location(after, node)
            ast.fix_missing_locations(after)
            return [node, after]
        return node

    def visit_Return(self, node: ast.Return) -> Any:
        if node.value is not None:
            node.value = self._t(self.visit(node.value))
        return node

    def visit_Yield(self, node: ast.Yield) -> Any:
        if node.value is not None:
            node.value = self._t(self.visit(node.value))
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        return self._t(node)

    def visit_If(self, node: ast.If) -> Any:
        node.test = self._t(self.visit(node.test))
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> Any:
        return self.visit_If(node)  # type: ignore[arg-type]

    def visit_For(self, node: ast.For) -> Any:
        node.iter = ast.copy_location(ast.Call(
            func=ast.Name(id=TRACE_ITER, ctx=ast.Load()),
            args=[self.visit(node.iter), ast.Constant(self.file), ast.Constant(node.lineno)],
            keywords=[],
        ), node.iter)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_Match(self, node: ast.Match) -> Any:
        node.subject = self._t(self.visit(node.subject))
        for case in node.cases:
            if case.guard is not None:
                case.guard = self._t(self.visit(case.guard), case.pattern.lineno)
            saved = self.line
            case.body = self._body(case.body)
            self.line = saved
        return node

    def visit_Assert(self, node: ast.Assert) -> Any:
        node.test = self._t(self.visit(node.test))
        return node


# ------------------------------------------------------------------- running
_RUNNER = r'''
import ast, builtins, copy, importlib, importlib.util, json, math, os, sys
sys.setrecursionlimit(5000)
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["root"])
from impactlens.bench.mutation import _Instrument, TRACE, TRACE_ITER, STEP_BUDGET

class _Budget(BaseException):
    pass

traces = {}
steps = [0]

def ser(v, depth=0):
    if depth > 5:
        return "..."
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return repr(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return type(v).__name__ + "[" + ",".join(ser(x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        items = sorted((ser(k, depth + 1), ser(x, depth + 1)) for k, x in v.items())
        return "{" + ",".join(f"{k}:{x}" for k, x in items) + "}"
    if isinstance(v, (set, frozenset)):
        return "set{" + ",".join(sorted(ser(x, depth + 1) for x in v)) + "}"
    if callable(v) and not hasattr(v, "__dict__"):
        return "<callable>"
    if hasattr(v, "__dict__") and not isinstance(v, type):
        return type(v).__name__ + ser(dict(vars(v)), depth + 1)
    return "<" + type(v).__name__ + ">"

def trace(value, file, line):
    steps[0] += 1
    if steps[0] > STEP_BUDGET:
        raise _Budget()
    traces.setdefault(f"{file}:{line}", []).append(ser(value))
    return value

def trace_iter(it, file, line):
    for x in it:
        trace(x, file, line)
        yield x

setattr(builtins, TRACE, trace)
setattr(builtins, TRACE_ITER, trace_iter)

class Finder:
    def find_spec(self, name, path, target=None):
        rel = name.replace(".", "/")
        for cand in (rel + ".py", rel + "/__init__.py"):
            full = os.path.join(spec["root"], cand)
            if os.path.exists(full):
                return importlib.util.spec_from_file_location(
                    name, full, loader=Loader(full, cand),
                    submodule_search_locations=[os.path.dirname(full)]
                    if cand.endswith("__init__.py") else None)
        return None

class Loader:
    def __init__(self, full, rel):
        self.full, self.rel = full, rel
    def create_module(self, s):
        return None
    def exec_module(self, module):
        src = open(self.full, encoding="utf-8").read()
        tree = _Instrument(self.rel).visit(ast.parse(src))
        ast.fix_missing_locations(tree)
        exec(compile(tree, self.full, "exec"), module.__dict__)

sys.meta_path.insert(0, Finder())
mod = importlib.import_module(spec["module"])
parts = spec["qualname"].split(".")
results = []
for args in spec["inputs"]:
    traces.clear()
    steps[0] = 0
    outcome = "ok"
    try:
        obj = mod
        if len(parts) == 2:
            inst = getattr(mod, parts[0])()
            fn = getattr(inst, parts[1])
        else:
            fn = getattr(mod, parts[0])
        ret = fn(*copy.deepcopy(args))
        outcome = "return " + ser(ret)
    except _Budget:
        outcome = "budget"
    except Exception as exc:
        outcome = "raise " + type(exc).__name__
    results.append({"outcome": outcome, "traces": dict(traces)})
print(json.dumps(results))
'''


@dataclass
class OracleResult:
    case: str
    status: str  # ok | skipped: <why>
    inputs: list[list[Any]] = field(default_factory=list)
    mutants: list[dict[str, Any]] = field(default_factory=list)
    behavioral: list[str] = field(default_factory=list)  # "file:line" keys (B)


def _run_variant(root: Path, module: str, qualname: str, inputs: list[list[Any]],
                 python: str) -> list[dict[str, Any]] | None:
    spec = {"root": str(root), "module": module, "qualname": qualname, "inputs": inputs}
    env = dict(os.environ)
    src_dir = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = src_dir + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONHASHSEED"] = "0"
    return run_json([python, "-c", _RUNNER, json.dumps(spec)], root, env)


def run_json(cmd: list[str], cwd: Path, env: dict[str, str] | None = None
             ) -> list[dict[str, Any]] | None:
    """The JSON list a variant runner prints last; None when it fails or times out."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              env=env, cwd=str(cwd))
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        return None
    try:
        out: list[dict[str, Any]] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return out


def derive_inputs(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list[Any]] | None:
    """Cartesian product of per-parameter values from annotations (None if any is unknown)."""
    strs = list(STR_INPUTS)
    for n in ast.walk(fn):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n is not (
            fn.body[0].value if fn.body and isinstance(fn.body[0], ast.Expr) else None
        ) and len(n.value) <= 20 and n.value not in strs:
            strs.append(n.value)
    pools: list[list[Any]] = []
    args = [*fn.args.posonlyargs, *fn.args.args]
    if args and args[0].arg in ("self", "cls"):
        args = args[1:]
    for a in args:
        ann = ast.unparse(a.annotation) if a.annotation is not None else ""
        if ann == "int":
            pools.append(INT_INPUTS)
        elif ann in ("list[int]", "List[int]"):
            pools.append(LIST_INT_INPUTS)
        elif ann == "bool":
            pools.append(BOOL_INPUTS)
        elif ann == "str":
            pools.append(strs[:6])
        else:
            return None
    return [list(t) for t in itertools.product(*pools)][:MAX_INPUTS]


def run_oracle(case_dir: Path, case: str, file: str, module: str, qualname: str, line: int,
               python: str = sys.executable) -> OracleResult:
    """Dynamic slice ``B`` of ``file:line`` in ``module.qualname`` (see module doc)."""
    src = (case_dir / file).read_text(encoding="utf-8")
    tree = ast.parse(src)
    fn = _find(tree, qualname)
    if fn is None:
        return OracleResult(case, "skipped: criterion function not found")
    if len(qualname.split(".")) > 2:
        return OracleResult(case, "skipped: nested criterion function")
    inputs = derive_inputs(fn)
    if inputs is None:
        return OracleResult(case, "skipped: a parameter has no input generator")
    res = OracleResult(case, "ok", inputs=inputs)
    work = Path(tempfile.mkdtemp(prefix="impactlens-pdg-mut-"))
    try:
        orig_root = work / "orig"
        shutil.copytree(case_dir, orig_root, ignore=shutil.ignore_patterns(
            "ground-truth.json", "mutation-ground-truth.json", ".impactlens", ".git"))
        base = _run_variant(orig_root, module, qualname, inputs, python)
        if base is None:
            return OracleResult(case, "skipped: the original does not run")
        behavioral: set[str] = set()
        crit_key = f"{file}:{line}"
        for i, m in enumerate(mutants(src, line)):
            root = work / f"m{i}"
            shutil.copytree(orig_root, root)
            (root / file).write_text(m.source, encoding="utf-8")
            got = _run_variant(root, module, qualname, inputs, python)
            row: dict[str, Any] = {"operator": m.operator, "description": m.description}
            if got is None or any(r["outcome"] == "budget" for r in got):
                row["status"] = "invalid (does not run or does not terminate)"
                res.mutants.append(row)
                continue
            behavioral |= judge_mutant(base, got, crit_key, row)
            res.mutants.append(row)
        if not any(r["status"] == "killed" for r in res.mutants):
            res.status = "skipped: no non-equivalent valid mutant"
        res.behavioral = sorted(behavioral, key=_key_order)
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)


def judge_mutant(base: list[dict[str, Any]], got: list[dict[str, Any]], crit_key: str,
                 row: dict[str, Any], skip: frozenset[str] = frozenset()) -> set[str]:
    """The lines whose value sequences differ between the original's runs and the
    mutant's (criterion line and ``skip`` keys excluded); ``row`` gets the verdict."""
    b: set[str] = set()
    for orig_run, mut_run in zip(base, got, strict=True):
        for k in set(orig_run["traces"]) | set(mut_run["traces"]):
            if k not in skip and orig_run["traces"].get(k) != mut_run["traces"].get(k):
                b.add(k)
    b.discard(crit_key)
    if not b:
        row["status"] = "equivalent (no observable difference on the inputs)"
    else:
        row["status"] = "killed"
        row["behavioral"] = sorted(b, key=_key_order)
    return b


def _key_order(k: str) -> tuple[str, int]:
    f, _, ln = k.rpartition(":")
    return (f, int(ln))


def _find(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    parts = qualname.split(".")
    body: list[ast.stmt] = tree.body
    found: ast.AST | None = None
    for p in parts:
        found = next((n for n in body if isinstance(
            n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == p), None)
        if found is None:
            return None
        body = found.body  # type: ignore[attr-defined]
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None
