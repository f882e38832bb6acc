"""The records of mined history and the streaming parser of the ``git log`` that mines them.

``git log -z --format=%x1e%H%x00%at%x00%P%x00%B%x00`` with ``--name-status`` (or
``--numstat``) writes, per commit: ``\\x1e`` and the sha, the author time, the parents and
the message, each ended by a NUL; then each changed file, every field ended by a NUL —
``M\\0path\\0``, ``R097\\0old\\0new\\0`` (``--name-status``) or ``3\\t1\\tpath\\0``,
``-\\t-\\tpath\\0`` (binary), ``3\\t1\\t\\0old\\0new\\0`` (a rename, ``--numstat``).

:class:`LogParser` reads that output in chunks as git writes it and hands back each commit
once the next one starts, so mining never holds the whole log. The fields are taken by
position, never by looking for the separator: a message may hold ``\\x1e`` and a path may
hold anything but NUL (``-z`` writes paths as they are, not quoted). Paths and messages
are decoded as UTF-8, an undecodable byte replaced (a path that is not UTF-8 then names no
indexed file: the indexer skips such files too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["UNREAD_CONTENTS", "UNREAD_DEFINITIONS", "CommitRecord", "FileTouch", "LogParser",
           "parse_log"]

_SHA = re.compile(rb"^[0-9a-f]{40}([0-9a-f]{24})?$")
_STATUS = re.compile(rb"^[ACDMRTUXB][0-9]*$")
_NUMSTAT = re.compile(rb"^([0-9]+|-)\t([0-9]+|-)\t")


@dataclass(frozen=True, slots=True)
class FileTouch:
    """One file changed by one commit (paths are repo-relative POSIX, as git names them)."""

    path: str
    old_path: str | None  # the pre-rename path when git detected a rename
    added: int  # -1 for a binary file, or when line counts were not mined
    deleted: int  # likewise
    # names of the functions/classes the commit's hunks touched in this file (innermost
    # definition of each changed line; module-level code names none), sorted
    symbols: tuple[str, ...] = ()
    # definitions the commit renamed in this file: (old name, new name)
    renamed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CommitRecord:
    sha: str
    author_time: int  # epoch seconds (UTC)
    message: str
    n_files: int  # files the commit touched (the sweeping-commit test uses this)
    files: tuple[FileTouch, ...]
    # parent commits; 0 = a root commit (an initial import: its "diff" lists every file as
    # added, so it is kept out of co-change pairs) or a shallow clone's boundary
    parents: int = 1
    # what the clone lacked when the commit was mined: "" nothing; UNREAD_CONTENTS (mined by
    # changed path only: no renames, no changed definitions); UNREAD_DEFINITIONS (renames
    # read, but not the definitions the hunks touched)
    unread: str = ""


UNREAD_CONTENTS = "contents"
UNREAD_DEFINITIONS = "definitions"


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


class LogParser:
    """Feed ``git log`` output in chunks (:meth:`feed`); take each commit as it completes.

    A commit is complete when the next one's header starts, or at :meth:`close` (the end of
    the output). A log cut off by a failing git leaves its last commit unfinished: the
    caller does not :meth:`close` and mines that commit again."""

    def __init__(self) -> None:
        self._rest = b""  # an unfinished field at the end of the last chunk
        self._header: list[bytes] = []  # the fields read of a header being read (sha first)
        self._commit: tuple[list[bytes], list[FileTouch]] | None = None  # header read
        self._paths: list[bytes] = []  # the paths read of the file being read
        self._owed = 0  # how many more path fields that file has
        self._counts: tuple[int, int] | None = None

    def feed(self, chunk: bytes) -> list[CommitRecord]:
        fields = (self._rest + chunk).split(b"\0")
        self._rest = fields.pop()
        out: list[CommitRecord] = []
        for field in fields:
            self._field(field, out)
        return out

    def close(self) -> list[CommitRecord]:
        out: list[CommitRecord] = []
        if self._rest:
            self._field(self._rest, out)
            self._rest = b""
        if self._commit is not None and not self._header:
            out.append(self._record())
            self._commit = None
        return out

    # ------------------------------------------------------------------ fields
    def _field(self, field: bytes, out: list[CommitRecord]) -> None:
        if self._header:  # reading a header: time, parents, message follow the sha
            self._header.append(field)
            if len(self._header) == 4:
                self._commit, self._header = (self._header, []), []
            return
        if self._owed:
            self._paths.append(field)
            self._owed -= 1
            if not self._owed:
                self._file()
            return
        field = field.lstrip(b"\n")
        if field.startswith(b"\x1e") and _SHA.match(field[1:]):
            if self._commit is not None:
                out.append(self._record())
                self._commit = None
            self._header = [field[1:]]
        elif self._commit is None or not field:
            return  # before the first header, or the empty field after a message
        elif _STATUS.match(field):
            self._expect(2 if field[:1] in (b"R", b"C") else 1, None)
        elif m := _NUMSTAT.match(field):
            counts = (-1 if m.group(1) == b"-" else int(m.group(1)),
                      -1 if m.group(2) == b"-" else int(m.group(2)))
            path = field[m.end():]
            if path:
                self._expect(0, counts)
                self._paths.append(path)
                self._file()
            else:  # a rename: the old and the new path follow
                self._expect(2, counts)

    def _expect(self, paths: int, counts: tuple[int, int] | None) -> None:
        self._paths, self._owed, self._counts = [], paths, counts

    def _file(self) -> None:
        assert self._commit is not None
        added, deleted = self._counts or (-1, -1)
        if len(self._paths) == 2:
            old, new = self._paths
            touch = FileTouch(_text(new), _text(old) if old != new else None, added, deleted)
        else:
            touch = FileTouch(_text(self._paths[0]), None, added, deleted)
        self._commit[1].append(touch)
        self._paths, self._owed = [], 0

    def _record(self) -> CommitRecord:
        assert self._commit is not None
        (sha, at, parents, message), files = self._commit
        files.sort(key=lambda f: (f.path, f.old_path or ""))
        return CommitRecord(sha=sha.decode("ascii"), author_time=int(at or b"0"),
                            message=_text(message).strip(), n_files=len(files),
                            files=tuple(files), parents=len(parents.split()))


def parse_log(chunks: Iterable[bytes]) -> Iterator[CommitRecord]:
    """Every commit of a whole ``git log`` output given in chunks, in the log's order."""
    parser = LogParser()
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.close()
