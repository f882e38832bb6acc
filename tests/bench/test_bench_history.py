"""The real-history harness: case mining (semantic filter, seed splice) and aggregation."""

from __future__ import annotations

import ast

import pytest
from git_dates import day
from hypothesis import given
from hypothesis import strategies as st

from impactlens.bench.history import (
    NOISE,
    CaseResult,
    MethodRun,
    ablation_verdict,
    is_source,
    mine_cases,
    summarize,
)

A0 = (
    "def helper(x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "def f(x):\n"
    "    return helper(x)\n"
)
B0 = "from pkg.a import f\n\n\ndef g(y):\n    return f(y)\n"


def _repo(make_repo, git_commit):
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": A0, "pkg/b.py": B0,
                      "tests/test_a.py": "from pkg.a import f\n\n\ndef test_f():\n"
                                         "    assert f(1) == 2\n",
                      "tests/test_h.py": "from pkg import a\n\n\ndef test_h():\n"
                                         "    assert a.helper(1) == 2\n"}, date=day(0))
    # 1: formatting and docstrings only, in two files -> skipped
    git_commit(root, {"pkg/a.py": A0.replace("x + 1", "(x + 1)"),
                      "pkg/b.py": '"""Doc."""\n' + B0}, "touch up", date=day(1))
    # 2: rename only -> skipped
    git_commit(root, {"pkg/b.py": None, "pkg/bb.py": '"""Doc."""\n' + B0}, "move b",
               date=day(2))
    # 3: a real coupled change: f gains a parameter, its caller passes it
    a3 = A0.replace("x + 1", "(x + 1)").replace("def f(x):\n    return helper(x)",
                                                "def f(x, k):\n    return helper(x) * k")
    b3 = '"""Doc."""\n' + B0.replace("return f(y)", "return f(y, 2)")
    git_commit(root, {"pkg/a.py": a3, "pkg/bb.py": b3, "tests/test_a.py":
                      "from pkg.a import f\n\n\ndef test_f():\n    assert f(1, 1) == 2\n"},
               "f takes a factor k", date=day(3))
    # 4: mechanical message -> skipped by the message filter
    git_commit(root, {"pkg/a.py": a3.replace("* k", "* k * 1"),
                      "pkg/bb.py": b3.replace("(y, 2)", "(y, 3)")}, "Run black", date=day(4))
    return root


def test_case_mining_filters_and_seed(make_repo, git_commit):
    root = _repo(make_repo, git_commit)
    cases, info = mine_cases(root, limit=10)
    assert info["candidates"] == 3  # the formatting, rename and real commits (not "Run black")
    assert info["skipped_message"] == 1  # "Run black", counted where the run reports it
    assert len(cases) == 1
    case = cases[0]
    assert case.message == "f takes a factor k"
    assert case.source_files == ("pkg/a.py", "pkg/bb.py")
    assert [(s.file, s.qualname) for s in case.seeds] == [("pkg/a.py", "f")]
    assert case.changed_defs == {"pkg/a.py": ("f",), "pkg/bb.py": ("g",)}
    seeded = case.seeds[0].seeded
    ast.parse(seeded)
    assert "def f(x, k):" in seeded and "x + 1" in seeded  # only f's hunk, not the reformat
    assert "(x + 1)" in seeded  # the parent's text elsewhere (the parent already had it)


def test_seed_all_each_changed_function(make_repo, git_commit):
    root = _repo(make_repo, git_commit)
    cases, _ = mine_cases(root, limit=10, seed_mode="all")
    assert [(s.file, s.qualname) for s in cases[0].seeds] == [("pkg/a.py", "f"),
                                                              ("pkg/bb.py", "g")]


def test_release_titles_and_vendored_trees_are_not_cases():
    from impactlens.bench.history.cases import MECHANICAL
    from impactlens.bench.history.sources import is_vendored

    for title in ("v2.30.0", "2.30.0 (2024-01-02)", "Release 1.2", "release v3.0.1",
                  "Bump version to 4.1"):
        assert MECHANICAL.search(title), title
    for title in ("Fix v2 handling of redirects", "Support Python 3.12 in the loader",
                  "raise on 2.0 style calls"):
        assert not MECHANICAL.search(title), title
    for path in ("src/pip/_vendor/rich/console.py", "requests/packages/urllib3/util.py",
                 "vendor/six.py", "pkg/third_party/lib.py"):
        assert is_vendored(path) and not is_source(path), path
    assert not is_vendored("packages/core/mod.py")  # a monorepo's top-level packages/
    assert is_source("packages/core/mod.py")


def _hygiene_repo(make_repo, git_commit, support_files):
    """A library ``pkg`` with a vendored copy and the given test-support files; then a
    release commit, a fix that also touches vendored and test-support code, and a fix
    that touches one library file beside them (not a case: one library file)."""
    files = {"pkg/__init__.py": "", "pkg/a.py": A0, "pkg/b.py": B0,
             "pkg/_vendor/__init__.py": "", "pkg/_vendor/six.py": "def u(s):\n    return s\n",
             "tests/test_a.py": "from pkg.a import f\n\n\ndef test_f():\n    assert f(1) == 2\n",
             **support_files}
    root = make_repo(files, date=day(0))
    a1 = A0.replace("return x + 1", "return x + 2")
    b1 = B0.replace("return f(y)", "return f(y) - 1")
    git_commit(root, {"pkg/a.py": a1, "pkg/b.py": b1}, "v2.30.0", date=day(1))
    a2 = a1.replace("return x + 2", "return x + 3")
    b2 = b1.replace("- 1", "- 2")
    git_commit(root, {"pkg/a.py": a2, "pkg/b.py": b2}, "Release 1.2", date=day(2))
    support = {p: t.replace("return s", "return s.strip()") for p, t in support_files.items()
               if "return s" in t}
    git_commit(root, {"pkg/_vendor/six.py": "def u(s):\n    return str(s)\n",
                      **support, "pkg/a.py": a2.replace("x + 3", "x + 4"),
                      "pkg/b.py": b2.replace("- 2", "- 3")}, "Fix the offset", date=day(3))
    git_commit(root, {"pkg/_vendor/six.py": "def u(s):\n    return repr(s)\n",
                      **{p: t.replace("strip", "lstrip") for p, t in support.items()},
                      "pkg/a.py": a2.replace("x + 3", "x + 5")}, "Fix u", date=day(4))
    return root


SUPPORT = {  # urllib3's dummyserver: test code the tests import, built on the library
    "dummyserver/__init__.py": "",
    "dummyserver/server.py": "import pytest\n\nfrom pkg.a import f\n\n\n"
                             "def serve(s):\n    return s\n",
    "tests/test_server.py": "from dummyserver.server import serve\n\n\n"
                            "def test_serve():\n    assert serve('x') == 'x'\n",
}


def test_release_vendored_and_test_support_commits_in_a_planted_history(make_repo,
                                                                       git_commit):
    root = _hygiene_repo(make_repo, git_commit, SUPPORT)
    cases, info = mine_cases(root, limit=10, seed_mode="all")
    assert info["skipped_message"] == 2  # "v2.30.0", "Release 1.2"
    assert info["test_support"] == 1
    assert [c.message for c in cases] == ["Fix the offset"]  # "Fix u": one library file
    (case,) = cases
    assert case.source_files == ("pkg/a.py", "pkg/b.py")  # no vendored, no dummyserver gold
    assert {s.file for s in case.seeds} == {"pkg/a.py", "pkg/b.py"}


def test_test_support_directories_by_layout_and_imports():
    from impactlens.bench.history.sources import test_support_dirs

    lib = {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    return 1\n",
           "tests/test_a.py": "from pkg.a import f\n"}
    assert test_support_dirs({**lib, **SUPPORT}) == {"dummyserver"}
    assert test_support_dirs(lib) == frozenset()  # the library: tests import it, but it
    # imports no test framework and nothing of the repository
    used = {**SUPPORT, "pkg/b.py": "from dummyserver.server import serve\n"}
    assert test_support_dirs({**lib, **used}) == frozenset()  # library code imports it
    src = {"src/pkg/__init__.py": "", "src/pkg/a.py": "def f():\n    return 1\n",
           "helpers/__init__.py": "", "helpers/net.py": "def free_port():\n    return 0\n",
           "tests/test_a.py": "from helpers.net import free_port\nfrom pkg.a import f\n"}
    assert test_support_dirs(src) == {"helpers"}  # outside src/, imported by tests only


def test_is_source():
    assert is_source("src/pkg/mod.py")
    assert not is_source("tests/helpers.py") and not is_source("pkg/test_x.py")
    assert not is_source("docs/conf.py") and not is_source("setup.py")
    assert not is_source("examples/app.py") and not is_source("pkg/data.txt")


def _result(files, gold, symbols=None, gold_symbols=(), breaking=None, tests=None):
    return CaseResult(
        sha="0" * 40, seed_file="pkg/a.py", seed="pkg.a.f", message="m",
        gold_files=list(gold), gold_symbols=list(gold_symbols), added_files=[],
        methods={"stage": MethodRun(list(files), symbols, tests),
                 "imports": MethodRun(list(reversed(files)))},
        seconds_index=0.0, seconds_stage=0.0, breaking=breaking, all_tests=10,
        dist={"stage": [0 if f in gold else 2 for f in files]},
    )


def test_summary_na_rule_and_ranks():
    rows = [
        _result(["x.py", "y.py"], ["y.py"], ["pkg.y.g"], ["pkg.y.g"], breaking=["t::a"],
                tests=["t::a", "t::b"]),
        _result([], ["z.py"], [], [], breaking=[], tests=[]),  # nothing predicted
    ]
    s = summarize(rows)["methods"]["stage"]
    assert s["recall"] == 0.5  # (1.0 + 0.0) / 2
    assert s["precision"] == 0.5  # the empty prediction is n/a, not 0: only case 1
    assert s["p@1"] == 0.0 and s["r@3"] == 0.5
    assert s["sym_precision"] == 1.0  # case 2 has no symbol predictions: n/a
    assert s["sym_recall"] == 1.0  # case 2 has no gold symbols: n/a
    assert s["breaking_caught"] == 1.0 and s["cases_with_breaking"] == 1
    assert s["selection_ratio"] == 0.1  # (0.2 + 0.0) / 2
    assert s["distance"] == 1.0  # x.py 2 hops, y.py 0
    imp = summarize(rows)["methods"]["imports"]
    assert imp["p@1"] == 1.0 and imp["f1@matched"] == 0.6667  # y.py first; 2 kept: P .5 R 1


def test_ablation_verdict_says_which_way_the_metrics_moved():
    base = {"recall": 0.0, "precision": 0.0, "breaking_caught": 0.0}
    assert ablation_verdict(base | {"recall": -0.2}) == "keep"  # removal loses recall
    assert ablation_verdict(base | {"recall": -0.2, "precision": 0.1}) == "keep (mixed)"
    assert ablation_verdict(base | {"precision": 0.1}) == "delete (hurts)"  # removal only helps
    assert ablation_verdict(base | {"recall": -0.05}) == "delete (noise)"  # 5 % is noise
    # without the regression measure, moving nothing on the files decides nothing
    assert ablation_verdict(base | {"breaking_caught": None}).startswith("undecided (noise")
    assert ablation_verdict({"precision": 0.3}).startswith("undecided (removal helps")
    assert ablation_verdict({"recall": -0.3, "breaking_caught": None}) == "keep"


@given(st.dictionaries(st.sampled_from(["recall", "precision", "f1", "breaking_caught"]),
                       st.one_of(st.none(), st.floats(-1, 1))))
def test_ablation_verdict_deletes_only_what_moved_nothing_or_only_hurt(deltas):
    verdict = ablation_verdict(deltas)
    moved = [d for d in deltas.values() if d is not None and abs(d) > NOISE]
    assert verdict.startswith("keep") == any(d < 0 for d in moved)
    measured = deltas.get("breaking_caught") is not None
    assert verdict.startswith("delete") == (measured and all(d > 0 for d in moved))
    assert (verdict == "delete (hurts)") == (measured and bool(moved)
                                             and all(d > 0 for d in moved))


def test_cases_whose_suite_did_not_run_are_counted_apart():
    rows = [_result(["y.py"], ["y.py"], breaking=["t::a"], tests=["t::a"]),
            _result(["y.py"], ["y.py"], breaking=[], tests=["t::a"]),
            _result(["y.py"], ["y.py"], tests=["t::a"])]  # the suite did not start
    s = summarize(rows)["methods"]["stage"]
    assert (s["cases_run"], s["cases_with_breaking"]) == (2, 1)


def test_paired_comparison_uses_the_cases_both_answer():
    rows = [_result(["x.py", "y.py"], ["y.py"]), _result(["x.py"], ["z.py"]),
            _result(["y.py"], ["y.py"])]
    rows[0].methods["callers1"] = MethodRun(["y.py"])  # answers once, and right
    rows[1].methods["callers1"] = MethodRun([])
    paired = summarize(rows)["paired"]
    assert paired["callers1"]["cases"] == 1
    assert paired["callers1"]["callers1"]["p@1"] == 1.0
    assert paired["callers1"]["stage"]["p@1"] == 0.0  # x.py ranked first on that case
    assert paired["callers1"]["stage"]["f1"] == 0.6667
    assert paired["imports"]["cases"] == 3  # imports answers every case
    # matched size: the stage cut to callers1's one file (x.py) against callers1's y.py
    c1 = paired["callers1"]
    assert c1["stage"]["p@n"] == 0.0 and c1["callers1"]["p@n"] == 1.0
    diff = paired["callers1"]["diff"]["p@1"]
    assert (diff["n"], diff["mean"], diff["verdict"]) == (1, -1.0, "behind")
    assert paired["imports"]["diff"]["r@3"]["verdict"] == "tie"  # same files, other order
    unpaired = summarize(rows)["methods"]["callers1"]
    assert unpaired["precision"] == 1.0 and unpaired["answered"] == 0.5  # 1 of its 2 cases


def test_saved_runs_are_pooled(tmp_path, capsys):
    import json
    from dataclasses import asdict

    from impactlens.bench.history import main

    paths = []
    for name, rows in (("a", [_result(["y.py"], ["y.py"])]),
                       ("b", [_result(["x.py", "y.py"], ["y.py"]), _result(["x.py"], ["z.py"])])):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps({"repo": name, "info": {"candidates": 4},
                                         "cases": [asdict(r) for r in rows]}))
    assert main(["--from-json", *map(str, paths), "--json"]) == 0
    pooled = json.loads(capsys.readouterr().out)
    stage = pooled["methods"]["stage"]
    assert pooled["cases"] == 3 and stage["p@1"] == round(1 / 3, 4)
    assert stage["ci"]["p@1"][0] == 0.0 and stage["ci"]["p@1"][1] == 1.0  # 1 of 3, resampled
    assert main(["--from-json", *map(str, paths), "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("**pooled: a, b** — 3 cases from 8 candidate")
    assert main(["--from-json", str(paths[0])]) == 0  # the terminal table names the verdicts
    assert "paired with imports (1 cases, 95 % bootstrap): ahead 0, tie" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text("{}")
    assert main(["--from-json", str(tmp_path / "bad.json")]) == 2
    assert "not a saved run" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # neither a repository nor saved runs
        main([])


def test_bad_input_is_one_line_and_exit_2_before_any_case(make_repo, tmp_path, capsys):
    import json
    import subprocess

    from impactlens.bench.history import main

    repo = make_repo({"pkg/a.py": A0, "pkg/b.py": B0}, date=day(0))
    empty = tmp_path / "empty"
    empty.mkdir()
    subprocess.run(["git", "init", "-q", str(empty)], check=True)
    (tmp_path / "info.json").write_text(json.dumps({"repo": "x", "info": [], "cases": []}))
    for argv, says in (
        ([str(tmp_path / "missing")], "no such directory"),
        ([str(tmp_path)], "not a git work tree"),
        ([str(empty)], "has no commits"),
        ([str(repo), "--out", str(tmp_path / "no" / "x.json")], "no such directory"),
        ([str(repo), "--out", str(tmp_path)], "a directory"),
        (["--from-json", str(tmp_path / "none.json")], "cannot read"),
        (["--from-json", str(tmp_path / "info.json")], "not a saved run"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, (argv, err)
    for argv in (["--limit", "0"], ["--cap", "1"], ["--test-timeout", "0"], ["--limit", "x"],
                 ["--test-timeout", "nan"], ["--test-timeout", "inf"]):
        with pytest.raises(SystemExit) as exc:
            main([str(repo), *argv])
        assert exc.value.code == 2 and "argument " + argv[0] in capsys.readouterr().err


def test_end_to_end_with_regression_measure(make_repo, git_commit, tmp_path, capsys):
    import json

    from impactlens.bench.history import main

    root = _repo(make_repo, git_commit)
    out = tmp_path / "out.json"
    rc = main([str(root), "--json", "--run-tests", "--test-timeout", "120",
               "--cache", str(tmp_path / "cache"), "--out", str(out)])
    assert rc == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload == json.loads(out.read_text())
    assert payload["info"].get("failed_cases") is None
    [case] = payload["cases"]
    assert case["seed"] == "pkg.a.f" and case["gold_files"] == ["pkg/bb.py"]
    assert case["gold_symbols"] == ["pkg.bb.g"]
    # the seed alone (f gains a required parameter) breaks the test that calls f(1)
    assert case["breaking"] == ["tests/test_a.py::test_f"]
    stage = case["methods"]["stage"]
    assert "pkg/bb.py" in stage["files"]  # the caller's file, reached structurally
    assert "tests/test_a.py::test_f" in stage["tests"]
    assert case["methods"]["-testmap"]["tests"] == []
    # test_h imports f's module (static IMPORTS) but the recorded run shows it never runs f
    assert "tests/test_h.py::test_h" in case["methods"]["-recording"]["tests"]
    assert "tests/test_h.py::test_h" not in stage["tests"]
    s = payload["summary"]["methods"]["stage"]
    assert s["breaking_caught"] == 1.0 and s["r@1"] == 1.0
    assert set(payload["summary"]["ablation"]) == {"walk", "cochange", "testmap", "lexical",
                                                    "retired", "named", "siblings",
                                                    "namesakes"}
    assert list((tmp_path / "cache").rglob("*.json"))  # outcomes cached per (commit, seed)
    assert root.joinpath("pkg/a.py").read_text().count("def f(x, k)") == 1  # repo untouched
    from impactlens.index import git as gitcmd

    assert gitcmd.run(root, "worktree", "list").count("\n") == 1  # temporary worktree gone


def test_a_suite_that_cannot_start_ran_nothing_and_every_test_errs(tmp_path):
    from impactlens.bench.history.regression import run_suite, write_plugin

    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    write_plugin(plugin_dir)
    wt = tmp_path / "wt"
    (wt / "tests").mkdir(parents=True)
    (wt / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    assert run_suite(wt, 120, plugin_dir) == {"tests/test_a.py::test_a": "passed"}
    # the seed broke the package the conftest (or a plugin) imports: nothing runs at all
    (wt / "tests" / "conftest.py").write_text("import no_such_module_here\n")
    assert run_suite(wt, 120, plugin_dir) == {}
    assert run_suite(wt, 0.001, plugin_dir) is None  # a timeout says nothing


def test_suite_ids_are_the_repositorys_when_pytest_roots_in_the_tests_directory(tmp_path):
    from impactlens.bench.history.regression import run_suite, write_plugin

    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    write_plugin(plugin_dir)
    wt = tmp_path / "wt"
    (wt / "tests").mkdir(parents=True)
    (wt / "tests" / "pytest.ini").write_text("[pytest]\n")  # `pytest tests` roots in tests/
    (wt / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    assert run_suite(wt, 120, plugin_dir) == {"tests/test_a.py::test_a": "passed"}


def test_a_timed_out_suite_run_is_not_cached(tmp_path):
    from impactlens.bench.history.regression import cached_suite, write_plugin

    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    write_plugin(plugin_dir)
    wt, cache = tmp_path / "wt", tmp_path / "cache"
    (wt / "tests").mkdir(parents=True)
    (wt / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    assert cached_suite(cache, "abc", "parent", wt, 0.001, plugin_dir) is None
    assert not cache.exists()  # a longer --test-timeout gets its chance on the next run
    want = {"tests/test_a.py::test_a": "passed"}
    assert cached_suite(cache, "abc", "parent", wt, 120, plugin_dir) == want
    assert cached_suite(cache, "abc", "parent", wt, 0.001, plugin_dir) == want  # cached


def test_a_breaking_test_must_pass_and_fail_again_every_recheck():
    from types import SimpleNamespace

    from impactlens.bench.history.regression import confirmed_breaking

    # `real` breaks every time; `flaky` fails seeded once, then passes its second recheck;
    # `noisy` failed at the parent's recheck; `fine` never broke
    script = {
        "s-recheck": {"real": "passed", "flaky": "passed", "noisy": "failed"},
        "s-recheck-seeded": {"real": "failed", "flaky": "failed", "noisy": "failed"},
        "s-recheck2": {"real": "passed", "flaky": "passed"},
        "s-recheck-seeded2": {"real": "error", "flaky": "passed"},
    }
    asked: list[tuple[str, list[str]]] = []

    def run(key, ids=(), seed=None):
        asked.append((key, list(ids)))
        return {t: o for t, o in script[key].items() if t in ids}

    before = {t: "passed" for t in ("real", "flaky", "noisy", "fine")}
    after = {"real": "failed", "flaky": "failed", "noisy": "error", "fine": "passed"}
    assert confirmed_breaking(before, after, SimpleNamespace(key="s"), run) == ["real"]
    assert asked[2] == ("s-recheck2", ["flaky", "real"])  # only what survived the first
