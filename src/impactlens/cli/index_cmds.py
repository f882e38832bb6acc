"""`index`, `impact`, `context`, `find`, `export` commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from impactlens.cli.common import (
    direction_option,
    echo_json,
    is_tty,
    main,
    open_project,
    read_direction,
    repo_option,
)

if TYPE_CHECKING:  # the api, rich and the indexer load when a command runs, not at start-up
    from impactlens.api import Project
    from impactlens.index.indexer import ProgressFn
    from impactlens.model import IndexSummary


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress bar on a terminal; nothing when piped."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(TextColumn("[bold]{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


def run_index(project: Project, full: bool = False, quiet: bool = False) -> IndexSummary:
    with progress_bar(is_tty() and not quiet) as progress:
        summary = project.index(full=full, progress=progress)
    if not quiet:
        print_summary(summary)
    return summary


def print_summary(s: IndexSummary) -> None:
    mode = "full" if s.full else "incremental"
    click.echo(
        f"indexed {s.files} files ({s.parsed} parsed, {mode}): {s.symbols} symbols, "
        f"{s.edges} edges, {s.unresolved} unresolved sites, {s.parse_failures} parse failures "
        f"in {s.seconds:.2f}s",
        err=True,
    )
    for path, error in s.failures[:20]:
        click.echo(f"impactlens: warning: {path}: {error}", err=True)
    if len(s.failures) > 20:
        click.echo(f"impactlens: warning: … and {len(s.failures) - 20} more", err=True)
    for note in s.notes:
        click.echo(f"note: {note}", err=True)


@main.command("index")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option("--full", is_flag=True, help="Rebuild from scratch instead of incrementally.")
@click.option("--full-history", is_flag=True,
              help="Mine every commit, not only the newest `history_max_commits` (for this "
                   "run; set it to 0 in pyproject.toml to keep it).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def index_cmd(path: Path, full: bool, full_history: bool, as_json: bool) -> None:
    """Index the Python repository at PATH (default: the current directory): the code
    first, then its git history up to the horizon (`history_max_commits`), newest first;
    ended midway, the next run continues the history where this one stopped."""
    project = open_project(path)
    if full_history:
        project.settings = project.settings.replace(history_max_commits=0)
    summary = run_index(project, full=full, quiet=as_json)
    if as_json:
        echo_json({**summary.as_json(), "notes": list(summary.notes)})


@main.command("record", context_settings={"ignore_unknown_options": True})
@repo_option
@click.option("--functions-only", is_flag=True,
              help="Record functions, not their lines: cheaper, but a body edit then selects "
                   "every test that ran the function.")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def record_cmd(repo: Path, functions_only: bool, pytest_args: tuple[str, ...]) -> None:
    """Run the test suite once and record which tests run which functions and lines.

    PYTEST_ARGS go to pytest (e.g. `impactlens record -- -x tests/unit`). The run is
    pytest with `--impact-record` (a trace hook, one test at a time) in the repository
    root, traced from interpreter start-up (so what a plugin's early import of the
    project ran is known too); afterwards `analyze` and `pytest --impact` select, for a
    change to a function, only the tests that ran it — for a body edit, only those that
    ran the changed statements — while the files those tests ran are unchanged."""
    from impactlens.index.recording import spawn_summary

    code, info = open_project(repo).record_tests(pytest_args, lines=not functions_only)
    if info is None:
        raise click.ClickException(f"pytest exited with code {code} and recorded nothing")
    failed = f"; pytest exited with code {code}" if code else ""
    click.echo(f"recorded {info['tests']} tests, {info['rows']} (test, function) pairs in "
               f"{info['files']} files{spawn_summary(info)}{failed}", err=True)


def _fresh(repo: Path) -> Project:
    project = open_project(repo)
    with progress_bar(is_tty()) as progress:
        project.refresh(progress)
    if project.note:
        click.echo(f"impactlens: note: {project.note}", err=True)
    return project


@main.command("impact")
@click.argument("symbol")
@repo_option
@direction_option("dependents: what depends on SYMBOL (callers, importers, "
                  "subclasses; with --mode pdg, the statements the line affects); "
                  "dependencies: what it depends on. upstream/downstream are deprecated.")
@click.option("--depth", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Hops to walk from SYMBOL.")
@click.option("--mode", type=click.Choice(["callgraph", "pdg"]), default="callgraph",
              show_default=True, help="pdg: statement-level slice of --line plus symbol reach.")
@click.option("--line", type=int, default=None, help="Changed line (with --mode pdg).")
@click.option("--limit", type=click.IntRange(1), default=40, show_default=True,
              help="Symbols listed; the rest are counted per file.")
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True,
              help="Symbols to skip (the next page starts at offset + limit).")
@click.option("--json", "as_json", is_flag=True, help="Print the page as JSON.")
def impact_cmd(symbol: str, repo: Path, direction: str, depth: int, mode: str,
               line: int | None, limit: int, offset: int, as_json: bool) -> None:
    """What depends on SYMBOL (dependents) or what it depends on (dependencies).

    SYMBOL is a qualname, a unique suffix of one, or path.py:LINE.
    """
    # with --mode pdg the old words meant what they mean for `slice`
    direction = read_direction(direction, "slice" if mode == "pdg" else "impact")
    project = _fresh(repo)
    if mode == "pdg":
        if line is None:
            raise click.UsageError("--mode pdg needs --line N (the changed statement)")
        result = project.pdg_impact(symbol, line=line, direction=direction, depth=depth)
    else:
        result = project.impact(symbol, direction=direction, depth=depth, offset=offset,
                                limit=limit)
    if as_json:
        echo_json(result)
        return
    _print_impact(result)


_FILES_SHOWN = 8  # per-file lines summarising a depth level longer than the page
_TESTS_SHOWN = 10


def _print_impact(r: dict[str, Any]) -> None:
    from impactlens.index.queries import hops_label

    t = r["target"]
    click.echo(f"{t['id']} ({t['kind']}, {t['file']}:{t['line']}) — {r.get('direction', '')}")
    by_file = r.get("by_file", {})
    for d in sorted({*r.get("by_depth", {}), *by_file}, key=int):
        hops = r.get("by_depth", {}).get(d, [])
        files = by_file.get(d, {})
        count = sum(files.values()) if files else len(hops)
        click.echo(f"\n  {hops_label(int(d))} away ({count})")
        for h in hops:
            site = h.get("site") or {}
            click.echo(f"    {h['id']}  [{h['relation']} at {site.get('file')}:{site.get('line')}]")
        if len(hops) < count:  # a level longer than the page: say where the rest are
            for path, n in list(files.items())[:_FILES_SHOWN]:
                click.echo(f"    {path} — {n} symbol{'s' if n != 1 else ''}")
            if len(files) > _FILES_SHOWN:
                rest = sum(list(files.values())[_FILES_SHOWN:])
                click.echo(f"    … {len(files) - _FILES_SHOWN} more files — {rest} symbols")
    if r.get("next_offset") is not None:
        left = r["total"] - r["next_offset"]
        click.echo(f"\n  +{left} more — --offset {r['next_offset']}")
    if r.get("affected_statements"):
        click.echo(f"\n  affected statements ({len(r['affected_statements'])})")
        for s in r["affected_statements"]:
            click.echo(f"    {s['file']}:{s['line']}  {s['text']}")
    tests = r.get("tests", [])
    click.echo(f"\n  tests reached ({len(tests)})")
    for test in tests[:_TESTS_SHOWN]:
        click.echo(f"    {test['id'] if isinstance(test, dict) else test}")
    if len(tests) > _TESTS_SHOWN:
        click.echo(f"    +{len(tests) - _TESTS_SHOWN} more — --json lists them all")
    un = r.get("unanalyzable", [])
    if un:
        click.echo(f"\n  un-analyzable sites that may reach it ({len(un)})")
        for u in un:
            click.echo(f"    {u['file']}:{u['line']}  {u['reason']}: {u['text']}")


@main.command("context")
@click.argument("symbol")
@repo_option
@click.option("--json", "as_json", is_flag=True, help="Print the context as JSON.")
def context_cmd(symbol: str, repo: Path, as_json: bool) -> None:
    """Signature, location, callers, callees and tests of SYMBOL."""
    ctx = _fresh(repo).context(symbol)
    if as_json:
        echo_json(ctx)
        return
    s = ctx["symbol"]
    click.echo(f"{s['id']}  ({s['kind']}, {s['file']}:{s['line']}-{s['end_line']})")
    if s["signature"]:
        click.echo(f"  {s['signature']}")
    for title in ("callers", "callees"):
        click.echo(f"\n  {title} ({len(ctx[title])})")
        for c in ctx[title]:
            site = f"{c['site']['file']}:{c['site']['line']}"
            click.echo(f"    {c['id']}  [{c['relation']} at {site}]")
    click.echo(f"\n  tests ({len(ctx['tests'])})")
    for test in ctx["tests"]:
        click.echo(f"    {test}")


@main.command("find")
@click.argument("name")
@repo_option
@click.option("--limit", type=int, default=20, show_default=True,
              help="Matches listed at most.")
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
def find_cmd(name: str, repo: Path, limit: int, as_json: bool) -> None:
    """Look up symbols by NAME: exact name (or qualname suffix) first, then names starting
    with it, then names containing it; close spellings when nothing matches."""
    nodes = _fresh(repo).find(name, limit)
    rows = [{"id": n.id, "kind": n.kind.value, "file": n.file, "line": n.start_line,
             "signature": n.signature} for n in nodes]
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo(f"impactlens: nothing matches {name!r}", err=True)
        sys.exit(1)
    for r in rows:
        click.echo(f"{r['id']}  {r['kind']}  {r['file']}:{r['line']}")


@main.group("export")
def export_group() -> None:
    """Export the graph for other tools."""


@export_group.command("callgraph")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option("--format", "fmt", type=click.Choice(["json", "dot", "pycg"]), default="json",
              show_default=True,
              help="json: nodes and edges; dot: Graphviz; pycg: PyCG's caller → callees map.")
@click.option("--world", type=click.Choice(["open", "closed"]), default="open",
              show_default=True,
              help="closed: a whole-program graph; a self.m() call reaches only what the "
                   "classes the program builds give (open: what any subclass may).")
def export_callgraph_cmd(path: Path, fmt: str, world: str) -> None:
    """The whole call graph of the repository at PATH."""
    out = _fresh(path).export_callgraph(fmt, world)
    text = out if isinstance(out, str) else json.dumps(out, indent=2) + "\n"
    click.echo(text, nl=False)
