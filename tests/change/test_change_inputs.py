"""The four change-input modes and the inputs they refuse."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from impactlens.change.inputs import (
    decode_source,
    from_before_after,
    from_diff,
    from_rev,
    from_worktree,
    parse_as_of,
    repo_path,
)
from impactlens.errors import BadInputError, NotARepositoryError
from impactlens.index import git as g

BASE = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "pkg/util.py": "X = 1\n",
    "README.md": "hello\n",
}


def changed(pc):
    return {f.path: (f.before, f.after) for f in pc.files}


def git_diff(root: Path) -> str:
    return subprocess.run(
        ["git", "diff", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout


# ------------------------------------------------------------------ worktree
def test_worktree_staged_unstaged_untracked_deleted(make_repo, git):
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_text("def add(a, b, c=0):\n    return a + b + c\n")
    (root / "pkg/new.py").write_text("def fresh():\n    return 1\n")
    (root / "pkg/util.py").unlink()
    (root / "README.md").write_text("changed\n")
    (root / "ignored.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("ignored.py\n.impactlens/\n")
    (root / "staged.py").write_text("s = 1\n")
    git(root, "add", "staged.py")
    pc = from_worktree(root, as_of=123)
    ch = changed(pc)
    assert sorted(ch) == ["pkg/calc.py", "pkg/new.py", "pkg/util.py", "staged.py"]
    assert ch["pkg/calc.py"][0] == BASE["pkg/calc.py"]
    assert ch["pkg/calc.py"][1].startswith("def add(a, b, c=0)")
    assert ch["pkg/new.py"][0] is None
    assert ch["pkg/util.py"] == ("X = 1\n", None)
    assert ch["staged.py"] == (None, "s = 1\n")
    assert pc.other_files == (".gitignore", "README.md")
    assert pc.mode == "worktree" and pc.as_of == 123
    assert pc.base == git(root, "rev-parse", "HEAD").strip()


def test_worktree_clean_is_empty(make_repo):
    root = make_repo(BASE)
    assert from_worktree(root).files == ()


def test_worktree_without_commits_is_refused(make_repo):
    root = make_repo(BASE, commit=False)
    with pytest.raises(BadInputError, match="no commits"):
        from_worktree(root)


def test_worktree_non_utf8_python_is_kept_and_says_why(make_repo):
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_bytes(b"x = '\xff\xfe'\n")
    (f,) = from_worktree(root).files
    assert (f.path, f.after, f.unreadable) == (
        "pkg/calc.py", "", "the after version is not UTF-8 text (and no valid coding declaration)")
    assert f.before is not None and "def " in f.before


def test_pep263_coding_is_honoured():
    text = decode_source("m.py", "# -*- coding: latin-1 -*-\nx = 'é'\n".encode("latin-1"))
    assert "é" in text


def test_binary_is_refused():
    with pytest.raises(BadInputError, match="binary"):
        decode_source("m.py", b"\x00\x01\x02")


# ---------------------------------------------------------------------- diff
def test_diff_from_git_applies_to_worktree(make_repo, git):
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_text(
        "def add(a, b, c):\n    return a + b + c\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    (root / "pkg/new.py").write_text("N = 2\n")
    git(root, "add", "-N", "pkg/new.py")
    (root / "pkg/util.py").unlink()
    diff = git_diff(root)
    git(root, "checkout", "--", ".")
    git(root, "reset", "-q")
    (root / "pkg/new.py").unlink()
    pc = from_diff(root, diff, source="edit.diff")
    ch = changed(pc)
    assert ch["pkg/calc.py"][1].startswith("def add(a, b, c):")
    assert ch["pkg/calc.py"][0] == BASE["pkg/calc.py"]
    assert ch["pkg/new.py"] == (None, "N = 2\n")
    assert ch["pkg/util.py"] == ("X = 1\n", None)
    assert pc.mode == "diff"


def test_diff_plain_unified_without_prefixes_and_with_offset(make_repo):
    root = make_repo(BASE)
    # stated at line 3 but really at line 5: found by the offset search
    diff = (
        "--- pkg/calc.py\n+++ pkg/calc.py\n@@ -3,2 +3,2 @@\n"
        " def sub(a, b):\n-    return a - b\n+    return b - a\n"
    )
    pc = from_diff(root, diff)
    assert changed(pc)["pkg/calc.py"][1].endswith("def sub(a, b):\n    return b - a\n")


def test_diff_no_newline_at_end(make_repo):
    root = make_repo({"m.py": "a = 1\nb = 2"})
    diff = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n\\ No newline at end of file\n"
        "+b = 3\n\\ No newline at end of file\n"
    )
    assert changed(from_diff(root, diff))["m.py"] == ("a = 1\nb = 2", "a = 1\nb = 3")


def test_diff_that_does_not_apply_is_refused(make_repo):
    root = make_repo(BASE)
    diff = (
        "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n"
        " def add(a, b):\n-    return a * b\n+    return a ** b\n"
    )
    with pytest.raises(BadInputError, match=r"pkg/calc\.py: the diff does not apply"):
        from_diff(root, diff)


def test_diff_for_missing_file_is_refused(make_repo):
    root = make_repo(BASE)
    diff = "--- a/pkg/nope.py\n+++ b/pkg/nope.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    with pytest.raises(BadInputError, match=r"nope\.py: the diff does not apply"):
        from_diff(root, diff)


def test_diff_creating_existing_file_is_refused(make_repo):
    root = make_repo(BASE)
    diff = "--- /dev/null\n+++ b/pkg/util.py\n@@ -0,0 +1 @@\n+X = 2\n"
    with pytest.raises(BadInputError, match="already exists"):
        from_diff(root, diff)


@pytest.mark.parametrize("bad", ["../x.py", "pkg/../../x.py", "/etc/passwd.py", ".git/config"])
def test_diff_path_outside_repo_is_refused(make_repo, bad):
    root = make_repo(BASE)
    diff = f"--- a/{bad.lstrip('/')}\n+++ b/{bad.lstrip('/')}\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    if bad.startswith("/"):
        diff = f"--- {bad}\n+++ {bad}\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    with pytest.raises(BadInputError, match=r"outside the repository|into \.git"):
        from_diff(root, diff)


def test_diff_garbage_and_empty_are_refused(make_repo):
    root = make_repo(BASE)
    with pytest.raises(BadInputError, match="empty"):
        from_diff(root, "")
    with pytest.raises(BadInputError, match=r"no file changes|not a unified diff"):
        from_diff(root, "this is not a diff\n")
    with pytest.raises(BadInputError, match="not UTF-8"):
        from_diff(root, b"--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-\xff\n+\xfe\n")


def test_diff_binary_python_is_kept_and_says_why(make_repo):
    root = make_repo(BASE)
    diff = (
        "diff --git a/pkg/calc.py b/pkg/calc.py\nindex 1111111..2222222 100644\n"
        "Binary files a/pkg/calc.py and b/pkg/calc.py differ\n"
        "--- a/pkg/util.py\n+++ b/pkg/util.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n"
    )
    files = {f.path: f for f in from_diff(root, diff).files}
    assert files["pkg/calc.py"].unreadable == \
        "the after version is a binary patch (no text to read)"
    assert (files["pkg/util.py"].before, files["pkg/util.py"].after) == ("X = 1\n", "X = 2\n")
    assert files["pkg/util.py"].unreadable == ""


def test_diff_touching_only_non_python_is_checked_but_not_analyzed(make_repo):
    root = make_repo(BASE)
    diff = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-hello\n+bye\n"
    pc = from_diff(root, diff)
    assert pc.files == () and pc.other_files == ("README.md",)
    stale = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-nope\n+bye\n"
    with pytest.raises(BadInputError, match="does not apply"):
        from_diff(root, stale)


# ------------------------------------------- a diff already in the working tree
def git_out(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def test_diff_already_in_the_working_tree_is_that_edit(make_repo, git):
    """`git diff | impactlens analyze --diff -`: the edit is on disk, not to be applied."""
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_text(BASE["pkg/calc.py"] + "\n\ndef mul(a, b):\n"
                                      "    return a * b\n")  # an appended function
    (root / "pkg/new.py").write_text("N = 2\n")
    git(root, "add", "-N", "pkg/new.py")
    (root / "pkg/util.py").unlink()
    (root / "README.md").write_text("bye\n")
    pc = from_diff(root, git_out(root, "diff"), source="<stdin>")
    assert pc.note == "the diff is already in the working tree; analysing that edit"
    assert pc.mode == "worktree" and "already in the working tree" in pc.label
    worktree = from_worktree(root)
    assert changed(pc) == changed(worktree)
    assert pc.other_files == ("README.md",)
    assert pc.base == worktree.base


def test_diff_head_with_staged_part_takes_before_from_head(make_repo, git):
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_text(BASE["pkg/calc.py"].replace("a + b", "b + a"))
    git(root, "add", "pkg/calc.py")
    (root / "pkg/calc.py").write_text(BASE["pkg/calc.py"].replace("a + b", "b + a")
                                      .replace("a - b", "-b + a"))
    # `git diff HEAD` covers the staged part too; `git diff` only the unstaged one
    whole = changed(from_diff(root, git_out(root, "diff", "HEAD")))["pkg/calc.py"]
    assert whole == (BASE["pkg/calc.py"], (root / "pkg/calc.py").read_text())
    unstaged = changed(from_diff(root, git_out(root, "diff")))["pkg/calc.py"]
    assert unstaged[0] == BASE["pkg/calc.py"].replace("a + b", "b + a")


def test_diff_forward_is_not_mistaken_for_applied(make_repo, git):
    root = make_repo(BASE)
    (root / "pkg/calc.py").write_text(BASE["pkg/calc.py"].replace("a - b", "b - a"))
    diff = git_out(root, "diff")
    git(root, "checkout", "--", ".")
    pc = from_diff(root, diff)
    assert pc.mode == "diff" and pc.note == ""
    assert changed(pc)["pkg/calc.py"][1].endswith("return b - a\n")


def test_diff_neither_applying_nor_applied_names_the_first_file(make_repo, git):
    root = make_repo(BASE)
    (root / "pkg/util.py").write_text("X = 2\n")
    diff = git_out(root, "diff")  # X = 1 -> X = 2
    (root / "pkg/util.py").write_text("X = 3\n")  # disk holds neither side
    with pytest.raises(BadInputError, match=r"^pkg/util\.py: the diff does not apply .*"
                                            r"not already in the working tree"):
        from_diff(root, diff)


# ----------------------------------------------------------------------- rev
def test_rev_single_commit_against_parent(make_repo, git_commit):
    root = make_repo(BASE)
    sha = git_commit(
        root,
        {"pkg/calc.py": "def add(a, b):\n    return b + a\n", "pkg/extra.py": "E = 1\n",
         "pkg/util.py": None},
        "Swap operands in add\n\nLonger body.",
    )
    pc = from_rev(root, sha)
    ch = changed(pc)
    assert ch["pkg/calc.py"] == (BASE["pkg/calc.py"], "def add(a, b):\n    return b + a\n")
    assert ch["pkg/extra.py"] == (None, "E = 1\n")
    assert ch["pkg/util.py"] == ("X = 1\n", None)
    assert pc.task.startswith("Swap operands in add")
    assert pc.as_of == int(g.run(root, "show", "-s", "--format=%at", sha).strip())
    assert "Swap operands" in pc.label


def test_rev_range_and_root_commit(make_repo, git_commit):
    root = make_repo(BASE)
    first = g.resolve_commit(root, "HEAD")
    git_commit(root, {"pkg/util.py": "X = 2\n"}, "one")
    git_commit(root, {"pkg/util.py": "X = 3\n"}, "two")
    pc = from_rev(root, f"{first}..HEAD", task="explicit")
    assert changed(pc) == {"pkg/util.py": ("X = 1\n", "X = 3\n")}
    assert pc.task == "explicit"
    t_one = int(g.run(root, "show", "-s", "--format=%at", "HEAD~1").strip())
    assert pc.as_of == t_one  # the earliest commit in the range
    root_pc = from_rev(root, first)
    assert sorted(changed(root_pc)) == ["pkg/__init__.py", "pkg/calc.py", "pkg/util.py"]
    assert all(b is None for b, _ in changed(root_pc).values())


def test_unknown_rev_is_refused(make_repo):
    root = make_repo(BASE)
    with pytest.raises(BadInputError, match="unknown revision 'nope'"):
        from_rev(root, "nope")
    with pytest.raises(BadInputError, match="unknown revision"):
        from_rev(root, "HEAD..nope")


def test_not_a_repository(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepositoryError):
        from_worktree(tmp_path / "plain")


# -------------------------------------------------------------- before/after
def test_before_after_inside_repo(make_repo, tmp_path):
    root = make_repo(BASE)
    before = tmp_path / "old_calc.py"
    before.write_text(BASE["pkg/calc.py"])
    (root / "pkg/calc.py").write_text("def add(a, b, c):\n    return a\n")
    pc = from_before_after(root, before, root / "pkg/calc.py")
    after = "def add(a, b, c):\n    return a\n"
    assert changed(pc) == {"pkg/calc.py": (BASE["pkg/calc.py"], after)}
    assert pc.mode == "before-after"


def test_before_after_outside_repo_needs_path(make_repo, tmp_path):
    root = make_repo(BASE)
    b, a = tmp_path / "b.py", tmp_path / "a.py"
    b.write_text("x = 1\n")
    a.write_text("x = 2\n")
    with pytest.raises(BadInputError, match="--path"):
        from_before_after(root, b, a)
    pc = from_before_after(root, b, a, path="pkg/util.py")
    assert pc.paths == ("pkg/util.py",)
    with pytest.raises(BadInputError, match="outside the repository"):
        from_before_after(root, b, a, path="../x.py")
    with pytest.raises(BadInputError, match="not found"):
        from_before_after(root, tmp_path / "missing.py", a, path="pkg/util.py")
    (tmp_path / "bin.py").write_bytes(b"\x00\x00")
    with pytest.raises(BadInputError, match="binary"):
        from_before_after(root, tmp_path / "bin.py", a, path="pkg/util.py")


# ------------------------------------------------------------------- helpers
def test_repo_path_normalizes(tmp_path):
    assert repo_path(tmp_path, "./pkg//m.py") == "pkg/m.py"
    assert repo_path(tmp_path, str(tmp_path / "a" / "b.py")) == "a/b.py"
    with pytest.raises(BadInputError):
        repo_path(tmp_path, "a/../../b.py")


def test_parse_as_of():
    assert parse_as_of(None) is None
    assert parse_as_of("2024-01-02") == 1704153600
    assert parse_as_of("2024-01-02T00:00:00Z") == 1704153600
    assert parse_as_of("@1704153600") == 1704153600
    assert parse_as_of("1704153600") == 1704153600  # a bare epoch, as `date +%s` prints
    assert parse_as_of("@12345") == 12345  # one reader for the CLI and the API
    with pytest.raises(BadInputError, match="--as-of"):
        parse_as_of("next tuesday")


def test_from_texts(tmp_path):
    from impactlens.change.inputs import from_texts

    pc = from_texts(tmp_path, "pkg/m.py", "x = 1\n", "x = 2\n", as_of=5)
    assert changed(pc) == {"pkg/m.py": ("x = 1\n", "x = 2\n")} and pc.as_of == 5
    assert from_texts(tmp_path, "m.py", "x = 1\n", "x = 1\n").files == ()
    with pytest.raises(BadInputError, match="outside the repository"):
        from_texts(tmp_path, "../m.py", "a", "b")
    with pytest.raises(BadInputError, match="not a Python file"):
        from_texts(tmp_path, "m.txt", "a", "b")
