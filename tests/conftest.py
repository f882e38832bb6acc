"""Shared test helpers: real git repositories built in ``tmp_path``.

``make_repo({path: text, ...})`` writes the files, ``git init``s the directory and
commits them; it returns the repository root (a :class:`pathlib.Path`).
``git_commit(root, {path: text | None}, message)`` adds another commit to such a
repository (``None`` deletes the file) and returns the new commit sha.
``git(root, *args)`` runs git there and returns stdout.
``indexed({path: text, ...})`` builds such a repository, indexes it and returns the
:class:`impactlens.api.Project` (``settings=`` for the run's settings).

Every repository gets a fixed identity and fixed commit dates (one day apart,
starting 2024-01-01) unless a ``date`` is given, so histories are reproducible.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from git_dates import day

from impactlens.api import Project
from impactlens.settings import Settings


def _env(date: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.invalid",
        GIT_COMMITTER_NAME="Test Author",
        GIT_COMMITTER_EMAIL="author@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
    )
    if date is not None:
        env["GIT_AUTHOR_DATE"] = date
        env["GIT_COMMITTER_DATE"] = date
    return env


def git(root: Path | str, *args: str, date: str | None = None) -> str:
    """Run ``git ARGS`` in ``root``; return stdout (raises on failure)."""
    proc = subprocess.run(
        ["git", *args],
        cwd=root,
        env=_env(date),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def write_files(root: Path, files: Mapping[str, str | bytes | None]) -> None:
    """Write ``{relpath: text}`` under ``root`` (bytes written raw, ``None`` deletes)."""
    for rel, content in files.items():
        p = root / rel
        if content is None:
            if p.exists():
                p.unlink()
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8", newline="\n")


_clock = itertools.count(1)


def _next_date() -> str:
    return day(next(_clock))


def git_commit(
    root: Path | str,
    files: Mapping[str, str | bytes | None] | None = None,
    message: str = "change",
    *,
    date: str | None = None,
) -> str:
    """Write ``files`` (``None`` = delete), commit everything, return the new sha."""
    root = Path(root)
    if files:
        write_files(root, files)
    git(root, "add", "-A")
    git(root, "commit", "--allow-empty", "-q", "-m", message, date=date or _next_date())
    return git(root, "rev-parse", "HEAD").strip()


def init_repo(
    root: Path,
    files: Mapping[str, str | bytes | None],
    *,
    message: str = "initial",
    date: str | None = None,
    commit: bool = True,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Author")
    git(root, "config", "user.email", "author@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "config", "core.autocrlf", "false")
    write_files(root, files)
    if commit:
        git_commit(root, None, message, date=date)
    return root


MakeRepo = Callable[..., Path]


@pytest.fixture
def make_repo(tmp_path: Path) -> MakeRepo:
    """Factory: ``make_repo(files, *, name="repo", message="initial", date=None, commit=True)``.

    Builds a real git repository at ``tmp_path / name`` holding ``files``
    (``{"pkg/mod.py": "def f(): ...\\n"}``), commits them (unless ``commit=False``)
    and returns its root.
    """
    counter = itertools.count()

    def _make(
        files: Mapping[str, str | bytes | None],
        *,
        name: str | None = None,
        message: str = "initial",
        date: str | None = None,
        commit: bool = True,
    ) -> Path:
        n = next(counter)
        root = tmp_path / (name or ("repo" if n == 0 else f"repo{n}"))
        return init_repo(root, files, message=message, date=date, commit=commit)

    return _make


@pytest.fixture(name="init_repo", scope="session")
def init_repo_fixture() -> Callable[..., Path]:
    """``init_repo(root, files, *, message=, date=, commit=True) -> root``, for fixtures
    wider than one test (``make_repo`` is per test)."""
    return init_repo


@pytest.fixture(name="git_commit")
def git_commit_fixture() -> Callable[..., str]:
    """``git_commit(root, {path: text | None}, message, date=None) -> sha``."""
    return git_commit


@pytest.fixture(name="git")
def git_fixture() -> Callable[..., str]:
    """``git(root, *args) -> stdout``."""
    return git


@pytest.fixture
def indexed(make_repo: MakeRepo) -> Iterator[Callable[..., Project]]:
    """Factory: ``indexed(files, *, settings=None, **make_repo options) -> Project``.

    ``make_repo(files, ...)``, then the repository indexed; the returned project (its
    root is ``.root``) is closed after the test. ``settings=None`` = the defaults with
    the repository's own ``[tool.impactlens]``, as ``Project`` reads them.
    """
    opened: list[Project] = []

    def _indexed(files: Mapping[str, str | bytes | None], *, settings: Settings | None = None,
                 **repo_options: Any) -> Project:
        project = Project(make_repo(files, **repo_options), settings)
        opened.append(project)
        project.index()
        return project

    yield _indexed
    for project in opened:
        project.close()
