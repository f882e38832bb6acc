"""Reading and writing project files: writes other tools may read while we write (all
or nothing), code texts read as the analysis expects them, and parsing that never raises."""

from __future__ import annotations

import ast
import io
import os
import tokenize
from pathlib import Path


def current_umask() -> int:
    """The process umask, read without changing it where the system says it (Linux), else
    set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` newlines) to ``path`` via a temp file and a rename.

    The file gets the mode a plain ``open`` would give it (0644 under the usual umask 022),
    not the temp file's private 0600: outputs are read by other users and tools too.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # (and shutil, random): not loaded by a command that writes nothing

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def decode_source(data: bytes, *, strict: bool = False) -> str:
    """Python source bytes as text, the way the interpreter reads them (PEP 263): a UTF-8
    BOM or a coding cookie names the encoding, else UTF-8; the BOM is dropped.

    Every reader of source text (the indexer, the change inputs, the slicer, the API) goes
    through here, so they all read the same text. Bytes the encoding cannot decode are kept
    as surrogate escapes, so the text encodes back to the same bytes (``"surrogateescape"``)
    and a later ``ast.parse`` reports it unparsable; ``strict`` raises instead
    (``UnicodeDecodeError``, or ``SyntaxError`` for a cookie naming no known encoding).
    """
    if data.isascii():
        return data.decode("ascii")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown or conflicting coding cookie
        if strict:
            raise
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        if strict:
            raise
    return data.decode(encoding, "surrogateescape")


def valid_name(path: str) -> bool:
    """Whether ``path`` (as the OS gave it, undecodable bytes as surrogate escapes) is valid
    UTF-8: only such a name can be stored, printed, or imported as a module."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: str) -> str:
    """``path`` printable: its bytes that are not UTF-8 written as ``\\xNN``."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


OUTSIDE = "a symlink to outside the repository"  # why such a path is skipped


def outside_root(root: Path | str, rel: str) -> bool:
    """Whether the repository path ``rel`` resolves, through symlinks on the way, to a
    place outside ``root``: such a path is never read or written (a symlink committed to a
    repository may point anywhere)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel))
    return real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep)


def read_source(path: Path) -> str | None:
    """``path``'s Python source text as :func:`decode_source` reads it (``None`` when it
    cannot be read)."""
    try:
        return decode_source(path.read_bytes())
    except OSError:
        return None


MAX_TEXT_BYTES = 2_000_000  # a bigger file is data, not code that reads a name


def read_code_text(path: Path) -> str | None:
    """``path``'s text when it is a readable text file of code size (``None`` for a missing,
    binary or data-sized file); undecodable bytes are replaced."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def parse_python(text: str | None) -> ast.Module | None:
    """``text`` parsed, or ``None`` when there is no text or it does not parse (a syntax
    error, a null byte, nesting too deep for the parser)."""
    if text is None:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
