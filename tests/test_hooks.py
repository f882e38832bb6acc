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


@pytest.mark.slow
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


def _report_step(steps: list[dict]) -> str:
    """The shell script of the step named "Impact report"."""
    (step,) = [s for s in steps if s.get("name") == "Impact report"]
    return step["run"]


def _documented_workflows() -> list[dict]:
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "docs" / "ci.md").read_text()
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)
            if block.lstrip().startswith("name:")]


def _pull_request(make_repo, git_commit) -> Path:
    root = make_repo({"lib.py": LIB, "user.py": USER})
    subprocess.run(["git", "checkout", "-q", "-b", "feature"], cwd=root, check=True,
                   env=_git_env())
    git_commit(root, {"lib.py": LIB.replace("(w, h)", "(w, h, d)")}, "area takes a depth")
    return root


def _run_step(script: str, root: Path, tmp_path: Path, **env: str) -> dict[str, Path]:
    """Run a step's script as GitHub's `shell: bash` does, with `impactlens` on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "impactlens"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m impactlens "$@"\n')
    shim.chmod(0o755)
    files = {name: tmp_path / name for name in ("summary.md", "output.txt")}
    src = str(Path(impactlens.__file__).resolve().parents[1])
    full_env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                "PYTHONPATH": src, "RUNNER_TEMP": str(tmp_path),
                "GITHUB_STEP_SUMMARY": str(files["summary.md"]),
                "GITHUB_OUTPUT": str(files["output.txt"]), **env}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=root, env=full_env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return files


def test_the_action_posts_the_markdown_summary(make_repo, git_commit, tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    root = _pull_request(make_repo, git_commit)
    files = _run_step(_report_step(action["runs"]["steps"]), root, tmp_path, BASE="main")
    summary = files["summary.md"].read_text()
    assert "lib.area" in summary and "user.room" in summary
    assert "MUST-INSPECT" in summary
    report = files["output.txt"].read_text().strip()
    assert report == f"report={tmp_path / 'impact.md'}"
    assert (tmp_path / "impact.md").read_text() == summary


def test_the_documented_workflow_runs_its_report(make_repo, git_commit, tmp_path: Path) -> None:
    workflows = _documented_workflows()
    # YAML 1.1 reads the key `on` as true
    assert [w.get("on", w.get(True)) for w in workflows] == ["pull_request", "pull_request"]
    job = workflows[0]["jobs"]["impact"]
    root = _pull_request(make_repo, git_commit)
    files = _run_step(_report_step(job["steps"]), root, tmp_path, BASE="main")
    comment = (root / "impact.md").read_text()
    assert "user.room" in comment and comment == files["summary.md"].read_text()
    assert "<html" in (root / "impact.html").read_text()[:200].lower()
    (uses,) = [s["uses"] for s in workflows[1]["jobs"]["impact"]["steps"]
               if s["uses"].startswith("impactlens/")]
    assert uses == "impactlens/impactlens@v0.1.0"
