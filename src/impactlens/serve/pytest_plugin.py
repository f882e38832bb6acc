"""pytest plugin: ``pytest --impact`` runs only the tests a change reaches.

Registered through the ``pytest11`` entry point. Without ``--impact`` (or
``--impact-rev``) it only adds its options: no hook does any work and nothing of
impactlens beyond this module is imported.

With ``--impact`` the working-tree change (staged, unstaged and new files against
``HEAD``) — or ``--impact-rev REV`` — is analyzed before collection
(:mod:`impactlens.serve.pytest_selection`, cached per change: a re-run of the same state
skips the analysis) and every test outside its targeted validation set is left out,
except tests in a file that is itself changed or new: a test file no kept test lives in
is not collected at all (not even imported), the other tests of the files collected are
deselected. A one-line summary says how many were kept and why; ``--impact-explain``
lists each kept test with its cause. With no change nothing runs, the run says so, and
it counts as a success. When the analysis fails, every test runs and the summary says
why; when no test the change reaches is among those collected, a warning says so.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from impactlens.index import git

_SUMMARY = pytest.StashKey[str]()
_EMPTY = pytest.StashKey[bool]()
_RECORDER = pytest.StashKey[Any]()
_SELECTION = pytest.StashKey[tuple[Path, Any]]()  # (repository root, Selection)
_SKIPPED = pytest.StashKey[dict[str, int]]()  # test files not collected → indexed tests
_WARNING = pytest.StashKey[str]()
_EXPLAIN = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("impactlens", "change-impact test selection (impactlens)")
    group.addoption(
        "--impact", action="store_true", default=False,
        help="Run only the tests the working-tree change reaches (its targeted validation "
             "set, plus tests in changed or new test files).")
    group.addoption(
        "--impact-rev", metavar="REV", default=None,
        help="Like --impact, for a commit (against its parent) or a range A..B instead of "
             "the working tree. Implies --impact.")
    group.addoption(
        "--impact-explain", action="store_true", default=False,
        help="With the summary, list every kept test with its cause, and what was left "
             "out (implies --impact).")
    group.addoption(
        "--impact-no-cache", action="store_true", default=False,
        help="Analyze afresh instead of reusing the selection cached for this state of "
             "the working tree (.impactlens/pytest-selection.json).")
    group.addoption(
        "--impact-record", action="store_true", default=False,
        help="Record which tests run which functions and lines (a trace hook) into the "
             "impactlens index; later --impact runs and `impactlens analyze` narrow the "
             "validation set of a function change to the tests that ran its changed "
             "statements.")
    group.addoption(
        "--impact-record-functions", action="store_true", default=False,
        help="With --impact-record: record functions only, not their lines (cheaper; a "
             "body edit then selects every test that ran the function).")
    group.addoption(
        "--impact-min-conf", metavar="CONF", type=float, default=None,
        help="Minimum test confidence (TEST_MIN, 0..1) for the validation set "
             "[default: impactlens settings, 0.45].")


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("impact") or config.getoption("impact_rev")
                or config.getoption("impact_explain"))


def pytest_configure(config: pytest.Config) -> None:
    min_conf = config.getoption("impact_min_conf", None)
    if min_conf is not None and not 0.0 <= min_conf <= 1.0:
        raise pytest.UsageError(f"--impact-min-conf: {min_conf} is not within 0..1")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> None:
    """Start recording before the first conftest imports the code under test: what runs
    at import time is part of the recording."""
    if getattr(early_config.known_args_namespace, "impact_record", False):
        from impactlens.index.recording import Recorder

        recorder = Recorder(git.root_of(Path(early_config.rootpath)), lines=not getattr(
            early_config.known_args_namespace, "impact_record_functions", False))
        try:
            recorder.start()
        except RuntimeError as exc:
            raise pytest.UsageError(f"impactlens: {exc}") from None
        early_config.stash[_RECORDER] = recorder


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    recorder = item.config.stash.get(_RECORDER, None)
    if recorder is not None:  # setup, call and teardown run on the test's behalf
        test = _repo_id(item, recorder.root)[0]
        recorder.switch(test)
        recorder.shares(test, _shared_fixtures(item))
    yield
    if recorder is not None:
        recorder.switch("")


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    """A shared fixture's setup is recorded under its own key and later credited to every
    test that uses it (not only to the first, inside which it happens to run)."""
    recorder = request.config.stash.get(_RECORDER, None)
    if recorder is None or fixturedef.scope == "function":
        yield
        return
    running = recorder.running
    recorder.switch(_fixture_key(fixturedef))
    try:
        yield
    finally:
        recorder.switch(running)


def _fixture_key(fixturedef: Any) -> str:
    from impactlens.index.recording import FIXTURE

    return f"{FIXTURE}{fixturedef.argname}@{id(fixturedef)}"


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """Keys of the non-function-scoped fixtures ``item`` uses (the closest definition)."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", None) or {}
    return [_fixture_key(d[-1]) for name in getattr(item, "fixturenames", ())
            if (d := defs.get(name)) and d[-1].scope != "function"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    made = yield
    recorder = item.config.stash.get(_RECORDER, None)
    if recorder is not None:
        recorder.outcome(made.get_result().outcome)  # of the test being run


def _repo_id(item: pytest.Item, root: Path) -> tuple[str, str]:
    """(repo-relative node id, same without parametrization) of ``item``."""
    nodeid = item.nodeid
    rest = nodeid.split("::", 1)[1] if "::" in nodeid else ""
    rel = _relative(str(item.path), root) or nodeid.split("::", 1)[0]
    full = f"{rel}::{rest}" if rest else rel
    base = full.split("[", 1)[0]
    return full, base


@functools.lru_cache(maxsize=4096)  # a file's tests are many: resolve it once
def _relative(path: str, root: Path) -> str | None:
    """``path`` relative to ``root`` (symbolic links resolved), or ``None`` outside it."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def _selection(config: pytest.Config) -> tuple[Path, Any]:
    """(repository root, the change's ``Selection``), analyzed once per session."""
    got = config.stash.get(_SELECTION, None)
    if got is not None:
        return got
    from impactlens.errors import ImpactlensError
    from impactlens.serve.pytest_selection import Selection, selection

    rev = config.getoption("impact_rev")
    root = git.root_of(Path(config.rootpath))
    try:
        with _plain_imports(config):
            sel = selection(root, rev, config.getoption("impact_min_conf"),
                            use_cache=not config.getoption("impact_no_cache"))
    except ImpactlensError as exc:  # the input is wrong: the user says what to analyze
        raise pytest.UsageError(f"impactlens: {exc}") from None
    except Exception as exc:  # never fewer tests for a failure of ours
        what = f"revision {rev}" if rev else "the working tree"
        sel = Selection(what, failed=f"{type(exc).__name__}: {exc}".splitlines()[0])
    config.stash[_SELECTION] = got = (root, sel)
    return got


@contextlib.contextmanager
def _plain_imports(config: pytest.Config) -> Iterator[None]:
    """Import the analysis as Python does, not through pytest's assertion rewriter.

    pytest rewrites every module of a distribution that provides a plugin, so all of
    impactlens, and a rewritten module bypasses Python's bytecode cache: where pytest
    cannot write its own (``PYTHONDONTWRITEBYTECODE``, a read-only install) every run
    parses and compiles again the hundred modules the analysis imports, seconds of a run
    that selects a few tests. Nothing but the analysis imports while this is in force
    (it runs before collection), and no assertion of impactlens's is under test.
    """
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    at = next((i for i, f in enumerate(sys.meta_path) if f is hook), None)
    if at is None:
        yield
        return
    del sys.meta_path[at]
    try:
        yield
    finally:
        sys.meta_path.insert(min(at, len(sys.meta_path)), hook)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    if _active(session.config):  # before the first file is collected (a usage error here)
        _selection(session.config)
        session.config.stash[_SKIPPED] = {}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave out a file no kept test lives in: it is not imported, nor collected."""
    if not _active(config) or collection_path.name in ("conftest.py", "__init__.py"):
        return None
    root, sel = _selection(config)
    if sel.failed or not collection_path.is_file():
        return None
    try:
        rel = collection_path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    if rel in sel.test_files() or _named(config, collection_path):
        return None
    if rel in sel.tests_in or _looks_like_tests(collection_path.name):
        config.stash.setdefault(_SKIPPED, {})[rel] = sel.tests_in.get(rel, 0)
    return True


def _looks_like_tests(name: str) -> bool:
    """A test module by pytest's default names (what the index has not counted)."""
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _named(config: pytest.Config, path: Path) -> bool:
    """Whether ``path`` was given on the command line (it is then collected, and its tests
    deselected)."""
    here = config.invocation_params.dir
    return any((here / str(a).split("::", 1)[0]).resolve() == path.resolve()
               for a in config.args)


def _select(config: pytest.Config, items: list[pytest.Item]) -> tuple[list[Any], list[Any], str]:
    root, sel = _selection(config)
    if sel.failed:
        return list(items), [], f"the analysis failed ({sel.failed}): every test runs"
    if sel.nothing:
        return [], list(items), f"no Python change in {sel.what}: nothing to test"
    kept, dropped, explain = [], [], []
    n_valid = n_changed = 0
    for it in items:
        full, base = _repo_id(it, root)
        cause = sel.cause(full, base)
        if cause is None:
            dropped.append(it)
            continue
        kept.append(it)
        explain.append(f"{it.nodeid}  {cause}")
        if full in sel.tests or base in sel.tests:
            n_valid += 1
        else:
            n_changed += 1
    if sel.tests and not n_valid:
        config.stash[_WARNING] = (
            f"impactlens: WARNING: none of the {len(sel.tests)} tests the change reaches is "
            f"among the {len(items)} collected (pytest rootdir {config.rootpath}): the paths "
            "given leave them out, or their ids do not match this run's")
    config.stash[_EXPLAIN] = explain
    files = sel.files
    shown = ", ".join(files[:3]) + (f" (+{len(files) - 3} more)" if len(files) > 3 else "")
    why = (f"{sel.what} changes {shown}; {n_valid} in the validation set "
           f"(TEST_MIN {sel.test_min:g})")
    if n_changed:
        why += f", {n_changed} in changed test files"
    return kept, dropped, why


@pytest.hookimpl(trylast=True)  # after -k / -m deselection: count what is left
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not _active(config):
        return
    kept, dropped, why = _select(config, items)
    skipped = config.stash.get(_SKIPPED, {})
    total = len(items) + sum(skipped.values())
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    left = (f" ({len(skipped)} unaffected test file{'s' if len(skipped) != 1 else ''} not "
            "collected)" if skipped else "")
    counted = "" if _selection(config)[1].nothing else f"/{total}"  # (no index read)
    config.stash[_SUMMARY] = f"impactlens: selected {len(kept)}{counted} tests{left}: {why}"
    config.stash[_EMPTY] = not kept


def _explain(config: pytest.Config) -> list[str]:
    """The ``--impact-explain`` section: each kept test and its cause, what was left out."""
    _root, sel = _selection(config)
    lines = list(config.stash.get(_EXPLAIN, []))
    skipped = config.stash.get(_SKIPPED, {})
    if skipped:
        names = sorted(skipped)
        lines.append(f"not collected: {sum(skipped.values())} tests in {len(names)} files "
                     f"({', '.join(names[:5])}{', …' if len(names) > 5 else ''})")
    if sel.note:
        lines.append(sel.note)
    if sel.cached:
        lines.append("(the selection cached for this state of the working tree: no analysis "
                     "ran; --impact-no-cache analyzes afresh)")
    return lines


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    if _active(config) and config.getoption("impact_explain") and _SELECTION in config.stash:
        terminalreporter.write_sep("=", "impactlens selection")
        for line in _explain(config):
            terminalreporter.write_line(line)
    if _WARNING in config.stash:
        terminalreporter.write_line(config.stash[_WARNING], yellow=True, bold=True)
    if config.stash.get(_RECORDER, None) is not None and _SUMMARY in config.stash:
        terminalreporter.write_line(config.stash[_SUMMARY])


def pytest_report_collectionfinish(config: pytest.Config) -> list[str] | None:
    if not _active(config) or _SUMMARY not in config.stash:
        return None
    return [config.stash[_SUMMARY], *([config.stash[_WARNING]] if _WARNING in config.stash
                                      else [])]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    recorder = config.stash.get(_RECORDER, None)
    if recorder is not None:
        from impactlens.index.recording import spawn_summary

        info = recorder.finish()
        config.stash[_SUMMARY] = (f"impactlens: recorded {info['tests']} tests running "
                                  f"{info['rows']} (test, function) pairs in {info['files']} "
                                  f"files into {recorder.root / '.impactlens'}"
                                  f"{spawn_summary(info)}")
    if not _active(config) or not config.stash.get(_EMPTY, False):
        return
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK  # nothing to test is a pass
