"""Thin command-line front end: parses options, calls :mod:`impactlens.api`, prints.

Each command family lives in its own module and registers itself on ``main``.
User errors exit 2 with one line on stderr and never a traceback.
"""

from __future__ import annotations

import importlib

from impactlens.cli.common import main

# command modules register themselves on `main` when imported
_COMMAND_MODULES = (
    "impactlens.cli.index_cmds",
    "impactlens.cli.analyze_cmds",
    "impactlens.cli.pdg_cmds",
    "impactlens.cli.bench_cmds",
    "impactlens.cli.serve_cmds",
    "impactlens.cli.watch_cmds",
)

for _name in _COMMAND_MODULES:
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as exc:  # a command family not built yet
        if exc.name != _name:
            raise

__all__ = ["main"]
