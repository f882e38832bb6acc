"""Recorded test runs: which tests executed which functions, from a real run of the suite.

``pytest --impact-record`` (or ``impactlens record``) runs the suite under coverage.py with
one dynamic context per test (its node id) and the empty context for everything outside a
test — collection, imports, a module's top-level code. :func:`save_recording` maps every
executed line to the innermost function or method whose *body* holds it (a ``def`` line and
its decorators run when the module is imported, not when the function is called) and stores
``(test, node)`` rows, with the sha256 of every measured file as it was recorded. Lines run
outside any test are stored under the test id ``""``: a function with such a row runs at
import time (a class decorator, a module-level call), so every importer's tests may see it.

The stage reads the rows through :class:`Recording` (``impact/recorded.py`` decides how). A
test's rows are trusted only while every file it executed is unchanged since the recording
(per-test freshness, as regression-test-selection tools such as Ekstazi and pytest-testmon
do): a test that ran a file edited since is judged by the static test map alone.

Known blind spots, as for any coverage-based selection: code run in a subprocess is not
seen (coverage.py is not started there), and a module- or session-scoped fixture is set up
inside the first test that uses it, so only that test is credited with what it ran.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from impactlens.index.store import Store
from impactlens.model import Node, NodeKind

__all__ = ["IMPORT_TIME", "Recording", "body_spans", "save_recording"]

IMPORT_TIME = ""  # the test id of lines run outside any test (collection, imports)
_CALLABLE = (NodeKind.FUNCTION, NodeKind.METHOD)
_WORST = {"passed": 0, "skipped": 1, "failed": 2}


class CoverageData(Protocol):
    """The part of ``coverage.CoverageData`` read here."""

    def measured_files(self) -> Iterable[str]: ...
    def contexts_by_lineno(self, filename: str) -> Mapping[int, list[str]]: ...


def base_test_id(test: str) -> str:
    """A pytest node id without its parametrization (``t.py::test_x[1]`` → ``t.py::test_x``)."""
    return test.split("[", 1)[0]


def body_spans(source: str, nodes: Iterable[Node]) -> list[tuple[int, int, str]]:
    """``(first body line, last line, node id)`` of each function/method node of a file,
    sorted. The body starts at the first statement (the signature, decorators and default
    values are evaluated when the ``def`` runs, at import); nodes are matched to the source's
    ``def``s by name and last line."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    starts: dict[tuple[str, int], int] = {}
    for d in ast.walk(tree):
        if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.end_lineno:
            starts[(d.name, d.end_lineno)] = d.body[0].lineno
    out = []
    for n in nodes:
        first = starts.get((n.qualname.rsplit(".", 1)[-1], n.end_line))
        if n.kind in _CALLABLE and first is not None:
            out.append((first, n.end_line, n.id))
    return sorted(out)


def _innermost(spans: list[tuple[int, int, str]], line: int) -> str | None:
    """The node whose body holds ``line`` and starts last (nested defs start later)."""
    i = bisect.bisect_right(spans, (line, float("inf"), ""))
    for first, last, node in reversed(spans[:i]):
        if first <= line <= last:
            return node
    return None


def _file_rows(spans: list[tuple[int, int, str]], lines: Mapping[int, list[str]]
               ) -> set[tuple[str, str]]:
    rows: set[tuple[str, str]] = set()
    for line, contexts in lines.items():
        node = _innermost(spans, line)
        if node is None:
            continue
        for ctx in contexts:
            rows.add((base_test_id(ctx.split("|", 1)[0]), node))
    return rows


def save_recording(store: Store, root: Path, data: CoverageData,
                   outcomes: Mapping[str, str], *, head: str = "") -> dict[str, Any]:
    """Replace the store's recording with ``data`` (coverage with per-test contexts) for the
    indexed files under ``root``; ``outcomes`` maps each test run (node id) to its outcome."""
    indexed = {r.path: r for r in store.files()}
    rows: list[tuple[str, str, str]] = []
    shas: dict[str, str] = {}
    for measured in data.measured_files():
        try:
            rel = Path(measured).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        if rel not in indexed:
            continue
        raw = (root / rel).read_bytes()
        shas[rel] = hashlib.sha256(raw).hexdigest()
        spans = body_spans(raw.decode("utf-8", "replace"), store.nodes_in_file(rel))
        rows.extend((t, n, rel) for t, n in _file_rows(spans, data.contexts_by_lineno(measured)))
    tests = {base_test_id(t): o for t, o in outcomes.items()}
    info = {"head": head, "time": int(time.time()), "tests": len(tests), "files": len(shas),
            "rows": len(rows)}
    with store.transaction():
        store.put_recording(rows, shas, tests, json.dumps(info, sort_keys=True))
    return info


@dataclass
class Recording:
    """The store's recording, read for one analysis."""

    store: Store
    info: dict[str, Any]
    files: dict[str, str]  # path → sha256 when recorded
    tests: frozenset[str]  # base test ids the recording ran

    @classmethod
    def load(cls, store: Store) -> Recording | None:
        got = store.recording_info()
        if got is None:
            return None
        files, tests = store.recording_files(), frozenset(store.recorded_tests())
        return cls(store, json.loads(got), files, tests)

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
        return self.store.tests_running_files(changed)

    def runs(self, node: str) -> set[str]:
        """Test ids that executed ``node`` (``IMPORT_TIME`` among them if it ran outside a
        test: at collection, an import, a module's top level)."""
        return self.store.tests_running(node)

    def summary(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.info.get("time", 0)))
        head = str(self.info.get("head", ""))[:10]
        return (f"recorded run of {len(self.tests)} tests ({when} UTC"
                f"{', at ' + head if head else ''})")


class Recorder:
    """coverage.py measuring ``root``'s files, one dynamic context per test (driven by the
    pytest plugin's ``--impact-record``), saved into the index when the session ends."""

    def __init__(self, root: Path) -> None:
        import coverage

        self.root = root
        self.outcomes: dict[str, str] = {}
        self._cov = coverage.Coverage(data_file=None, config_file=False,
                                      source=[str(root)],
                                      omit=["*/site-packages/*", "*/.venv/*", "*/.tox/*"])

    def start(self) -> None:
        self._cov.start()
        self._cov.switch_context(IMPORT_TIME)

    def switch(self, test: str) -> None:
        self._cov.switch_context(test)

    def outcome(self, test: str, outcome: str) -> None:
        """Keep a test's worst phase outcome (a failed setup or teardown fails it)."""
        old = self.outcomes.get(test)
        if old is None or _WORST.get(outcome, 2) > _WORST.get(old, 2):
            self.outcomes[test] = outcome

    def finish(self) -> dict[str, Any]:
        """Stop measuring, bring the index up to date and store the recording."""
        from impactlens.api import Project
        from impactlens.change import git as gitcmd

        self._cov.stop()
        data = self._cov.get_data()
        git = gitcmd.is_repository(self.root) and gitcmd.has_head(self.root)
        head = gitcmd.resolve_commit(self.root, "HEAD") if git else ""
        with Project(self.root) as project:
            project.index()
            return save_recording(project.store, self.root, data, self.outcomes, head=head)
