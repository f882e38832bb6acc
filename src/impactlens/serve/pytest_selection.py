"""What ``pytest --impact`` runs: the selection one analysis makes, cached per change.

:func:`selection` analyzes the change (the working tree against ``HEAD``, or a revision)
once per *state*: the impactlens version, the commits it is read against, the path and
bytes of every changed or new file (``git status``: every other file is the commit's), the
settings handed down in the environment, ``--impact-min-conf`` and the stored recording.
Every input of the analysis — the index is built from the same tree — is in that key, so
a run whose key was seen reuses that selection from ``.impactlens/pytest-selection.json``
without importing the analysis at all.

A :class:`Selection` says which files can hold a kept test (the plugin does not collect
the others), why each test is kept, and, when the analysis failed, why (then every test
runs: a failed analysis never runs fewer tests).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from impactlens import __version__
from impactlens.index import git
from impactlens.settings import SETTINGS_ENV

__all__ = ["CACHE", "Selection", "selection"]

CACHE = "pytest-selection.json"  # under .impactlens/
_KEPT = 8  # selections kept in the cache (the last ones used)
_INDEX_DIR = ".impactlens"

_SELECTING = frozenset({"walk", "testmap"})  # the channels the validation set comes from
# why a test is kept, by the relation that admits it (impact/testmap.py, impact/observed.py)
_RELATIONS = {
    "TESTS": "calls it directly", "CALLS": "reaches it through calls",
    "INHERITS": "uses a subclass of it", "CONTAINS": "reaches a member of it",
    "IMPORTS": "imports its module", "RECORDED": "ran it in the recorded run",
    "SUBPROCESS": "starts a process the recording could not follow",
    "STARTUP": "it ran while pytest starts: a failure there stops every test",
}


@dataclass(frozen=True)
class Selection:
    """The tests a change reaches, as repository test ids (``path::name``)."""

    what: str  # "the working tree" | "revision REV"
    tests: frozenset[str] = frozenset()  # the validation set
    changed: frozenset[str] = frozenset()  # changed and new files: all their tests run
    files: tuple[str, ...] = ()  # the changed Python files
    test_min: float = 0.0
    causes: Mapping[str, str] = field(default_factory=dict)  # test id → why it is kept
    note: str = ""  # how a recorded run shaped the set
    tests_in: Mapping[str, int] = field(default_factory=dict)  # test file → indexed tests
    failed: str = ""  # why the analysis failed: every test runs
    cached: bool = False  # read from the cache

    @property
    def nothing(self) -> bool:
        """No Python change: no test to run."""
        return not self.failed and not self.files

    def test_files(self) -> frozenset[str]:
        """The files a kept test can live in (every file, when the analysis failed)."""
        return frozenset(t.split("::", 1)[0] for t in self.tests) | self.changed

    def cause(self, full: str, base: str) -> str | None:
        """Why the test ``full`` (``base``: without its parameters) runs; ``None``: it is
        not selected."""
        if self.failed:
            return "the analysis failed: every test runs"
        for tid in (full, base):
            if tid in self.tests:
                return self.causes.get(tid, "in the validation set")
        if full.split("::", 1)[0] in self.changed:
            return "in a changed test file"
        return None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("cached")
        data["tests"], data["changed"] = sorted(self.tests), sorted(self.changed)
        data["causes"], data["tests_in"] = dict(self.causes), dict(self.tests_in)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Selection:
        return cls(**{**data, "tests": frozenset(data["tests"]),
                      "changed": frozenset(data["changed"]), "files": tuple(data["files"]),
                      "cached": True})


def selection(root: Path, rev: str | None, min_conf: float | None, *,
              use_cache: bool = True) -> Selection:
    """The selection for the change at ``root`` (``rev``: a revision instead of the
    working tree). A wrong input (an unknown revision, a bad setting) raises
    :class:`impactlens.errors.ImpactlensError`; a failing analysis gives a selection whose
    ``failed`` says why."""
    key = _key(root, rev, min_conf)
    cache = root / _INDEX_DIR / CACHE
    if use_cache and key is not None:
        hit = _read(cache).get(key)
        if hit is not None:
            with contextlib.suppress(TypeError, KeyError, ValueError):  # not an entry of ours
                return Selection.from_json(hit)
    got = _analyze(root, rev, min_conf)
    if key is not None and not got.failed:
        _write(cache, key, got)
    return got


def _key(root: Path, rev: str | None, min_conf: float | None) -> str | None:
    """The state the analysis depends on, hashed; ``None`` when git cannot say (no
    commit, an unknown revision: the analysis then says what is wrong)."""
    try:
        head = git.resolve_commit(root, "HEAD")
        revs = [git.resolve_commit(root, r) for r in (rev or "").split("..") if r.strip(".")]
        paths = {e.path for e in git.diff_name_status(root, head)}
        paths.update(git.untracked_files(root))
    except git.GitError:
        return None
    h = hashlib.sha256()
    for part in (__version__, head, rev or "", *revs, repr(min_conf),
                 os.environ.get(SETTINGS_ENV, ""), _recording_stamp(root)):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for p in sorted(paths):
        if p == _INDEX_DIR or p.startswith(_INDEX_DIR + "/"):
            continue
        try:
            digest = hashlib.sha256((root / p).read_bytes()).hexdigest()
        except OSError:
            digest = "-"  # deleted
        h.update(f"{p}\0{digest}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _recording_stamp(root: Path) -> str:
    """The stored recording's summary (a new recording changes the selection)."""
    from impactlens.index.store import Store, index_path

    path = index_path(root)
    if not path.exists():
        return ""
    try:
        store = Store.open(path)
    except Exception:  # an old or broken index: the analysis rebuilds or reports it
        return "?"
    try:
        return store.recording_info() or ""
    finally:
        store.close()


def _read(cache: Path) -> dict[str, Any]:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(cache: Path, key: str, got: Selection) -> None:
    """Keep ``got`` under ``key``, with the last :data:`_KEPT` others (best effort: a
    cache that cannot be written is only slower)."""
    from impactlens.fileio import atomic_write
    from impactlens.index.state import StateDirError, state_path

    entries = {k: v for k, v in _read(cache).items() if k != key}
    entries[key] = got.to_json()
    kept = dict(list(entries.items())[-_KEPT:])
    with contextlib.suppress(OSError, StateDirError):
        atomic_write(state_path(cache), json.dumps(kept, sort_keys=False))


def _analyze(root: Path, rev: str | None, min_conf: float | None) -> Selection:
    from impactlens.api import Project, repository_settings

    what = f"revision {rev}" if rev else "the working tree"
    settings = repository_settings(root)
    if min_conf is not None:
        settings = replace(settings, test_map_min=min_conf)
    # what picks the tests (the walk, the test map, a recording) and nothing a test run
    # does not show: no ranking channels, no DAG token count
    settings = replace(settings, channels=settings.channels & _SELECTING, max_dag_tokens=0)
    with Project(root, settings) as project:
        change = project.proposed_change(rev=rev) if rev else project.proposed_change()
        base = Selection(what, changed=frozenset(change.paths) | frozenset(change.other_files),
                         files=tuple(sorted(change.paths)), test_min=settings.test_map_min)
        if not change.files:  # (a changed test file is a Python change)
            return base
        try:
            return _selected(project, base, project.analyze(change))
        except Exception as exc:  # whatever failed, every test runs
            return replace(base, failed=f"{type(exc).__name__}: {exc}".splitlines()[0])


def _selected(project: Any, base: Selection, result: Any) -> Selection:
    """``base`` with the analysis ``result``: the validation set, each test's cause."""
    from impactlens.index.recording import Recording
    from impactlens.model import NodeKind

    best: dict[str, Any] = {}
    for t in result.test_map:
        if t.test_id not in best or t.conf > best[t.test_id].conf:
            best[t.test_id] = t
    recording = Recording.load(project.store) if any(
        t.relation == "STARTUP" for t in best.values()) else None
    causes = {tid: _cause(t, recording) for tid, t in best.items() if tid in result.validate}
    tests_in: dict[str, int] = {}
    for _id, _parent, file in project.store.node_places([NodeKind.TEST]):
        tests_in[file] = tests_in.get(file, 0) + 1
    return replace(base, tests=frozenset(result.validate), causes=causes,
                   note=result.tests_note, tests_in=tests_in)


def _cause(t: Any, recording: Any) -> str:
    """``RECORDED via pkg.mod.fn (0.95): ran it in the recorded run``."""
    why = _RELATIONS.get(t.relation, t.relation.lower())
    if t.relation == "STARTUP" and recording is not None:
        by = recording.started_by(t.via)
        if by:
            why = f"it ran while pytest starts, from {by}: a failure there stops every test"
    return f"{t.relation} via {t.via} ({t.conf:.2f}): {why}"
