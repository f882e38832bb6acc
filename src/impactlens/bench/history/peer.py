"""GitNexus's ``impact`` as a baseline on the same seeds (``--gitnexus``): the peer indexes
the case's parent work tree (``gitnexus analyze``), then is asked for the upstream blast
radius of the seed's function (``gitnexus impact NAME -f FILE --direction upstream``).
Its files are ranked by the depth of their first hit, then in the order it lists them;
the seed's file and files outside the case's universe are dropped, as for every method.

The peer runs with a temporary ``GITNEXUS_HOME``, no extension downloads
(``GITNEXUS_LBUG_EXTENSION_INSTALL=never``) and on a copy of the work tree (its
``.gitnexus/`` index and the copy removed afterwards)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from impactlens.bench.history.results import MethodRun
from impactlens.bench.pdg_peer import gitnexus_binary

PEERS = ("gitnexus",)
ANALYZE_ATTEMPTS = 3  # its native bindings fail now and then under load


class GitNexus:
    """One case's peer: ``analyze`` once on a copy of the parent's work tree (without our
    ``.impactlens/`` index, which its parser aborts on), then ``impact`` per seed."""

    def __init__(self, binary: str, tree: Path, timeout: float) -> None:
        self.binary, self.timeout = binary, timeout
        self.work = Path(tempfile.mkdtemp(prefix="impactlens-gitnexus-"))
        self.home, self.root = self.work / "home", self.work / "tree"
        shutil.copytree(tree, self.root, symlinks=True,
                        ignore=shutil.ignore_patterns(".impactlens", ".git"))
        self.env = dict(os.environ, GITNEXUS_HOME=str(self.home), NO_COLOR="1",
                        GITNEXUS_LBUG_EXTENSION_INSTALL="never")
        self.name = "case"
        self.error = ""
        self.seconds_cpu = 0.0

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)

    def _run(self, args: Sequence[str]) -> subprocess.CompletedProcess[str] | None:
        before = os.times()
        try:
            return subprocess.run([self.binary, *args], cwd=self.root, env=self.env,
                                  capture_output=True, text=True, timeout=self.timeout,
                                  check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        finally:
            after = os.times()
            self.seconds_cpu += (after.children_user - before.children_user
                                 + after.children_system - before.children_system)

    def analyze(self) -> bool:
        for _ in range(ANALYZE_ATTEMPTS):
            # one parse worker: its worker pool aborts in native code on a loaded machine
            p = self._run(["analyze", "--skip-git", "--index-only", "--skip-fts",
                           "--workers", "1", "--name", self.name, str(self.root)])
            if p is not None and p.returncode == 0:
                self.error = ""
                return True
            self.error = ("analyze timed out or did not start" if p is None else
                          "analyze failed: " + " ".join(p.stderr.split())[-300:])
        return False

    def impact(self, file: str, qualname: str, seed_file: str,
               counts: Callable[[str], bool]) -> MethodRun | None:
        """The peer's ranked files for one seed (``None``: it gave no answer)."""
        p = self._run(["impact", qualname.rpartition(".")[2], "-r", self.name, "-f", file,
                       "--direction", "upstream", "--depth", "3"])
        out = _json_out(p.stdout) if p is not None else None
        if out is None or "byDepth" not in out:
            return None
        return MethodRun(ranked_files(out, seed_file, counts))


def ranked_files(out: dict[str, Any], seed_file: str,
                 counts: Callable[[str], bool]) -> list[str]:
    """Files of an ``impact`` answer by the depth of their first hit, then its order."""
    files: list[str] = []
    by_depth = out.get("byDepth") or {}
    for depth in sorted(by_depth, key=lambda d: int(d) if str(d).isdigit() else 1 << 30):
        for hit in by_depth[depth] or ():
            f = hit.get("filePath") if isinstance(hit, dict) else None
            if isinstance(f, str) and f != seed_file and counts(f) and f not in files:
                files.append(f)
    return files


def _json_out(text: str) -> dict[str, Any] | None:
    """The JSON object ``gitnexus impact`` prints after its banner and log lines."""
    i = text.find("{\n")
    if i < 0:
        return None
    try:
        out = json.loads(text[i:])
    except ValueError:
        return None
    return out if isinstance(out, dict) else None


def peer(enabled: bool, root: Path, timeout: float) -> GitNexus | None:
    """A GitNexus for the case's work tree, when asked for and installed."""
    if not enabled:
        return None
    binary = gitnexus_binary()
    return GitNexus(binary, root, timeout) if binary is not None else None
