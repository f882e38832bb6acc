"""Module names of TypeScript/JavaScript files (what discovery needs, without the facts'
records or the resolution of specifiers in :mod:`impactlens.index.typescript.modules`)."""

from __future__ import annotations

CODE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def module_name(path: str) -> str:
    head, _, name = path.rpartition("/")
    if name == "package.json":
        return "package:" + (head.rpartition("/")[2] if head else "")
    if name.endswith(".json"):
        return path
    for s in CODE_SUFFIXES:
        if name.endswith(s):
            return path[: -len(s)]
    return path


def is_config(path: str) -> bool:
    name = path.rpartition("/")[2]
    return name == "package.json" or (name.endswith(".json") and (
        name.startswith("tsconfig") or name.startswith("jsconfig")))
