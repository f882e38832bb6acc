"""Worker processes that die with the process that started them.

``timeout``, systemd and CI cancellation send SIGTERM or SIGKILL to the ``impactlens``
process alone. Forked workers would live on, holding the index lock (a forked child
shares the parent's open lock file) and the caller's pipes, and every later run would
wait for a lock no one releases. So each worker asks the kernel to kill it when its parent
dies (``PR_SET_PDEATHSIG`` on Linux; elsewhere a thread watches the parent), and closes its
copy of the lock file at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

__all__ = ["worker_pool"]

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def worker_pool(workers: int, close_fds: Iterable[int] = ()) -> ProcessPoolExecutor:
    """A fork-based pool of ``workers`` processes that exit when this process does;
    ``close_fds``: descriptors the workers must not keep (the index lock)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork"),
                               initializer=_die_with_parent,
                               initargs=(os.getpid(), tuple(close_fds)))


def _die_with_parent(parent: int, close_fds: tuple[int, ...]) -> None:
    for fd in close_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    if not _parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def _parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent exits; whether that worked."""
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
