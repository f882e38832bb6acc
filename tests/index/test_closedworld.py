"""The closed-world call graph (``export callgraph --world closed``): which self-dispatch
edges it drops, which it keeps, and — on random class hierarchies run for real — that it
never drops a call the program makes."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from impactlens.api import Project
from impactlens.cli import main
from impactlens.errors import BadInputError

SHAPES = (
    "class Shape:\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "        self.validate()\n\n"
    "    def validate(self):\n"
    "        return True\n\n"
    "    def describe(self):\n"
    "        return self.label()\n\n"
    "    def label(self):\n"
    "        return 'shape'\n\n\n"
    "class Orphan:\n"  # nothing builds it, nor any subclass: left as it is
    "    def go(self):\n"
    "        return self.step()\n\n"
    "    def step(self):\n"
    "        return 0\n"
)
KINDS = (
    "from geo.shapes import Shape\n\n\n"
    "class Square(Shape):\n"
    "    def validate(self):\n"
    "        return self.name == 'square'\n\n\n"
    "class Circle(Shape):\n"
    "    def label(self):\n"
    "        return 'circle'\n\n"
    "    @classmethod\n"
    "    def make(cls):\n"
    "        return cls.build()\n\n"
    "    @classmethod\n"
    "    def build(cls):\n"
    "        return cls('circle')\n"
)
MAIN = (
    "from geo.kinds import Circle, Square\n\n\n"
    "def run():\n"
    "    Square('square').describe()\n"
    "    return Circle.make().describe()\n"
)


def _graph(root: Path, world: str) -> set[tuple[str, str]]:
    with Project(root) as p:
        cg = p.export_callgraph("pycg", world)
    return {(s, d) for s, ds in cg.items() for d in ds}


def test_closed_world_drops_only_what_no_built_receiver_reaches(indexed):
    root = indexed({"geo/__init__.py": "", "geo/shapes.py": SHAPES, "geo/kinds.py": KINDS,
                    "app.py": MAIN}).root
    open_, closed = _graph(root, "open"), _graph(root, "closed")
    assert closed <= open_
    dropped = open_ - closed
    # Shape is never built; Square overrides validate, and Circle (built by a
    # classmethod's cls()) inherits it: Shape.validate stays for the Circle
    assert ("geo.shapes.Shape.__init__", "geo.kinds.Square.validate") in closed
    assert ("geo.shapes.Shape.__init__", "geo.shapes.Shape.validate") in closed
    # label: Circle overrides it, Square inherits Shape.label: both stay
    assert ("geo.shapes.Shape.describe", "geo.kinds.Circle.label") in closed
    assert ("geo.shapes.Shape.describe", "geo.shapes.Shape.label") in closed
    # a class nobody builds, with no subclass: no evidence, nothing dropped
    assert ("geo.shapes.Orphan.go", "geo.shapes.Orphan.step") in closed
    assert dropped == set()

    # once Circle stops inheriting validate, no built receiver runs Shape.validate
    kinds = KINDS.replace("    def label(self):\n",
                          "    def validate(self):\n        return True\n\n"
                          "    def label(self):\n")
    (root / "geo" / "kinds.py").write_text(kinds, encoding="utf-8")
    Project(root).index()
    open_, closed = _graph(root, "open"), _graph(root, "closed")
    assert open_ - closed == {("geo.shapes.Shape.__init__", "geo.shapes.Shape.validate")}


def test_export_world_cli_and_bad_input(indexed):
    root = indexed({"geo/__init__.py": "", "geo/shapes.py": SHAPES, "geo/kinds.py": KINDS,
                    "app.py": MAIN}).root
    res = CliRunner().invoke(main, ["export", "callgraph", str(root), "--format", "pycg",
                                    "--world", "closed"])
    assert res.exit_code == 0, res.output
    assert "geo.kinds.Circle.label" in json.loads(res.output)["geo.shapes.Shape.describe"]
    res = CliRunner().invoke(main, ["export", "callgraph", str(root), "--world", "flat"])
    assert res.exit_code != 0 and "flat" in res.output
    with Project(root) as p, pytest.raises(BadInputError, match="unknown world"):
        p.export_callgraph("pycg", "flat")


# ----------------------------------------------------------------- random hierarchies
NAMES = ("a", "b", "c")

_TRACER = """
import json, sys
edges = set()
def prof(frame, event, arg):
    if event == "call" and frame.f_back is not None:
        callee, caller = frame.f_code, frame.f_back.f_code
        if callee.co_name in ("a", "b", "c") and \\
                frame.f_back.f_globals.get("__name__") == "__main__":
            src = "main" if caller.co_qualname == "<module>" else "main." + caller.co_qualname
            edges.add((src, "main." + callee.co_qualname))
sys.setprofile(prof)
exec(compile(open(sys.argv[1]).read(), "main.py", "exec"), {"__name__": "__main__"})
sys.setprofile(None)
print(json.dumps(sorted(edges)))
"""


@st.composite
def programs(draw: st.DrawFn) -> str:
    """Classes with one or two bases, each defining some of a/b/c; a method calls
    later-named methods on self and, when its static MRO has one, ``super()`` of itself;
    the module builds some classes and calls a method each has."""
    n = draw(st.integers(3, 5))
    classes: list[tuple[str, list[int], dict[str, tuple[list[str], bool]]]] = []
    for i in range(n):
        bases = sorted(draw(st.sets(st.integers(0, i - 1), min_size=1, max_size=2))) if i else []
        methods = {}
        # the root defines every name, so its self sites meet subclasses' overrides
        for name in NAMES if i == 0 else draw(st.sets(st.sampled_from(NAMES), max_size=3)):
            later = [m for m in NAMES if m > name]
            methods[name] = (sorted(draw(st.sets(st.sampled_from(later), max_size=2)))
                             if later else [], draw(st.booleans()))
        classes.append((f"K{i}", bases, methods))
    ns: dict[str, type] = {}
    for name, bases, _ in classes:  # drop hierarchies Python rejects (no C3 order)
        try:
            ns[name] = type(name, tuple(ns[f"K{b}"] for b in bases) or (object,), {})
        except TypeError:
            return ""
    methods_of = {name: methods for name, _, methods in classes}

    def names_in(mro: tuple[type, ...]) -> set[str]:
        return {m for c in mro if c.__name__ in methods_of for m in methods_of[c.__name__]}

    lines = []
    for name, bases, methods in classes:
        mro = ns[name].__mro__
        lines.append(f"class {name}({', '.join(f'K{b}' for b in bases)}):")
        lines.append("    pass")
        for m, (calls, sup) in sorted(methods.items()):
            body = [f"self.{c}()" for c in calls if c in names_in(mro)]
            if sup and m in names_in(mro[1:]):
                body.append(f"super().{m}()")
            lines.append(f"    def {m}(self):")
            lines.extend(f"        {b}" for b in body or ["return None"])
        lines.append("")
    # mostly subclasses are built, so that bases' self sites meet other receivers
    built = draw(st.sets(st.integers(1, n - 1), min_size=1)) | (
        {0} if draw(st.booleans()) else set())
    for i in sorted(built):
        have = sorted(names_in(ns[f"K{i}"].__mro__))
        if have:
            lines.append(f"K{i}().{draw(st.sampled_from(have))}()")
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=programs())
def test_closed_world_keeps_every_call_the_program_makes(indexed, source):
    if not source:
        return
    with tempfile.TemporaryDirectory() as tmp:
        main_py = Path(tmp) / "main.py"
        main_py.write_text(source, encoding="utf-8")
        out = subprocess.run([sys.executable, "-c", _TRACER, str(main_py)], capture_output=True,
                             text=True, check=True).stdout
    ran = {tuple(e) for e in json.loads(out)}
    root = indexed({"main.py": source}).root
    open_, closed = _graph(root, "open"), _graph(root, "closed")
    assert closed <= open_
    assert ran <= closed, (source, sorted(ran - closed))
