"""Source access for slicing: file text, parsed functions and per-function PDGs, on demand.

A :class:`SourceCache` reads each file once (its current content on disk — the index
only supplies symbol ids, spans and call edges) and builds each function's PDG at most
once per cache. When the index gives a function's span, only that segment is parsed (a
method in a 3,000-line module costs its own 30 lines, not the module; see
``bench/impact-pdg/README.md``); the whole file is parsed only as a fallback (a segment
that does not parse on its own, or a span that no longer matches the file) or when the
caller needs module structure. Functions are found by their ``def`` line or first
decorator line.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.fileio import outside_root, read_source
from impactlens.index.frontend import language_of
from impactlens.pdg.cfg import FunctionNode, ScopeNode
from impactlens.pdg.graph import (
    FunctionPDG,
    function_nodes,
    innermost_scope,
    is_abstract,
    is_bodyless,
)
from impactlens.pdg.typescript.source import TsParsedFile


@dataclass(eq=False)
class ParsedFile:
    path: str
    text: str
    lines: list[str]
    _tree: ast.Module | None = None
    _parsed: bool = False
    error: str = ""
    _functions: list[tuple[str, FunctionNode]] | None = None
    _segments: dict[tuple[int, int, str], FunctionNode | None] = field(default_factory=dict)

    @property
    def tree(self) -> ast.Module | None:
        """The whole module (parsed on first use; ``None`` when it does not parse)."""
        if not self._parsed:
            self._parsed = True
            try:
                self._tree = ast.parse(self.text, filename=self.path)
            except (SyntaxError, ValueError) as exc:
                line = getattr(exc, "lineno", None)
                self.error = f"syntax error at line {line}: {exc}"
            except (RecursionError, MemoryError):  # what the indexer records as unparsable
                self.error = "expressions nested too deeply to parse"
        return self._tree

    @property
    def functions(self) -> list[tuple[str, FunctionNode]]:
        if self._functions is None:
            tree = self.tree
            self._functions = function_nodes(tree) if tree is not None else []
        return self._functions

    def line_text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def function_at(
        self, start_line: int, name: str | None = None
    ) -> tuple[str, FunctionNode] | None:
        """The function whose ``def`` line or first decorator line is ``start_line``."""
        hits = []
        for q, fn in self.functions:
            lines = {fn.lineno, *(d.lineno for d in fn.decorator_list)}
            if start_line in lines and (name is None or fn.name == name):
                hits.append((q, fn))
        if not hits and name is not None:
            return self.function_at(start_line, None)
        return hits[0] if hits else None

    def function_span(self, start_line: int, end_line: int, name: str) -> FunctionNode | None:
        """The function ``name`` spanning ``start_line..end_line`` (index coordinates),
        parsed from that segment alone; falls back to the whole file."""
        key = (start_line, end_line, name)
        if key not in self._segments:
            self._segments[key] = self._segment(start_line, end_line, name)
        return self._segments[key]

    def _segment(self, start: int, end: int, name: str) -> FunctionNode | None:
        if 0 < start <= end <= len(self.lines):
            # leading newlines keep the file's line numbers without renumbering the AST
            src = "\n" * (start - 1) + textwrap.dedent(
                "\n".join(self.lines[start - 1:end]) + "\n")
            try:
                tree = ast.parse(src)
            except (SyntaxError, ValueError):
                tree = None
            if tree is not None and len(tree.body) == 1:
                fn = tree.body[0]
                if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.name == name:
                    return fn
        hit = self.function_at(start, name)
        return hit[1] if hit is not None and hit[1].name == name else None


    # --- the scope operations slicing uses (shared with TsParsedFile) ------------
    def innermost_scope(self, line: int) -> tuple[str, ScopeNode]:
        tree = self.tree
        assert tree is not None
        return innermost_scope(tree, line)

    @staticmethod
    def innermost_nested(fn: FunctionNode, line: int) -> tuple[str, FunctionNode] | None:
        """The innermost function nested in ``fn`` whose body covers ``line``."""
        best: FunctionNode | None = None
        for n in ast.walk(fn):
            if n is not fn and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and n.body and n.body[0].lineno <= line <= (n.end_lineno or n.lineno) \
                    and (best is None or n.lineno >= best.lineno):
                best = n
        return (best.name, best) if best is not None else None

    @staticmethod
    def is_function(scope: Any) -> bool:
        return isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)

    @staticmethod
    def is_bodyless(scope: FunctionNode) -> bool:
        return is_bodyless(scope) or (is_abstract(scope) and is_bodyless(scope))

    @staticmethod
    def scope_line(scope: ScopeNode) -> int:
        return int(getattr(scope, "lineno", 0))

    @staticmethod
    def scope_key(scope: ScopeNode) -> tuple[int, int]:
        return getattr(scope, "lineno", 0), getattr(scope, "col_offset", 0)

    def build_pdg(self, scope: ScopeNode) -> FunctionPDG:
        return FunctionPDG.build(scope, self.lines)

    @staticmethod
    def bodyless_type(start_line: int, name: str) -> bool:
        """A Python class always has a body (a Protocol's methods are judged one by one)."""
        return False


#: a parsed source file of either frontend
AnyParsedFile = ParsedFile | TsParsedFile


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


# the languages whose functions the statement-level graph is built for (Python's ast,
# and tree-sitter for TypeScript/JavaScript); other frontends' files are refused by name
STATEMENT_LANGUAGES = frozenset({"python", "typescript", "javascript"})


class SourceCache:
    """File texts, parsed functions and built PDGs for one analysis run."""

    def __init__(self, root: Path | None = None, overrides: dict[str, str] | None = None,
                 max_bytes: int | None = None) -> None:
        self.root = root
        self._overrides = dict(overrides or {})
        self.max_bytes = max_bytes  # a bigger file is not read (the index's size cap)
        self.refused: dict[str, tuple[str, str]] = {}  # path → (reason, why) it was not read
        self._files: dict[str, AnyParsedFile | None] = {}
        self._pdgs: dict[tuple[str, int, int], FunctionPDG] = {}
        self.pdg_builds = 0

    def file(self, path: str) -> AnyParsedFile | None:
        if path not in self._files:
            self._files[path] = self._load(path)
        return self._files[path]

    def _load(self, path: str) -> AnyParsedFile | None:
        language = language_of(path)
        if language and language not in STATEMENT_LANGUAGES:
            self.refused[path] = ("unsupported-language", (
                f"{path}: statement-level impact reads Python, TypeScript and "
                f"JavaScript files; {language} files get "
                "the call-graph impact (`impactlens impact` without --mode pdg)"))
            return None
        text = self._overrides.get(path)
        if text is None:
            if self.root is not None and outside_root(self.root, path):
                return None
            p = Path(path) if self.root is None else self.root / path
            if self.max_bytes is not None and _size(p) > self.max_bytes:
                self.refused[path] = ("too-large", (
                    f"{path}: the file is {_size(p)} bytes, over the size cap of "
                    f"{self.max_bytes} (max_file_bytes); not sliced"))
                return None
            text = read_source(p)
            if text is None:
                return None
        if language in ("typescript", "javascript"):
            return TsParsedFile(path, text, text.splitlines())
        return ParsedFile(path, text, text.splitlines())

    def pdg(self, path: str, scope: Any) -> FunctionPDG:
        pf = self.file(path)
        assert pf is not None
        key = (path, *pf.scope_key(scope))
        pdg = self._pdgs.get(key)
        if pdg is None:
            pdg = pf.build_pdg(scope)
            self._pdgs[key] = pdg
            self.pdg_builds += 1
        return pdg


def parse_text(path: str, text: str) -> ParsedFile:
    pf = ParsedFile(path, text, text.splitlines())
    _ = pf.tree
    return pf
