"""The body guard: no statement-body text from the repository ever reaches the model.

``make_body_guard(sources, def_spans)`` collects every body line of every given def
(stripped, at least ``MIN_LINE_CHARS`` long, the ``def``/signature/decorator lines of
any def excluded) and returns a checker that raises :class:`LLMGuardError` when any of
them occurs in a prompt, verbatim or JSON-escaped (the DAG travels as JSON).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Mapping

from impactlens.errors import ImpactlensError

MIN_LINE_CHARS = 12

BodyGuard = Callable[[str], None]
DefSpan = tuple[str, int, int]  # (repo-relative path, first line, last line), 1-based


class LLMGuardError(ImpactlensError):
    """A prompt contained statement-body text from the repository; it was not sent."""


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _header_lines(
    tree: ast.AST, lines: list[str]
) -> tuple[set[int], dict[int, int], dict[int, tuple[int, str]]]:
    """Header lines of every def/class; ``def line → first body line``; and, for a def whose
    body begins on a header line (``def f(): return 1``), ``def line → (line, body text)``."""
    header: set[int] = set()
    body_start: dict[int, int] = {}
    inline: dict[int, tuple[int, str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (*_DEFS, ast.ClassDef)):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        stmt = node.body[0]
        header.update(range(first, max(stmt.lineno, node.lineno + 1)))
        if isinstance(node, _DEFS):
            for line in {first, node.lineno}:
                body_start.setdefault(line, stmt.lineno)
            raw = lines[stmt.lineno - 1].encode() if stmt.lineno <= len(lines) else b""
            before, text = raw[: stmt.col_offset], raw[stmt.col_offset :]
            if before.strip():  # the body starts on the header's last line
                header.add(stmt.lineno)  # only its body part counts, via `inline`
                body = text.decode(errors="replace")
                for line in {first, node.lineno}:
                    inline.setdefault(line, (stmt.lineno, body))
    return header, body_start, inline


def _fallback_body_start(lines: list[str], start: int) -> int:
    """Unparseable file: the header ends at the first line ending in ``:`` at depth 0."""
    depth = 0
    for i in range(start - 1, len(lines)):
        text = lines[i].split("#", 1)[0].rstrip()
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
        if depth <= 0 and text.endswith(":"):
            return i + 2
    return start + 1


def body_lines(
    sources: Mapping[str, str], def_spans: Iterable[DefSpan] | None = None
) -> dict[str, tuple[str, int]]:
    """``{stripped body line: (path, line number)}`` for the given defs.

    ``def_spans=None`` takes every function and method found in ``sources``.
    """
    spans_by_path: dict[str, list[tuple[int, int]]] = {}
    if def_spans is not None:
        for path, start, end in def_spans:
            spans_by_path.setdefault(path, []).append((int(start), int(end)))
    found: dict[str, tuple[str, int]] = {}
    for path in sorted(sources):
        text = sources[path]
        lines = _LINE_BREAK.split(text)  # as ast numbers lines (not str.splitlines)
        try:
            tree: ast.AST | None = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        header, body_start, inline = (
            _header_lines(tree, lines) if tree is not None else (set(), {}, {})
        )
        if def_spans is None:
            spans = sorted(
                (n.lineno, n.end_lineno or n.lineno)
                for n in (ast.walk(tree) if tree is not None else ())
                if isinstance(n, _DEFS)
            )
        else:
            spans = sorted(spans_by_path.get(path, ()))
        for start, end in spans:
            if start in inline:
                lineno, stripped = inline[start][0], inline[start][1].strip()
                if len(stripped) >= MIN_LINE_CHARS and stripped not in found:
                    found[stripped] = (path, lineno)
            first_body = body_start.get(start) or _fallback_body_start(lines, start)
            for lineno in range(first_body, min(end, len(lines)) + 1):
                if lineno in header:
                    continue
                stripped = lines[lineno - 1].strip()
                if len(stripped) >= MIN_LINE_CHARS and stripped not in found:
                    found[stripped] = (path, lineno)
    return found


def make_body_guard(
    sources: Mapping[str, str], def_spans: Iterable[DefSpan] | None = None
) -> BodyGuard:
    """A checker raising :class:`LLMGuardError` when a prompt contains any body line."""
    forms: dict[str, tuple[str, int]] = {}
    for line, where in body_lines(sources, def_spans).items():
        forms.setdefault(line, where)
        forms.setdefault(json.dumps(line, ensure_ascii=False)[1:-1], where)
        forms.setdefault(json.dumps(line)[1:-1], where)
    by_prefix: dict[str, list[str]] = {}
    for form in forms:
        by_prefix.setdefault(form[:MIN_LINE_CHARS], []).append(form)

    def guard(text: str) -> None:
        grams = {text[i : i + MIN_LINE_CHARS] for i in range(len(text) - MIN_LINE_CHARS + 1)}
        hits = [
            form
            for prefix in grams.intersection(by_prefix)
            for form in by_prefix[prefix]
            if form in text
        ]
        if hits:
            path, lineno = min(forms[h] for h in hits)
            raise LLMGuardError(
                f"{path}:{lineno}: prompt contains statement-body text; not sent "
                f"({len(hits)} body line(s) matched)"
            )

    return guard
