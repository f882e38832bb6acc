"""Property tests: extraction never crashes on valid Python; resolution is deterministic,
independent of lookup order, and depends only on what it looked up (incremental == full)."""

from __future__ import annotations

import pickle
import textwrap
import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyindex_helpers import MemoryLookup, extract_all

from impactlens.index.python import resolve_file

NAMES = ["a", "b", "run", "Foo", "Bar", "self", "cls", "x", "helper", "super", "getattr",
         "mod1", "mod2", "__init__", "items", "test_it", "fixture", "property", "obj"]
ident = st.sampled_from(NAMES)


@st.composite
def expr(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 2:
        return draw(st.one_of(ident, st.sampled_from(["1", "'s'", "None", "[]"])))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(ident)
    if kind == 1:
        return f"{draw(expr(depth + 1))}.{draw(ident)}"
    if kind == 2:
        args = draw(st.lists(expr(depth + 1), max_size=2))
        kw = draw(st.sampled_from(["", "k=1", "*z", "**z"]))
        return f"{draw(expr(depth + 1))}({', '.join([*args, kw] if kw else args)})"
    if kind == 3:
        return f"{draw(expr(depth + 1))}[{draw(expr(depth + 1))}]"
    if kind == 4:
        return f"[{draw(expr(depth + 1))} for {draw(ident)} in {draw(expr(depth + 1))}]"
    if kind == 5:
        return f"(lambda {draw(ident)}: {draw(expr(depth + 1))})"
    if kind == 6:
        return f"({draw(expr(depth + 1))} or {draw(expr(depth + 1))})"
    if kind == 7:
        return f"{{'k': {draw(expr(depth + 1))}}}"
    if kind == 8:
        return "super()"
    return f"({draw(expr(depth + 1))} if {draw(expr(depth + 1))} else None)"


@st.composite
def block(draw: st.DrawFn, depth: int = 0) -> list[str]:
    n = draw(st.integers(1, 4))
    out: list[str] = []
    for _ in range(n):
        kind = draw(st.integers(0, 11 if depth < 2 else 4))
        name = draw(ident.filter(lambda s: s not in ("super", "self", "cls")))
        if kind == 0:
            out.append(f"{name} = {draw(expr())}")
        elif kind == 1:
            out.append(draw(expr()))
        elif kind == 2:
            out.append(f"return {draw(expr())}")
        elif kind == 3:
            out.append(f"self.{draw(ident)} = {draw(expr())}")
        elif kind == 4:
            out.append(f"from .{draw(st.sampled_from(['mod1', 'mod2']))} import {name}")
        elif kind in (5, 6):
            deco = draw(st.sampled_from(["", "@property\n", "@classmethod\n", "@fixture\n",
                                         "@staticmethod\n", "@deco(1)\n"]))
            params = draw(st.sampled_from(["self", "self, x: 'Foo'", "", "x=None, *a, **k",
                                           "cls, y: Foo | None = None"]))
            body = draw(block(depth + 1))
            out.append(f"{deco}def {name}({params}):\n" + textwrap.indent("\n".join(body), "    "))
        elif kind == 7:
            bases = draw(st.sampled_from(["", "(Foo)", "(Bar, Foo)", "(mod1.Foo)", "(x())"]))
            body = draw(block(depth + 1))
            out.append(f"class {name}{bases}:\n" + textwrap.indent("\n".join(body), "    "))
        elif kind == 8:
            body = draw(block(depth + 1))
            other = draw(block(depth + 1))
            out.append(f"if {draw(expr())}:\n" + textwrap.indent("\n".join(body), "    ")
                       + "\nelse:\n" + textwrap.indent("\n".join(other), "    "))
        elif kind == 9:
            body = draw(block(depth + 1))
            out.append(f"for {name} in {draw(expr())}:\n"
                       + textwrap.indent("\n".join(body), "    "))
        elif kind == 10:
            body = draw(block(depth + 1))
            out.append("try:\n" + textwrap.indent("\n".join(body), "    ")
                       + f"\nexcept {draw(ident)} as {name}:\n    pass")
        else:
            body = draw(block(depth + 1))
            out.append(f"with {draw(expr())} as {name}:\n"
                       + textwrap.indent("\n".join(body), "    "))
    return out


def _program(lines: list[str]) -> str | None:
    src = "\n".join(lines) + "\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(src, "<gen>", "exec")
    except SyntaxError:
        return None
    return src


@st.composite
def repos(draw: st.DrawFn) -> dict[str, str]:
    files = {}
    for path in ("pkg/__init__.py", "pkg/mod1.py", "pkg/mod2.py", "pkg/test_gen.py"):
        src = _program(draw(block()))
        files[path] = src if src is not None else "pass\n"
    return files


def _resolve_all(files: dict[str, str], reverse: bool = False):
    facts = extract_all(files)
    order = sorted(facts, reverse=reverse)
    lookup = MemoryLookup({p: facts[p] for p in order})
    return {p: resolve_file(facts[p], lookup) for p in order}, facts, lookup


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(repos())
def test_extract_and_resolve_never_crash_and_are_deterministic(files: dict[str, str]) -> None:
    first, facts, _ = _resolve_all(files)
    second, _, _ = _resolve_all(files, reverse=True)
    assert first == second
    # pickled facts resolve identically (what the indexer stores and reloads)
    copies = {p: pickle.loads(pickle.dumps(f)) for p, f in facts.items()}
    lookup = MemoryLookup(copies)
    assert {p: resolve_file(f, lookup) for p, f in copies.items()} == first
    for res in first.values():
        assert list(res.edges) == sorted(res.edges, key=lambda e: (
            e.src, e.dst, e.kind.value, e.line, e.resolution.value, e.detail))


class _Recording:
    def __init__(self, inner: MemoryLookup) -> None:
        self.inner = inner
        self.modules: set[str] = set()
        self.paths: set[str] = set()

    def module(self, name: str):
        self.modules.add(name)
        return self.inner.module(name)

    def path(self, relpath: str):
        self.paths.add(relpath)
        return self.inner.path(relpath)


class _Only:
    """A lookup that knows only what a previous resolution consulted."""

    def __init__(self, inner: MemoryLookup, modules: set[str], paths: set[str]) -> None:
        self.inner, self.modules, self.paths = inner, modules, paths

    def module(self, name: str):
        assert name in self.modules, f"unrecorded dependency {name}"
        return self.inner.module(name)

    def path(self, relpath: str):
        assert relpath in self.paths, f"unrecorded dependency {relpath}"
        return self.inner.path(relpath)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(repos())
def test_resolution_depends_only_on_recorded_lookups(files: dict[str, str]) -> None:
    facts = extract_all(files)
    full = MemoryLookup(facts)
    for _path, f in sorted(facts.items()):
        rec = _Recording(full)
        res = resolve_file(f, rec)
        again = resolve_file(f, _Only(full, rec.modules, rec.paths))
        assert again == res


def test_changing_an_unconsulted_module_does_not_change_resolution() -> None:
    files = {
        "a.py": "import b\n\ndef f():\n    b.g()\n",
        "b.py": "def g():\n    pass\n",
        "c.py": "def h():\n    pass\n",
    }
    facts = extract_all(files)
    rec = _Recording(MemoryLookup(facts))
    before = resolve_file(facts["a.py"], rec)
    assert "c" not in rec.modules
    facts2 = extract_all({**files, "c.py": "def h2():\n    pass\n"})
    assert resolve_file(facts2["a.py"], MemoryLookup(facts2)) == before
