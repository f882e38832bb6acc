"""Whether a unified diff was read in full.

The diff parser skips lines it does not recognise, so a malformed hunk header
(``@@ -a,b +c,d @@``) or a file entry whose hunks are missing would be read as "this file
did not change" — a false "safe". Before the parsed diff is used, its lines are walked
once here and any such gap is refused with the line it is on.
"""

from __future__ import annotations

import re

from impactlens.errors import BadInputError

__all__ = ["check_complete"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# what git writes between ``diff --git`` and the first hunk
_GIT_HEADER = ("index ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
               "similarity index ", "dissimilarity index ", "rename from ", "rename to ",
               "copy from ", "copy to ")
# an entry that needs no hunk: a rename, copy or mode change, a binary change, an empty file
_NO_HUNK_NEEDED = ("rename from ", "copy from ", "old mode ", "new file mode ",
                   "deleted file mode ", "Binary files ", "GIT binary patch")


class _Entry:
    """One file entry seen so far: where it starts and what it holds."""

    def __init__(self, lineno: int, name: str) -> None:
        self.lineno = lineno
        self.name = name
        self.hunks = 0
        self.headers: list[str] = []
        self.has_paths = False  # saw ``---``/``+++``: content changes follow

    def check(self, source: str) -> None:
        if self.hunks:
            return
        if self.has_paths or not any(h.startswith(_NO_HUNK_NEEDED) for h in self.headers):
            raise BadInputError(
                f"{source}: line {self.lineno}: the file entry for {self.name} has headers "
                "and no hunk; refusing to read it as unchanged")


def _name(line: str) -> str:
    rest = line.split(" ", 2)[-1] if line.startswith("diff --git ") else line[4:]
    return rest.split("\t", 1)[0].strip() or "?"


def _hunk_body(lines: list[str], i: int, old: int, new: int, source: str) -> int:
    """Index after the hunk body that starts at ``lines[i]``, which must hold ``old``
    source and ``new`` target lines."""
    start = i
    while old > 0 or new > 0:
        if i >= len(lines):
            raise BadInputError(f"{source}: line {start}: the hunk ends early (the diff is "
                                "cut short)")
        line = lines[i]
        tag = line[:1]
        if tag in (" ", "", "\r", "\n") or line in ("\n", "\r\n"):
            old, new = old - 1, new - 1
        elif tag == "-":
            old -= 1
        elif tag == "+":
            new -= 1
        elif tag != "\\":
            raise BadInputError(f"{source}: line {i + 1}: not a hunk line inside a hunk")
        i += 1
    if old < 0 or new < 0:
        raise BadInputError(f"{source}: line {start}: the hunk holds more lines than its "
                            "header says")
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def check_complete(text: str, source: str) -> None:
    """Refuse ``text`` (one line) when part of it is not a readable part of a unified diff:
    a malformed ``@@`` header, a hunk cut short or longer than its header, changed lines
    outside any hunk, or a file entry with headers and no hunk."""
    lines = text.splitlines(keepends=True)
    entry: _Entry | None = None
    after_hunk = False  # the previous line ended a hunk: changed lines here are stray
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r\n")
        if line.startswith("diff --git "):
            if entry:
                entry.check(source)
            entry, after_hunk = _Entry(i + 1, _name(line)), False
            i += 1
            continue
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if entry is None or entry.has_paths:  # a plain diff's entry, or the next one
                if entry:
                    entry.check(source)
                entry = _Entry(i + 1, _name(line))
            entry.has_paths, after_hunk = True, False
            i += 2
            continue
        if line.startswith("@@"):
            m = _HUNK.match(line)
            if m is None:
                raise BadInputError(f"{source}: line {i + 1}: malformed hunk header {line!r}")
            if entry is None or not entry.has_paths:
                raise BadInputError(f"{source}: line {i + 1}: a hunk before any file header")
            old = 1 if m.group(2) is None else int(m.group(2))
            new = 1 if m.group(4) is None else int(m.group(4))
            i = _hunk_body(lines, i + 1, old, new, source)
            entry.hunks += 1
            after_hunk = True
            continue
        if entry is not None and not entry.hunks and not entry.has_paths and (
                line.startswith(_GIT_HEADER) or line.startswith(_NO_HUNK_NEEDED)):
            entry.headers.append(line)
        elif line == "-- " and after_hunk:
            break  # ``git format-patch``'s signature: the rest is its trailer
        elif after_hunk and line[:1] in ("+", "-", " ") and line.strip():
            raise BadInputError(f"{source}: line {i + 1}: a changed line outside any hunk "
                                "(the hunk header's line counts are wrong)")
        elif line.strip():
            after_hunk = False  # other text (a commit message): not part of any hunk
        i += 1
    if entry:
        entry.check(source)
