"""What a commit changed semantically in a TypeScript/JavaScript file, in the terms the
Python side uses (:mod:`impactlens.bench.history.semantic`): the file's syntax tree as a
token stream without comments, whitespace, quote style, semicolons and commas — so a
reformat (prettier, a trailing comma, automatic semicolon insertion) or a comment-only
edit leaves it equal — and its definitions, each with the stream of its own lines.

Type annotations stay in: in TypeScript a changed type is a change the compiler checks
in every file that uses it (what the stage is asked to predict), unlike Python's."""

from __future__ import annotations

from typing import Any

from impactlens.bench.history.semantic import DefInfo
from impactlens.index.typescript.facts import CLASS, FUNCTION, INTERFACE, METHOD
from impactlens.index.typescript.parse import _errors, extract, parse_tree

_SKIP = frozenset({"comment", "hash_bang_line", "html_comment"})
_DROP = frozenset({";", ",", '"', "'"})  # separators and quote style: formatting only
_KIND = {FUNCTION: "function", METHOD: "function", CLASS: "class", INTERFACE: "class"}


def _tokens(path: str, text: str) -> list[tuple[int, str]]:
    """(line, token) for each leaf and named node of the tree, in source order."""
    tree = parse_tree(path, text.encode("utf-8", "surrogateescape"))
    root = tree.root_node
    if root.has_error and _errors(root):
        raise SyntaxError(f"{path}: does not parse")
    out: list[tuple[int, str]] = []
    stack: list[Any] = [root]
    while stack:
        n = stack.pop()
        if n.type in _SKIP or n.type in _DROP:
            continue
        line = n.start_point[0] + 1
        if n.child_count == 0:
            tok = n.text.decode("utf-8", "replace")
            if n.type == "jsx_text":  # JSX collapses whitespace in text
                tok = " ".join(tok.split())
                if not tok:
                    continue
            out.append((line, f"{n.type}:{tok}" if n.is_named else n.type))
            continue
        if n.is_named:
            out.append((line, n.type))
        stack.extend(reversed(n.children))
    return out


def semantic(text: str, path: str) -> str:
    """The file's token stream: equal streams = no behaviour or type change."""
    return "\n".join(t for _, t in _tokens(path, text))


def definitions(text: str, path: str) -> dict[str, DefInfo]:
    """Functions, methods, classes and interfaces by in-file qualname (``C.m``); an
    overloaded name spans its signatures and its implementation. A class's stream is its
    lines less its methods' (a method's change is the method's, not the class's)."""
    facts = extract(path, text.encode("utf-8", "surrogateescape"), "", False)
    spans: dict[str, tuple[str, int, int]] = {}
    for d in facts.defs:
        kind = _KIND.get(d.kind)
        if kind is None or d.accessor == "param":
            continue
        old = spans.get(d.qual)
        start, end = (d.line, d.end) if old is None else (min(old[1], d.line),
                                                          max(old[2], d.end))
        spans[d.qual] = (kind, start, end)
    tokens = _tokens(path, text)
    members: dict[str, list[tuple[int, int]]] = {}
    for q, (_, start, end) in spans.items():
        owner = q.rpartition(".")[0]
        if owner in spans:
            members.setdefault(owner, []).append((start, end))
    out: dict[str, DefInfo] = {}
    for q, (kind, start, end) in spans.items():
        holes = members.get(q, []) if kind == "class" else []
        dump = "\n".join(t for line, t in tokens if start <= line <= end
                         and not any(a <= line <= b for a, b in holes))
        out[q] = DefInfo(q, kind, start, end, dump)
    return out
