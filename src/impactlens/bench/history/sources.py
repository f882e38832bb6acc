"""Which files of a subject repository the harness counts: its own library source, not its
tests, test-support packages, docs, scripts or vendored copies of other projects."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import PurePosixPath

from impactlens.index.discover import is_source as _library_file
from impactlens.index.discover import is_test_file

# vendored copies of other projects: never a seed, never gold
_VENDORED_DIRS = frozenset({"_vendor", "vendor", "vendored", "third_party"})


def is_vendored(path: str) -> bool:
    """Under a vendored tree: ``*/packages/*``, ``_vendor/``, ``vendor/``, ``third_party/``."""
    parts = path.split("/")[:-1]
    return any(p in _VENDORED_DIRS for p in parts) or "packages" in parts[1:]


def is_source(path: str) -> bool:
    """A library file of the repository itself (not a test, doc or script, not vendored)."""
    return _library_file(path) and not is_vendored(path)


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    return is_test_file(path) or any(part in ("tests", "test", "testing") for part in p.parts)


# what a test-support package imports that library code does not
_TEST_FRAMEWORKS = frozenset({"pytest", "unittest", "hypothesis", "mock", "nose", "trustme"})


def test_support_dirs(texts: Mapping[str, str]) -> frozenset[str]:
    """Top-level directories of test-support code (``dummyserver/``): imported by the
    tests and by no library code outside them. In a ``src/`` layout, that is any such
    directory outside ``src/``; in a flat one, a package that also imports the library
    and a test framework (so the library itself, which tests import too, never counts).
    ``texts``: ``{path: text}`` of the repository's Python files."""
    imports = {p: _imported_tops(t) for p, t in texts.items()}
    src_layout = any(p.startswith("src/") for p in texts)
    tops = {p.split("/", 1)[0] for p in texts if "/" in p}
    out: set[str] = set()
    for top in sorted(tops - {"src", "tests", "test", "testing"}):
        mine = [p for p in texts if p.startswith(top + "/")]
        by_tests = any(top in imports[p] for p in texts if is_test_path(p) and p not in mine)
        by_library = any(top in imports[p] for p in texts
                         if p not in mine and not is_test_path(p))
        if not by_tests or by_library:
            continue
        if src_layout:
            out.add(top)
            continue
        uses = set().union(*(imports[p] for p in mine))
        if uses & _TEST_FRAMEWORKS and (uses & tops) - {top}:
            out.add(top)
    return frozenset(out)


def _imported_tops(text: str) -> frozenset[str]:
    """The top-level names a module imports absolutely."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".", 1)[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".", 1)[0])
    return frozenset(out)
