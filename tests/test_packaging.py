"""The distributions as a user and a downstream packager get them, built without network.

The sdist is built from a copy of the checkout and the wheel from the unpacked sdist (as
``python -m build`` does), both ``--no-isolation`` with this interpreter's setuptools.
The wheel is installed into a fresh virtual environment (``--no-deps --no-index``) that
sees this interpreter's packages for its dependencies, and runs the demo there.
"""

from __future__ import annotations

import email
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", ".ci-venv", "build", "dist", "*.egg-info",
                                     ".impactlens", "__pycache__", ".cache", ".*_cache")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("build") is None,
                       reason="the `build` package is not installed (it is in the dev extra)"),
]


def _run(*cmd: str | Path, cwd: Path, env: dict[str, str] | None = None,
         log: list[str] | None = None) -> str:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    if log is not None:
        log.append(proc.stdout + proc.stderr)
    return proc.stdout


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    work = tmp_path_factory.mktemp("dist")
    source = work / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=_NOT_SOURCE)
    out = work / "out"
    log: list[str] = []
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source, cwd=work,
         log=log)
    (sdist,) = out.glob("impactlens-*.tar.gz")
    (wheel,) = out.glob("impactlens-*.whl")
    return {"sdist": sdist, "wheel": wheel, "work": work, "log": log[0]}


def test_the_build_warns_of_nothing_deprecated(dists: dict) -> None:
    assert "Deprecat" not in dists["log"] and "deprecat" not in dists["log"]


def test_the_wheel_carries_the_licence_and_the_metadata(dists: dict) -> None:
    with zipfile.ZipFile(dists["wheel"]) as whl:
        names = whl.namelist()
        (info,) = {n.split("/")[0] for n in names if ".dist-info/" in n}
        meta = email.message_from_bytes(whl.read(f"{info}/METADATA"))
        licence = whl.read(f"{info}/licenses/LICENSE").decode()
        scripts = whl.read(f"{info}/entry_points.txt").decode()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert meta["License-Expression"] == "Apache-2.0"
    assert "LICENSE" in meta.get_all("License-File")
    assert meta["Author"] == "impactlens developers"
    assert any(u.startswith("Homepage, https://github.com/impactlens/impactlens")
               for u in meta.get_all("Project-URL"))
    assert "Typing :: Typed" in meta.get_all("Classifier") and meta["Keywords"]
    extras = meta.get_all("Provides-Extra")
    assert {"llm", "bench", "dev"} <= set(extras)
    requires = meta.get_all("Requires-Dist")
    assert not [r for r in requires if r.startswith("openai") and "extra ==" not in r]
    assert "impactlens-bench = impactlens.cli.bench_cmds:bench_main" in scripts
    assert not [n for n in names if n.startswith(("tests/", "bench/"))]
    assert "impactlens/examples/shop/sample_edit.diff" in names
    assert "impactlens/py.typed" in names


def test_the_sdist_carries_the_licence_the_tests_and_their_data(dists: dict) -> None:
    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "tests/conftest.py",
            "tests/test_packaging.py", "docs/CONTRIBUTING.md", "docs/img/impact-report.png",
            "bench/callgraph/README.md", ".pre-commit-hooks.yaml", "action.yml"} <= names
    assert any(n.startswith("bench/change-impact/cases/") for n in names)
    assert any(n.startswith("bench/impact-pdg/") for n in names)
    assert not [n for n in names if "__pycache__" in n or n.startswith(".git/")]


def test_the_wheel_installs_and_runs_the_demo(dists: dict) -> None:
    venv = dists["work"] / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=dists["work"])
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
         "--no-index", dists["wheel"], cwd=dists["work"])
    # the dependencies: this interpreter's site-packages, after the venv's own
    purelib = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                        cwd=dists["work"]).strip())
    (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    run_dir = dists["work"] / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = _run(python, "-c", "import impactlens; print(impactlens.__file__)", cwd=run_dir,
                 env=env)
    assert where.startswith(str(venv))
    demo = _run(venv / "bin" / "impactlens", "demo", cwd=run_dir, env=env)
    assert "MUST-INSPECT" in demo and "shop.catalog.repository.Catalog.get" in demo
    assert "bench" not in _run(venv / "bin" / "impactlens", "--help", cwd=run_dir, env=env)
    bench_help = _run(venv / "bin" / "impactlens-bench", "--help", cwd=run_dir, env=env)
    assert "history" in bench_help and "README" not in bench_help
