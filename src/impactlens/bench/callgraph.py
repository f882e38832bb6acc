"""Call-graph accuracy against a hand-written corpus: `impactlens bench callgraph`.

Each case under ``bench/callgraph/cases/<category>/<case>/`` is a tiny program with
``expected.json`` (PyCG adjacency: ``{"caller": ["callee", ...]}``) and ``case.json``
(category, description, entry files, a rationale per edge, and for ``dynamic`` cases
the sites a tool should flag as un-analyzable). See ``bench/callgraph/README.md``.

For every case the *source files only* are copied to a temporary directory (the
tools never see the truth files), then each tool runs in a child process with a
timeout:

- ``impactlens``: ``Project(root).index()``, ``export_callgraph("pycg")`` and
  ``unresolved()`` through the public API — the open-world graph impact analysis uses;
- ``impactlens-closed``: the same with ``export_callgraph("pycg", "closed")``, the
  whole-program graph (``self.m()`` reaches only what the classes the program builds
  give; index/closedworld.py);
- ``pycg``: PyCG 0.0.8's CLI (``pycg --package ROOT ENTRY...``). Its wheel installs
  the package directory as ``PyCG`` while its code imports ``pycg``; a temporary
  directory holding a ``pycg`` symlink to the installed directory goes first on
  the child's ``PYTHONPATH``.

Edges are scored as sets per case (precision, recall, F1 with the ``n/a`` rule of
:mod:`impactlens.bench.metrics`), aggregated per category and overall, in three
views: ``all`` edges, ``nobuiltin`` (edges to ``<builtin>.*`` / PyCG's ``<**PyStr**>``
pseudo-names dropped) and ``internal`` (only edges between the case's own
modules). ``dynamic`` cases are scored apart, with the *flag rate*: the fraction of
their ``expect_unresolved`` sites that the tool reports as unresolved.

``--verify`` checks the corpus itself instead: file consistency, then a runtime
trace of every case (``sys.setprofile``) whose observed edges must all be in the
truth. The truth was written by hand; the trace only catches mistakes in it.

``--corpus ts`` selects the TypeScript/JavaScript corpus under ``bench/callgraph-ts/``
instead (its tools, symbol names and checks: :mod:`impactlens.bench.callgraph_ts`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.metrics import Score, fmt, macro, micro, score_sets
from impactlens.errors import BadInputError, ImpactlensError
from impactlens.index import git

__all__ = [
    "CATEGORIES",
    "CORPORA",
    "TOOLS",
    "VIEWS",
    "Case",
    "ToolOutput",
    "edges_of",
    "load_cases",
    "main",
    "run",
    "run_impactlens",
    "run_pycg",
    "score_case",
    "trace_case",
    "validate_case",
    "view_edges",
]

Edge = tuple[str, str]

CATEGORIES = (
    "imports",
    "classes",
    "receiver-typing",
    "decorators",
    "properties",
    "functions-as-values",
    "closures",
    "lambdas",
    "dataclasses",
    "generators-async",
    "containers",
    "strong-updates",
    "higher-order",
    "external-instances",
    "stdlib-annotations",
    "builtins",
    "dynamic",
)
DYNAMIC = "dynamic"
TOOLS = ("impactlens", "impactlens-closed", "pycg")
# impactlens's export per tool: the open-world graph impact analysis uses, and the
# whole-program (closed-world) graph of ``export callgraph --world closed``
_WORLDS = {"impactlens": "open", "impactlens-closed": "closed"}
VIEWS = ("all", "nobuiltin", "internal")
VIEW_TITLES = {
    "all": "all edges",
    "nobuiltin": "without <builtin> edges",
    "internal": "internal edges only (no builtin, no stdlib/external)",
}
DEFAULT_TIMEOUT_S = 120.0
TRUTH_FILES = frozenset({"expected.json", "case.json"})
# builtins and methods of builtin types (PyCG's ``<**PyStr**>.join`` style)
_PSEUDO = re.compile(r"<builtin>\.|<\*\*Py[A-Z][a-z]+\*\*>\.")


def default_cases_dir() -> Path:
    """``bench/callgraph/cases`` of the source checkout this module runs from."""
    return Path(__file__).resolve().parents[3] / "bench" / "callgraph" / "cases"


CORPORA = ("py", "ts")


def _default_dir(corpus: str) -> Path:
    if corpus == "ts":
        from impactlens.bench import callgraph_ts

        return callgraph_ts.default_cases_dir()
    return default_cases_dir()


def _tools(corpus: str) -> tuple[str, ...]:
    if corpus == "ts":
        from impactlens.bench import callgraph_ts

        return callgraph_ts.TOOLS
    return TOOLS


# --------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Case:
    name: str  # "<category>/<case>"
    path: Path
    category: str
    description: str
    entry: tuple[str, ...]
    expected: frozenset[Edge]
    modules: frozenset[str]  # dotted module names of the case's .py files
    expect_unresolved: tuple[dict[str, Any], ...] = ()
    # the files a tool may see (relative paths); empty: the case's .py files
    files: tuple[str, ...] = ()
    corpus: str = "py"  # py | ts

    @property
    def dynamic(self) -> bool:
        return self.category == DYNAMIC


def module_name(rel: str) -> str:
    """``pkg/sub/mod.py`` → ``pkg.sub.mod``; ``pkg/__init__.py`` → ``pkg``."""
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _source_files(root: Path) -> list[str]:
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if "__pycache__" not in rel:
            out.append(rel)
    return out


def edges_of(adjacency: Any) -> frozenset[Edge]:
    """PyCG adjacency dict → set of (caller, callee); anything malformed raises ValueError."""
    if not isinstance(adjacency, dict):
        raise ValueError(f"call graph must be a JSON object, got {type(adjacency).__name__}")
    out: set[Edge] = set()
    for src, dsts in adjacency.items():
        if not isinstance(src, str) or not isinstance(dsts, list | tuple | set):
            raise ValueError(f"bad call-graph entry for {src!r}")
        for dst in dsts:
            if not isinstance(dst, str):
                raise ValueError(f"bad callee {dst!r} of {src!r}")
            out.add((src, dst))
    return frozenset(out)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(f"{path}: missing") from None
    except (OSError, ValueError) as exc:
        raise BadInputError(f"{path}: not valid JSON ({exc})") from None


def load_case(path: Path, cases_dir: Path, corpus: str = "py") -> Case:
    meta = _read_json(path / "case.json")
    try:
        expected = edges_of(_read_json(path / "expected.json"))
    except ValueError as exc:
        raise BadInputError(f"{path / 'expected.json'}: {exc}") from None
    if not isinstance(meta, dict) or "category" not in meta or "entry" not in meta:
        raise BadInputError(f"{path / 'case.json'}: needs 'category' and 'entry'")
    if corpus == "ts":
        from impactlens.bench import callgraph_ts

        files = callgraph_ts.source_files(path)
        modules = callgraph_ts.modules_of(files)
    else:
        files = _source_files(path)
        modules = frozenset(module_name(f) for f in files)
    return Case(
        name=path.relative_to(cases_dir).as_posix(),
        path=path,
        category=str(meta["category"]),
        description=str(meta.get("description", "")),
        entry=tuple(meta["entry"]),
        expected=expected,
        modules=modules,
        expect_unresolved=tuple(meta.get("expect_unresolved", ())),
        files=tuple(files),
        corpus=corpus,
    )


def load_cases(cases_dir: str | Path, only: Iterable[str] | None = None,
               corpus: str = "py") -> list[Case]:
    """Every case under ``cases_dir`` (a directory holding ``case.json``), sorted.

    ``only``: category names (or ``category/case`` names) to keep; ``corpus``: ``py`` or
    ``ts`` (which files are sources and how modules are named).
    """
    root = Path(cases_dir)
    if not root.is_dir():
        raise BadInputError(f"{root}: no call-graph corpus there (pass --cases DIR)")
    wanted = set(only or ())
    cases = []
    for meta in sorted(root.rglob("case.json")):
        case = load_case(meta.parent, root, corpus)
        if wanted and case.category not in wanted and case.name not in wanted:
            continue
        cases.append(case)
    if wanted and not cases:
        raise BadInputError(
            f"--only {', '.join(sorted(wanted))}: no such category or case "
            f"(categories: {', '.join(_categories(corpus))})"
        )
    return sorted(cases, key=lambda c: (_cat_key(c.category, corpus), c.name))


def _categories(corpus: str) -> tuple[str, ...]:
    if corpus == "ts":
        from impactlens.bench.callgraph_ts import CATEGORIES as TS_CATEGORIES

        return TS_CATEGORIES
    return CATEGORIES


def _cat_key(category: str, corpus: str = "py") -> tuple[int, str]:
    order = _categories(corpus)
    return (order.index(category) if category in order else len(order), category)


def _category_order(cases: Sequence[Case]) -> list[str]:
    corpus = cases[0].corpus if cases else "py"
    return sorted({c.category for c in cases}, key=lambda cat: _cat_key(cat, corpus))


def validate_case(case: Case) -> list[str]:
    """Internal consistency of one case; an empty list means it is well formed."""
    problems: list[str] = []
    meta = _read_json(case.path / "case.json")
    for entry in case.entry:
        if not (case.path / entry).is_file():
            problems.append(f"entry {entry} does not exist")
    rationale = meta.get("rationale", {})
    explained = set((rationale.get("edges") or {}).keys())
    wanted = {f"{s} -> {d}" for s, d in case.expected}
    for e in sorted(wanted - explained):
        problems.append(f"edge without rationale: {e}")
    for e in sorted(explained - wanted):
        problems.append(f"rationale for an edge not in expected.json: {e}")
    for e in sorted(set((rationale.get("absent") or {}).keys()) & wanted):
        problems.append(f"edge both expected and listed absent: {e}")
    for src, dst in sorted(case.expected):
        for name in (src, dst):
            if name.startswith("<") and not _PSEUDO.match(name):
                problems.append(f"unknown pseudo-name {name}")
        if not any(src == m or src.startswith(m + ".") for m in case.modules):
            problems.append(f"caller {src} is not in one of the case's modules")
    if case.dynamic and not case.expect_unresolved:
        problems.append("dynamic case without expect_unresolved")
    if not case.dynamic and case.expect_unresolved:
        problems.append("expect_unresolved on a non-dynamic case")
    for site in case.expect_unresolved:
        path = case.path / str(site.get("file", ""))
        if not path.is_file():
            problems.append(f"unresolved site file {site.get('file')} missing")
            continue
        n = len(path.read_text(encoding="utf-8").splitlines())
        for line in [site.get("line"), *site.get("alt_lines", [])]:
            if not isinstance(line, int) or not 1 <= line <= n:
                problems.append(f"unresolved site line {line} outside {site['file']}")
    return problems


# --------------------------------------------------------------------------- views


def is_builtin(name: str) -> bool:
    """``<builtin>.len`` and PyCG's builtin-type pseudo-names such as ``<**PyStr**>.join``."""
    return name.startswith("<")


def _internal(name: str, modules: frozenset[str]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


def view_edges(edges: Iterable[Edge], view: str, modules: frozenset[str]) -> frozenset[Edge]:
    if view == "all":
        return frozenset(edges)
    if view == "nobuiltin":
        return frozenset(e for e in edges if not is_builtin(e[0]) and not is_builtin(e[1]))
    if view == "internal":
        return frozenset(
            e for e in edges if _internal(e[0], modules) and _internal(e[1], modules)
        )
    raise ValueError(f"unknown view {view!r}")


# --------------------------------------------------------------------------- tools


@dataclass
class ToolOutput:
    edges: frozenset[Edge] = frozenset()
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    files: int | None = None  # files the tool indexed, when it says
    skipped: str = ""  # why the tool did not run at all (not installed, no such language)


def _copy_sources(case: Case, dest: Path) -> Path:
    root = dest / case.path.name
    for rel in case.files or _source_files(case.path):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(case.path / rel, target)
    return root


def _git_init(root: Path) -> None:
    """Make the copy a committed git work tree (the indexer may list files via git)."""
    with contextlib.suppress(git.GitError):  # no git: the indexer walks the directory
        git.init_and_commit(root, "case")


def _run_child(cmd: list[str], cwd: Path, timeout: float,
               env: dict[str, str] | None = None) -> tuple[str, str]:
    """Run a child; return (stdout, error message or '')."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "", f"timeout after {timeout:.0f}s"
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        return proc.stdout, f"exit {proc.returncode}: {tail[0][:300]}"
    return proc.stdout, ""


def pycg_package_dir() -> Path | None:
    """The installed PyCG package directory (``PyCG`` in the 0.0.8 wheel), if any."""
    for name in ("PyCG", "pycg"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec and spec.submodule_search_locations:
            d = Path(next(iter(spec.submodule_search_locations)))
            if (d / "pycg.py").is_file():
                return d
    return None


def pycg_version() -> str:
    from importlib import metadata

    for name in ("pycg", "PyCG"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"


def _timed(fn: Callable[[], ToolOutput]) -> ToolOutput:
    import time

    t0 = time.perf_counter()
    out = fn()
    out.seconds = round(time.perf_counter() - t0, 3)
    return out


def run_pycg(root: Path, entries: Sequence[str], timeout: float = DEFAULT_TIMEOUT_S) -> ToolOutput:
    """PyCG on ``root`` from ``entries`` (paths relative to root), in a child process."""
    pkg = pycg_package_dir()
    if pkg is None:
        return ToolOutput(error="PyCG is not installed (pip install pycg==0.0.8)")

    def go() -> ToolOutput:
        with tempfile.TemporaryDirectory(prefix="pycg-shim-") as shim:
            if pkg.name != "pycg":
                os.symlink(pkg, Path(shim) / "pycg")
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (shim, str(pkg.parent), env.get("PYTHONPATH", "")) if p
            )
            out_file = Path(shim) / "cg.json"
            cmd = [sys.executable, "-m", "pycg", "--package", str(root),
                   *[str(root / e) for e in entries], "-o", str(out_file)]
            _, err = _run_child(cmd, root, timeout, env)
            if err:
                return ToolOutput(error=err)
            try:
                return ToolOutput(edges=edges_of(json.loads(out_file.read_text())))
            except (OSError, ValueError) as exc:
                return ToolOutput(error=f"unreadable PyCG output: {exc}")

    return _timed(go)


_IMPACTLENS_CHILD = """
import json, sys
from impactlens.api import Project
from impactlens.model import EdgeKind
p = Project(sys.argv[1])
summary = p.index(full=True)
cg = p.export_callgraph("pycg", sys.argv[3])
if sys.argv[4] == "instantiate":  # `new C()` is an edge to the class C too
    for e in p.store.all_edges(frozenset({EdgeKind.INSTANTIATE})):
        cg.setdefault(e.src, [])
        if e.dst not in cg[e.src]:
            cg[e.src].append(e.dst)
sites = [{"file": s.file, "line": s.line, "scope": s.scope, "reason": str(s.reason)}
         for s in p.unresolved() if str(s.reason) != "external"]  # calls out, not flags
p.close()
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    json.dump({"callgraph": cg, "unresolved": sites, "files": summary.files}, fh)
"""


def run_impactlens(root: Path, timeout: float = DEFAULT_TIMEOUT_S,
                   world: str = "open", instantiate: bool = False) -> ToolOutput:
    """impactlens through its public API, in a child process; ``instantiate`` adds its
    instantiate edges (``new C()`` → ``C``, as the TypeScript corpus counts them)."""

    def go() -> ToolOutput:
        out_file = root.parent / "impactlens-callgraph.json"
        _, err = _run_child([sys.executable, "-c", _IMPACTLENS_CHILD, str(root), str(out_file),
                             world, "instantiate" if instantiate else "calls"],
                            root, timeout)
        if err:
            return ToolOutput(error=err)
        try:
            data = json.loads(out_file.read_text(encoding="utf-8"))
            sites = []
            for s in data.get("unresolved", []):
                f = Path(s["file"])
                if f.is_absolute():
                    with contextlib.suppress(ValueError):
                        f = f.resolve().relative_to(root.resolve())
                sites.append({**s, "file": f.as_posix()})
            return ToolOutput(edges=edges_of(data["callgraph"]), unresolved=sites,
                              files=data.get("files"))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return ToolOutput(error=f"unreadable impactlens output: {exc}")

    return _timed(go)


def run_tool(tool: str, case: Case, timeout: float) -> ToolOutput:
    with tempfile.TemporaryDirectory(prefix="il-cg-") as tmp:
        root = _copy_sources(case, Path(tmp))
        if case.corpus == "ts":
            from impactlens.bench import callgraph_ts

            return callgraph_ts.run_tool(tool, case, root, timeout)
        if tool == "pycg":
            return run_pycg(root, case.entry, timeout)
        if tool in _WORLDS:
            _git_init(root)
            return run_impactlens(root, timeout, _WORLDS[tool])
        raise BadInputError(f"unknown tool {tool!r} (known: {', '.join(TOOLS)})")


# --------------------------------------------------------------------------- scoring


def flagged_sites(case: Case, reported: Sequence[dict[str, Any]]) -> list[bool]:
    """For each expected unresolved site: did the tool report one at that file and line?"""
    seen = {(str(s.get("file", "")), s.get("line")) for s in reported}
    out = []
    for site in case.expect_unresolved:
        lines = [site["line"], *site.get("alt_lines", [])]
        out.append(any((site["file"], ln) in seen for ln in lines))
    return out


def score_case(case: Case, output: ToolOutput) -> dict[str, Any]:
    """Per-view counts plus the missing/extra edges (in the ``all`` view)."""
    res: dict[str, Any] = {"error": output.error, "seconds": output.seconds}
    if output.skipped:
        res["skipped"] = output.skipped
    for view in VIEWS:
        res[view] = score_sets(view_edges(output.edges, view, case.modules),
                               view_edges(case.expected, view, case.modules))
    res["missing"] = sorted(f"{s} -> {d}" for s, d in case.expected - output.edges)
    res["extra"] = sorted(f"{s} -> {d}" for s, d in output.edges - case.expected)
    if case.dynamic:
        res["flags"] = flagged_sites(case, output.unresolved)
    else:
        res["flags_elsewhere"] = len(output.unresolved)
    return res


def _agg(scores: Sequence[Score]) -> dict[str, Any]:
    m = micro(scores)
    return {"cases": len(scores), **m.as_dict(), "macro": macro(scores)}


def aggregate(cases: Sequence[Case], per_case: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Category, overall (non-dynamic) and dynamic aggregates for one tool."""
    out: dict[str, Any] = {"categories": {}, "overall": {}, "dynamic": {}}
    cats = _category_order(cases)
    for cat in cats:
        members = [c for c in cases if c.category == cat]
        out["categories"][cat] = {
            v: _agg([per_case[c.name][v] for c in members]) for v in VIEWS
        }
    static = [c for c in cases if not c.dynamic]
    dyn = [c for c in cases if c.dynamic]
    out["overall"] = {v: _agg([per_case[c.name][v] for c in static]) for v in VIEWS}
    if dyn:
        flags = [f for c in dyn for f in per_case[c.name]["flags"]]
        out["dynamic"] = {v: _agg([per_case[c.name][v] for c in dyn]) for v in VIEWS}
        out["dynamic"]["sites"] = len(flags)
        out["dynamic"]["flagged"] = sum(flags)
        out["dynamic"]["flag_rate"] = sum(flags) / len(flags) if flags else None
    out["errors"] = sorted(c.name for c in cases if per_case[c.name]["error"])
    out["unresolved_on_static_cases"] = sum(per_case[c.name]["flags_elsewhere"] for c in static)
    return out


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Score):
        return obj.as_dict()
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    return obj


def run(
    cases_dir: str | Path | None = None,
    tools: Sequence[str] | None = None,
    json_out: bool = False,
    *,
    corpus: str = "py",
    only: Iterable[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    """Run ``tools`` over the corpus, print the tables (or JSON with ``json_out``) unless
    ``quiet``, and return the report (a JSON-able dict). ``corpus``: ``py`` (the default)
    or ``ts``; ``tools`` default to the corpus's tools."""
    known = _tools(corpus)
    tools = tuple(tools) if tools is not None else known
    for tool in tools:
        if tool not in known:
            raise BadInputError(f"unknown tool {tool!r} (known: {', '.join(known)})")
    cases = load_cases(cases_dir or _default_dir(corpus), only, corpus)
    jobs = [(tool, case) for tool in tools for case in cases]

    def one(job: tuple[str, Case]) -> tuple[str, str, dict[str, Any]]:
        tool, case = job
        res = score_case(case, run_tool(tool, case, timeout))
        if progress:
            progress(f"{tool} {case.name}")
        return tool, case.name, res

    results: dict[str, dict[str, dict[str, Any]]] = {t: {} for t in tools}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for tool, name, res in pool.map(one, jobs):
            results[tool][name] = res

    report: dict[str, Any] = {
        "corpus": {
            "name": corpus,
            "cases": len(cases),
            "by_category": {
                cat: sum(1 for c in cases if c.category == cat)
                for cat in _category_order(cases)
            },
            "expected_edges": sum(len(c.expected) for c in cases),
            "expect_unresolved_sites": sum(len(c.expect_unresolved) for c in cases),
        },
        "tools": {},
        "views": list(VIEWS),
        "summary": {},
        "cases": {},
    }
    for tool in tools:
        errors = [r["error"] for r in results[tool].values() if r["error"]]
        skips = sorted({r["skipped"] for r in results[tool].values() if r.get("skipped")})
        status = "ok"
        if skips and all(r.get("skipped") for r in results[tool].values()):
            status = f"skipped: {skips[0]}"
        elif errors and len(errors) == len(cases):
            status = f"failed on every case: {errors[0]}"
        elif errors:
            status = f"failed on {len(errors)} of {len(cases)} cases"
        info = {"status": status}
        if tool == "pycg":
            info["version"] = pycg_version()
        if tool == "gitnexus":
            from impactlens.bench import callgraph_ts

            binary = callgraph_ts.gitnexus_binary()
            info["version"] = callgraph_ts.gitnexus_version(binary) if binary else "not installed"
        report["tools"][tool] = info
        report["summary"][tool] = aggregate(cases, results[tool])
    for case in cases:
        report["cases"][case.name] = {
            "category": case.category,
            **{tool: results[tool][case.name] for tool in tools},
        }
    report = _jsonable(report)
    if not quiet:
        if json_out:
            print(json.dumps(report, indent=2, sort_keys=True))
        else:
            render(report)
    return report


# --------------------------------------------------------------------------- output


def render(report: dict[str, Any], console: Any = None) -> None:
    """Rich tables: one per view (all / nobuiltin), plus the dynamic honesty table."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    tools = [t for t in report["tools"] if not report["tools"][t]["status"].startswith("skipped")]
    for tool, info in report["tools"].items():
        if tool not in tools:
            console.print(f"[yellow]{tool}[/] {info['status']}")
    corpus = report["corpus"]
    console.print(
        f"[bold]call-graph corpus[/]: {corpus['cases']} cases, "
        f"{corpus['expected_edges']} expected edges; tools: "
        + ", ".join(f"{t} ({report['tools'][t]['status']}"
                    + (f", v{report['tools'][t]['version']}" if "version" in report["tools"][t]
                       else "") + ")" for t in tools)
    )
    views = ("internal",) if corpus.get("name") == "ts" else ("all", "nobuiltin")
    for view in views:
        table = Table(title=f"Edge P/R/F1 (micro) — {VIEW_TITLES[view]}")
        table.add_column("category", no_wrap=True)
        table.add_column("cases", justify="right")
        for tool in tools:
            for m in ("P", "R", "F1"):
                head = f"{tool}\n{m}" if m == "P" else f"\n{m}"
                table.add_column(head, justify="right", no_wrap=True)
        cats = list(next(iter(report["summary"].values()))["categories"]) if tools else []
        rows = [(cat, lambda s, cat=cat: s["categories"][cat]) for cat in cats
                if cat != DYNAMIC]
        rows.append(("overall (static)", lambda s: s["overall"]))
        for label, pick in rows:
            cells = []
            n = ""
            for tool in tools:
                agg = pick(report["summary"][tool])[view]
                n = str(agg["cases"])
                cells += [fmt(agg["precision"]), fmt(agg["recall"]), fmt(agg["f1"])]
            style = "bold" if label.startswith("overall") else None
            table.add_row(label, n, *cells, style=style)
        console.print(table)
    if any(report["summary"][t].get("dynamic") for t in tools):
        table = Table(title="Dynamic / hidden cases (runtime truth): honesty, not recall")
        table.add_column("tool", no_wrap=True)
        table.add_column("cases", justify="right")
        table.add_column("P", justify="right")
        table.add_column("R", justify="right")
        table.add_column("flag\nrate", justify="right")
        table.add_column("flagged/\nsites", justify="right")
        table.add_column("flags on\nstatic cases", justify="right")
        for tool in tools:
            d = report["summary"][tool]["dynamic"]
            table.add_row(tool, str(d["all"]["cases"]), fmt(d["all"]["precision"]),
                          fmt(d["all"]["recall"]), fmt(d["flag_rate"]),
                          f"{d['flagged']}/{d['sites']}",
                          str(report["summary"][tool]["unresolved_on_static_cases"]))
        console.print(table)
    for tool in tools:
        errs = report["summary"][tool]["errors"]
        if errs:
            console.print(f"[yellow]{tool}[/] errored on: {', '.join(errs)}")


# --------------------------------------------------------------------------- verify


_TRACER = r'''
import builtins, json, os, runpy, sys, types

ROOT = os.path.realpath(sys.argv[1])
ENTRY = os.path.join(ROOT, sys.argv[2])
COMPS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
NEWLOCALS = 0x0002

def modname(path):
    rel = os.path.relpath(os.path.realpath(path), ROOT).replace(os.sep, "/")
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)

NAMES = {}   # (file, qualname, firstlineno, positions) -> (name, kind)

def key(code):
    return (os.path.realpath(code.co_filename), code.co_qualname, code.co_firstlineno,
            tuple(code.co_positions())[:4])

def walk(code, scope, counter, mod):
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        if const.co_name in COMPS:
            NAMES[key(const)] = (scope, "comp")
            walk(const, scope, counter, mod)
            continue
        if const.co_name == "<lambda>":
            counter[0] += 1
            name = f"{scope}.<lambda{counter[0]}>"
        else:
            name = f"{scope}.{const.co_name}"
        kind = "func" if const.co_flags & NEWLOCALS else "class"
        NAMES[key(const)] = (name, kind)
        walk(const, name, [0], mod)

for dirpath, dirs, files in os.walk(ROOT):
    dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
    for f in files:
        if f.endswith(".py"):
            p = os.path.join(dirpath, f)
            mod = modname(p)
            code = compile(open(p).read(), p, "exec")
            NAMES[key(code)] = (mod, "module")
            walk(code, mod, [0], mod)

def name_of(frame):
    code = frame.f_code
    hit = NAMES.get(key(code))
    if hit:
        return hit
    if code.co_filename == "<string>" and "__create_fn__" in code.co_qualname:
        self = frame.f_locals.get("self")
        mod = sys.modules.get(type(self).__module__)
        f = getattr(mod, "__file__", None)
        if self is not None and f and os.path.realpath(f).startswith(ROOT + os.sep):
            return (f"{modname(f)}.{type(self).__qualname__.replace('.<locals>', '')}"
                    f".{code.co_name}", "func")
    return None

def caller_of(frame):
    while frame is not None:
        code = frame.f_code
        if code.co_filename == "<string>" and code.co_name == "<module>":
            frame = frame.f_back   # eval/exec text runs on behalf of its caller
            continue
        hit = name_of(frame)
        return hit[0] if hit else None
    return None

EDGES = set()

def prof(frame, event, arg):
    if event == "call":
        hit = name_of(frame)
        if not hit or hit[1] != "func":
            return
        src = caller_of(frame.f_back)
        if src:
            EDGES.add((src, hit[0]))
    elif event == "c_call":
        if getattr(arg, "__self__", None) is builtins and arg.__name__ != "__build_class__":
            src = caller_of(frame)
            if src:
                EDGES.add((src, "<builtin>." + arg.__name__))

sys.path.insert(0, ROOT)
sys.setprofile(prof)
try:
    runpy.run_path(ENTRY, run_name="__main__")
finally:
    sys.setprofile(None)
    sys.stdout = sys.__stdout__
print("\n@@EDGES@@" + json.dumps(sorted(EDGES)))
'''


def trace_case(case: Case, timeout: float = 60.0) -> tuple[frozenset[Edge], str]:
    """Run the case's entry under a profiler; return the call edges observed at runtime.

    Observed edges are a *subset check* for the hand-written truth: calls that create
    generators/coroutines without running them, library-internal callers, and calls of
    builtin classes (``str(...)``) are invisible to the profiler.
    """
    edges: set[Edge] = set()
    with tempfile.TemporaryDirectory(prefix="il-cg-trace-") as tmp:
        root = _copy_sources(case, Path(tmp))
        for entry in case.entry:
            out, err = _run_child([sys.executable, "-B", "-c", _TRACER, str(root), entry],
                                  root, timeout)
            if err:
                return frozenset(edges), err
            blob = out.rsplit("@@EDGES@@", 1)[-1]
            edges |= {(s, d) for s, d in json.loads(blob)}
    return frozenset(edges), ""


def verify(cases_dir: str | Path | None = None, only: Iterable[str] | None = None,
           trace: bool = True) -> dict[str, Any]:
    """Corpus self-check: consistency problems and runtime edges missing from the truth."""
    cases = load_cases(cases_dir or default_cases_dir(), only)
    out: dict[str, Any] = {"cases": len(cases), "problems": {}, "unexpected_runtime_edges": {},
                           "unobserved_expected_edges": {}}
    for case in cases:
        probs = validate_case(case)
        if probs:
            out["problems"][case.name] = probs
        if not trace:
            continue
        seen, err = trace_case(case)
        if err:
            out["problems"].setdefault(case.name, []).append(f"trace failed: {err}")
            continue
        extra = sorted(f"{s} -> {d}" for s, d in seen - case.expected)
        if extra:
            out["unexpected_runtime_edges"][case.name] = extra
        unseen = sorted(f"{s} -> {d}" for s, d in case.expected - seen)
        if unseen:
            out["unobserved_expected_edges"][case.name] = unseen
    out["ok"] = not out["problems"] and not out["unexpected_runtime_edges"]
    return out


# --------------------------------------------------------------------------- CLI


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="impactlens-bench callgraph",
        description="Call-graph accuracy on the hand-written corpus (impactlens vs PyCG; "
                    "with --corpus ts, on TypeScript/JavaScript vs GitNexus).",
    )
    p.add_argument("--corpus", choices=CORPORA, default="py",
                   help="py: the Python corpus (bench/callgraph); ts: TypeScript/JavaScript "
                        "(bench/callgraph-ts)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--only", action="append", metavar="CATEGORY",
                   help="only this category (or category/case); repeatable")
    p.add_argument("--tools", default=None,
                   help=f"comma-separated tools (default: py {','.join(TOOLS)}; "
                        "ts impactlens,impactlens-closed,gitnexus)")
    p.add_argument("--cases", metavar="DIR", help="corpus directory (default: the checkout's)")
    p.add_argument("--timeout", type=at_least(0, float, above=True), default=DEFAULT_TIMEOUT_S,
                   help="seconds per tool per case")
    p.add_argument("--workers", type=at_least(1), default=2, help="cases run in parallel")
    p.add_argument("--out", metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--verify", action="store_true",
                   help="check the corpus itself instead (py: consistency + runtime trace; "
                        "ts: consistency, declared symbols, tsc)")
    p.add_argument("--tsc", metavar="PATH",
                   help="ts --verify: the TypeScript compiler (default $IMPACTLENS_TSC, "
                        "/tmp/tsc/node_modules/.bin/tsc, tsc on PATH)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    try:
        if args.verify and args.corpus == "ts":
            from impactlens.bench import callgraph_ts

            result = callgraph_ts.verify(args.cases, args.only, args.tsc)
            print(json.dumps(result, indent=2))
            return 0 if result["ok"] else 1
        if args.verify:
            result = verify(args.cases, args.only)
            print(json.dumps(result, indent=2))
            return 0 if result["ok"] else 1
        tools = (tuple(t.strip() for t in args.tools.split(",") if t.strip())
                 if args.tools else None)
        progress = None
        if not args.json and sys.stderr.isatty():
            def progress(msg: str) -> None:
                sys.stderr.write(f"\r\033[K{msg}")
                sys.stderr.flush()
        report = run(args.cases, tools, args.json, corpus=args.corpus, only=args.only,
                     timeout=args.timeout,
                     workers=args.workers, progress=progress, quiet=True)
        if progress:
            sys.stderr.write("\r\033[K")
    except ImpactlensError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
