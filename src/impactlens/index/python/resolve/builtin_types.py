"""Methods of builtin-type values: their names in the pycg export and what they return.

``", ".join(xs)``, ``d.get(k)``, ``xs.append(x)`` are calls out of the repository, recorded
as external callees named the way PyCG names them (``<**PyStr**>.join``), so they neither
enter the impact walk nor count as unknown receivers. A few results are followed because
they carry the repository's values on: a dict display's ``values()``, ``items()`` and
``get()`` give its entries (functions stored in a table), a str method gives a str.
"""

from __future__ import annotations

from typing import Any

from impactlens.index.python.facts import Enc, PyFileFacts
from impactlens.index.python.resolve.values import (
    XI,
    BuiltinInstance,
    BuiltinMember,
    DictDisplay,
    FixedTuple,
    Items,
    SeqDisplay,
    Sequence,
)

# builtin type → PyCG's pseudo-module
PSEUDO = {"str": "<**PyStr**>", "bytes": "<**PyBytes**>", "int": "<**PyInt**>",
          "float": "<**PyFloat**>", "bool": "<**PyBool**>", "dict": "<**PyDict**>",
          "list": "<**PyList**>", "set": "<**PySet**>", "tuple": "<**PyTuple**>",
          "frozenset": "<**PyFrozenset**>", "bytearray": "<**PyBytearray**>"}
_STR_RESULT = frozenset({
    "join", "upper", "lower", "strip", "lstrip", "rstrip", "replace", "format", "title",
    "capitalize", "casefold", "center", "ljust", "rjust", "zfill", "expandtabs", "swapcase",
    "removeprefix", "removesuffix", "format_map", "translate"})
_STR_LIST = frozenset({"split", "rsplit", "splitlines"})
_K_STR = BuiltinInstance("K", "str")


def type_of(v: Any) -> str | None:
    """The builtin type name of a display or builtin instance, else None."""
    t = type(v)
    if t is BuiltinInstance:
        return v.typename if v.typename in PSEUDO else None
    if t is DictDisplay:
        return "dict"
    if t is SeqDisplay:
        return v.kind if v.kind in PSEUDO else None
    return None


def member(v: Any, name: str) -> BuiltinMember | None:
    """``v.name`` as a method of a builtin type, or None when ``v`` is of none."""
    typename = type_of(v)
    if typename is None:
        return None
    return BuiltinMember("BM", PSEUDO[typename] + "." + name, v)


def result(ev: Any, facts: PyFileFacts, scope: int, bm: BuiltinMember, enc: Enc,
           recv: Any) -> Items:
    """What calling builtin method ``bm`` returns, as far as the repository cares."""
    pseudo, _, name = bm.pseudo.rpartition(".")
    if pseudo == "<**PyStr**>":
        if name in _STR_RESULT:
            return [_K_STR]
        if name in _STR_LIST:
            return [Sequence("SEQ", (_K_STR,))]
        return [XI]
    v = bm.recv
    if type(v) is DictDisplay:
        entries = ev.display_values(v)
        if name == "values":
            return [Sequence("SEQ", tuple(entries))]
        if name == "items":
            return [Sequence("SEQ", (FixedTuple("TUP", ((_K_STR,), tuple(entries))),))]
        if name == "keys":
            return [Sequence("SEQ", (_K_STR,))]
        if name in ("get", "pop", "setdefault"):
            default: Items = []
            if len(enc) > 2:
                default, _ = ev.vals(facts, scope, enc[2], recv)
            return entries + [d for d in default if d not in entries]
        if name == "copy":
            return [v]
    if type(v) is SeqDisplay and name == "copy":
        return [v]
    if type(v) is SeqDisplay and name == "pop":
        return ev.iterate([v])
    return [XI]
