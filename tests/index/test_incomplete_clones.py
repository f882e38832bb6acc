"""Indexing clones that lack objects: blob-filtered (partial) clones whose remote is gone,
clones missing an old file's content, and shallow clones — the code index, the mined
history, what `index` says about them, and `analyze` on a commit the clone cannot read."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from impactlens.cli import main
from impactlens.index.history import load_history, update_history
from impactlens.index.store import Store
from impactlens.settings import DEFAULT

SYMBOLS = DEFAULT.replace(cochange_symbol_weight=2.0)  # the touched-definitions pass on

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f(x):\n    return x\n",
    "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f(1)\n",
}


def _origin(make_repo, git_commit):
    origin = make_repo(FILES, name="origin")
    git_commit(origin, {"pkg/a.py": "def f(x):\n    return x + 1\n"}, "tweak f")
    git_commit(origin, {"pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f(2)\n",
                        "pkg/a.py": "def f(x):\n    return x + 2\n"}, "tweak both")
    subprocess.run(["git", "config", "uploadpack.allowFilter", "true"], cwd=origin, check=True)
    return origin


def _clone(origin: Path, dest: Path, *options: str) -> Path:
    subprocess.run(["git", "clone", "-q", *options, origin.as_uri(), str(dest)], check=True,
                   capture_output=True)
    return dest


def _index_json(root: Path, *settings: str) -> dict:
    got = CliRunner().invoke(main, [*settings, "index", str(root), "--json"])
    assert got.exit_code == 0, got.output
    return json.loads(got.stdout)


def test_a_partial_clone_with_its_remote_gone_is_indexed_whole(make_repo, git_commit,
                                                               tmp_path):
    origin = _origin(make_repo, git_commit)
    clone = _clone(origin, tmp_path / "partial", "--filter=blob:none")
    origin.rename(origin.with_name("gone"))
    summary = _index_json(clone)
    # the code index reads the checked-out files: nothing is missing from it
    assert (summary["files"], summary["parse_failures"]) == (3, 0)
    assert summary["edges"] > 0
    assert summary["history"] == {"commits": 3, "pending": 0, "shallow": False,
                                  "by_path_only": 3, "without_definitions": 0}
    assert any("3 of 3 commits mined by changed path only" in n for n in summary["notes"])
    again = _index_json(clone)  # nothing new: the same facts, from the store
    assert again["history"] == summary["history"]


def test_a_missing_old_content_costs_only_that_commits_definitions(make_repo, git_commit,
                                                                   tmp_path):
    root = make_repo(FILES)  # objects stay loose: one can be removed
    git_commit(root, {"pkg/a.py": "def f(x):\n    return x + 1\n"}, "tweak f")
    git_commit(root, {"pkg/a.py": "def f(x):\n    return x + 2\n"}, "tweak f again")
    old = subprocess.run(["git", "rev-parse", "HEAD~2:pkg/a.py"], cwd=root, check=True,
                         capture_output=True, text=True).stdout.strip()
    (root / ".git" / "objects" / old[:2] / old[2:]).unlink()  # a snapshot without it
    store = Store.open(tmp_path / "h.db", create=True)
    try:
        summary = update_history(store, root, SYMBOLS)
        commits = {c.message: c for c in load_history(store)}
    finally:
        store.close()
    assert summary.available and summary.commits == 3
    assert "1 of 3 commits mined without the definitions they changed" in summary.note
    # the commit whose diff needs the missing content keeps its files, not its definitions
    first = commits["tweak f"]
    assert first.unread == "definitions" and [f.path for f in first.files] == ["pkg/a.py"]
    assert first.files[0].symbols == ()
    # the commit after it is read whole, definitions included
    second = commits["tweak f again"]
    assert second.unread == "" and second.files[0].symbols == ("f",)


def test_a_missing_old_content_does_not_fail_the_index(make_repo, git_commit, tmp_path):
    root = make_repo(FILES)
    git_commit(root, {"pkg/a.py": "def f(x):\n    return x + 1\n"}, "tweak f")
    old = subprocess.run(["git", "rev-parse", "HEAD~1:pkg/a.py"], cwd=root, check=True,
                         capture_output=True, text=True).stdout.strip()
    (root / ".git" / "objects" / old[:2] / old[2:]).unlink()
    summary = _index_json(root, "--set", "cochange_symbol_weight=2")
    assert summary["history"]["commits"] == 2
    assert summary["history"]["without_definitions"] == 1
    assert not any("git failed" in n for n in summary["notes"])


def test_a_shallow_clone_is_indexed_and_says_so(make_repo, git_commit, tmp_path):
    origin = _origin(make_repo, git_commit)
    clone = _clone(origin, tmp_path / "shallow", "--depth", "1")
    summary = _index_json(clone)
    assert (summary["files"], summary["parse_failures"]) == (3, 0)
    assert summary["history"]["shallow"] is True and summary["history"]["commits"] == 1
    assert any("shallow clone" in n for n in summary["notes"])


def test_analyze_of_a_commit_the_partial_clone_cannot_read_says_why(make_repo, git_commit,
                                                                    tmp_path):
    origin = _origin(make_repo, git_commit)
    clone = _clone(origin, tmp_path / "partial", "--filter=blob:none")
    origin.rename(origin.with_name("gone"))
    _index_json(clone)
    got = CliRunner().invoke(main, ["analyze", "--repo", str(clone), "--rev", "HEAD~1"])
    assert got.exit_code != 0
    message = got.output.strip().splitlines()[-1]
    assert "partial clone lacks a file's content" in message and "Traceback" not in got.output
