"""History mining (index/history.py) on real git repositories built in tmp_path."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest
from git_dates import day

from impactlens.index.history import history_state, load_history, update_history
from impactlens.index.store import Store
from impactlens.settings import DEFAULT

SYMBOLS = DEFAULT.replace(cochange_symbol_weight=2.0)  # the touched-definitions pass on
LINES = SYMBOLS.replace(history_line_counts=True)  # and line counts (--numstat)


def mine(root: Path, db: Path, settings=SYMBOLS):
    store = Store.open(db, create=True)
    try:
        summary = update_history(store, root, settings)
        return summary, load_history(store), history_state(store)
    finally:
        store.close()


def test_incremental_only_new_commits(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 1\n", "b.py": "B = 1\n"})
    git_commit(root, {"a.py": "A = 2\n", "b.py": "B = 2\n"}, "tweak both")
    db = tmp_path / "h.db"
    first, commits, _ = mine(root, db, LINES)
    assert (first.available, first.commits, first.new, first.removed) == (True, 2, 2, 0)
    again, _, _ = mine(root, db, LINES)
    assert (again.commits, again.new) == (2, 0)
    git_commit(root, {"a.py": "A = 3\n"}, "only a")
    third, commits, note = mine(root, db, LINES)
    assert (third.commits, third.new) == (3, 1)
    assert "3 commits indexed (1 new)" in third.note == note
    store = Store.open(db)
    assert "3 commits indexed (0 new)" in history_state(store, unchanged=True)  # a later run
    store.close()
    last = commits[-1]
    assert last.message == "only a"
    assert [(f.path, f.added, f.deleted) for f in last.files] == [("a.py", 1, 1)]
    assert last.n_files == 1


def test_records_renames_lines_and_binary(make_repo, git_commit, tmp_path):
    body = "".join(f"LINE_{i} = {i}\n" for i in range(20))
    root = make_repo({"old_name.py": body, "blob.bin": b"\x00\x01\x02"})
    git_commit(root, {"old_name.py": None, "new_name.py": body + "EXTRA = 1\n",
                      "blob.bin": b"\x00\x09"}, "rename module")
    _, commits, _ = mine(root, tmp_path / "h.db", LINES)
    files = {f.path: f for f in commits[-1].files}
    assert files["new_name.py"].old_path == "old_name.py"
    assert (files["new_name.py"].added, files["new_name.py"].deleted) == (1, 0)
    assert (files["blob.bin"].added, files["blob.bin"].deleted) == (-1, -1)


def test_message_and_path_with_odd_characters(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 1\n"})
    git_commit(root, {"dir with space/ünï.py": "X = 1\n", "a.py": "A = 2\n"},
               "subject\n\nbody with\ttab and \x1e separator")
    _, commits, _ = mine(root, tmp_path / "h.db")
    assert commits[-1].message == "subject\n\nbody with\ttab and \x1e separator"
    assert [f.path for f in commits[-1].files] == ["a.py", "dir with space/ünï.py"]


def test_no_git_directory(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("A = 1\n")
    summary, commits, note = mine(plain, tmp_path / "h.db")
    assert not summary.available and commits == []
    assert "not a git repository" in summary.note and "co-change channel empty" in note


def test_empty_repository(make_repo, tmp_path):
    root = make_repo({"a.py": "A = 1\n"}, commit=False)
    summary, commits, _ = mine(root, tmp_path / "h.db")
    assert not summary.available and commits == []
    assert "no commits" in summary.note


def test_detached_head_and_unreachable_commits_dropped(make_repo, git_commit, git, tmp_path):
    root = make_repo({"a.py": "A = 1\n"})
    git_commit(root, {"a.py": "A = 2\n"}, "second")
    third = git_commit(root, {"a.py": "A = 3\n"}, "third")
    db = tmp_path / "h.db"
    assert mine(root, db)[0].commits == 3
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    summary, commits, _ = mine(root, db)
    assert (summary.commits, summary.removed) == (2, 1)
    assert third not in {c.sha for c in commits}


def test_merges_skipped_by_default(make_repo, git_commit, git, tmp_path):
    root = make_repo({"a.py": "A = 1\n", "b.py": "B = 1\n"})
    git(root, "checkout", "-q", "-b", "feature")
    git_commit(root, {"b.py": "B = 2\n"}, "feature work")
    git(root, "checkout", "-q", "main")
    git_commit(root, {"a.py": "A = 2\n"}, "main work")
    git(root, "merge", "-q", "--no-ff", "-m", "merge feature", "feature", date=day(30))
    _, commits, _ = mine(root, tmp_path / "h.db")
    assert sorted(c.message for c in commits) == ["feature work", "initial", "main work"]
    _, commits, _ = mine(root, tmp_path / "fp.db", DEFAULT.replace(history_first_parent=True))
    merged = [c for c in commits if c.message == "merge feature"]
    assert len(merged) == 1 and [f.path for f in merged[0].files] == ["b.py"]
    assert "feature work" not in {c.message for c in commits}


def test_shallow_clone_then_deepened(make_repo, git_commit, git, tmp_path):
    src = make_repo({"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"})
    for i in range(2, 6):
        git_commit(src, {"a.py": f"A = {i}\n", "b.py": f"B = {i}\n"}, f"step {i}")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{src}", str(clone)],
                   check=True, capture_output=True)
    db = tmp_path / "h.db"
    summary, commits, note = mine(clone, db)
    assert summary.shallow and summary.commits == 2
    assert "shallow clone: co-change uses the 1 of 2 commits present" in note
    boundary = commits[0]
    # the boundary commit has no parent in the clone: its diff would list every file as
    # added, so it is kept without files and can form no co-change pairs
    assert boundary.files == () and boundary.n_files == 0
    assert [f.path for f in commits[1].files] == ["a.py", "b.py"]
    git(clone, "fetch", "-q", "--unshallow")
    summary, commits, _ = mine(clone, db)
    assert not summary.shallow and summary.commits == 5
    assert all(c.files for c in commits)
    assert {f.path for f in commits[-2].files} == {"a.py", "b.py"}


def test_subdirectory_root_sees_only_its_files(make_repo, git_commit, tmp_path):
    root = make_repo({"pkg/a.py": "A = 1\n", "other/x.py": "X = 1\n"})
    git_commit(root, {"pkg/a.py": "A = 2\n", "pkg/b.py": "B = 1\n", "other/x.py": "X = 2\n"},
               "cross-cutting")
    _, commits, _ = mine(root / "pkg", tmp_path / "h.db")
    assert [f.path for f in commits[-1].files] == ["a.py", "b.py"]


@pytest.mark.parametrize("cap", [3, 50])
def test_sweeping_commits_kept_with_true_file_count(make_repo, git_commit, tmp_path, cap):
    root = make_repo({"a.py": "A = 1\n"})
    git_commit(root, {f"m{i}.py": "X = 1\n" for i in range(5)}, "five files")
    _, commits, _ = mine(root, tmp_path / "h.db", DEFAULT.replace(history_max_files_per_commit=cap))
    assert commits[-1].n_files == 5 and len(commits[-1].files) == 5


# ------------------------------------------------------------ touched definitions
MOD = '''\
import os

LIMIT = 1


def alpha(x):
    y = x + 1
    return y


class Box:
    size = 1

    def open(self):
        return "open"

    kind = "box"

    def close(self):
        return "closed"


def beta():
    return 2
'''


def _touched(commits, message):
    commit = next(c for c in commits if c.message == message)
    return {f.path: (f.symbols, f.renamed) for f in commit.files}


def test_hunks_name_the_definitions_they_touch(make_repo, git_commit, tmp_path):
    root = make_repo({"m.py": MOD, "notes.txt": "n\n"})
    bodies = (MOD.replace("x + 1", "x + 2").replace('return "closed"', 'return "shut"')
              .replace("size = 1", "size = 2"))
    git_commit(root, {"m.py": bodies}, "bodies")
    module_level = bodies.replace("LIMIT = 1", "LIMIT = 2").replace('"box"', '"crate"')
    git_commit(root, {"m.py": module_level, "notes.txt": "m\n"}, "module level")
    git_commit(root, {"m.py": module_level.replace("def beta():", "def gamma():")},
               "rename beta")
    _, commits, _ = mine(root, tmp_path / "h.db")
    # a method's body line is placed inside `close` (indented below its header), a class
    # attribute above the first method inside `Box`
    assert _touched(commits, "bodies") == {"m.py": (("Box", "alpha", "close"), ())}
    # module-level code, and a class attribute between methods (which class: -U0 cannot
    # tell), name no definition
    assert _touched(commits, "module level") == {"m.py": ((), ()), "notes.txt": ((), ())}
    assert _touched(commits, "rename beta") == {"m.py": (("beta", "gamma"), (("beta", "gamma"),))}


def test_replaced_def_is_not_a_rename_and_file_renames_keep_names(make_repo, git_commit,
                                                                  tmp_path):
    root = make_repo({"m.py": MOD})
    git_commit(root, {"m.py": MOD.replace("def beta():\n    return 2",
                                          "def delta(n):\n    return n")}, "replace beta")
    moved = MOD.replace("def beta():\n    return 2", "def delta(n):\n    return n")
    git_commit(root, {"m.py": None, "pkg/moved.py": moved.replace('"open"', '"opened"')},
               "move module")
    _, commits, _ = mine(root, tmp_path / "h.db")
    assert _touched(commits, "replace beta") == {"m.py": (("beta", "delta"), ())}
    moved_touch = next(c for c in commits if c.message == "move module").files
    assert [(f.path, f.old_path, f.symbols) for f in moved_touch] == [
        ("pkg/moved.py", "m.py", ("open",))]


def test_touched_definitions_mined_incrementally(make_repo, git_commit, tmp_path):
    root = make_repo({"m.py": MOD})
    git_commit(root, {"m.py": MOD.replace("x + 1", "x + 3")}, "first")
    db = tmp_path / "h.db"
    mine(root, db)
    git_commit(root, {"m.py": MOD.replace("x + 1", "x + 3").replace("return 2", "return 3")},
               "second")
    summary, commits, _ = mine(root, db)
    assert summary.new == 1
    assert _touched(commits, "first") == {"m.py": (("alpha",), ())}  # read back from the store
    assert _touched(commits, "second") == {"m.py": (("beta",), ())}


def test_touched_definitions_in_odd_paths(make_repo, git_commit, tmp_path):
    odd = "dir with space/ünï.py"
    root = make_repo({odd: "def f():\n    return 1\n", 'q"uote.py': "def g():\n    return 1\n"})
    git_commit(root, {odd: "def f():\n    return 2\n", 'q"uote.py': "def g():\n    return 2\n"},
               "odd paths")
    _, commits, _ = mine(root, tmp_path / "h.db")
    assert _touched(commits, "odd paths") == {odd: (("f",), ()), 'q"uote.py': (("g",), ())}


def test_touched_definitions_are_mined_only_when_weighed_and_only_for_pairable_commits(
        make_repo, git_commit, tmp_path):
    root = make_repo({"m.py": MOD})  # the root commit: never a co-change pair
    git_commit(root, {"m.py": MOD.replace("x + 1", "x + 2")}, "edit")
    db = tmp_path / "h.db"
    _, commits, _ = mine(root, db, DEFAULT)  # σ = 1: file-level co-change, no symbol pass
    assert _touched(commits, "edit") == {"m.py": ((), ())}
    _, commits, _ = mine(root, db, SYMBOLS)  # the setting changed: history re-mined
    assert _touched(commits, "edit") == {"m.py": (("alpha",), ())}
    root_commit = next(c for c in commits if c.parents == 0)
    assert all(f.symbols == () for f in root_commit.files)


@pytest.mark.parametrize("bulk", [False, True], ids=["indexed", "bulk-load"])
def test_put_commits_replaces_a_stored_commit_files(tmp_path, bulk):
    from impactlens.index.history import CommitRecord, FileTouch

    def commit(sha, *paths):
        return CommitRecord(sha, 1_700_000_000, "m", len(paths),
                            tuple(FileTouch(p, None, 1, 0) for p in paths))

    store = Store.open(tmp_path / "i.db", create=True)
    try:
        with store.transaction():
            if bulk:  # a cold index mines history while the secondary indexes are dropped
                store.drop_secondary_indexes()
            store.put_commits([commit("a" * 40, "x.py", "y.py"), commit("b" * 40, "z.py")])
            store.put_commits([commit("a" * 40, "w.py")])
            if bulk:
                store.create_secondary_indexes()
        files = {(sha[0], path) for sha, path, *_ in store.history_files()}
        assert files == {("a", "w.py"), ("b", "z.py")}
        assert store.history_count() == 2
    finally:
        store.close()


def _partial_clone(make_repo, git_commit, tmp_path):
    origin = make_repo({"a.py": "A = 1\n", "notes.txt": "one\n"})
    git_commit(origin, {"a.py": "A = 2\n", "notes.txt": "two\n"}, "tweak")
    subprocess.run(["git", "config", "uploadpack.allowFilter", "true"], cwd=origin, check=True)
    clone = tmp_path / "partial"
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout",
                    origin.as_uri(), str(clone)], check=True)
    return origin, clone


def test_a_partial_clone_is_mined_by_path_without_fetching(make_repo, git_commit, tmp_path):
    _origin, clone = _partial_clone(make_repo, git_commit, tmp_path)
    first = subprocess.run(["git", "rev-parse", "HEAD~1:a.py"], cwd=clone, check=True,
                           capture_output=True, text=True).stdout.strip()
    summary, commits, _state = mine(clone, tmp_path / "i.db")
    assert summary.commits == 2
    assert "2 of 2 commits mined by changed path only" in summary.note
    tweak = next(c for c in commits if c.message == "tweak")
    assert [(f.path, f.added, f.deleted) for f in tweak.files] == [
        ("a.py", -1, -1), ("notes.txt", -1, -1)]
    # the old blob was not fetched from the (still reachable) origin
    missing = subprocess.run(["git", "cat-file", "-e", first], cwd=clone,
                             capture_output=True, env={"GIT_NO_LAZY_FETCH": "1",
                                                       "PATH": "/usr/bin:/bin"})
    assert missing.returncode != 0


def test_a_partial_clone_whose_remote_is_gone_keeps_its_history(make_repo, git_commit,
                                                                tmp_path):
    origin, clone = _partial_clone(make_repo, git_commit, tmp_path)
    origin.rename(origin.with_name("gone"))
    summary, commits, _state = mine(clone, tmp_path / "i.db")
    assert summary.available and summary.commits == 2
    assert {f.path for c in commits for f in c.files} == {"a.py", "notes.txt"}


def test_a_clone_missing_an_old_blob_keeps_the_rest(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 1\n"})
    git_commit(root, {"a.py": "A = 2\n"}, "tweak")
    old = subprocess.run(["git", "rev-parse", "HEAD~1:a.py"], cwd=root, check=True,
                         capture_output=True, text=True).stdout.strip()
    (root / ".git" / "objects" / old[:2] / old[2:]).unlink()  # a snapshot without it
    summary, commits, _state = mine(root, tmp_path / "i.db", LINES)
    assert summary.commits == 2 and "mined by changed path only" in summary.note
    assert {f.path for c in commits for f in c.files} == {"a.py"}


# ------------------------------------------------------------ slices, horizon, resuming
def _linear(make_repo, git_commit, n):
    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n"}, date=day(0))
    for i in range(1, n):
        git_commit(root, {"a.py": f"A = {i}\n", "b.py": f"B = {i}\n"}, f"step {i}", date=day(i))
    return root


def _mine(root, db, settings=DEFAULT, **kwargs):
    store = Store.open(db, create=True)
    try:
        summary = update_history(store, root, settings, **kwargs)
        return summary, [dataclasses.astuple(c) for c in load_history(store)]
    finally:
        store.close()


def test_slices_mine_newest_first_and_resume_to_the_whole_history(make_repo, git_commit,
                                                                   tmp_path):
    root = _linear(make_repo, git_commit, 5)
    _, whole = _mine(root, tmp_path / "whole.db")
    db = tmp_path / "sliced.db"
    first, got = _mine(root, db, budget=2)
    assert (first.commits, first.new, first.pending) == (2, 2, 2 + 1)
    assert [c[2] for c in got] == ["step 3", "step 4"]  # the newest first
    assert "history: 2 of 5 commits indexed, newest first" in first.note
    second, _ = _mine(root, db, budget=2)
    assert (second.commits, second.new, second.pending) == (4, 2, 1)
    third, got = _mine(root, db, budget=2)
    assert (third.commits, third.new, third.pending) == (5, 1, 0)
    assert third.note == "history: 5 commits indexed (1 new)"
    assert got == whole  # resumed slices store what one mining does


def test_a_mining_ended_midway_keeps_its_batches_and_the_next_run_continues(
        make_repo, git_commit, tmp_path, monkeypatch):
    from impactlens.index import history

    root = _linear(make_repo, git_commit, 7)
    _, whole = _mine(root, tmp_path / "whole.db")
    monkeypatch.setattr(history, "_BATCH", 2)  # several write transactions in a small repo

    def interrupt(phase, done, total):
        if done >= 4:
            raise KeyboardInterrupt  # Ctrl-C after the second batch was written

    db = tmp_path / "h.db"
    with pytest.raises(KeyboardInterrupt):
        _mine(root, db, progress=interrupt)
    store = Store.open(db)
    assert store.history_count() == 4 and history.history_pending(store) == 3
    store.close()
    again, got = _mine(root, db)
    assert (again.new, again.commits, again.pending) == (3, 7, 0)
    assert got == whole


def test_the_horizon_keeps_the_newest_commits_and_widening_it_mines_only_the_older(
        make_repo, git_commit, tmp_path):
    root = _linear(make_repo, git_commit, 6)
    db = tmp_path / "h.db"
    narrow, got = _mine(root, db, DEFAULT.replace(history_max_commits=3))
    assert narrow.commits == 3 and [c[2] for c in got] == ["step 3", "step 4", "step 5"]
    assert "only the newest 3 commits are mined" in narrow.note
    assert "--full-history" in narrow.note
    wide, got = _mine(root, db, DEFAULT.replace(history_max_commits=0))
    assert (wide.new, wide.commits) == (3, 6) and "only the newest" not in wide.note
    back, got = _mine(root, db, DEFAULT.replace(history_max_commits=2))
    assert (back.new, back.removed, back.commits) == (0, 4, 2)
    assert [c[2] for c in got] == ["step 4", "step 5"]
    git_commit(root, {"a.py": "A = 9\n"}, "step 6", date=day(6))
    moved, got = _mine(root, db, DEFAULT.replace(history_max_commits=2))
    assert (moved.new, moved.removed) == (1, 1)  # the window moves with HEAD
    assert [c[2] for c in got] == ["step 5", "step 6"]
