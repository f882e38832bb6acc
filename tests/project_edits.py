"""Helpers the end-to-end tests share: edit a file of a real repository in place, analyse
the working tree through the public API, and read the entities of a triage bucket."""

from __future__ import annotations

from pathlib import Path

from impactlens.api import Project


def entities(entries) -> set[str]:
    return {e.entity for e in entries}


def edit(root: Path, path: str, old: str, new: str) -> None:
    """Replace the first ``old`` in ``path`` with ``new`` (``old`` must be there)."""
    p = root / path
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))


def analyze(root: Path, **kw):
    with Project(root) as p:
        return p.analyze(**kw)
