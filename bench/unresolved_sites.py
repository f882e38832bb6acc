"""Cold index of a repository, then its unresolved call sites by reason (one JSON line).

    PYTHONPATH=src python bench/unresolved_sites.py REPO [--breakdown]

Prints wall and CPU seconds of the index (CPU: this process and its workers), symbols,
edges, call edges, unresolved sites by reason and how many external sites name a builtin.
``--breakdown`` adds the Python unknown-receiver sites by what the receiver's root is
(read from the file's syntax tree: ``self`` in a class with or without bases, a
parameter with or without an annotation, a local, a module-level or imported name, a
call result, a subscript, a Django ``objects`` chain). The index under
``REPO/.impactlens`` is removed first.
"""

from __future__ import annotations

import ast
import collections
import json
import re
import resource
import shutil
import sys
import time
from pathlib import Path

from impactlens.api import Project
from impactlens.model import EdgeKind


def main(root: Path, breakdown: bool = False) -> dict[str, object]:
    shutil.rmtree(root / ".impactlens", ignore_errors=True)
    t = time.perf_counter()
    p = Project(str(root))
    s = p.index(full=True)
    wall = time.perf_counter() - t
    cpu = sum(getattr(resource.getrusage(who), f) for who in
              (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
    sites = p.store.unresolved_sites()
    by = collections.Counter(str(u.reason) for u in sites)
    builtin = sum(1 for u in sites if str(u.reason) == "external"
                  and any(n.startswith("<") for n in u.names))
    calls = len(p.store.all_edges(frozenset({EdgeKind.CALL})))
    p.close()
    out: dict[str, object] = {
        "repo": root.name, "wall": round(wall, 2), "cpu": round(cpu, 2),
        "symbols": s.symbols, "edges": s.edges, "call_edges": calls,
        "unresolved": s.unresolved, "builtin_sites": builtin,
        "by_reason": dict(sorted(by.items()))}
    if breakdown:
        unknown = [u for u in sites if str(u.reason) == "unknown-receiver"
                   and u.file.endswith(".py")]
        out["unknown_receiver_roots"] = receiver_roots(root, unknown)
    return out


def receiver_roots(root: Path, sites: list) -> dict[str, int]:
    """Unknown-receiver sites counted by what the receiver's root is."""
    trees: dict[str, ast.Module | None] = {}
    counts: collections.Counter[str] = collections.Counter()
    for u in sites:
        if u.file not in trees:
            try:
                trees[u.file] = ast.parse((root / u.file).read_text(encoding="utf-8"))
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                trees[u.file] = None
        counts[_root_kind(trees[u.file], u.line, u.text)] += 1
    return dict(counts.most_common())


def _root_kind(tree: ast.Module | None, line: int, text: str) -> str:
    m = re.match(r"[A-Za-z_]\w*", text)
    name = m.group(0) if m else ""
    recv = text.removesuffix("(...)").rpartition(".")[0]
    funcs, owner = _enclosing(tree, line)
    params = {a.arg: a for f in funcs for a in _params(f)}
    if ".objects." in text:
        return "objects manager chain"
    if name in ("self", "cls") and name in params:
        if recv == name:
            return "self.m(), class " + ("with" if owner and owner.bases else "without") + " bases"
        return "self chain through a call or subscript" if "(" in recv or "[" in recv \
            else "self.attr.m()"
    if name in params:
        if params[name].annotation is not None:
            return "annotated parameter"
        return "unannotated parameter" + ("" if recv == name else " (chain)")
    if not recv or "(" in recv:
        return "call result"
    if "[" in recv:
        return "subscript"
    inner = funcs[-1] if funcs else None
    local = inner is not None and any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(inner))
    return "local variable" if local else "module-level or imported name"


def _enclosing(tree: ast.Module | None, line: int) -> tuple[list, ast.ClassDef | None]:
    """The functions around ``line`` (outermost first) and the class of the innermost
    method."""
    if tree is None:
        return [], None
    funcs: list = []
    owner = None
    node: ast.AST = tree
    while True:
        inside = [c for c in ast.iter_child_nodes(node)
                  if getattr(c, "lineno", 0) <= line <= (getattr(c, "end_lineno", 0) or 0)]
        if not inside:
            return funcs, owner
        node = inside[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            funcs.append(node)
        elif isinstance(node, ast.ClassDef):
            owner = node


def _params(f: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    a = f.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs,
            *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])]


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), "--breakdown" in sys.argv[2:])))
