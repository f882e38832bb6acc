"""Pieces of `impactlens-bench perf` that run on any repository (the bench itself runs on
Django)."""

from __future__ import annotations

import ast
import json

from impactlens.bench import perf


def test_body_edit_adds_a_statement_to_the_first_function_body():
    src = ("X = 1\n\n\ndef f(a,\n      b):\n    return a\n\n\n"
           "def g():\n    '''doc'''\n    return 2\n")
    got = perf._body_edit(src, 3)
    assert got is not None and "def g():\n    _bench_local = 3\n    '''doc'''" in got
    ast.parse(got)
    assert perf._body_edit("class C:\n    def m(self):\n        pass\n", 0) is None


def test_def_inserted_goes_above_the_first_definition():
    src = "import os\n\n\n@deco\ndef f():\n    return 1\n"
    got = perf._def_inserted(src, 2)
    assert got.startswith("import os\n\n\ndef _bench_inserted_2():\n    return 2\n\n\n@deco")
    ast.parse(got)


def test_hub_edit_reindexes_one_file(indexed):
    root = indexed({
        "pkg/__init__.py": "",
        "pkg/core.py": "def helper(x):\n    return x\n",
        "pkg/a.py": "from pkg.core import helper\n\n\ndef a():\n    return helper(1)\n",
        "pkg/b.py": "from pkg.core import helper\n\n\ndef b():\n    return helper(2)\n",
    }).root
    got = perf.incremental_hub(root, 2)
    assert got["file"] == "pkg/core.py" and got["dependents"] == 2
    assert len(got["insert_seconds_runs"]) == 2
    assert (root / "pkg/core.py").read_text() == "def helper(x):\n    return x\n"  # restored
    assert perf.freshness(root, 2)["seconds_p50"] >= 0


def test_impact_latency_counts_symbols_without_dependents_apart(indexed):
    root = indexed({
        "pkg/__init__.py": "",
        "pkg/core.py": "def used():\n    return 1\n\n\ndef unused():\n    return 2\n",
        "pkg/a.py": "from pkg.core import used\n\n\ndef a():\n    return used()\n",
    }).root
    got = perf.impact_latency(root, 10, seed=1)
    # used and a's module are reached by something; unused and a() are not
    assert got["sampled"] == 3  # used, unused, a
    assert got["n"] == 1 and 0 < got["share_without_dependents"] < 1
    assert got["reach_p50"] >= 1 and got["ms_p50"] > 0


def test_cold_index_reports_cpu_tree_memory_and_disk(indexed):
    root = indexed({"pkg/__init__.py": "", "pkg/core.py": "def f():\n    return 1\n"}).root
    got = perf.cold_index(root, 1)
    assert got["symbols"] >= 2 and got["cpu_seconds"] > 0
    assert got["peak_pss_mb"] > 5  # an interpreter with impactlens loaded, at least
    assert 0 < got["index_mb"] == perf.index_size_mb(root)


def test_history_mining_is_measured_apart_on_a_real_repository(make_repo, git_commit, capsys):
    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n"})
    for i in range(1, 4):
        git_commit(root, {"a.py": f"A = {i}\n", "b.py": f"B = {i}\n"}, f"step {i}")
    assert perf.main([str(root), "--history-only", "--runs", "1", "--history-horizon", "3",
                      "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["horizon"], got["commits"], got["file_rows"]) == (3, 3, 6)
    assert got["seconds"] > 0 and got["cpu_git"] >= 0 and got["load_seconds"] >= 0
    assert got["db_mb"] > 0
    assert "only the newest 3 commits are mined" in got["note"]
