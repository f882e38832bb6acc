"""Recording inside a test's child processes (``pytest --impact-record``).

While a recording runs, the recorder puts a directory holding a ``sitecustomize.py`` first on
``PYTHONPATH`` and names, in the environment, the directory children report to and the test
running now. A Python child started with that environment imports the stub at start-up,
which calls :func:`start`: the child writes ``<pid>.start`` (the test's id), traces the
project's code (the functions and lines run under the project root, outside installed
packages), writes ``<pid>.ran`` when it first runs some of it and, when it exits normally,
``<pid>.json``; a child it forks does the same under its own pid. A child that cannot import
this module (another interpreter), or that starts a process it cannot see in turn (a fresh
environment, ``exec``), writes ``<pid>.blind``. The recorder reads the reports at the end
(:func:`read_reports`) and credits what each child ran to the test that started it; a child
that ran project code and never reported (killed, ``os._exit``, still running) or was blind
leaves its test a *spawner* — selected for every change, as if the child had run anything.
(One that never reported but ran none of the project's code — ``multiprocessing``'s
resource tracker, a server killed before it imported the project — ran nothing a change
can reach.)

The same stub serves ``impactlens record``'s own pytest process: started with
``IMPACTLENS_EARLY=1`` (:func:`start_up_env`), it traces the project's code from the
interpreter's start-up (:func:`start_early`) until the recorder takes over
(:func:`take_early`) — so what a pytest plugin's import of the project ran before the
recording began is known, not assumed to be anything — and where each of the project's
functions it saw first was started from (:func:`origin`: a plugin's import, a hook).

Standard library only: it runs at every child's start-up, before the child's own code.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

__all__ = ["ENV_DIR", "ENV_EARLY", "ENV_LINES", "ENV_ROOT", "ENV_TEST", "SPAWNS", "ChildCode",
           "Early", "Origin", "Reports", "imported", "in_project", "origin", "read_reports",
           "sitecustomize", "start", "start_early", "start_up_env", "stub_vars", "take_early",
           "unseen"]

ENV_DIR = "IMPACTLENS_CHILD_DIR"  # where children report (and the stub lives)
ENV_ROOT = "IMPACTLENS_CHILD_ROOT"  # the project root: only code under it is traced
ENV_TEST = "IMPACTLENS_CHILD_TEST"  # the test (or shared fixture key) running in the parent
ENV_LINES = "IMPACTLENS_CHILD_LINES"  # "1": lines too, "0": functions only
ENV_EARLY = "IMPACTLENS_EARLY"  # "1": trace this process from start-up for its recorder
PRIVATE = "_impactlens_child_trace"  # the name the stub loads this module under

# the stub: stdlib only, silent, then the sitecustomize it shadows (if any) runs as before
_STUB = '''\
# impactlens stub: traces this process for a recording (impactlens.index.child_trace)
import os as _os
def _load():  # this module by its path: importing the impactlens package this early would
    import importlib.util, sys  # keep pytest from rewriting its plugin (a warning, an error
    name = "{private}"  # under -W error)
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, {path})
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
def _impactlens():
    if _os.environ.pop("{early}", None) == "1":  # the recording's own process (not its children)
        try:
            _load().start_early()
        except Exception:  # the recorder then says what ran before it is unknown
            pass
        return
    out = _os.environ.get("{dir}")
    if not out:
        return
    try:
        _load().start()
    except Exception:  # another interpreter: this child's run is not seen
        try:
            with open(_os.path.join(out, "%d.blind" % _os.getpid()), "w") as f:
                f.write(_os.environ.get("{test}", ""))
        except OSError:
            pass
def _chain():  # the sitecustomize this one shadows, if any, runs as it would have
    import importlib.machinery, importlib.util, sys
    here = _os.path.dirname(_os.path.abspath(__file__))
    try:
        for entry in sys.path:
            if _os.path.abspath(entry or ".") != here:
                spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
                if spec is not None and spec.loader is not None and not _ours(spec.origin):
                    break
        else:
            return
    except Exception:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
def _ours(path):  # another copy of this stub (the start-up one, behind a child's): skipped
    try:
        with open(path) as f:
            return f.readline().startswith("# impactlens stub")
    except OSError:
        return False
_impactlens()
_chain()
del _impactlens, _chain, _ours
'''


# the audit events of starting a process (multiprocessing's spawn and forkserver start
# methods raise none: their children report through the environment like any other)
SPAWNS = frozenset({"subprocess.Popen", "os.system", "os.fork", "os.forkpty", "os.posix_spawn",
                    "os.spawn", "os.exec", "os.startfile"})
_BLIND = frozenset({"os.exec", "os.spawn", "os.startfile"})  # what ran before exec is lost
_ISOLATING = frozenset({"-I", "-E", "-S"})  # python flags that ignore PYTHONPATH or site


def unseen(event: str, args: tuple[Any, ...]) -> bool:
    """Whether a process start (an audit event in :data:`SPAWNS` other than a fork, which
    the caller judges) gives a child the recording will not see: an ``exec``, a fresh
    environment, or a Python flag that skips ``PYTHONPATH`` or ``site``."""
    if event in _BLIND:
        return True
    if event in ("os.fork", "os.forkpty"):
        return False
    try:
        if event == "os.system":
            argv: Any = str(args[0]).split()
            env = None
        else:  # subprocess.Popen: (executable, args, cwd, env); os.posix_spawn: (path, argv, env)
            argv, env = args[1], args[-1]
            argv = argv.split() if isinstance(argv, str | bytes) else argv
        if any(os.fsdecode(a) in _ISOLATING for a in argv):
            return True
        return env is not None and not _reports(env)
    except Exception:  # an argument of an unexpected shape: assume the worst
        return True


def _reports(env: Mapping[Any, Any]) -> bool:
    """Whether a child started with ``env`` reports to the running recording."""
    get = {os.fsdecode(k): os.fsdecode(v) for k, v in env.items()}.get
    here = os.environ.get(ENV_DIR)
    return bool(here) and get(ENV_DIR) == here and here in (get("PYTHONPATH") or "").split(
        os.pathsep)


class ChildCode(NamedTuple):
    """A code object a child ran, as the parent's recording keys code objects."""

    co_filename: str
    co_name: str
    co_firstlineno: int


def sitecustomize() -> str:
    """The ``sitecustomize.py`` the recorder puts first on the children's ``PYTHONPATH``."""
    return _STUB.format(dir=ENV_DIR, test=ENV_TEST, early=ENV_EARLY, private=PRIVATE,
                        path=repr(os.path.abspath(__file__)))


def stub_vars(stub: Path, root: Path, lines: bool, pythonpath: str | None
              ) -> dict[str, str]:
    """The variables that have a process trace the project at ``root``: the stub, written
    to the directory ``stub``, first on ``PYTHONPATH`` (before ``pythonpath``)."""
    (stub / "sitecustomize.py").write_text(sitecustomize())
    return {ENV_ROOT: str(root), ENV_LINES: "1" if lines else "0",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(stub), pythonpath]))}


def start_up_env(root: Path, stub: Path, lines: bool = True,
                 env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a pytest process whose recorder sees what ran before it began:
    ``env`` (default ``os.environ``) with the stub, written to the directory ``stub``, first
    on ``PYTHONPATH``."""
    base = dict(os.environ if env is None else env)
    return {**base, **stub_vars(stub, root, lines, base.get("PYTHONPATH")), ENV_EARLY: "1"}


class Origin(NamedTuple):
    """Where the run of some of the project's code began: a frame outside it."""

    co_filename: str
    line: int
    co_name: str


_IMPORT_SYSTEM = f"{os.sep}importlib{os.sep}"  # (and "<frozen importlib._bootstrap>")
# callers that are no one's doing but pytest's: a hook call, a plugin pytest imports
_PYTEST = (f"{os.sep}_pytest{os.sep}", f"{os.sep}pluggy{os.sep}", f"{os.sep}runpy.py")


def origin(frame: FrameType, ours: Any) -> Origin:
    """Where the run that reached ``frame`` (the project's code) began: the first frame out
    from it that is neither ``ours`` (a predicate on file names) nor the import system — a
    conftest's line, a test module's, a plugin's; reached from pytest's or pluggy's own
    calls instead (a hook, a plugin pytest imports), the outermost of ours (that hook, that
    module's line)."""
    last = frame
    f = frame.f_back
    while f is not None:
        name = f.f_code.co_filename
        if ours(name):
            last = f
        elif not (name.startswith("<frozen ") or _IMPORT_SYSTEM in name):
            if any(m in name for m in _PYTEST):
                break
            return Origin(name, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return Origin(last.f_code.co_filename, last.f_lineno, last.f_code.co_name)


class Early(NamedTuple):
    """What the start-up trace saw before the recorder took over."""

    ran: dict[ChildCode, frozenset[int]]  # code → lines (empty sets when lines were off)
    preimported: frozenset[str]  # the project's files imported before the trace began
    origins: dict[ChildCode, Origin]  # code → where its first run began


# the start-up trace of the recording's own process: (code → lines, hook, project files
# already imported when it began, code → origin), until the recorder takes it
_early: tuple[dict[Any, set[int]], Any, frozenset[str], dict[Any, Origin]] | None = None


def start_early() -> None:
    """Trace this process's run of the project's code from now until :func:`take_early`."""
    global _early
    root = os.path.join(os.environ.get(ENV_ROOT, "/"), "")
    ran: dict[Any, set[int]] = {}
    origins: dict[Any, Origin] = {}
    hook = _tracer(root, os.environ.get(ENV_LINES, "1") == "1", ran, lambda: None, origins)
    _early = (ran, hook, imported(root), origins)
    threading.settrace(hook)
    sys.settrace(hook)


def take_early() -> Early | None:
    """Stop the start-up trace: what it saw run, the project's files imported before it
    began, where each function's first run began. ``None`` when there was none."""
    global _early
    home = sys.modules.get(PRIVATE)  # where the stub loaded this module at start-up
    if home is not None and getattr(home, "_early", None) is not None:
        state = home._early  # type: ignore[attr-defined]
        home._early = None  # type: ignore[attr-defined]
    elif _early is not None:
        state, _early = _early, None
    else:
        return None
    ran, hook, before, origins = state
    if sys.gettrace() is hook:
        sys.settrace(None)
    threading.settrace(None)  # type: ignore[arg-type]
    return Early({_child_code(c): frozenset(x) for c, x in ran.items()}, before,
                 {_child_code(c): o for c, o in origins.items()})


def _child_code(code: Any) -> ChildCode:
    return ChildCode(code.co_filename, code.co_name, code.co_firstlineno)


def _tracer(root: str, lines: bool, ran: dict[Any, set[int]], first: Any,
            origins: dict[Any, Origin] | None = None) -> Any:
    """A trace function adding the project's code objects run (and their lines) to ``ran``;
    ``first()`` when the first of them runs; where each began, into ``origins``."""
    ours: dict[str, bool] = {}

    def project(name: str) -> bool:
        mine = ours.get(name)
        if mine is None:
            mine = ours[name] = in_project(name, root)
        return mine

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        ran.setdefault(frame.f_code, set()).add(frame.f_lineno)  # (cleared by a fork)
        return local

    def hook(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code not in ran:
            if not project(code.co_filename):
                return None
            if not ran:
                first()
            ran[code] = set()
            if origins is not None:
                origins[code] = origin(frame, project)
        return local if lines else None

    return hook


def start() -> None:
    """Trace this (child) process's run of the project's code; report it at exit."""
    out = Path(os.environ[ENV_DIR])
    root = os.path.join(os.environ.get(ENV_ROOT, "/"), "")  # with the separator
    lines = os.environ.get(ENV_LINES, "1") == "1"
    test = os.environ.get(ENV_TEST, "")
    ran: dict[Any, set[int]] = {}
    # its first code of the project's: if it never reports, that counts
    hook = _tracer(root, lines, ran, lambda: _touch(out / f"{os.getpid()}.ran", test))

    def report() -> None:
        sys.settrace(None)
        codes = [[c.co_filename, c.co_name, c.co_firstlineno, sorted(x)] for c, x in ran.items()]
        tmp = out / f"{os.getpid()}.part"
        with contextlib.suppress(OSError):  # (the recording may be over: nobody to report to)
            tmp.write_text(json.dumps({"test": test, "codes": codes}))
            tmp.replace(out / f"{os.getpid()}.json")

    def begin() -> None:  # here, and in a child this one forks (its own pid, its own report)
        _touch(out / f"{os.getpid()}.start", test)
        if ran:  # forked amid the project's code: it may go on running it, unannounced
            _touch(out / f"{os.getpid()}.ran", test)
        ran.clear()

    def audit(event: str, args: tuple[Any, ...]) -> None:  # a grandchild it cannot see
        if event in SPAWNS and unseen(event, args):
            _touch(out / f"{os.getpid()}.blind", test)

    begin()
    os.register_at_fork(after_in_child=begin)
    sys.addaudithook(audit)
    atexit.register(report)
    threading.settrace(hook)
    sys.settrace(hook)


def imported(root: str) -> frozenset[str]:
    """The files of the project's modules imported in this process so far."""
    return frozenset(f for m in list(sys.modules.values())
                     if isinstance(f := getattr(m, "__file__", None), str)
                     and in_project(f, root))


def in_project(filename: str, root: str) -> bool:
    """Whether a code object's file is the project's own (under ``root``, not installed)."""
    return filename.startswith(root) and "site-packages" not in filename


def _touch(path: Path, text: str) -> None:
    with contextlib.suppress(OSError):  # (the recording may be over: nobody to report to)
        path.write_text(text)


class Reports(NamedTuple):
    """What the children of a recording reported."""

    ran: dict[str, dict[ChildCode, frozenset[int]]]  # test → code → lines (empty: calls only)
    unseen: set[str]  # tests with a child that ran blind, or ran project code and never reported


def read_reports(out: Path) -> Reports:
    """The reports in ``out``, keyed by the test that started each child."""
    ran: dict[str, dict[ChildCode, frozenset[int]]] = {}
    unseen: set[str] = set()
    for marker in sorted(out.glob("*.start")):
        report = marker.with_suffix(".json")
        try:
            data = json.loads(report.read_text())
        except (OSError, ValueError):  # killed, os._exit, still running: what did it run?
            if marker.with_suffix(".ran").exists():
                unseen.add(marker.read_text())
            continue
        into = ran.setdefault(str(data["test"]), {})
        for filename, name, first, got in data["codes"]:
            key = ChildCode(filename, name, int(first))
            into[key] = into.get(key, frozenset()) | frozenset(got)
    unseen.update(p.read_text() for p in out.glob("*.blind"))
    return Reports(ran, unseen)
