"""The index lock: one ``impactlens index`` writes at a time.

An advisory ``flock`` on ``.impactlens/index.lock``, which the kernel releases when its
holder exits however it ends. The file also names the holder's pid, so that a run can tell
a lock left by a process that is gone (killed mid-run: the lock itself went with it, and
the index it was writing was never committed) and say that it took it over, and can tell
when the lock is held by leftover processes of a holder that is gone instead of waiting
for them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from impactlens.errors import IndexBusyError
from impactlens.index.state import StateDirError, state_path

__all__ = ["Lock", "index_lock"]


@dataclass(slots=True)
class Lock:
    fd: int  # the lock file's descriptor (worker processes close their copy)
    note: str = ""  # one line when a stale lock was taken over


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie is gone too
    return True


def _holder(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        got = os.pread(fd, 32, 0).decode("ascii").strip()
        return int(got) if got else None
    return None


@contextlib.contextmanager
def index_lock(path: Path, timeout_s: float) -> Iterator[Lock]:
    """Hold the lock at ``path`` for the span; :class:`IndexBusyError` after ``timeout_s``
    while another live run holds it."""
    try:
        fd = os.open(state_path(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644)
    except OSError as exc:
        raise StateDirError(f"{path}: cannot take the index lock ({exc.strerror or exc}); "
                            "the index cannot be written") from None
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _holder(fd)
                if holder is not None and not _alive(holder):
                    raise IndexBusyError(
                        f"{path}: held by leftover processes of `impactlens index` (pid "
                        f"{holder}), which is gone; end them and run again") from None
                if time.monotonic() >= deadline:
                    raise IndexBusyError(f"{path}: another `impactlens index` is running "
                                         f"(waited {timeout_s:.0f}s)") from None
                time.sleep(0.05)
        lock = Lock(fd)
        holder = _holder(fd)
        if holder is not None and holder != os.getpid() and not _alive(holder):
            lock.note = (f"took over the index lock of process {holder}, which ended without "
                         "releasing it; the index is as its last complete run left it")
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        try:
            yield lock
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing releases the flock
