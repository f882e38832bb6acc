"""Shared CLI plumbing: the root group, error handling, output helpers."""

from __future__ import annotations

import importlib
import json
import sqlite3
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from impactlens import __version__
from impactlens.errors import BadInputError, ImpactlensError

if TYPE_CHECKING:
    from impactlens.api import Project
    from impactlens.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])

# command → the module that registers it on `main` when imported. A run imports only the
# module of the command it runs (`--help` imports them all), so `impactlens --version` or
# `impactlens impact` does not pay for the analysis pipeline, the MCP server or the PDG.
COMMAND_MODULES = {
    "index": "impactlens.cli.index_cmds", "record": "impactlens.cli.index_cmds",
    "impact": "impactlens.cli.index_cmds", "context": "impactlens.cli.index_cmds",
    "find": "impactlens.cli.index_cmds", "export": "impactlens.cli.index_cmds",
    "analyze": "impactlens.cli.analyze_cmds", "tests": "impactlens.cli.analyze_cmds",
    "demo": "impactlens.cli.analyze_cmds", "slice": "impactlens.cli.pdg_cmds",
    "bench": "impactlens.cli.bench_cmds", "mcp": "impactlens.cli.serve_cmds",
    "watch": "impactlens.cli.watch_cmds",
}


class ErrorsAsOneLine(click.Group):
    """Root group that turns library errors into one-line messages and exit 2, and loads
    a command's module when the command is asked for (:data:`COMMAND_MODULES`)."""

    lazy: Mapping[str, str] = MappingProxyType({})  # the root group's is COMMAND_MODULES

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            importlib.import_module(self.lazy[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in sorted(set(self.lazy.values())):
            importlib.import_module(module)
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ImpactlensError as exc:
            click.echo(f"impactlens: error: {exc}", err=True)
            ctx.exit(2)
        except sqlite3.DatabaseError as exc:  # damage the checks on opening did not see
            click.echo(f"impactlens: error: the index could not be read ({exc}); "
                       "`impactlens index --full` rebuilds it", err=True)
            ctx.exit(2)
        except MemoryError:  # what was allocated is freed as the stack unwinds
            click.echo("impactlens: error: out of memory; a file over what this machine can "
                       "analyze is left out below the size cap (--set max_file_bytes=N)",
                       err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("impactlens: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=ErrorsAsOneLine, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="impactlens")
@click.option("--set", "overrides", multiple=True, metavar="NAME=VALUE",
              help="Override a numeric or on/off setting for this run (repeatable), over "
                   "the repository's [tool.impactlens] in pyproject.toml.")
@click.pass_context
def main(ctx: click.Context, overrides: tuple[str, ...]) -> None:
    """impactlens — what else does this edit reach, and which tests must re-run?"""
    ctx.obj = {"overrides": overrides}


main.lazy = COMMAND_MODULES


def run_settings(repo: Path) -> Settings:
    """The settings of this run at ``repo``: its ``[tool.impactlens]``, then ``--set``."""
    from impactlens.api import repository_settings
    from impactlens.settings import DEFAULT, override

    ctx = click.get_current_context(silent=True)
    pairs = ((ctx.find_root().obj or {}).get("overrides", ()) if ctx else ())
    settings = repository_settings(repo) if repo.is_dir() else DEFAULT
    try:
        return override(settings, pairs)
    except ValueError as exc:
        raise BadInputError(f"--set {exc}") from None


def open_project(repo: Path) -> Project:
    """The project at ``repo`` with :func:`run_settings`; a directory that is no project
    is refused first (exit 2), before any other step reads it."""
    from impactlens.api import Project, check_project

    project = Project(repo, run_settings(repo))
    check_project(project.root)
    return project


def repo_option(f: F) -> F:
    """``--repo`` option (default: the current directory) passed as a Path."""
    return click.option(
        "--repo",
        "repo",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("."),
        show_default=True,
        help="Repository root.",
    )(f)


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, sort_keys=False))


def is_tty() -> bool:
    return sys.stderr.isatty()




def direction_option(help_text: str) -> Callable[[F], F]:
    """``--direction dependents|dependencies`` (default dependents); the deprecated words
    are accepted too, for :func:`read_direction` to map."""
    from impactlens.model import DIRECTIONS, OLD_DIRECTION_WORDS

    return click.option("--direction", type=click.Choice(DIRECTIONS + OLD_DIRECTION_WORDS),
                        default="dependents", show_default=True, help=help_text)


def read_direction(word: str, old_meaning: str) -> str:
    """``word`` as dependents/dependencies, a deprecated word read as ``old_meaning``
    (``impact`` or ``slice``) meant it, with a note on stderr."""
    from impactlens.model import normalise_direction

    new = normalise_direction(word, old_meaning)
    if word != new:
        click.echo(f"impactlens: note: --direction {word} is deprecated; it means {new} "
                   "here", err=True)
    return new
