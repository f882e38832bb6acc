"""``impactlens mcp [PATH]``: the impact analyzer as an MCP server (stdio, one repository).

Every tool is a thin call into :class:`impactlens.api.Project`; nothing here analyzes.
All work runs on one dedicated worker thread (the SQLite store is thread-bound, and
one index writer at a time is what the indexer expects). From the first query on, a
file watcher follows the saves (:meth:`impactlens.api.Project.start_watching`): a burst
of saves is indexed incrementally right away, and each query first waits for the
watcher to report every save made before it, so it sees them without scanning the
disk; when the watcher cannot start or does not answer in time, the query scans.

Errors a client can cause (unknown symbol, malformed diff, a path outside the
repository, wrong argument types) come back as tool errors with a one-line message;
anything unexpected comes back as a tool error too, with the traceback on stderr, and
the server keeps serving. No tool writes anywhere but ``REPO/.impactlens/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypeVar, cast

import anyio
from mcp.server.mcpserver import MCPServer as _Server  # the mcp 2.x SDK (FastMCP in 1.x)
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs this one below Python 3.12

from impactlens import __version__
from impactlens.answer import Cut, answer_json, build_answer, fit, json_text, page
from impactlens.answer.text import brief
from impactlens.api import Project
from impactlens.change.inputs import repo_path
from impactlens.errors import BadInputError, ImpactlensError, WatchError
from impactlens.impact.token_count import count_tokens
from impactlens.model import normalise_direction
from impactlens.serve.stdio_frames import serve_framed
from impactlens.settings import Settings

__all__ = ["build_server", "serve_stdio"]

log = logging.getLogger("impactlens.mcp")
T = TypeVar("T")

INSTRUCTIONS = """\
impactlens answers "what else does this edit reach?" for one Python repository, from a
static index (call graph, imports, inheritance, tests, git co-change history), without
running code. Symbols are dotted qualnames (pkg.mod.Class.method), a unique suffix of one
(Class.method), a pytest node id, or path.py:LINE. Typical flow: find_symbol → context →
(edit) → analyze_change → run the tests it lists. Results are maps, never file contents.
Sites static analysis cannot follow (getattr with computed names, registries, eval) are
listed as `unanalyzable`: treat those as unknown, not as safe."""

# --------------------------------------------------------------- outputs
# Structured outputs: the §3.9 impact schema plus triage/batches. Fields the spec pins
# are typed; auxiliary detail stays an open object so it can grow.


class ChangeInfo(TypedDict):
    mode: str  # worktree | diff | rev
    label: str
    files: list[str]
    other_files: list[str]
    note: NotRequired[str]  # how the input was read (a diff already in the working tree)


class Seed(TypedDict):
    change_type: str
    entity: str
    file: str
    line_range: list[int]


class TriageItem(TypedDict):
    entity: str
    file: str
    conf: float
    reason: str
    task_relevance: NotRequired[float]  # the task text's relevance to the file (BM25)
    edit_relevance: NotRequired[float]  # the edit's own lines' relevance to the file
    retired: NotRequired[list[str]]  # identifiers the edit stopped mentioning, named here
    sole_caller_of: NotRequired[str]  # the changed function only this library file calls
    task_named: NotRequired[list[str]]  # what the task text names that this entry defines


class Triage(TypedDict):
    must_inspect: list[TriageItem]
    may_impact: list[TriageItem]
    low_risk: list[TriageItem]


class BatchOut(TypedDict):
    batch_id: int
    members: list[str]
    size: int


class DagNodeOut(TypedDict):
    entity: str
    kind: str
    file: str
    line: int
    signature: str
    batch_id: int | None


DagEdgeOut = TypedDict("DagEdgeOut", {"from": str, "to": str, "cause": str,
                                      "why": NotRequired[str]})


class DagOut(TypedDict):
    nodes: list[DagNodeOut]
    edges: list[DagEdgeOut]
    truncated: bool


class TestsOut(TypedDict):
    count: int
    by_file: list[dict[str, Any]]  # {file, count}, the largest first
    note: str


class AnalyzeOutput(TypedDict):
    change: ChangeInfo
    risk: str  # one line, read off the triage
    summary: dict[str, int]  # the full size of each section
    seed: Seed | None
    changes: list[dict[str, Any]]
    triage: Triage  # code to edit or read; tests that merely re-run are in `validate`
    batches: list[BatchOut]
    validate: list[str]
    tests: TestsOut
    dag: DagOut
    unanalyzable: list[dict[str, Any]]
    not_analyzed: NotRequired[list[dict[str, Any]]]  # edited files left out, and why
    co_change: dict[str, Any]
    note: str
    omitted: dict[str, int]  # per section, what this answer leaves out
    complete: bool  # nothing is left out
    next_cursor: str | None  # detail=true: pass it as `cursor` for the next page
    test_map: NotRequired[list[dict[str, Any]]]
    impact_sets: NotRequired[list[dict[str, Any]]]


class SelectedTest(TypedDict):
    test_id: str
    conf: float
    via: str


class ValidationOutput(TypedDict):
    change: ChangeInfo
    tests: list[str]  # this page of the ids, in order
    count: int  # every id, over all pages
    evidence: list[SelectedTest]
    note: str
    next_cursor: str | None  # pass it as `cursor` for the next page


class SymbolRef(TypedDict):
    id: str
    kind: str
    file: str
    line: int


class ImpactOutput(TypedDict):
    mode: str  # callgraph | pdg
    target: dict[str, Any]
    result: dict[str, Any]
    next_cursor: NotRequired[str | None]  # callgraph: the next page's `cursor`


class FindHit(TypedDict):
    id: str
    kind: str
    file: str
    line: int
    signature: str


class FindOutput(TypedDict):
    query: str
    matches: list[FindHit]


class ContextOutput(TypedDict):
    symbol: dict[str, Any]
    callers: list[dict[str, Any]]
    callees: list[dict[str, Any]]
    tests: list[str]


class SliceOutput(TypedDict):
    file: str
    line: int
    direction: str
    result: dict[str, Any]


class ReindexOutput(TypedDict):
    files: int
    parsed: int
    symbols: int
    edges: int
    unresolved: int
    parse_failures: int
    seconds: float
    full: bool
    failures: list[list[str]]
    skipped: list[list[str]]  # [path, why] of what was left out of the index altogether


# --------------------------------------------------------------- inputs
DiffArg = Annotated[str | None, Field(
    description="A unified diff (git diff / diff -u text) of the edit you are about to make, "
                "applied in memory to the current tree. Omit both `diff` and `rev` to analyze "
                "the uncommitted working tree against HEAD.")]
RevArg = Annotated[str | None, Field(
    description="A git revision: one commit (analyzed against its parent) or a range A..B. "
                "Mutually exclusive with `diff`.")]
TaskArg = Annotated[str | None, Field(
    description="What the change is for, in a sentence; ranks git co-change history. "
                "Defaults to the commit message for `rev`.")]
MaxTokensArg = Annotated[int | None, Field(
    ge=500, description="Answer size limit in tokens (text and structure together; default "
                        "6000). What does not fit is counted in `omitted`.")]
CursorArg = Annotated[str | None, Field(
    description="The `next_cursor` of the previous page, to continue paging.")]
SymbolArg = Annotated[str, Field(
    description="A dotted qualname (pkg.mod.Class.method), a unique suffix (Class.method), "
                "a pytest node id, or path.py:LINE.", min_length=1)]


def _jsonable(obj: Any) -> Any:
    """Plain JSON types (tuples → lists, enums → values) for structured content."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "value") and isinstance(getattr(obj, "value", None), str):
        return obj.value
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    if hasattr(obj, "__dataclass_fields__"):
        return {k: _jsonable(getattr(obj, k)) for k in obj.__dataclass_fields__}
    return str(obj)


class _Backend:
    """One Project, driven from one worker thread."""

    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.project = Project(root, settings)
        self.root = self.project.root
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="impactlens")
        self._watch_tried = False
        self._catch_up_queued = threading.Event()

    async def call(self, fn: Callable[..., T], *args: Any, refresh: bool = True,
                   **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        job = functools.partial(self._guarded, fn, args, kwargs, refresh)
        return await loop.run_in_executor(self._pool, job)

    def _guarded(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any],
                 refresh: bool) -> T:
        try:
            if refresh:
                self._watch()
                self.project.refresh()
            return fn(*args, **kwargs)
        except ToolError:
            raise
        except ImpactlensError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            raise ToolError(f"internal error: {type(exc).__name__}: {exc} "
                            "(the server is still running)") from None

    def _watch(self) -> None:
        """Follow the saves from the first query on: queries then skip the staleness scan
        while the watcher reports nothing, and a burst of saves is indexed right away."""
        if self._watch_tried:
            return
        try:
            self.project.start_watching(on_change=self._changed)
        except WatchError as exc:
            log.warning("%s; every query checks the disk instead", exc)
        self._watch_tried = True

    def _changed(self) -> None:
        """On the watcher's thread: queue one refresh on the worker (the store's thread)."""
        if not self._catch_up_queued.is_set():
            self._catch_up_queued.set()
            with contextlib.suppress(RuntimeError):  # the server is shutting down
                self._pool.submit(self._catch_up)

    def _catch_up(self) -> None:
        self._catch_up_queued.clear()  # a save from now on queues another
        try:
            self.project.refresh()
        except Exception as exc:  # the next query refreshes again and reports it
            log.warning("refresh after a save failed: %s: %s", type(exc).__name__, exc)

    def _shutdown(self) -> None:
        self.project.stop_watching()
        self.project.close()

    def close(self) -> None:
        self._pool.submit(self._shutdown).result()
        self._pool.shutdown(wait=True)

    # ---------------------------------------------------------- helpers
    def repo_file(self, raw: str) -> str:
        """A repository-relative POSIX path for ``raw`` (relative to the root, or absolute
        inside it); anything outside the repository is refused."""
        rel = repo_path(self.root, raw or "", what="file")
        if rel.split("/")[0] == ".impactlens":
            raise BadInputError(f"{raw}: not a source file of the repository")
        if not (self.root / rel).is_file():
            raise BadInputError(f"{raw}: no such file in the repository")
        return rel

    def change_kwargs(self, diff: str | None, rev: str | None, task: str | None,
                      as_of: str | None) -> dict[str, Any]:
        if diff is not None and rev is not None:
            raise BadInputError("give at most one of `diff` and `rev` (neither = working tree)")
        kw: dict[str, Any] = {"task": task, "as_of": as_of}
        if diff is not None:
            if not diff.strip():
                raise BadInputError("diff: the diff is empty")
            kw.update(diff=diff, diff_source="diff")
        elif rev is not None:
            if not rev.strip():
                raise BadInputError("rev: empty revision")
            kw["rev"] = rev.strip()
        return kw

    def analyze(self, kw: dict[str, Any]) -> tuple[Any, Any]:
        change = self.project.proposed_change(**kw)
        if not change.files:
            return change, None
        return change, self.project.analyze(change, refresh=False)


def _change_info(change: Any) -> ChangeInfo:
    info: ChangeInfo = {"mode": change.mode, "label": change.label,
                        "files": list(change.paths), "other_files": list(change.other_files)}
    if change.note:
        info["note"] = change.note
    return info


def _noted(change: Any, text: str) -> str:
    """``text`` after the note on how the change was read, when there is one."""
    return f"{change.note}\n{text}" if change.note else text


_EMPTY_NOTE = "no Python file changed: nothing to analyze"
_MORE = ("Every section of the result is in the structured content; `omitted` counts what "
         "this answer leaves out: call again with detail=true (and then `cursor`) for all of "
         "it, or use tests_for_change for every test id.")


def _empty_output(change: Any) -> AnalyzeOutput:
    return {
        "change": _change_info(change), "risk": "risk: none — no Python file changed",
        "summary": {}, "seed": None, "changes": [],
        "triage": {"must_inspect": [], "may_impact": [], "low_risk": []},
        "batches": [], "validate": [], "tests": {"count": 0, "by_file": [], "note": ""},
        "dag": {"nodes": [], "edges": [], "truncated": False}, "unanalyzable": [],
        "co_change": {}, "note": _EMPTY_NOTE, "omitted": {}, "complete": True,
        "next_cursor": None,
    }


def _output(change: Any, data: dict[str, Any], *, detail: bool,
            next_cursor: str | None = None) -> AnalyzeOutput:
    """The tool's shape of an answer's JSON (see :func:`impactlens.answer.answer_json`)."""
    summary = {k: v for k, v in data["summary"].items() if isinstance(v, int)}
    out: AnalyzeOutput = {
        "change": _change_info(change), "risk": data["summary"]["risk"], "summary": summary,
        "seed": data["seed"], "changes": data["changes"], "triage": data["triage"],
        "batches": data["batches"], "validate": data["obligations"]["validate"],
        "tests": data["tests"], "dag": data["dag"], "unanalyzable": data["unanalyzable"],
        "not_analyzed": data["not_analyzed"], "co_change": data["co_change"],
        "note": data["tests_note"],
        "omitted": data["omitted"], "complete": data["complete"], "next_cursor": next_cursor,
    }
    if detail:
        out["test_map"] = data["test_map"]
        out["impact_sets"] = data["impact_sets"]
    return out


def _tokens(text: str, settings: Settings) -> int:
    return count_tokens(text, settings.tokenizer_encoding)


def _cursor(offset: int | None) -> str | None:
    return None if offset is None else f"item:{offset}"


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    kind, _, num = cursor.partition(":")
    if kind != "item" or not num.isdigit():
        raise BadInputError(f"cursor: {cursor!r} is not a cursor this server returned")
    return int(num)


def tests_page(change: Any, result: Any, offset: int, max_tokens: int,
               settings: Settings) -> ValidationOutput:
    """The test ids from ``offset``, as many as fit ``max_tokens``, with their evidence."""
    tests = list(result.validate)
    best: dict[str, SelectedTest] = {}
    for t in result.test_map:
        cur = best.get(t.test_id)
        if cur is None or t.conf > cur["conf"]:
            best[t.test_id] = {"test_id": t.test_id, "conf": t.conf, "via": t.via}
    note = result.tests_note or ("" if tests else "no test reaches the changed code")

    def out(n: int) -> ValidationOutput:
        ids = tests[offset: offset + n]
        end = offset + n
        return {"change": _change_info(change), "tests": ids, "count": len(tests),
                "evidence": [best[t] for t in ids if t in best], "note": note,
                "next_cursor": _cursor(end) if end < len(tests) else None}

    lo, hi = min(1, len(tests) - offset), max(0, len(tests) - offset)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _tokens(json_text(out(mid), pretty=False), settings) + 40 <= max_tokens:
            lo = mid  # 40: the one-line text beside the structure
        else:
            hi = mid - 1
    return out(lo)


def analyze_result(change: Any, result: Any, *, detail: bool, max_tokens: int,
                   cursor: str | None, settings: Settings) -> CallToolResult:
    """The answer within ``max_tokens`` (its text and its structure counted together):
    the ranked answer cut to fit, or with ``detail`` a page of the whole answer."""
    if result is None:
        out = _empty_output(change)
        text = _noted(change, _EMPTY_NOTE)
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=cast(dict[str, Any], out))
    answer = build_answer(result)
    if detail:
        def page_size(start: Cut, cut: Cut) -> int:
            got = _output(change, answer_json(answer, cut, start), detail=True,
                          next_cursor="item:0")
            return _tokens(json_text(got, pretty=False), settings)

        start, cut, nxt = page(answer, _offset(cursor), page_size, max_tokens)
        out = _output(change, answer_json(answer, cut, start), detail=True,
                      next_cursor=_cursor(nxt))
        text = (f"{answer.risk}\nA page of the whole answer"
                + (": pass next_cursor as `cursor` for the next." if nxt is not None
                   else " (the last page)."))
    else:
        base = {k: 0 for k in ("test_map", "impact_sets")}

        def size(cut: Cut) -> int:
            got = _output(change, answer_json(answer, {**cut, **base}), detail=False)
            return (_tokens(json_text(got, pretty=False), settings)
                    + _tokens(brief(answer, {**cut, **base}) + _MORE, settings))

        cut = {**fit(answer, size, max_tokens), **base}
        out = _output(change, answer_json(answer, cut), detail=False)
        text = brief(answer, cut) + "\n" + _MORE
    return CallToolResult(content=[TextContent(type="text", text=_noted(change, text))],
                          structured_content=cast(dict[str, Any], out))


def _reply(out: Any, text: str) -> CallToolResult:
    """A tool answer: a short text for the reader, the structure once (never the same
    object twice: the structured content is the full answer)."""
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=cast(dict[str, Any], out))


def _counts(result: Mapping[str, Any]) -> str:
    """The sizes of a result's lists and of its per-depth groups, in words."""
    parts = []
    for key, value in result.items():
        if isinstance(value, list):
            parts.append(f"{len(value)} {key.replace('_', ' ')}")
        elif isinstance(value, dict) and value and all(isinstance(v, list)
                                                       for v in value.values()):
            inner = ", ".join(f"{len(v)} at {k}" for k, v in value.items())
            parts.append(f"{key.replace('_', ' ')}: {inner}")
    return "; ".join(parts) or "nothing"


_STRUCTURED = " (every item is in the structured result)"


def _ref(node: Any) -> SymbolRef:
    return {"id": node.id, "kind": str(getattr(node.kind, "value", node.kind)),
            "file": node.file, "line": node.start_line}


# --------------------------------------------------------------- server
def build_server(root: str | Path, settings: Settings | None = None) -> Any:
    """The MCP server for the repository at ``root`` (not yet running); ``settings``:
    ``None`` = the repository's own (``[tool.impactlens]``)."""
    backend = _Backend(Path(root), settings)
    server = _Server(
        name="impactlens", instructions=INSTRUCTIONS, version=__version__,
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                idempotent_hint=True, open_world_hint=False)

    def query_tool(name: str, title: str, description: str) -> Any:
        """A read-only tool with structured output (every tool but `reindex`)."""
        return server.tool(name=name, title=title, annotations=read_only,
                           structured_output=True, description=description)

    @query_tool(
        name="analyze_change",
        title="Impact of a proposed change",
        description=(
            "START HERE for any edit. Given a change — the uncommitted working tree "
            "(default: pass nothing), a unified `diff` you are about to apply, or a git `rev` "
            "— returns what else it reaches: `triage` (must_inspect = breaks unless you update "
            "it, e.g. callers whose arguments no longer bind; may_impact = reachable, check it; "
            "low_risk), each item with its cause; `batches` = groups to edit and validate "
            "together, in order, the changed symbol first; `validate` = pytest node ids to run; "
            "`dag` = cause-labelled impact graph; `unanalyzable` = dynamic sites static analysis "
            "cannot see (treat as unknown, not safe); `risk` = one line to read first. The "
            "answer fits `max_tokens` (default 6000): the top of each list is shown and "
            "`omitted` counts the rest; detail=true pages through everything with `cursor`. "
            "Read-only."),
    )
    async def analyze_change(
        diff: DiffArg = None, rev: RevArg = None, task: TaskArg = None,
        as_of: Annotated[str | None, Field(
            description="ISO date: only git history strictly before it is used for "
                        "co-change (defaults: now, or the commit date for `rev`).")] = None,
        detail: Annotated[bool, Field(
            description="Page through the whole answer (every entry, the per-test map and "
                        "the per-change impact sets) instead of the ranked summary.")] = False,
        max_tokens: MaxTokensArg = None,
        cursor: CursorArg = None,
    ) -> Annotated[CallToolResult, AnalyzeOutput]:
        def work() -> CallToolResult:
            change, result = backend.analyze(backend.change_kwargs(diff, rev, task, as_of))
            settings = backend.project.settings
            return analyze_result(change, result, detail=detail, cursor=cursor,
                                  max_tokens=max_tokens or settings.mcp_max_tokens,
                                  settings=settings)
        return await backend.call(work)

    @query_tool(
        name="tests_for_change",
        title="Tests to run for a change",
        description=(
            "Only the targeted validation set of a change: the pytest node ids to re-run, "
            "with the confidence and the impacted symbol that selected each. Same change "
            "inputs as analyze_change (nothing = working tree, or `diff`, or `rev`). Use it "
            "right before running pytest; use analyze_change when you also need what else "
            "to edit."),
    )
    async def tests_for_change(
        diff: DiffArg = None, rev: RevArg = None, task: TaskArg = None,
        max_tokens: MaxTokensArg = None, cursor: CursorArg = None,
    ) -> Annotated[CallToolResult, ValidationOutput]:
        def work() -> CallToolResult:
            change, result = backend.analyze(backend.change_kwargs(diff, rev, task, None))
            if result is None:
                out: ValidationOutput = {
                    "change": _change_info(change), "tests": [], "count": 0, "evidence": [],
                    "note": _EMPTY_NOTE, "next_cursor": None}
            else:
                settings = backend.project.settings
                out = tests_page(change, result, _offset(cursor),
                                 max_tokens or settings.mcp_max_tokens, settings)
            text = (f"{out['count']} test(s) to run; ids {len(out['tests'])} on this page"
                    + ("; pass next_cursor as `cursor` for more." if out["next_cursor"]
                       else "."))
            text = _noted(change, text)
            return CallToolResult(content=[TextContent(type="text", text=text)],
                                  structured_content=cast(dict[str, Any], out))
        return await backend.call(work)

    @query_tool(
        name="impact",
        title="Blast radius of a symbol",
        description=(
            "Blast radius of one existing symbol, independent of any edit. mode=callgraph "
            "(default): direction=dependents (the default) = what depends on it: callers, "
            "importers, subclasses, overriders — what may break if it changes; "
            "direction=dependencies = what it depends on; grouped by hop distance "
            "(1 hop, 2 hops, …), `limit` symbols a page (pass `next_cursor` as `cursor` "
            "for more; `by_file` counts them all per file), plus the tests reaching it and "
            "un-analyzable sites. "
            "mode=pdg: statement level for one changed `line` inside the symbol — "
            "direction=dependents gives the statements the line affects, in the function "
            "and across calls; dependencies gives the statements the line "
            "depends on. Use analyze_change instead when you have an actual edit."),
    )
    async def impact(
        symbol: SymbolArg,
        direction: Annotated[Literal["dependents", "dependencies", "upstream",
                                     "downstream"], Field(
            description="dependents (default) = what depends on the symbol (pdg: the "
                        "statements the line affects); dependencies = what it depends on. "
                        "upstream/downstream are deprecated spellings.")] = "dependents",
        depth: Annotated[int, Field(ge=1, le=10, description="Maximum hops.")] = 3,
        mode: Annotated[Literal["callgraph", "pdg"], Field(
            description="callgraph = symbol level; pdg = statement level (needs "
                        "`line`).")] = "callgraph",
        line: Annotated[int | None, Field(
            ge=1, description="mode=pdg: the line being changed (1-based, in the "
                              "symbol's file).")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description=(
            "callgraph: symbols listed on this page; `total`, `omitted` and `by_file` "
            "count them all."))] = 50,
        cursor: CursorArg = None,
    ) -> Annotated[CallToolResult, ImpactOutput]:
        def work() -> CallToolResult:
            p = backend.project
            target = p.resolve_symbol(symbol)
            # the old words meant what `slice` means by them in pdg mode
            new = normalise_direction(direction, "slice" if mode == "pdg" else "impact")
            if mode == "callgraph":
                res = p.impact(target.id, direction=new, depth=depth,
                               offset=_offset(cursor), limit=limit)
                nxt = res["next_offset"]
                out: ImpactOutput = {"mode": mode, "target": dict(_ref(target)),
                                     "result": _jsonable(res),
                                     "next_cursor": _cursor(nxt)}
                more = (f"; {res['omitted']} more: pass next_cursor as `cursor`"
                        if nxt is not None else "")
                text = f"{target.id}: {res['total']} {new} in all{more}"
            else:
                if line is None:
                    raise BadInputError("mode=pdg needs `line`: the line you are changing")
                res = p.pdg_impact(target.id, line=line, direction=new, depth=depth)
                out = {"mode": mode, "target": dict(_ref(target)), "result": _jsonable(res)}
                text = f"{target.id} line {line}: {_counts(out['result'])}"
            return _reply(out, text + _STRUCTURED)
        return await backend.call(work)

    @query_tool(
        name="context",
        title="Symbol context",
        description=(
            "One symbol's signature, location (file, line range), decorators, direct callers "
            "and callees (with call sites) and the tests that exercise it. Cheaper than "
            "reading the file; use it to understand a symbol before changing it. Use "
            "find_symbol first if you do not know its exact name."),
    )
    async def context(symbol: SymbolArg) -> Annotated[CallToolResult, ContextOutput]:
        def work() -> CallToolResult:
            res = _jsonable(backend.project.context(symbol))
            out: ContextOutput = {"symbol": res["symbol"], "callers": res.get("callers", []),
                                  "callees": res.get("callees", []),
                                  "tests": res.get("tests", [])}
            sym = out["symbol"]
            where = f"{sym.get('file', '')}:{sym.get('start_line', sym.get('line', ''))}"
            return _reply(out, f"{sym.get('id', symbol)} at {where}: "
                               f"{_counts({k: out[k] for k in ('callers', 'callees', 'tests')})}"
                               f"{_STRUCTURED}")
        return await backend.call(work)

    @query_tool(
        name="find_symbol",
        title="Find symbols by name",
        description=(
            "Look up definitions (modules, classes, functions, methods, tests, fields) by "
            "name or part of a name; returns ids you can pass as `symbol` to context, impact "
            "and slice, with kind, file, line and signature; exact names first, then names "
            "starting with it, then names containing it. Use it when you only know a short "
            "or approximate name."),
    )
    async def find_symbol(
        name: Annotated[str, Field(min_length=1, description="A name or part of one, e.g. "
                                   "'login' or 'LoginService.login'.")],
        limit: Annotated[int, Field(ge=1, le=200, description="Maximum matches.")] = 20,
    ) -> Annotated[CallToolResult, FindOutput]:
        def work() -> CallToolResult:
            nodes = backend.project.find(name, limit)
            out: FindOutput = {"query": name, "matches": [
                {**_ref(n), "signature": n.signature} for n in nodes]}
            head = ", ".join(n.id for n in nodes[:5]) + (", …" if len(nodes) > 5 else "")
            return _reply(out, f"{len(nodes)} match(es) for {name!r}"
                               + (f": {head}" if nodes else "") + _STRUCTURED)
        return await backend.call(work)

    @query_tool(
        name="slice",
        title="Statement-level slice",
        description=(
            "Statement-level program slice from the statement at file:line (data and control "
            "dependence, followed across resolved calls up to `depth` function hops). "
            "direction=dependents: the statements that depend on it — what changing that "
            "line can affect. direction=dependencies: the statements it depends on — why it "
            "has the "
            "value it has. Use before editing one line of a long function; use impact or "
            "analyze_change for symbol-level effects."),
    )
    async def slice_(  # the Python name `slice` would shadow the builtin
        file: Annotated[str, Field(min_length=1, description="Repository-relative path of a "
                                   "Python file, e.g. src/pkg/mod.py.")],
        line: Annotated[int, Field(ge=1, description="1-based line of the statement.")],
        direction: Annotated[Literal["dependents", "dependencies", "forward", "backward"],
                             Field(description="dependents = the statements that depend on "
                                   "the line; dependencies = the statements it depends on "
                                   "(forward/backward: deprecated spellings)."
                                   )] = "dependents",
        depth: Annotated[int, Field(ge=0, le=3, description="Inter-procedural function "
                                    "hops (0 = this function only).")] = 3,
    ) -> Annotated[CallToolResult, SliceOutput]:
        def work() -> CallToolResult:
            rel = backend.repo_file(file)
            new = normalise_direction(direction, "slice")
            res = backend.project.slice(rel, line, new, depth)
            out: SliceOutput = {"file": rel, "line": line, "direction": new,
                                "result": _jsonable(res)}
            return _reply(out, f"{rel}:{line} ({new}): {_counts(out['result'])}"
                               f"{_STRUCTURED}")
        return await backend.call(work)

    @server.tool(
        name="reindex",
        title="Update the index",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
        structured_output=True,
        description=(
            "Bring the repository index (REPO/.impactlens/index.db) up to date and report "
            "what was parsed. Rarely needed: every other tool already re-indexes "
            "incrementally when files changed on disk. full=true rebuilds from scratch "
            "(use only if results look stale or wrong)."),
    )
    async def reindex(
        full: Annotated[bool, Field(description="Rebuild from scratch.")] = False,
    ) -> Annotated[CallToolResult, ReindexOutput]:
        def work() -> CallToolResult:
            out = cast(ReindexOutput, backend.project.index(full=full).as_json())
            left_out = "".join(f"; skipped {p}: {why}" for p, why in out["skipped"])
            return _reply(out, f"indexed {out['files']} files ({out['parsed']} parsed): "
                               f"{out['symbols']} symbols, {out['edges']} edges{left_out}")
        return await backend.call(work, refresh=False)

    server._impactlens_backend = backend  # type: ignore[attr-defined]
    return server


def serve_stdio(root: str | Path, settings: Settings | None = None) -> None:
    """Run the server on stdin/stdout until the client disconnects."""
    logging.basicConfig(level=os.environ.get("IMPACTLENS_LOG", "WARNING"), stream=sys.stderr)
    os.environ.setdefault("GIT_OPTIONAL_LOCKS", "0")  # `git status` must not touch .git/index
    server = build_server(root, settings)
    try:
        # the SDK's stdio transport, behind a pre-parser that answers every bad frame
        anyio.run(serve_framed, server._lowlevel_server)
    finally:
        server._impactlens_backend.close()
