"""What the fault suite's tests share: run a command the way a user does and check it ended as a
user error should (its exit code, one line on stderr, no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")


def impactlens(*args: str, cwd: Path | None = None, stdin: bytes | None = None,
               timeout: float = 60, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    """``python -m impactlens ARGS`` in a child process (what a user runs), with this
    checkout's sources first on the path."""
    full = dict(os.environ, PYTHONPATH=SRC, **(env or {}))
    return subprocess.run([sys.executable, "-m", "impactlens", *args], cwd=cwd,
                          input=stdin.decode("utf-8", "surrogateescape") if stdin else None,
                          capture_output=True, text=True, timeout=timeout, env=full,
                          errors="surrogateescape", check=False)


def assert_user_error(proc: subprocess.CompletedProcess[str], *, code: int = 2,
                      says: str = "") -> None:
    """``proc`` ended with ``code`` and one line of error naming ``says``, no traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("impactlens: error:")]
    assert len(lines) == 1, proc.stderr
    assert says in lines[0], lines[0]


@pytest.fixture
def run_cli():
    return impactlens
