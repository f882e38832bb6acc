"""Body edits of decorated, nested and class-level definitions: the importers re-resolve
only when what they read of the edited function changes (its parameter summary, not its
body), and an incremental index always equals a full one."""

from __future__ import annotations

import pytest

from impactlens.api import Project
from tests.index.test_indexer import dump

# Each target function's body starts with a ``# <name>`` marker line; edits insert
# statements right after it, at the body's indentation.
LIB = (
    "import functools\n\n\n"
    "def logged(fn):\n"
    "    @functools.wraps(fn)\n"
    "    def inner(*args, **kwargs):\n"
    "        return fn(*args, **kwargs)\n"
    "    return inner\n\n\n"
    "@logged\n"
    "def capfirst(x):\n"
    "    # capfirst\n"
    "    if not x:\n"
    "        return x\n"
    "    return x[0].upper() + x[1:]\n\n\n"
    "def make_counter(start):\n"
    "    # make_counter\n"
    "    def step(n):\n"
    "        # step\n"
    "        total = start + n\n"
    "        return total\n"
    "    return step\n\n\n"
    "class Greeter:\n"
    "    prefix = 'hi'\n\n"
    "    def greet(self, name):\n"
    "        # greet\n"
    "        msg = self.prefix + name\n"
    "        return msg\n\n"
    "    @staticmethod\n"
    "    @logged\n"
    "    def shout(word):\n"
    "        # shout\n"
    "        return word\n\n\n"
    "class Box:\n"
    "    def open(self):\n"
    "        return 1\n\n\n"
    "def handle(box, fn):\n"
    "    # handle\n"
    "    return 0\n"
)
BASE = {
    "src/lib/__init__.py": "",
    "src/lib/text.py": LIB,
    "src/app/__init__.py": "",
    # importers call every target with arguments but never evaluate what a target's body
    # returns: nothing they read is in a body
    "src/app/names.py": (
        "from lib.text import capfirst, make_counter\n\n\n"
        "def title(s, n):\n"
        "    capfirst(s)\n"
        "    capfirst(x=n)\n"
        "    make_counter(n)\n"
    ),
    "src/app/greet.py": (
        "from lib.text import Box, Greeter, handle\n\n\n"
        "def helper():\n"
        "    return 2\n\n\n"
        "def hello(who):\n"
        "    g = Greeter()\n"
        "    g.greet(who)\n"
        "    Greeter.shout(who)\n"
        "    handle(Box(), helper)\n"
    ),
}
TARGETS = ("capfirst", "make_counter", "step", "greet", "shout", "handle")
# statements that change a body but nothing a caller reads of it
QUIET = ("tmp_{k} = {k}", "print({k})", "for i_{k} in range({k}):\n{ind}    pass",
         "if {k}:\n{ind}    tmp_{k} = [{k}, str({k})]")
# statements that change what a caller reads: the parameter summary of ``handle`` (it
# starts using the instance a caller passes, or calling the function it is passed)
LOUD = ("box.open()", "fn()")


def _insert(text: str, target: str, stmt: str) -> str:
    marker = f"# {target}\n"
    at = text.index(marker)
    ind = text[text.rindex("\n", 0, at) + 1:at]
    body = ind + stmt.replace("{ind}", ind) + "\n"
    return text[:at + len(marker)] + body + text[at + len(marker):]


def _index_recording(root, monkeypatch):
    """Index incrementally; the paths whose resolution ran."""
    from impactlens.index import python as pyindex

    resolved: list[str] = []
    real = pyindex.resolve_file
    monkeypatch.setattr(pyindex, "resolve_file",
                        lambda facts, lookup: resolved.append(facts.path) or real(facts, lookup))
    Project(root).index()
    monkeypatch.undo()
    return resolved


def test_body_edits_re_resolve_only_the_edited_file_unless_a_reader_s_part_changed(
        indexed, monkeypatch):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    quiet = st.tuples(st.sampled_from(TARGETS), st.sampled_from(QUIET), st.integers(0, 99))
    loud = st.tuples(st.just("handle"), st.sampled_from(LOUD), st.integers(0, 99))
    edit = st.one_of(quiet.map(lambda e: (*e, True)), loud.map(lambda e: (*e, False)))

    @hypothesis.settings(max_examples=15, deadline=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(st.lists(edit, min_size=1, max_size=4))
    def check(edits):
        root = indexed(BASE).root
        lib = root / "src/lib/text.py"
        for target, stmt, k, unseen in edits:
            before = lib.read_text()
            lib.write_text(_insert(before, target, stmt.replace("{k}", str(k))))
            resolved = _index_recording(root, monkeypatch)
            # once ``handle`` uses the Box it is passed, the caller evaluates its body
            # with that Box (an argument flow): then the body is what the caller reads
            if unseen and not (target == "handle" and "box.open()" in before):
                assert resolved == ["src/lib/text.py"], (target, stmt)
            elif stmt not in before:  # the summary changed: the caller of handle re-resolves
                assert "src/app/greet.py" in resolved
        incremental = dump(root)
        Project(root).index(full=True)
        assert dump(root) == incremental

    check()


def test_a_loud_edit_changes_the_callers_edges(indexed):
    """The loud edits are not vacuous: each adds an edge at the calling site."""
    root = indexed(BASE).root
    lib = root / "src/lib/text.py"
    lib.write_text(_insert(_insert(LIB, "handle", "box.open()"), "handle", "fn()"))
    Project(root).index()
    edges = {(e[0], e[1]) for e in dump(root)["edges"]}
    assert ("lib.text.handle", "lib.text.Box.open") in edges
    assert ("lib.text.handle", "app.greet.helper") in edges
