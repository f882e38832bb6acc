"""The regression measure (``--run-tests``): the subject's suite at the parent and seeded,
through a small pytest plugin that writes each test's outcome, the breaking tests confirmed
by reruns, the parent's recorded run, and the per-(commit, seed) cache of all of them."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from impactlens.bench.history.cases import Seed
from impactlens.index import child_trace
from impactlens.settings import DEFAULT, Settings, to_env

# the plugin's module name: written into a temporary directory put first on the path
PLUGIN_MODULE = "impactlens_bench_plugin"
# the plugin: {test id: outcome} of the session, written to $IMPACTLENS_BENCH_OUT
PLUGIN = '''
import json, os
_out = {}
_root = ""  # pytest's rootdir from the work tree (tests/ when its pytest.ini sits there)
def pytest_configure(config):
    global _root
    rel = os.path.relpath(str(config.rootpath), str(config.invocation_params.dir))
    _root = "" if rel == "." else rel
def _id(nodeid):  # the repository's test id (pytest's is relative to its rootdir)
    path, sep, rest = nodeid.partition("::")
    return os.path.normpath(os.path.join(_root, path)).replace(os.sep, "/") + sep + rest
def pytest_collection_modifyitems(session, config, items):
    for it in items:
        _out.setdefault(_id(it.nodeid), "collected")
def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        prev = _out.get(_id(report.nodeid))
        if prev in (None, "collected", "passed") or report.outcome == "failed":
            _out[_id(report.nodeid)] = report.outcome if report.when == "call" or \\
                report.outcome == "skipped" else "error"
def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["IMPACTLENS_BENCH_OUT"], "w") as fh:
        json.dump(_out, fh)
'''

# a test module that fails to import errors its own tests, not the whole session (pytest
# stops at a collection error: every other test would count as broken without running)
_SUITE_FLAGS = ("--continue-on-collection-errors",)
_BROKEN = ("failed", "error")
_RECHECKS = 2  # reruns of the breaking candidates, at the parent and seeded

# a (cached) suite run: (key, ids=(), seed=None) -> outcomes, as `seeded_suite` binds it
SuiteRun = Callable[..., dict[str, str] | None]


def write_plugin(plugin_dir: Path) -> None:
    """Put the outcome plugin in ``plugin_dir`` (the directory `run_suite` is given)."""
    (plugin_dir / f"{PLUGIN_MODULE}.py").write_text(PLUGIN)


def suite_env(wt: Path, *first: Path) -> dict[str, str]:
    """The environment a subject's suite runs in: ``first``, then the work tree's ``src``
    (a src layout) and the work tree itself ahead of anything installed."""
    paths = [*map(str, first), *([str(wt / "src")] if (wt / "src").is_dir() else []), str(wt)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def run_suite(wt: Path, timeout: float, plugin_dir: Path, extra: Sequence[str] = (),
              ids: Sequence[str] = (), start_up: Path | None = None,
              settings: Settings | None = None) -> dict[str, str] | None:
    """``{test id: outcome}`` of the work tree's suite, or of the tests ``ids`` only
    (``None`` on timeout; ``{}`` when pytest ended without running anything — a
    ``conftest.py`` or a plugin that imports the package failed to import: every test
    counts as an error, since a seed that breaks the package's own import breaks the whole
    suite, and a parent run with no test passed counts as not run). ``start_up``: a
    directory for the stub that traces the pytest process from its start-up (a recording,
    as ``impactlens record`` runs it); ``settings``: the run's, for the recorder's re-index."""
    out = plugin_dir / f"out-{os.getpid()}-{time.monotonic_ns()}.json"
    env = suite_env(wt, plugin_dir) | (to_env(settings) if settings is not None else {})
    if start_up is not None:
        env = child_trace.start_up_env(wt, start_up, env=env)
    env["IMPACTLENS_BENCH_OUT"] = str(out)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    target = list(ids) or (["tests"] if (wt / "tests").is_dir() else
                           (["testing"] if (wt / "testing").is_dir() else []))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
           PLUGIN_MODULE, "-o", "addopts=", *_SUITE_FLAGS, *extra, *target]
    if importlib.util.find_spec("pytest_timeout") is not None:
        cmd[4:4] = ["--timeout", "60"]  # a hanging test fails, the suite goes on
    try:
        subprocess.run(cmd, cwd=wt, env=env, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    try:
        data = json.loads(out.read_text())
    except (OSError, ValueError):
        return {}  # pytest stopped before its session began: nothing ran
    finally:
        out.unlink(missing_ok=True)
    return {k: ("error" if v == "collected" else v) for k, v in data.items()}


def seeded_suite(cache: Path | None, sha: str, wt: Path, timeout: float, plugin_dir: Path,
                 extra: Sequence[str], key: str, ids: Sequence[str] = (),
                 seed: Seed | None = None) -> dict[str, str] | None:
    """A (cached) suite run, of ``ids`` only when given, with ``seed`` applied if given."""
    with _seed_applied(wt, seed):
        return cached_suite(cache, sha, key, wt, timeout, plugin_dir, extra, ids=ids)


def confirmed_breaking(before: dict[str, str], after: dict[str, str], seed: Any,
                       run: SuiteRun) -> list[str]:
    """Tests that passed at the parent and fail seeded — rerun on their own, at the parent
    and seeded, :data:`_RECHECKS` times each, and kept only if they pass and fail every
    time (a flaky or order-dependent test is not the seed's breakage: starlette's suite,
    whose warnings are errors, fails a dozen tests at random in a run)."""
    brk = sorted(t for t, o in before.items() if o == "passed" and after.get(t, "error")
                 in _BROKEN)
    for i in range(_RECHECKS):
        if not brk:
            break
        tag = "" if i == 0 else str(i + 1)
        parent = run(f"{seed.key}-recheck{tag}", brk) or {}
        seeded = run(f"{seed.key}-recheck-seeded{tag}", brk, seed=seed) or {}
        brk = [t for t in brk if parent.get(t) == "passed"
               and seeded.get(t, "error") in _BROKEN]
    return brk


@contextlib.contextmanager
def _seed_applied(wt: Path, seed: Seed | None) -> Iterator[None]:
    """The work tree with ``seed``'s file seeded (nothing when ``seed`` is None), restored
    afterwards."""
    if seed is None:
        yield
        return
    target = wt / seed.file
    original = target.read_bytes()
    try:
        target.write_text(seed.seeded, encoding="utf-8")
        yield
    finally:
        target.write_bytes(original)


def _cache_file(cache: Path | None, sha: str, key: str, extra: Sequence[str]) -> Path | None:
    """Where a run's result is cached: per commit, seed and pytest arguments."""
    if cache is None:
        return None
    args = hashlib.sha256(" ".join([*_SUITE_FLAGS, *extra]).encode()).hexdigest()[:8]
    return cache / f"{sha}-{key}-{args}.json"


def cached_suite(cache: Path | None, sha: str, key: str, wt: Path, timeout: float,
                 plugin_dir: Path, extra: Sequence[str] = (),
                 ids: Sequence[str] = ()) -> dict[str, str] | None:
    """`run_suite`, from the cache when this (commit, key, arguments) ran before."""
    path = _cache_file(cache, sha, key, extra)
    if path is not None and path.exists():
        data = json.loads(path.read_text())
        return data.get("outcomes")
    outcomes = run_suite(wt, timeout, plugin_dir, extra, ids)
    if path is not None and outcomes is not None:  # a timeout is not cached: a longer one may do
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"outcomes": outcomes}, sort_keys=True))
    return outcomes


def cached_recording(cache: Path | None, sha: str, wt: Path, store: Any, timeout: float,
                     plugin_dir: Path, extra: Sequence[str] = (),
                     settings: Settings = DEFAULT) -> Any:
    """The parent's recorded test run (``pytest --impact-record``) in ``store``: from the
    cache, else run (and cached). ``None`` when the recording run did not complete."""
    from impactlens.index.recording import Recording

    path = _cache_file(cache, sha, "record-10", extra)
    if path is not None and path.exists():
        data = json.loads(path.read_text())
        with store.transaction():
            store.put_recording([tuple(r) for r in data["rows"]], data["files"], data["tests"],
                                data["info"])
    elif run_suite(wt, timeout, plugin_dir, [*extra, "--impact-record"],
                   start_up=_dir(plugin_dir / "start-up"), settings=settings) is None:
        return None
    elif store.recording_info() is None:
        return None  # the recording run stored nothing (pytest failed to start): not cached
    elif path is not None:
        data = {"rows": store.recording_rows(), "files": store.recording_files(),
                "tests": store.recorded_tests(), "info": store.recording_info()}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, sort_keys=True))
    return Recording.load(store)


def _dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
