"""The conservative escape gate for a method-body change (build contract §3.2).

A body change propagates to callers iff a changed statement — or a statement its
definitions/decisions reach through the function's own dependence graph — can be
observed outside the call:

(a) writes a parameter (``p = …``, ``p[k] = …``, ``p.append(…)``, ``helper(p)``),
(b) writes an attribute of ``self``/a parameter (``self.x = …``, ``p.x = …``),
(c) writes a global/nonlocal binding, or mutates a module-level object
    (``CACHE[k] = …``, ``logger.setLevel(…)``),
(d) is, or reaches, a ``return``/``yield``/``raise``.

"Reaches" is the forward closure over the PDG (reaching definitions + control
dependence), so ``t = x * 2`` followed by an unchanged ``return t`` escapes while a
dead temporary does not. A local that may alias a reachable object (``items =
self.items``) counts as that object. Deleted statements are judged in the *before*
function, added ones in the *after* function; a modified statement in both.

Unparseable or missing source escapes (conservative), with the reason saying so.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from impactlens.pdg.cfg import CFG, FunctionNode, header_span, signature_span
from impactlens.pdg.defuse import Def, path_text
from impactlens.pdg.graph import DOWNSTREAM, FunctionPDG


@dataclass(frozen=True, slots=True)
class EscapeVerdict:
    escapes: bool
    reasons: tuple[str, ...]


def body_change_escapes(
    before_func_src: str | None,
    after_func_src: str | None,
    changed_before_lines: frozenset[int],
    changed_after_lines: frozenset[int],
) -> EscapeVerdict:
    """Does a body change of one function reach its callers? (lines are 1-based
    within the given function source texts)."""
    reasons: list[str] = []
    if before_func_src is None and after_func_src is None:
        return EscapeVerdict(False, ())
    after_reasons = _side(after_func_src, changed_after_lines, "after")
    before_reasons = _side(before_func_src, changed_before_lines, "before")
    reasons.extend(after_reasons)
    seen = set(after_reasons)
    for r in before_reasons:
        tagged = r if "before" in r else f"{r} in before"
        if r not in seen and tagged not in seen:
            reasons.append(tagged)
            seen.add(tagged)
    out = tuple(sorted(set(reasons)))
    return EscapeVerdict(bool(out), out)


def _side(src: str | None, lines: frozenset[int], label: str) -> list[str]:
    if src is None:
        return [f"no {label} source (function added or removed): judged as escaping"]
    if not lines:
        return []
    src = textwrap.dedent(src)
    try:
        tree = ast.parse(src)
    except SyntaxError as exc:
        return [f"{label} source does not parse (line {exc.lineno}): judged as escaping"]
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
              None)
    if fn is None:
        return [f"no function definition in {label} source: judged as escaping"]
    return judge(fn, lines, src.splitlines())


def judge(fn: FunctionNode, lines: frozenset[int],
          source_lines: list[str] | None = None) -> list[str]:
    """Escape reasons for the statements of ``fn`` covering ``lines`` (absolute lines)."""
    pdg = FunctionPDG.build(fn, source_lines)
    cfg = pdg.cfg
    reasons: set[str] = set()
    sig_lo, sig_hi = signature_span(fn, source_lines)
    deco_lines = {ln for d in fn.decorator_list
                  for ln in range(d.lineno, (d.end_lineno or d.lineno) + 1)}
    body_end = fn.end_lineno or fn.lineno
    changed: set[int] = set()
    for line in sorted(lines):
        if sig_lo <= line <= sig_hi or line in deco_lines:
            reasons.add(f"changes the def header (line {line})")
            continue
        if not sig_hi < line <= body_end:
            continue
        nodes = cfg.nodes_at_line(line)
        if nodes:
            changed.update(n.id for n in nodes)
            continue
        owner = _structural_owner(fn, line)
        if owner is not None:  # an `else:` / `finally:` keyword line
            changed.update(n.id for n in cfg.nodes if n.stmt is owner)
    params = set(cfg.params)
    locally_bound = {d.path[0] for n in cfg.nodes for d in n.du.defs
                     if d.strong and len(d.path) == 1} - params
    aliases = _alias_locals(pdg, params, locally_bound)
    changed |= _jump_owners(fn, cfg, changed)
    for c in sorted(changed):
        reached = pdg.closure({c}, DOWNSTREAM) | {c}
        for m in sorted(reached, key=lambda i: (cfg.nodes[i].line, i)):
            node = cfg.nodes[m]
            own = m == c
            where = f"line {node.line}"
            for d in node.du.defs:
                r = _write_reason(d, params, cfg.globals_declared, cfg.nonlocals_declared,
                                  locally_bound, aliases)
                if r is not None:
                    reasons.add(r if own else f"reaches a statement that {r} ({where})")
            if node.is_return:
                reasons.add(f"is a return ({where})" if own else f"reaches return ({where})")
            if node.du.has_yield:
                reasons.add(f"is a yield ({where})" if own else f"reaches yield ({where})")
            if node.is_raise:
                reasons.add(f"is a raise ({where})" if own else f"reaches raise ({where})")
    return sorted(reasons)


def _jump_owners(fn: FunctionNode, cfg: CFG, changed: set[int]) -> set[int]:
    """A changed ``break``/``continue`` alters which iterations run: judge it as a change
    of its loop's header (control dependence alone does not see jumps)."""
    jumps = [cfg.nodes[c].stmt for c in changed
             if isinstance(cfg.nodes[c].stmt, ast.Break | ast.Continue)]
    if not jumps:
        return set()
    owners: set[int] = set()
    loops = [n for n in ast.walk(fn)
             if isinstance(n, ast.For | ast.AsyncFor | ast.While)]
    for j in jumps:
        best = None
        for loop in loops:
            inner = {id(x) for s in loop.body for x in ast.walk(s)}
            if id(j) in inner and (best is None or loop.lineno >= best.lineno):
                best = loop
        if best is not None:
            owners.update(n.id for n in cfg.nodes if n.stmt is best)
    return owners


def _structural_owner(fn: FunctionNode, line: int) -> ast.AST | None:
    """The compound statement whose ``else:``/``finally:`` keyword sits on ``line``."""
    best: ast.AST | None = None
    for n in ast.walk(fn):
        if n is fn or not isinstance(n, ast.stmt):
            continue
        if isinstance(n, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.TryStar
                      | ast.With | ast.AsyncWith | ast.Match):
            lo, hi = n.lineno, n.end_lineno or n.lineno
            if lo <= line <= hi and (best is None or lo >= best.lineno):  # type: ignore[attr-defined]
                best = n
    if best is None:
        return None
    # only a keyword line of that statement (no statement of its own covers it)
    for child in ast.walk(best):
        if child is not best and isinstance(child, ast.stmt):
            lo, hi = header_span(child)
            if lo <= line <= hi:
                return None
    return best


def _alias_locals(pdg: FunctionPDG, params: set[str], locally_bound: set[str]) -> set[str]:
    """Locals that may point into a reachable object: some strong definition of the
    local reads a parameter, a global, or another such local (``items = self.items``)."""
    cfg = pdg.cfg
    reachable_roots = set(params) | set(cfg.globals_declared) | set(cfg.nonlocals_declared)
    aliases: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in cfg.nodes:
            if node.kind == "params":
                continue
            roots = {u[0] for u in node.du.uses}
            free = roots - locally_bound - params
            if not (roots & (reachable_roots | aliases) or free):
                continue
            for d in node.du.defs:
                name = d.path[0]
                if d.strong and len(d.path) == 1 and name in locally_bound \
                        and name not in aliases and _fresh(node.stmt) is False:
                    aliases.add(name)
                    changed = True
    return aliases


def _fresh(stmt: ast.AST | None) -> bool:
    """An assignment whose value is certainly a new object or an immutable value."""
    if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
        v = stmt.value
        if isinstance(v, ast.Constant | ast.List | ast.Dict | ast.Set | ast.ListComp
                      | ast.DictComp | ast.SetComp | ast.JoinedStr | ast.BinOp
                      | ast.Compare | ast.BoolOp | ast.UnaryOp):
            return True
        if isinstance(v, ast.Tuple) and all(isinstance(e, ast.Constant) for e in v.elts):
            return True
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in (
            "len", "str", "int", "float", "bool", "repr", "list", "dict", "set", "tuple",
            "sorted", "frozenset", "sum", "min", "max", "abs", "round", "isinstance",
        ):
            return True
    return isinstance(stmt, ast.AugAssign)


def _write_reason(
    d: Def,
    params: set[str],
    globals_declared: frozenset[str],
    nonlocals_declared: frozenset[str],
    locally_bound: set[str],
    aliases: set[str],
) -> str | None:
    root = d.path[0]
    text = path_text(d.path)
    if root in params:
        if len(d.path) == 1:
            if d.via_call:
                return f"may mutate parameter '{root}' through a call"
            return f"writes parameter '{root}'"
        if d.path[1] == "[]":
            return f"writes parameter '{root}' ({text})"
        return f"writes {text}"
    if root in globals_declared:
        return f"writes global '{root}'"
    if root in nonlocals_declared:
        return f"writes nonlocal '{root}'"
    if root.startswith("<"):
        return None
    mutation = len(d.path) > 1 or d.via_call or not d.strong
    if not mutation:
        return None
    if root not in locally_bound:
        if d.via_call:
            return f"may mutate global '{root}' through a call"
        return f"writes global '{root}' ({text})"
    if root in aliases:
        if d.via_call:
            return f"may mutate '{root}' (may alias a parameter/global) through a call"
        return f"writes {text} ('{root}' may alias a parameter/global)"
    return None
