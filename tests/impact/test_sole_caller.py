"""The only library file calling a changed function is raised in the order (impact/triage.py)."""

from __future__ import annotations

from dataclasses import replace

from impact.graphs import Graph
from impactlens.impact.triage import merge, order_score, sole_caller_file
from impactlens.model import Bucket, Edge, EdgeKind, Triage, TriageEntry
from impactlens.settings import DEFAULT

HELPER = "def helper(x):\n    return x + 1\n"
HELPER_AFTER = "def helper(x):\n    return x + 2\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": HELPER + "\n\ndef twice(x):\n    return helper(helper(x))\n",
    "pkg/views.py": "from .util import helper\n\n\ndef show(x):\n    return helper(x)\n",
    "pkg/other.py": "def other():\n    return 1\n",
    "tests/test_util.py": "from pkg.util import helper\n\n\ndef test_helper():\n"
                          "    assert helper(1) == 2\n",
}


def _call(src: str, dst: str, file: str) -> Edge:
    return Edge(src=src, dst=dst, kind=EdgeKind.CALL, file=file, line=1)


def test_one_library_file_calling_the_function_is_its_sole_caller():
    g = Graph()
    g.edges += [_call("pkg.views.show", "pkg.util.helper", "pkg/views.py"),
                _call("pkg.util.twice", "pkg.util.helper", "pkg/util.py"),  # its own file
                _call("tests.test_util.test_helper", "pkg.util.helper", "tests/test_util.py")]
    assert sole_caller_file(g, "pkg.util.helper", "pkg/util.py") == "pkg/views.py"
    g.edges.append(_call("pkg.api.run", "pkg.util.helper", "pkg/api.py"))
    assert sole_caller_file(g, "pkg.util.helper", "pkg/util.py") is None  # two files call it
    assert sole_caller_file(g, "pkg.api.run", "pkg/api.py") is None  # nothing calls it
    off = DEFAULT.replace(sole_caller_weight=0.0)
    assert sole_caller_file(g, "pkg.util.helper", "pkg/views.py", off) is None


def test_merge_keeps_the_mark_and_the_weight_raises_the_entry():
    plain = TriageEntry("pkg.views", "pkg/views.py", 0.4, "co-change", Bucket.MAY, 0,
                        hard=False)
    marked = TriageEntry("pkg.views.show", "pkg/views.py", 0.2, "caller", Bucket.MAY, 1,
                         sole_caller_of="pkg.util.helper")
    [got] = merge([plain, replace(marked, entity="pkg.views")]).may_impact
    assert got.sole_caller_of == "pkg.util.helper" and got.conf == 0.4
    assert got.to_json()["sole_caller_of"] == "pkg.util.helper"
    assert "sole_caller_of" not in plain.to_json()
    assert order_score(got) == order_score(plain) + DEFAULT.sole_caller_weight


def _edit_helper(indexed, files: dict[str, str]) -> Triage:
    """Index a real repository of ``files`` and analyze an edit to helper's body."""
    with indexed(files) as p:
        before = files["pkg/util.py"]
        return p.analyze_before_after("pkg/util.py", before,
                                      before.replace(HELPER, HELPER_AFTER),
                                      refresh=False).triage


def test_analyze_marks_the_only_file_calling_the_edited_function(indexed):
    triage = _edit_helper(indexed, FILES)
    entries = [*triage.must_inspect, *triage.may_impact]
    marked = {e.file for e in entries if e.sole_caller_of}
    assert marked == {"pkg/views.py"}  # not the test that calls it, not its own file
    [show] = [e for e in entries if e.file == "pkg/views.py"]
    assert "the only library file calling pkg.util.helper" in show.reason


def test_a_second_caller_file_means_no_sole_caller(indexed):
    files = dict(FILES)
    files["pkg/api.py"] = "from .util import helper\n\n\ndef run():\n    return helper(0)\n"
    triage = _edit_helper(indexed, files)
    assert not [e for e in triage.entries() if e.sole_caller_of]
    assert {"pkg/views.py", "pkg/api.py"} <= {e.file for e in triage.entries()}
