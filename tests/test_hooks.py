"""The hooks teams reference: `.pre-commit-hooks.yaml` run by the real pre-commit, offline,
and the composite GitHub Action and the workflow documented in docs/ci.md.

pre-commit installs the hook from this checkout into a virtualenv of its own with
``pip install .``; offline, pip takes the build backend and the dependencies from this
interpreter's site-packages (``PYTHONPATH``, no index, no build isolation). The
impactlens it runs is the one pre-commit installed from the checkout.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import impactlens

ROOT = Path(__file__).resolve().parents[1]
LIB = "def area(w, h):\n    return w * h\n"
USER = "from lib import area\n\n\ndef room():\n    return area(2, 3)\n"


def _git_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(GIT_AUTHOR_NAME="Test Author", GIT_AUTHOR_EMAIL="author@example.invalid",
               GIT_COMMITTER_NAME="Test Author", GIT_COMMITTER_EMAIL="author@example.invalid",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, **extra)
    return env


@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                    reason="pre-commit is not installed (it is in the dev extra)")
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout of impactlens")
def test_pre_commit_try_repo_reports_the_staged_change(make_repo, tmp_path: Path) -> None:
    root = make_repo({"lib.py": LIB, "user.py": USER})
    (root / "lib.py").write_text(LIB.replace("(w, h)", "(w, h, d)"))
    subprocess.run(["git", "add", "lib.py"], cwd=root, check=True, env=_git_env())
    # an unstaged edit: pre-commit stashes it, so the report must not see it
    (root / "user.py").write_text(USER + "\n\ndef unstaged_helper():\n    return area(1, 1)\n")

    env = _git_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PIP_NO_INDEX="1",
                   PIP_NO_BUILD_ISOLATION="0", PYTHONPATH=sysconfig.get_paths()["purelib"])
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT),
                           "impactlens"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"impactlens \(impact of the staged change\)\.+Passed", out), out
    assert "method-signature lib.area" in out and "user.room" in out
    assert "unstaged_helper" not in out
    assert "unstaged_helper" in (root / "user.py").read_text()  # restored afterwards


def test_the_hook_entry_exits_2_with_one_line_when_it_cannot_analyse(tmp_path: Path) -> None:
    """The documented failure: outside a git repository the entry exits 2, one line why."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entry = re.findall(r"^\s*entry: (.+)$", text, re.M)
    assert len(entry) == 1 and entry[0].split()[0] == "impactlens"
    (tmp_path / "a.py").write_text("x = 1\n")
    src = str(Path(impactlens.__file__).resolve().parents[1])
    proc = subprocess.run([sys.executable, "-m", "impactlens", *entry[0].split()[1:]],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": src},
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"impactlens: error: {tmp_path}: not a git "
                                                "repository"]
