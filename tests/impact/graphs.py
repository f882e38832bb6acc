"""A small dict-backed :class:`impactlens.model.IndexGraph` for stage tests.

It is a real implementation of the protocol (the same queries, the same ordering
as the SQLite store), just held in memory so a test can state its graph in a few
lines::

    g = Graph()
    g.fn("app.auth.login", sig="def login(user):")
    g.fn("app.views.home")
    g.call("app.views.home", "app.auth.login", args=1)
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from impactlens.index.python.words import ident_tokens
from impactlens.model import (
    Edge,
    EdgeKind,
    Node,
    NodeKind,
    Resolution,
    UnresolvedReason,
    UnresolvedSite,
)


def file_of(node_id: str) -> str:
    if "::" in node_id:
        return node_id.split("::", 1)[0]
    parts = node_id.split(".")
    # module = leading lower-case parts ("app.auth.LoginService.login" → app/auth.py)
    mod = []
    for p in parts:
        if p[:1].isupper() or (mod and len(mod) >= 2):
            break
        mod.append(p)
    return "/".join(mod) + ".py"


def call_detail(args: int = 0, kwargs: tuple[str, ...] = (), star: bool = False,
                dstar: bool = False, bound: bool = False) -> str:
    return json.dumps({"args": args, "kwargs": list(kwargs), "star": star, "dstar": dstar,
                       "bound": bound}, sort_keys=True)


class Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self.sites: list[UnresolvedSite] = []

    # ------------------------------------------------------------ building
    def add(self, node_id: str, kind: NodeKind, *, file: str | None = None, line: int = 1,
            sig: str = "", parent: str | None = None, ids: tuple[str, ...] = (),
            strs: tuple[str, ...] = (), imports: tuple[str, ...] = ()) -> Node:
        qual = node_id.split("::")[-1] if "::" in node_id else node_id
        if parent is None and kind is not NodeKind.MODULE and "::" not in node_id:
            parent = node_id.rsplit(".", 1)[0] if "." in node_id else None
        node = Node(id=node_id, kind=kind, qualname=qual, file=file or file_of(node_id),
                    start_line=line, end_line=line + 2, signature=sig, parent=parent,
                    ids=ids or ident_tokens(qual, sig), strs=strs,
                    imports=imports)
        self.nodes[node_id] = node
        return node

    def fn(self, node_id: str, sig: str = "", **kw: object) -> Node:
        return self.add(node_id, NodeKind.FUNCTION, sig=sig, **kw)  # type: ignore[arg-type]

    def method(self, node_id: str, sig: str = "", **kw: object) -> Node:
        return self.add(node_id, NodeKind.METHOD, sig=sig, **kw)  # type: ignore[arg-type]

    def cls(self, node_id: str, sig: str = "", **kw: object) -> Node:
        return self.add(node_id, NodeKind.CLASS, sig=sig, **kw)  # type: ignore[arg-type]

    def field(self, node_id: str, **kw: object) -> Node:
        return self.add(node_id, NodeKind.FIELD, **kw)  # type: ignore[arg-type]

    def module(self, node_id: str, **kw: object) -> Node:
        return self.add(node_id, NodeKind.MODULE, **kw)  # type: ignore[arg-type]

    def test(self, node_id: str, **kw: object) -> Node:
        return self.add(node_id, NodeKind.TEST, **kw)  # type: ignore[arg-type]

    def edge(self, src: str, dst: str, kind: EdgeKind, *, line: int = 1, detail: str = "",
             file: str | None = None, resolution: Resolution = Resolution.EXACT) -> Edge:
        src_node = self.nodes.get(src)
        e = Edge(src=src, dst=dst, kind=kind,
                 file=file or (src_node.file if src_node else file_of(src)), line=line,
                 resolution=resolution, detail=detail)
        self.edges.append(e)
        return e

    def call(self, src: str, dst: str, line: int = 1,
             resolution: Resolution = Resolution.EXACT, **detail: object) -> Edge:
        return self.edge(src, dst, EdgeKind.CALL, line=line, resolution=resolution,
                         detail=call_detail(**detail))  # type: ignore[arg-type]

    def new(self, src: str, cls: str, line: int = 1, **detail: object) -> Edge:
        return self.edge(src, cls, EdgeKind.INSTANTIATE, line=line,
                         detail=call_detail(**detail))  # type: ignore[arg-type]

    def tests(self, test: str, unit: str) -> Edge:
        return self.edge(test, unit, EdgeKind.TESTS)

    def contains(self, outer: str, inner: str) -> Edge:
        return self.edge(outer, inner, EdgeKind.CONTAINS)

    def site(self, file: str, line: int, scope: str, reason: UnresolvedReason, text: str,
             names: tuple[str, ...] = ()) -> UnresolvedSite:
        u = UnresolvedSite(file, line, scope, reason, text, names)
        self.sites.append(u)
        return u

    # ------------------------------------------------------------ GraphView
    def node(self, node_id: str) -> Node | None:
        return self.nodes.get(node_id)

    def nodes_in_file(self, path: str) -> list[Node]:
        return sorted((n for n in self.nodes.values() if n.file == path),
                      key=lambda n: (n.start_line, n.id))

    def in_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        es = [e for e in self.edges if e.dst == node_id and (not kinds or e.kind in kinds)]
        return sorted(es, key=lambda e: (e.src, e.kind.value, e.file, e.line))

    def out_edges(self, node_id: str, kinds: frozenset[EdgeKind] | None = None) -> list[Edge]:
        es = [e for e in self.edges if e.src == node_id and (not kinds or e.kind in kinds)]
        return sorted(es, key=lambda e: (e.dst, e.kind.value, e.file, e.line))

    def unresolved_sites(self) -> list[UnresolvedSite]:
        return sorted(self.sites, key=lambda u: (u.file, u.line, u.scope, u.text))

    # ----------------------------------------------------------- IndexGraph
    def unresolved_sites_where(self, **_query: object) -> list[UnresolvedSite]:
        return self.unresolved_sites()  # the query asks for a superset: every site is one

    def unresolved_in_file(self, path: str) -> list[UnresolvedSite]:
        return [u for u in self.unresolved_sites() if u.file == path]

    def dependents_of_modules(self, modules: Iterable[str]) -> set[str]:
        # no read keys recorded here: every file may have read them (the safe superset)
        return {n.file for n in self.nodes.values() if n.file}


def module_of(path: str) -> str:
    return path.removesuffix(".py").removeprefix("src/").replace("/", ".")
