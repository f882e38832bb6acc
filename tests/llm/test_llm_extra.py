"""Without the `llm` extra: `--llm` says how to install it, everything else works.

The OpenAI client is made unimportable in a child interpreter (a ``None`` entry in
``sys.modules`` makes every ``import openai`` raise ``ImportError``), which then runs the
real `impactlens` command on a real repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import impactlens

SRC = str(Path(impactlens.__file__).resolve().parents[1])
# the child: block the client, then run the `impactlens` command with the given arguments
WITHOUT_CLIENT = (
    "import sys; sys.modules['openai'] = None\n"
    "from impactlens.cli import main\n"
    "main(sys.argv[1:], prog_name='impactlens')\n"
)
LIB = "def area(w, h):\n    return w * h\n"
USER = "from lib import area\n\n\ndef room():\n    return area(2, 3)\n"


def _impactlens(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    for name in ("IMPACTLENS_LLM_BASE_URL", "IMPACTLENS_LLM_MODEL", "OPENAI_BASE_URL"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-c", WITHOUT_CLIENT, *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_llm_without_the_client_names_the_extra(make_repo) -> None:
    root = make_repo({"lib.py": LIB, "user.py": USER})
    (root / "lib.py").write_text(LIB.replace("(w, h)", "(w, h, d)"))

    proc = _impactlens(root, "analyze", "--llm", "--llm-base-url", "http://127.0.0.1:9/v1",
                       "--llm-model", "m")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "impactlens: error: --llm needs the OpenAI client, an optional extra: "
        "pip install 'impactlens[llm]'"
    ]
    assert "Traceback" not in proc.stderr

    plain = _impactlens(root, "analyze")
    assert plain.returncode == 0, plain.stderr
    assert "user.room" in plain.stdout

    prompt = _impactlens(root, "analyze", "--print-prompt")  # sends nothing: no client needed
    assert prompt.returncode == 0, prompt.stderr
    assert '"messages"' in prompt.stdout

