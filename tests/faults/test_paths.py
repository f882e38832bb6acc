"""No path from a diff, a command-line or MCP argument or a symlink is read or written
outside the repository; git is run so that it writes nothing to ``.git/``; file names
that are not UTF-8 are skipped with a note, never a traceback."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import assert_user_error, impactlens

from impactlens.change.inputs import from_diff
from impactlens.errors import BadInputError
from impactlens.index.store import Store, index_path
from impactlens.serve.mcp_server import _Backend

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f(x):\n    return x\n",
    "pkg/use.py": "from pkg.core import f\n\n\ndef a():\n    return f(1)\n",
    "tests/test_use.py": "from pkg.use import a\n\n\ndef test_a():\n    assert a() == 1\n",
}
SECRET = "def secret(key):\n    return key\n"


@pytest.fixture
def outside(tmp_path):
    """A directory beside the repository, with a Python file in it."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.py").write_text(SECRET)
    return d


def test_diff_through_symlinked_dir_is_refused(make_repo, outside):
    root = make_repo(FILES)
    (root / "linked").symlink_to(outside, target_is_directory=True)
    diff = ("--- a/linked/secret.py\n+++ b/linked/secret.py\n@@ -1,2 +1,2 @@\n"
            "-def secret(key):\n+def secret(key, more):\n     return key\n")
    with pytest.raises(BadInputError, match="resolves outside the repository"):
        from_diff(root, diff, source="edit.diff")
    proc = impactlens("analyze", "--repo", str(root), "--diff", "-", stdin=diff.encode())
    assert_user_error(proc, says="resolves outside the repository")
    assert (outside / "secret.py").read_text() == SECRET


def test_symlinked_file_to_outside_is_skipped_and_refused_alike(make_repo, outside):
    root = make_repo(FILES)
    (root / "pkg/secret.py").symlink_to(outside / "secret.py")
    proc = impactlens("index", str(root))
    assert proc.returncode == 0, proc.stderr
    store = Store.open(index_path(root))
    try:
        rec = store.file_record("pkg/secret.py")
        assert rec is not None and rec.status == "skipped" and "outside" in rec.error
        assert store.nodes_in_file("pkg/secret.py") == []
    finally:
        store.close()
    cli = impactlens("slice", "pkg/secret.py:2", "--repo", str(root))
    assert_user_error(cli, says="resolves outside the repository")
    backend = _Backend(root)
    try:
        with pytest.raises(BadInputError, match="resolves outside the repository"):
            backend.repo_file("pkg/secret.py")
    finally:
        backend.close()


@pytest.mark.parametrize("link", [".impactlens", ".impactlens/out"])
def test_state_dir_symlink_is_never_written_through(make_repo, tmp_path, link):
    root = make_repo(FILES)
    target = tmp_path / "victim"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    if link == ".impactlens/out":
        assert impactlens("index", str(root)).returncode == 0
    (root / link).symlink_to(target, target_is_directory=True)
    cmd = ("index", str(root)) if link == ".impactlens" else ("analyze", "--repo", str(root))
    (root / "pkg/core.py").write_text("def f(x, y=0):\n    return x\n")
    proc = impactlens(*cmd)
    assert_user_error(proc, says="is a symlink")
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]
    assert (target / "keep.txt").read_text() == "precious\n"


def _snapshot(root: Path) -> dict[str, tuple[int, str]]:
    """Every file but ``.impactlens/``'s: mtime and content hash."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not (dirpath == str(root) and d == ".impactlens")]
        for name in filenames:
            p = Path(dirpath, name)
            out[str(p.relative_to(root))] = (p.stat().st_mtime_ns,
                                            hashlib.sha256(p.read_bytes()).hexdigest())
    return out


COMMANDS = {
    "index": ("index", "{root}"),
    "analyze": ("analyze", "--repo", "{root}"),
    "tests": ("tests", "--repo", "{root}"),
    "impact": ("impact", "pkg.core.f", "--repo", "{root}"),
    "find": ("find", "f", "--repo", "{root}"),
    "slice": ("slice", "pkg/core.py:2", "--repo", "{root}"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_commands_write_nothing_outside_the_state_dir(make_repo, name):
    root = make_repo(FILES)
    (root / "pkg/core.py").write_text("def f(x, y=0):\n    return x\n")  # an edit to analyse
    # a file touched but not changed: git's status would refresh .git/index for it
    use = root / "pkg/use.py"
    os.utime(use, ns=(use.stat().st_atime_ns, use.stat().st_mtime_ns + 5_000_000_000))
    before = _snapshot(root)
    proc = impactlens(*(a.format(root=root) for a in COMMANDS[name]))
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    assert _snapshot(root) == before


def test_names_that_are_not_utf8_are_skipped_with_a_note(make_repo):
    root = make_repo(FILES)
    bad = os.fsencode(root) + b"/pkg/caf\xe9.py"
    with open(bad, "wb") as fh:
        fh.write(b"def g():\n    return 2\n")
    proc = impactlens("index", str(root))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "not valid UTF-8: pkg/caf\\xe9.py" in proc.stderr + proc.stdout
    for args in (("find", "f", "--repo", str(root)),
                 ("impact", "pkg.core.f", "--repo", str(root)),
                 ("analyze", "--repo", str(root))):
        proc = impactlens(*args)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (args, proc.stderr)


def test_tracked_file_deleted_without_git_rm_is_not_reread(make_repo):
    root = make_repo(FILES)
    assert impactlens("index", str(root)).returncode == 0
    (root / "pkg/use.py").unlink()  # still in git's index
    first = impactlens("index", str(root))
    assert first.returncode == 0 and "(0 parsed," in first.stderr, first.stderr
    second = impactlens("index", str(root))
    assert "(0 parsed," in second.stderr and "warning" not in second.stderr, second.stderr
    store = Store.open(index_path(root))
    try:
        assert store.file_record("pkg/use.py") is None
    finally:
        store.close()
