"""`mcp`: serve one repository to MCP clients (AI coding agents) over stdio."""

from __future__ import annotations

from pathlib import Path

import click

from impactlens.cli.common import main, run_settings
from impactlens.errors import BadInputError


@main.command("mcp")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
def mcp_cmd(path: Path) -> None:
    """Run an MCP server (stdio) answering impact questions about the repository at PATH.

    Tools: analyze_change, tests_for_change, impact, context, find_symbol, slice,
    reindex. The index (PATH/.impactlens/) is built on first use and refreshed
    incrementally whenever files change. Logs go to stderr; stdout carries the protocol.
    """
    if not path.is_dir():
        raise BadInputError(f"{path}: repository directory not found")
    from impactlens.serve.mcp_server import serve_stdio

    serve_stdio(path, run_settings(path))
