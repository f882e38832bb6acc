"""The work tree as texts, for the stages that search beyond the edit (a
:class:`impactlens.model.SourceTree` read from the disk)."""

from __future__ import annotations

from pathlib import Path

from impactlens.fileio import outside_root, read_code_text
from impactlens.index.discover import list_text_files

__all__ = ["WorkTree"]


class WorkTree:
    """The files of the work tree at ``root``, listed once and read when asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] | None = None

    def text_files(self) -> list[str]:
        if self._files is None:
            self._files = list_text_files(self.root)
        return self._files

    def text(self, path: str) -> str | None:
        if outside_root(self.root, path):
            return None
        return read_code_text(self.root / path)
