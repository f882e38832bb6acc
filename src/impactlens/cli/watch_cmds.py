"""`watch`: keep the index fresh as files are saved, optionally reprinting the analysis."""

from __future__ import annotations

import time
from pathlib import Path

import click

from impactlens.api import Project
from impactlens.cli.common import is_tty, main, open_project
from impactlens.cli.index_cmds import print_summary, progress_bar
from impactlens.errors import BadInputError, ImpactlensError


@main.command("watch")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option("--analyze", "analyze", is_flag=True,
              help="After each refresh, print the analysis of the working tree against HEAD "
                   "(the report `impactlens analyze` prints).")
@click.option("--max-refreshes", "max_refreshes", type=click.IntRange(1), default=None,
              metavar="N", help="Stop after N refreshes (default: run until Ctrl-C).")
@click.option("--timeout", "timeout", type=click.FloatRange(0, min_open=True), default=None,
              metavar="SECONDS", help="Stop after SECONDS (default: run until Ctrl-C).")
@click.pass_context
def watch_cmd(ctx: click.Context, path: Path, analyze: bool, max_refreshes: int | None,
              timeout: float | None) -> None:
    """Keep the index of the repository at PATH (default: the current directory) fresh
    as files are saved, until Ctrl-C.

    A burst of saves to Python files (or to the pytest configuration, or a .gitignore)
    is re-indexed incrementally once it settles; what the index skips (.git,
    .impactlens, virtualenvs, node_modules, build outputs) is not watched for. One line
    per refresh goes to stderr; with --analyze the report follows on stdout."""
    if not path.is_dir():
        raise BadInputError(f"{path}: repository directory not found")
    deadline = None if timeout is None else time.monotonic() + timeout
    with open_project(path) as project:
        try:
            project.start_watching()
            _refresh(ctx, project, analyze, initial=True)
            click.echo(f"impactlens: watching {project.root} (Ctrl-C stops)", err=True)
            refreshes = 0
            while max_refreshes is None or refreshes < max_refreshes:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                if project.wait_for_change(left):
                    _refresh(ctx, project, analyze)
                    refreshes += 1
        except KeyboardInterrupt:
            pass
    click.echo("impactlens: stopped watching", err=True)


def _refresh(ctx: click.Context, project: Project, analyze: bool, initial: bool = False
             ) -> None:
    """Index what changed (one line on stderr), then the report with ``analyze``. An error
    is reported on one line and the watch goes on: the next save may fix it."""
    try:
        with progress_bar(is_tty()) as progress:
            summary = project.refresh(progress)
        if summary is not None:
            print_summary(summary)
        elif initial:
            click.echo("impactlens: the index is up to date", err=True)
        if analyze:
            from impactlens.cli.analyze_cmds import analyze_cmd

            ctx.invoke(analyze_cmd, repo=project.root)
    except ImpactlensError as exc:
        if initial:
            raise
        click.echo(f"impactlens: error: {exc}", err=True)
