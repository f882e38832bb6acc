"""One meaning of direction: dependents / dependencies everywhere, the old words as
deprecated aliases mapped per command, on a small real repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from impactlens.api import Project
from impactlens.cli import main
from impactlens.model import normalise_direction

FILES = {
    "app/__init__.py": "",
    "app/core.py": "def base(v):\n    return v + 1\n",
    "app/mid.py": (
        "from app.core import base\n\n\n"
        "def mid(v):\n"
        "    w = base(v)\n"
        "    u = w * 2\n"
        "    return u\n"
    ),
    "app/top.py": "from app.mid import mid\n\n\ndef top():\n    return mid(3)\n",
}


def _ids(result: dict) -> set[str]:
    return {h["id"] for hops in result["by_depth"].values() for h in hops}


def _lines(result: dict) -> set[int]:
    return {s["line"] for s in result["affected_statements"]}


def cli(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture
def repo(indexed: Callable[..., Project]) -> Path:
    return indexed(FILES).root


def test_aliases_map_per_surface() -> None:
    assert normalise_direction("upstream", "impact") == "dependents"
    assert normalise_direction("downstream", "impact") == "dependencies"
    assert normalise_direction("downstream", "slice") == "dependents"
    assert normalise_direction("upstream", "slice") == "dependencies"
    assert normalise_direction("forward", "slice") == "dependents"
    assert normalise_direction("backward", "impact") == "dependencies"
    with pytest.raises(ValueError):
        normalise_direction("sideways")


def test_impact_words_pick_the_right_set(repo: Path) -> None:
    with Project(repo) as p:
        dependents = p.impact("app.mid.mid", direction="dependents", depth=1)
        dependencies = p.impact("app.mid.mid", direction="dependencies", depth=1)
        assert "app.top.top" in _ids(dependents)
        assert "app.core.base" in _ids(dependencies)
        assert dependents["direction"] == "dependents"
        assert _ids(p.impact("app.mid.mid", direction="upstream", depth=1)) == _ids(dependents)
        assert _ids(p.impact("app.mid.mid", direction="downstream", depth=1)) == \
            _ids(dependencies)


def test_slice_words_pick_the_right_set(repo: Path) -> None:
    with Project(repo) as p:
        affected = _lines(p.slice("app/mid.py", 5, "dependents"))
        feeding = _lines(p.slice("app/mid.py", 6, "dependencies"))
        assert affected >= {6, 7} and 5 in feeding
        for old, new in (("downstream", "dependents"), ("forward", "dependents"),
                         ("upstream", "dependencies"), ("backward", "dependencies")):
            line = 5 if new == "dependents" else 6
            got = p.slice("app/mid.py", line, old)
            assert got["direction"] == new
            assert _lines(got) == (
                affected if new == "dependents" else feeding)


def test_cli_old_word_works_with_a_note(repo: Path) -> None:
    code, out, err = cli("impact", "app.mid.mid", "--repo", str(repo), "--depth", "1",
                         "--direction", "upstream", "--json")
    assert code == 0, err
    assert "app.top.top" in _ids(json.loads(out))
    assert "deprecated" in err and "dependents" in err
    code, out, err = cli("slice", "app/mid.py:5", "--repo", str(repo), "--json",
                         "--direction", "downstream")
    assert code == 0 and json.loads(out)["direction"] == "dependents"
    assert "deprecated" in err


def test_cli_text_says_hops_not_verdicts(repo: Path) -> None:
    code, out, _ = cli("impact", "app.core.base", "--repo", str(repo))
    assert code == 0
    assert "1 hop away" in out and "2 hops away" in out and "will break" not in out


def test_help_texts_name_the_new_words() -> None:
    for command in ("impact", "slice"):
        code, out, _ = cli(command, "--help")
        assert code == 0 and "dependents" in out and "dependencies" in out
