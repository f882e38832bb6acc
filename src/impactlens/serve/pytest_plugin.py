"""pytest plugin: ``pytest --impact`` runs only the tests a change reaches.

Registered through the ``pytest11`` entry point. Without ``--impact`` (or
``--impact-rev``) it only adds its options: no hook does any work and nothing of
impactlens beyond this module is imported.

With ``--impact`` the working-tree change (staged, unstaged and new files against
``HEAD``) — or ``--impact-rev REV`` — is analyzed and every collected test outside its
targeted validation set is deselected, except tests in a file that is itself changed
or new. A one-line summary says how many were kept and why. With no change nothing
runs, the run says so, and it counts as a success.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from impactlens.index import git

_SUMMARY = pytest.StashKey[str]()
_EMPTY = pytest.StashKey[bool]()
_RECORDER = pytest.StashKey[Any]()


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
    return bool(config.getoption("impact") or config.getoption("impact_rev"))


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
    try:
        rel = Path(item.path).resolve().relative_to(root).as_posix()
    except ValueError:
        rel = nodeid.split("::", 1)[0]
    full = f"{rel}::{rest}" if rest else rel
    base = full.split("[", 1)[0]
    return full, base


def _select(config: pytest.Config, items: list[pytest.Item]) -> tuple[list[Any], list[Any], str]:
    from dataclasses import replace

    from impactlens.api import Project, repository_settings
    from impactlens.errors import ImpactlensError

    rev = config.getoption("impact_rev")
    min_conf = config.getoption("impact_min_conf")
    root = git.root_of(Path(config.rootpath))
    what = f"revision {rev}" if rev else "the working tree"
    try:
        settings = repository_settings(root)
        if min_conf is not None:
            settings = replace(settings, test_map_min=min_conf)
        with Project(root, settings) as project:
            change = project.proposed_change(rev=rev) if rev else project.proposed_change()
            changed = set(change.paths) | set(change.other_files)
            if not change.files:  # (a changed test file is a Python change)
                return [], list(items), f"no Python change in {what}: nothing to test"
            result = project.analyze(change)
    except ImpactlensError as exc:
        raise pytest.UsageError(f"impactlens: {exc}") from None
    validate = set(result.validate)
    kept, dropped = [], []
    n_valid = n_changed = 0
    for it in items:
        full, base = _repo_id(it, root)
        if full in validate or base in validate:
            kept.append(it)
            n_valid += 1
        elif full.split("::")[0] in changed:
            kept.append(it)
            n_changed += 1
        else:
            dropped.append(it)
    files = sorted(change.paths)
    shown = ", ".join(files[:3]) + (f" (+{len(files) - 3} more)" if len(files) > 3 else "")
    why = (f"{what} changes {shown}; {n_valid} in the validation set "
           f"(TEST_MIN {settings.test_map_min:g})")
    if n_changed:
        why += f", {n_changed} in changed test files"
    return kept, dropped, why


@pytest.hookimpl(trylast=True)  # after -k / -m deselection: count what is left
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not _active(config):
        return
    total = len(items)
    kept, dropped, why = _select(config, items)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[_SUMMARY] = f"impactlens: selected {len(kept)}/{total} tests: {why}"
    config.stash[_EMPTY] = not kept


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    if config.stash.get(_RECORDER, None) is not None and _SUMMARY in config.stash:
        terminalreporter.write_line(config.stash[_SUMMARY])


def pytest_report_collectionfinish(config: pytest.Config) -> str | None:
    if not _active(config):
        return None
    return config.stash.get(_SUMMARY, None)


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
