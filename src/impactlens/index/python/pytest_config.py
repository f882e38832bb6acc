"""What the repository's pytest configuration collects: ``testpaths``, ``python_files``,
``python_classes`` and ``python_functions``.

Read from the first configuration file at the repository root, in pytest's order:
``pytest.toml`` (or ``.pytest.toml``), ``pytest.ini`` (or ``.pytest.ini``; even without a
``[pytest]`` section), ``pyproject.toml`` with ``[tool.pytest.ini_options]`` (or
``[tool.pytest]``), ``tox.ini`` with ``[pytest]``, ``setup.cfg`` with ``[tool:pytest]``;
with none there, from one in a top-level ``tests/``, ``test/`` or ``testing/`` directory
(the one ``pytest tests`` uses). Matching is pytest's: a ``python_files`` pattern without
``/`` is matched against the file name, one with ``/`` against the path's end; a class or
function name is collected when it starts with a ``python_classes`` / ``python_functions``
entry or matches one that is a glob. Without a configuration file the rules are pytest's
defaults. A file that cannot be read gives the defaults too (pytest
itself reports it).

pytest names a test by its path relative to its *rootdir* — the directory of that
configuration file — so a suite configured in ``tests/pytest.ini`` reports
``test_x.py::test_a`` for the repository's ``tests/test_x.py::test_a``: :func:`rootdir`
finds that directory as pytest does for a run of given paths from the repository root,
:func:`node_id` and :func:`repo_id` translate between the two.
"""

from __future__ import annotations

import configparser
import glob
import json
import os
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

__all__ = ["CONFIG_FILES", "DEFAULT", "TEST_DIRS", "Collect", "config_dir", "matches_file",
           "matches_name", "node_id", "read", "repo_id", "rootdir"]

_GLOB_CHARS = frozenset("*?[")
TEST_DIRS = ("tests", "test", "testing")  # where a suite keeps its own configuration
# the files :func:`read` may take the rules from, at the root or in one of TEST_DIRS
CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml",
                "tox.ini", "setup.cfg")


@dataclass(frozen=True, slots=True)
class Collect:
    """The collection rules; ``testpaths`` are repository paths, globs expanded
    (``()``: the whole repository)."""

    testpaths: tuple[str, ...] = ()
    python_files: tuple[str, ...] = ("test_*.py", "*_test.py")
    python_classes: tuple[str, ...] = ("Test",)
    python_functions: tuple[str, ...] = ("test",)
    # the modules pytest loads as plugins for every test (``-p name`` in ``addopts``):
    # their fixtures and hooks serve the whole suite
    plugins: tuple[str, ...] = ()

    def is_test_file(self, path: str) -> bool:
        """Whether pytest collects the file ``path`` (a ``conftest.py`` always counts: it
        holds the fixtures of the tests below it)."""
        if path.rpartition("/")[2] == "conftest.py":
            return True
        if not self.testpaths:
            return matches_file(path, self.python_files)
        if path in self.testpaths:  # a file named in testpaths is collected as it is
            return path.endswith(".py")
        return (any(path.startswith(t + "/") for t in self.testpaths)
                and matches_file(path, self.python_files))

    def collects_class(self, name: str) -> bool:
        return matches_name(name, self.python_classes)

    def collects_function(self, name: str) -> bool:
        return matches_name(name, self.python_functions)

    def key(self) -> str:
        """The rules as one JSON text: stored with the index, compared on refresh."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_key(cls, key: str | None) -> Collect:
        if not key:
            return DEFAULT
        data = json.loads(key)
        return cls(**{k: tuple(v) for k, v in data.items()})


DEFAULT = Collect()


def matches_file(path: str, patterns: Iterable[str]) -> bool:
    """pytest's ``fnmatch_ex``: a pattern without ``/`` against the base name, one with
    ``/`` against the end of the path."""
    name = path.rpartition("/")[2]
    return any(fnmatchcase(name, p) if "/" not in p else fnmatchcase("/" + path, "*/" + p)
               for p in patterns)


def matches_name(name: str, options: Iterable[str]) -> bool:
    """pytest's rule for ``python_classes`` / ``python_functions``: a prefix, or a glob."""
    return any(name.startswith(o) or (bool(_GLOB_CHARS & set(o)) and fnmatchcase(name, o))
               for o in options)


# ------------------------------------------------------------------- reading
def read(root: Path) -> Collect:
    """The collection rules of the repository at ``root``."""
    where = config_dir(root)
    if where is None:
        return DEFAULT
    try:
        values = _first_config(root / where) or {}
    except _UNREADABLE:
        return DEFAULT
    got: dict[str, tuple[str, ...]] = {}
    for name in ("python_files", "python_classes", "python_functions"):
        if name in values:
            got[name] = _words(values[name])
    if "addopts" in values:
        got["plugins"] = _plugin_options(_words(values["addopts"]))
    if "testpaths" in values:
        got["testpaths"] = tuple(f"{where}/{p}" if where else p for p in
                                 _expand(root / where, _words(values["testpaths"])))
    return Collect(**got)


_UNREADABLE = (OSError, UnicodeDecodeError, configparser.Error, tomllib.TOMLDecodeError)


def config_dir(root: Path) -> str | None:
    """The repository directory (``""``: the root) holding the configuration the suite
    runs with: the root's, else a top-level test directory's; ``None``: there is none."""
    for where in ("", *TEST_DIRS):
        try:
            if _first_config(root / where) is not None:
                return where
        except _UNREADABLE:  # pytest reports it; its rules are unknown here
            return None
    return None


def rootdir(root: Path, paths: Iterable[str]) -> str:
    """pytest's rootdir (a repository directory, ``""``: the root) for a run from ``root``
    of the repository paths ``paths`` (files or directories; a test id's file part): the
    first directory holding a configuration file from their common ancestor up to the
    root, else the first ``pyproject.toml``'s, else one holding ``setup.py``, else the
    root (pytest's ``determine_setup``, not looking above the repository)."""
    common = _common_dir([_dir_of(root, p) for p in paths])
    parts = common.split("/") if common else []
    chain = ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]  # up to the root
    pyproject = None
    for base in chain:
        try:
            if _first_config(root / base) is not None:
                return base
        except _UNREADABLE:
            return base  # pytest stops there too (with an error)
        if pyproject is None and (root / base / "pyproject.toml").is_file():
            pyproject = base
    if pyproject is not None:
        return pyproject
    return next((b for b in chain if (root / b / "setup.py").is_file()), "")


def _dir_of(root: Path, path: str) -> str:
    """The directory of a path or test id (itself, for a directory)."""
    p = path.split("::", 1)[0].rstrip("/")
    return p if not p or (root / p).is_dir() else p.rpartition("/")[0]


def _common_dir(dirs: Iterable[str]) -> str:
    out: list[str] = []
    for group in zip(*(d.split("/") if d else [] for d in dirs), strict=False):
        if len(set(group)) != 1:
            break
        out.append(group[0])
    return "/".join(out)


def node_id(test_id: str, base: str) -> str:
    """A repository test id as pytest names it under the rootdir ``base``."""
    if not base:
        return test_id
    path, sep, rest = test_id.partition("::")
    rel = Path(os.path.relpath(path, base)).as_posix()
    return rel + sep + rest


def repo_id(nodeid: str, base: str) -> str:
    """A pytest node id under the rootdir ``base`` as the repository's test id."""
    if not base:
        return nodeid
    path, sep, rest = nodeid.partition("::")
    return os.path.normpath(f"{base}/{path}").replace(os.sep, "/") + sep + rest


def _first_config(root: Path) -> Mapping[str, Any] | None:
    """The pytest options of the first configuration file pytest would use in the
    directory ``root`` (``None``: there is none)."""
    for name in ("pytest.toml", ".pytest.toml"):
        if (root / name).is_file():
            table = tomllib.loads((root / name).read_text(encoding="utf-8")).get("pytest", {})
            return table if isinstance(table, dict) else {}
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return _ini_section(root / name, "pytest") or {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        tool = data.get("tool", {}).get("pytest", {})
        table = tool.get("ini_options") if isinstance(tool, dict) else None
        if isinstance(table, dict):
            return table
        if isinstance(tool, dict) and tool:  # pytest 9's native ``[tool.pytest]``
            return tool
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (root / name).is_file():
            got = _ini_section(root / name, section)
            if got is not None:
                return got
    return None


def _ini_section(path: Path, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    return dict(parser[section]) if parser.has_section(section) else None


def _words(value: Any) -> tuple[str, ...]:
    """An ini value split like pytest's ``args`` options, or a TOML list (or string)."""
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    try:
        return tuple(shlex.split(str(value)))
    except ValueError:  # an unbalanced quote: split on white space
        return tuple(str(value).split())


def _plugin_options(words: Iterable[str]) -> tuple[str, ...]:
    """The plugins ``-p name`` / ``-pname`` options load (``-p no:name`` disables one)."""
    out: list[str] = []
    words = list(words)
    for i, w in enumerate(words):
        name = words[i + 1] if w == "-p" and i + 1 < len(words) else (
            w[2:] if w.startswith("-p") and len(w) > 2 else "")
        if name and not name.startswith("no:") and name not in out:
            out.append(name)
    return tuple(out)


def _expand(root: Path, entries: Iterable[str]) -> tuple[str, ...]:
    """``testpaths`` as repository paths, globs expanded as pytest does; none found:
    pytest collects from the repository root, so ``()``."""
    out: list[str] = []
    for entry in entries:
        for hit in sorted(glob.glob(entry, root_dir=root, recursive=True)):
            rel = Path(hit).as_posix().removeprefix("./").rstrip("/")
            if rel and rel != "." and rel not in out:
                out.append(rel)
    return tuple(out)
