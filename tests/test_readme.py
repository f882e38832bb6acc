"""The README as a package index renders it (the install line first, absolute links only),
and its reliability figures are the fault suite's."""

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


FAMILIES = {"diffs": "test_diffs.py", "encodings": "test_encodings.py", "paths": "test_paths.py",
            "index": "test_index_store.py", "workers": "test_workers.py",
            "MCP": "test_mcp_frames.py", "bounds": "test_bounds.py",
            "linked directories": "test_linked_dirs.py", "concurrency": "test_concurrency.py",
            "edit sequences": "test_edit_sequences.py", "memory": "test_memory.py"}
NUMBER_WORDS = {7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


def test_the_reliability_counts_are_the_fault_suites() -> None:
    import subprocess
    import sys

    got = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                          "--collect-only", "-q", "tests/faults"], cwd=README.parent,
                         capture_output=True, text=True, check=False).stdout
    per_file = {m[0]: int(m[1]) for m in re.findall(r"tests/faults/(\w+\.py): (\d+)", got)}
    section = README.read_text().split("## Reliability", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| (\d+) \|", section, flags=re.M))
    assert {f: int(rows[name]) for name, f in FAMILIES.items()} == per_file
    total = sum(per_file.values())
    families = NUMBER_WORDS[len(FAMILIES)]
    assert f"{total} cases in {families} families" in section.replace("\n", " ")
    assert f"over the {total} cases" in section.replace("\n", " ")
