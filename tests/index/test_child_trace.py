"""Child-process reports (index/child_trace.py): which process starts the recording can
follow, and how the reports are read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from impactlens.index.child_trace import (
    ENV_DIR,
    ENV_EARLY,
    ENV_LINES,
    ENV_ROOT,
    ChildCode,
    read_reports,
    start_early,
    start_up_env,
    take_early,
    unseen,
)


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


def test_the_start_up_trace_hands_what_ran_to_the_recorder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert take_early() is None  # nothing traced from start-up here
    monkeypatch.setenv(ENV_ROOT, str(tmp_path))
    monkeypatch.setenv(ENV_LINES, "1")
    source = tmp_path / "app.py"
    source.write_text("def f(x):\n    y = x + 1\n    return y\n")
    namespace: dict[str, object] = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    start_early()
    try:
        assert namespace["f"](1) == 2  # type: ignore[operator]
        sum(range(3))  # code outside the root: not kept
    finally:
        got = take_early()
    assert sys.gettrace() is None and got is not None
    assert got.ran == {ChildCode(str(source), "f", 1): frozenset({2, 3})}
    assert got.preimported == frozenset()
    assert set(got.origins) == {ChildCode(str(source), "f", 1)}
    assert take_early() is None  # handed over once


def test_the_start_up_environment_puts_the_stub_first(tmp_path: Path) -> None:
    env = start_up_env(Path("/repo"), tmp_path, env={"PYTHONPATH": "src", "A": "1"})
    assert env["PYTHONPATH"] == os.pathsep.join([str(tmp_path), "src"])
    assert (env[ENV_EARLY], env[ENV_ROOT], env["A"]) == ("1", "/repo", "1")
    assert "start_early()" in (tmp_path / "sitecustomize.py").read_text()
