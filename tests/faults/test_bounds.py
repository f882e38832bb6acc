"""Bounded work: an edited file too deep, too large or too broken to parse is left out of
the analysis with why, as the indexer leaves it out of the index, and the rest of the
edit is analysed; settings out of range are refused with one line."""

from __future__ import annotations

import json

import pytest
from conftest import assert_user_error, impactlens

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def f(x):\n    return x\n",
         "pkg/use.py": "from pkg.core import f\n\n\ndef a():\n    return f(1)\n",
         "pkg/gen.py": "Z = 1\n"}
# an edit of pkg/gen.py the analysis cannot read: (its after text, the line, the why)
UNREADABLE = {
    "too deep to parse": ("Z = " + " + ".join(["1"] * 30_000) + "\n", 0, "too deeply"),
    "parsed, too deep to walk": ("Z = " + " + ".join(["1"] * 1_500) + "\n", 0, "too deeply"),
    "syntax error": ("def g(:\n    pass\n", 1, "syntax error in the after version"),
    "over the size cap": ("X = 1\n" * 40_000, 0, "bytes (cap 200000, max_file_bytes)"),
    "binary": (b"\x00\x01Z = 2\n", 0, "the after version is "),  # binary / a binary patch
}
# a diff of such a file is not UTF-8 either, and is refused whole: only the work tree
NOT_TEXT = (b"Z = '\xff'\n", 0, "the after version is not UTF-8 text")
SIGNATURE = "def f(x, y):\n    return x\n"  # breaks pkg.use.a's call


@pytest.mark.parametrize(("how", "case"), [
    *((how, case) for how in ("worktree", "diff") for case in sorted(UNREADABLE)),
    ("worktree", "not UTF-8")])
def test_unreadable_file_in_an_edit_is_left_out_and_the_rest_analysed(make_repo, git, case,
                                                                       how):
    """As the indexer does: the file is recorded (JSON and text, with why), the other
    file's impact is reported, and the analysis exits as any analysis does."""
    text, line, why = UNREADABLE.get(case, NOT_TEXT)
    root = make_repo(FILES)
    (root / "pkg/core.py").write_text(SIGNATURE)
    gen = root / "pkg/gen.py"
    gen.write_bytes(text) if isinstance(text, bytes) else gen.write_text(text)
    args = ["--set", "max_file_bytes=200000", "analyze", "--repo", str(root)]
    if how == "diff":
        (root.parent / "edit.diff").write_text(git(root, "diff"))
        git(root, "checkout", "--", ".")
        args += ["--diff", str(root.parent / "edit.diff")]
    proc = impactlens(*args)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "1 must change" in proc.stdout and "pkg.use.a" in proc.stdout, proc.stdout
    assert "1 file not analyzed" in proc.stdout
    shown = [ln for ln in proc.stdout.splitlines() if ln.startswith("not analyzed: pkg/gen")]
    assert len(shown) == 1 and why in shown[0], proc.stdout
    out = json.loads((root / ".impactlens/out/impact.json").read_text())
    assert [(n["file"], n["line"]) for n in out["not_analyzed"]] == [("pkg/gen.py", line)]
    assert why in out["not_analyzed"][0]["why"]
    assert [u["file"] for u in out["unanalyzable"] if u["reason"] == "unparsable"] \
        == ["pkg/gen.py"]
    assert {c["file"] for c in out["changes"]} == {"pkg/core.py"}


def test_edit_of_only_an_unreadable_file_says_so(make_repo):
    root = make_repo(FILES)
    (root / "pkg/gen.py").write_text(UNREADABLE["too deep to parse"][0])
    proc = impactlens("analyze", "--repo", str(root), "--format", "markdown")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "nothing to analyze" in proc.stdout
    assert "not analyzed: pkg/gen.py — the after version nests" in proc.stdout
    index = impactlens("index", str(root))  # the indexer records it, and goes on
    assert index.returncode == 0 and "Traceback" not in index.stderr, index.stderr


@pytest.mark.parametrize("setting", ["max_file_bytes=-5", "max_file_bytes=0",
                                     "index_workers=-1", "index_workers=100000",
                                     "lock_timeout_s=-1", "history_max_files_per_commit=-3"])
def test_out_of_range_setting_is_refused(make_repo, setting):
    root = make_repo(FILES)
    proc = impactlens("--set", setting, "find", "f", "--repo", str(root))
    assert_user_error(proc, says="out of range")


@pytest.mark.parametrize("indexed", [False, True])
def test_slice_refuses_a_file_over_the_size_cap(make_repo, indexed):
    root = make_repo(FILES)
    big = "def g(v):\n    w = v + 1\n    return w\n" + "X = 1\n" * 4000
    (root / "pkg/big.py").write_text(big)
    if indexed:
        assert impactlens("index", str(root)).returncode == 0
    args = ["--set", "max_file_bytes=10000", "slice", "pkg/big.py:2", "--repo", str(root)]
    proc = impactlens(*args, *([] if indexed else ["--no-index"]))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "over the size cap" in proc.stdout + proc.stderr
