"""What a commit changed semantically: AST dumps without docstrings and annotations, the
definitions of a file, and the splice that applies one definition's new version."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class DefInfo:
    qualname: str  # in-file qualname: Cls.meth
    kind: str  # function | class
    start: int  # first line (decorators included)
    end: int
    dump: str  # AST dump, docstrings removed


class _Normalize(ast.NodeTransformer):
    """Drop what does not change behaviour: docstrings and type annotations."""

    def _body(self, node: Any) -> Any:
        body = node.body
        if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        return node

    def visit_Module(self, node: ast.Module) -> Any:
        return self.generic_visit(self._body(node))

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        return self.generic_visit(self._body(node))

    def visit_FunctionDef(self, node: Any) -> Any:
        node.returns = None
        return self.generic_visit(self._body(node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> Any:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is None:  # a bare declaration (a dataclass/attrs field): keep the name
            return ast.Expr(value=node.target)
        return self.generic_visit(ast.Assign(targets=[node.target], value=node.value))

    def visit_If(self, node: ast.If) -> Any:
        test = node.test
        name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
        if name == "TYPE_CHECKING":  # typing-only imports
            return None
        return self.generic_visit(node)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    out = _Normalize().visit(tree)
    return ast.fix_missing_locations(out) if out is not None else ast.Pass()


def _typescript(path: str) -> bool:
    from impactlens.index.frontend import language_of

    return bool(path) and language_of(path) == "typescript"


def semantic(text: str, path: str = "") -> str:
    """The module's AST dump with docstrings and annotations removed: equal dumps = no
    behaviour change. A TypeScript/JavaScript ``path``: its token stream
    (:func:`impactlens.bench.history.semantic_ts.semantic`)."""
    if _typescript(path):
        from impactlens.bench.history import semantic_ts

        return semantic_ts.semantic(text, path)
    return ast.dump(_strip_docstrings(ast.parse(text)), include_attributes=False)


def definitions(text: str, path: str = "") -> dict[str, DefInfo]:
    """Module-level functions, classes and (nested) class members, by in-file qualname."""
    if _typescript(path):
        from impactlens.bench.history import semantic_ts

        return semantic_ts.definitions(text, path)
    tree = ast.parse(text)
    out: dict[str, DefInfo] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                q = prefix + node.name
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if isinstance(node, ast.ClassDef):
                    header = ast.ClassDef(
                        name=node.name, bases=node.bases, keywords=node.keywords,
                        body=[s for s in node.body if not isinstance(
                            s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)] or
                        [ast.Pass()], decorator_list=node.decorator_list, type_params=[],
                    )
                    dump = ast.dump(_strip_docstrings(header), include_attributes=False)
                    out[q] = DefInfo(q, "class", start, node.end_lineno or start, dump)
                    visit(node.body, q + ".")
                else:
                    dump = ast.dump(_strip_docstrings(ast.Module(body=[node], type_ignores=[])),
                                    include_attributes=False)
                    out[q] = DefInfo(q, "function", start, node.end_lineno or start, dump)

    visit(tree.body, "")
    return out


def splice(before: str, after: str, b: DefInfo, a: DefInfo) -> str:
    """``before`` with the lines of definition ``b`` replaced by those of ``a`` in ``after``."""
    bl = before.splitlines(keepends=True)
    al = after.splitlines(keepends=True)
    new = [*bl[: b.start - 1], *al[a.start - 1 : a.end], *bl[b.end :]]
    if new and not new[-1].endswith("\n"):
        new[-1] += "\n"
    return "".join(new)
