"""Which files of a subject repository the harness counts: its own library source, not its
tests, test-support packages, docs, scripts or vendored copies of other projects."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from impactlens.index.discover import is_source as _library_file
from impactlens.index.discover import is_test_file
from impactlens.index.frontend import language_of

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
    if language_of(path) == "typescript":
        from impactlens.index.typescript.layout import is_test_path as ts_test

        return ts_test(path)
    return is_test_file(path) or any(part in ("tests", "test", "testing") for part in p.parts)


def is_ts_source(path: str) -> bool:
    """A TypeScript/JavaScript library file (:mod:`impactlens.index.typescript.layout`)."""
    from impactlens.index.typescript.layout import is_library_file

    return language_of(path) == "typescript" and is_library_file(path)


@dataclass(frozen=True)
class Universe:
    """The files a repository's cases count, seeds and gold alike, and every method's
    ranked list: library files of the repository's own language (the one most of its
    library files are in at the head: a Python project's debugger script is not its
    library), outside test-support directories and outside committed build copies
    (``built``: path prefixes such as ``deno/lib/`` or a compiled ``lib/``)."""

    languages: frozenset[str] = frozenset({"python"})
    support: frozenset[str] = frozenset()
    built: frozenset[str] = frozenset()

    def counts(self, path: str) -> bool:
        if path.split("/", 1)[0] in self.support or path.startswith(tuple(self.built)):
            return False
        if "typescript" in self.languages and is_ts_source(path):
            return not is_vendored(path)
        return "python" in self.languages and is_source(path)


def main_languages(paths: Iterable[str]) -> frozenset[str]:
    """The language most of ``paths``'s library files are in (Python on a tie or none)."""
    py = ts = 0
    for p in paths:
        if is_source(p):
            py += 1
        elif is_ts_source(p) and not is_vendored(p):
            ts += 1
    return frozenset({"typescript" if ts > py else "python"})


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
