"""The dynamic mutation oracle for TypeScript/JavaScript fixtures, run with Node.

The method of :mod:`impactlens.bench.mutation` (mutate the criterion line, run original
and mutants on type-derived inputs, record every computed value by statement line; the
lines whose value sequence differs form the dynamic slice ``B``), with tree-sitter in
place of Python's ast:

* types are stripped by blanking their bytes (annotations, type arguments/parameters,
  interfaces, type aliases, ``as``/``satisfies`` tails, non-null ``!``, access
  modifiers), which keeps every byte offset and line number, so the file runs under
  plain ``node`` as an ES module;
* a value-transparent ``__il_t(value, line)`` wraps declarator values, assignments,
  update expressions, returns, yields, throws, calls and branch/loop/switch tests, with
  ``line`` the first line of the enclosing statement (a compound statement's header
  line, a ``do…while`` test's own line) — the coordinate the static slice reports;
* mutants: the operators of the criterion line (arithmetic, relational, logical,
  ``??``), its numeric literals (``k+1``, ``0``), else a negated operand.

Node is ``$IMPACTLENS_NODE`` or ``node`` on PATH; without it the oracle is skipped.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from impactlens.bench.mutation import (
    MAX_INPUTS,
    MAX_MUTANTS,
    OracleResult,
    _key_order,
    judge_mutant,
    run_json,
)
from impactlens.index.typescript.parse import parse_tree

STEP_BUDGET = 200_000
NUM = [5, -3, 0, 42]
NUM_LIST = [[1, 2, 3], [-1, -2], []]
BOOL = [True, False]
STR = ["a", "b", "z"]

_BLANK = frozenset({"type_annotation", "type_arguments", "type_parameters",
                    "interface_declaration", "type_alias_declaration", "accessibility_modifier",
                    "override_modifier", "implements_clause", "abstract_method_signature",
                    "index_signature", "ambient_declaration", "opting_type_annotation",
                    "omitting_type_annotation", "adding_type_annotation",
                    "type_predicate_annotation", "asserts_annotation"})
_STMT_HEADS = frozenset({"if_statement", "while_statement", "for_statement", "for_in_statement",
                         "switch_statement", "switch_case"})
_AOR = {"+": "-", "-": "+", "*": "+", "/": "*", "%": "*"}
_ROR = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===", "==": "!=",
        "!=": "=="}
_LCR = {"&&": "||", "||": "&&", "??": "||"}


def node_binary() -> str | None:
    exe = os.environ.get("IMPACTLENS_NODE") or shutil.which("node")
    return exe if exe else None


# ------------------------------------------------------------------ rewriting
def _walk(node: Any) -> Any:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def strip_types(data: bytes, tree: Any) -> bytearray:
    """``data`` with every type-only byte replaced by a space (newlines kept)."""
    out = bytearray(data)

    def blank(a: int, b: int) -> None:
        for i in range(a, b):
            if out[i] not in (10, 13):
                out[i] = 32

    for n in _walk(tree.root_node):
        t = n.type
        if t in _BLANK:
            blank(n.start_byte, n.end_byte)
        elif t in ("as_expression", "satisfies_expression") and n.named_children:
            blank(n.named_children[0].end_byte, n.end_byte)
        elif t == "non_null_expression":
            blank(n.end_byte - 1, n.end_byte)
        elif t == "optional_parameter":
            q = next((c for c in n.children if c.type == "?"), None)
            if q is not None:
                blank(q.start_byte, q.end_byte)
        elif t in ("abstract", "declare", "readonly") and not n.is_named:
            blank(n.start_byte, n.end_byte)
        elif t == "export_statement" and any(c.type == "=" for c in n.children):
            blank(n.start_byte, n.end_byte)  # `export = x` (CommonJS interop)
    return out


def _stmt_line(n: Any) -> int:
    """First line of the statement that evaluates ``n`` (a header for compounds)."""
    cur = n
    while cur is not None:
        if cur.type == "do_statement":
            cond = cur.child_by_field_name("condition")
            if cond is not None and cond.start_byte <= n.start_byte < cond.end_byte:
                return int(cond.start_point[0]) + 1
        if cur.type.endswith("_statement") or cur.type in (
                "lexical_declaration", "variable_declaration", "switch_case",
                "public_field_definition"):
            return int(cur.start_point[0]) + 1
        cur = cur.parent
    return int(n.start_point[0]) + 1


def _traced(tree: Any) -> list[Any]:
    """The expression nodes whose values are recorded."""
    out = []
    for n in _walk(tree.root_node):
        t = n.type
        if t in ("call_expression", "new_expression", "assignment_expression",
                 "augmented_assignment_expression", "update_expression"):
            out.append(n)
        elif t == "variable_declarator":
            out.append(n.child_by_field_name("value"))
        elif t in ("return_statement", "throw_statement", "yield_expression"):
            out.append(next((c for c in n.named_children if c.type != "comment"), None))
        elif t == "arrow_function":
            body = n.child_by_field_name("body")
            out.append(body if body is not None and body.type != "statement_block" else None)
        elif t in _STMT_HEADS or t == "do_statement":
            for f in ("condition", "value", "right"):
                c = n.child_by_field_name(f)
                if t == "switch_case" or c is None or c.type == "empty_statement":
                    continue
                if c.type == "parenthesized_expression" and c.named_children:
                    c = c.named_children[0]  # `if (…)` keeps its parentheses
                out.append(c)
    return [n for n in out if n is not None and n.type not in ("super", "import")]


def instrument(data: bytearray, tree: Any, path: str) -> bytes:
    """Wrap each traced expression in ``__il_t((EXPR), "path:LINE")`` (offsets from
    ``tree``; the inner expression closes before the outer one)."""
    opens: dict[int, list[tuple[int, bytes]]] = {}
    closes: dict[int, list[tuple[int, bytes]]] = {}
    for n in _traced(tree):
        a, b = n.start_byte, n.end_byte
        opens.setdefault(a, []).append((-b, b"__il_t(("))
        key = json.dumps(f"{path}:{_stmt_line(n)}").encode()
        closes.setdefault(b, []).append((-a, b"), " + key + b")"))
    out = bytearray()
    for i in range(len(data) + 1):
        for _, txt in sorted(closes.get(i, []), key=lambda x: x[0]):
            out += txt
        for _, txt in sorted(opens.get(i, []), key=lambda x: x[0]):
            out += txt
        if i < len(data):
            out.append(data[i])
    return bytes(out)


def _to_js(path: str, src: bytes) -> bytes:
    tree = parse_tree(path, src)
    stripped = strip_types(src, tree)
    return instrument(stripped, tree, path)


# ------------------------------------------------------------------- mutants
def _criterion_nodes(tree: Any, line: int) -> list[Any]:
    """Operator / literal nodes that belong to the criterion line's own statement."""
    out = []
    for n in _walk(tree.root_node):
        if int(n.start_point[0]) + 1 == line and n.type in (
                "binary_expression", "number", "unary_expression",
                "augmented_assignment_expression"):
            out.append(n)
    return out


def ts_mutants(src: bytes, path: str, line: int, limit: int = MAX_MUTANTS
               ) -> list[tuple[str, str, bytes]]:
    """(operator, description, mutated file) for the criterion line."""
    tree = parse_tree(path, src)
    out: list[tuple[str, str, bytes]] = []
    nodes = _criterion_nodes(tree, line)

    def swap(a: int, b: int, new: str) -> bytes:
        return src[:a] + new.encode() + src[b:]

    for n in nodes:
        op = n.child_by_field_name("operator")
        if op is None:
            continue
        o = op.text.decode()
        for table, name in ((_AOR, "AOR"), (_ROR, "ROR"), (_LCR, "LCR")):
            if o in table:
                out.append((name, f"{o} → {table[o]}", swap(op.start_byte, op.end_byte, table[o])))
    for n in nodes:
        if n.type == "number":
            v = n.text.decode()
            try:
                k = float(v)
            except ValueError:
                continue
            repl = str(int(k) + 1) if k == int(k) else str(k + 1)
            out.append(("CRP", f"{v} → {repl}", swap(n.start_byte, n.end_byte, repl)))
            if k != 0:
                out.append(("CRP", f"{v} → 0", swap(n.start_byte, n.end_byte, "0")))
    for n in nodes:
        if n.type == "unary_expression" and n.child_by_field_name("operator") is not None \
                and n.child_by_field_name("operator").text == b"!":
            arg = n.child_by_field_name("argument")
            out.append(("LCR", "drop !", swap(n.start_byte, n.end_byte,
                                              f"({arg.text.decode()})")))
    for v in _value_nodes(tree, line):  # the statement's value itself, changed
        e = v.text.decode()
        out.append(("VAL", f"{e} → ({e}) + 1", swap(v.start_byte, v.end_byte, f"(({e}) + 1)")))
        out.append(("VAL", f"{e} → !({e})", swap(v.start_byte, v.end_byte, f"(!({e}))")))
    if not out:  # nothing to flip: negate a value read on the line
        for n in _walk(tree.root_node):
            p = n.parent
            if int(n.start_point[0]) + 1 != line or n.type != "identifier" or p is None:
                continue
            if p.type == "variable_declarator" and p.child_by_field_name("name") == n:
                continue
            if p.type in ("binary_expression", "variable_declarator", "return_statement",
                          "arguments", "assignment_expression") and not (
                    p.type == "assignment_expression" and p.child_by_field_name("left") == n):
                name = n.text.decode()
                out.append(("UOI", f"{name} → -{name}", swap(n.start_byte, n.end_byte,
                                                              f"(-{name})")))
                break
    return out[:limit]


def _value_nodes(tree: Any, line: int) -> list[Any]:
    """The value a statement starting on ``line`` computes (declared, assigned, tested,
    switched on or returned)."""
    out = []
    for n in _walk(tree.root_node):
        if int(n.start_point[0]) + 1 != line:
            continue
        t = n.type
        if t == "variable_declarator" and n.child_by_field_name("value") is not None:
            out.append(n.child_by_field_name("value"))
        elif t == "assignment_expression":
            out.append(n.child_by_field_name("right"))
        elif t in ("if_statement", "while_statement", "switch_statement"):
            c = n.child_by_field_name("condition") or n.child_by_field_name("value")
            if c is not None and c.type == "parenthesized_expression" and c.named_children:
                out.append(c.named_children[0])
        elif t == "return_statement" and n.named_children:
            out.append(n.named_children[0])
    return [v for v in out if v is not None][:1]


# -------------------------------------------------------------------- inputs
_POOLS: dict[str, list[Any]] = {
    "number": NUM, "number[]": NUM_LIST, "boolean": BOOL, "string": STR,
    "string[]": [["a", "b"], ["z"], []], "number[][]": [[[1, -2], [3]], [[-1]], []],
    "Record<string, number>": [{"base": 2, "bonus": 3}, {}],
}


def _pool(ann: Any) -> list[Any] | None:
    """Input values for a parameter type: the known scalar/array types, and object type
    literals whose properties all have one."""
    t = ann.text.decode().lstrip(":").strip() if ann is not None else ""
    if t in _POOLS:
        return _POOLS[t]
    lit = next((c for c in ann.named_children if c.type == "object_type"), None) \
        if ann is not None else None
    if lit is None:
        return None
    props: list[tuple[str, list[Any]]] = []
    for sig in lit.named_children:
        if sig.type != "property_signature":
            return None
        name = sig.child_by_field_name("name")
        sub = _pool(sig.child_by_field_name("type"))
        if name is None or sub is None:
            return None
        props.append((name.text.decode(), sub))
    return [{k: v[i % len(v)] for k, v in props} for i in range(2)]


def derive_ts_inputs(src: bytes, path: str, qualname: str) -> list[list[Any]] | None:
    """Cartesian product of per-parameter values from the type annotations."""
    fn = _find_function(parse_tree(path, src).root_node, qualname)
    if fn is None:
        return None
    params = fn.child_by_field_name("parameters")
    pools: list[list[Any]] = []
    # the string literals the function compares against, so each branch can be taken
    literals = [n.text.decode()[1:-1] for n in _walk(fn) if n.type == "string"
                and len(n.text) <= 22]
    strings = list(dict.fromkeys([*STR, *literals]))[:6]
    for p in params.named_children if params is not None else []:
        if p.type not in ("required_parameter", "optional_parameter"):
            return None
        pool = _pool(p.child_by_field_name("type"))
        if pool is STR:
            pool = strings
        if pool is None:
            return None
        pools.append(pool)
    return [list(x) for x in itertools.product(*pools)][:MAX_INPUTS]


def _find_function(root: Any, qualname: str) -> Any:
    parts = qualname.split(".")
    scope = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        hit = None
        for n in _walk(scope):
            name = n.child_by_field_name("name")
            if name is None or name.text.decode() != part:
                continue
            if last and n.type in ("function_declaration", "method_definition",
                                   "generator_function_declaration"):
                hit = n
                break
            if not last and n.type in ("class_declaration", "abstract_class_declaration"):
                hit = n
                break
        if hit is None:
            return None
        scope = hit
    return scope


_DRIVER = r"""
const spec = JSON.parse(process.argv[2]);
const traces = [];
let steps = 0;
function ser(v, d = 0) {
  if (d > 4) return '…';
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : String(v);
  if (typeof v === 'function') return 'fn';
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (typeof v.then === 'function') return 'promise';
  if (Array.isArray(v)) return '[' + v.map(x => ser(x, d + 1)).join(',') + ']';
  return '{' + Object.keys(v).sort().map(k => k + ':' + ser(v[k], d + 1)).join(',') + '}';
}
let cur = null;
globalThis.__il_t = (v, line) => {
  if (++steps > spec.budget) throw new Error('__il_budget');
  if (cur) (cur[line] ||= []).push(ser(v));
  return v;
};
const mod = await import(spec.module);
const results = [];
for (const args of spec.inputs) {
  cur = {};
  steps = 0;
  let outcome = 'ok';
  try {
    let target = mod;
    const parts = spec.qualname.split('.');
    let fn;
    if (parts.length === 2) { const inst = new mod[parts[0]](); fn = inst[parts[1]].bind(inst); }
    else fn = mod[parts[0]];
    let r = fn(...args);
    if (r && typeof r.then === 'function') r = await r;
    else if (r && typeof r.next === 'function' && typeof r[Symbol.iterator] === 'function')
      r = Array.from(r);
    (cur['result'] ||= []).push(ser(r));
  } catch (e) {
    outcome = e && e.message === '__il_budget' ? 'budget' : 'throw ' + (e && e.name);
  }
  results.push({ outcome, traces: cur });
}
console.log(JSON.stringify(results));
"""


def _run(node: str, root: Path, js_file: str, qualname: str, inputs: list[list[Any]]
         ) -> list[dict[str, Any]] | None:
    spec = {"module": (root / js_file).as_uri(), "qualname": qualname, "inputs": inputs,
            "budget": STEP_BUDGET}
    driver = root / "__il_driver.mjs"
    driver.write_text(_DRIVER)
    return run_json([node, str(driver), json.dumps(spec)], root)


def _write_variant(root: Path, case_dir: Path, file: str, text: bytes | None) -> str:
    """Every source file of the case as an instrumented ``.mjs`` (imports re-pointed)."""
    for p in sorted(case_dir.rglob("*")):
        if p.suffix not in (".ts", ".js", ".mjs", ".tsx") or p.name.endswith(".d.ts"):
            continue
        rel = p.relative_to(case_dir).as_posix()
        data = text if rel == file and text is not None else p.read_bytes()
        js = _to_js(rel, data)
        js = _repoint_imports(js)
        dest = root / (rel.rsplit(".", 1)[0] + ".mjs")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(js)
    return file.rsplit(".", 1)[0] + ".mjs"


def _repoint_imports(js: bytes) -> bytes:
    import re

    return re.sub(rb"""(from\s+['"])(\.{1,2}/[^'"]+?)(\.[jt]s)?(['"])""",
                  lambda m: m.group(1) + m.group(2) + b".mjs" + m.group(4), js)


def run_ts_oracle(case_dir: Path, case: str, file: str, qualname: str, line: int
                  ) -> OracleResult:
    """Dynamic slice ``B`` of ``file:line`` in ``qualname`` (see the module doc)."""
    node = node_binary()
    if node is None:
        return OracleResult(case, "skipped: node is not installed")
    src = (case_dir / file).read_bytes()
    if len(qualname.split(".")) > 2:
        return OracleResult(case, "skipped: nested criterion function")
    inputs = derive_ts_inputs(src, file, qualname)
    if inputs is None:
        return OracleResult(case, "skipped: a parameter has no input generator")
    res = OracleResult(case, "ok", inputs=inputs)
    work = Path(tempfile.mkdtemp(prefix="impactlens-pdg-mut-ts-"))
    try:
        base_root = work / "orig"
        js = _write_variant(base_root, case_dir, file, None)
        base = _run(node, base_root, js, qualname, inputs)
        if base is None:
            return OracleResult(case, "skipped: the original does not run under node")
        behavioral: set[str] = set()
        for i, (op, desc, text) in enumerate(ts_mutants(src, file, line)):
            root = work / f"m{i}"
            _write_variant(root, case_dir, file, text)
            got = _run(node, root, js, qualname, inputs)
            row: dict[str, Any] = {"operator": op, "description": desc}
            if got is None or any(r["outcome"] == "budget" for r in got):
                row["status"] = "invalid (does not run or does not terminate)"
                res.mutants.append(row)
                continue
            if any(m["outcome"] != "ok" and o["outcome"] == "ok" for o, m in zip(base, got,
                                                                              strict=True)):
                # a type-violating mutant: the lines after it vanish through an implicit
                # exception, which no static slice here models as a branch
                row["status"] = "invalid (throws where the original does not)"
                res.mutants.append(row)
                continue
            behavioral |= judge_mutant(base, got, f"{file}:{line}", row,
                                       frozenset({"result"}))
            res.mutants.append(row)
        if not any(r["status"] == "killed" for r in res.mutants):
            res.status = "skipped: no non-equivalent valid mutant"
        res.behavioral = sorted(behavioral, key=_key_order)
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)
