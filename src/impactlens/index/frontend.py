"""The language-frontend seam: what the indexer, discovery, the overlay and the change
classifier ask of a language, and the registry that picks a file's language by suffix.

A frontend owns a set of file suffixes and answers, per file: whether discovery skips it
(and why), its module name, its facts (a picklable per-file record, parsed in worker
processes), its resolution against the other files' facts (a
:class:`~impactlens.model.FileResolution`, depending only on the facts and what it asked
the lookup), whether it is a test file, the names it defines (for the before-state
overlay) and its atomic changes between two texts. A second language is a package beside
``index/python/`` with one object satisfying :class:`Frontend`, listed in
:func:`frontends`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, TypeVar

from impactlens.model import AtomicChange, FileResolution
from impactlens.settings import Settings

P = TypeVar("P")


def describe_param_changes(before: Mapping[str, P], after: Mapping[str, P],
                           changed: Callable[[str, P, P], list[str]]) -> list[str]:
    """What a signature edit did to its parameters, in the words every language's change
    classifier uses: added and removed names, then ``changed(name, old, new)`` for each kept
    one (its kind, default, annotation), else "params reordered" if only the order moved."""
    parts: list[str] = []
    added = [n for n in after if n not in before]
    removed = [n for n in before if n not in after]
    if added:
        parts.append(f"added param{'s' if len(added) > 1 else ''} {', '.join(added)}")
    if removed:
        parts.append(f"removed param{'s' if len(removed) > 1 else ''} {', '.join(removed)}")
    for name, new in after.items():
        if name in before:
            parts.extend(changed(name, before[name], new))
    if not parts and [n for n in after if n in before] != [n for n in before if n in after]:
        parts.append("params reordered")
    return parts


class ParseFailure(Exception):
    """A file whose text cannot be indexed: ``status`` is the file's status as stored
    (``syntax-error``, ``decode-error``), ``message`` says where and why. ``facts`` is
    what could still be indexed when the parser recovered (``partial``), else ``None``."""

    def __init__(self, status: str, message: str, facts: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.facts = facts

    @property
    def partial(self) -> bool:
        return self.facts is not None


@dataclass(frozen=True, slots=True)
class Skip:
    """Why discovery leaves a file out of the index (minified, generated, …)."""

    why: str


class Frontend(Protocol):
    """One language, as the rest of the index sees it."""

    language: str  # FileRecord.language
    suffixes: tuple[str, ...]  # file name endings this frontend owns
    skip_dirs: frozenset[str]  # directory names whose files of this language are not indexed

    def claims(self, path: str) -> bool:
        """Whether a file with one of the suffixes is the frontend's (a ``.json`` file is
        TypeScript's only when it is a ``tsconfig.json`` or a ``package.json``)."""
        ...

    def skipped(self, path: str, data: bytes) -> Skip | None:
        """Why the file is not indexed although its suffix is owned (``None``: index it)."""
        ...

    def module_names(self, paths: list[str]) -> dict[str, str]:
        """The module name of each of ``paths`` (every file of the language in the index)."""
        ...

    def module_name(self, root: Any, path: str) -> str:
        """The module name of one file, from what is on disk at ``root``."""
        ...

    def is_test_file(self, path: str, collect: Any) -> bool:
        """Whether ``path`` holds tests (``collect``: the pytest collection rules)."""
        ...

    def parse(self, path: str, data: bytes, module: str, is_test: bool) -> Any:
        """The file's facts (with a ``path`` attribute); raises :class:`ParseFailure` when
        it cannot be indexed whole."""
        ...

    def resolve(self, facts: Any, lookup: Any) -> FileResolution:
        """Nodes, edges and unresolved sites of one file, asking ``lookup`` for the rest."""
        ...

    def defined_names(self, text: str | None) -> frozenset[str] | None:
        """Names the text defines (``None``: absent or does not parse)."""
        ...

    def classify(self, before: str | None, after: str | None, path: str, module: str,
                 settings: Settings) -> list[AtomicChange]:
        """Atomic changes between two texts of one file, uncapped, in any order."""
        ...


@cache
def frontends() -> tuple[Frontend, ...]:
    """Every registered frontend (imported on first use: workers fork after this)."""
    from impactlens.index.python.frontend import PYTHON

    found: list[Frontend] = [PYTHON]
    try:
        from impactlens.index.typescript.frontend import TYPESCRIPT
    except ImportError:  # the grammars' wheels are absent: Python only
        return tuple(found)
    found.append(TYPESCRIPT)
    return tuple(found)


@cache
def _by_suffix() -> tuple[tuple[str, Frontend], ...]:
    # longest suffix first, so `.d.ts` could be told apart from `.ts` by a frontend
    pairs = [(s, f) for f in frontends() for s in f.suffixes]
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0])))


def frontend_for(path: str) -> Frontend | None:
    """The frontend owning ``path`` by its suffix; ``None`` for a file no language owns."""
    for suffix, fe in _by_suffix():
        if path.endswith(suffix):
            return fe if fe.claims(path) else None
    return None


def owns(path: str) -> bool:
    """Whether some frontend indexes files like ``path``."""
    return frontend_for(path) is not None


def suffixes() -> tuple[str, ...]:
    """Every suffix some frontend owns, sorted."""
    return tuple(sorted({s for s, _ in _by_suffix()}))


def language_of(path: str) -> str:
    fe = frontend_for(path)
    return fe.language if fe is not None else ""


def by_frontend(paths: Iterable[str]) -> dict[str, list[str]]:
    """Paths grouped by their frontend's language (unowned paths left out), order kept."""
    out: dict[str, list[str]] = {}
    for p in paths:
        fe = frontend_for(p)
        if fe is not None:
            out.setdefault(fe.language, []).append(p)
    return out


def resolve_file(facts: Any, lookup: Any) -> FileResolution:
    """The resolution of one file's facts by the frontend owning its path (``facts.path``:
    every frontend's facts carry the file's path)."""
    fe = frontend_for(facts.path)
    if fe is None:
        return FileResolution(facts.path, (), (), ())
    return fe.resolve(facts, lookup)


def named(language: str) -> Frontend:
    return next(f for f in frontends() if f.language == language)
