"""End to end: real git repositories, the real index, the real pipeline and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from project_edits import analyze, edit, entities
from rich.console import Console

from impactlens.answer import build_answer
from impactlens.answer.text import print_terminal
from impactlens.api import Project
from impactlens.cli import main

CORE = '''def compute(a, b):
    total = a + b
    note = "sum"
    return total


def helper(x):
    return x * 2


class Counter:
    def __init__(self):
        self.count = 0

    def bump(self, n):
        step = n
        self.count += step
'''

USE = '''from pkg.core import Counter, compute, helper


def run(x):
    return compute(x, 1)


def double(x):
    return helper(x)


def tally(values):
    counter = Counter()
    for v in values:
        counter.bump(v)
    return counter.count
'''

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/use.py": USE,
    "tests/test_core.py": (
        "from pkg.core import Counter, compute\n\n\n"
        "def test_compute():\n    assert compute(1, 2) == 3\n\n\n"
        "def test_bump():\n    c = Counter()\n    c.bump(2)\n    assert c.count == 2\n"
    ),
    "tests/test_use.py": (
        "from pkg.use import double, run, tally\n\n\n"
        "def test_run():\n    assert run(1) == 2\n\n\n"
        "def test_double():\n    assert double(2) == 4\n\n\n"
        "def test_tally():\n    assert tally([1, 2]) == 3\n"
    ),
}


@pytest.fixture
def repo(indexed) -> Path:
    return indexed(FILES).root


# ------------------------------------------------------------------ buckets
def test_signature_break_lands_callers_in_must_inspect(repo):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["method-signature"]
    assert "pkg.use.run" in entities(result.triage.must_inspect)
    assert "tests/test_core.py::test_compute" in result.validate


def test_signature_with_default_lands_callers_in_may_impact(repo):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c=0):")
    result = analyze(repo)
    assert "pkg.use.run" in entities(result.triage.may_impact)
    assert "pkg.use.run" not in entities(result.triage.must_inspect)


def test_local_only_body_change_reaches_no_caller_but_keeps_direct_tests(repo):
    edit(repo, "pkg/core.py", '    note = "sum"\n', '    note = "addition"\n')
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["method-body"]
    reached = entities(result.triage.must_inspect) | entities(result.triage.may_impact)
    assert "pkg.use.run" not in reached
    assert "tests/test_core.py::test_compute" in result.validate


def test_body_change_writing_self_attr_reaches_callers(repo):
    edit(repo, "pkg/core.py", "        self.count += step\n", "        self.count += step * 2\n")
    result = analyze(repo)
    reached = entities(result.triage.must_inspect) | entities(result.triage.may_impact)
    assert "pkg.use.tally" in reached
    assert "tests/test_core.py::test_bump" in result.validate


DELETE_HELPER = (
    "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
    "@@ -4,10 +4,6 @@ def compute(a, b):\n"
    "     return total\n \n \n-def helper(x):\n-    return x * 2\n-\n-\n class Counter:\n"
    "     def __init__(self):\n         self.count = 0\n"
)


def test_deleted_function_lands_importers_in_must_inspect_from_a_diff(repo):
    result = analyze(repo, diff=DELETE_HELPER)
    assert [c.change_type.value for c in result.changes] == ["delete"]
    must = entities(result.triage.must_inspect)
    assert "pkg.use" in must or "pkg.use.double" in must


def test_deleted_function_in_the_working_tree(repo):
    edit(repo, "pkg/core.py", "def helper(x):\n    return x * 2\n\n\n", "")
    result = analyze(repo)
    assert [c.change_type.value for c in result.changes] == ["delete"]
    must = entities(result.triage.must_inspect)
    assert "pkg.use" in must or "pkg.use.double" in must


def test_rev_mode_reads_the_commit(repo, git_commit):
    sha = git_commit(repo, {"pkg/core.py": CORE.replace("def compute(a, b):",
                                                        "def compute(a, b, c):")},
                     "compute takes c")
    result = analyze(repo, rev=sha)
    assert [c.entity for c in result.changes] == ["pkg.core.compute"]


def test_clean_tree_analyzes_to_nothing(repo):
    result = analyze(repo)
    assert result.changes == () and result.validate == ()


# ----------------------------------------------------------------------- CLI
def invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_cli_json_contract_and_outputs(repo, tmp_path):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    out = tmp_path / "out"
    r = invoke("analyze", "--repo", str(repo), "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert {"seed", "obligations", "dag", "triage", "batches", "co_change",
            "unanalyzable"} <= set(doc)
    assert doc["seed"]["entity"] == "pkg.core.compute"
    assert {"change", "validate"} <= set(doc["obligations"])
    assert {"nodes", "edges"} <= set(doc["dag"])
    assert any(e["entity"] == "pkg.use.run" for e in doc["triage"]["must_inspect"])
    assert json.loads((out / "impact.json").read_text()) == doc
    assert json.loads((out / "changes.json").read_text())["changes"][0]["change_type"] == \
        "method-signature"
    assert "tests/test_core.py::test_compute" in (out / "test_map.txt").read_text()


def test_cli_terminal_and_markdown(repo):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    r = invoke("analyze", "--repo", str(repo))
    assert r.exit_code == 0, r.output
    assert "MUST-INSPECT" in r.stdout and "pkg.use.run" in r.stdout
    assert "Tests to run" in r.stdout
    assert (repo / ".impactlens" / "out" / "impact.json").is_file()
    md = invoke("analyze", "--repo", str(repo), "--format", "markdown")
    assert md.exit_code == 0
    assert md.stdout.startswith("### impactlens") and "#### MUST-INSPECT" in md.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--diff", "missing.diff"], "diff file not found"),
        (["--rev", "no-such-rev"], "unknown revision"),
        (["--before", "x.py"], "--before and --after go together"),
        (["--path", "pkg/core.py"], "--path names the file"),
        (["--as-of", "someday"], "--as-of"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(repo, args, message):
    r = CliRunner().invoke(main, ["analyze", "--repo", str(repo), *args])
    assert r.exit_code == 2, r.output
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_cli_diff_that_does_not_apply_exits_2(repo):
    bad = DELETE_HELPER.replace("-def helper(x):", "-def helper(y):")
    r = CliRunner().invoke(main, ["analyze", "--repo", str(repo), "--diff", "-"], input=bad)
    assert r.exit_code == 2
    assert "pkg/core.py: the diff does not apply" in r.stderr


def _git_diff(root: Path) -> str:
    import subprocess

    return subprocess.run(["git", "diff"], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def test_git_diff_piped_of_the_working_tree_edit(repo):
    """`git diff | impactlens analyze --diff -` on edits already made: that edit."""
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    here = invoke("analyze", "--repo", str(repo), "--json")
    piped = invoke("analyze", "--repo", str(repo), "--json", "--diff", "-",
                   input=_git_diff(repo))
    assert piped.exit_code == 0, piped.output
    assert "the diff is already in the working tree; analysing that edit" in piped.stderr
    same = ("seed", "triage", "batches", "obligations")
    got, want = json.loads(piped.stdout), json.loads(here.stdout)
    assert {k: got[k] for k in same} == {k: want[k] for k in same}
    tests = invoke("tests", "--repo", str(repo), "--diff", "-", input=_git_diff(repo))
    assert tests.stdout == invoke("tests", "--repo", str(repo)).stdout
    assert "tests/test_core.py::test_compute" in tests.stdout.split()
    with Project(repo) as p:  # the API reads it the same way
        api = p.analyze(diff=_git_diff(repo))
    assert api.validate == analyze(repo).validate
    assert [c.entity for c in api.changes] == ["pkg.core.compute"]


def test_cli_diff_neither_applying_nor_applied_exits_2(repo):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    diff = _git_diff(repo)
    edit(repo, "pkg/core.py", "def compute(a, b, c):", "def compute(x):")
    r = CliRunner().invoke(main, ["analyze", "--repo", str(repo), "--diff", "-"], input=diff)
    assert r.exit_code == 2
    assert "pkg/core.py: the diff does not apply" in r.stderr
    assert "not already in the working tree" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_diff_outside_repo_exits_2(repo):
    evil = "--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    r = CliRunner().invoke(main, ["analyze", "--repo", str(repo), "--diff", "-"], input=evil)
    assert r.exit_code == 2
    assert "outside the repository" in r.stderr


def test_tests_command_lists_and_runs(repo):
    edit(repo, "pkg/core.py", "        self.count += step\n", "        self.count += step * 2\n")
    r = invoke("tests", "--repo", str(repo))
    assert r.exit_code == 0
    ids = r.stdout.split()
    assert "tests/test_core.py::test_bump" in ids
    assert all("::" in i for i in ids)
    # --run executes exactly these with pytest, in the repository: the doubled step fails
    run = CliRunner().invoke(main, ["tests", "--repo", str(repo), "--run"])
    assert run.exit_code == 1  # pytest's "tests failed"


def test_tests_run_with_nothing_selected(repo):
    r = CliRunner().invoke(main, ["tests", "--repo", str(repo), "--run"])
    assert r.exit_code == 0
    assert "no tests selected" in r.stderr


def test_tests_run_passing(repo):
    edit(repo, "pkg/core.py", '    note = "sum"\n', '    note = "addition"\n')
    r = CliRunner().invoke(main, ["tests", "--repo", str(repo), "--run"])
    assert r.exit_code == 0, r.output


# --------------------------------------------------------------- determinism
def test_two_runs_give_byte_identical_impact_json(repo, tmp_path):
    edit(repo, "pkg/core.py", "def compute(a, b):", "def compute(a, b, c):")
    edit(repo, "pkg/core.py", "        self.count += step\n", "        self.count += step * 2\n")
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}"
        r = invoke("analyze", "--repo", str(repo), "--out", str(out), "--as-of", "2030-01-01")
        assert r.exit_code == 0
        outs.append(out)
    for name in ("impact.json", "changes.json", "test_map.txt"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


# ---------------------------------------------------------------------- demo
def test_demo_runs_on_the_bundled_example():
    r = CliRunner().invoke(main, ["demo"])
    assert r.exit_code == 0, r.output
    assert "MUST-INSPECT" in r.stdout and "Tests to run" in r.stdout
    md = CliRunner().invoke(main, ["demo", "--format", "json"])
    assert md.exit_code == 0
    assert json.loads(md.stdout)["triage"]["must_inspect"]


def test_demo_says_its_copy_was_removed_and_keeps_it_in_a_directory(tmp_path):
    import re

    r = CliRunner().invoke(main, ["demo"])
    assert r.exit_code == 0, r.output
    assert "the demo repository was removed; `impactlens demo --keep DIR` keeps it" in r.stderr
    assert not re.search(r"/\S*impactlens-demo", r.output)  # no path that no longer exists
    kept = tmp_path / "shop"
    k = CliRunner().invoke(main, ["demo", "--keep", str(kept)])
    assert k.exit_code == 0, k.output
    assert f"demo repository kept at {kept}" in k.stderr
    assert (kept / ".git").is_dir() and (kept / ".impactlens/out/impact.json").is_file()
    assert f"wrote {kept}/.impactlens/out/changes.json" in k.stdout
    again = CliRunner().invoke(main, ["demo", "--keep", str(kept)])
    assert again.exit_code == 2 and "--keep needs a new or empty directory" in again.stderr


@pytest.mark.parametrize("args", [["analyze", "--repo", "{d}"], ["index", "{d}"],
                                  ["impact", "X", "--repo", "{d}"], ["tests", "--repo", "{d}"]])
def test_outside_a_project_nothing_is_written(tmp_path, args):
    """No .git and no Python file: refused before an index is made there."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("hello\n")
    r = CliRunner().invoke(main, [a.format(d=empty) for a in args])
    assert r.exit_code == 2
    assert r.stderr.strip() == (f"impactlens: error: {empty} is not a git repository and holds "
                                "no Python files; run impactlens in a project")
    assert sorted(p.name for p in empty.iterdir()) == ["notes.txt"]


def test_the_api_refuses_to_index_outside_a_project(tmp_path):
    from impactlens.errors import NotARepositoryError

    with pytest.raises(NotARepositoryError, match="holds no Python files"):
        Project(tmp_path).index()
    assert not (tmp_path / ".impactlens").exists()


def test_a_plain_directory_with_python_files_is_a_project(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    assert invoke("index", str(tmp_path)).exit_code == 0
    assert (tmp_path / ".impactlens").is_dir()


def test_analyze_before_after_texts(repo):
    with Project(repo) as p:
        result = p.analyze_before_after(
            "pkg/core.py", CORE, CORE.replace("def compute(a, b):", "def compute(a, b, c):"))
    assert "pkg.use.run" in entities(result.triage.must_inspect)
    assert (repo / "pkg/core.py").read_text() == CORE  # the disk is untouched


DYNAMIC = {
    "dyn/__init__.py": "",
    "dyn/ops.py": "def op_a(x):\n    return x\n\n\ndef op_b(x):\n    return -x\n\n\n"
                  "OPS = {'a': op_a, 'b': op_b}\n",
    "dyn/run.py": "import importlib\n\nfrom dyn.ops import OPS\n\n\n"
                  "def run(name, x):\n    return OPS[name](x)\n\n\n"
                  "def by_attr(obj, name):\n    return getattr(obj, 'op_' + name)()\n\n\n"
                  "def load(name):\n    return importlib.import_module('dyn.' + name)\n\n\n"
                  "def duck(thing):\n    return thing.op_a(1) + thing.other()\n",
}


@pytest.mark.parametrize("old,new", [
    ("def op_a(x):\n    return x\n", "def op_a(x, y):\n    return x\n"),
    ("def op_b(x):\n    return -x\n", "def op_b(x):\n    return x\n"),
])
def test_prefiltered_unresolved_sites_give_the_same_result(make_repo, old, new):
    from impactlens.change.sites import relevant_unresolved
    from impactlens.impact.pipeline import run_pipeline
    from impactlens.run import before_graph

    root = make_repo(DYNAMIC)
    edit(root, "dyn/ops.py", old, new)
    with Project(root) as p:
        p.index()
        change = p.proposed_change(as_of=0)
        graph = before_graph(p.workspace(), change)
        full = run_pipeline(graph, change.files, module_of=p.module_of,
                            unresolved=p.store.unresolved_sites(), settings=p.settings)
        some = run_pipeline(graph, change.files, module_of=p.module_of,
                            unresolved=relevant_unresolved(graph, change.files, p.module_of),
                            settings=p.settings)
        assert (len(relevant_unresolved(graph, change.files, p.module_of))
                <= len(p.store.unresolved_sites()))
    assert full.impact_json() == some.impact_json()


def _two_equal_partners(make_repo, git_commit) -> tuple[Project, str]:
    """An indexed repo where alpha.py and beta.py co-changed with core.py equally often;
    (the project, core.py's text)."""
    root = make_repo({
        "pkg/__init__.py": "",
        "pkg/core.py": "def run(x):\n    return x\n",
        "pkg/alpha.py": "def render_table(rows):\n    return rows\n",
        "pkg/beta.py": "class MissingCommandError(Exception):\n    pass\n",
    })
    for i in range(2):
        git_commit(root, {"pkg/core.py": f"def run(x):\n    return x + {i}\n",
                          "pkg/alpha.py": f"def render_table(rows):\n    return rows[{i}:]\n",
                          "pkg/beta.py": f"class MissingCommandError(Exception):\n    n = {i}\n"},
                   f"change {i}")
    text = (root / "pkg/core.py").read_text(encoding="utf-8")
    p = Project(root)
    p.index()
    return p, text


def test_task_text_orders_equal_cochange_partners(make_repo, git_commit):
    """Two files co-changed with core.py equally often; the task names what one defines."""
    p, text = _two_equal_partners(make_repo, git_commit)

    def order(task: str) -> list[str]:
        res = p.analyze_before_after("pkg/core.py", text, text.replace("x + 1", "x + 2"),
                                     task=task)
        return [e.file for e in res.triage.may_impact if e.file in ("pkg/alpha.py",
                                                                     "pkg/beta.py")]

    assert order("") == ["pkg/alpha.py", "pkg/beta.py"]  # a tie: by name
    assert order("raise a missing command error") == ["pkg/beta.py", "pkg/alpha.py"]
    assert order("render the table wider") == ["pkg/alpha.py", "pkg/beta.py"]


def test_the_edit_text_orders_equal_cochange_partners_without_a_task(make_repo, git_commit):
    """Same history as above; no task text: the lines the edit writes name what beta.py
    defines, so beta.py rises above the alphabetical tie, and impact.json says why."""
    p, text = _two_equal_partners(make_repo, git_commit)
    root = p.root
    raising = text.replace("    return x + 1\n",
                           "    if x is None:\n        raise MissingCommandError(x)\n"
                           "    return x + 1\n")
    res = p.analyze_before_after("pkg/core.py", text, raising)
    files = [e.file for e in res.triage.may_impact if e.file in ("pkg/alpha.py", "pkg/beta.py")]
    assert files == ["pkg/beta.py", "pkg/alpha.py"]
    beta = next(e for e in res.impact_json()["triage"]["may_impact"] if e["file"] == "pkg/beta.py")
    assert beta["edit_relevance"] == 1.0 and "task_relevance" not in beta
    console = Console(record=True, width=200)
    print_terminal(build_answer(res), console, show_all=True)
    shown = console.export_text()
    assert "pkg/beta.py · conf 0.76 · edit names it 1.00" in shown
    assert "pkg/alpha.py · conf 0.76\n" in shown
    off = Project(root, settings=p.settings.replace(edit_relevance_weight=0.0))
    res = off.analyze_before_after("pkg/core.py", text, raising)
    assert [e.file for e in res.triage.may_impact
            if e.file in ("pkg/alpha.py", "pkg/beta.py")] == ["pkg/alpha.py", "pkg/beta.py"]


def test_a_call_the_callee_does_not_accept_yet_is_a_forward_obligation(indexed):
    p = indexed({
        "pkg/__init__.py": "",
        "pkg/util.py": "def fmt(value):\n    return str(value)\n\n\ndef pad(s, n=2):\n"
                       "    return s.rjust(n)\n",
        "pkg/core.py": "from pkg.util import fmt, pad\n\n\ndef run(x):\n    return fmt(x)\n\n\n"
                       "def local(a):\n    return a\n",
    })
    before = (p.root / "pkg/core.py").read_text(encoding="utf-8")

    def must(new_body: str) -> list[tuple[str, str]]:
        after = before.replace("    return fmt(x)\n", new_body)
        res = p.analyze_before_after("pkg/core.py", before, after)
        return [(e.entity, e.reason) for e in res.triage.must_inspect]

    got = must("    return pad(fmt(x, width=3), n=4)\n")
    assert [e for e, _ in got] == ["pkg.util.fmt"]
    assert "pkg/core.py:5" in got[0][1] and "width" in got[0][1]
    # calls that bind oblige nothing
    assert must("    return pad(fmt(x), 4) + local(1)\n") == []
    # nor does one into a file the edit changes (it may change the callee too)
    assert must("    return local(fmt(x), 2)\n") == []


def test_removing_the_last_call_of_a_private_helper_reports_it_unused(indexed):
    p = indexed({
        "pkg/__init__.py": "",
        "pkg/util.py": "def _legacy(x):\n    return x\n\n\ndef _shared(x):\n    return x\n\n\n"
                       "def public(x):\n    return x\n",
        "pkg/core.py": "from pkg.util import _legacy, _shared, public\n\n\ndef run(x):\n"
                       "    return _legacy(x) + _shared(x) + public(x)\n",
        "pkg/other.py": "from pkg.util import _shared\n\n\ndef go(x):\n    return _shared(x)\n",
    })
    before = (p.root / "pkg/core.py").read_text(encoding="utf-8")
    after = before.replace("_legacy(x) + _shared(x) + public(x)", "x")
    res = p.analyze_before_after("pkg/core.py", before, after)
    orphans = [e for e in res.triage.may_impact if "now unused" in e.reason]
    # _shared is still called elsewhere; public may be the API: only _legacy is reported
    assert [e.entity for e in orphans] == ["pkg.util._legacy"]
    assert "pkg/core.py:5" in orphans[0].reason
    # rewriting the line but still calling it is no removal
    kept = before.replace("_legacy(x) + _shared(x)", "_legacy(x + 1) + _shared(x)")
    res = p.analyze_before_after("pkg/core.py", before, kept)
    assert not [e for e in res.triage.may_impact if "now unused" in e.reason]


def test_unused_helper_found_when_the_index_holds_the_edited_tree(indexed):
    """Working-tree mode: the index is refreshed to the after state before the analysis."""
    root = indexed({
        "pkg/__init__.py": "",
        "pkg/util.py": "def _legacy(x):\n    return x\n\n\ndef _kept(x):\n    return x\n",
        "pkg/core.py": "from pkg.util import _kept, _legacy\n\n\ndef run(x):\n"
                       "    y = _legacy(x)\n    return _kept(y)\n",
    }).root
    core = root / "pkg/core.py"
    core.write_text(core.read_text(encoding="utf-8").replace("    y = _legacy(x)\n", "    y = x\n")
                    .replace("return _kept(y)", "return _kept(y) + 1"), encoding="utf-8")
    with Project(root) as p:
        res = p.analyze()
    orphans = [e.entity for e in res.triage.may_impact if "now unused" in e.reason]
    assert orphans == ["pkg.util._legacy"]
