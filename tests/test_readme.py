"""The README as a package index renders it: the install line first, absolute links only."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SET_UP = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/impactlens demo\n"
    "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/python -m pytest\n"
)


def test_install_line_then_the_two_set_up_commands() -> None:
    lines = README.read_text().splitlines(keepends=True)
    assert lines[0] == "# impactlens\n"
    first = next(line for line in lines[1:] if line.strip())
    assert "`pip install impactlens`" in first
    text = "".join(lines)
    assert text.index(first) < text.index("```sh\n" + SET_UP + "```") < text.index("\n## ")


def test_links_and_images_are_absolute() -> None:
    text = re.sub(r"```.*?```", "", README.read_text(), flags=re.S)  # code is not rendered
    targets = re.findall(r"\]\(([^)]*)\)", text) + re.findall(r"<img[^>]+src=\"([^\"]+)\"", text)
    assert targets
    assert [t for t in targets if not t.startswith("https://")] == []


def test_the_ci_script_runs_the_readme_test_command_on_paths_that_exist() -> None:
    script = (README.parent / ".ci" / "run").read_text()
    assert SET_UP.splitlines()[1] in script.splitlines()
    named = re.findall(r"\btests/[\w/.-]+", script)
    assert named and [p for p in named if not (README.parent / p).exists()] == []
