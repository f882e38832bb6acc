"""`slice` command: the statement-level dependence slice of one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from impactlens.cli.common import (
    direction_option,
    echo_json,
    main,
    open_project,
    read_direction,
    repo_option,
)
from impactlens.errors import BadInputError


def _parse_location(loc: str) -> tuple[str, int]:
    path, _, line_s = loc.rpartition(":")
    if not path or not line_s.isdigit():
        raise BadInputError(f"{loc!r}: expected FILE:LINE (e.g. src/pkg/mod.py:42)")
    return path, int(line_s)


def render_pdg(result: dict[str, Any]) -> str:
    """Plain-text rendering shared by `slice` and `impact --mode pdg`."""
    crit = result["criterion"]
    head = f"{result['direction']} of {crit['file']}:{crit['line']}"
    if crit.get("scope"):
        head += f" (in {crit['scope']})"
    lines = [head]
    if result.get("reason"):
        lines.append(f"no slice: {result['reason']}: {result['message']}")
        return "\n".join(lines)
    for s in crit["statements"]:
        lines.append(f"  criterion {s['line']:>5}  {s['text']}")
    stmts = result["affected_statements"]
    lines.append(f"affected statements ({len(stmts)}):")
    lines += [f"  {s['file']}:{s['line']:<5} {s['text']}" for s in stmts] or ["  (none)"]
    inter = result.get("interprocedural_statements") or []
    if inter:
        lines.append(f"inter-procedural statements ({len(inter)}):")
        lines += [f"  [{s['via']} hop {s['hop']}] {s['file']}:{s['line']:<5} {s['text']}"
                  f"  ({s['symbol']})" for s in inter]
    precise = result.get("statement_precise_by_depth") or {}
    if precise:
        lines.append("statement-precise callees:")
        for d, rows in precise.items():
            lines += [f"  depth {d}: {r['id']}  (sites {', '.join(map(str, r['sites']))})"
                      for r in rows]
    asc = result.get("return_ascent") or []
    if asc:
        lines.append("callers using the affected return value:")
        lines += [f"  hop {a['hop']}: {a['id']}  (sites {', '.join(map(str, a['sites']))})"
                  for a in asc]
    by_depth = result.get("by_depth") or {}
    if by_depth:
        n = sum(len(v) for v in by_depth.values())
        lines.append(f"call-graph reach: {n} symbols over {len(by_depth)} depth(s)")
    if result.get("truncated"):
        lines.append(f"truncated: {', '.join(result['truncated_by'])}")
    lines.append(f"note: {result['note']}")
    return "\n".join(lines)


@main.command("slice")
@click.argument("location")
@direction_option("dependents: the statements that depend on the line (what "
                  "changing it affects); dependencies: the statements it depends on. "
                  "downstream/upstream are deprecated.")
@click.option("--depth", type=click.IntRange(0, 3), default=3, show_default=True,
              help="Inter-procedural function hops.")
@click.option("--no-index", is_flag=True, help="Intra-procedural only; do not read the index.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@repo_option
def slice_cmd(location: str, direction: str, depth: int, no_index: bool, as_json: bool,
              repo: Path) -> None:
    """Statements affected by (or affecting) FILE:LINE — a program-dependence slice."""
    path, line = _parse_location(location)
    direction = read_direction(direction, "slice")
    project = open_project(repo)
    result = project.slice(path, line, direction, depth, use_index=not no_index)
    if as_json:
        echo_json(result)
    else:
        click.echo(render_pdg(result))
    if result.get("reason") in ("file-not-found", "syntax-error", "line-out-of-range",
                                "too-large", "too-deep", "unsupported-language"):
        raise SystemExit(2)
