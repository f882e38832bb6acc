"""The one module that runs ``git`` (a subprocess; no library binding).

Every failure becomes a one-line :class:`BadInputError` / :class:`NotARepositoryError`
naming what was asked for, never a traceback. Output is returned as bytes where it
may hold file content and as text (UTF-8, ``surrogateescape``) otherwise.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from impactlens.errors import BadInputError, NotARepositoryError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # `git hash-object -t tree /dev/null`


class GitError(BadInputError):
    """A git command failed (unknown revision, not a repository, ...)."""


_READ_ONLY = ("-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "--no-optional-locks")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    # reading must not write to .git/: no stat refresh of .git/index (git's "optional
    # locks"), no fsmonitor daemon started or its token stored
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    return env


def run_bytes(
    root: Path | str, *args: str, input: bytes | None = None, ok_codes: tuple[int, ...] = (0,),
    timeout: float | None = None,
) -> bytes:
    """Run ``git ARGS`` in ``root``; return stdout bytes or raise :class:`GitError`."""
    try:
        proc = subprocess.run(
            ["git", *_READ_ONLY, *args],
            cwd=str(root),
            input=input,
            capture_output=True,
            env=_env(),
            check=False,
            timeout=timeout,
        )
    except FileNotFoundError as exc:
        raise GitError("git: executable not found on PATH") from exc
    except NotADirectoryError as exc:
        raise NotARepositoryError(f"{root}: not a directory") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]}: no answer in {timeout:g} s") from exc
    if proc.returncode not in ok_codes:
        raise _failure(root, _command(args), proc.returncode, proc.stderr)
    return proc.stdout


def _failure(root: Path | str, command: str, code: int, stderr: bytes
             ) -> GitError | NotARepositoryError:
    err = stderr.decode("utf-8", "replace").strip().splitlines()
    msg = err[-1] if err else f"exit code {code}"
    if "not a git repository" in msg.lower():
        return NotARepositoryError(f"{root}: not a git repository")
    return GitError(f"git {command}: {msg.removeprefix('fatal: ').removeprefix('error: ')}")


def stream_bytes(root: Path | str, *args: str, input: bytes | None = None,
                 chunk: int = 1 << 20) -> Iterator[bytes]:
    """Run ``git ARGS`` in ``root`` and yield its output in chunks as git writes it (a long
    ``git log`` is parsed while git still diffs); :class:`GitError` at the end if git failed.

    Closing the generator early ends git. ``input`` is written from a thread, so a git that
    writes before it has read all of its input cannot block on a full pipe."""
    with tempfile.TemporaryFile() as err:  # a file: a chatty stderr cannot fill a pipe
        try:
            proc = subprocess.Popen(["git", *_READ_ONLY, *args], cwd=str(root), env=_env(),
                                    stdin=subprocess.PIPE if input is not None else None,
                                    stdout=subprocess.PIPE, stderr=err)
        except FileNotFoundError as exc:
            raise GitError("git: executable not found on PATH") from exc
        except NotADirectoryError as exc:
            raise NotARepositoryError(f"{root}: not a directory") from exc
        writer = threading.Thread(target=_write_all, args=(proc, input), daemon=True)
        writer.start()
        assert proc.stdout is not None
        out = proc.stdout.fileno()
        try:
            while data := os.read(out, chunk):
                yield data
        finally:
            if proc.poll() is None:
                proc.kill()  # the reader stopped early (an error, a closed generator)
            proc.stdout.close()
            code = proc.wait()
            writer.join()
        if code != 0:
            err.seek(0)
            raise _failure(root, _command(args), code, err.read())


def _command(args: tuple[str, ...]) -> str:
    """The git command ``args`` run (what follows the ``-c name=value`` options)."""
    i = 0
    while i < len(args) and args[i] == "-c":
        i += 2
    return args[i] if i < len(args) else "git"


def _write_all(proc: subprocess.Popen[bytes], data: bytes | None) -> None:
    if proc.stdin is None:
        return
    try:
        if data:
            proc.stdin.write(data)
        proc.stdin.close()
    except (BrokenPipeError, OSError):  # git ended (or was ended) before reading it all
        pass


def run(root: Path | str, *args: str, ok_codes: tuple[int, ...] = (0,),
        timeout: float | None = None) -> str:
    """Like :func:`run_bytes`, decoded as text."""
    return run_bytes(root, *args, ok_codes=ok_codes, timeout=timeout).decode(
        "utf-8", "surrogateescape")


def toplevel(path: Path | str) -> Path:
    """The work-tree root containing ``path``."""
    return Path(run(path, "rev-parse", "--show-toplevel").strip()).resolve()


def root_of(path: Path) -> Path:
    """The work-tree root containing ``path``; ``path`` itself outside git (or without git)."""
    try:
        return toplevel(path)
    except (GitError, NotARepositoryError):
        return path


def work_tree_head(path: Path | str) -> tuple[Path | None, str | None]:
    """(work-tree root, HEAD commit) of the git work tree holding ``path``, in one git call;
    ``(None, None)`` outside git (or without git), a ``None`` head before the first commit."""
    try:
        out = run(path, "rev-parse", "--show-toplevel", "HEAD", ok_codes=(0, 128), timeout=30)
    except (GitError, NotARepositoryError):
        return None, None
    lines = out.splitlines()
    if not lines or not lines[0].strip() or lines[0].startswith("fatal:"):
        return None, None
    head = lines[1].strip() if len(lines) > 1 and len(lines[1].strip()) >= 40 else None
    return Path(lines[0].strip()).resolve(), head


def listed_files(root: Path | str, suffix: str | tuple[str, ...]) -> list[str] | None:
    """Files ending in ``suffix`` (or one of several) that git tracks or would track
    (untracked, not ignored), sorted; ``None`` when git cannot say."""
    endings = (suffix,) if isinstance(suffix, str) else suffix
    try:
        out = run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                  "--", *(f"*{s}" for s in endings), timeout=120)
    except (GitError, NotARepositoryError):
        return None
    return sorted({n for n in out.split("\0") if n})


_LINK_MODE = "120000 "  # a symlink's mode in `git ls-files -s`


def listed_symlinks(root: Path | str) -> list[str] | None:
    """The symlinks git tracks, and the untracked entries (not ignored) that may be ones
    (the caller checks the disk), sorted; ``None`` when git cannot say. An untracked
    directory is listed once (``--directory``) and left out."""
    try:
        out = run(root, "ls-files", "-z", "-s", "--cached", "--others", "--exclude-standard",
                  "--directory", timeout=120)
    except (GitError, NotARepositoryError):
        return None
    found = set()
    for entry in out.split("\0"):
        mode_etc, tab, path = entry.partition("\t")
        if tab and mode_etc.startswith(_LINK_MODE):
            found.add(path)
        elif not tab and entry and not entry.endswith("/"):
            found.add(entry)  # untracked: no mode shown
    return sorted(found)


def grep_words(root: Path | str, commit: str, patterns: list[str], pathspec: str
               ) -> list[tuple[str, str]]:
    """(file, matched text) of every whole-word occurrence of the fixed strings ``patterns``
    in the files of ``commit`` matching ``pathspec``; one pair per occurrence."""
    if not patterns:
        return []
    out = run(root, "grep", "-o", "-w", "-F", "-I", "-z", "--no-color",
              *(a for p in patterns for a in ("-e", p)), commit, "--", pathspec,
              ok_codes=(0, 1))
    found = []
    for line in out.splitlines():
        where, _, match = line.partition("\0")
        found.append((where[len(commit) + 1:], match))
    return found


def is_repository(path: Path | str) -> bool:
    try:
        run(path, "rev-parse", "--git-dir")
    except (GitError, NotARepositoryError):
        return False
    return True


def has_head(root: Path | str) -> bool:
    try:
        run(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    except GitError:
        return False
    return True


def resolve_commit(root: Path | str, rev: str) -> str:
    """Full sha of ``rev`` (a commit-ish) or a one-line error naming it."""
    if not rev or rev.startswith("-"):
        raise GitError(f"unknown revision {rev!r}")
    out = run(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", ok_codes=(0, 1))
    sha = out.strip()
    if not sha:
        raise GitError(f"unknown revision {rev!r}")
    return sha


def first_parent(root: Path | str, sha: str) -> str | None:
    """The first parent of commit ``sha`` (``None`` for a root commit)."""
    out = run(root, "rev-list", "--parents", "-n", "1", sha).split()
    return out[1] if len(out) > 1 else None


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    author_time: int  # epoch seconds
    message: str


def commit_info(root: Path | str, sha: str) -> CommitInfo:
    out = run(root, "show", "-s", "--format=%H%x00%at%x00%B", sha)
    h, at, msg = out.split("\x00", 2)
    return CommitInfo(sha=h.strip(), author_time=int(at.strip() or 0), message=msg.strip())


def commits_between(root: Path | str, base: str, head: str) -> list[CommitInfo]:
    """Commits reachable from ``head`` but not ``base``, oldest first."""
    out = run(root, "log", "--reverse", "--format=%H%x00%at%x00%B%x1e", f"{base}..{head}")
    result = []
    for rec in out.split("\x1e"):
        rec = rec.strip("\n")
        if not rec.strip():
            continue
        h, at, msg = rec.split("\x00", 2)
        result.append(CommitInfo(sha=h.strip(), author_time=int(at.strip() or 0),
                                 message=msg.strip()))
    return result


@dataclass(frozen=True, slots=True)
class NameStatus:
    status: str  # one letter: A, M, D, R (rename), C (copy), T (type change)
    path: str  # the new path (or the deleted path)
    old_path: str | None = None  # for R/C


def _parse_name_status(raw: str) -> list[NameStatus]:
    parts = raw.split("\x00")
    out: list[NameStatus] = []
    i = 0
    while i < len(parts) and parts[i]:
        code = parts[i]
        letter = code[:1]
        if letter in ("R", "C"):
            old, new = parts[i + 1], parts[i + 2]
            out.append(NameStatus(letter, new, old))
            i += 3
        else:
            out.append(NameStatus(letter, parts[i + 1]))
            i += 2
    return out


def diff_name_status(root: Path | str, base: str, head: str | None = None) -> list[NameStatus]:
    """Files changed from ``base`` to ``head`` (``None`` = the working tree, staged+unstaged)."""
    if head is None:
        return _worktree_name_status(root, base)
    args = ["diff", "--no-ext-diff", "--no-renames", "--relative", "--name-status", "-z", base,
            head]
    return _parse_name_status(run(root, *args, "--"))


_NO_SHA = "0" * 40


def _worktree_name_status(root: Path | str, base: str) -> list[NameStatus]:
    """The working tree's changes from ``base``, read without writing ``.git/index``:
    ``git diff BASE`` refreshes the index's stat data on disk even without optional locks,
    so the plumbing ``diff-index`` is used, and a file it reports only because its stat
    changed (no content sha given) is hashed and dropped when its content is ``base``'s."""
    raw = run(root, "diff-index", "--no-renames", "--relative", "-z", base, "--")
    parts = raw.split("\x00")
    entries: list[tuple[str, str, str, str]] = []  # (letter, path, base sha, new sha)
    for i in range(0, len(parts) - 1, 2):
        meta = parts[i].split()
        if len(meta) >= 5:
            entries.append((meta[4][:1], parts[i + 1], meta[2], meta[3]))
    # (a name holding a newline cannot be passed on a line: it stays reported as changed)
    unknown = [p for letter, p, _, new in entries
               if letter == "M" and new == _NO_SHA and "\n" not in p]
    shas = dict(zip(unknown, hash_files(root, unknown), strict=True))
    return [NameStatus(letter, p) for letter, p, old, _ in entries
            if p not in shas or shas[p] != old]


def hash_files(root: Path | str, paths: list[str]) -> list[str]:
    """The blob shas of the working-tree files ``paths`` (as git would store them; nothing
    is written)."""
    if not paths:
        return []
    payload = ("\n".join(paths) + "\n").encode("utf-8", "surrogateescape")
    out = run_bytes(root, "hash-object", "--stdin-paths", input=payload)
    return out.decode("ascii").split()


def untracked_files(root: Path | str) -> list[str]:
    """Untracked, not-ignored files, repo-relative."""
    out = run(root, "ls-files", "--others", "--exclude-standard", "-z")
    return sorted(p for p in out.split("\x00") if p)


def show_blob(root: Path | str, rev: str, path: str) -> bytes | None:
    """Content of ``path`` at ``rev`` (``None`` when the path does not exist there)."""
    try:
        return run_bytes(root, "cat-file", "blob", spec(rev, path))
    except GitError:
        return None


def spec(rev: str, path: str) -> str:
    """A ``rev:path`` object name with ``path`` relative to the work directory."""
    return f"{rev}:./{path}"


def blobs(root: Path | str, specs: list[str]) -> dict[str, bytes | None]:
    """Batch read of ``rev:path`` specs in one ``git cat-file --batch`` process."""
    if not specs:
        return {}
    payload = ("\n".join(specs) + "\n").encode("utf-8", "surrogateescape")
    try:
        out = run_bytes(root, "cat-file", "--batch", input=payload)
    except GitError as exc:
        if "promisor remote" not in str(exc):
            raise
        raise GitError(f"{exc} (this partial clone lacks a file's content at that revision "
                       "and its remote cannot give it now; run again when the remote is "
                       "reachable)") from None
    result: dict[str, bytes | None] = {}
    pos = 0
    for spec in specs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].decode("utf-8", "surrogateescape")
        pos = nl + 1
        if header.endswith(" missing") or header.endswith(" ambiguous"):
            result[spec] = None
            continue
        fields = header.split()
        size = int(fields[2])
        kind = fields[1]
        body = out[pos : pos + size]
        pos += size + 1  # trailing newline after the object
        result[spec] = body if kind == "blob" else None
    return result


def apply_check(root: Path | str, patch: bytes, *, reverse: bool = False,
                cached: bool = False) -> str | None:
    """``None`` if ``patch`` applies to the working tree (``cached``: the index) cleanly,
    else git's one-line reason; ``reverse``: whether it un-applies cleanly."""
    flags = [*(["--reverse"] if reverse else []), *(["--cached"] if cached else [])]
    try:
        run_bytes(root, "apply", "--check", "--recount", *flags, "-", input=patch)
    except GitError as exc:
        return str(exc).removeprefix("git apply: ")
    return None


def apply(root: Path | str, patch: bytes) -> None:
    """Apply ``patch`` to the working tree (used by the demo and the bench)."""
    run_bytes(root, "apply", "--whitespace=nowarn", "-", input=patch)


def init_and_commit(root: Path | str, message: str, date: str | None = None) -> str:
    """``git init`` + commit everything in ``root`` with a fixed local identity; return sha."""
    run(root, "init", "-q")
    ident = [
        "-c", "user.name=impactlens", "-c", "user.email=impactlens@example.invalid",
        "-c", "commit.gpgsign=false",
    ]
    commit_all(root, message, date=date, ident=ident)
    return run(root, "rev-parse", "HEAD").strip()


def commit_all(
    root: Path | str, message: str, *, date: str | None = None, ident: list[str] | None = None
) -> str:
    """Stage everything and commit (``date`` in any git date format); return the new sha."""
    ident = ident or [
        "-c", "user.name=impactlens", "-c", "user.email=impactlens@example.invalid",
        "-c", "commit.gpgsign=false",
    ]
    run(root, "add", "-A")
    args = [*ident, "commit", "-q", "--allow-empty", "--no-verify", "-m", message]
    if date is None:
        run(root, *args)
    else:
        _run_with_dates(root, args, date)
    return run(root, "rev-parse", "HEAD").strip()


def _run_with_dates(root: Path | str, args: list[str], date: str) -> None:
    env = _env()
    env["GIT_AUTHOR_DATE"] = date
    env["GIT_COMMITTER_DATE"] = date
    proc = subprocess.run(
        ["git", *args], cwd=str(root), capture_output=True, env=env, check=False
    )
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git commit: {msg[-1] if msg else proc.returncode}")
