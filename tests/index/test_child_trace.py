"""Child-process reports (index/child_trace.py): which process starts the recording can
follow, and how the reports are read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from impactlens.index.child_trace import ENV_DIR, ChildCode, read_reports, unseen


@pytest.fixture
def recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    return tmp_path


def test_a_child_with_the_recordings_environment_is_seen(recording: Path) -> None:
    ours = {ENV_DIR: str(recording), "PYTHONPATH": os.pathsep.join([str(recording), "src"])}
    assert not unseen("subprocess.Popen", ("python", ["python", "-c", "pass"], None, None))
    assert not unseen("subprocess.Popen", ("python", ["python", "x.py"], None, ours))
    assert not unseen("os.posix_spawn", ("/bin/python", ["python"], ours))
    assert not unseen("os.system", ("python x.py",))
    assert not unseen("os.fork", ())  # the caller judges a fork


def test_a_fresh_environment_an_isolating_flag_or_an_exec_is_not(recording: Path) -> None:
    assert unseen("subprocess.Popen", ("python", ["python", "x.py"], None, {"PATH": "/bin"}))
    no_path = {ENV_DIR: str(recording)}  # the stub is not on its PYTHONPATH
    assert unseen("subprocess.Popen", ("python", ["python", "x.py"], None, no_path))
    assert unseen("subprocess.Popen", ("python", [b"python", b"-I", b"x.py"], None, None))
    assert unseen("subprocess.Popen", ("python", "python -E x.py", None, None))
    assert unseen("os.system", ("python -S x.py",))
    assert unseen("os.exec", ("/bin/python", ["python"], None))
    assert unseen("subprocess.Popen", (None,))  # a shape it does not know: the worst


def test_reports_are_credited_to_the_test_that_started_each_child(tmp_path: Path) -> None:
    (tmp_path / "1.start").write_text("t.py::test_a")
    (tmp_path / "1.json").write_text('{"test": "t.py::test_a", "codes": '
                                     '[["/r/app.py", "f", 3, [4, 5]]]}')
    (tmp_path / "2.start").write_text("t.py::test_a")  # forked, ran app code, reported too
    (tmp_path / "2.json").write_text('{"test": "t.py::test_a", "codes": '
                                     '[["/r/app.py", "f", 3, [6]]]}')
    (tmp_path / "3.start").write_text("t.py::test_b")  # killed before any project code
    (tmp_path / "4.start").write_text("t.py::test_c")  # ran project code, never reported
    (tmp_path / "4.ran").write_text("t.py::test_c")
    (tmp_path / "5.blind").write_text("t.py::test_d")  # could not import the tracer
    got = read_reports(tmp_path)
    assert got.ran == {"t.py::test_a": {ChildCode("/r/app.py", "f", 3): frozenset({4, 5, 6})}}
    assert got.unseen == {"t.py::test_c", "t.py::test_d"}
