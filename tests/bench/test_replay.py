"""`bench replay`: incremental == full over a real commit sequence, and it notices a difference."""

from __future__ import annotations

import json

from impactlens.bench import replay

FILES = {
    "pkg/__init__.py": "from .a import helper\n__all__ = ['helper']\n",
    "pkg/a.py": "def helper(x):\n    return x + 1\n",
    "pkg/b.py": "from pkg import helper\n\n\ndef use():\n    return helper(1)\n",
    "tests/test_b.py": "from pkg.b import use\n\n\ndef test_use():\n    assert use() == 2\n",
}


def test_replay_finds_incremental_equal_to_full(make_repo, git_commit, capsys):
    root = make_repo(FILES)
    git_commit(root, {"pkg/a.py": "def helper(x, y=1):\n    return x + y\n"}, "default")
    git_commit(root, {"pkg/a.py": None, "pkg/__init__.py": "def helper(x):\n    return x\n"},
               "inline helper")
    git_commit(root, {"pkg/c.py": "from pkg.b import use\n\nVALUE = use()\n"}, "add c")
    assert replay.main([str(root), "--commits", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["steps"] == 3 and report["mismatched_steps"] == 0
    assert [s["parsed"] for s in report["step_details"]] == [1, 1, 1]


def test_diff_rows_reports_both_sides():
    inc = {"nodes": {("a",), ("b",)}, "edges": set()}
    full = {"nodes": {("a",), ("c",)}, "edges": set()}
    d = replay.diff_rows(inc, full)
    assert d == {"nodes": {"extra": 1, "missing": 1, "extra_rows": ["('b',)"],
                           "missing_rows": ["('c',)"]}}


def test_replay_refuses_a_non_repository(tmp_path, capsys):
    assert replay.main([str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err
