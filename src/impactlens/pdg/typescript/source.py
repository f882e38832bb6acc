"""A TypeScript/JavaScript file for slicing: its tree-sitter tree (the index's parser),
its functions, and the function-level operations :mod:`impactlens.pdg.slicing` needs.

Functions are named as the index names them: a declaration or method by its name, a
function value by the variable, field or property it is bound to (``const f = () =>``),
an anonymous default export ``default``; they are found by the line the index records
(the declaration's first line, which for ``export const f = …`` is the ``export`` line).
Anonymous callbacks (``xs.map(x => …)``) are scopes of their own for a line in their
body, named ``<arrow@LINE>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from impactlens.index.typescript.parse import parse_tree
from impactlens.pdg.graph import FunctionPDG
from impactlens.pdg.typescript.cfg import build_ts_cfg
from impactlens.pdg.typescript.defuse import CLASS_TYPES, FUNCTION_TYPES, text
from impactlens.pdg.typescript.defuse import field as fld

#: declarations with no executable body
SIGNATURE_TYPES = frozenset({"abstract_method_signature", "method_signature",
                             "function_signature"})
_HOLDERS = frozenset({"variable_declarator", "public_field_definition", "pair",
                      "field_definition", "assignment_expression"})
_WRAPPERS = frozenset({"lexical_declaration", "variable_declaration", "export_statement"})


def _line(node: Any) -> int:
    return int(node.start_point[0]) + 1


def _end(node: Any) -> int:
    return int(node.end_point[0]) + 1


@dataclass(eq=False)
class TsParsedFile:
    path: str
    text: str
    lines: list[str]
    error: str = ""
    _root: Any = None
    _functions: list[tuple[str, int, Any]] | None = None  # (name, index start line, node)
    _anon: list[Any] = field(default_factory=list)

    @property
    def tree(self) -> Any:
        if self._root is None:
            self._root = parse_tree(self.path, self.text.encode("utf-8")).root_node
        return self._root

    def line_text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    # ---------------------------------------------------------------- lookups
    @property
    def functions(self) -> list[tuple[str, int, Any]]:
        if self._functions is None:
            self._functions = _named_functions(self.tree, "", self._anon)
        return self._functions

    def function_span(self, start_line: int, end_line: int, name: str) -> Any | None:
        """The function ``name`` whose declaration starts at ``start_line``."""
        # a file reached by a call is asked for one function: walk only the nodes that
        # overlap its lines, not the whole tree (every function of a large file)
        found = self._functions if self._functions is not None else \
            _named_functions(self.tree, "", [], (start_line, max(start_line, end_line)))
        hits = [n for q, s, n in found if s == start_line and q.rsplit(".", 1)[-1] == name]
        if not hits:
            hits = [n for q, s, n in found if _line(n) == start_line
                    and q.rsplit(".", 1)[-1] == name]
        return hits[0] if hits else None

    def bodyless_type(self, start_line: int, name: str) -> bool:
        """Is the type declared at ``start_line`` an interface or a class whose methods
        are all abstract/signatures (nothing executes)?"""
        stack = [self.tree]
        while stack:
            n = stack.pop()
            if n.type in ("interface_declaration", "abstract_class_declaration",
                          "class_declaration") and _line(_holder(n)) == start_line \
                    and text(fld(n, "name")) == name:
                if n.type == "interface_declaration":
                    return True
                body = fld(n, "body")
                members = list(body.named_children) if body is not None else []
                return all(m.type in SIGNATURE_TYPES or m.type == "comment"
                           for m in members)
            stack.extend(n.named_children)
        return False

    def innermost_scope(self, line: int) -> tuple[str, Any]:
        """The innermost function whose body covers ``line`` (else the program)."""
        best: tuple[str, Any] = ("<module>", self.tree)
        for q, _, n in self.functions:
            if _in_body(n, line) and (best[1] is self.tree or _inside(n, best[1])):
                best = (q, n)
        for n in self._anon:
            if _in_block(n, line) and (best[1] is self.tree or _inside(n, best[1])):
                best = (f"<arrow@{_line(n)}>", n)
        return best

    def innermost_nested(self, fn: Any, line: int) -> tuple[str, Any] | None:
        name, scope = self.innermost_scope(line)
        if scope is self.tree or scope == fn or not _inside(scope, fn):
            return None
        return name.rsplit(".", 1)[-1], scope

    # ---------------------------------------------------------- scope facts
    @staticmethod
    def is_function(scope: Any) -> bool:
        return scope is not None and (scope.type in FUNCTION_TYPES
                                      or scope.type in SIGNATURE_TYPES)

    @staticmethod
    def is_bodyless(scope: Any) -> bool:
        return scope.type in SIGNATURE_TYPES or fld(scope, "body") is None

    @staticmethod
    def scope_line(scope: Any) -> int:
        return _line(scope)

    @staticmethod
    def scope_key(scope: Any) -> tuple[int, int]:
        return int(scope.start_byte), int(scope.end_byte)

    def build_pdg(self, scope: Any) -> FunctionPDG:
        return FunctionPDG.from_cfg(build_ts_cfg(scope))

    def function_named(self, name: str, line: int) -> tuple[int, int]:
        """Span of the function ``name`` covering ``line`` (for scoring a peer's lines)."""
        best = (0, 10**9)
        for q, _, n in self.functions:
            if q.rsplit(".", 1)[-1] == name and _line(n) <= line <= _end(n):
                best = (_line(_holder(n)), _end(n))
        return best


def _named_functions(root: Any, prefix: str, anon: list[Any],
                     lines: tuple[int, int] | None = None) -> list[tuple[str, int, Any]]:
    """Every named function under ``root`` as ``(qualified name, declaration line, node)``,
    in source order; unnamed ones go to ``anon``. With ``lines``, only nodes overlapping
    those lines are looked into."""
    out: list[tuple[str, int, Any]] = []
    # a loop, not recursion: generated code nests expressions thousands deep
    stack = [(root, prefix)]
    while stack:
        node, prefix = stack.pop()
        for c in reversed(node.named_children):
            if lines is not None and (_end(c) < lines[0] or _line(c) > lines[1]):
                continue
            t = c.type
            if t in FUNCTION_TYPES or t in SIGNATURE_TYPES:
                name, start = _name_of(c)
                if name is None:
                    anon.append(c)
                    stack.append((c, prefix))
                    continue
                q = f"{prefix}{name}"
                out.append((q, start, c))
                stack.append((c, q + "."))
            elif t in CLASS_TYPES or t == "interface_declaration":
                nm = fld(c, "name")
                stack.append((c, f"{prefix}{text(nm)}." if nm is not None else prefix))
            else:
                stack.append((c, prefix))
    return out


def _holder(n: Any) -> Any:
    """The declaration a function/class is the value of (the line the index records)."""
    cur = n
    p = n.parent
    while p is not None and (p.type in _HOLDERS or p.type in _WRAPPERS):
        cur = p
        p = p.parent
    return cur


def _name_of(n: Any) -> tuple[str | None, int]:
    nm = fld(n, "name")
    if nm is not None and n.type != "function_expression":
        return text(nm), _line(_holder(n))
    p = n.parent
    if p is not None and p.type in _HOLDERS:
        key = fld(p, "name") or fld(p, "key") or fld(p, "left") or fld(p, "property")
        if p.type == "assignment_expression" and key is not None \
                and key.type == "member_expression":
            key = fld(key, "property")
        if key is not None and key.type in ("identifier", "property_identifier",
                                            "private_property_identifier", "string"):
            return text(key).strip("'\""), _line(_holder(n))
    if p is not None and p.type == "export_statement" and any(
            c.type == "default" for c in p.children):
        return "default", _line(p)
    if nm is not None:
        return text(nm), _line(_holder(n))
    return None, _line(n)


def _in_body(fn: Any, line: int) -> bool:
    return _line(fn) <= line <= _end(fn)


def _in_block(fn: Any, line: int) -> bool:
    """A line strictly inside an anonymous function's block body (its own statements;
    the line it starts on belongs to the statement that creates it)."""
    body = fld(fn, "body")
    return body is not None and body.type == "statement_block" \
        and _line(body) < line < _end(body)


def _inside(inner: Any, outer: Any) -> bool:
    return bool(outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
                and (inner.start_byte, inner.end_byte) != (outer.start_byte, outer.end_byte))
