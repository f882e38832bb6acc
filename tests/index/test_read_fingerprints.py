"""Read-fingerprint keys name scopes, so inserting or removing a scope keeps the others' keys."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from impactlens.index.python import extract_file
from impactlens.index.read_fingerprints import fingerprint, scope_names

QUALS = st.lists(st.sampled_from(["m.f", "m.g", "m.C", "m.C.run", "m.h"]), max_size=12)


def _scopes(quals):
    return [SimpleNamespace(qual=q) for q in ["m", *quals]]


@given(QUALS, st.integers(0, 12), st.sampled_from(["m.f", "m.new", "m.C.run"]))
def test_scope_names_are_unique_and_survive_an_insertion(quals, at, new):
    names = scope_names(_scopes(quals))
    assert len(set(names)) == len(names)
    at = min(at, len(quals))
    after = scope_names(_scopes([*quals[:at], new, *quals[at:]]))
    # every scope keeps its name unless it repeats the inserted one's name below it
    kept = [n for i, n in enumerate(after) if i != at + 1]
    for j, (old, got, q) in enumerate(zip(names, kept, ["m", *quals], strict=True)):
        assert got == old or (q == new and j > at)  # a same-named scope below it: #k+1


def _digests(src: str) -> dict[str, str]:
    return fingerprint(extract_file("m.py", src.encode(), "m", False, False))


BODY = ("import os\n\n\nclass Base:\n    def run(self):\n        return helper(1)\n\n\n"
        "def helper(x):\n    return os.sep + str(x)\n\n\nVALUE = helper(2)\n")


def test_a_def_inserted_above_changes_no_other_key():
    before = _digests(BODY)
    after = _digests(BODY.replace("class Base:", "def fresh():\n    return 0\n\n\nclass Base:"))
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    # the new def's own keys, the name set, and whatever iterates all scopes — nothing else
    assert changed <= {"N:fresh", "S:m.fresh", "B:m.fresh", "P:m.fresh", "K:byname",
                       "K:final", "ALL", "A:nodes", "A0:binds"}
    assert before["S:m.Base"] == after["S:m.Base"] and before["N:helper"] == after["N:helper"]
    assert before["N:VALUE"] == after["N:VALUE"] and before["B:m.helper"] == after["B:m.helper"]


def test_a_body_edit_keeps_the_parameter_summary_unless_a_parameter_s_use_changes():
    before = _digests(BODY)
    quiet = _digests(BODY.replace("    return os.sep", "    y = 2\n    return os.sep"))
    assert quiet["B:m.helper"] != before["B:m.helper"]
    assert quiet["P:m.helper"] == before["P:m.helper"]
    assert quiet["S:m.helper"] == before["S:m.helper"]
    unused = _digests(BODY.replace("os.sep + str(x)", "os.sep"))  # x no longer mentioned
    assert unused["P:m.helper"] != before["P:m.helper"]
    called = _digests(BODY.replace("str(x)", "str(x())"))  # x is now called
    assert called["P:m.helper"] != before["P:m.helper"]


def test_a_call_added_above_a_self_site_keeps_the_method_s_header():
    src = "class A:\n    def run(self):\n        return self.go()\n"
    before = _digests(src)
    after = _digests(src.replace("        return", "        print(1)\n        return"))
    assert after["S:m.A.run"] == before["S:m.A.run"]
    assert after["B:m.A.run"] != before["B:m.A.run"]
