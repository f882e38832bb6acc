"""The default terminal report of the bundled example, character for character.

Regenerate after an intended change of the report with
``IMPACTLENS_UPDATE_GOLDEN=1 python -m pytest tests/answer/test_demo_golden.py`` and read
the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from impactlens.cli import main

GOLDEN = Path(__file__).with_name("demo_terminal.txt")


def test_the_demo_report_is_the_golden_text():
    got = CliRunner().invoke(main, ["demo"])
    assert got.exit_code == 0, got.output
    if os.environ.get("IMPACTLENS_UPDATE_GOLDEN"):
        GOLDEN.write_text(got.stdout)
    assert got.stdout == GOLDEN.read_text()
    lines = got.stdout.splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 160
