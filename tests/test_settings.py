"""Settings from a repository's pyproject.toml and from `--set`, end to end."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from git_dates import day
from hypothesis import given
from hypothesis import strategies as st

from impactlens.api import Project
from impactlens.cli import main
from impactlens.errors import BadInputError
from impactlens.settings import DEFAULT, from_pyproject, override, with_values


def test_override_reads_each_value_as_its_fields_type():
    got = override(DEFAULT, ["cochange_symbol_weight=1", "max_depth=2",
                             "history_first_parent=true"])
    assert (got.cochange_symbol_weight, got.max_depth, got.history_first_parent) == (1.0, 2, True)
    for bad in ("no_such_setting=1", "channels=walk", "max_depth", "max_depth=2.5",
                "history_first_parent=maybe", "=1", "max_depth="):
        with pytest.raises(ValueError):
            override(DEFAULT, [bad])


@given(st.integers(min_value=0, max_value=10**6), st.booleans())
def test_a_value_round_trips_through_its_text(n, flag):
    got = override(DEFAULT, [f"max_walk_nodes={n}", f"history_first_parent={flag}"])
    assert (got.max_walk_nodes, got.history_first_parent) == (n, flag)
    assert with_values(DEFAULT, {"max_walk_nodes": n}).max_walk_nodes == n


def test_pyproject_table_applies_and_a_wrong_entry_is_named(tmp_path):
    assert from_pyproject(tmp_path) is DEFAULT  # no pyproject.toml
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert from_pyproject(tmp_path) == DEFAULT  # no [tool.impactlens]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.impactlens]\nhistory_max_files_per_commit = 80\ncochange_min = 0.4\n")
    got = from_pyproject(tmp_path)
    assert (got.history_max_files_per_commit, got.cochange_min) == (80, 0.4)
    assert Project(tmp_path).settings == got  # what Project uses when given none
    (tmp_path / "pyproject.toml").write_text("[tool.impactlens]\nmax_depht = 2\n")
    with pytest.raises(BadInputError, match=r"\[tool.impactlens\]: 'max_depht'"):
        Project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.impactlens\n")
    with pytest.raises(BadInputError, match="cannot read"):
        Project(tmp_path)


def _partners_note(root, *args):
    got = CliRunner().invoke(main, [*args, "analyze", "--repo", str(root), "--json"])
    assert got.exit_code == 0, got.output
    return json.loads(got.output)["co_change"]["note"]


def test_the_sweeping_commit_cap_from_pyproject_and_from_set(make_repo, git_commit):
    """The issue's "commits over the cap are kept but excluded from co-change pairs
    (configurable)": the 3- and 4-file commits count at the default cap of 50, not at a cap of 2."""

    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "A = 0\n", "pkg/b.py": "B = 0\n",
                      "pkg/c.py": "C = 0\n"}, date=day(0))
    git_commit(root, {"pkg/a.py": "A = 1\n", "pkg/b.py": "B = 1\n", "pkg/c.py": "C = 1\n"},
               "all three", date=day(1))
    (root / "pkg/a.py").write_text("A = 2\n")
    assert CliRunner().invoke(main, ["index", str(root)]).exit_code == 0
    assert "sweeping excluded" not in _partners_note(root)
    out = _partners_note(root, "--set", "history_max_files_per_commit=2")
    assert "(2 sweeping excluded)" in out, out
    (root / "pyproject.toml").write_text("[tool.impactlens]\nhistory_max_files_per_commit = 2\n")
    assert "(2 sweeping excluded)" in _partners_note(root)
    assert "sweeping excluded" not in _partners_note(
        root, "--set", "history_max_files_per_commit=50")  # --set wins over the file
    bad = CliRunner().invoke(main, ["--set", "max_depht=2", "analyze", "--repo", str(root)])
    assert bad.exit_code == 2 and "max_depht" in bad.output


def test_the_mcp_server_runs_with_the_runs_settings(tmp_path):
    from impactlens.serve.mcp_server import _Backend

    (tmp_path / "pyproject.toml").write_text("[tool.impactlens]\nmax_depth = 2\n")
    assert _Backend(tmp_path).project.settings.max_depth == 2  # the repository's own
    given = DEFAULT.replace(max_depth=1)
    assert _Backend(tmp_path, given).project.settings is given  # `impactlens --set … mcp`
    bad = CliRunner().invoke(main, ["--set", "max_depth=x", "mcp", str(tmp_path)])
    assert bad.exit_code == 2 and "max_depth='x': not an integer" in bad.output


def test_set_reaches_index_and_is_refused_where_it_cannot_apply(make_repo, git_commit):
    root = make_repo({"a.py": "A = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n"}, "one", date=day(1))
    got = CliRunner().invoke(main, ["--set", "history_max_commits=1", "index", str(root)])
    assert got.exit_code == 0 and "only the newest 1 commits are mined" in got.output
    bench = CliRunner().invoke(main, ["--set", "max_depth=2", "bench", "history", str(root)])
    assert bench.exit_code == 2 and "does not reach the harnesses" in bench.output


def test_a_non_finite_or_string_number_in_pyproject_is_refused(tmp_path):
    for line, says in (("max_depth = inf", "not an integer"),
                       ("cochange_min = nan", "not a finite number"),
                       ('max_depth = "2"', "not an integer"),
                       ("history_first_parent = 1", "not true or false")):
        (tmp_path / "pyproject.toml").write_text(f"[tool.impactlens]\n{line}\n")
        with pytest.raises(BadInputError, match=says):
            Project(tmp_path)
    (tmp_path / "pyproject.toml").write_text('tool = "x"\n')
    assert Project(tmp_path).settings == DEFAULT
