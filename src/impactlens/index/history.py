"""Git history → the store's ``commits`` / ``commit_files`` tables, incrementally.

:func:`update_history` runs after the code part of every ``impactlens index`` has been
committed (the code index answers before history is mined). It records, for every commit
of the window (below) that it has not stored: the sha, the author date (epoch seconds), the
full message, and each changed file, renames detected and recorded with their old path —
ONE ``git log --no-walk --stdin --name-status -M -z`` over all of them, parsed as git
writes it (:mod:`impactlens.index.gitlog`) and stored in batches of ``_BATCH`` commits,
one write transaction each. Line counts (``--numstat``) only with
``settings.history_line_counts``: they make git read and diff every changed file, 10–20×
the cost of the tree diffs and the rename matching, and co-change uses them only to break
ties (binary files, and every file without them, count ``-1``).

The window: the newest ``settings.history_max_commits`` commits of the walk (0 = all), so
the stored history is a function of ``HEAD`` and the settings. A run may be given a
``budget`` (an implicit refresh mines ``settings.history_refresh_commits``): it mines that
many of the missing commits, newest first, and records how many are left; the next run
continues there, as it does after a run that was killed or interrupted between batches.
The note (and through it the co-change channel's note in every answer) says how far
mining has got: ``history: 5000 of 16578 commits indexed, newest first``.

Which commits (``settings.history_first_parent``):

* ``False`` (default) — every **non-merge** commit reachable from ``HEAD``
  (``git rev-list --no-merges HEAD``). Merges are skipped: their changes are
  already recorded on the commits they merge.
* ``True`` — the **first-parent** chain only; a merge on that chain is recorded
  as ONE change set, its diff against the first parent (a merged pull request
  counts like a squash commit), because skipping merges on the first-parent
  chain would drop every merged branch.

Touched definitions: a second pass per batch (``git log -p -U0 -M -- '*.py'``, with a diff
driver whose hunk header is the nearest ``def``/``class`` line above the hunk, indentation
kept) records per (commit, file) the names of the functions and classes the hunks touched —
each changed line's innermost enclosing definition by indentation below that header;
module-level code and a class attribute between two methods name none (which class, a
``-U0`` hunk cannot tell) — and the definitions renamed (one ``def`` line replaced by one
of the same depth and text but the name). Names are leaf names (``meth``, not
``Cls.meth``). On click's 2,146 commits the pass adds about a second to a cold mining.

Incremental: the window is listed (``rev-list``, cheap) and compared with the stored set —
only missing commits are mined, commits no longer in it (a rebase, a reset, a checkout of
an older revision, HEAD moving the window past them) are dropped, so the table always
describes exactly the window behind ``HEAD``. When ``HEAD``, the horizon and the settings
are as the last complete run left them, nothing runs but one ``rev-parse``.

Robustness: no ``git`` executable or no repository → the history is empty and
the summary says so (the co-change channel is then empty, never an error); an
empty repository (no commits) → empty; a detached ``HEAD`` is just a commit;
a shallow clone → the commits that are there are mined and the summary says the
history is truncated. The boundary commit of a shallow clone has no parent in
the clone, so its diff would list every file as added: it is recorded with no
files (it cannot form co-change pairs) and re-mined if the clone is deepened.

Clones that lack file contents: a partial clone (``--filter=blob:none``) is mined by
changed path only (``--no-renames``), since reading what it lacks would fetch it from its
remote; in any other clone a commit whose diff needs a missing content stops git, and
mining runs again from the next commit (at most ``_MAX_RESTARTS`` times, then by path only).
Each stored commit records what it lacked (``unread``: its contents, or only the
definitions it changed), and the note and :func:`history_facts` count them.

Each commit's parent count is stored (``parents``): a root commit — the initial import,
whose diff lists every file of the project as added — is kept but never forms co-change
pairs (click's 30-file initial import would pair every original module).

Commits touching more than ``settings.history_max_files_per_commit`` files
(default 50) are *kept* (``n_files`` holds the true count) but the co-change
stage (:mod:`impactlens.impact.cochange`) excludes them from co-change pairs:
sweeping reformat/rename/licence-header commits say nothing about coupling.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from impactlens.errors import ImpactlensError
from impactlens.index import git as gitcmd
from impactlens.index.git import GitError
from impactlens.index.gitlog import (
    UNREAD_CONTENTS,
    UNREAD_DEFINITIONS,
    CommitRecord,
    FileTouch,
    LogParser,
)
from impactlens.index.store import Store
from impactlens.settings import Settings

__all__ = [
    "CommitRecord",
    "FileTouch",
    "HistorySummary",
    "history_facts",
    "load_history",
    "mine_commits",
    "update_history",
]

_META_HEAD = "history_head"
_META_MODE = "history_mode"
_META_SHALLOW = "history_shallow"
_META_STATE = "history_state"
_META_PENDING = "history_pending"  # commits of the window a run left for the next
_META_BEYOND = "history_beyond"  # "1": HEAD has more commits than the horizon takes
_META_HORIZON = "history_horizon"  # the horizon the stored window was listed with
_SHA_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_BATCH = 2000  # commits per write transaction (and per touched-definitions pass)


@dataclass(frozen=True, slots=True)
class HistorySummary:
    """What one :func:`update_history` run did; ``note`` is shown by ``impactlens index``."""

    available: bool  # a git repository with at least one commit
    commits: int  # commits stored after the run
    new: int  # commits mined in this run
    removed: int  # stored commits no longer reachable from HEAD, dropped
    shallow: bool
    head: str | None
    seconds: float
    note: str = ""
    pending: int = 0  # commits within the horizon left for a later run


# --------------------------------------------------------------------- git
def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return gitcmd.run_bytes(root, *args, input=stdin)


def _git_text(root: Path, *args: str) -> str:
    return _git(root, *args).decode("utf-8", "replace")


def _mode(settings: Settings, prefix: str) -> str:
    """What the stored commits were mined with; a change re-mines them all. (The horizon is
    not part of it: a wider one mines the older commits, a narrower one drops them.)"""
    return json.dumps({"first_parent": bool(settings.history_first_parent),
                       "prefix": prefix, "lines": settings.history_line_counts,
                       # the touched-definitions pass runs only when co-change weighs
                       # them; a change of the setting re-mines, as any walk change does
                       "symbols": settings.weighs_symbols}, sort_keys=True)


def _shallow_boundary(root: Path) -> set[str]:
    if _git_text(root, "rev-parse", "--is-shallow-repository").strip() != "true":
        return set()
    rel = _git_text(root, "rev-parse", "--git-path", "shallow").strip()
    path = Path(rel) if Path(rel).is_absolute() else root / rel
    try:
        return {ln.strip() for ln in path.read_text().splitlines() if _SHA_RE.match(ln.strip())}
    except OSError:
        return set()


def iter_commits(root: Path, shas: Sequence[str], *, first_parent: bool = False,
                 relative: bool = False, contents: bool = True, lines: bool = False,
                 ) -> Iterator[CommitRecord]:
    """The given commits (each diffed against its first parent) in their order, as ONE
    ``git log --stdin`` writes them (parsed while git still diffs the older ones).

    Renames are detected from the files' contents (``-M``) and, with ``lines``, lines
    counted (``--numstat``: git then reads and diffs every changed file, most of its cost);
    without, the line counts are -1. With ``contents=False`` (a partial clone, which would
    fetch what it lacks), or for a commit whose contents the clone lacks, only the changed
    paths are mined (no renames); such records say so (``unread``)."""
    done = 0
    failures = 0
    while done < len(shas):
        if contents and failures < _MAX_RESTARTS:
            got: list[int] = [0]
            try:
                yield from _counted(_stream(root, shas[done:], first_parent, relative,
                                            True, lines), got)
                return
            except GitError as exc:
                if not _lacks_objects(exc):
                    raise
                done += got[0]  # the commit being diffed when git failed: by path only
                failures += 1
            rest = shas[done:done + 1]
        else:
            rest = shas[done:]
        for record in _stream(root, rest, first_parent, relative, False, False):
            yield dataclasses.replace(record, unread=UNREAD_CONTENTS)
        done += len(rest)


# a clone lacking the contents of this many commits is mined by path from there on (each
# such commit costs a restart of git, and a clone missing that much lacks most of them)
_MAX_RESTARTS = 20


def _counted(records: Iterator[CommitRecord], got: list[int]) -> Iterator[CommitRecord]:
    for record in records:
        got[0] += 1
        yield record


def _stream(root: Path, shas: Sequence[str], first_parent: bool, relative: bool,
            contents: bool, lines: bool) -> Iterator[CommitRecord]:
    """One ``git log`` over ``shas``, parsed as it comes; a failing git leaves the commit it
    was writing out (:class:`LogParser`) and raises :class:`GitError`."""
    if not shas:
        return
    parser = LogParser()
    for chunk in gitcmd.stream_bytes(root, *_log_args(first_parent, relative, contents, lines),
                                     input=_stdin(shas)):
        yield from parser.feed(chunk)
    yield from parser.close()


def mine_commits(root: Path, shas: Iterable[str], *, first_parent: bool = False,
                 relative: bool = False, symbols_up_to: int | None = 50,
                 contents: bool = True, lines: bool = False) -> list[CommitRecord]:
    """:func:`iter_commits` as a list, with the definitions the hunks touched mined for the
    commits that can form co-change pairs — with a parent and at most ``symbols_up_to``
    files (None: no symbol pass): a root commit's or a sweeping commit's patch is large (a
    whole initial import) and its pairs never count."""
    out: list[CommitRecord] = []
    for batch in _batches(iter_commits(root, list(shas), first_parent=first_parent,
                                       relative=relative, contents=contents, lines=lines),
                          _BATCH):
        out.extend(with_touched(root, batch, symbols_up_to, first_parent=first_parent,
                                relative=relative))
    return out


def with_touched(root: Path, records: list[CommitRecord], symbols_up_to: int | None,
                 *, first_parent: bool, relative: bool) -> list[CommitRecord]:
    """``records`` with the definitions their hunks touched (see :func:`mine_commits`);
    those mined without contents are left as they are, and those whose patch the clone
    cannot give (a file's content is missing) are marked so (``unread``)."""
    if symbols_up_to is None:
        return records
    pairable = [r.sha for r in records if r.parents and not r.unread
                and 0 < r.n_files <= symbols_up_to]
    if not pairable:
        return records
    touched, unreadable = _mine_symbols(root, pairable, first_parent=first_parent,
                                        relative=relative)
    return [dataclasses.replace(r, unread=UNREAD_DEFINITIONS) if r.sha in unreadable
            else _with_symbols(r, touched) for r in records]


def _batches(records: Iterable[CommitRecord], size: int) -> Iterator[list[CommitRecord]]:
    batch: list[CommitRecord] = []
    for record in records:
        batch.append(record)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _log_args(first_parent: bool, relative: bool, contents: bool, lines: bool) -> list[str]:
    # --name-status -M reads a file's contents only to match an added file with a deleted
    # one (a rename); --numstat reads and diffs every changed file
    changes = (["--numstat" if lines else "--name-status", "-M"] if contents
               else ["--name-status", "--no-renames"])
    return ["-c", "log.showSignature=false", "-c", "i18n.logOutputEncoding=UTF-8",
            "log", "--no-walk=unsorted", "--stdin", "--no-color", "--no-ext-diff",
            "--no-textconv", *changes, "-z", "--format=%x1e%H%x00%at%x00%P%x00%B%x00",
            "--diff-merges=first-parent" if first_parent else "--diff-merges=off",
            "--relative" if relative else "--no-relative"]


# what git says when a diff needs a file's content the clone does not have
_MISSING_OBJECT = ("promisor remote", "missing blob", "bad object", "unable to read",
                   "could not fetch")


def _lacks_objects(exc: GitError) -> bool:
    return any(m in str(exc) for m in _MISSING_OBJECT)


def is_partial_clone(root: Path) -> bool:
    """Whether the clone was made with a filter (``--filter=blob:none``...): reading a file
    it lacks would fetch it from the remote."""
    got = gitcmd.run_bytes(root, "config", "--get-regexp",
                           r"^(extensions\.partialclone|remote\..*\.promisor)$", ok_codes=(0, 1))
    return any(line.split(b" ", 1)[-1].strip() not in (b"", b"false")
               for line in got.splitlines())


def _stdin(shas: Sequence[str]) -> bytes:
    return ("\n".join(shas) + "\n").encode()


# --------------------------------------------------------- touched symbols
# The second pass: `git log -p -U0` over the Python files, with a diff driver whose hunk
# header is the whole nearest `def`/`class` line above the hunk (indentation kept: git's
# built-in python driver drops it, and the nesting is what places a changed line).
_DRIVER = "impactlens-py"
_XFUNCNAME = r"^([ \t]*(class|(async[ \t]+)?def)[ \t].*)$"
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([^\W\d]\w*)")
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@ ?(.*)$")

Touched = dict[tuple[str, str], tuple[set[str], list[tuple[str, str]]]]


def _mine_symbols(root: Path, shas: Sequence[str], *, first_parent: bool,
                  relative: bool) -> tuple[Touched, set[str]]:
    """``{(sha, path): (names touched, renamed defs)}`` of the commits' ``.py`` files, and
    the commits whose patch git could not write (the clone lacks a file's content): git
    stops at such a commit, which is left out, and runs again from the next one (at most
    ``_MAX_RESTARTS`` times; past that the rest are left out too)."""
    touched: Touched = {}
    unreadable: set[str] = set()
    done = 0
    with tempfile.TemporaryDirectory(prefix="impactlens-attr-") as tmp:
        attrs = Path(tmp) / "attributes"
        attrs.write_text(f"*.py diff={_DRIVER}\n")
        for _ in range(_MAX_RESTARTS + 1):
            raw = bytearray()
            try:
                for chunk in gitcmd.stream_bytes(root, *_patch_args(attrs, first_parent,
                                                                    relative),
                                                 input=_stdin(shas[done:])):
                    raw += chunk
                touched.update(_parse_patch(bytes(raw)))
                return touched, unreadable
            except GitError as exc:
                if not _lacks_objects(exc):
                    raise
            # the last commit git began is the one it could not diff
            began = len(_PATCH_COMMIT.findall(bytes(raw))) or 1
            failed = shas[done + began - 1]
            touched.update({k: v for k, v in _parse_patch(bytes(raw)).items()
                            if k[0] != failed})
            unreadable.add(failed)
            done += began
            if done >= len(shas):
                return touched, unreadable
    unreadable.update(shas[done:])
    return touched, unreadable


_PATCH_COMMIT = re.compile(rb"(?m)^\x1e[0-9a-f]{40}")


def _patch_args(attrs: Path, first_parent: bool, relative: bool) -> list[str]:
    return ["-c", f"core.attributesFile={attrs}", "-c", f"diff.{_DRIVER}.xfuncname={_XFUNCNAME}",
            "log", "--no-walk=unsorted", "--stdin", "--no-color", "--no-ext-diff",
            "--no-textconv", "-p", "-U0", "-M", "--src-prefix=a/", "--dst-prefix=b/",
            "--format=%x1e%H",
            "--diff-merges=first-parent" if first_parent else "--diff-merges=off",
            "--relative" if relative else "--no-relative", "--", "*.py"]


def _parse_patch(raw: bytes) -> Touched:
    out: Touched = {}
    sha = path = minus = ""
    lines = raw.split(b"\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(b"\x1e"):
            sha = line[1:].decode("ascii", "replace").strip()
        elif line.startswith(b"diff --git "):
            path = minus = ""
        elif line.startswith(b"--- ") and not path:
            minus = _diff_path(line[4:])
        elif line.startswith(b"+++ ") and not path:
            path = _diff_path(line[4:]) or minus
        elif (m := _HUNK.match(line)) and sha and path:
            n_old = 1 if m.group(1) is None else int(m.group(1))
            n_new = 1 if m.group(2) is None else int(m.group(2))
            body = lines[i : i + n_old + n_new + 2]  # room for "\ No newline" markers
            removed, added, used = _hunk_body(body, n_old, n_new)
            i += used
            names, renames = out.setdefault((sha, path), (set(), []))
            got, renamed = _hunk_names(m.group(3).decode("utf-8", "replace"), removed, added)
            names |= got
            renames.extend(renamed)
    return out


def _diff_path(raw: bytes) -> str:
    """The path of a ``---``/``+++`` line without its ``a/``/``b/`` prefix ('' for
    /dev/null); git C-quotes names holding quotes, backslashes or control characters."""
    raw = raw.rstrip(b"\t")  # git ends a name holding a space with a tab
    if raw.startswith(b'"') and raw.endswith(b'"'):
        try:
            raw = ast.literal_eval("b" + raw.decode("ascii", "backslashreplace"))
        except (SyntaxError, ValueError):
            return ""
    if raw == b"/dev/null":
        return ""
    return raw[2:].decode("utf-8", "replace")


def _hunk_body(body: Sequence[bytes], n_old: int, n_new: int) -> tuple[list[str], list[str], int]:
    """The removed and added lines of a ``-U0`` hunk, and how many lines it spans."""
    removed: list[str] = []
    added: list[str] = []
    used = 0
    for line in body:
        if len(removed) == n_old and len(added) == n_new:
            break
        used += 1
        text = line[1:].decode("utf-8", "replace")
        if line.startswith(b"-") and len(removed) < n_old:
            removed.append(text)
        elif line.startswith(b"+") and len(added) < n_new:
            added.append(text)
    return removed, added, used


def _hunk_names(header: str, removed: Sequence[str], added: Sequence[str],
                ) -> tuple[set[str], list[tuple[str, str]]]:
    """The definitions a hunk touches, and the one it renames: one def line on each side,
    same depth, same text but the name (a def replaced by another one is not a rename)."""
    context = _outline(header)
    old_names, old_defs = _side(context[:2] if context else None, removed)
    new_names, new_defs = _side(context[:2] if context else None, added)
    renamed = []
    if len(old_defs) == len(new_defs) == 1:
        (o_ind, o_name, o_rest), (n_ind, n_name, n_rest) = old_defs[0], new_defs[0]
        if o_ind == n_ind and o_rest == n_rest and o_name != n_name:
            renamed.append((o_name, n_name))
    return old_names | new_names, renamed


def _outline(line: str) -> tuple[int, str, str] | None:
    """``(indentation, name, text after the name)`` of a ``def``/``class`` line."""
    m = _DEF.match(line)
    if m is None:
        return None
    text = line.expandtabs(8)
    return len(text) - len(text.lstrip()), m.group(1), line[m.end():].strip()


def _side(context: tuple[int, str] | None, lines: Sequence[str],
          ) -> tuple[set[str], list[tuple[int, str, str]]]:
    """Each changed line's innermost enclosing definition, by indentation below the
    header's definition; a line at the header's depth or above left it (module-level code
    or a class body between methods names nothing: which class it is, -U0 cannot tell)."""
    stack = [context] if context else []
    names: set[str] = set()
    defs: list[tuple[int, str, str]] = []
    for line in lines:
        text = line.expandtabs(8)
        body = text.lstrip()
        if not body or body.startswith(("#", "@")):  # decorators belong to the next def
            continue
        indent = len(text) - len(body)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        own = _outline(text)
        if own is not None:
            stack.append(own[:2])
            defs.append(own)
            names.add(own[1])
        elif stack:
            names.add(stack[-1][1])
    return names, defs


def _with_symbols(record: CommitRecord, touched: Touched) -> CommitRecord:
    files = []
    for f in record.files:
        names, renames = touched.get((record.sha, f.path), (set(), []))
        files.append(dataclasses.replace(f, symbols=tuple(sorted(names)),
                                         renamed=tuple(dict.fromkeys(renames))))
    return dataclasses.replace(record, files=tuple(files))


# ------------------------------------------------------------------ update
ProgressFn = Callable[[str, int, int], None]  # (phase, done, total), as the indexer's


def _empty(store: Store, note: str, t0: float, *, clear: bool) -> HistorySummary:
    with store.transaction():
        if clear:
            store.clear_history()
            for key in (_META_HEAD, _META_SHALLOW, _META_MODE, _META_PENDING, _META_HORIZON):
                store.set_meta(key, "")
        store.set_meta(_META_STATE, note)
    return HistorySummary(available=False, commits=store.history_count(), new=0, removed=0,
                          shallow=False, head=None, seconds=time.perf_counter() - t0, note=note)


def history_is_current(store: Store, root: Path, top: Path, head: str,
                       settings: Settings) -> bool:
    """Whether the stored history already describes ``head`` with these settings, so
    :func:`update_history` would mine nothing (the indexer then skips its git calls).

    A shallow clone always runs the update: it can be deepened without HEAD moving. (A
    full clone made shallow with HEAD unchanged is not noticed until HEAD moves.)"""
    root = Path(root).resolve()
    prefix = root.relative_to(top).as_posix() if root != top else ""
    return (store.get_meta(_META_HEAD) == head
            and not history_pending(store)
            and store.get_meta(_META_HORIZON) == str(settings.history_max_commits)
            and store.get_meta(_META_SHALLOW) == "[]"
            and store.get_meta(_META_MODE) == _mode(settings, prefix if prefix != "." else ""))


def history_pending(store: Store) -> int:
    """Commits within the horizon that a run stopped before mining (0: none)."""
    got = store.get_meta(_META_PENDING)
    return int(got) if got and got.isdigit() else 0


def update_history(store: Store, root: Path, settings: Settings, *, budget: int | None = None,
                   progress: ProgressFn | None = None) -> HistorySummary:
    """Mine the commits of ``root`` not yet in ``store``, newest first: at most ``budget``
    of them (``None``: all within the horizon); the rest wait for a later run, and the note
    says how far mining has got. Writes in its own transactions, one per batch of commits,
    so a run ended midway (killed, interrupted) keeps the batches it wrote and the next run
    continues from there.

    Never fails the index: a git error leaves the stored history as it was and says so."""
    t0 = time.perf_counter()
    try:
        return _update(store, Path(root).resolve(), settings, t0, budget, progress)
    except ImpactlensError as exc:
        return _empty(store, f"history: git failed ({exc}); the history indexed before (if "
                      "any) is kept", t0, clear=False)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What one run mines: the commits of the window (the newest ``horizon`` reachable in
    the walk, newest first) not stored, and the stored ones no longer in it."""

    head: str
    window: list[str]
    todo: list[str]
    gone: list[str]
    beyond: bool  # HEAD has more commits than the horizon takes


def _plan(store: Store, root: Path, settings: Settings, head: str, refresh: bool) -> _Plan:
    if not refresh:
        return _Plan(head, [], [], [], store.get_meta(_META_BEYOND) == "1")
    horizon = settings.history_max_commits
    rev_args = ["rev-list", "--first-parent"] if settings.history_first_parent else [
        "rev-list", "--no-merges"]
    if horizon > 0:
        rev_args += ["-n", str(horizon + 1)]
    window = _git_text(root, *rev_args, "HEAD").split()
    beyond = horizon > 0 and len(window) > horizon
    if beyond:
        window = window[:horizon]
    known = store.history_shas()
    in_window = set(window)
    return _Plan(head, window, [s for s in window if s not in known],
                 sorted(known - in_window), beyond)


def _update(store: Store, root: Path, settings: Settings, t0: float, budget: int | None,
            progress: ProgressFn | None) -> HistorySummary:
    if shutil.which("git") is None:
        return _empty(store, "history: git is not installed; co-change channel empty", t0,
                      clear=False)
    try:
        top = gitcmd.toplevel(root)
    except ImpactlensError:
        return _empty(store, f"history: {root} is not a git repository; co-change channel empty",
                      t0, clear=True)
    if not gitcmd.has_head(root):
        return _empty(store, "history: the repository has no commits yet; co-change channel "
                      "empty", t0, clear=True)
    prefix = root.relative_to(top).as_posix() if root != top else ""
    relative = bool(prefix) and prefix != "."
    head = _git_text(root, "rev-parse", "HEAD").strip()
    mode = _mode(settings, prefix if relative else "")
    boundary = _shallow_boundary(root)

    with store.transaction():
        if store.get_meta(_META_MODE) != mode:  # walk settings changed: start over
            store.clear_history()
            store.set_meta(_META_HEAD, "")
        old_boundary = set(json.loads(store.get_meta(_META_SHALLOW) or "[]"))
        deepened = sorted(old_boundary - boundary)
        if deepened:  # the clone was deepened: those commits now have parents, re-mine them
            store.delete_commits(deepened)
        relist = (store.get_meta(_META_HEAD) != head or bool(deepened)
                  or history_pending(store) > 0
                  or store.get_meta(_META_HORIZON) != str(settings.history_max_commits))
        plan = _plan(store, root, settings, head, relist)
        store.delete_commits(plan.gone)
        store.set_meta(_META_MODE, mode)
        store.set_meta(_META_SHALLOW, json.dumps(sorted(boundary)))
    take = plan.todo if budget is None else plan.todo[:max(0, budget)]
    _mine_into(store, root, settings, take, boundary, relative, progress)
    pending = len(plan.todo) - len(take)
    return _finish(store, settings, plan, _Run(len(take), len(plan.gone), pending, boundary),
                   t0)


def _mine_into(store: Store, root: Path, settings: Settings, shas: list[str],
               boundary: set[str], relative: bool, progress: ProgressFn | None) -> None:
    """Mine ``shas`` and store them, one transaction per batch."""
    if not shas:
        return
    records = iter_commits(root, shas, first_parent=settings.history_first_parent,
                           relative=relative, contents=not is_partial_clone(root),
                           lines=settings.history_line_counts)
    symbols_up_to = (settings.history_max_files_per_commit if settings.weighs_symbols
                     else None)
    done = 0
    for batch in _batches(records, _BATCH):
        batch = with_touched(root, batch, symbols_up_to,
                             first_parent=settings.history_first_parent, relative=relative)
        # a shallow clone's boundary commit has no parent here: its diff would list every
        # file as added, so it is kept without files (it forms no pairs)
        batch = [CommitRecord(r.sha, r.author_time, r.message, 0, (), parents=0)
                 if r.sha in boundary else r for r in batch]
        done += len(batch)
        with store.transaction():
            store.put_commits(batch, fresh=True)
            store.set_meta(_META_PENDING, str(len(shas) - done))
        if progress:
            progress("history", done, len(shas))


@dataclass(frozen=True, slots=True)
class _Run:
    new: int
    removed: int
    pending: int
    boundary: set[str]


def _finish(store: Store, settings: Settings, plan: _Plan, run: _Run, t0: float
            ) -> HistorySummary:
    total = store.history_count()
    window = len(plan.window) if plan.window else total + run.pending
    notes = [(f"history: {total} commits indexed" if not run.pending else
              f"history: {total} of {window} commits indexed, newest first (`impactlens "
              "index` mines the rest)") + f" ({_news(run.new, run.removed)})"]
    if run.boundary:
        # a stored boundary commit's parent is absent: no diff, no pairs
        usable = total - len(run.boundary & store.history_shas())
        notes.append(f"shallow clone: co-change uses the {usable} of {total} commits present "
                     "whose parent is present too (`git fetch --unshallow` for the full "
                     "history)")
    notes.extend(_unread_notes(store.history_unread(), total))
    if plan.beyond:
        notes.append(f"only the newest {settings.history_max_commits} commits are mined "
                     "(settings.history_max_commits; `impactlens index --full-history` for "
                     "all)")
    note = "; ".join(notes)
    with store.transaction():
        store.set_meta(_META_PENDING, str(run.pending))
        store.set_meta(_META_BEYOND, "1" if plan.beyond else "")
        store.set_meta(_META_HEAD, plan.head)
        store.set_meta(_META_HORIZON, str(settings.history_max_commits))
        store.set_meta(_META_STATE, note)
    return HistorySummary(available=True, commits=total, new=run.new, removed=run.removed,
                          shallow=bool(run.boundary), head=plan.head,
                          seconds=time.perf_counter() - t0, note=note, pending=run.pending)


def _unread_notes(unread: dict[str, int], total: int) -> list[str]:
    notes = []
    if unread.get(UNREAD_CONTENTS):
        notes.append(f"{unread[UNREAD_CONTENTS]} of {total} commits mined by changed path only "
                     "(this clone lacks the files' contents, so no renames or changed "
                     "definitions)")
    if unread.get(UNREAD_DEFINITIONS):
        notes.append(f"{unread[UNREAD_DEFINITIONS]} of {total} commits mined without the "
                     "definitions they changed (this clone lacks some of their files' "
                     "contents)")
    return notes


def history_facts(store: Store) -> dict[str, object]:
    """What the stored history holds, for the index summary: commits stored and left for a
    later run, whether the clone is shallow, and how many commits were mined by changed
    path only or without their changed definitions (what the clone lacked)."""
    unread = store.history_unread()
    return {"commits": store.history_count(), "pending": history_pending(store),
            "shallow": store.get_meta(_META_SHALLOW) not in (None, "", "[]"),
            "by_path_only": unread.get(UNREAD_CONTENTS, 0),
            "without_definitions": unread.get(UNREAD_DEFINITIONS, 0)}


# -------------------------------------------------------------------- read
def load_history(store: Store, *, before: int | None = None) -> list[CommitRecord]:
    """Stored commits (authored strictly before ``before`` when given), oldest first."""
    by_sha: dict[str, list[FileTouch]] = {}
    for sha, path, old, added, deleted, symbols, renamed in store.history_files(before=before):
        by_sha.setdefault(sha, []).append(FileTouch(path, old, added, deleted, symbols, renamed))
    return [
        CommitRecord(sha, at, msg, n, tuple(by_sha.get(sha, ())), parents, unread)
        for sha, at, msg, n, parents, unread in store.history_commits(before=before)
    ]


def _news(new: int, removed: int) -> str:
    return f"{new} new" + (f", {removed} no longer reachable dropped" if removed else "")


_NEWS = re.compile(r" ?\(\d+ new(, \d+ no longer reachable dropped)?\)")


def history_state(store: Store, *, unchanged: bool = False, news: bool = True) -> str:
    """The note of the last :func:`update_history` run ('' if history was never mined);
    ``unchanged``: as a later run that found HEAD where it was reports it (nothing new);
    ``news=False``: without what that run added (a statement about the index alone)."""
    note = store.get_meta(_META_STATE) or ""
    if not news:
        return _NEWS.sub("", note, count=1)
    if not unchanged:
        return note
    return _NEWS.sub(f" ({_news(0, 0)})", note, count=1)
