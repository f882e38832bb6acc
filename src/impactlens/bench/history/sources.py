"""Which files of a subject repository the harness counts: its own library source, not its
tests, docs, scripts or vendored copies of other projects."""

from __future__ import annotations

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
