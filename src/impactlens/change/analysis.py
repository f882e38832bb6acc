"""Proposed change → impact result: the glue behind ``Project.analyze``.

Reads the change (one of the four input modes), brings the index up to date,
gathers co-change candidates from history (when that channel exists) and runs
the impact pipeline. Also writes the three output files atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from impactlens.change import inputs
from impactlens.change.inputs import ProposedChange
from impactlens.errors import BadInputError

if TYPE_CHECKING:
    from impactlens.api import Project
    from impactlens.model import ImpactResult

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
    paths = [f.path for f in change.files]
    got = fn(paths, task=change.task, as_of=change.as_of)
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[1], str):
        return got[0], got[1]
    return got, ""


def analyze(project: Project, change: ProposedChange) -> ImpactResult:
    """Run the impact pipeline on ``change`` against ``project``'s (fresh) index."""
    from impactlens.impact.pipeline import run_pipeline

    store = project.store
    co_change, note = _co_change(project, change)
    graph = before_graph(project, change)
    return run_pipeline(
        graph,
        change.files,
        module_of=project.module_of,
        co_change=co_change,
        co_change_note=note,
        unresolved=graph.unresolved_sites() if graph is not store else store.unresolved_sites(),
        settings=project.settings,
    )


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


def impact_json_text(result: ImpactResult) -> str:
    return json.dumps(result.impact_json(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_outputs(result: ImpactResult, out_dir: Path) -> list[Path]:
    """``changes.json``, ``impact.json``, ``test_map.txt`` into ``out_dir`` (each atomic)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInputError(f"{out_dir}: cannot create the output directory ({exc.strerror})") \
            from None
    texts: Sequence[tuple[str, str]] = (
        ("changes.json", json.dumps(result.changes_json(), indent=2, ensure_ascii=False) + "\n"),
        ("impact.json", impact_json_text(result)),
        ("test_map.txt", result.test_map_text()),
    )
    written = []
    for name, text in texts:
        p = out_dir / name
        try:
            _atomic_write(p, text)
        except OSError as exc:
            raise BadInputError(f"{p}: cannot write ({exc.strerror})") from None
        written.append(p)
    return written
