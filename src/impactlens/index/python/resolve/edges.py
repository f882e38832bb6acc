"""What resolution emits: raw edges, unresolved sites, and their detail strings.

Inside the resolver, edge kinds and resolutions are plain strings (enum attribute access
is slow on the hot path); :func:`impactlens.index.python.resolve.assemble.file_resolution`
converts them to the model enums once per file.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from impactlens.index.python.facts import Enc
from impactlens.model import EdgeKind, Resolution, UnresolvedReason

K_CALL, K_IMPORT, K_INHERIT, K_OVERRIDE = "call", "import", "inherit", "override"
K_INSTANTIATE, K_USE, K_CONTAINS, K_TESTS = "instantiate", "use", "contains", "tests"
R_EXACT, R_INFERRED, R_AMBIGUOUS = "exact", "inferred", "ambiguous"
U_DYNAMIC_GETATTR = UnresolvedReason.DYNAMIC_GETATTR
U_REGISTRY_DISPATCH = UnresolvedReason.REGISTRY_DISPATCH
U_IMPORTLIB = UnresolvedReason.IMPORTLIB
U_EVAL = UnresolvedReason.EVAL
U_GLOBALS = UnresolvedReason.GLOBALS
U_MODULE_GETATTR = UnresolvedReason.MODULE_GETATTR
U_UNKNOWN_RECEIVER = UnresolvedReason.UNKNOWN_RECEIVER
U_UNKNOWN_NAME = UnresolvedReason.UNKNOWN_NAME
U_EXTERNAL = UnresolvedReason.EXTERNAL
KIND_ENUM = {k.value: k for k in EdgeKind}
RESOLUTION_ENUM = {r.value: r for r in Resolution}

# (src, dst, kind, line, resolution, detail, target key (module, scope index) | None)
RawEdge = tuple[str, str, str, int, str, str, Any]
# (line, scope qualname, reason, text, names)
RawUnresolved = tuple[int, str, UnresolvedReason, str, tuple[str, ...]]


class Sink:
    """Collects the raw edges and unresolved sites of one scope evaluation."""

    __slots__ = ("edges", "unresolved")

    def __init__(self) -> None:
        self.edges: list[RawEdge] = []
        self.unresolved: list[RawUnresolved] = []


_DETAILS: dict[tuple[Any, ...], str] = {}


def call_detail(args: int, kwargs: tuple[str, ...], star: bool, dstar: bool, bound: bool) -> str:
    """The JSON detail of a call site (memoized: a pure function of its arguments)."""
    key = (args, kwargs, star, dstar, bound)
    got = _DETAILS.get(key)
    if got is None:
        got = json.dumps({"args": args, "kwargs": list(kwargs), "star": star, "dstar": dstar,
                          "bound": bound}, separators=(",", ":"))
        if len(_DETAILS) < 65536:
            _DETAILS[key] = got
    return got


def deco_detail(detail: str) -> str:
    """A call of a decorated function whose decorators' wrapper runs in its place (the
    wrapper's edge is recorded beside it): ``"deco": true`` in the site detail."""
    return detail[:-1] + ',"deco":true}'


def recv_detail(detail: str, recv: str) -> str:
    """A call made by inherited code for an instance of class ``recv`` (its qualname)."""
    return detail[:-1] + f',"recv":{json.dumps(recv)}}}' if detail else ""


def flow_detail(detail: str) -> str:
    """An edge that holds for the argument types a call in this file passes (argflow.py)."""
    return detail[:-1] + ',"flow":true}' if detail else ""


@lru_cache(maxsize=4)
def use_detail(access: str) -> str:
    return json.dumps({"access": access}, separators=(",", ":"))


@lru_cache(maxsize=8192)
def import_detail(name: str, alias: str | None) -> str:
    return json.dumps({"name": name, "alias": alias}, separators=(",", ":"))


def render(enc: Enc, depth: int = 0) -> str:
    """Source-like text of an encoded expression (for unresolved sites)."""
    if depth > 8:
        return "..."
    tag = enc[0]
    if tag == "n":
        return str(enc[1])
    if tag == "a":
        return render(enc[1], depth + 1) + "." + str(enc[2])
    if tag == "c":
        return render(enc[1], depth + 1) + "()"
    if tag == "sub":
        key = enc[2]
        if type(key) is tuple:  # a constant's name or a slice: not a literal to show
            return render(enc[1], depth + 1) + "[...]"
        return render(enc[1], depth + 1) + ("[" + repr(key) + "]" if key is not None else "[...]")
    if tag == "sup":
        return "super()"
    if tag == "k":
        return "<" + str(enc[1]) + ">"
    if tag == "glob":
        return "globals()"
    if tag == "imp":
        return str(enc[1])
    return "<expr>"


def site_names(fenc: Enc) -> tuple[str, ...]:
    """The names a call site's own text gives (the attribute or the name called)."""
    tag = fenc[0]
    if tag == "a":
        return (str(fenc[2]),)
    if tag == "n":
        return (str(fenc[1]),)
    return ()


def site_text(fenc: Enc) -> str:
    """An unresolved call site's text, as recorded (capped)."""
    return (render(fenc) + "(...)")[:160]
