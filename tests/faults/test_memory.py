"""Memory stays bounded: under a 1 GB address-space limit, `index`, `analyze --diff` and
`slice` on a tree holding a 50 MB file and expressions nested too deeply end in an answer
that records what was skipped, or in one line — never a MemoryError or a RecursionError
traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import SRC

resource = pytest.importorskip("resource")  # POSIX only
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="RLIMIT_AS bounds the address space on Linux")

LIMIT = 1 << 30  # bytes of address space for the command and everything it starts
BIG = "def g(v):\n    return v\n" + "X = 1\n" * 8_700_000  # 52 MB of generated code
DEEP = "Z = " + " + ".join(["1"] * 30_000) + "\n"  # the parser gives up
MID = ("def h(v):\n    w = v\n    z = " + " + ".join(["w"] * 1_500) + "\n    return z\n")
FILES = {"pkg/__init__.py": "", "pkg/core.py": "def f(x):\n    return x\n",
         "pkg/use.py": "from pkg.core import f\n\n\ndef a():\n    return f(1)\n",
         "pkg/big.py": BIG, "pkg/deep.py": DEEP, "pkg/mid.py": MID}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, init_repo):
    """The repository, and a diff that edits the big, the deep and one ordinary file."""
    root = init_repo(tmp_path_factory.mktemp("hostile") / "repo", FILES)
    (root / "pkg/big.py").write_text(BIG.replace("def g(v):", "def g(v, w):", 1))
    (root / "pkg/deep.py").write_text(DEEP.replace("Z = ", "Z = 2 + ", 1))
    (root / "pkg/core.py").write_text("def f(x, y):\n    return x\n")
    diff = root.parent / "edit.diff"
    diff.write_text(run_git(root, "diff"))
    run_git(root, "checkout", "--", ".")
    return root, diff


def run_git(root, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


# name → (arguments, exit code, what the output says)
CASES = {
    "index": (("index", "{root}"), 0, "pkg/big.py: file is 52"),
    "analyze --diff": (("analyze", "--repo", "{root}", "--diff", "{diff}"), 0,
                       "2 files not analyzed"),
    "slice of the big file": (("slice", "pkg/big.py:2", "--repo", "{root}"), 2,
                              "over the size cap"),
    "slice of it, no index": (("slice", "pkg/big.py:2", "--repo", "{root}", "--no-index"), 2,
                              "over the size cap"),
    "slice of the deep file": (("slice", "pkg/deep.py:1", "--repo", "{root}"), 2,
                               "nested too deeply"),
    "slice of a parsed deep file": (("slice", "pkg/mid.py:2", "--repo", "{root}"), 2,
                                    "nested too deeply"),
}


@pytest.mark.parametrize("name", list(CASES))  # in order: `index` first
def test_hostile_inputs_under_an_address_space_limit(hostile, name):
    root, diff = hostile
    args, code, says = CASES[name]
    proc = subprocess.run(
        [sys.executable, "-m", "impactlens", *(a.format(root=root, diff=diff) for a in args)],
        capture_output=True, text=True, timeout=300, preexec_fn=_limited, check=False,
        env=dict(os.environ, PYTHONPATH=SRC))
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr)
    assert says in proc.stdout + proc.stderr, (proc.stdout[-2000:], proc.stderr)
