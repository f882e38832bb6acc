"""History does not hold up the code index: a refresh mines a slice of the history per run,
the answer says how much it used, and `index` mines the whole horizon (real repositories,
the real CLI)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from git_dates import day

from impactlens.api import Project
from impactlens.cli import main
from impactlens.settings import DEFAULT

LIB = {"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return x\n",
       "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f(1)\n"}


def _history(make_repo, git_commit, name="repo"):
    root = make_repo(LIB, name=name, date=day(0))
    for i in range(1, 5):
        git_commit(root, {"pkg/a.py": f"def f(x):\n    return x + {i}\n",
                          "pkg/b.py": LIB["pkg/b.py"] + f"\nN = {i}\n"}, f"step {i}",
                   date=day(i))
    (root / "pkg/a.py").write_text("def f(x, y):\n    return x + y\n")  # the edit analysed
    return root


def _analyze(root, *sets: str) -> str:
    args = [a for s in sets for a in ("--set", s)]
    got = CliRunner().invoke(main, [*args, "analyze", "--repo", str(root), "--json"],
                             catch_exceptions=False)
    assert got.exit_code == 0, got.output
    return got.stdout


def test_analyze_answers_from_the_code_index_while_history_catches_up(make_repo, git_commit):
    root = _history(make_repo, git_commit)
    notes = []
    for _ in range(4):
        doc = json.loads(_analyze(root, "history_refresh_commits=2"))
        assert any(e["entity"] == "pkg.b.g" for e in doc["triage"]["must_inspect"])
        notes.append(doc["co_change"]["note"])
    assert notes[0].startswith("history: 2 of 5 commits indexed, newest first")
    assert notes[1].startswith("history: 4 of 5 commits indexed, newest first")
    assert notes[2].startswith("history: 5 commits indexed;") and notes[3] == notes[2]
    project = Project(root)
    assert project.refresh() is None  # caught up, nothing changed: no run at all
    project.close()


def test_the_same_repository_and_runs_give_byte_identical_answers(make_repo, git_commit):
    one = _history(make_repo, git_commit, "one")
    two = _history(make_repo, git_commit, "two")  # the same commits, shas and all
    for _ in range(2):  # partly mined, then more: each state answers the same in both
        first, second = (_analyze(r, "history_refresh_commits=3") for r in (one, two))
        assert first == second and "co-change" in first


def test_index_mines_the_whole_horizon_and_full_history_all(make_repo, git_commit):
    root = _history(make_repo, git_commit)
    runner = CliRunner()
    got = runner.invoke(main, ["--set", "history_max_commits=2", "--set",
                               "history_refresh_commits=1", "index", str(root)])
    assert got.exit_code == 0 and "history: 2 commits indexed" in got.output
    assert "only the newest 2 commits are mined" in got.output
    got = runner.invoke(main, ["--set", "history_max_commits=2", "index", "--full-history",
                               str(root)])
    assert got.exit_code == 0 and "history: 5 commits indexed (3 new)" in got.output
    assert "only the newest" not in got.output


def test_a_budget_of_none_mines_everything_and_the_code_is_indexed_first(make_repo,
                                                                          git_commit):
    root = _history(make_repo, git_commit)
    project = Project(root, DEFAULT.replace(history_refresh_commits=1))
    summary = project.index(history_budget=0)  # the code index alone
    assert project.impact("pkg.a.f")["target"]["id"] == "pkg.a.f"
    assert any("history: 0 of 5 commits indexed" in n for n in summary.notes)
    summary = project.index()
    assert any(n.startswith("history: 5 commits indexed (5 new)") for n in summary.notes)
    project.close()
