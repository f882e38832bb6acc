"""Lexical tokens for the soft-rank: identifier parts and string-literal words."""

from __future__ import annotations

import keyword
import re
from functools import lru_cache

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_SKIP = frozenset(keyword.kwlist) | {"None", "True", "False"}

STRS_CAP = 64


@lru_cache(maxsize=65536)
def ident_parts(name: str) -> tuple[str, ...]:
    """``parseHTTPResponse_v2`` → ``("parse", "http", "response", "v2")``."""
    out: list[str] = []
    for piece in name.split("_"):
        if not piece:
            continue
        if piece.islower() or piece.isdigit():
            out.append(piece)
        else:
            out.extend(p.lower() for p in _CAMEL.findall(piece))
    return tuple(out)


def ident_tokens(qualname: str, signature: str = "") -> tuple[str, ...]:
    """Identifier tokens of a qualname and signature, lowercased, sorted, unique."""
    toks: set[str] = set()
    for part in qualname.split("."):
        toks.update(ident_parts(part))
    if signature:
        for ident in _IDENT.findall(signature):
            if ident not in _SKIP:
                toks.update(ident_parts(ident))
    return tuple(sorted(toks))


def add_string_words(acc: dict[str, None], text: str) -> None:
    """Add the words of a string literal to ``acc`` (ordered, capped at STRS_CAP)."""
    for w in _WORD.findall(text):
        if len(acc) >= STRS_CAP:
            return
        lw = w.lower()
        if lw not in acc:
            acc[lw] = None
