"""Evaluation cases mined from a repository's git history: the commit filters, each case's
gold (what else the commit changed) and its seed (one changed function, spliced into the
parent), and the temporary work tree a case runs in."""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.bench.history.semantic import definitions, semantic, splice
from impactlens.bench.history.sources import (
    Universe,
    is_ts_source,
    main_languages,
    test_support_dirs,
)
from impactlens.index import git as gitcmd
from impactlens.index.history import CommitRecord, FileTouch, mine_commits
from impactlens.settings import DEFAULT, Settings

# subject lines of mechanical commits (formatting, linting, typing, releases): never cases
MECHANICAL = re.compile(
    r"\b(black|isort|pyupgrade|flake8|ruff|pre-commit|pre-commit-ci|reformat\w*|format(ting)?"
    r"|typos?|lint\w*|bump\w*|release v?\d|version v?\d|copyright|license header|modernize"
    r"|drop (support for )?python|type (hints|annotations)|typing)\b"
    r"|^\W*v?\d+(\.\d+)+\b",  # a release titled by its version: "v2.30.0", "2.30.0 (2024-01-02)"
    re.IGNORECASE,
)
# and those of TypeScript/JavaScript projects: formatters, linters, dependency updates
MECHANICAL_TS = re.compile(
    r"\b(prettier|eslint|tslint|biome|dprint|standard ?js|xo|deps?|dependencies"
    r"|chore\((deps|release)\))\b|^\W*(chore\W+)?release\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Seed:
    file: str  # path at the parent
    qualname: str
    seeded: str  # parent text with the seed function replaced by its new version

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{self.file}::{self.qualname}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Case:
    sha: str
    parent: str
    author_time: int
    message: str
    source_files: tuple[str, ...]  # semantically changed, named at the parent
    added_files: tuple[str, ...]  # semantically new files (not predictable)
    changed_defs: dict[str, tuple[str, ...]]  # parent path -> modified/deleted qualnames
    before: dict[str, str]  # parent path -> parent text
    seeds: tuple[Seed, ...]
    # the files every method's list is restricted to
    universe: Universe = field(default_factory=Universe)


def support_dirs(repo: Path, rev: str = "HEAD") -> frozenset[str]:
    """The repository's test-support directories at ``rev`` (``dummyserver/``: see
    :func:`impactlens.bench.history.sources.test_support_dirs`)."""
    paths = [p for p in gitcmd.run(repo, "ls-tree", "-r", "--name-only", rev).splitlines()
             if p.endswith(".py")]
    blobs = gitcmd.blobs(repo, [gitcmd.spec(rev, p) for p in paths])
    texts = {p: b.decode("utf-8", "replace") for p in paths
             if (b := blobs.get(gitcmd.spec(rev, p))) is not None}
    return test_support_dirs(texts)


def _stem(name: str) -> str:
    """A file name without its code suffix (``foo.ts`` and ``foo.js`` are one stem)."""
    for suffix in (".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def mirrored_prefixes(file_lists: Iterable[Sequence[str]], min_commits: int = 3,
                      min_files: int = 3) -> frozenset[str]:
    """Directories holding a committed copy of ``src/`` — a compiled ``lib/``, zod's
    ``deno/lib/`` — told from the history alone: the same file (by its path below the
    two directories, extension aside) changed together under a prefix outside ``src/``
    and one inside it, in at least ``min_commits`` commits and for ``min_files`` files.
    Two directories both inside ``src/`` (``src/v3/``, ``src/v4/``) are never copies."""
    commits: dict[str, set[int]] = {}
    tails: dict[str, set[str]] = {}
    for i, files in enumerate(file_lists):
        by_stem: dict[str, list[list[str]]] = {}
        for f in files:
            if is_ts_source(f):
                parts = f.split("/")
                by_stem.setdefault(_stem(parts[-1]), []).append(parts[:-1])
        for name, dirs in by_stem.items():
            for a in dirs:
                for b in dirs:
                    copy = _copy_prefix(a, b)
                    if copy:
                        commits.setdefault(copy, set()).add(i)
                        tails.setdefault(copy, set()).add(name)
    return frozenset(p for p, cs in commits.items()
                     if len(cs) >= min_commits and len(tails[p]) >= min_files)


def _copy_prefix(a: list[str], b: list[str]) -> str:
    """``a``'s prefix when directory ``a`` mirrors ``b`` below a ``src/`` of ``b``'s ("")."""
    n = 0
    while n < min(len(a), len(b)) and a[len(a) - 1 - n] == b[len(b) - 1 - n]:
        n += 1
    pa, pb = a[: len(a) - n], b[: len(b) - n]
    if not pa or "src" in pa or "src" not in pb:
        return ""
    return "/".join(pa) + "/"


def repository_universe(repo: Path, commits: Iterable[CommitRecord] = (),
                        rev: str = "HEAD") -> Universe:
    """Which files the repository's cases count: its main language at ``rev``, its
    test-support directories (Python) and its committed copies of ``src/`` (read off
    ``commits``: TypeScript/JavaScript)."""
    paths = gitcmd.run(repo, "ls-tree", "-r", "--name-only", rev).splitlines()
    languages = main_languages(paths)
    if "typescript" in languages:
        built = mirrored_prefixes([f.path for f in c.files] for c in commits)
        return Universe(languages, built=built)
    return Universe(languages, support=support_dirs(repo, rev))


def candidate_commits(repo: Path, settings: Settings, cap: int,
                      dropped: list[CommitRecord] | None = None,
                      support: frozenset[str] = frozenset(),
                      universe: Universe | None = None,
                      commits: Sequence[CommitRecord] | None = None) -> list[CommitRecord]:
    """Non-merge commits with a parent passing the path/size/message filters, newest first.
    ``dropped`` collects those with 2..``cap`` source files that only the message filter
    dropped (it is broad on purpose: a tangled mechanical commit costs more than a lost
    real one; their count bounds what it cost). The files that count are ``universe``'s
    (default: Python library files outside the test-support directories ``support``);
    ``commits``: the non-merge commits, already mined."""
    universe = universe or Universe(support=support)
    mechanical = [MECHANICAL, *([MECHANICAL_TS] if "typescript" in universe.languages else [])]
    out = []
    for c in commits if commits is not None else _non_merge_commits(repo):
        if c.n_files == 0 or c.n_files > settings.history_max_files_per_commit:
            continue
        if not 2 <= sum(1 for f in c.files if universe.counts(f.path)) <= cap:
            continue
        subject = c.message.splitlines()[0] if c.message else ""
        if any(m.search(subject) for m in mechanical):
            if dropped is not None:
                dropped.append(c)
            continue
        out.append(c)
    out.sort(key=lambda c: (-c.author_time, c.sha))
    return out


def _non_merge_commits(repo: Path) -> list[CommitRecord]:
    """Every non-merge commit's files (renames found), without the definitions their hunks
    touched: the filters read paths and messages only (each case's parent mines its own
    history when it is indexed)."""
    shas = gitcmd.run(repo, "rev-list", "--no-merges", "HEAD").split()
    return mine_commits(repo, shas, symbols_up_to=None)


@dataclass
class _Sides:
    """A commit's semantically changed source files, both sides, named at the parent."""

    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # new files: not predictable
    defs_changed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)  # not for deleted files


def _read_sides(repo: Path, c: CommitRecord, parent: str,
                src: list[FileTouch]) -> _Sides | None:
    """Both sides of each source file, with the semantic filter applied; ``None`` when a
    side does not parse (the case is skipped)."""
    specs = []
    for f in src:
        specs += [f"{parent}:{f.old_path or f.path}", f"{c.sha}:{f.path}"]
    blobs = gitcmd.blobs(repo, specs)
    sides = _Sides()
    for f in sorted(src, key=lambda f: f.old_path or f.path):
        old = f.old_path or f.path
        b, a = blobs.get(f"{parent}:{old}"), blobs.get(f"{c.sha}:{f.path}")
        try:
            bt = b.decode("utf-8") if b is not None else None
            at = a.decode("utf-8") if a is not None else None
            if bt is not None and at is not None and \
                    semantic(bt, old) == semantic(at, f.path):
                continue  # formatting / comment / docstring / rename-only
            if bt is None:
                if at is not None:
                    semantic(at, f.path)
                    sides.added.append(f.path)
                continue
            if at is None:  # deleted file: gold (its users had to change)
                sides.changed.append(old)
                sides.before[old] = bt
                sides.defs_changed[old] = tuple(sorted(definitions(bt, old)))
                continue
            bd, ad = definitions(bt, old), definitions(at, f.path)
        except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            return None
        sides.changed.append(old)
        sides.before[old] = bt
        sides.after[old] = at
        sides.defs_changed[old] = tuple(sorted(
            q for q, d in bd.items() if q not in ad or ad[q].dump != d.dump
        ))
    return sides


def _seeds(sides: _Sides, seed_mode: str) -> list[Seed]:
    """The changed functions that exist on both sides, each spliced into the parent's file
    (``first``: the first by file path then line; ``all``: each)."""
    seeds: list[Seed] = []
    for path in sides.changed:
        if path not in sides.after or path.endswith(".d.ts"):  # declarations run nothing
            continue
        before, after = sides.before[path], sides.after[path]
        bd, ad = definitions(before, path), definitions(after, path)
        for q in sorted(sides.defs_changed[path], key=lambda q: (bd[q].start, q)):
            if bd[q].kind != "function" or q not in ad:
                continue
            seeded = splice(before, after, bd[q], ad[q])
            try:
                if semantic(seeded, path) == semantic(before, path):
                    continue
            except SyntaxError:
                continue
            seeds.append(Seed(path, q, seeded))
            if seed_mode == "first":
                return seeds
    return seeds


def build_case(repo: Path, c: CommitRecord, cap: int, seed_mode: str,
               support: frozenset[str] = frozenset(),
               universe: Universe | None = None) -> Case | None:
    """Read both sides, apply the semantic filter, pick the seed(s); ``None`` = skipped.
    Only ``universe``'s files are seeds or gold (default: Python library files, not
    vendored, outside the test-support directories ``support``)."""
    universe = universe or Universe(support=support)
    parent = gitcmd.first_parent(repo, c.sha)
    if parent is None:
        return None
    sides = _read_sides(repo, c, parent, [f for f in c.files if universe.counts(f.path)])
    if sides is None:
        return None
    n = len(sides.changed) + len(sides.added)
    if n < 2 or n > cap or len(sides.changed) < 2:
        return None
    seeds = _seeds(sides, seed_mode)
    if not seeds:
        return None
    return Case(
        sha=c.sha, parent=parent, author_time=c.author_time, message=c.message,
        source_files=tuple(sides.changed), added_files=tuple(sides.added),
        changed_defs=sides.defs_changed, before=sides.before, seeds=tuple(seeds),
        universe=universe,
    )


def mine_cases(repo: Path, *, limit: int, cap: int = 8, seed_mode: str = "first",
               settings: Settings = DEFAULT) -> tuple[list[Case], dict[str, Any]]:
    dropped: list[CommitRecord] = []
    commits = _non_merge_commits(repo)
    universe = repository_universe(repo, commits)
    cands = candidate_commits(repo, settings, cap, dropped, universe=universe, commits=commits)
    cases: list[Case] = []
    skipped = 0
    oldest: int | None = None  # the oldest candidate examined, when the limit stopped it
    for c in cands:
        if len(cases) >= limit:
            oldest = c.author_time
            break
        case = build_case(repo, c, cap, seed_mode, universe=universe)
        if case is None:
            skipped += 1
            continue
        cases.append(case)
    # counted over the same newest commits the cases came from
    by_message = sum(1 for d in dropped if oldest is None or d.author_time > oldest)
    return cases, {"candidates": len(cands), "skipped_semantic": skipped,
                   "skipped_message": by_message, "test_support": len(universe.support),
                   "languages": sorted(universe.languages), "built": sorted(universe.built)}


@contextlib.contextmanager
def worktree(repo: Path, sha: str) -> Iterator[Path]:
    """A temporary detached `git worktree` of ``sha``, removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="impactlens-hist-"))
    wt = tmp / "wt"
    gitcmd.run(repo, "worktree", "add", "-q", "--detach", str(wt), sha)
    try:
        yield wt
    finally:
        with contextlib.suppress(Exception):
            gitcmd.run(repo, "worktree", "remove", "--force", str(wt))
        shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(Exception):
            gitcmd.run(repo, "worktree", "prune")
