"""Bounded work: a file too deep to parse ends in one line, not a RecursionError; settings
out of range are refused with one line."""

from __future__ import annotations

import pytest
from conftest import assert_user_error, impactlens

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def f(x):\n    return x\n"}
DEEP = "Z = " + " + ".join(["1"] * 30_000) + "\n"


def test_too_deep_edit_is_one_line(make_repo):
    root = make_repo(FILES)
    (root / "pkg/deep.py").write_text(DEEP)
    proc = impactlens("analyze", "--repo", str(root))
    assert_user_error(proc, says="too deeply")
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
