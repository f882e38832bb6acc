"""Start-up: a command imports what it needs, not the whole tool (agents and hooks start
the CLI once per question)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import impactlens

SRC = str(Path(impactlens.__file__).resolve().parents[1])
# the parser and resolver, the analysis pipeline, the terminal renderer, worker processes
HEAVY = ("impactlens.index.python.extract", "impactlens.index.python.resolve",
         "impactlens.run", "impactlens.impact", "impactlens.answer", "impactlens.change",
         "impactlens.pdg", "impactlens.serve", "impactlens.llm", "rich", "multiprocessing",
         "concurrent.futures")


def _modules_after(args: list[str], cwd: Path) -> set[str]:
    """The modules loaded once ``impactlens ARGS`` has run in a fresh interpreter."""
    code = ("import json, sys\nfrom impactlens.cli import main\n"
            f"try:\n    main({args!r}, prog_name='impactlens')\n"
            "except SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, check=True)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def _heavy(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_version_imports_only_the_command_line_layer(tmp_path):
    loaded = _modules_after(["--version"], tmp_path)
    assert _heavy(loaded) == []
    ours = sorted(m for m in loaded if m.startswith("impactlens."))
    assert ours == ["impactlens.cli", "impactlens.cli.common", "impactlens.errors"]


def test_impact_on_an_indexed_repository_loads_no_parser_or_pipeline(indexed):
    root = indexed({"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n",
                    "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f()\n"}).root
    loaded = _modules_after(["impact", "pkg.a.f"], root)
    assert "impactlens.index.queries" in loaded  # the command ran
    assert _heavy(loaded) == []


def test_help_still_lists_every_command(tmp_path):
    from click.testing import CliRunner

    from impactlens.cli import main
    from impactlens.cli.common import COMMAND_MODULES

    out = CliRunner().invoke(main, ["--help"]).output
    for name in COMMAND_MODULES:
        if name != "bench":  # the hidden alias
            assert f"  {name} " in out
