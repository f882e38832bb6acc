"""Recorded test runs narrow the §3.5 targeted validation set (when a recording exists).

The static test map over-approximates: in a CLI or a framework nearly every test reaches a
core function through some call path, and a call the graph cannot bind fans out to every
candidate. A recorded run (:mod:`impactlens.index.recording`) says which tests really
executed a function. For a change to a function or method body (or its signature) — whose
effect can only be seen by running it — a test that did not run it at the recorded state
cannot observe the change, and a test that did is affected directly.

Per change, with ``R`` = the tests recorded running the changed function:

- used only when the changed file's *before* text is the recorded one, the change is to a
  function or method's body or signature (or deletes it), ``R`` is not empty (a function no
  test ran may run in a subprocess the recording did not follow) and it never ran at import time
  (then every importer's tests may see it: the static map, with its import-time rule, stays);
- for a body edit, ``R`` narrows further to the tests that executed one of the *statements*
  the edit touches (:mod:`impactlens.impact.statements`: the replaced statements, or the
  innermost block holding an added or restructured one; the whole function where nothing
  narrower is sound). An edit to the function's own docstring is left to the static map:
  ``__doc__`` is read without running the function;
- a test in ``R`` is selected at the ``TESTS`` weight, relation ``RECORDED``;
- a static selection stays when the recording cannot speak for that test: it did not run in
  the recording (added since, deselected), or it is *stale* — it executed a file whose
  content changed since the recording;
- every other static selection is dropped: the recording shows it does not run the change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from impactlens.impact.statements import Touched, touched_statements
from impactlens.index.recording import IMPORT_TIME, Recording
from impactlens.model import AtomicChange, ChangeType, FileChange, TestImpact
from impactlens.settings import DEFAULT, Settings

__all__ = ["RecordedTests", "recorded_tests"]

RECORDED = "RECORDED"
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

    def refine(self, change: AtomicChange, seed: str, hits: Sequence[TestImpact],
               settings: Settings = DEFAULT) -> list[TestImpact]:
        """``hits`` (the static selection of ``change``) narrowed by the recording."""
        if (change.kind not in _KINDS or change.change_type not in _TYPES
                or change.file not in self.fresh_files):
            return list(hits)
        ran = self.recording.runs(seed)
        if not ran or IMPORT_TIME in ran:
            return list(hits)
        touched = _touched(change)
        if touched.scope == "static":
            return list(hits)
        narrower = self.recording.runs_lines(seed, touched.lines) if touched.lines else None
        if narrower is not None:
            ran = narrower
            self.by_lines.append(seed)
            if not ran:
                self.unrun.append(seed)
        unknown = self.stale | (set(t.test_id for t in hits) - self.recording.tests)
        kept = [t for t in hits if t.test_id in unknown]
        w = settings.test_edge_weights["TESTS"]
        kept += [TestImpact(file=change.file, test_id=t, conf=w, via=seed, relation=RECORDED)
                 for t in sorted(ran - self.stale)]
        self.narrowed.append(seed)
        return sorted(kept, key=lambda t: (-t.conf, t.test_id))

    def note(self) -> str:
        what = self.recording.summary()
        if not self.narrowed:
            return f"tests: {what}; it did not narrow this change's tests"
        stale = f", {len(self.stale)} stale" if self.stale else ""
        lines = (f" ({len(self.by_lines)} to the tests that ran the changed statements)"
                 if self.by_lines else "")
        unrun = (f"; no recorded test ran the changed statements of {', '.join(self.unrun)}"
                 if self.unrun else "")
        return (f"tests: {what}{stale}; narrowed the tests of {len(self.narrowed)} "
                f"changed function(s) to those that ran them{lines}{unrun}")


def _touched(change: AtomicChange) -> Touched:
    """The statements of a body edit, in file lines (the whole function for other edits)."""
    body = change.body
    if (change.change_type is not ChangeType.METHOD_BODY or body is None
            or body.before_src is None or body.after_src is None):
        return Touched("function")
    got = touched_statements(body.before_src, body.after_src)
    return Touched(got.scope, frozenset(x + body.before_start - 1 for x in got.lines), got.why)


def recorded_tests(recording: Recording | None, current: Mapping[str, str],
                   changes: Sequence[FileChange]) -> RecordedTests | None:
    """Prepare ``recording`` for a change. ``current``: path → sha256 of the indexed files
    (the edit's own files are judged by their before text instead)."""
    if recording is None:
        return None
    edited = {f.path for f in changes}
    fresh = frozenset(f.path for f in changes
                      if f.before is not None and recording.file_unchanged(f.path, f.before))
    stale = recording.stale_tests(current, skip=edited)
    return RecordedTests(recording, fresh, frozenset(stale))
