"""Tiny in-memory repository for resolver tests: {path: source} → resolutions."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field

from impactlens.index.python import PyFileFacts, extract_file, resolve_file
from impactlens.model import Edge, EdgeKind, FileResolution


def module_of(path: str) -> tuple[str, bool]:
    parts = path[:-3].split("/")
    if parts[0] == "src":
        parts = parts[1:]
    pkg = parts[-1] == "__init__"
    if pkg:
        parts = parts[:-1]
    return ".".join(parts), pkg


def is_test_path(path: str) -> bool:
    base = path.rpartition("/")[2]
    return base.startswith("test_") or base.endswith("_test.py")


@dataclass
class MemoryLookup:
    facts: dict[str, PyFileFacts]
    consulted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_module: dict[str, PyFileFacts] = {}
        for path in sorted(self.facts):
            f = self.facts[path]
            self.by_module.setdefault(f.module, f)

    def module(self, name: str) -> PyFileFacts | None:
        self.consulted.append("m:" + name)
        return self.by_module.get(name)

    def path(self, relpath: str) -> PyFileFacts | None:
        self.consulted.append("p:" + relpath)
        return self.facts.get(relpath)


def extract_all(files: dict[str, str]) -> dict[str, PyFileFacts]:
    out = {}
    for path, src in files.items():
        mod, pkg = module_of(path)
        out[path] = extract_file(path, textwrap.dedent(src).encode(), mod, is_test_path(path), pkg)
    return out


class Repo:
    """Extract and resolve a dict of files; query edges tersely."""

    def __init__(self, files: dict[str, str]) -> None:
        self.facts = extract_all(files)
        self.lookup = MemoryLookup(self.facts)
        self.res: dict[str, FileResolution] = {
            p: resolve_file(f, self.lookup) for p, f in sorted(self.facts.items())}

    @property
    def edges(self) -> list[Edge]:
        return [e for r in self.res.values() for e in r.edges]

    @property
    def nodes(self):
        return [n for r in self.res.values() for n in r.nodes]

    @property
    def unresolved(self):
        return [u for r in self.res.values() for u in r.unresolved]

    def pairs(self, kind: EdgeKind | str = EdgeKind.CALL,
              src_prefix: str = "") -> set[tuple[str, str]]:
        k = EdgeKind(kind)
        return {(e.src, e.dst) for e in self.edges if e.kind == k and e.src.startswith(src_prefix)}

    def calls_from(self, src: str, kind: EdgeKind | str = EdgeKind.CALL) -> set[str]:
        k = EdgeKind(kind)
        return {e.dst for e in self.edges if e.kind == k and e.src == src}

    def edge(self, src: str, dst: str, kind: EdgeKind | str = EdgeKind.CALL) -> Edge:
        k = EdgeKind(kind)
        got = [e for e in self.edges if e.src == src and e.dst == dst and e.kind == k]
        assert got, f"no {k} edge {src} -> {dst}; have {sorted(self.calls_from(src, k))}"
        return got[0]

    def detail(self, src: str, dst: str, kind: EdgeKind | str = EdgeKind.CALL) -> dict:
        return json.loads(self.edge(src, dst, kind).detail)

    def node(self, node_id: str):
        got = [n for n in self.nodes if n.id == node_id]
        assert got, f"no node {node_id}"
        return got[0]


def repo(**files: str) -> Repo:
    """``repo(**{"pkg/a.py": "..."})`` — keyword form for readability."""
    return Repo(files)
