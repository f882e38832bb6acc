"""Source access for slicing: parsed files and per-function PDGs, built on demand.

A :class:`SourceCache` reads each file once (its current content on disk — the
index is only consulted for symbol ids and call edges) and builds each function's
PDG at most once per cache. Functions are found by their ``def`` line (a symbol's
``start_line`` may point at its first decorator instead; both are accepted).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from impactlens.pdg.cfg import FunctionNode, ScopeNode
from impactlens.pdg.graph import FunctionPDG, function_nodes


@dataclass(eq=False)
class ParsedFile:
    path: str
    text: str
    lines: list[str]
    tree: ast.Module | None
    error: str = ""
    functions: list[tuple[str, FunctionNode]] = field(default_factory=list)

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


class SourceCache:
    """Parsed files + built PDGs for one analysis run."""

    def __init__(self, root: Path | None = None, overrides: dict[str, str] | None = None) -> None:
        self.root = root
        self._overrides = dict(overrides or {})
        self._files: dict[str, ParsedFile | None] = {}
        self._pdgs: dict[tuple[str, int, int], FunctionPDG] = {}
        self.pdg_builds = 0

    def file(self, path: str) -> ParsedFile | None:
        if path not in self._files:
            self._files[path] = self._load(path)
        return self._files[path]

    def _load(self, path: str) -> ParsedFile | None:
        text = self._overrides.get(path)
        if text is None:
            p = Path(path) if self.root is None else self.root / path
            try:
                text = p.read_text(encoding="utf-8", errors="surrogateescape")
            except OSError:
                return None
        return parse_text(path, text)

    def pdg(self, path: str, scope: ScopeNode) -> FunctionPDG:
        key = (path, getattr(scope, "lineno", 0), getattr(scope, "col_offset", 0))
        pdg = self._pdgs.get(key)
        if pdg is None:
            pf = self.file(path)
            pdg = FunctionPDG.build(scope, pf.lines if pf else None)
            self._pdgs[key] = pdg
            self.pdg_builds += 1
        return pdg


def parse_text(path: str, text: str) -> ParsedFile:
    lines = text.splitlines()
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return ParsedFile(path, text, lines, None, f"syntax error at line {line}: {exc}")
    return ParsedFile(path, text, lines, tree, "", function_nodes(tree))
