"""Hub symbols: `impact` pages its symbols and counts the rest per file, nothing dropped."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from impactlens.api import Project
from impactlens.cli import main

N_FILES, PER_FILE = 12, 18  # 216 callers of one hub function
# each file's module imports the hub too: one more symbol per file
TOTAL, IN_FILE = N_FILES * (PER_FILE + 1), PER_FILE + 1


def hub_files() -> dict[str, str]:
    files = {"app/__init__.py": "", "app/hub.py": "def hub(x):\n    return x\n"}
    for i in range(N_FILES):
        body = "".join(f"def f{i}_{j}(x):\n    return hub(x)\n\n\n" for j in range(PER_FILE))
        files[f"app/user{i:02d}.py"] = "from app.hub import hub\n\n\n" + body
    return files


@pytest.fixture
def hub_repo(indexed: Callable[..., Project]) -> Path:
    return indexed(hub_files()).root


def _ids(result: dict) -> list[str]:
    return [h["id"] for hops in result["by_depth"].values() for h in hops]


def test_pages_reach_every_symbol_once(hub_repo: Path) -> None:
    with Project(hub_repo) as p:
        every = _ids(p.impact("app.hub.hub", depth=1))
        assert len(every) == TOTAL
        got: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = p.impact("app.hub.hub", depth=1, offset=offset, limit=50)
            assert page["total"] == len(every)
            assert page["omitted"] == page["total"] - len(_ids(page))
            assert sum(page["by_file"]["1"].values()) == page["total"]
            got += _ids(page)
            offset = page["next_offset"]
        assert got == every and len(set(got)) == len(got)


def test_terminal_output_fits_and_says_how_to_get_the_rest(hub_repo: Path) -> None:
    res = CliRunner().invoke(main, ["impact", "app.hub.hub", "--repo", str(hub_repo)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) <= 60
    assert f"1 hop away ({TOTAL})" in res.stdout
    assert f"app/user00.py — {IN_FILE} symbols" in res.stdout
    assert f"+{TOTAL - 40} more — --offset 40" in res.stdout
    res = CliRunner().invoke(main, ["impact", "app.hub.hub", "--repo", str(hub_repo),
                                    "--json", "--offset", "200", "--limit", "50"])
    out = json.loads(res.stdout)
    assert len(_ids(out)) == TOTAL - 200 and out["next_offset"] is None
    assert out["total"] == TOTAL and out["omitted"] == 200
