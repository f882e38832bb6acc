"""What the repository's pytest configuration collects: ``testpaths``, ``python_files``,
``python_classes`` and ``python_functions``.

Read from the first configuration file at the repository root, in pytest's order:
``pytest.ini`` (or ``.pytest.ini``; even without a ``[pytest]`` section),
``pyproject.toml`` with ``[tool.pytest.ini_options]``, ``tox.ini`` with ``[pytest]``,
``setup.cfg`` with ``[tool:pytest]``. Matching is pytest's: a ``python_files`` pattern
without ``/`` is matched against the file name, one with ``/`` against the path's end;
a class or function name is collected when it starts with a ``python_classes`` /
``python_functions`` entry or matches one that is a glob. Without a configuration file
the rules are pytest's defaults. A file that cannot be read gives the defaults too (pytest
itself reports it).
"""

from __future__ import annotations

import configparser
import glob
import json
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

__all__ = ["CONFIG_FILES", "DEFAULT", "Collect", "matches_file", "matches_name", "read"]

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Collect:
    """The collection rules; ``testpaths`` are repository paths, globs expanded
    (``()``: the whole repository)."""

    testpaths: tuple[str, ...] = ()
    python_files: tuple[str, ...] = ("test_*.py", "*_test.py")
    python_classes: tuple[str, ...] = ("Test",)
    python_functions: tuple[str, ...] = ("test",)

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
# the files at the repository root :func:`read` may take the rules from
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def read(root: Path) -> Collect:
    """The collection rules of the repository at ``root``."""
    try:
        values = _first_config(root)
    except (OSError, UnicodeDecodeError, configparser.Error, tomllib.TOMLDecodeError):
        return DEFAULT
    if values is None:
        return DEFAULT
    got: dict[str, tuple[str, ...]] = {}
    for name in ("python_files", "python_classes", "python_functions"):
        if name in values:
            got[name] = _words(values[name])
    if "testpaths" in values:
        got["testpaths"] = _expand(root, _words(values["testpaths"]))
    return Collect(**got)


def _first_config(root: Path) -> Mapping[str, Any] | None:
    """The pytest options of the first configuration file pytest would use (``None``:
    there is none)."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return _ini_section(root / name, "pytest") or {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        table = data.get("tool", {}).get("pytest", {}).get("ini_options")
        if isinstance(table, dict):
            return table
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
