"""Recorded test runs narrow the §3.5 targeted validation set (when a recording exists).

The static test map over-approximates: in a CLI or a framework nearly every test reaches a
core function through some call path, and a call the graph cannot bind fans out to every
candidate. A recorded run (:mod:`impactlens.index.recording`) says which tests really
executed a function. For a change to a function or method body (or its signature) — whose
effect can only be seen by running it — a test that did not run it at the recorded state
cannot observe the change, and a test that did is affected directly.

Per change, with ``R`` = the tests recorded running the changed function:

- used only when the changed file's *before* text is the recorded one and the change is to
  a function or method's body or signature (or deletes it);
- for a body edit, ``R`` narrows to the tests that executed one of the *statements* the edit
  touches (:mod:`impactlens.impact.statements`: the replaced statements, the statement right
  before an added one, or the first statement of the block an edit starts; the whole
  function where nothing narrower is sound); a method's store to an attribute nothing in
  the work tree reads (:mod:`impactlens.impact.unread`) is no statement a test must have
  run, so an edit made of such stores alone selects no recorded test. An edit to the
  function's own docstring is seen by whoever reads ``__doc__`` without running it: the
  tests that name the function (the static map's direct ``TESTS`` edges) and its own
  doctest (``path::module.qualname``, when recorded) are added — for a decorated function,
  the whole static selection (a decorator may read it when the module is imported);
- where those lines (or the function) ran while a module was being imported — a class
  decorator, a registry call — the tests defined in that module or importing it (directly
  or through other modules' top-level imports, the static map's import-time rule) are
  added; if the importing module is a ``conftest.py`` or outside the index (a plugin), or
  the lines ran outside any test and any import (a hook), every recorded test is (relation
  ``STARTUP``): an error there stops pytest before any test runs;
- a module a pytest plugin imported before the recording began ran its import-time code
  unrecorded, while pytest started: a change in its file selects every recorded test;
- a test in ``R`` is selected at the ``TESTS`` weight, relation ``RECORDED``;
- a test that started a process (the recording's *spawners*) may have run the change in the
  child, unrecorded: it is selected for every change, at the same weight, relation
  ``SUBPROCESS``; so, where process starts were watched, a function no test ran selects the
  spawners alone (where they were not, or a process started outside any test, such a change
  keeps the static map);
- a static selection stays when the recording cannot speak for that test: it did not run in
  the recording (added since, deselected), or it is *stale* — it executed a file whose
  content changed since the recording;
- every other static selection is dropped: the recording shows it does not run the change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from impactlens.impact.statements import INERT, Touched, Unread, touched_statements
from impactlens.impact.testmap import tests_importing
from impactlens.impact.unread import UnreadAttributes
from impactlens.index.recording import IMPORT_TIME, Recording, at_startup
from impactlens.model import (
    AtomicChange,
    ChangeType,
    FileChange,
    IndexGraph,
    NodeKind,
    SourceTree,
    TestImpact,
)
from impactlens.settings import DEFAULT, Settings

__all__ = ["RecordedTests", "recorded_tests"]

RECORDED = "RECORDED"
SUBPROCESS = "SUBPROCESS"  # the test starts a process, which the recording did not follow
STARTUP = "STARTUP"  # the change ran (or may have run) while pytest starts: every test
_EVERY: set[str] = set()  # the observers of a change run while pytest starts: every test
_KINDS = frozenset({"function", "method"})
_TYPES = frozenset({ChangeType.METHOD_BODY, ChangeType.METHOD_SIGNATURE,
                    ChangeType.CONSTRUCTOR, ChangeType.DELETE})


@dataclass
class RecordedTests:
    """A recording prepared for one analysis: which changed files it speaks for and which
    of its tests are stale."""

    recording: Recording
    fresh_files: frozenset[str]
    stale: frozenset[str]
    narrowed: list[str] = field(default_factory=list)  # seeds whose tests were narrowed
    by_lines: list[str] = field(default_factory=list)  # … to tests that ran changed lines
    unrun: list[str] = field(default_factory=list)  # … where no test ran the changed lines
    at_import: list[str] = field(default_factory=list)  # … that ran at some module's import
    docs: list[str] = field(default_factory=list)  # … whose docstring changed
    early: list[str] = field(default_factory=list)  # … in modules imported before recording
    session: list[str] = field(default_factory=list)  # … run while pytest starts: every test
    inert: list[str] = field(default_factory=list)  # … changing only what no test observes
    attributes: UnreadAttributes | None = None  # the work tree, to find what nothing reads

    def refine(self, change: AtomicChange, seed: str, hits: Sequence[TestImpact],
               settings: Settings = DEFAULT, graph: IndexGraph | None = None
               ) -> list[TestImpact]:
        """``hits`` (the static selection of ``change``) narrowed by the recording, with the
        tests that start a process (their child may run the change, unrecorded); ``graph``
        places what ran at import time (without it, such a change keeps ``hits``)."""
        kept, every = self._narrow(change, seed, hits, settings, graph)
        w = settings.test_edge_weights["TESTS"]
        for extra, relation in ((self.recording.spawners or frozenset(), SUBPROCESS),
                                (self.recording.tests if every else frozenset(), STARTUP)):
            have = {t.test_id for t in kept}
            kept += [TestImpact(file=change.file, test_id=t, conf=w, via=seed, relation=relation)
                     for t in sorted(extra - have)]
        return sorted(kept, key=lambda t: (-t.conf, t.test_id))

    def _narrow(self, change: AtomicChange, seed: str, hits: Sequence[TestImpact],
                settings: Settings, graph: IndexGraph | None) -> tuple[list[TestImpact], bool]:
        """The selection and whether every recorded test joins it (the change may stop
        pytest from starting)."""
        if (change.kind not in _KINDS or change.change_type not in _TYPES
                or change.file not in self.fresh_files):
            return list(hits), False
        if change.file in self.recording.preimported:  # what its import ran is unrecorded
            self.early.append(seed)
            self.narrowed.append(seed)
            return list(hits), True
        ran = self.recording.runs(seed)
        if not ran and self.recording.spawners is None:
            return list(hits), False  # it may have run only in a child process nobody watched
        touched = _touched(change, self._unread(change, seed, graph),
                           self._present(change, seed, graph))
        if touched.why == INERT:
            self.inert.append(seed)
        observers = (set() if not ran or (touched.scope == "lines" and not touched.lines)
                     else self._observers(seed, touched, graph, ran))
        if observers is None:
            return list(hits), False
        if observers is _EVERY:
            self.narrowed.append(seed)
            return list(hits), True
        if not ran:
            self.unrun.append(seed)
        doctest = f"{change.file}::{seed}"  # its own doctest, when the suite collects them
        if touched.doc and doctest in self.recording.tests:
            observers.add(doctest)
        unknown = self.stale | (set(t.test_id for t in hits) - self.recording.tests)
        readers = _doc_readers(touched.doc, seed, hits)
        kept = [t for t in hits if t.test_id in unknown | readers]
        observers -= readers
        if touched.doc:
            self.docs.append(seed)
        w = settings.test_edge_weights["TESTS"]
        kept += [TestImpact(file=change.file, test_id=t, conf=w, via=seed, relation=RECORDED)
                 for t in sorted(observers - self.stale)]
        self.narrowed.append(seed)
        return kept, False

    def _unread(self, change: AtomicChange, seed: str, graph: IndexGraph | None
                ) -> Unread | None:
        """Which attributes of the class of ``seed`` (a method) nothing reads — its class
        family is looked at only if the edit holds a store to ask about."""
        attributes = self.attributes
        if attributes is None or graph is None or change.kind != "method":
            return None

        def unread(stores: Mapping[str, int]) -> set[str]:
            of_class = attributes.of_method(graph, seed)
            return set() if of_class is None else of_class(stores)

        return unread

    def _present(self, change: AtomicChange, seed: str, graph: IndexGraph | None
                 ) -> frozenset[str]:
        """For a module's ``__getattr__``, the names lookup on the module always finds."""
        attributes = self.attributes
        if (attributes is None or graph is None or change.kind != "function"
                or not seed.endswith(".__getattr__")):
            return frozenset()
        node = graph.node(seed)
        module = graph.node(node.parent) if node and node.parent else None
        if module is None or module.kind is not NodeKind.MODULE:
            return frozenset()
        return attributes.module_names(change.file)

    def _observers(self, seed: str, touched: Touched, graph: IndexGraph | None,
                   ran: set[str]) -> set[str] | None:
        """The tests that ran the touched lines of ``seed`` (any line, for a whole-function
        change), and those a module whose import ran them can affect — every recorded test
        when they ran outside any test (a pytest hook) or at the import of a ``conftest.py``
        or of code outside the index (a plugin): a failure there stops the whole session.
        (:data:`_EVERY`). ``None`` when the recording cannot say (lines unrecorded, a module
        it cannot place). ``ran``: the tests that ran it."""
        got = self.recording.runs_lines(seed, touched.lines if touched.scope == "lines"
                                        else None)
        if got is None:
            return None if IMPORT_TIME in ran else ran
        if got.outside or any(at_startup(p) for p in got.imports):
            self.session.append(seed)  # an error there stops pytest before any test runs
            return _EVERY
        tests = set(got.tests)
        if got.imports:
            affected = self._import_observers(got.imports, graph)
            if affected is None:
                return None
            tests |= affected
            self.at_import.append(seed)
        if touched.scope == "lines":
            self.by_lines.append(seed)
            if not tests:
                self.unrun.append(seed)
        return tests

    def _import_observers(self, paths: set[str], graph: IndexGraph | None) -> set[str] | None:
        """Tests in, or importing, the modules at ``paths`` (their import ran the change)."""
        if graph is None:
            return None
        modules = [next((n.id for n in self.recording.store.nodes_in_file(p)
                         if n.kind is NodeKind.MODULE), None) for p in sorted(paths)]
        if None in modules:
            return None
        return tests_importing(graph, [m for m in modules if m is not None])

    def _started(self) -> str:
        """What ran the changed functions while pytest started, as the recording saw it."""
        named = [f"{s} from {by}" for s in dict.fromkeys(self.session)
                 if (by := self.recording.started_by(s))]
        if not named:
            return "a conftest's import, a plugin, a hook"
        more = len(set(self.session)) - len(named[:3])
        return "; ".join(named[:3]) + (f"; +{more} more" if more else "")

    def note(self) -> str:
        what = self.recording.summary()
        if not self.narrowed:
            return f"tests: {what}; it did not narrow this change's tests"
        stale = f", {len(self.stale)} stale" if self.stale else ""
        lines = (f" ({len(self.by_lines)} to the tests that ran the changed statements)"
                 if self.by_lines else "")
        unrun = (f"; no recorded test ran the changed statements of {', '.join(self.unrun)}"
                 if self.unrun else "")
        spawners = self.recording.spawners
        unrun += (f"; {len(spawners)} test(s) that start a process (unrecorded) kept"
                  if spawners else "")
        imports = (f"; {len(self.at_import)} ran at import: with the tests importing those "
                   "modules" if self.at_import else "")
        docs = (f"; {len(self.docs)} docstring edit(s): with the tests that can read it"
                if self.docs else "")
        docs += (f"; {len(self.early)} in modules imported before the recording began (by a "
                 "pytest plugin): every recorded test (`impactlens record` traces from "
                 "start-up)" if self.early else "")
        docs += (f"; {len(self.inert)} change only what no test can observe (stores "
                 "nothing reads, branches no lookup reaches): no test"
                 if self.inert else "")
        docs += (f"; {len(self.session)} ran while pytest starts ({self._started()}): every "
                 "recorded test" if self.session else "")
        return (f"tests: {what}{stale}; narrowed the tests of {len(self.narrowed)} "
                f"changed function(s) to those that ran them{lines}{imports}{docs}{unrun}")


def _doc_readers(doc: str, seed: str, hits: Sequence[TestImpact]) -> set[str]:
    """The statically selected tests that can read a changed docstring: those naming the
    function (``"named"``), or all of them (``"any"``: a decorator may have read it)."""
    if doc == "any":
        return {t.test_id for t in hits}
    if doc == "named":
        return {t.test_id for t in hits if t.via == seed and t.relation == "TESTS"}
    return set()


def _touched(change: AtomicChange, unread: Unread | None, present: frozenset[str]
             ) -> Touched:
    """The statements of a body edit, in file lines (the whole function for other edits)."""
    body = change.body
    if (change.change_type is not ChangeType.METHOD_BODY or body is None
            or body.before_src is None or body.after_src is None):
        return Touched("function")
    got = touched_statements(body.before_src, body.after_src, unread, present)
    return dataclasses.replace(got, lines=frozenset(x + body.before_start - 1 for x in got.lines))


def recorded_tests(recording: Recording | None, current: Mapping[str, str],
                   changes: Sequence[FileChange], tree: SourceTree | None = None
                   ) -> RecordedTests | None:
    """Prepare ``recording`` for a change. ``current``: path → sha256 of the indexed files
    (the edit's own files are judged by their before text instead); ``tree``: the work
    tree, searched for what reads an attribute the edit stores (``None``: not searched)."""
    if recording is None:
        return None
    edited = {f.path for f in changes}
    fresh = frozenset(f.path for f in changes
                      if f.before is not None and recording.file_unchanged(f.path, f.before))
    stale = recording.stale_tests(current, skip=edited)
    attributes = (None if tree is None
                  else UnreadAttributes(tree, {f.path: f.after for f in changes},
                                        {f.path: f.before for f in changes}))
    return RecordedTests(recording, fresh, frozenset(stale), attributes=attributes)
