"""Real-history evaluation: `impactlens bench history REPO [--json] [--limit N] [--seed first|all]`.

The repository's own commits are the ground truth (§7.1): a maintainer changed these
files and functions together. For each evaluation case we go back to the commit's
parent, apply only a *seed* — the new version of one function the commit changed —
and ask the stage what else must change; the answer is scored against what the
commit actually changed besides the seed.

Case filter (tangled commits are the main validity threat)
----------------------------------------------------------
A commit is a case when it is a non-merge commit with a parent, touching at most
``settings.history_max_files_per_commit`` files in all, whose *semantically changed*
non-test Python source files number between 2 and ``--cap`` (default 8), and whose
subject line does not name a mechanical change (black/isort/pyupgrade/ruff/flake8/
pre-commit, "format", "typo", "lint", "typing", type hints, version bumps, copyright and
license headers, "drop python"; see ``_MECHANICAL``). The message filter is broad on
purpose — a tangled mechanical commit costs more than a lost real one — and the run
reports how many commits it alone dropped. *Semantically changed* = the file's AST
differs with docstrings removed — so formatting-only, comment-only, docstring-only and
rename-only edits (a renamed file whose AST is unchanged) never count, and a commit
left with fewer than two such files is skipped. Source = ``*.py`` outside tests,
docs, examples, benchmarks and scripts directories (and not ``setup.py``/``conftest.py``/
``noxfile.py``). Newest cases first; ``--limit`` bounds them.

Seed and gold
-------------
The seed is the after-version of one function or method that exists at the parent and
whose AST changed (``--seed first``: the first by file path then line; ``--seed all``:
each in turn), spliced into the parent's file. Gold files = the other semantically
changed source files that exist at the parent (named as there); files the commit
created cannot be predicted by anyone and are counted separately. Gold symbols = the
other functions, methods and classes the commit modified or deleted (not added).

Methods compared on the same cases (files are ranked; ties by path)
-------------------------------------------------------------------
* ``stage`` — the full pipeline: MUST-INSPECT then MAY-IMPACT, each by combined
  confidence (§3.7; equal confidences in the co-change channel's order, then by name);
  the seed file and test files removed.
* ``imports`` — reverse import closure of the seed's module, by hop distance.
* ``cochange10`` — the co-change channel alone, its top 10 partners.
* ``callers1`` — files of the seed function's direct callers (most call sites first).
* ``-walk``, ``-cochange``, ``-testmap``, ``-lexical``, ``-retired``, ``-named`` — the stage
  with one channel removed (§7.6 ablation), everything else fixed.

Metrics (means over cases; a case with an empty denominator is *excluded* from that
mean — ``n/a`` — never counted as 0 or 1): recall/precision/F1 of the whole predicted
set, precision@k and recall@k (k = 1, 3, 5), F1 at matched size (each method cut to the
stage's prediction count for that case), symbol-level P/R/F1, and the mean distance
(hops over the undirected file graph of import/call/inherit/instantiate/use edges at the
parent) from each predicted file to the nearest gold file.

Regression measure (§7.2, ``--run-tests``): the suite runs at the parent and again with
only the seed applied (``--test-timeout`` seconds each, ``--continue-on-collection-errors``);
tests that passed before and fail after are the *breaking* tests — rerun on their own at
the parent and seeded, and kept only if they pass and fail again (a flaky or order-dependent
test is not the seed's breakage). Reported: the share of breaking tests inside each
method's targeted validation set and the selection ratio (selected and collected / all
collected test functions). A parent run in which no test passed (say every module failed
to import) counts as *not run*. The suite also runs once more at the parent under
``pytest --impact-record``: the ``stage`` uses that recording as a user who records would
(:mod:`impactlens.impact.observed`), and the ``-recording`` row is the stage with the static
test map alone. Test outcomes and recordings are cached per (commit, seed) under
``--cache``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.metrics import (
    Interval,
    bootstrap_mean,
    fmt,
    mean,
    paired_bootstrap,
    precision_at_k,
    recall_at_k,
    score_sets,
)
from impactlens.index import child_trace
from impactlens.index import git as gitcmd
from impactlens.index.discover import is_source as _library_file
from impactlens.index.discover import is_test_file
from impactlens.index.history import CommitRecord, mine_commits
from impactlens.index.recording import base_test_id
from impactlens.settings import DEFAULT, Settings, override, to_env

KS = (1, 3, 5)
CHANNELS = ("walk", "cochange", "testmap", "lexical", "retired", "named", "siblings")
BASELINES = ("imports", "cochange10", "callers1")
NOISE = 0.05  # §7.6: |Δ| ≤ 5 % (absolute, on [0, 1] metrics) is noise
_MECHANICAL = re.compile(
    r"\b(black|isort|pyupgrade|flake8|ruff|pre-commit|pre-commit-ci|reformat\w*|format(ting)?"
    r"|typos?|lint\w*|bump\w*|release v?\d|version v?\d|copyright|license header|modernize"
    r"|drop (support for )?python|type (hints|annotations)|typing)\b"
    r"|^\W*v?\d+(\.\d+)+\b",  # a release titled by its version: "v2.30.0", "2.30.0 (2024-01-02)"
    re.IGNORECASE,
)
# vendored copies of other projects: never a seed, never gold
_VENDORED_DIRS = frozenset({"_vendor", "vendor", "vendored", "third_party"})


def is_vendored(path: str) -> bool:
    """Under a vendored tree: ``*/packages/*``, ``_vendor/``, ``vendor/``, ``third_party/``."""
    parts = path.split("/")[:-1]
    return any(p in _VENDORED_DIRS for p in parts) or "packages" in parts[1:]


def is_source(path: str) -> bool:
    """A library file of the repository itself (not a test, doc or script, not vendored)."""
    return _library_file(path) and not is_vendored(path)
_PLUGIN = '''
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


# ------------------------------------------------------------------ records
@dataclass(frozen=True, slots=True)
class DefInfo:
    qualname: str  # in-file qualname: Cls.meth
    kind: str  # function | class
    start: int  # first line (decorators included)
    end: int
    dump: str  # AST dump, docstrings removed


@dataclass(frozen=True, slots=True)
class Seed:
    file: str  # path at the parent
    qualname: str
    seeded: str  # parent text with the seed function replaced by its new version

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{self.file}::{self.qualname}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Case:
    sha: str
    parent: str
    author_time: int
    message: str
    source_files: tuple[str, ...]  # semantically changed, named at the parent
    added_files: tuple[str, ...]  # semantically new files (not predictable)
    changed_defs: dict[str, tuple[str, ...]]  # parent path -> modified/deleted qualnames
    before: dict[str, str]  # parent path -> parent text
    seeds: tuple[Seed, ...]


# ---------------------------------------------------------------- AST utils
class _Normalize(ast.NodeTransformer):
    """Drop what does not change behaviour: docstrings and type annotations."""

    def _body(self, node: Any) -> Any:
        body = node.body
        if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        return node

    def visit_Module(self, node: ast.Module) -> Any:
        return self.generic_visit(self._body(node))

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        return self.generic_visit(self._body(node))

    def visit_FunctionDef(self, node: Any) -> Any:
        node.returns = None
        return self.generic_visit(self._body(node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> Any:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is None:  # a bare declaration (a dataclass/attrs field): keep the name
            return ast.Expr(value=node.target)
        return self.generic_visit(ast.Assign(targets=[node.target], value=node.value))

    def visit_If(self, node: ast.If) -> Any:
        test = node.test
        name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
        if name == "TYPE_CHECKING":  # typing-only imports
            return None
        return self.generic_visit(node)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    out = _Normalize().visit(tree)
    return ast.fix_missing_locations(out) if out is not None else ast.Pass()


def _semantic(text: str) -> str:
    return ast.dump(_strip_docstrings(ast.parse(text)), include_attributes=False)


def _defs(text: str) -> dict[str, DefInfo]:
    """Module-level functions, classes and (nested) class members, by in-file qualname."""
    tree = ast.parse(text)
    out: dict[str, DefInfo] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                q = prefix + node.name
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if isinstance(node, ast.ClassDef):
                    header = ast.ClassDef(
                        name=node.name, bases=node.bases, keywords=node.keywords,
                        body=[s for s in node.body if not isinstance(
                            s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)] or
                        [ast.Pass()], decorator_list=node.decorator_list, type_params=[],
                    )
                    dump = ast.dump(_strip_docstrings(header), include_attributes=False)
                    out[q] = DefInfo(q, "class", start, node.end_lineno or start, dump)
                    visit(node.body, q + ".")
                else:
                    dump = ast.dump(_strip_docstrings(ast.Module(body=[node], type_ignores=[])),
                                    include_attributes=False)
                    out[q] = DefInfo(q, "function", start, node.end_lineno or start, dump)

    visit(tree.body, "")
    return out


def _splice(before: str, after: str, b: DefInfo, a: DefInfo) -> str:
    bl = before.splitlines(keepends=True)
    al = after.splitlines(keepends=True)
    new = [*bl[: b.start - 1], *al[a.start - 1 : a.end], *bl[b.end :]]
    if new and not new[-1].endswith("\n"):
        new[-1] += "\n"
    return "".join(new)


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    return is_test_file(path) or any(part in ("tests", "test", "testing") for part in p.parts)


# --------------------------------------------------------------- case mining
def _git(repo: Path, *args: str) -> str:
    return gitcmd.run(repo, *args)


def candidate_commits(repo: Path, settings: Settings, cap: int,
                      dropped: list[CommitRecord] | None = None) -> list[CommitRecord]:
    """Non-merge commits with a parent passing the path/size/message filters, newest first.
    ``dropped`` collects those with 2..``cap`` source files that only the message filter
    dropped (it is broad on purpose: a tangled mechanical commit costs more than a lost
    real one; their count bounds what it cost)."""
    shas = _git(repo, "rev-list", "--no-merges", "HEAD").split()
    out = []
    for c in mine_commits(repo, shas):
        if c.n_files == 0 or c.n_files > settings.history_max_files_per_commit:
            continue
        if not 2 <= sum(1 for f in c.files if is_source(f.path)) <= cap:
            continue
        if _MECHANICAL.search(c.message.splitlines()[0] if c.message else ""):
            if dropped is not None:
                dropped.append(c)
            continue
        out.append(c)
    out.sort(key=lambda c: (-c.author_time, c.sha))
    return out


def build_case(repo: Path, c: CommitRecord, cap: int, seed_mode: str) -> Case | None:
    """Read both sides, apply the semantic filter, pick the seed(s); ``None`` = skipped."""
    parent = gitcmd.first_parent(repo, c.sha)
    if parent is None:
        return None
    src = [f for f in c.files if is_source(f.path)]
    specs = []
    for f in src:
        specs += [f"{parent}:{f.old_path or f.path}", f"{c.sha}:{f.path}"]
    blobs = gitcmd.blobs(repo, specs)
    changed: list[str] = []
    added: list[str] = []
    defs_changed: dict[str, tuple[str, ...]] = {}
    before_text: dict[str, str] = {}
    after_text: dict[str, str] = {}
    for f in sorted(src, key=lambda f: f.old_path or f.path):
        old = f.old_path or f.path
        b, a = blobs.get(f"{parent}:{old}"), blobs.get(f"{c.sha}:{f.path}")
        try:
            bt = b.decode("utf-8") if b is not None else None
            at = a.decode("utf-8") if a is not None else None
            if bt is not None and at is not None and _semantic(bt) == _semantic(at):
                continue  # formatting / comment / docstring / rename-only
            if bt is None:
                if at is not None:
                    _semantic(at)
                    added.append(f.path)
                continue
            if at is None:  # deleted file: gold (its users had to change)
                changed.append(old)
                before_text[old] = bt
                defs_changed[old] = tuple(sorted(_defs(bt)))
                continue
            bd, ad = _defs(bt), _defs(at)
        except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            return None
        changed.append(old)
        before_text[old] = bt
        after_text[old] = at
        defs_changed[old] = tuple(sorted(
            q for q, d in bd.items() if q not in ad or ad[q].dump != d.dump
        ))
    if len(changed) + len(added) < 2 or len(changed) + len(added) > cap or len(changed) < 2:
        return None
    seeds: list[Seed] = []
    for path in changed:
        if path not in after_text:
            continue
        bd, ad = _defs(before_text[path]), _defs(after_text[path])
        for q in sorted(defs_changed[path], key=lambda q: (bd[q].start, q)):
            if bd[q].kind != "function" or q not in ad:
                continue
            seeded = _splice(before_text[path], after_text[path], bd[q], ad[q])
            try:
                if _semantic(seeded) == _semantic(before_text[path]):
                    continue
            except SyntaxError:
                continue
            seeds.append(Seed(path, q, seeded))
            if seed_mode == "first":
                break
        if seeds and seed_mode == "first":
            break
    if not seeds:
        return None
    return Case(
        sha=c.sha, parent=parent, author_time=c.author_time, message=c.message,
        source_files=tuple(changed), added_files=tuple(added), changed_defs=defs_changed,
        before=before_text, seeds=tuple(seeds),
    )


def mine_cases(repo: Path, *, limit: int, cap: int = 8, seed_mode: str = "first",
               settings: Settings = DEFAULT) -> tuple[list[Case], dict[str, int]]:
    dropped: list[CommitRecord] = []
    cands = candidate_commits(repo, settings, cap, dropped)
    cases: list[Case] = []
    skipped = 0
    oldest: int | None = None  # the oldest candidate examined, when the limit stopped it
    for c in cands:
        if len(cases) >= limit:
            oldest = c.author_time
            break
        case = build_case(repo, c, cap, seed_mode)
        if case is None:
            skipped += 1
            continue
        cases.append(case)
    # counted over the same newest commits the cases came from
    by_message = sum(1 for d in dropped if oldest is None or d.author_time > oldest)
    return cases, {"candidates": len(cands), "skipped_semantic": skipped,
                   "skipped_message": by_message}


# --------------------------------------------------------------- evaluation
@contextlib.contextmanager
def worktree(repo: Path, sha: str) -> Iterator[Path]:
    tmp = Path(tempfile.mkdtemp(prefix="impactlens-hist-"))
    wt = tmp / "wt"
    _git(repo, "worktree", "add", "-q", "--detach", str(wt), sha)
    try:
        yield wt
    finally:
        with contextlib.suppress(Exception):
            _git(repo, "worktree", "remove", "--force", str(wt))
        shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(Exception):
            _git(repo, "worktree", "prune")


class FileGraph:
    """File-level views of the parent's graph: undirected hops and reverse imports."""

    def __init__(self, store: Any) -> None:
        from impactlens.model import EdgeKind

        node_file = {n.id: n.file for n in store.all_nodes()}
        self.adj: dict[str, set[str]] = {}
        self.importers: dict[str, set[str]] = {}
        kinds = frozenset({EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.INHERIT, EdgeKind.OVERRIDE,
                           EdgeKind.INSTANTIATE, EdgeKind.USE})
        for e in store.all_edges(kinds):
            a, b = e.file, node_file.get(e.dst)
            if b is None or a == b:
                continue
            self.adj.setdefault(a, set()).add(b)
            self.adj.setdefault(b, set()).add(a)
            if e.kind is EdgeKind.IMPORT:
                self.importers.setdefault(b, set()).add(a)

    def distances_from(self, sources: Iterable[str]) -> dict[str, int]:
        dist: dict[str, int] = {}
        q: deque[str] = deque()
        for s in sorted(set(sources)):
            dist[s] = 0
            q.append(s)
        while q:
            cur = q.popleft()
            for nxt in sorted(self.adj.get(cur, ())):
                if nxt not in dist:
                    dist[nxt] = dist[cur] + 1
                    q.append(nxt)
        return dist

    def import_closure(self, start: str) -> list[str]:
        dist = {start: 0}
        q = deque([start])
        while q:
            cur = q.popleft()
            for nxt in sorted(self.importers.get(cur, ())):
                if nxt not in dist:
                    dist[nxt] = dist[cur] + 1
                    q.append(nxt)
        return [f for f, _ in sorted(dist.items(), key=lambda t: (t[1], t[0])) if f != start]


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def stage_predictions(result: Any, seed_file: str, seed_entity: str,
                      symbol_ids: set[str], partners: Sequence[tuple[str, float]] = (),
                      settings: Settings = DEFAULT,
                      ) -> tuple[list[str], list[str], list[str], list[dict[str, Any]]]:
    """(ranked files, ranked symbols, validation test ids, each ranked file's evidence) of
    an ImpactResult. ``partners`` = the seed file's co-change candidates in the channel's
    order."""
    from impactlens.impact.triage import order_score

    tri = result.triage
    # the stage's own order within a bucket; a tie goes to the co-change channel's own order
    # (more shared commits, more lines churned) before the name, not the alphabet
    order = {g: i for i, (g, _) in enumerate(partners)}

    def key(e: Any) -> tuple[float, int, str]:
        return (-order_score(e, settings), order.get(e.file, len(order)), e.entity)

    entries = [*sorted(tri.must_inspect, key=key), *sorted(tri.may_impact, key=key)]
    files = _dedupe(e.file for e in entries if e.file and e.file != seed_file
                    and is_source(e.file))
    syms = _dedupe(e.entity for e in entries if e.entity != seed_entity
                   and e.entity in symbol_ids and not is_test_path(e.file or ""))
    return files, syms, list(result.validate), file_evidence(entries, files, partners, settings)


def file_evidence(entries: Sequence[Any], files: Sequence[str],
                  partners: Sequence[tuple[str, float]], settings: Settings = DEFAULT,
                  ) -> list[dict[str, Any]]:
    """Why each of ``files`` ranks where it does: its first (best-placed) entry's bucket,
    confidence, hard edge, distance and the two relevances, with the file's co-change
    score and how many entries name it — the figures an ordering is read off."""
    from impactlens.impact.triage import order_score

    score = dict(partners)
    first: dict[str, Any] = {}
    count: dict[str, int] = {}
    for e in entries:
        first.setdefault(e.file, e)
        count[e.file] = count.get(e.file, 0) + 1
    out = []
    for f in files:
        e = first[f]
        out.append({"file": f, "bucket": e.bucket.value, "conf": round(e.conf, 4),
                    "hard": e.hard, "distance": e.distance,
                    "task_relevance": round(e.relevance, 4),
                    "edit_relevance": round(e.edit_relevance, 4),
                    "order": round(order_score(e, settings), 4),
                    "cochange": score.get(f), "retired": list(e.retired),
                    "entries": count[f]})
    return out


# a test module that fails to import errors its own tests, not the whole session (pytest
# stops at a collection error: every other test would count as broken without running)
_SUITE_FLAGS = ("--continue-on-collection-errors",)


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
           "impactlens_bench_plugin", "-o", "addopts=", *_SUITE_FLAGS, *extra, *target]
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


@dataclass
class MethodRun:
    files: list[str]
    symbols: list[str] | None = None  # None: the method predicts no symbols
    tests: list[str] | None = None  # None: the method selects no tests
    evidence: list[dict[str, Any]] | None = None  # the stage's: why each file ranks there


@dataclass
class CaseResult:
    sha: str
    seed_file: str
    seed: str
    message: str
    gold_files: list[str]
    gold_symbols: list[str]
    added_files: list[str]
    methods: dict[str, MethodRun]
    seconds_index: float
    seconds_stage: float
    note: str = ""
    breaking: list[str] | None = None  # None: tests not run
    all_tests: int = 0
    suite: list[str] = field(default_factory=list)  # test functions collected at the parent
    dist: dict[str, list[int | None]] = field(default_factory=dict)
    not_run: str = ""  # with --run-tests: why this case has no regression measure


def evaluate_case(repo: Path, case: Case, settings: Settings, *, run_tests: bool,
                  test_timeout: float, cache: Path | None, plugin_dir: Path,
                  pytest_args: Sequence[str] = (), progress: Any = None) -> list[CaseResult]:
    from impactlens.api import Project
    from impactlens.change.edit_uses import edit_uses
    from impactlens.impact.cochange import edited_symbols
    from impactlens.impact.observed import recorded_tests
    from impactlens.impact.pipeline import run_pipeline
    from impactlens.model import EdgeKind, FileChange, NodeKind

    results: list[CaseResult] = []
    with worktree(repo, case.parent) as wt:
        t0 = time.perf_counter()
        proj = Project(wt, settings)
        proj.index()
        t_index = time.perf_counter() - t0
        store = proj.store
        graph = FileGraph(store)
        symbol_ids = {n.id for n in store.all_nodes(
            [NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS])}
        unresolved = store.unresolved_sites()  # the parent's: the same for every variant
        before_outcomes: dict[str, str] | None = None
        recording = None
        not_run = ""  # why the regression measure has nothing for this case
        if run_tests:
            before_outcomes = _cached_suite(cache, case.sha, "parent", wt, test_timeout,
                                            plugin_dir, pytest_args)
            if before_outcomes is None:
                not_run = f"the parent's suite ran over --test-timeout {test_timeout:g} s"
            elif "passed" not in before_outcomes.values():
                before_outcomes = None  # interrupted at collection: the suite did not run
                not_run = "no test passed at the parent (collection failed?)"
            if before_outcomes is not None:
                recording = _cached_recording(cache, case.sha, wt, store, test_timeout,
                                              plugin_dir, pytest_args, settings)
        current = {r.path: r.sha256 for r in store.files()}
        for seed in case.seeds:
            module = proj.module_of(seed.file)
            seed_entity = f"{module}.{seed.qualname}"
            gold_files = sorted(p for p in case.source_files if p != seed.file)
            gold_syms = sorted(
                f"{proj.module_of(p)}.{q}" for p, qs in case.changed_defs.items() for q in qs
                if not (p == seed.file and q == seed.qualname)
            )
            change = [FileChange(seed.file, case.before[seed.file], seed.seeded)]
            t1 = time.perf_counter()
            symbols = (edited_symbols(change, proj.module_of, settings)
                       if settings.weighs_symbols else None)  # as analyze does
            cc, note = proj.co_change([seed.file], task=case.message, as_of=case.author_time,
                                      symbols=symbols)
            uses = edit_uses(store, change, proj.module_of)  # as analyze does
            retired = proj.retired(change)  # the work tree is the parent: as analyze reads it
            named = proj.task_named(case.message, [seed.file])
            methods: dict[str, MethodRun] = {}
            variants = {"stage": frozenset(CHANNELS)}
            variants.update({f"-{ch}": frozenset(CHANNELS) - {ch} for ch in CHANNELS})
            if recording is not None:  # the static test map alone, for comparison
                variants["-recording"] = frozenset(CHANNELS)
            for name, chans in variants.items():
                s = settings.replace(channels=chans)
                rec = None if name == "-recording" else recorded_tests(
                    recording, current, change, proj.root)
                res = run_pipeline(
                    store, change, module_of=proj.module_of,
                    co_change=cc if "cochange" in chans else {},
                    co_change_note=note, unresolved=unresolved,
                    task=case.message, written=uses.written, removed=uses.removed,
                    missing=uses.missing, unexported=uses.unexported, recorded=rec,
                    retired=retired, named=named, settings=s,
                )
                files, syms, tests, why = stage_predictions(
                    res, seed.file, seed_entity, symbol_ids, cc.get(seed.file, ()), s)
                methods[name] = MethodRun(files, syms, tests, why if name == "stage" else None)
            t_stage = (time.perf_counter() - t1) / len(variants)
            # baselines
            methods["imports"] = MethodRun(
                [f for f in graph.import_closure(seed.file) if is_source(f)])
            methods["cochange10"] = MethodRun(
                [g for g, _ in cc.get(seed.file, []) if is_source(g)][:10])
            callers: dict[str, int] = {}
            caller_files: dict[str, int] = {}
            for e in store.in_edges(seed_entity, frozenset({EdgeKind.CALL})):
                if not is_source(e.file):
                    continue
                callers[e.src] = callers.get(e.src, 0) + 1
                caller_files[e.file] = caller_files.get(e.file, 0) + 1
            methods["callers1"] = MethodRun(
                [f for f, _ in sorted(caller_files.items(), key=lambda t: (-t[1], t[0]))
                 if f != seed.file],
                [c for c, _ in sorted(callers.items(), key=lambda t: (-t[1], t[0]))
                 if c in symbol_ids],
            )
            dist = graph.distances_from(gold_files) if gold_files else {}
            r = CaseResult(
                sha=case.sha, seed_file=seed.file, seed=seed_entity,
                message=case.message.splitlines()[0][:100] if case.message else "",
                gold_files=gold_files, gold_symbols=gold_syms, added_files=list(case.added_files),
                methods=methods, seconds_index=t_index, seconds_stage=t_stage, note=note,
                dist={m: [dist.get(f) for f in run.files] for m, run in methods.items()},
                not_run=not_run,
            )
            if run_tests and before_outcomes is not None:
                run = functools.partial(_seeded_suite, cache, case.sha, wt, test_timeout,
                                        plugin_dir, pytest_args)
                after = run(seed.key, seed=seed)
                if after is not None:
                    r.breaking = _confirmed_breaking(before_outcomes, after, seed, run)
                    r.suite = sorted({base_test_id(t) for t in before_outcomes})
                    r.all_tests = len(r.suite)
                else:
                    r.not_run = f"the seeded suite ran over --test-timeout {test_timeout:g} s"
            results.append(r)
            if progress:
                progress(r)
    return results


_BROKEN = ("failed", "error")
_RECHECKS = 2  # reruns of the breaking candidates, at the parent and seeded


def _seeded_suite(cache: Path | None, sha: str, wt: Path, timeout: float, plugin_dir: Path,
                  extra: Sequence[str], key: str, ids: Sequence[str] = (),
                  seed: Any = None) -> dict[str, str] | None:
    """A (cached) suite run, of ``ids`` only when given, with ``seed`` applied if given."""
    with _seed_applied(wt, seed):
        return _cached_suite(cache, sha, key, wt, timeout, plugin_dir, extra, ids=ids)


def _confirmed_breaking(before: dict[str, str], after: dict[str, str], seed: Any,
                        run: Any) -> list[str]:
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
def _seed_applied(wt: Path, seed: Any) -> Iterator[None]:
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


def _cached_suite(cache: Path | None, sha: str, key: str, wt: Path, timeout: float,
                  plugin_dir: Path, extra: Sequence[str] = (),
                  ids: Sequence[str] = ()) -> dict[str, str] | None:
    path = _cache_file(cache, sha, key, extra)
    if path is not None and path.exists():
        data = json.loads(path.read_text())
        return data.get("outcomes")
    outcomes = run_suite(wt, timeout, plugin_dir, extra, ids)
    if path is not None and outcomes is not None:  # a timeout is not cached: a longer one may do
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"outcomes": outcomes}, sort_keys=True))
    return outcomes


def _cached_recording(cache: Path | None, sha: str, wt: Path, store: Any, timeout: float,
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


# --------------------------------------------------------------- aggregation
def _f(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def summarize(results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    """Per-method means (the n/a rule), the paired comparison with each baseline, the
    §7.6 ablation verdicts and timings. ``intervals``: also the 95 % bootstrap intervals
    (the stage's ``ci`` and each paired ``diff``; a run's progress writes skip them)."""
    methods = sorted({m for r in results for m in r.methods},
                     key=lambda m: (m != "stage", m.startswith("-"), m))
    out: dict[str, Any] = {"cases": len(results), "methods": {}}
    for m in methods:
        rows = [r for r in results if m in r.methods]
        fs = [score_sets(r.methods[m].files, r.gold_files) for r in rows]
        row: dict[str, Any] = {
            "recall": _f(mean(s.recall for s in fs)),
            "precision": _f(mean(s.precision for s in fs)),
            "f1": _f(mean(s.f1 for s in fs)),
            "predicted_files": _f(mean(float(len(r.methods[m].files)) for r in rows)),
            "answered": _f(mean(1.0 if r.methods[m].files else 0.0 for r in rows)),
        }
        for k in KS:
            row[f"p@{k}"] = _f(mean(precision_at_k(r.methods[m].files, r.gold_files, k)
                                    for r in rows))
            row[f"r@{k}"] = _f(mean(recall_at_k(r.methods[m].files, r.gold_files, k)
                                    for r in rows))
        # matched size: cut to the stage's prediction count on the same case
        matched: list[float | None] = []
        for r in rows:
            n = len(r.methods["stage"].files) if "stage" in r.methods else 0
            if n == 0:
                matched.append(None)
                continue
            s = score_sets(r.methods[m].files[:n], r.gold_files)
            matched.append(s.f1)
        row["f1@matched"] = _f(mean(matched))
        dists = [d for r in rows for d in r.dist.get(m, [])]
        reach = [d for d in dists if d is not None]
        row["distance"] = _f(mean(float(d) for d in reach))
        row["unreachable"] = _f(None if not dists else (len(dists) - len(reach)) / len(dists))
        srows = [r for r in rows if r.methods[m].symbols is not None]
        if srows:
            ss = [score_sets(r.methods[m].symbols or [], r.gold_symbols) for r in srows]
            row["sym_recall"] = _f(mean(s.recall for s in ss))
            row["sym_precision"] = _f(mean(s.precision for s in ss))
            row["sym_f1"] = _f(mean(s.f1 for s in ss))
            for k in (1, 3):
                row[f"sym_p@{k}"] = _f(mean(
                    precision_at_k(r.methods[m].symbols or [], r.gold_symbols, k)
                    for r in srows))
        trows = [r for r in rows if r.breaking is not None and r.methods[m].tests is not None]
        if trows:
            caught = total = 0
            per: list[float | None] = []
            ratios: list[float | None] = []
            least: list[float | None] = []  # the smallest selection that catches them all
            for r in trows:
                sel = {base_test_id(t) for t in r.methods[m].tests or []}
                if r.suite:  # a selected id the suite does not collect cannot run
                    sel &= set(r.suite)
                brk = {base_test_id(t) for t in r.breaking or []}
                caught += len(brk & sel)
                total += len(brk)
                per.append(None if not brk else len(brk & sel) / len(brk))
                ratios.append(None if not r.all_tests else len(sel) / r.all_tests)
                least.append(None if not r.all_tests else len(brk) / r.all_tests)
            row["breaking_caught"] = _f(None if total == 0 else caught / total)
            row["breaking_caught_macro"] = _f(mean(per))
            row["breaking_tests"] = total
            row["cases_run"] = len(trows)  # the suite ran at the parent and seeded
            row["cases_with_breaking"] = sum(1 for p in per if p is not None)
            row["selection_ratio"] = _f(mean(ratios))
            row["least_selection"] = _f(mean(least))
        if m == "stage" and intervals:
            row["ci"] = _stage_intervals(rows)
        out["methods"][m] = row
    out["paired"] = _paired(results, intervals=intervals)
    # §7.6 ablation verdicts
    full = out["methods"].get("stage")
    if full:
        abl: dict[str, Any] = {}
        for ch in CHANNELS:
            row = out["methods"].get(f"-{ch}")
            if row is None:
                continue
            deltas = {}
            for key in _ABLATION_KEYS:
                a, b = row.get(key), full.get(key)
                deltas[key] = None if a is None or b is None else round(a - b, 4)
            verdict = ablation_verdict(deltas)
            a, b = row.get("selection_ratio"), full.get("selection_ratio")
            # shown, not voted: a smaller selection is not better or worse by itself
            deltas["selection_ratio"] = None if a is None or b is None else round(a - b, 4)
            abl[ch] = {"deltas": deltas, "verdict": verdict}
        out["ablation"] = abl
    out["timing"] = {
        "index_s": _f(mean(r.seconds_index for r in results)),
        "stage_s": _f(mean(r.seconds_stage for r in results)),
    }
    return out


# what the §7.6 rule votes on: impact recall/precision (file and symbol level, and the
# ranked heads the issue adds) and the regression rate's proxy, the breaking tests caught
_ABLATION_KEYS = ("recall", "precision", "f1", "r@3", "p@3", "sym_recall", "sym_precision",
                  "breaking_caught")


def ablation_verdict(deltas: Mapping[str, float | None]) -> str:
    """§7.6's mechanical rule on ``deltas`` (without the channel − with it; every metric
    higher-is-better): a channel is deleted iff its removal moves none of them beyond
    :data:`NOISE`. The verdict also says which way it moved: ``keep`` (removal only
    lowers), ``keep (mixed)`` (some up, some down), ``delete (hurts)`` (removal only
    raises: kept by the letter, harmful in fact). Without the regression measure
    (``breaking_caught`` unmeasured) a channel whose removal lowers nothing is
    ``undecided``: the rule needs the regression rate too."""
    down = any(d is not None and d < -NOISE for d in deltas.values())
    up = any(d is not None and d > NOISE for d in deltas.values())
    if down:
        return "keep (mixed)" if up else "keep"
    if deltas.get("breaking_caught") is None:  # no deletion without the regression rate
        return f"undecided ({'removal helps' if up else 'noise'}; regression not measured)"
    return "delete (hurts)" if up else "delete (noise)"


# p@n / f1@n: the stage cut to the baseline's own prediction count on each case (matched size)
_PAIRED = ("p@1", "r@1", "p@3", "r@3", "p@5", "r@5", "f1", "p@n", "f1@n")


_CI = ("r@1", "p@1", "r@3", "p@3", "f1")


def _stage_intervals(rows: Sequence[CaseResult]) -> dict[str, list[float]]:
    """The 95 % bootstrap interval [lo, hi] of the stage's mean, per metric of ``_CI``."""
    out: dict[str, list[float]] = {}
    for k in _CI:
        iv = bootstrap_mean(_metric(r.methods["stage"].files, r.gold_files, k, 0)
                            for r in rows)
        if iv is not None:
            out[k] = [round(iv.lo, 4), round(iv.hi, 4)]
    return out


def _paired(results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    """Each baseline against the stage on the same cases, those both answer (the unpaired
    means skip the cases a method leaves empty — the n/a rule — so a method that rarely
    answers can look precise next to one that always does). ``diff`` holds, per metric,
    the mean stage − baseline difference, its 95 % paired bootstrap interval and the
    verdict it supports (``ahead``/``behind`` when the interval excludes 0, else ``tie``)."""
    out: dict[str, Any] = {}
    for b in BASELINES:
        rows = [r for r in results if r.gold_files and all(
            m in r.methods and r.methods[m].files for m in ("stage", b))]
        if not rows:
            continue
        values = {m: {k: [_metric(r.methods[m].files, r.gold_files, k,
                                  len(r.methods[b].files)) for r in rows]
                      for k in _PAIRED} for m in ("stage", b)}
        out[b] = {"cases": len(rows)} | {
            m: {k: _f(mean(v)) for k, v in values[m].items()} for m in ("stage", b)}
        if intervals:
            diff = {k: paired_bootstrap(values["stage"][k], values[b][k]) for k in _PAIRED}
            out[b]["diff"] = {k: _verdict(d) for k, d in diff.items() if d is not None}
    return out


def _verdict(d: Interval) -> dict[str, Any]:
    return d.as_dict() | {"verdict": d.verdict}


def _metric(files: Sequence[str], gold: Sequence[str], key: str, n: int) -> float | None:
    """One paired metric of a ranked list; ``@n`` keys keep its first ``n`` files."""
    if key == "f1@n":
        return score_sets(files[:n], gold).f1
    if key == "p@n":
        return precision_at_k(files, gold, n)
    if key == "f1":
        return score_sets(files, gold).f1
    k = int(key[2:])
    return precision_at_k(files, gold, k) if key[0] == "p" else recall_at_k(files, gold, k)


def format_table(repo: str, summary: dict[str, Any], info: dict[str, Any]) -> str:
    lines = [f"# {repo}: {summary['cases']} cases "
             f"({info.get('candidates', 0)} candidate commits, "
             f"{info.get('skipped_semantic', 0)} skipped by the semantic filter"
             f"{_by_message(info)})"]
    cols = [("recall", "R"), ("precision", "P"), ("f1", "F1"), ("p@1", "P@1"), ("r@1", "R@1"),
            ("p@3", "P@3"), ("r@3", "R@3"), ("p@5", "P@5"), ("r@5", "R@5"),
            ("f1@matched", "F1@n"), ("predicted_files", "|pred|"), ("distance", "dist"),
            ("sym_recall", "symR"), ("sym_precision", "symP"), ("breaking_caught", "brk"),
            ("selection_ratio", "sel")]
    lines.append(f"{'method':<11}" + "".join(f"{label:>7}" for _, label in cols))
    for m, row in summary["methods"].items():
        lines.append(f"{m:<11}" + "".join(
            f"{fmt(row.get(c), 3) if c in row else '-':>7}" for c, _ in cols))
    if summary.get("ablation"):
        lines.append("ablation (Δ = without − with; |Δ| ≤ 0.05 is noise):")
        for ch, a in summary["ablation"].items():
            d = ", ".join(f"{k} {fmt(v, 3)}" for k, v in a["deltas"].items())
            lines.append(f"  {ch:<9} {a['verdict']:<16} {d}")
    lines += _interval_lines(summary)
    for b, p in (summary.get("paired") or {}).items():
        verdicts = {k: d["verdict"] for k, d in p.get("diff", {}).items()}
        tally = ", ".join(f"{v} {sum(1 for x in verdicts.values() if x == v)}"
                          for v in ("ahead", "tie", "behind"))
        behind = [k for k, v in verdicts.items() if v == "behind"]
        lines.append(f"paired with {b} ({p['cases']} cases, 95 % bootstrap): {tally}"
                     + (f" — behind on {', '.join(behind)}" if behind else ""))
    t = summary.get("timing", {})
    lines.append(f"mean index {fmt(t.get('index_s'), 2)} s, "
                 f"mean stage {fmt(t.get('stage_s'), 3)} s per case")
    return "\n".join(lines)


def _by_message(info: Mapping[str, Any]) -> str:
    n = info.get("skipped_message")  # not in runs saved before it was counted
    return f"; {n} dropped by the message filter in the same span" if n else ""


def format_markdown(repo: str, summary: dict[str, Any], info: dict[str, Any]) -> str:
    """The README table of one repository."""
    cols = [("r@1", "R@1"), ("p@1", "P@1"), ("r@3", "R@3"), ("p@3", "P@3"), ("r@5", "R@5"),
            ("p@5", "P@5"), ("recall", "R"), ("precision", "P"), ("f1", "F1"),
            ("f1@matched", "F1@n"), ("predicted_files", "files"), ("answered", "answered"),
            ("distance", "dist"),
            ("sym_recall", "sym R"), ("sym_precision", "sym P"),
            ("breaking_caught", "breaking caught"), ("selection_ratio", "selected")]
    out = [f"**{repo}** — {summary['cases']} cases from {info.get('candidates', 0)} candidate "
           f"commits ({info.get('skipped_semantic', 0)} skipped by the semantic filter"
           f"{_by_message(info)})", "",
           "| method | " + " | ".join(label for _, label in cols) + " |",
           "|---|" + "---:|" * len(cols)]
    for m, row in summary["methods"].items():
        out.append(f"| {m} | " + " | ".join(
            fmt(row.get(c), 3) if c in row else "–" for c, _ in cols) + " |")
    if summary.get("ablation"):
        out += ["", "| channel removed | ΔR | ΔP | ΔF1 | ΔR@3 | ΔP@3 | Δsym R | Δsym P | "
                "Δbreaking caught | Δselected | verdict (§7.6, abs(Δ) ≤ 0.05 = noise) |",
                "|---|" + "---:|" * 9 + "---|"]
        for ch, a in summary["ablation"].items():
            d = a["deltas"]
            out.append(f"| {ch} | " + " | ".join(fmt(d.get(k), 3) for k in (
                *_ABLATION_KEYS, "selection_ratio")) + f" | {a['verdict']} |")
    ci = _interval_lines(summary)
    out += ["", *ci] if ci else []
    out += _paired_markdown(summary)
    out += _regression_markdown(summary)
    return "\n".join(out)


def _interval_lines(summary: dict[str, Any]) -> list[str]:
    ci = (summary["methods"].get("stage") or {}).get("ci") or {}
    if not ci:
        return []
    return ["stage, 95 % bootstrap intervals of the means: " + ", ".join(
        f"{k.upper()} [{fmt(lo, 3)}, {fmt(hi, 3)}]" for k, (lo, hi) in ci.items())]


def _paired_markdown(summary: dict[str, Any]) -> list[str]:
    """Stage against each baseline on the cases both answer: each cell "stage / baseline",
    then the bootstrap verdict on the difference (▲ ahead, ▼ behind, = tie)."""
    paired = summary.get("paired") or {}
    if not paired:
        return []
    mark = {"ahead": "▲", "behind": "▼", "tie": "="}
    labels = [k.upper().replace("@N", "@n") for k in _PAIRED]
    out = ["", "| paired: cases both answer (stage / baseline, 95 % bootstrap: ▲ ahead, "
           "▼ behind, = tie) | cases | " + " | ".join(labels) + " |",
           "|---|---:|" + "---:|" * len(_PAIRED)]
    for b, p in paired.items():
        diff = p.get("diff", {})
        cells = [f"{fmt(p['stage'][k], 3)} / {fmt(p[b][k], 3)}"
                 + (f" {mark[diff[k]['verdict']]}" if k in diff else "") for k in _PAIRED]
        out.append(f"| {b} | {p['cases']} | " + " | ".join(cells) + " |")
    return out


def _regression_markdown(summary: dict[str, Any]) -> list[str]:
    """The §7.2 regression measure of the stage with and without the recorded run."""
    rows = [(m, summary["methods"].get(m) or {}) for m in ("stage", "-recording", "-testmap")]
    rows = [(m, r) for m, r in rows if r.get("selection_ratio") is not None]
    if not rows:
        return []
    out = ["", "| tests selected by | cases run | cases with breaking tests | breaking tests "
           "| caught (micro / macro) | selected / all | least selection catching all |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for m, r in rows:
        caught = f"{fmt(r.get('breaking_caught'), 3)} / {fmt(r.get('breaking_caught_macro'), 3)}"
        out.append(f"| {m} | {r.get('cases_run', 0)} | {r.get('cases_with_breaking', 0)} "
                   f"| {r.get('breaking_tests', 0)} "
                   f"| {caught} | {fmt(r.get('selection_ratio'), 3)} "
                   f"| {fmt(r.get('least_selection'), 3)} |")
    return out


# --------------------------------------------------------------------- main
def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "impactlens" / "bench" / "history"


def _payload(top: Path, info: dict[str, Any], args: argparse.Namespace,
             results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    return {
        "repo": top.name, "head": _git(top, "rev-parse", "HEAD").strip(), "info": info,
        "settings": {"cap": args.cap, "seed": args.seed, "limit": args.limit,
                     "run_tests": args.run_tests, "pytest_args": args.pytest_args,
                     "set": args.set},
        "summary": summarize(results, intervals=intervals), "cases": [asdict(r) for r in results],
    }


def _load_saved(paths: Sequence[Path]) -> tuple[str, dict[str, Any], list[CaseResult]]:
    """The cases of saved ``--out`` files, pooled, with a label and the summed mining
    counts (one file: its repository's name and info as saved)."""
    saved = [json.loads(p.read_text()) for p in paths]
    for p, d in zip(paths, saved, strict=True):
        if not (isinstance(d, dict) and isinstance(d.get("info"), dict)
                and isinstance(d.get("cases"), list) and isinstance(d.get("repo"), str)):
            raise ValueError(f"{p}: no repo, info and cases")
    rows = [_case_from_json(c) for d in saved for c in d["cases"]]
    if len(saved) == 1:
        return saved[0]["repo"], saved[0]["info"], rows
    info = {k: sum(int(d["info"].get(k, 0)) for d in saved)
            for k in ("candidates", "skipped_semantic", "skipped_message")}
    return "pooled: " + ", ".join(d["repo"] for d in saved), info, rows


def _case_from_json(d: dict[str, Any]) -> CaseResult:
    d = dict(d)
    d["methods"] = {k: MethodRun(**v) for k, v in d["methods"].items()}
    return CaseResult(**d)


def _write(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def _unusable(repo: Path, out: Path | None) -> str:
    """Why the run cannot start ('' when it can): checked before hours of cases, not after."""
    if not repo.is_dir():
        return f"{repo}: no such directory"
    if out is not None and out.is_dir():
        return f"--out {out}: a directory (give a file name)"
    if out is not None and not out.parent.is_dir():
        return f"--out {out}: no such directory {out.parent}"
    if out is not None and not os.access(out.parent, os.W_OK):
        return f"--out {out}: {out.parent} is not writable"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="impactlens bench history",
        description="Real-history evaluation: seed one changed function at the parent, "
                    "score the stage against what the commit co-changed.",
    )
    ap.add_argument("repo", type=Path, nargs="?",
                    help="a git work tree with history (never modified; cases run in "
                         "temporary `git worktree`s)")
    ap.add_argument("--json", action="store_true", help="print the full result as JSON")
    ap.add_argument("--limit", type=at_least(1), default=30, help="newest N cases (default 30)")
    ap.add_argument("--seed", choices=("first", "all"), default="first")
    ap.add_argument("--cap", type=at_least(2), default=8,
                    help="max changed source files per case (a case has at least 2)")
    ap.add_argument("--run-tests", action="store_true",
                    help="run the suite before/after the seed (regression measure, §7.2)")
    ap.add_argument("--test-timeout", type=at_least(0, float, above=True), default=300.0,
                    help="seconds per suite run (a run over it counts as not run)")
    ap.add_argument("--pytest-args", default="",
                    help="extra pytest arguments for the subject's suite, e.g. "
                         "'--ignore tests/test_stress.py'")
    ap.add_argument("--cache", type=Path, default=None,
                    help="test-outcome cache (default $XDG_CACHE_HOME/impactlens/bench/history)")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    ap.add_argument("--markdown", action="store_true", help="print the README table")
    ap.add_argument("--from-json", type=Path, nargs="+", default=None, metavar="FILE",
                    help="re-summarise saved --out files instead of running; several "
                         "files are pooled (their cases summarised together)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a numeric setting for this run, e.g. "
                         "--set cochange_symbol_weight=1 (repeatable)")
    args = ap.parse_args(list(argv) if argv is not None else None)

    if args.from_json:
        try:
            label, info, rows = _load_saved(args.from_json)
        except OSError as exc:
            print(f"impactlens: error: --from-json: cannot read {exc.filename}: "
                  f"{exc.strerror}", file=sys.stderr)
            return 2
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            print(f"impactlens: error: --from-json: not a saved run ({type(exc).__name__}: "
                  f"{exc})", file=sys.stderr)
            return 2
        summary = summarize(rows)
        render = format_markdown if args.markdown else format_table
        print(json.dumps(summary, indent=2) if args.json else render(label, summary, info))
        return 0
    if args.repo is None:
        ap.error("a repository path is required (or --from-json FILE...)")
    # a terminated run still removes its temporary worktree (the `finally` blocks run)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    repo = args.repo.resolve()
    problem = _unusable(repo, args.out)
    if problem:
        print(f"impactlens: error: {problem}", file=sys.stderr)
        return 2
    try:
        top = gitcmd.toplevel(repo)
    except Exception as exc:  # one line, no traceback
        print(f"impactlens: error: {repo}: not a git work tree ({exc})", file=sys.stderr)
        return 2
    if not gitcmd.has_head(top):
        print(f"impactlens: error: {top}: the repository has no commits", file=sys.stderr)
        return 2
    try:
        settings = override(DEFAULT, args.set)
    except ValueError as exc:
        print(f"impactlens: error: --set: {exc}", file=sys.stderr)
        return 2
    cases, info = mine_cases(top, limit=args.limit, cap=args.cap, seed_mode=args.seed,
                             settings=settings)
    cache = (args.cache or _default_cache()) / hashlib.sha256(
        str(top).encode()).hexdigest()[:12]
    tty = sys.stderr.isatty()
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="impactlens-plugin-") as pd:
        plugin_dir = Path(pd)
        (plugin_dir / "impactlens_bench_plugin.py").write_text(_PLUGIN)
        for i, case in enumerate(cases):
            if tty:
                print(f"[{i + 1}/{len(cases)}] {case.sha[:10]} {case.message.splitlines()[0][:60]}",
                      file=sys.stderr)
            try:
                results.extend(evaluate_case(
                    top, case, settings, run_tests=args.run_tests,
                    test_timeout=args.test_timeout, cache=cache, plugin_dir=plugin_dir,
                    pytest_args=shlex.split(args.pytest_args)))
            except Exception as exc:  # a broken case is reported, the run goes on
                info.setdefault("failed_cases", []).append(
                    {"sha": case.sha, "error": f"{type(exc).__name__}: {exc}"[:300]})
            if args.out:  # rewritten after every case: an interrupted run keeps its cases
                _write(args.out, _payload(top, info, args, results, intervals=False))
    payload = _payload(top, info, args, results)
    summary = payload["summary"]
    if args.out:
        _write(args.out, payload)
    if args.json:
        print(json.dumps(payload, indent=2, sort_keys=False))
    elif args.markdown:
        print(format_markdown(top.name, summary, info))
    else:
        print(format_table(top.name, summary, info))
        for fc in info.get("failed_cases", []):
            print(f"case {fc['sha'][:10]} failed: {fc['error']}")
        for r in results:
            if r.not_run:
                print(f"case {r.sha[:10]} ({r.seed}): no regression measure: {r.not_run}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
