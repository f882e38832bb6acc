"""Outputs get the mode a plain ``open`` gives (0644 under umask 022), not a temp file's 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner

from impactlens.cli import main
from impactlens.fileio import atomic_write, current_umask


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_the_process_umask() -> None:
    for mask in (0o022, 0o077, 0o002):
        with umask(mask):
            assert current_umask() == mask


def test_atomic_write_follows_the_umask(tmp_path: Path) -> None:
    with umask(0o022):
        atomic_write(tmp_path / "shared.json", "{}\n")
    with umask(0o077):
        atomic_write(tmp_path / "private.json", "{}\n")
    assert mode(tmp_path / "shared.json") == 0o644
    assert mode(tmp_path / "private.json") == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private.json", "shared.json"]


def test_analyze_writes_its_outputs_0644(make_repo) -> None:
    root = make_repo({"lib.py": "def f(a):\n    return a\n", "use.py": "from lib import f\nf(1)\n"})
    (root / "lib.py").write_text("def f(a, b=0):\n    return a + b\n")
    out = root / "out"
    with umask(0o022):
        result = CliRunner().invoke(main, ["analyze", "--repo", str(root), "--out", str(out),
                                           "--html", str(root / "impact.html")])
    assert result.exit_code == 0, result.output
    written = [*sorted(out.iterdir()), root / "impact.html"]
    assert {p.name for p in written} >= {"changes.json", "impact.json", "test_map.txt"}
    assert {p.name: mode(p) for p in written} == {p.name: 0o644 for p in written}
