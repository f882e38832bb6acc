"""Python behind the language-frontend seam (:mod:`impactlens.index.frontend`): pytest's
test rules, package-based module names, the AST extractor and resolver of this package,
and the ``ast`` change classifier."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from impactlens.index.frontend import ParseFailure, Skip
from impactlens.model import AtomicChange, FileResolution
from impactlens.settings import Settings

PY_SUFFIX = ".py"


class PythonFrontend:
    language = "python"
    suffixes: tuple[str, ...] = (PY_SUFFIX,)
    skip_dirs: frozenset[str] = frozenset()  # discovery's own skips are Python's

    def claims(self, path: str) -> bool:
        return True

    def skipped(self, path: str, data: bytes) -> Skip | None:
        return None

    def module_names(self, paths: list[str]) -> dict[str, str]:
        from impactlens.index.discover import python_module_names

        return python_module_names(paths)

    def module_name(self, root: Any, path: str) -> str:
        from impactlens.index.discover import python_module_name

        return python_module_name(Path(root), path)

    def is_test_file(self, path: str, collect: Any) -> bool:
        from impactlens.index.python.pytest_config import DEFAULT

        return (collect or DEFAULT).is_test_file(path)

    def parse(self, path: str, data: bytes, module: str, is_test: bool) -> Any:
        from impactlens.index.python import extract_file

        is_pkg = path.endswith("/__init__.py") or path == "__init__.py"
        try:
            return extract_file(path, data, module, is_test, is_pkg)
        except SyntaxError as exc:
            if exc.lineno is None:  # the tokenizer could not decode the bytes at all
                raise ParseFailure("decode-error",
                                   f"not decodable as source text: {exc.msg}") from None
            raise ParseFailure("syntax-error",
                               f"syntax error at line {exc.lineno}: {exc.msg}") from None
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseFailure("decode-error", f"not decodable as source text: {exc}") from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise ParseFailure("syntax-error",
                               f"could not parse: {type(exc).__name__}: {exc}") from None

    def resolve(self, facts: Any, lookup: Any) -> FileResolution:
        from impactlens.index.python import resolve_file

        return resolve_file(facts, lookup)

    def defined_names(self, text: str | None) -> frozenset[str] | None:
        return defined_names(text)

    def classify(self, before: str | None, after: str | None, path: str, module: str,
                 settings: Settings) -> list[AtomicChange]:
        from impactlens.index.python.changes import classify

        return classify(before, after, path, module, settings)


def defined_names(text: str | None) -> frozenset[str] | None:
    """Dotted names a module defines (defs, classes, module/class bindings, imports);
    ``None`` when the text does not parse (or is absent)."""
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: set[str] = set()

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.add(prefix + node.name)
            elif isinstance(node, ast.ClassDef):
                out.add(prefix + node.name)
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.add(prefix + n.id)
            elif isinstance(node, ast.Import | ast.ImportFrom) and not prefix:
                for alias in node.names:
                    out.add("import:" + (alias.asname or alias.name))
            elif isinstance(node, ast.If | ast.Try | ast.With):
                visit(getattr(node, "body", []), prefix)
                visit(getattr(node, "orelse", []), prefix)

    visit(tree.body, "")
    return frozenset(out)


PYTHON = PythonFrontend()
