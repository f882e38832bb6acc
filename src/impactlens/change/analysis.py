"""Proposed change → impact result: the glue behind ``Project.analyze``.

Reads the change (one of the four input modes), brings the index up to date,
gathers co-change candidates from history (when that channel exists) and runs
the impact pipeline. Also writes the three output files atomically.
"""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from impactlens.answer import budgeted_json, build_answer, json_text
from impactlens.change import inputs
from impactlens.change.inputs import ProposedChange
from impactlens.errors import BadInputError
from impactlens.fileio import atomic_write, parse_python
from impactlens.settings import DEFAULT, Settings

if TYPE_CHECKING:
    from impactlens.api import Project
    from impactlens.impact.recorded import RecordedTests
    from impactlens.model import FileChange, ImpactResult

__all__ = ["analyze", "impact_json_text", "read_change", "write_outputs"]

OUTPUT_FILES = ("changes.json", "impact.json", "test_map.txt")


def read_change(
    project: Project,
    *,
    before: str | Path | None = None,
    after: str | Path | None = None,
    path: str | None = None,
    diff: str | bytes | None = None,
    diff_source: str = "diff",
    rev: str | None = None,
    task: str | None = None,
    as_of: str | int | None = None,
    cwd: Path | None = None,
) -> ProposedChange:
    """The proposed change, in order of precedence: before/after, diff, rev, working tree."""
    root = project.root
    cut = inputs.parse_as_of(as_of)
    if before is not None or after is not None:
        if before is None or after is None:
            raise BadInputError("--before and --after go together: give both files")
        return inputs.from_before_after(
            root, before, after, path=path, task=task or "", as_of=cut, cwd=cwd
        )
    if path is not None:
        raise BadInputError("--path names the file of a --before/--after pair; give those too")
    if diff is not None:
        return inputs.from_diff(root, diff, source=diff_source, task=task or "", as_of=cut)
    if rev is not None:
        return inputs.from_rev(root, rev, task=task, as_of=cut)
    return inputs.from_worktree(root, task=task or "", as_of=cut)


def _co_change(project: Project, change: ProposedChange) -> tuple[Mapping[str, Any], str]:
    """Co-change candidates per edited file, from the history channel when it is built."""
    fn = getattr(project, "co_change", None)
    if fn is None or not change.files:
        return {}, "co-change: history channel not available"
    from impactlens.impact.cochange import edited_symbols

    paths = [f.path for f in change.files]
    settings = project.settings
    symbols = (edited_symbols(change.files, project.module_of, settings)
               if settings.weighs_symbols else None)  # σ = 1: no need to classify here
    # a past commit's files are named as then; the other inputs are the indexed tree's
    got = fn(paths, task=change.task, as_of=change.as_of if change.dated else None,
             symbols=symbols,
             as_indexed=change.mode != "rev")
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], str):
        return got[0], got[1]
    return got, ""


def analyze(project: Project, change: ProposedChange) -> ImpactResult:
    """Run the impact pipeline on ``change`` against ``project``'s (fresh) index."""
    from impactlens.change.written import edit_uses
    from impactlens.impact.pipeline import run_pipeline

    co_change, note = _co_change(project, change)
    graph = before_graph(project, change)
    uses = edit_uses(project.store, change.files, project.module_of)
    return run_pipeline(
        graph,
        change.files,
        module_of=project.module_of,
        co_change=co_change,
        co_change_note=note,
        unresolved=relevant_unresolved(project, graph, change),
        task=change.task or "",
        written=uses.written,
        removed=uses.removed,
        missing=uses.missing,
        unexported=uses.unexported,
        # a past commit's neighbours are not the disk's: what reads an attribute is unknown
        recorded=(recorded_runs(project.store, change.files,
                                None if change.mode == "rev" else project.root)
                  if project.settings.use_recorded_runs else None),
        retired=_retired(project, change),
        named=_task_named(project, change),
        settings=project.settings,
    )


def _retired(project: Project, change: ProposedChange) -> Mapping[str, Any]:
    """Files mentioning what the change retired: the other files as they are on disk, or,
    for a past commit, in its base (the files it did not edit are the same there)."""
    if "retired" not in project.settings.channels:
        return {}
    if change.mode == "rev":
        return project.retired(change.files, at=change.base) if change.base else {}
    return project.retired(change.files)


def _task_named(project: Project, change: ProposedChange) -> Mapping[str, Any]:
    """Library files defining what the task text names as code (impact/tasknamed.py)."""
    if "named" not in project.settings.channels or not change.task:
        return {}
    edited = [f.path for f in change.files]
    if change.mode == "rev":  # as the base had them, not as the work tree has them now
        return project.task_named(change.task, edited, at=change.base) if change.base else {}
    return project.task_named(change.task, edited)


def recorded_runs(store: Any, files: Sequence[FileChange], root: Path | None = None
                  ) -> RecordedTests | None:
    """The store's recorded test run prepared for this change (None: nothing recorded);
    ``root``: the work tree, searched for what reads an attribute the change stores."""
    from impactlens.impact.recorded import recorded_tests
    from impactlens.index.recording import Recording

    recording = Recording.load(store)
    if recording is None:
        return None
    return recorded_tests(recording, {r.path: r.sha256 for r in store.files()}, files, root)


def relevant_unresolved(project: Project, graph: Any, change: ProposedChange) -> list[Any]:
    """The un-analyzable sites the pipeline could match to this change — a superset:
    every dynamic site (getattr/registry/importlib/eval/globals), every site in a changed
    file, and every other site whose text or names mention a changed entity's name or
    module. Loading all sites of a large repository costs seconds; this costs milliseconds.
    """
    from impactlens.model import UnresolvedReason

    where = getattr(graph, "unresolved_sites_where", None)
    if where is None:
        return list(graph.unresolved_sites())
    mentions: set[str] = set()
    for f in change.files:
        mentions.add(project.module_of(f.path))
        mentions |= changed_names(f.before, f.after)
    dynamic = [r.value for r in UnresolvedReason
               if r not in (UnresolvedReason.UNKNOWN_RECEIVER, UnresolvedReason.UNKNOWN_NAME,
                            UnresolvedReason.EXTERNAL)]
    files = [f.path for f in change.files]
    try:  # sites resolving outside the repository never match: skip them (served from memory)
        return list(where(reasons=dynamic, words=mentions, files=files, external=False))
    except TypeError:  # a graph whose query has no `external` switch
        return list(where(reasons=dynamic, words=mentions, files=files))


def before_graph(project: Project, change: ProposedChange) -> Any:
    """The graph of the tree *before* the change.

    For ``--diff`` and ``--before/--after`` the indexed working tree is the
    before-state already. For the working tree (and a revision), the index holds
    the after-state; when the change removes definitions, other files' references
    to them no longer resolve there, so those files are re-resolved against the
    before-text of the changed files (an in-memory overlay, nothing is written).
    """
    store = project.store
    if change.mode in ("diff", "before-after"):
        return store
    try:
        from impactlens.change.overlay import overlay_for
    except ImportError:  # pragma: no cover - overlay needs the index's resolver
        return store
    return overlay_for(project, change) or store


def _changed_regions(before: str, after: str) -> tuple[set[int], set[int]]:
    """Lines (1-based) of ``before`` / ``after`` inside changed regions, for pre-filtering
    unresolved sites: a superset of :func:`impactlens.impact.pipeline.changed_lines` (the
    line before a pure insertion or deletion too; the common prefix and suffix are trimmed
    and the middle is diffed with autojunk on, which is fast on large files)."""
    a, b = before.splitlines(), after.splitlines()
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    old: set[int] = set()
    new: set[int] = set()
    sm = difflib.SequenceMatcher(None, a[lo : len(a) - hi], b[lo : len(b) - hi])
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        # a pure insertion/deletion also touches the line before it
        old.update(range(lo + i1, lo + max(i2, i1 + 1) + 1))
        new.update(range(lo + j1, lo + max(j2, j1 + 1) + 1))
    old.discard(0)
    new.discard(0)
    return old, new


def _names_on(text: str | None, lines: set[int] | None) -> set[str]:
    """Names defined, bound or imported by statements on ``lines`` (all when ``None``),
    including the names of the definitions enclosing them."""
    tree = parse_python(text) if text else None
    if tree is None:
        return set()
    out: set[str] = set()

    def hit(node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:
            return True  # the module itself
        end = getattr(node, "end_lineno", None) or start
        return lines is None or any(start <= n <= end for n in lines)

    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).rsplit(".", 1)[-1] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.add(n.id)
                    elif isinstance(n, ast.Attribute):
                        out.add(n.attr)
        # only statements carry bindings; descend where the changed lines are
        stack.extend(c for c in ast.iter_child_nodes(node)
                     if isinstance(c, ast.stmt) and hit(c))
    return out


def changed_names(before: str | None, after: str | None) -> set[str]:
    """A superset of the leaf names of the entities an edit changes (cheap: two parses)."""
    if before is None or after is None:
        return _names_on(before, None) | _names_on(after, None)
    old, new = _changed_regions(before, after)
    return _names_on(before, old) | _names_on(after, new)


def impact_json_text(result: ImpactResult, settings: Settings = DEFAULT, *,
                     detail: bool = False) -> str:
    """``impact.json``: the answer within its token budget (whole with ``detail``)."""
    return json_text(budgeted_json(build_answer(result), settings, detail=detail))


def write_outputs(result: ImpactResult, out_dir: Path, settings: Settings = DEFAULT, *,
                  detail: bool = False) -> list[Path]:
    """``changes.json``, ``impact.json``, ``test_map.txt`` into ``out_dir`` (each atomic);
    ``test_map.txt`` is always whole, ``impact.json`` whole only with ``detail``."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInputError(f"{out_dir}: cannot create the output directory ({exc.strerror})") \
            from None
    texts: Sequence[tuple[str, str]] = (
        ("changes.json", json.dumps(result.changes_json(), indent=2, ensure_ascii=False) + "\n"),
        ("impact.json", impact_json_text(result, settings, detail=detail)),
        ("test_map.txt", result.test_map_text()),
    )
    written = []
    for name, text in texts:
        p = out_dir / name
        try:
            atomic_write(p, text)
        except OSError as exc:
            raise BadInputError(f"{p}: cannot write ({exc.strerror})") from None
        written.append(p)
    return written
