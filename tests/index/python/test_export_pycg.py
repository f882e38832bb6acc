"""The pycg export: what runs — lambdas, decorator wrappers, external callees."""

from __future__ import annotations

from impactlens.api import Project
from impactlens.model import EdgeKind, NodeKind

SRC = {
    "app.py": (
        "import asyncio\n"
        "from dataclasses import dataclass\n"
        "\n"
        "\n"
        "def log(fn):\n"
        "    def wrapper(*a):\n"
        "        return fn(*a)\n"
        "    return wrapper\n"
        "\n"
        "\n"
        "@log\n"
        "def add(a, b):\n"
        "    return a + b\n"
        "\n"
        "\n"
        "@dataclass\n"
        "class P:\n"
        "    x: int = 0\n"
        "\n"
        "\n"
        "def rank(xs):\n"
        "    return sorted(xs, key=lambda v: add(v, 1))\n"
        "\n"
        "\n"
        "async def main():\n"
        "    await asyncio.sleep(0)\n"
        "    return add(1, 2)\n"
    ),
}


def test_pycg_export_lists_what_runs(indexed) -> None:
    p = indexed(SRC)
    g = p.export_callgraph("pycg")
    # a decorated name runs the wrapper; the wrapper runs the function
    assert g["app.main"] == ["app.log.wrapper", "asyncio.sleep"]
    assert g["app.log.wrapper"] == ["app.add"]
    # the lambda is a function of its own, called by sorted on rank's behalf
    assert g["app.rank"] == ["<builtin>.sorted", "app.rank.<lambda1>"]
    assert g["app.rank.<lambda1>"] == ["app.log.wrapper"]
    # module code: the decorator applications, the external one by import path
    assert {"app.log", "dataclasses.dataclass"} <= set(g["app"])


def test_index_keeps_the_decorated_callee_and_the_lambda_node(indexed) -> None:
    p = indexed(SRC)
    lam = p.store.node("app.rank.<lambda1>")
    assert lam is not None and lam.kind is NodeKind.FUNCTION and lam.is_lambda
    assert lam.start_line == lam.end_line == 22
    out = {(e.dst, e.kind) for e in p.store.out_edges("app.main")}
    assert ("app.add", EdgeKind.CALL) in out  # impact still sees main → add
    assert ("app.log.wrapper", EdgeKind.CALL) in out
    assert ("app.rank.<lambda1>", EdgeKind.USE) in {(e.dst, e.kind)
                                                   for e in p.store.out_edges("app.rank")}
    # a line of the lambda still belongs to the def around it
    assert p.resolve_symbol("app.py:22").id == "app.rank"


BASE = {
    "base.py": (
        "class Base:\n"
        "    def hello(self):\n"
        "        return self.greet()\n"
        "\n"
        "    def greet(self):\n"
        "        return 'base'\n"
    ),
    "child.py": (
        "from base import Base\n"
        "\n"
        "\n"
        "class Child(Base):\n"
        "    def greet(self):\n"
        "        return 'child'\n"
        "\n"
        "\n"
        "def run():\n"
        "    return Child().hello()\n"
    ),
}


def _calls(p: Project) -> set[tuple[str, str, str, int]]:
    return {(e.src, e.dst, e.file, e.line) for e in p.store.all_edges(frozenset({EdgeKind.CALL}))}


def test_receiver_context_edge_is_recorded_at_the_call_and_follows_edits(indexed) -> None:
    p = indexed(BASE)
    root = p.root
    # hello runs Child.greet for the Child that child.run creates: recorded at that call
    assert ("base.Base.hello", "child.Child.greet", "child.py", 10) in _calls(p)
    assert ("base.Base.hello", "base.Base.greet", "base.py", 3) in _calls(p)
    # the base stops calling greet: the incremental index drops the context edge too
    (root / "base.py").write_text(BASE["base.py"].replace("self.greet()", "'hi'"))
    p.index()
    incremental = _calls(p)
    assert not {e for e in incremental if e[0] == "base.Base.hello"}
    p.index(full=True)
    assert _calls(p) == incremental
