"""Shared CLI plumbing: the root group, error handling, output helpers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from impactlens import __version__
from impactlens.errors import ImpactlensError

F = TypeVar("F", bound=Callable[..., Any])


class _Group(click.Group):
    """Root group that turns library errors into one-line messages and exit 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ImpactlensError as exc:
            click.echo(f"impactlens: error: {exc}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("impactlens: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="impactlens")
def main() -> None:
    """impactlens — what else does this edit reach, and which tests must re-run?"""


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


