"""Fixed commit dates for planted histories: day ``n`` after 2024-01-01 (UTC).

Imported by name (``from git_dates import day``) from any test directory: ``tests/`` is on
the import path once ``tests/conftest.py`` is loaded.
"""

from __future__ import annotations

_BASE_EPOCH = 1704067200  # 2024-01-01T00:00:00Z


def epoch(n: int) -> int:
    """Epoch seconds of day ``n`` after 2024-01-01 (UTC)."""
    return _BASE_EPOCH + n * 86_400


def day(n: int) -> str:
    """A git date string for day ``n`` after 2024-01-01 (UTC)."""
    return f"@{epoch(n)} +0000"
