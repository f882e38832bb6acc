"""The answer-budget benchmark, end to end on a small real history."""

from __future__ import annotations

import json

from test_bench_history import _repo

from impactlens.bench import budget
from impactlens.settings import DEFAULT


def test_every_surface_is_measured_and_shows_the_coupled_file(make_repo, git_commit, tmp_path,
                                                              capsys):
    root = _repo(make_repo, git_commit)
    out = tmp_path / "sizes.json"
    assert budget.main([str(root), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    saved = json.loads(out.read_text())
    [case] = saved["cases"]  # the one coupled commit: f gains a parameter, bb passes it
    assert case["gold"] == ["pkg/bb.py"]
    assert case["ranking"][0] == "pkg/bb.py"
    for surface in budget.SURFACES:
        assert case["shown"][surface][0] == "pkg/bb.py", surface
    sizes = case["sizes"]
    assert 0 < sizes["impact.json"]["tokens"] <= DEFAULT.answer_json_tokens
    assert 0 < sizes["mcp analyze_change"]["tokens"] <= DEFAULT.mcp_max_tokens
    assert 0 < sizes["terminal"]["lines"] <= DEFAULT.terminal_lines
    assert sizes["terminal"]["width"] <= DEFAULT.piped_width
    assert 0 < sizes["markdown"]["chars"] <= DEFAULT.markdown_chars
    assert "| terminal |" in table and "| 1.000 |" in table

    assert budget.main(["--from-json", str(out), str(out)]) == 0  # saved runs tabulate
    assert capsys.readouterr().out.count("unbudgeted ranking") == 2


def test_a_small_budget_is_kept_and_the_head_of_the_ranking_survives(make_repo, git_commit,
                                                                       tmp_path):
    root = _repo(make_repo, git_commit)
    out = tmp_path / "sizes.json"
    assert budget.main([str(root), "--out", str(out), "--set", "mcp_max_tokens=600"]) == 0
    [case] = json.loads(out.read_text())["cases"]
    assert case["sizes"]["mcp analyze_change"]["tokens"] <= 600
    assert case["shown"]["mcp analyze_change"][:1] == ["pkg/bb.py"]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert budget.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("impactlens: error:")
    assert budget.main(["--from-json", str(tmp_path / "missing.json")]) == 2


def test_the_obligations_bench_scores_a_flag_against_the_commit(make_repo, git_commit, capsys):
    from git_dates import day

    from impactlens.bench import obligations

    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return x\n",
                      "pkg/b.py": "from pkg.a import f\n\n\ndef g(y):\n    return f(y)\n"},
                     date=day(0))
    # the commit adds a helper to a.py and uses it from b.py: b's import is a right flag
    git_commit(root, {"pkg/a.py": "def f(x):\n    return x\n\n\ndef h(x):\n    return -x\n",
                      "pkg/b.py": "from pkg.a import f, h\n\n\ndef g(y):\n    return h(f(y))\n"},
               "negate the result of g", date=day(1))
    assert obligations.main([str(root), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(f["file"], f["owner"], f["name"], f["kind"], f["right"])
            for f in got["flags"]] == [("pkg/b.py", "pkg.a", "h", "import", True)]
    assert got["summary"]["imports"] == {"flags": 1, "right": 1, "precision": 1.0, "cases": 1}
