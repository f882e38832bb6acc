"""The module map in docs/CONTRIBUTING.md matches src/impactlens/.

The map is the first fenced block after the "## Module map" heading: one entry a line,
the path relative to src/impactlens/ (a directory ends with "/"), two or more spaces,
then what it holds. A package's line is its directory (its ``__init__.py`` is not listed
apart); a listed directory without ``__init__.py`` is data: it must exist, and its files
are not listed.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "impactlens"
GUIDE = ROOT / "docs" / "CONTRIBUTING.md"


def map_entries(text: str) -> dict[str, str]:
    """``{path: description}`` of the map's block in ``text``."""
    after = text.split("\n## Module map\n", 1)[1]
    block = re.search(r"^```[a-z]*\n(.*?)^```", after, re.M | re.S)
    assert block, "no fenced block after '## Module map'"
    entries: dict[str, str] = {}
    for line in block.group(1).splitlines():
        path, sep, what = line.partition("  ")
        assert sep and path.strip() == path and what.strip(), f"not 'PATH  WHAT': {line!r}"
        assert path not in entries, f"listed twice: {path}"
        entries[path] = what.strip()
    return entries


def source_entries(package: Path) -> set[str]:
    """Every package (``dir/``, which stands for its ``__init__.py``) and ``.py`` module
    under ``package``, relative to it; a directory without ``__init__.py`` is data
    (``dir/``, not looked into)."""
    found: set[str] = set()
    for path in package.rglob("*"):
        rel = path.relative_to(package)
        parents = [package / p for p in reversed(rel.parents[:-1])]
        if any(not (p / "__init__.py").exists() for p in parents) or "__pycache__" in rel.parts:
            continue  # inside a data directory (or bytecode)
        if path.is_dir():
            found.add(f"{rel.as_posix()}/")
        elif path.suffix == ".py" and not (path.name == "__init__.py" and len(rel.parts) > 1):
            found.add(rel.as_posix())
    return found


def test_the_map_lists_every_package_and_module_and_nothing_else() -> None:
    listed = set(map_entries(GUIDE.read_text(encoding="utf-8")))
    actual = source_entries(PACKAGE)
    assert sorted(actual - listed) == [], "in src/impactlens/ but not in the module map"
    assert sorted(listed - actual) == [], "in the module map but not in src/impactlens/"


def test_data_directories_are_read_as_data(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "data" / "inner").mkdir(parents=True)
    for name in ("__init__.py", "mod.py", "sub/__init__.py", "sub/leaf.py",
                 "data/sample.py", "data/inner/x.py", "data/notes.txt"):
        (pkg / name).write_text("", encoding="utf-8")
    assert source_entries(pkg) == {"__init__.py", "mod.py", "sub/", "sub/leaf.py", "data/"}


def test_map_lines_need_a_path_and_a_description() -> None:
    good = "## Module map\n\ntext\n\n```text\napi.py   the facade\nbench/  harnesses\n```\n"
    assert map_entries("# x\n" + good) == {"api.py": "the facade", "bench/": "harnesses"}
