"""Which un-analyzable sites may reach an edit: the cheap superset the pipeline matches.

Loading every site of a large repository costs seconds; asking the index for the dynamic
ones, those in the edited files and those whose text names what the edit changes costs
milliseconds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from impactlens.fileio import parse_python
from impactlens.linediff import changed_regions
from impactlens.model import FileChange, IndexGraph, UnresolvedReason, UnresolvedSite

__all__ = ["changed_names", "relevant_unresolved"]


def relevant_unresolved(graph: IndexGraph, files: Sequence[FileChange],
                        module_of: Callable[[str], str]) -> list[UnresolvedSite]:
    """The un-analyzable sites the pipeline could match to this change — a superset:
    every dynamic site (getattr/registry/importlib/eval/globals), every site in a changed
    file, and every other site whose text or names mention a changed entity's name or
    module. Loading all sites of a large repository costs seconds; this costs milliseconds.
    """
    mentions: set[str] = set()
    for f in files:
        mentions.add(module_of(f.path))
        mentions |= changed_names(f.before, f.after)
    dynamic = [r.value for r in UnresolvedReason
               if r not in (UnresolvedReason.UNKNOWN_RECEIVER, UnresolvedReason.UNKNOWN_NAME,
                            UnresolvedReason.EXTERNAL)]
    # sites resolving outside the repository never match: skip them (served from memory)
    return list(graph.unresolved_sites_where(reasons=dynamic, words=mentions,
                                             files=[f.path for f in files], external=False))


def _names_on(text: str | None, lines: set[int] | None) -> set[str]:
    """Names defined, bound or imported by statements on ``lines`` (all when ``None``),
    including the names of the definitions enclosing them."""
    tree = parse_python(text) if text else None
    if tree is None:
        return set()
    out: set[str] = set()

    def hit(node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:
            return True  # the module itself
        end = getattr(node, "end_lineno", None) or start
        return lines is None or any(start <= n <= end for n in lines)

    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).rsplit(".", 1)[-1] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.add(n.id)
                    elif isinstance(n, ast.Attribute):
                        out.add(n.attr)
        # only statements carry bindings; descend where the changed lines are
        stack.extend(c for c in ast.iter_child_nodes(node)
                     if isinstance(c, ast.stmt) and hit(c))
    return out


def changed_names(before: str | None, after: str | None) -> set[str]:
    """A superset of the leaf names of the entities an edit changes (cheap: two parses)."""
    if before is None or after is None:
        return _names_on(before, None) | _names_on(after, None)
    old, new = changed_regions(before, after)
    return _names_on(before, old) | _names_on(after, new)
