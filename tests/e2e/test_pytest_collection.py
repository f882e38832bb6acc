"""Only what the repository's pytest configuration collects is a test to run: the same
ids from `impactlens tests`, test_map.txt, `tests --run` and MCP tests_for_change."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from impactlens.cli import main

TEST_BODY = "from pkg.core import f\n\n\ndef test_f():\n    assert f() == 1\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def f():\n    return 1\n",
    "tests/test_y.py": TEST_BODY,
    "tests/check_x.py": TEST_BODY,
    "scripts/test_tool.py": TEST_BODY,
    "conftest.py": "",
}
EDIT = "def f():\n    return 0 + 1\n"


def listed(root: Path) -> list[str]:
    r = CliRunner().invoke(main, ["tests", "--repo", str(root)])
    assert r.exit_code == 0, r.output
    return r.stdout.split()


def edited_repo(make_repo, config: dict[str, str]) -> Path:
    root = make_repo({**FILES, **config})
    (root / "pkg/core.py").write_text(EDIT)
    return root


def test_without_configuration_every_test_named_file_counts(make_repo):
    root = edited_repo(make_repo, {})
    assert listed(root) == ["scripts/test_tool.py::test_f", "tests/test_y.py::test_f"]


def test_testpaths_leaves_out_a_test_named_script(make_repo, tmp_path):
    root = edited_repo(make_repo, {"pyproject.toml": (
        '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')})
    ids = listed(root)
    assert ids == ["tests/test_y.py::test_f"]
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["analyze", "--repo", str(root), "--out", str(out)])
    assert r.exit_code == 0, r.output
    mapped = {line.split()[1] for line in (out / "test_map.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    assert mapped == set(ids)
    run = CliRunner().invoke(main, ["tests", "--repo", str(root), "--run"])
    assert run.exit_code == 0 and "running 1 test(s)" in run.stderr


def test_python_files_decides_which_files_are_tests(make_repo):
    root = edited_repo(make_repo, {"tox.ini": "[pytest]\npython_files = check_*.py\n"})
    assert listed(root) == ["tests/check_x.py::test_f"]


def test_classes_and_functions_follow_the_configuration(make_repo):
    body = ("from pkg.core import f\n\n\nclass CheckF:\n    def verify_f(self):\n"
            "        assert f() == 1\n\n    def test_f(self):\n        assert f() == 1\n\n\n"
            "class TestF:\n    def verify_g(self):\n        assert f() == 1\n")
    root = edited_repo(make_repo, {
        "tests/test_y.py": body,
        "setup.cfg": ("[tool:pytest]\ntestpaths = tests\npython_classes = Check\n"
                      "python_functions = verify_\n")})
    assert listed(root) == ["tests/test_y.py::CheckF::verify_f"]


def test_a_changed_configuration_reindexes_and_mcp_agrees(make_repo):
    from impactlens.serve.mcp_server import build_server

    root = edited_repo(make_repo, {})
    assert "scripts/test_tool.py::test_f" in listed(root)
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    assert listed(root) == ["tests/test_y.py::test_f"]  # the index follows the new rules

    async def body() -> list[str]:
        res = await build_server(root).call_tool("tests_for_change", {})
        assert not res.is_error, res.content
        return res.structured_content["tests"]

    assert anyio.run(body) == ["tests/test_y.py::test_f"]


@pytest.mark.parametrize("name", ["pytest.ini", ".pytest.ini"])
def test_an_empty_pytest_ini_wins_over_pyproject(make_repo, name):
    root = edited_repo(make_repo, {name: "", "pyproject.toml": (
        '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n')})
    assert listed(root) == ["scripts/test_tool.py::test_f", "tests/test_y.py::test_f"]


def test_a_suite_configured_in_its_tests_directory(make_repo):
    # pytest.ini in tests/: `pytest tests` uses it, roots there and names its tests from there
    import subprocess
    import sys

    root = edited_repo(make_repo, {"tests/pytest.ini": "[pytest]\npython_files = check_*.py\n"})
    assert listed(root) == ["tests/check_x.py::test_f"]  # its rules are the index's
    r = CliRunner().invoke(main, ["tests", "--repo", str(root), "--node-ids"])
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == ["check_x.py::test_f"]
    assert "pytest's rootdir for these tests is tests/" in r.stderr
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                                "-p", "no:cacheprovider", "tests"], cwd=root,
                               capture_output=True, text=True, check=False).stdout
    assert "check_x.py::test_f" in collected.split()  # the ids pytest itself reports
    run = CliRunner().invoke(main, ["tests", "--repo", str(root), "--run"])
    assert run.exit_code == 0 and "WARNING" not in run.stderr  # repository paths are taken
