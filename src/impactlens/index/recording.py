"""Recorded test runs: which tests executed which functions — and which of their lines —
from a real run of the suite.

``pytest --impact-record`` (or ``impactlens record``) runs the suite with a trace hook
(``sys.settrace`` / ``threading.settrace``): every Python function call reports its code
object to the current test — its node id — or, outside any test (collection, a conftest),
to the import-time set ``""``. Only frames of the project's own non-test code get a local
tracer, which adds ``(code, line)`` for each line event; everything else (the standard
library, installed packages, the tests) costs one call callback and no line events. A
module's top-level code is followed to its ``return`` (lines off) to know which module is
being imported: every function called meanwhile — a class decorator, a registry call — is
import-time too, even when a test triggered the import, and the lines it runs are also
credited to the innermost module being imported (``IMPORTED`` + its path), so a change to
them reaches the tests defined in or importing that module, and to the outermost one, whose
import began the chain (a ``conftest.py`` importing the package: every test). Lines run
between tests outside any import (a pytest hook, a plugin) are kept under ``OUTSIDE``, and so
is what ran before the recorder started when ``impactlens record`` traced the process from
start-up (:func:`impactlens.index.child_trace.start_early`: a plugin that imports the
project); otherwise the project's modules already imported then are kept as *preimported*.
Where the first run of a function outside any test began is kept too
(:func:`impactlens.index.child_trace.origin`: the conftest line, the hook, the plugin), and
named for each function that ran while pytest starts (:meth:`Recording.started_by`), so a
selection of every test for such a change says what ran it.

At the end, code objects of the indexed non-test files are mapped to the index's function
and method nodes (file, name, first line inside the node's lines; nested functions by the
innermost) and stored as ``(test, node)`` pairs; each executed line is credited to every
function node whose lines hold it (a closure's lines count for the function around it too)
and stored with the pair as a compact line set (``impact/statements.py`` says which lines
an edit needs a test to have run). The sha256 of every file the recording saw is kept. The
stage reads them through :class:`Recording` (``impact/observed.py`` decides how); a test's
pairs are trusted only while every file it ran is unchanged since the recording (per-test
freshness, as Ekstazi and pytest-testmon do).

A shared (class-, module-, package- or session-scoped) fixture is set up once, inside the
first test that needs it: its setup is recorded under its own key and credited to every test
that uses it. A Python child process a test starts with the recording's environment traces
itself and reports what it ran, credited to that test (:mod:`impactlens.index.child_trace`).
A child the recording cannot see — forked (``os.fork``: its report would be lost), started
with another environment or with ``-I``/``-E``/``-S``, one that never reported (killed,
``os._exit``) or could not import this package — makes its test a *spawner* (an audit hook
watches ``subprocess.Popen``, ``os.system``, ``os.fork``, ``os.posix_spawn``, …; kept in the
recording's info): its child may have run any of the project's code, so the stage always
keeps it. Known blind spots, as for any traced selection: code run in a thread started
before the recording began is not seen; a shared fixture's teardown counts for the test it
follows; a test that installs its own trace function (a debugger's tests) is left out of
the recording; a program between the test and a Python child that rewrites the environment
(``env -i``, ``sudo``) hides that child.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from impactlens.index import child_trace
from impactlens.index.child_trace import ChildCode, in_project
from impactlens.index.discover import is_test_file
from impactlens.index.store import Store
from impactlens.model import Node, NodeKind

Code = CodeType | ChildCode  # a code object the recorder ran, or one a child reported

__all__ = ["IMPORTED", "IMPORT_TIME", "OUTSIDE", "UNPLACED", "LineRuns", "Recorder", "Recording",
           "at_startup", "code_nodes", "decode_lines", "describe_origin", "encode_lines",
           "is_pseudo_test", "save_recording", "spawn_summary"]

IMPORT_TIME = ""  # the test id of calls made outside any test or during an import
FIXTURE = "fixture:"  # the prefix of a shared fixture's key while its setup runs
IMPORTED = "import:"  # + a module's path: the lines its import ran (a pseudo-test)
OUTSIDE = "outside:"  # the lines run outside any test and any import (a pseudo-test)
_PSEUDO = (IMPORTED, OUTSIDE)
UNPLACED = "?"  # the path of a module outside the index (an installed package, a script)
_CALLABLE = (NodeKind.FUNCTION, NodeKind.METHOD)
_WORST = {"passed": 0, "skipped": 1, "failed": 2}

# the hook's state: module globals, the fastest names a trace function can reach
_current: set[Code] = set()  # code objects run by the current test
_import_time: set[Code] = set()
_importing: list[str] = []  # the files of the module top-level frames executing now
_lines: set[tuple[CodeType, int]] = set()  # (code, line) run since the last switch
_import_lines: set[tuple[str, CodeType, int]] = set()  # (module file, code, line) at import
_line_codes: dict[CodeType, bool] = {}  # code → its lines are traced (project, non-test)
_origins: dict[Code, child_trace.Origin] = {}  # code first run outside tests → who ran it
_root = "/"  # the project's directory (str), set by Recorder.start
# a forked copy of this process runs its tracer, whose record the copy never hands back
_FORKS = frozenset({"os.fork", "os.forkpty"})
_recorder: Recorder | None = None  # the recorder the audit hook reports to (while tracing)
_audit_added = False  # audit hooks cannot be removed: added once per process


def _hook(frame: FrameType, event: str, arg: Any) -> Any:
    code = frame.f_code
    _current.add(code)
    if _importing:
        _import_time.add(code)
    if code.co_name == "<module>":
        _importing.append(code.co_filename)
        frame.f_trace_lines = False
        return _module_exit
    traced = _line_codes.get(code)
    if traced is None:
        traced = _line_codes[code] = _traces_lines(code.co_filename)
        if traced and _current is _import_time:  # what started it: a conftest, a hook
            _origins[code] = child_trace.origin(frame, _traces_lines)
    if not traced:
        return None
    return _import_line if _importing else _line


def _line(frame: FrameType, event: str, arg: Any, _add: Any = _lines.add) -> Any:
    _add((frame.f_code, frame.f_lineno))  # "line"; "return"/"exception" repeat a line
    return _line


def _import_line(frame: FrameType, event: str, arg: Any, _add: Any = _lines.add,
                 _add_import: Any = _import_lines.add) -> Any:
    """The local tracer of a frame started while a module is being imported: its lines
    are also credited to the innermost module being imported, and to the outermost — the
    import that began the chain (a ``conftest.py``'s: an error there stops the session)."""
    code, line = frame.f_code, frame.f_lineno
    _add((code, line))
    if _importing:
        _add_import((_importing[-1], code, line))
        if len(_importing) > 1:
            _add_import((_importing[0], code, line))
    return _import_line


def _traces_lines(filename: str) -> bool:
    return in_project(filename, _root) and not is_test_file(filename)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if (_recorder is not None and event in child_trace.SPAWNS
            and (event in _FORKS or child_trace.unseen(event, args))):
        _recorder.spawned.add(_recorder.running)


def _module_exit(frame: FrameType, event: str, arg: Any) -> Any:
    if event == "return" and _importing:  # also when the import raises
        _importing.pop()
    return _module_exit


def is_pseudo_test(test: str) -> bool:
    """Whether a recorded id stands for an import or for code outside tests, not a test."""
    return test.startswith(_PSEUDO)


def base_test_id(test: str) -> str:
    """A pytest node id without its parametrization (``t.py::test_x[1]`` → ``t.py::test_x``)."""
    return test.split("[", 1)[0]


def encode_lines(lines: Iterable[int]) -> str:
    """``{3, 4, 5, 9}`` → ``"3-5,9"``."""
    out: list[str] = []
    run: list[int] = []
    for x in sorted(set(lines)):
        if run and x != run[-1] + 1:
            out.append(_run(run))
            run = []
        run.append(x)
    if run:
        out.append(_run(run))
    return ",".join(out)


def _run(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def decode_lines(text: str) -> list[tuple[int, int]]:
    """``"3-5,9"`` → ``[(3, 5), (9, 9)]`` (inclusive ranges)."""
    out = []
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.append((int(lo), int(hi or lo)))
    return out


def code_nodes(codes: Iterable[tuple[str, int]], nodes: Iterable[Node]) -> dict[tuple[str, int],
                                                                               str]:
    """Map ``(co_name, co_firstlineno)`` of one file's code objects to its function and
    method nodes: same name, the first line within the node's lines (a decorated function's
    code starts at its first decorator), the innermost such node. Comprehensions, lambdas
    and module code map to nothing (their function, if any, ran too)."""
    named: dict[str, list[tuple[int, int, str]]] = {}
    for n in nodes:
        if n.kind in _CALLABLE:
            named.setdefault(n.qualname.rsplit(".", 1)[-1], []).append(
                (n.start_line, n.end_line, n.id))
    out: dict[tuple[str, int], str] = {}
    for name, first in codes:
        spans = [(start, nid) for start, end, nid in named.get(name, ()) if start <= first <= end]
        if spans:
            out[(name, first)] = max(spans)[1]  # the latest start: the innermost
    return out


class Recorder:
    """The trace hook's owner for one pytest session (``--impact-record``)."""

    def __init__(self, root: Path, *, lines: bool = True) -> None:
        self.root = root
        self.trace_lines = lines  # False: calls only (no line events, no import placement)
        self.runs: dict[str, set[Code]] = {}
        self.outcomes: dict[str, str] = {}
        self.untraced: set[str] = set()  # tests that replaced the trace function
        self.lines: dict[str, dict[Code, frozenset[int]]] = {}  # test → code → lines
        self._interned: dict[frozenset[int], frozenset[int]] = {}
        self.shared: dict[str, set[str]] = {}  # test → the shared fixtures it uses
        self.imports: dict[str, dict[Code, frozenset[int]]] = {}  # IMPORTED + file → …
        self._last = IMPORT_TIME
        self._ours: dict[str, bool] = {}  # co_filename → under the root, not installed
        # the project's modules already imported when tracing began (a pytest plugin
        # imported the package): what their import ran is not in the recording
        self.preimported: set[str] = set()
        # tests (fixture keys, IMPORT_TIME) that started a process the recording cannot see
        self.spawned: set[str] = set()
        self._children: Path | None = None  # where children report
        self._environ: dict[str, str | None] = {}  # what the recording changed, to restore
        self.from_start = False  # the process was traced from start-up (`impactlens record`)
        self.origins: dict[Code, child_trace.Origin] = {}  # what ran at start-up: who ran it

    def start(self) -> None:
        global _current, _root
        early = child_trace.take_early()  # what ran since start-up (`impactlens record`)
        if sys.gettrace() is not None:
            raise RuntimeError("another trace function is active (coverage, a debugger): "
                               "--impact-record cannot run alongside it")
        _import_time.clear()
        _importing.clear()
        _lines.clear()
        _import_lines.clear()
        _line_codes.clear()
        _origins.clear()
        _root = str(self.root) if self.trace_lines else "\0"  # "\0": no file's prefix
        if early is None:  # what the project's modules imported so far ran is unknown
            self.preimported = set(child_trace.imported(str(self.root)))
        else:  # traced from start-up: only what came before that is unknown
            codes, self.preimported = early.ran, set(early.preimported)
            for code, where in early.origins.items():
                self.origins[code] = where
            self.from_start = True
            _import_time.update(codes)  # it ran while pytest started: outside any test
            self._merge(self.lines.setdefault(OUTSIDE, {}), {c: x for c, x in codes.items() if x})
        _current = _import_time
        _watch_spawns(self)
        self._report_children()
        threading.settrace(_hook)
        sys.settrace(_hook)

    def switch(self, test: str) -> None:
        """Credit the calls from now on to ``test`` (``IMPORT_TIME``: to no test)."""
        global _current
        if sys.gettrace() is not _hook:  # the last test installed its own tracer
            self.untraced.add(self._last)
        sys.settrace(None)  # the recorder's own calls are nobody's
        self._settle()
        _current = self.runs.setdefault(test, set()) if test else _import_time
        self._last = test
        if self._children is not None:
            os.environ[child_trace.ENV_TEST] = test
        sys.settrace(_hook)

    def _settle(self) -> None:
        """File what ran since the last switch under the test that was running: the calls,
        the lines, the lines of each import; between tests, lines run outside any import
        go to ``OUTSIDE``."""
        last = self._last
        lines = self._take_lines()
        imported = self._take_import_lines()
        if last != IMPORT_TIME:  # keep only the project's code (memory)
            self.runs[last] = {c for c in _current if self._is_ours(c.co_filename)}
            self._merge(self.lines.setdefault(last, {}), lines)
            return
        outside = {c: self._intern(x - imported[c]) if c in imported else x
                   for c, x in lines.items()}
        self._merge(self.lines.setdefault(OUTSIDE, {}), {c: x for c, x in outside.items() if x})

    def _take_import_lines(self) -> dict[CodeType, frozenset[int]]:
        """File the lines each import ran since the last switch; return them all, per code."""
        every: dict[CodeType, set[int]] = {}
        by: dict[str, dict[CodeType, set[int]]] = {}
        for module, code, line in _import_lines:
            by.setdefault(module, {}).setdefault(code, set()).add(line)
            every.setdefault(code, set()).add(line)
        _import_lines.clear()
        for module, codes in by.items():
            self._merge(self.imports.setdefault(IMPORTED + module, {}),
                        {c: self._intern(frozenset(x)) for c, x in codes.items()})
        return {c: frozenset(x) for c, x in every.items()}

    @property
    def running(self) -> str:
        """The test (or shared fixture) the calls are credited to now."""
        return self._last

    def shares(self, test: str, fixtures: Iterable[str]) -> None:
        """``test`` uses the shared (class-, module-, package- or session-scoped) fixtures
        ``fixtures`` (keys ``FIXTURE…`` a setup was recorded under): set up once, inside the
        first test that needs them, what their setup ran counts for every user."""
        self.shared.setdefault(test, set()).update(fixtures)

    def _merge(self, into: dict[Code, frozenset[int]], more: Mapping[Any, frozenset[int]]
               ) -> None:
        for code, lines in more.items():
            old = into.get(code)
            into[code] = lines if old is None else self._intern(old | lines)

    def _intern(self, lines: frozenset[int]) -> frozenset[int]:
        return self._interned.setdefault(lines, lines)

    def _take_lines(self) -> dict[CodeType, frozenset[int]]:
        """The lines run since the last switch, per code object (equal sets shared)."""
        by: dict[CodeType, set[int]] = {}
        for code, line in _lines:
            by.setdefault(code, set()).add(line)
        _lines.clear()
        return {c: self._intern(frozenset(x)) for c, x in by.items()}

    def _is_ours(self, filename: str) -> bool:
        ours = self._ours.get(filename)
        if ours is None:
            ours = self._ours[filename] = in_project(filename, str(self.root))
        return ours

    def outcome(self, outcome: str) -> None:
        """Keep the running test's worst phase outcome (a failed setup or teardown fails
        it)."""
        old = self.outcomes.get(self._last)
        if old is None or _WORST.get(outcome, 2) > _WORST.get(old, 2):
            self.outcomes[self._last] = outcome

    def stop(self) -> None:
        global _recorder
        sys.settrace(None)
        threading.settrace(None)
        _recorder = None
        for key, value in self._environ.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._environ = {}

    def _report_children(self) -> None:
        """Have Python children started from now on trace themselves and report here."""
        self._children = Path(tempfile.mkdtemp(prefix="impactlens-children-"))
        values = {**child_trace.stub_vars(self._children, self.root, self.trace_lines,
                                          os.environ.get("PYTHONPATH")),
                  child_trace.ENV_DIR: str(self._children),
                  child_trace.ENV_TEST: self._last}
        for key, value in values.items():
            self._environ.setdefault(key, os.environ.get(key))
            os.environ[key] = value

    def _take_children(self) -> None:
        """Credit what the children ran to the tests that started them; a child that ran
        unseen makes its test a spawner."""
        if self._children is None:
            return
        got = child_trace.read_reports(self._children)
        shutil.rmtree(self._children, ignore_errors=True)
        self._children = None
        self.spawned |= got.unseen
        for test, codes in got.ran.items():
            key = test or IMPORT_TIME
            if key == IMPORT_TIME:  # a child started outside any test: it ran outside
                _import_time.update(codes)
                self._merge(self.lines.setdefault(OUTSIDE, {}), codes)
                continue
            self.runs.setdefault(key, set()).update(codes)
            if self.trace_lines:
                self._merge(self.lines.setdefault(key, {}), codes)

    def finish(self) -> dict[str, Any]:
        """Stop tracing, bring the index up to date and store the recording."""
        from impactlens.index import git as gitcmd
        from impactlens.index.indexer import Indexer
        from impactlens.index.store import Store, index_path
        from impactlens.settings import from_env, from_pyproject

        self.stop()
        self._settle()  # what ran after the last switch (session teardown)
        self._take_children()
        self._credit_shared_fixtures()
        self.untraced.discard(IMPORT_TIME)
        runs = {t: c for t, c in self.runs.items() if t not in self.untraced}
        runs[IMPORT_TIME] = _import_time
        lines = {t: x for t, x in self.lines.items() if t not in self.untraced}
        lines.update(self.imports)
        outcomes = {t: o for t, o in self.outcomes.items() if t not in self.untraced}
        git = gitcmd.is_repository(self.root) and gitcmd.has_head(self.root)
        head = gitcmd.resolve_commit(self.root, "HEAD") if git else ""
        # the run's settings, handed down: a re-index with others would re-mine history
        Indexer(self.root, from_env() or from_pyproject(self.root)).run()
        store = Store.open(index_path(self.root))
        try:
            return save_recording(store, self.root, runs, outcomes, lines,
                                  head=head, preimported=self.preimported,
                                  spawners=self.spawned, from_start=self.from_start,
                                  origins={**_origins, **self.origins})
        finally:
            store.close()

    def _credit_shared_fixtures(self) -> None:
        for test, keys in self.shared.items():
            for key in keys:
                if key in self.spawned:
                    self.spawned.add(test)
                self.runs.setdefault(test, set()).update(self.runs.get(key, ()))
                self._merge(self.lines.setdefault(test, {}), self.lines.get(key, {}))
                if key in self.untraced:
                    self.untraced.add(test)
        for table in (self.runs, self.lines, self.outcomes):
            for key in [k for k in table if k.startswith(FIXTURE)]:
                del table[key]
        self.spawned = {t for t in self.spawned if not t.startswith(FIXTURE)}


def _watch_spawns(recorder: Recorder) -> None:
    """Report process starts to ``recorder`` from now until it stops."""
    global _recorder, _audit_added
    _recorder = recorder
    if not _audit_added:
        sys.addaudithook(_audit)
        _audit_added = True


def save_recording(store: Store, root: Path, runs: Mapping[str, Iterable[Code]],
                   outcomes: Mapping[str, str],
                   lines: Mapping[str, Mapping[Code, Iterable[int]]] | None = None, *,
                   head: str = "", preimported: Iterable[str] = (),
                   spawners: Iterable[str] | None = None, from_start: bool = False,
                   origins: Mapping[Code, child_trace.Origin] | None = None
                   ) -> dict[str, Any]:
    """Replace the store's recording with ``runs`` (test id → code objects it ran;
    ``IMPORT_TIME`` for calls outside tests or during imports) and ``lines`` (test id →
    code object → its lines the test ran), mapped to the index's functions in the indexed
    non-test files under ``root``. ``preimported``: files of modules imported before the
    recording began (kept in the info: their import-time code is unrecorded); ``spawners``:
    the tests that started a process (``IMPORT_TIME``: one started outside any test), or
    ``None`` when process starts were not watched; ``from_start``: the pytest process was
    traced from its start-up (what its plugins' imports ran is in ``lines``); ``origins``:
    where the first run of a code object outside any test began (kept, named, for the
    functions that ran while pytest starts)."""
    lines = lines or {}
    indexed = {r.path: r for r in store.files()}
    files = {p: r for p, r in indexed.items() if not r.is_test}
    where: dict[str, str | None] = {}  # co_filename → indexed path (None: not ours)
    by_file: dict[str, set[tuple[str, int]]] = {}
    for codes in [*runs.values(), *lines.values()]:
        for c in codes:
            if c.co_filename not in where:
                where[c.co_filename] = _indexed(root, c.co_filename, files)
            path = where[c.co_filename]
            if path is not None:
                by_file.setdefault(path, set()).add((c.co_name, c.co_firstlineno))
    in_file = {p: list(store.nodes_in_file(p)) for p in by_file}
    nodes = {p: code_nodes(keys, in_file[p]) for p, keys in by_file.items()}
    ran: dict[tuple[str, str, str], set[int]] = {}
    for test, codes in runs.items():
        tid = base_test_id(test)
        for c in codes:
            path = where.get(c.co_filename)
            nid = nodes[path].get((c.co_name, c.co_firstlineno)) if path else None
            if nid is not None:
                ran.setdefault((tid, nid, path or ""), set())
    spans = {p: [(n.start_line, n.end_line, n.id) for n in ns if n.kind in _CALLABLE]
             for p, ns in in_file.items()}
    holders: dict[Code, list[tuple[int, int, str]]] = {}
    for test, by_code in lines.items():
        tid = _import_key(root, base_test_id(test), indexed)
        for c, run in by_code.items():
            path = where.get(c.co_filename)
            if path is None:
                continue
            if c not in holders:  # the functions this code is (part of): not a `def` line
                first = c.co_firstlineno  # run by the class body or module around it
                holders[c] = [x for x in spans[path] if x[0] <= first <= x[1]]
            for start, end, nid in holders[c]:
                hit = [line for line in run if start <= line <= end]
                if hit:
                    ran.setdefault((tid, nid, path), set()).update(hit)
    rows = {(*key, encode_lines(x)) for key, x in ran.items()}
    at_start = {nid for tid, nid, _ in ran if tid == OUTSIDE
                or (tid.startswith(IMPORTED) and at_startup(tid[len(IMPORTED):]))}
    started: dict[str, str] = {}
    for c, where_from in sorted((origins or {}).items(), key=lambda x: x[1]):
        path = where.get(c.co_filename)
        nid = nodes[path].get((c.co_name, c.co_firstlineno)) if path else None
        if nid in at_start and nid not in started:
            started[nid] = describe_origin(root, where_from)
    shas = {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in by_file}
    tests = {base_test_id(t): o for t, o in outcomes.items()}
    early = sorted({p for f in preimported if (p := _indexed(root, f, files)) is not None})
    info = {"head": head, "time": int(time.time()), "tests": len(tests), "files": len(shas),
            "rows": len(rows), "lines": any(x for x in lines.values()), "preimported": early,
            "from_start": from_start, "started_by": dict(sorted(started.items()))}
    if spawners is not None:
        info["spawners"] = sorted({base_test_id(t) for t in spawners if t != IMPORT_TIME})
        info["spawned_outside"] = IMPORT_TIME in spawners
    with store.transaction():
        store.put_recording(sorted(rows), shas, tests, json.dumps(info, sort_keys=True))
    return info


def at_startup(path: str) -> bool:
    """Whether a module imported at ``path`` (an indexed path, ``UNPLACED``) is imported
    while pytest starts: a ``conftest.py``, or code outside the index (a plugin)."""
    return path == UNPLACED or path.rsplit("/", 1)[-1] == "conftest.py"


def describe_origin(root: Path, where: child_trace.Origin) -> str:
    """``tests/conftest.py:3 (at its import)``, ``pytest_foo/plugin.py:9 (pytest_configure)``:
    a file of the project by its path, an installed one from its package on."""
    name = where.co_filename
    try:
        shown = Path(name).resolve().relative_to(root).as_posix()
    except (ValueError, OSError):
        shown = name.rpartition("site-packages" + os.sep)[2].replace(os.sep, "/")
    what = "at its import" if where.co_name == "<module>" else where.co_name
    return f"{shown}:{where.line} ({what})"


def spawn_summary(info: Mapping[str, Any]) -> str:
    """``"; 3 test(s) start a process …"`` for a recording's info (``""`` if none did)."""
    if info.get("spawned_outside"):
        return ("; a process started outside any test: functions no test ran keep the "
                "static selection")
    n = len(info.get("spawners") or ())
    return (f"; {n} test(s) start a process the recording cannot follow (always selected)"
            if n else "")


def _import_key(root: Path, test: str, files: Mapping[str, Any]) -> str:
    """An import pseudo-test named by the module's absolute file, renamed by its indexed
    path (``UNPLACED`` outside the index); a test id as it is."""
    if not test.startswith(IMPORTED):
        return test
    path = _indexed(root, test[len(IMPORTED):], files)
    return IMPORTED + (path or UNPLACED)


def _indexed(root: Path, filename: str, files: Mapping[str, Any]) -> str | None:
    try:
        rel = Path(filename).resolve().relative_to(root).as_posix()
    except (ValueError, OSError):
        return None
    return rel if rel in files else None


@dataclass
class LineRuns:
    """Who ran some lines of a function in the recorded run."""

    tests: set[str]  # test ids
    imports: set[str]  # indexed paths of the modules whose import ran them (UNPLACED: other)
    outside: bool  # run outside any test and any import (a hook, a plugin)


@dataclass
class Recording:
    """The store's recording, read for one analysis."""

    store: Store
    info: dict[str, Any]
    files: dict[str, str]  # path → sha256 when recorded
    tests: frozenset[str]  # base test ids the recording ran
    # node → {test: lines}, read once per analysis (runs and runs_lines read the same rows)
    _rows: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, store: Store) -> Recording | None:
        got = store.recording_info()
        if got is None:
            return None
        files, tests = store.recording_files(), frozenset(store.recorded_tests())
        return cls(store, json.loads(got), files, tests)

    @property
    def preimported(self) -> frozenset[str]:
        """Indexed files whose modules were imported before the recording began (by a
        pytest plugin): what ran at their import is not recorded."""
        return frozenset(self.info.get("preimported", ()))

    def started_by(self, node: str) -> str | None:
        """What ran ``node`` while pytest started (``tests/conftest.py:3 (at its import)``),
        when the recording saw it."""
        got = self.info.get("started_by") or {}
        return got.get(node)

    @property
    def spawners(self) -> frozenset[str] | None:
        """Tests that started a process, whose child may have run any code unrecorded;
        ``None`` when the recording cannot say (process starts not watched, or one started
        outside any test)."""
        got = self.info.get("spawners")
        if got is None or self.info.get("spawned_outside", True):
            return None
        return frozenset(got)

    def file_unchanged(self, path: str, text: str) -> bool:
        """Whether ``path`` held ``text`` when the suite was recorded."""
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self.files.get(path) == sha

    def stale_tests(self, current: Mapping[str, str], skip: Iterable[str] = ()) -> set[str]:
        """Tests that executed a file whose content (``current``: path → sha256) differs
        from the recorded one; files in ``skip`` (the edit's own, judged by their before
        text) are left out."""
        skipped = set(skip)
        changed = [p for p, sha in self.files.items()
                   if p not in skipped and current.get(p) != sha]
        return {t for t in self.store.tests_running_files(changed) if not is_pseudo_test(t)}

    def runs(self, node: str) -> set[str]:
        """Test ids that executed ``node`` (``IMPORT_TIME`` among them if it ran outside a
        test or during an import)."""
        return {t for t in self._test_lines(node) if not is_pseudo_test(t)}

    def _test_lines(self, node: str) -> dict[str, str]:
        if node not in self._rows:
            self._rows[node] = self.store.test_lines(node)
        return self._rows[node]

    def runs_lines(self, node: str, lines: Iterable[int] | None) -> LineRuns | None:
        """Who ran one of ``lines`` (file lines; ``None``: any line) of ``node``: tests, the
        imports, code outside any test. ``None`` when the recording cannot tell: a test
        ran ``node`` with no lines recorded, or ``node`` ran outside tests unplaced."""
        wanted = None if lines is None else sorted(set(lines))
        got = LineRuns(set(), set(), False)
        placed = False
        rows = self._test_lines(node)
        for test, text in rows.items():
            if not text:
                if test != IMPORT_TIME:
                    return None
                continue
            placed |= is_pseudo_test(test)
            if wanted is not None and not any(lo <= x <= hi for lo, hi in decode_lines(text)
                                              for x in wanted):
                continue
            if test.startswith(IMPORTED):
                got.imports.add(test[len(IMPORTED):])
            elif test == OUTSIDE:
                got.outside = True
            else:
                got.tests.add(test)
        if IMPORT_TIME in rows and not placed:
            return None  # it ran outside tests, and the recording did not say where
        return got

    def summary(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.info.get("time", 0)))
        head = str(self.info.get("head", ""))[:10]
        scope = "" if self.info.get("lines", True) else ", functions only"
        return (f"recorded run of {len(self.tests)} tests ({when} UTC"
                f"{', at ' + head if head else ''}{scope})")
