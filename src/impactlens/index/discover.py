"""Which files make up a repository, and the dotted module name of each.

In a git work tree the files are what git tracks plus untracked-but-not-ignored
files; elsewhere a directory walk that skips VCS metadata, virtualenvs,
``node_modules`` and build outputs. The files indexed are those a language frontend
owns (:mod:`impactlens.index.frontend`), less what that frontend skips.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePosixPath

from impactlens.fileio import OUTSIDE, outside_root, shown_name, valid_name
from impactlens.index import frontend, git

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", "node_modules", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".impactlens", "build", "dist",
    ".eggs", "venv", ".venv", "env", ".env", "site-packages",
})
SOURCE_ROOTS = frozenset({"src", "lib", "python"})
PY_SUFFIX = ".py"


def _is_venv(path: str) -> bool:
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def _walk_files(root: Path, suffix: str | tuple[str, ...]) -> list[str]:
    return sorted(_walk(root, suffix))


def holds_source_files(root: Path) -> bool:
    """Whether a directory walk finds a file to index (it stops at the first)."""
    return next(_walk(root, frontend.suffixes()), None) is not None


def is_skipped_dir(parent: str, name: str) -> bool:
    """Whether the directory ``name`` in ``parent`` holds nothing to index: VCS metadata,
    caches, build outputs, a virtualenv."""
    return (name in SKIP_DIRS or name.endswith(".egg-info")
            or _is_venv(os.path.join(parent, name)))


def in_skipped_dir(root: Path, path: str) -> bool:
    """Whether the repository path ``path`` lies inside a directory a walk skips."""
    parent = str(root)
    for name in path.split("/")[:-1]:
        if is_skipped_dir(parent, name):
            return True
        parent = os.path.join(parent, name)
    return False


def _walk(root: Path, suffix: str | tuple[str, ...]) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not is_skipped_dir(dirpath, d))
        rel_dir = os.path.relpath(dirpath, root)
        for name in filenames:
            if name.endswith(suffix):
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                yield rel.replace(os.sep, "/")


_ASK = Path("\0")  # list_source_files: no work tree root given, ask git


class FileList(list[str]):
    """Repository paths, with the names left out because they are not valid UTF-8 (shown
    escaped in ``skipped``: they can be neither stored nor imported)."""

    skipped: tuple[str, ...] = ()


def _named(paths: Iterable[str]) -> FileList:
    got = FileList()
    bad: list[str] = []
    for p in paths:
        (got if valid_name(p) else bad).append(p)
    got.skipped = tuple(shown_name(p) for p in bad)
    return got


def list_source_files(root: Path, top: Path | None = _ASK, suffix: str | None = None
                      ) -> FileList:
    """Repo-relative POSIX paths of the files to index, sorted. ``top``: the git work tree
    root (None: not in git) when the caller already knows it; ``suffix``: the files'
    ending (``None``: every language frontend's files; ``""``: every file)."""
    if top == _ASK:
        # a work tree root holds `.git` (a directory, or a file in worktrees and submodules):
        # a stat instead of a `git rev-parse` on every freshness check
        top = root.resolve() if (root / ".git").exists() else None
    endings = frontend.suffixes() if suffix is None else (suffix,)
    files: list[str] | None = None
    if top is not None and top == root.resolve():
        files = git.listed_files(root, endings)
        if files is not None:
            # a tracked file deleted without `git rm` is still in git's index: left in, it
            # would be re-read (and fail) on every run
            files = [f for f in files if not any(p in SKIP_DIRS for p in f.split("/")[:-1])
                     and os.path.lexists(os.path.join(root, f))]
    if files is None:
        files = _walk_files(root, endings)
    return _named(files if suffix == "" else [f for f in files if not _frontend_skips(f)])


LINKED_OUT = f"a directory symlinked to outside the repository ({OUTSIDE}); not followed"


def linked_outside(root: Path, top: Path | None) -> list[str]:
    """Symlinks to directories that resolve outside ``root``, sorted: neither git nor the
    walk follows them, and the indexer says it skipped them (``top``: the git work tree
    root, ``None`` when not in git)."""
    links = git.listed_symlinks(root) if top is not None and top == root.resolve() else None
    if links is None:
        links = []
        for dirpath, dirnames, _files in os.walk(root, followlinks=False):
            dirnames[:] = [d for d in dirnames if not is_skipped_dir(dirpath, d)]
            rel_dir = os.path.relpath(dirpath, root)
            links += [d if rel_dir == "." else f"{rel_dir}/{d}".replace(os.sep, "/")
                      for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
    return sorted(p for p in links if valid_name(p) and os.path.islink(os.path.join(root, p))
                  and os.path.isdir(os.path.join(root, p)) and outside_root(root, p)
                  and not in_skipped_dir(root, p))


def _frontend_skips(path: str) -> bool:
    fe = frontend.frontend_for(path)
    if fe is None:
        return True
    return bool(fe.skip_dirs) and any(p in fe.skip_dirs for p in path.split("/")[:-1])


def list_text_files(root: Path) -> FileList:
    """Every file of the work tree (tracked or not ignored; what a walk finds outside git)
    — the places code, templates and doctests that read a name can be."""
    return list_source_files(root, suffix="")


_NON_SOURCE_DIRS = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example",
                              "benchmarks", "bench", "scripts", "tools", "ci", ".github"})
_NON_SOURCE_FILES = frozenset({"setup.py", "conftest.py", "noxfile.py", "fabfile.py"})


def is_source(path: str) -> bool:
    """A Python file of the library itself: not a test, example, doc, script, tool or
    packaging file (the files a change to the library can oblige to change)."""
    p = PurePosixPath(path)
    if p.suffix != PY_SUFFIX or is_test_file(path) or p.name in _NON_SOURCE_FILES:
        return False
    return not any(part in _NON_SOURCE_DIRS or "example" in part or part.startswith("typing")
                   for part in p.parts[:-1])


def is_library_file(path: str) -> bool:
    """A library file in any language a frontend reads: :func:`is_source` for Python, the
    TypeScript/JavaScript layout rules (:mod:`impactlens.index.typescript.layout`) for
    those files."""
    if path.endswith(PY_SUFFIX):
        return is_source(path)
    if frontend.language_of(path) != "typescript":
        return False
    from impactlens.index.typescript.layout import is_library_file as ts_library

    return ts_library(path)


def library_in(paths: Iterable[str]) -> Callable[[str], bool]:
    """Whether a file is a library file (:func:`is_library_file`) in one of the languages
    of ``paths`` (the edited files): candidates are weighed against others of the
    change's own language, so a Python change's are Python files alone (no paths: every
    language)."""
    languages = frozenset(frontend.language_of(p) for p in paths)

    def library(path: str) -> bool:
        return (not languages or frontend.language_of(path) in languages) \
            and is_library_file(path)

    return library


def is_test_file(path: str) -> bool:
    """A test module or conftest by pytest's default rules (the index applies the
    repository's own: :mod:`impactlens.index.python.pytest_config`)."""
    from impactlens.index.python.pytest_config import DEFAULT

    return DEFAULT.is_test_file(path)


def module_names(paths: Iterable[str]) -> dict[str, str]:
    """Map each path to its module name, as its language frontend names it (a path no
    frontend owns is named as a Python file would be)."""
    all_paths = list(paths)
    groups = frontend.by_frontend(all_paths)
    if (len(groups) <= 1 and "python" in groups) or not groups:
        return python_module_names(all_paths)
    out: dict[str, str] = {}
    for language, members in groups.items():
        out.update(frontend.named(language).module_names(members))
    return {p: out[p] if p in out else _module_name(p, set()) for p in all_paths}


def python_module_names(paths: Iterable[str]) -> dict[str, str]:
    """Map each path to its dotted Python module name.

    A file inside a package (its directory has ``__init__.py``) is named from the
    top-most enclosing package, so ``src/pkg/sub/mod.py`` is ``pkg.sub.mod``. A file
    outside any package is named by its path from the repository root, with a
    leading source root (``src/``, ``lib/``) stripped: ``tests/test_x.py`` is
    ``tests.test_x``.
    """
    # plain string splitting, not PurePosixPath: this runs on every file at every index
    all_paths = list(paths)
    pkg_dirs = {p.rpartition("/")[0] or "." for p in all_paths
                if p == "__init__.py" or p.endswith("/__init__.py")}
    return {p: _module_name(p, pkg_dirs) for p in all_paths}


def _module_name(path: str, pkg_dirs: set[str]) -> str:
    head, _, name = path.rpartition("/")
    parts = head.split("/") if head else []
    stem = name[:-3] if name.endswith(PY_SUFFIX) else name.rpartition(".")[0] or name
    leaf = [] if stem == "__init__" else [stem]
    # climb while the directory is a package
    i = len(parts)
    while i > 0 and "/".join(parts[:i]) in pkg_dirs:
        i -= 1
    if i < len(parts):  # inside a package: name from the top-most package
        dotted = [*parts[i:], *leaf]
    else:
        rel = parts[1:] if parts and parts[0] in SOURCE_ROOTS else parts
        dotted = [*rel, *leaf]
    return ".".join(dotted) if dotted else stem


def module_name(root: Path, path: str) -> str:
    """Module name of one path as its language frontend names it from the disk."""
    fe = frontend.frontend_for(path)
    if fe is None or fe.language == "python":
        return python_module_name(root, path)
    return fe.module_name(root, path)


def python_module_name(root: Path, path: str) -> str:
    """Python module name of one path, checking the file system for package markers."""
    pp = PurePosixPath(path)
    pkg_dirs = set()
    for anc in pp.parents:
        if str(anc) != "." and (root / str(anc) / "__init__.py").exists():
            pkg_dirs.add(str(anc))
    return _module_name(path, pkg_dirs)
