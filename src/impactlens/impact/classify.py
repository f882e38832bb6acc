"""§3.1 (a) atomic change-type classification: the file's language frontend diffs the two
versions' syntax trees (:meth:`impactlens.index.frontend.Frontend.classify`; Python's in
:mod:`impactlens.index.python.changes`), this module orders the changes and caps them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from impactlens.errors import UnparsableError
from impactlens.index.frontend import frontend_for
from impactlens.index.python.changes import params_of
from impactlens.model import AtomicChange, ChangeType, FileChange, NotAnalyzed
from impactlens.settings import DEFAULT, Settings

__all__ = ["Classified", "cap_changes", "classify", "classify_files", "params_of"]

# Precedence used when the 64-change cap must drop changes: structural changes survive.
_CAP_PRIORITY = {
    ChangeType.DELETE: 0, ChangeType.CLASS_DECL: 1, ChangeType.CONSTRUCTOR: 2,
    ChangeType.METHOD_SIGNATURE: 3, ChangeType.IMPORT: 4, ChangeType.FIELD: 5,
    ChangeType.METHOD_BODY: 6, ChangeType.ADD: 7,
}


def classify(before_src: str | None, after_src: str | None, path: str, module: str,
             settings: Settings = DEFAULT) -> list[AtomicChange]:
    """Atomic changes of one file, in file order (§3.1). Pure; never consults a model. A
    file no language frontend owns has none."""
    fe = frontend_for(path)
    if fe is None or (before_src is None and after_src is None):
        return []
    changes = fe.classify(before_src, after_src, path, module, settings)
    return cap_changes(_sorted(changes), settings.max_atomic_changes)


@dataclass(frozen=True, slots=True)
class Classified:
    """An edit's files split as the indexer splits a tree: those analysed, with their
    atomic changes (each file's capped, in file order), and those left out, with why."""

    files: tuple[FileChange, ...]
    changes: tuple[AtomicChange, ...]
    not_analyzed: tuple[NotAnalyzed, ...]


def classify_files(files: Sequence[FileChange], module_of: Callable[[str], str],
                   settings: Settings = DEFAULT) -> Classified:
    """Every file of an edit classified; a file the indexer would not parse either (a
    version over ``max_file_bytes``, a syntax error, nesting too deep, bytes that are not
    text) is recorded as not analysed, and the rest of the edit is analysed without it."""
    kept: list[FileChange] = []
    changes: list[AtomicChange] = []
    skipped: list[NotAnalyzed] = []
    for f in sorted(files, key=lambda f: f.path):
        why = f.unreadable or _too_large(f, settings.max_file_bytes)
        if why:
            skipped.append(NotAnalyzed(f.path, 0, why))
            continue
        try:
            changes.extend(classify(f.before, f.after, f.path, module_of(f.path), settings))
        except UnparsableError as exc:
            skipped.append(NotAnalyzed(f.path, exc.line, exc.why))
            continue
        except (RecursionError, MemoryError):  # a tree parsed, too deep to walk
            skipped.append(NotAnalyzed(f.path, 0, "nests expressions too deeply to analyze"))
            continue
        kept.append(f)
    return Classified(tuple(kept), tuple(changes), tuple(skipped))


def _too_large(f: FileChange, cap: int) -> str:
    """Why a version of ``f`` is over the size cap (``""``: neither is)."""
    for which, text in (("before", f.before), ("after", f.after)):
        # a character is at most four bytes: only a text near the cap is encoded to count
        if text is None or len(text) * 4 <= cap:
            continue
        size = len(text.encode("utf-8", "surrogateescape"))
        if size > cap:
            return f"the {which} version is {size} bytes (cap {cap}, max_file_bytes)"
    return ""


def _sorted(changes: list[AtomicChange]) -> list[AtomicChange]:
    return sorted(changes, key=lambda c: (c.file, c.line_range, c.entity, c.change_type.value))


def cap_changes(changes: Sequence[AtomicChange], limit: int) -> list[AtomicChange]:
    """Keep ≤ ``limit`` changes (most structural first); fold the rest into the nearest
    kept change of the same type (same file preferred), widening its line range."""
    if len(changes) <= limit:
        return list(changes)
    order = sorted(range(len(changes)),
                   key=lambda i: (_CAP_PRIORITY[changes[i].change_type], i))
    kept: dict[int, AtomicChange] = {i: changes[i] for i in order[:limit]}
    for i in order[limit:]:
        c = changes[i]
        pools = (
            [k for k, v in kept.items() if v.change_type is c.change_type and v.file == c.file],
            [k for k, v in kept.items() if v.file == c.file],
            [k for k, v in kept.items() if v.change_type is c.change_type],
            list(kept),
        )
        pool = next(p for p in pools if p)

        def gap(k: int, c: AtomicChange = c) -> tuple[int, int]:
            lo, hi = kept[k].line_range
            if kept[k].file != c.file:
                return (1 << 30, k)
            return (max(0, lo - c.line_range[1], c.line_range[0] - hi), k)

        k = min(pool, key=gap)
        t = kept[k]
        rng = t.line_range
        if t.file == c.file:
            rng = (min(rng[0], c.line_range[0]), max(rng[1], c.line_range[1]))
        kept[k] = replace(t, line_range=rng, folded=t.folded + 1 + c.folded)
    return [kept[i] for i in sorted(kept)]
