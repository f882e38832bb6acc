"""Thin command-line front end: parses options, calls :mod:`impactlens.api`, prints.

Each command family lives in its own module and registers itself on ``main`` when
imported; ``main`` imports the module of the command it runs
(:data:`impactlens.cli.common.COMMAND_MODULES`).
User errors exit 2 with one line on stderr and never a traceback.
"""

from __future__ import annotations

from impactlens.cli.common import main

__all__ = ["main"]
