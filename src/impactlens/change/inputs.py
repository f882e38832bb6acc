"""The proposed change: four ways in, one shape out.

``--before/--after`` (one file pair), ``--diff`` (a unified diff applied to the
indexed working tree), ``--rev A..B`` / ``--rev SHA`` (a commit range / a commit
against its first parent) and, by default, the working tree against ``HEAD``
(staged, unstaged and untracked-not-ignored files). Each reader returns a
:class:`ProposedChange`: the before/after text of every touched Python file, the
task text for co-change ranking, and the change date used as the anti-leakage cut.

All git access goes through :mod:`impactlens.index.git`.
"""

from __future__ import annotations

import io
import posixpath
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from impactlens import fileio
from impactlens.change.diff_check import check_complete
from impactlens.errors import BadInputError
from impactlens.index import frontend, git
from impactlens.model import FileChange

__all__ = [
    "ProposedChange",
    "cut_time",
    "decode_source",
    "from_before_after",
    "from_diff",
    "from_rev",
    "from_texts",
    "from_worktree",
    "parse_as_of",
    "read_change",
    "repo_path",
]

INDEX_DIR = ".impactlens"


@dataclass(frozen=True, slots=True)
class ProposedChange:
    """A proposed edit as before/after text of each touched Python file."""

    files: tuple[FileChange, ...]  # sorted by path; Python sources only
    mode: str  # "before-after" | "diff" | "rev" | "worktree"
    label: str  # one line naming the change, for reports
    task: str = ""  # task text for the co-change BM25
    as_of: int = 0  # epoch seconds: only history strictly before this is used
    dated: bool = True  # False: ``as_of`` is just the time of the run (no date was given)
    base: str | None = None  # base commit sha, when there is one
    other_files: tuple[str, ...] = field(default=())  # touched non-Python paths (not analyzed)
    note: str = ""  # one line for the user about how the input was read ("" = nothing to say)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    def with_(self, *, task: str | None = None, as_of: int | None = None) -> ProposedChange:
        return ProposedChange(
            files=self.files,
            mode=self.mode,
            label=self.label,
            task=self.task if task is None else task,
            as_of=self.as_of if as_of is None else as_of,
            dated=self.dated or as_of is not None,
            base=self.base,
            other_files=self.other_files,
            note=self.note,
        )


# ----------------------------------------------------------------- helpers
def is_source(path: str) -> bool:
    """A file some language frontend reads (not inside the index directory)."""
    return frontend.owns(path) and not path.startswith(INDEX_DIR + "/")


def _not_source(rel: str) -> str:
    return f"{rel}: not a Python file (.py) nor another language impactlens reads " \
           f"({', '.join(frontend.suffixes())})"


_PATH_MAX, _NAME_MAX = 4096, 255  # Linux's limits: a longer name names no file


def repo_path(root: Path, raw: str, *, what: str = "path") -> str:
    """Normalize ``raw`` to a repo-relative POSIX path or refuse it (one line)."""
    p = raw.strip().replace("\\", "/")
    if not p:
        raise BadInputError(f"{what}: empty path")
    if "\0" in p:
        raise BadInputError(f"{raw!r}: {what} holds a NUL byte")
    if len(p) > _PATH_MAX or any(len(part) > _NAME_MAX for part in p.split("/")):
        raise BadInputError(f"{raw[:60]}...: {what} is too long for a file name")
    if p.startswith("/") or re.match(r"^[A-Za-z]:/", p):
        p = _relative(root, Path(posixpath.normpath(p)), raw, what)
    norm = posixpath.normpath(p)
    if norm == ".." or norm.startswith("../") or norm == "." or norm.startswith("/"):
        raise BadInputError(f"{raw}: {what} is outside the repository")
    if norm == ".git" or norm.startswith(".git/"):
        raise BadInputError(f"{raw}: {what} points into .git")
    if fileio.outside_root(root, norm):
        raise BadInputError(f"{raw}: {what} resolves outside the repository (through a "
                            "symlink); not followed")
    return norm


def _relative(root: Path, absolute: Path, raw: str, what: str) -> str:
    """``absolute`` relative to ``root``: as written when it starts there (a symlink under
    the root is judged by where it points, later), else once both are resolved (the root
    named through another path)."""
    real_root = root.resolve()
    for candidate in (absolute, absolute.resolve()):
        try:
            return candidate.relative_to(real_root).as_posix()
        except ValueError:
            continue
    raise BadInputError(f"{raw}: {what} is outside the repository {root}") from None


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A version of an edited file whose bytes are not source text: the file is left out
    of the analysis with ``why``, the rest of the edit is analysed."""

    why: str


_BINARY = Unreadable("binary, not source text")
_BINARY_PATCH = Unreadable("a binary patch (no text to read)")
_NOT_UTF8 = Unreadable("not UTF-8 text (and no valid coding declaration)")
_Text = str | Unreadable
_Versions = tuple[_Text | None, _Text | None]


def read_text(data: bytes) -> _Text:
    """Source text of ``data`` as the indexer reads it (:func:`impactlens.fileio.decode_source`:
    a BOM, a PEP 263 coding, else UTF-8), or why it is not text."""
    if b"\x00" in data:
        return _BINARY
    try:
        return fileio.decode_source(data, strict=True)
    except (SyntaxError, UnicodeDecodeError):
        return _NOT_UTF8


def decode_source(path: str, data: bytes) -> str:
    """:func:`read_text` where nothing but text will do (a file the user names alone)."""
    text = read_text(data)
    if isinstance(text, Unreadable):
        raise BadInputError(f"{path}: {text.why}")
    return text


def _read_worktree(root: Path, path: str) -> _Text | None:
    p = root / path
    if not p.is_file():
        return None
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read ({exc.strerror})") from None
    return read_text(data)


def parse_as_of(value: str | int | float | datetime | date | None) -> int | None:
    """``--as-of`` → epoch seconds (``None``/empty: not given); read by :func:`cut_time`."""
    if value is None or value == "":
        return None
    return cut_time(value)


def cut_time(as_of: object = None) -> int:
    """The anti-leakage cut as epoch seconds: ``None`` = now; an int/float epoch; a
    ``datetime``/``date`` (naive = UTC); or text: ``@EPOCH``, a bare 9–11 digit epoch,
    ``YYYY-MM-DD`` or ISO 8601 (naive = UTC). The one reader of ``--as-of``."""
    if as_of is None:
        return int(time.time())
    if isinstance(as_of, bool):
        raise BadInputError(f"--as-of: not a date: {as_of!r}")
    if isinstance(as_of, int | float):
        return int(as_of)
    if isinstance(as_of, datetime):
        dt = as_of if as_of.tzinfo else as_of.replace(tzinfo=UTC)
        return int(dt.timestamp())
    if isinstance(as_of, date):
        return int(datetime(as_of.year, as_of.month, as_of.day, tzinfo=UTC).timestamp())
    text = str(as_of).strip()
    if re.fullmatch(r"@-?\d+|\d{9,11}", text):
        return int(text.lstrip("@"))
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadInputError(
            f"--as-of: cannot read {text!r} as a date (use YYYY-MM-DD, ISO 8601, @EPOCH or "
            "an epoch in seconds)"
        ) from None
    return cut_time(dt)


def _finish(
    changes: Mapping[str, _Versions],
    *,
    mode: str,
    label: str,
    task: str,
    as_of: int,
    base: str | None,
    other: Sequence[str] = (),
    dated: bool = True,
    note: str = "",
) -> ProposedChange:
    files = tuple(_file_change(p, b, a) for p, (b, a) in sorted(changes.items())
                  if b != a or isinstance(b, Unreadable))
    return ProposedChange(
        files=files, mode=mode, label=label, task=task, as_of=as_of, dated=dated, base=base,
        other_files=tuple(sorted(set(other))), note=note,
    )


def _file_change(path: str, before: _Text | None, after: _Text | None) -> FileChange:
    """One file's change; a version that is not text reads as "" and says why."""
    why = next((f"the {side} version is {v.why}" for side, v in (("before", before),
                ("after", after)) if isinstance(v, Unreadable)), "")
    return FileChange(path=path, unreadable=why,
                      before="" if isinstance(before, Unreadable) else before,
                      after="" if isinstance(after, Unreadable) else after)


def _head_or_none(root: Path) -> str | None:
    return git.resolve_commit(root, "HEAD") if git.has_head(root) else None


# ---------------------------------------------------------- before / after
def from_before_after(
    root: Path,
    before_file: str | Path,
    after_file: str | Path,
    *,
    path: str | None = None,
    task: str = "",
    as_of: int | None = None,
    cwd: Path | None = None,
) -> ProposedChange:
    """One file's before and after text, read from two files on disk."""
    cwd = cwd or Path.cwd()
    b_path = (cwd / before_file).resolve()
    a_path = (cwd / after_file).resolve()
    texts: list[str] = []
    for label, p in (("--before", b_path), ("--after", a_path)):
        if not p.is_file():
            raise BadInputError(f"{p}: {label} file not found")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise BadInputError(f"{p}: cannot read {label} file ({exc.strerror})") from None
        texts.append(decode_source(str(p), data))
    rel = (repo_path(root, path, what="--path") if path is not None  # relative or inside
           else _inside(root, a_path, b_path))
    if not is_source(rel):
        raise BadInputError(_not_source(rel))
    return _finish(
        {rel: (texts[0], texts[1])},
        mode="before-after",
        label=f"{rel} ({b_path.name} → {a_path.name})",
        task=task,
        as_of=int(time.time()) if as_of is None else as_of, dated=as_of is not None,
        base=_head_or_none(root) if git.is_repository(root) else None,
    )


def _inside(root: Path, after: Path, before: Path) -> str:
    """The repository path of the after (else the before) file, which must be inside."""
    for p in (after, before):
        if p.is_relative_to(root):
            return p.relative_to(root).as_posix()
    raise BadInputError(f"{after}: not inside the repository {root}; name the file with --path")


def from_texts(
    root: Path,
    path: str,
    before: str | None,
    after: str | None,
    *,
    task: str = "",
    as_of: int | None = None,
) -> ProposedChange:
    """One file's before and after text given directly (``None`` = absent)."""
    rel = repo_path(root, path)
    if not is_source(rel):
        raise BadInputError(_not_source(rel))
    if before is None and after is None:
        raise BadInputError(f"{rel}: neither a before nor an after text")
    return _finish(
        {rel: (before, after)},
        mode="before-after",
        label=rel,
        task=task,
        as_of=int(time.time()) if as_of is None else as_of, dated=as_of is not None,
        base=None,
    )


# -------------------------------------------------------------------- diff
ALREADY_APPLIED = "the diff is already in the working tree; analysing that edit"


class _DoesNotApply(BadInputError):
    """A file of the diff does not match the working tree."""


_HUNK_SEARCH = 2000  # how far (lines) a hunk may drift from its stated position


def _strip_prefix(name: str | None, other: str | None) -> str | None:
    if name is None or name == "/dev/null":
        return None
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    if name.startswith(("a/", "b/")) and (
        other is None or other == "/dev/null" or other.strip('"').startswith(("a/", "b/"))
    ):
        return name[2:]
    return name


def _split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _apply_hunks(path: str, text: str, hunks: Sequence[object]) -> str:
    """Apply unidiff hunks to ``text``, verifying context; refuse what does not match."""
    lines = _split_lines(text)
    out: list[str] = []
    pos = 0  # next unconsumed line of the source
    for hunk in hunks:
        src: list[str] = []
        dst: list[str] = []
        no_newline_src = no_newline_dst = False
        last_type = ""
        for line in hunk:  # type: ignore[attr-defined]
            t = line.line_type
            if t == "\\":
                if last_type == "-":
                    no_newline_src = True
                elif last_type == "+":
                    no_newline_dst = True
                else:
                    no_newline_src = no_newline_dst = True
                continue
            last_type = t
            value = line.value
            if t in (" ", "-"):
                src.append(value)
            if t in (" ", "+"):
                dst.append(value)
        if no_newline_src and src:
            src[-1] = src[-1].rstrip("\n")
        if no_newline_dst and dst:
            dst[-1] = dst[-1].rstrip("\n")
        start = max(hunk.source_start - 1, 0)  # type: ignore[attr-defined]
        if not src:
            start = hunk.source_start  # type: ignore[attr-defined]  # pure insertion after line N
        at = _find(lines, src, start, pos)
        if at is None:
            raise _DoesNotApply(
                f"{path}: the diff does not apply (hunk at line "
                f"{hunk.source_start} does not match the file)"  # type: ignore[attr-defined]
            )
        out.extend(lines[pos:at])
        out.extend(dst)
        pos = at + len(src)
    out.extend(lines[pos:])
    return "".join(out)


def _same(a: str, b: str) -> bool:
    return a.rstrip("\r\n") == b.rstrip("\r\n")


def _find(lines: list[str], src: list[str], start: int, lo: int) -> int | None:
    n = len(src)

    def fits(i: int) -> bool:
        if i < lo or i + n > len(lines):
            return False
        return all(_same(lines[i + k], src[k]) for k in range(n))

    if fits(start):
        return start
    for off in range(1, _HUNK_SEARCH):
        for i in (start - off, start + off):
            if fits(i):
                return i
        if start - off < lo and start + off + n > len(lines):
            break
    return None


@dataclass(frozen=True, slots=True)
class _DiffFile:
    patch: Any  # unidiff PatchedFile
    old: str | None  # repo-relative path before (None: the diff creates the file)
    new: str | None  # repo-relative path after (None: the diff deletes the file)

    @property
    def name(self) -> str:
        return self.new or self.old or ""


def _parse_diff(root: Path, diff_text: str | bytes, source: str) -> tuple[bytes, list[_DiffFile]]:
    """The diff's bytes and its files with repository paths; malformed input is refused."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    if isinstance(diff_text, bytes):
        raw = diff_text
        try:
            diff_text = diff_text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInputError(f"{source}: the diff is not UTF-8 text") from None
    else:
        raw = diff_text.encode("utf-8", "surrogateescape")
    if not diff_text.strip():
        raise BadInputError(f"{source}: the diff is empty")
    check_complete(diff_text, source)
    try:
        patch = PatchSet(io.StringIO(diff_text))
    except UnidiffParseError as exc:
        raise BadInputError(f"{source}: not a unified diff ({exc})") from None
    if len(patch) == 0:
        raise BadInputError(f"{source}: no file changes found in the diff")
    files: list[_DiffFile] = []
    for pf in patch:
        old = _strip_prefix(pf.source_file, pf.target_file)
        new = _strip_prefix(pf.target_file, pf.source_file)
        if pf.source_file == "/dev/null" or (pf.is_added_file and old is None):
            old = None
        if pf.target_file == "/dev/null":
            new = None
        old_rel = repo_path(root, old, what="diff path") if old else None
        new_rel = repo_path(root, new, what="diff path") if new else None
        if old_rel is None and new_rel is None:
            raise BadInputError(f"{source}: a file entry names no path")
        files.append(_DiffFile(pf, old_rel, new_rel))
    return raw, files


def _analyzed(entry: _DiffFile) -> bool:
    """Whether the file is source the analysis reads (else it is only listed); a binary
    change to one is read too, to be left out with why."""
    return is_source(entry.name) or (entry.old is not None and is_source(entry.old))


def _record(changes: dict[str, _Versions], entry: _DiffFile,
            before: _Text | None, after: _Text | None) -> None:
    """``before``/``after`` of ``entry`` into ``changes``; a rename is a deletion and an
    addition."""
    old, new = entry.old, entry.new
    if new is None:
        changes[old or ""] = (before, None)
    elif old and old != new:
        if is_source(old):
            changes[old] = (before, None)
        if is_source(new):
            changes[new] = (None, after)
    else:
        changes[new] = (before, after)


def from_diff(
    root: Path,
    diff_text: str | bytes,
    *,
    source: str = "diff",
    task: str = "",
    as_of: int | None = None,
) -> ProposedChange:
    """A unified diff applied (with context verification) to the working tree, or, when
    the working tree holds it already (``git diff | impactlens analyze --diff -``), that
    working-tree edit."""
    raw, files = _parse_diff(root, diff_text, source)
    in_git = git.is_repository(root)
    when, dated = (int(time.time()), False) if as_of is None else (as_of, True)
    if in_git and _already_applied(root, raw):
        changes, other = _worktree_edit(root, raw, files)
        # the index holds the after-state, as for the working tree: analysed as that mode
        return _finish(changes, mode="worktree",
                       label=f"diff {source} (already in the working tree)",
                       task=task, as_of=when, dated=dated, base=_head_or_none(root),
                       other=other, note=ALREADY_APPLIED)
    try:
        changes, other = _apply_forward(root, files)
    except _DoesNotApply as exc:
        if not in_git:
            raise
        raise BadInputError(f"{exc}, and it is not already in the working tree") from None
    return _finish(changes, mode="diff", label=f"diff {source}", task=task, as_of=when,
                   dated=dated, base=_head_or_none(root) if in_git else None, other=other)


def _already_applied(root: Path, raw: bytes) -> bool:
    """Whether the working tree holds the diff's after-state: git cannot apply it forward
    but can take it back out."""
    return (git.apply_check(root, raw) is not None
            and git.apply_check(root, raw, reverse=True) is None)


def _worktree_edit(root: Path, raw: bytes, files: Sequence[_DiffFile]
                   ) -> tuple[dict[str, _Versions], list[str]]:
    """The diff's files as a working-tree edit: before from the index when the diff
    applies to it (``git diff``), else from ``HEAD`` (``git diff HEAD``); after = disk."""
    at = "" if git.apply_check(root, raw, cached=True) is None or not git.has_head(root) \
        else "HEAD"
    py = [e for e in files if _analyzed(e)]
    blobs = git.blobs(root, [git.spec(at, e.old) for e in py if e.old])
    changes: dict[str, _Versions] = {}
    for e in py:
        blob = blobs.get(git.spec(at, e.old)) if e.old else None
        before = read_text(blob) if blob is not None else None
        _record(changes, e, before, _read_worktree(root, e.new) if e.new else None)
    return changes, [e.name for e in files if not _analyzed(e)]


def _apply_forward(root: Path, files: Sequence[_DiffFile]
                   ) -> tuple[dict[str, _Versions], list[str]]:
    """Each file's before (the working tree) and after (the diff applied to it)."""
    changes: dict[str, _Versions] = {}
    other: list[str] = []
    for e in files:
        pf, old_rel, new_rel, name = e.patch, e.old, e.new, e.name
        if not _analyzed(e):
            if not pf.is_binary_file:  # verify it applies, so a stale diff is refused whole
                _check_applies(root, name, old_rel, new_rel, pf)
            other.append(name)
            continue
        if pf.is_binary_file:  # no text to apply: the file is left out, said why
            before = _read_worktree(root, old_rel) if old_rel else None
            _record(changes, e, before, _BINARY_PATCH if new_rel else None)
            continue
        before = _read_worktree(root, old_rel) if old_rel else None
        if old_rel is not None and before is None and not (
                pf.source_file == "/dev/null" or pf.is_added_file):
            raise _DoesNotApply(f"{old_rel}: the diff does not apply (file not found)")
        if old_rel is None and new_rel is not None and (root / new_rel).exists():
            raise _DoesNotApply(f"{new_rel}: the diff does not apply (file already exists)")
        if isinstance(before, Unreadable):  # a text diff to bytes that are not text
            _record(changes, e, before, before if new_rel else None)
            continue
        if new_rel is None:  # deletion
            if before is None:
                raise _DoesNotApply(f"{old_rel}: the diff does not apply (file not found)")
            if _apply_hunks(old_rel or "", before, list(pf)).strip():
                raise _DoesNotApply(
                    f"{old_rel}: the diff does not apply (deletes a file that has other content)"
                )
            _record(changes, e, before, None)
            continue
        _record(changes, e, before, _apply_hunks(new_rel, before or "", list(pf)))
    return changes, other


def _check_applies(root: Path, name: str, old_rel: str | None, new_rel: str | None,
                   pf: object) -> None:
    if old_rel is None:
        if (root / name).exists():
            raise _DoesNotApply(f"{name}: the diff does not apply (file already exists)")
        return
    p = root / old_rel
    if not p.is_file():
        raise _DoesNotApply(f"{old_rel}: the diff does not apply (file not found)")
    try:
        text = p.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return  # cannot verify a non-text, non-Python file; it is not analyzed anyway
    _apply_hunks(old_rel, text, list(pf))  # type: ignore[call-overload]


# --------------------------------------------------------------------- rev
def from_rev(
    root: Path, rev: str, *, task: str | None = None, as_of: int | None = None
) -> ProposedChange:
    """``A..B`` (B against A) or ``SHA`` (a commit against its first parent)."""
    rev = rev.strip()
    if "..." in rev:
        a_ref, b_ref = rev.split("...", 1)
        b = git.resolve_commit(root, b_ref or "HEAD")
        a_tip = git.resolve_commit(root, a_ref or "HEAD")
        a = git.run(root, "merge-base", a_tip, b).strip()
        commits = git.commits_between(root, a, b)
    elif ".." in rev:
        a_ref, b_ref = rev.split("..", 1)
        a = git.resolve_commit(root, a_ref or "HEAD")
        b = git.resolve_commit(root, b_ref or "HEAD")
        commits = git.commits_between(root, a, b)
    else:
        b = git.resolve_commit(root, rev)
        parent = git.first_parent(root, b)
        a = parent or git.EMPTY_TREE
        commits = [git.commit_info(root, b)]
    entries = git.diff_name_status(root, a, b)
    py = [e for e in entries if is_source(e.path)]
    other = [e.path for e in entries if not is_source(e.path)]
    specs: list[str] = []
    for e in py:
        if e.status != "A":
            specs.append(git.spec(a, e.path))
        if e.status != "D":
            specs.append(git.spec(b, e.path))
    blobs = git.blobs(root, specs)
    changes: dict[str, _Versions] = {}
    for e in py:
        before_b = blobs.get(git.spec(a, e.path)) if e.status != "A" else None
        after_b = blobs.get(git.spec(b, e.path)) if e.status != "D" else None
        changes[e.path] = (
            read_text(before_b) if before_b is not None else None,
            read_text(after_b) if after_b is not None else None,
        )
    if task is None:
        task = "\n\n".join(c.message for c in commits)
    if as_of is None:
        times = [c.author_time for c in commits]
        as_of = min(times) if times else git.commit_info(root, b).author_time
    head_msg = commits[-1].message.splitlines()[0] if commits and commits[-1].message else ""
    label = f"{rev} ({head_msg})" if head_msg else rev
    return _finish(
        changes,
        mode="rev",
        label=label,
        task=task,
        as_of=as_of,
        base=a if a != git.EMPTY_TREE else None,
        other=other,
    )


# ---------------------------------------------------------------- worktree
def from_worktree(
    root: Path, *, task: str = "", as_of: int | None = None
) -> ProposedChange:
    """The working tree (staged + unstaged + untracked-not-ignored) against ``HEAD``."""
    if not git.has_head(root):
        raise BadInputError(f"{root}: the repository has no commits; nothing to compare against")
    head = git.resolve_commit(root, "HEAD")
    entries = git.diff_name_status(root, head)
    paths: dict[str, str] = {e.path: e.status for e in entries}
    for p in git.untracked_files(root):
        paths.setdefault(p, "A")
    py = sorted(p for p in paths if is_source(p) and fileio.valid_name(p))
    other = sorted(fileio.shown_name(p) for p in paths if p not in py
                   and not p.startswith(INDEX_DIR + "/"))
    specs = [git.spec(head, p) for p in py if paths[p] != "A"]
    blobs = git.blobs(root, specs)
    changes: dict[str, _Versions] = {}
    for p in py:
        before_b = blobs.get(git.spec(head, p)) if paths[p] != "A" else None
        before = read_text(before_b) if before_b is not None else None
        after = _read_worktree(root, p)
        changes[p] = (before, after)
    return _finish(
        changes,
        mode="worktree",
        label="working tree vs HEAD",
        task=task,
        as_of=int(time.time()) if as_of is None else as_of, dated=as_of is not None,
        base=head,
        other=other,
    )


def read_change(
    root: Path,
    *,
    before: str | Path | None = None,
    after: str | Path | None = None,
    path: str | None = None,
    diff: str | bytes | None = None,
    diff_source: str = "diff",
    rev: str | None = None,
    task: str | None = None,
    as_of: str | int | None = None,
    cwd: Path | None = None,
) -> ProposedChange:
    """The proposed change, in order of precedence: before/after, diff, rev, working tree."""
    cut = parse_as_of(as_of)
    if before is not None or after is not None:
        if before is None or after is None:
            raise BadInputError("--before and --after go together: give both files")
        return from_before_after(
            root, before, after, path=path, task=task or "", as_of=cut, cwd=cwd
        )
    if path is not None:
        raise BadInputError("--path names the file of a --before/--after pair; give those too")
    if diff is not None:
        return from_diff(root, diff, source=diff_source, task=task or "", as_of=cut)
    if rev is not None:
        return from_rev(root, rev, task=task, as_of=cut)
    return from_worktree(root, task=task or "", as_of=cut)
