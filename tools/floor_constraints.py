"""Print a pip constraints file pinning every dependency to the lowest version pyproject.toml
declares, so CI can install those floors and check that they really work.

    python tools/floor_constraints.py [--extra NAME ...] [--pyproject PATH] > floors.txt
    pip install -c floors.txt -e '.[llm]' pytest pytest-timeout hypothesis

The runtime dependencies always; an extra's only with ``--extra``. A requirement with no
lower bound (``>=`` or ``==``) is left out; one whose floor is excluded by its own
specifier (``>=1,!=1``) is an error. Standard library only: it runs before anything is
installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

# name[extras] then the specifiers, up to an environment marker
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")
_FLOOR = re.compile(r"^(>=|==|~=)\s*([0-9][^\s,]*)$")


def floor(requirement: str) -> tuple[str, str] | None:
    """``(name, lowest version)`` of one requirement string, ``None`` without a floor."""
    match = _REQUIREMENT.match(requirement)
    if not match:
        raise ValueError(f"not a requirement: {requirement!r}")
    name, specifiers = match.group(1), match.group(2)
    floors = []
    for spec in (s.strip() for s in specifiers.split(",") if s.strip()):
        found = _FLOOR.match(spec)
        if found:
            floors.append(found.group(2))
        elif spec.startswith("!=") and spec[2:].strip() in floors:
            raise ValueError(f"{requirement!r}: the floor itself is excluded")
    if not floors:
        return None
    if len(floors) > 1:
        raise ValueError(f"{requirement!r}: more than one lower bound")
    return re.sub(r"[-_.]+", "-", name).lower(), floors[0]


def floors(pyproject: dict, extras: list[str]) -> dict[str, str]:
    """Every floor of the runtime dependencies and of ``extras``, by normalised name."""
    project = pyproject["project"]
    optional = project.get("optional-dependencies", {})
    unknown = sorted(set(extras) - set(optional))
    if unknown:
        raise ValueError(f"no such extra: {', '.join(unknown)}")
    requirements = list(project.get("dependencies", []))
    for extra in extras:
        requirements += optional[extra]
    pinned: dict[str, str] = {}
    for requirement in requirements:
        found = floor(requirement)
        if found is None:
            continue
        name, version = found
        if pinned.get(name, version) != version:
            raise ValueError(f"{name}: two floors ({pinned[name]} and {version})")
        pinned[name] = version
    return pinned


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extra", action="append", default=[], help="also this extra's floors")
    ap.add_argument("--pyproject", type=Path,
                    default=Path(__file__).resolve().parents[1] / "pyproject.toml")
    args = ap.parse_args(argv)
    try:
        pinned = floors(tomllib.loads(args.pyproject.read_text()), args.extra)
    except ValueError as exc:
        print(f"floor_constraints: error: {exc}", file=sys.stderr)
        return 2
    print(f"# the lowest versions {args.pyproject.name} declares (tools/floor_constraints.py)")
    for name, version in sorted(pinned.items()):
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
