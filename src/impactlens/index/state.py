"""The ``.impactlens/`` directory of a repository, where everything impactlens writes there
goes (the index, its lock, the reports, the watcher's markers, caches).

A repository may commit ``.impactlens`` (or something under it) as a symlink, and writing
through it would overwrite whatever it points at, outside the repository. So every writer
asks :func:`state_path` first: it refuses a symlink anywhere from ``.impactlens`` down to
the path and creates the directories on the way as real ones.
"""

from __future__ import annotations

import os
from pathlib import Path

from impactlens.errors import ImpactlensError

__all__ = ["STATE_DIRNAME", "StateDirError", "state_path"]

STATE_DIRNAME = ".impactlens"


class StateDirError(ImpactlensError):
    """``.impactlens`` or a path under it is a symlink, not a directory, or cannot be made
    (a read-only checkout)."""


def state_path(path: Path, *, is_dir: bool = False) -> Path:
    """``path``, once nothing from its ``.impactlens`` component down is a symlink, with its
    directories (``path`` too when ``is_dir``) created; a path outside any ``.impactlens``
    (an output directory the user named) only gets its directories."""
    parts = path.parts
    if STATE_DIRNAME not in parts:
        (path if is_dir else path.parent).mkdir(parents=True, exist_ok=True)
        return path
    at = len(parts) - 1 - parts[::-1].index(STATE_DIRNAME)
    try:
        _make(parts, at, is_dir)
    except OSError as exc:
        raise StateDirError(f"{Path(*parts[:at + 1])}: cannot create the index directory "
                            f"({exc.strerror or exc})") from None
    return path


def _make(parts: tuple[str, ...], at: int, is_dir: bool) -> None:
    Path(*parts[:at]).mkdir(parents=True, exist_ok=True)
    for i in range(at, len(parts)):
        step = Path(*parts[: i + 1])
        if step.is_symlink():
            raise StateDirError(
                f"{step}: is a symlink (to {os.readlink(step)}); impactlens writes nothing "
                "through it — remove it and run again")
        if i < len(parts) - 1 or is_dir:
            try:
                step.mkdir(exist_ok=True)
            except FileExistsError:
                raise StateDirError(f"{step}: exists and is not a directory") from None
