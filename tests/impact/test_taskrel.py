"""Task-text relevance (impact/taskrel.py) and the order it gives within a bucket."""

from __future__ import annotations

from impact.graphs import Graph, module_of
from impactlens.impact.pipeline import run_pipeline
from impactlens.impact.taskrel import relevance
from impactlens.model import FileChange
from impactlens.settings import DEFAULT

BEFORE = "def parse(argv):\n    return list(argv)\n"
AFTER = "def parse(argv):\n    return [a for a in argv if a]\n"


def graph() -> Graph:
    g = Graph()
    g.fn("app.cli.parse", "def parse(argv):")
    g.cls("app.exceptions.UsageError", ids=("usage", "error", "exception"))
    g.cls("app.exceptions.NoSuchCommand", ids=("no", "such", "command", "exception"))
    g.fn("app.termui.prompt", "def prompt(text, default=None, show_default=True):")
    g.fn("app.termui.confirm", "def confirm(text):")
    g.fn("app.formatting.wrap_text", "def wrap_text(text, width):")
    return g


def test_relevance_is_bm25_normalised_by_the_best_candidate():
    files = ["app/exceptions.py", "app/termui.py", "app/formatting.py"]
    got = relevance(graph(), "Add NoSuchCommand exception with suggestions", files)
    assert got["app/exceptions.py"] == 1.0
    assert set(got) == {"app/exceptions.py"}  # nothing else shares a term
    got = relevance(graph(), "Support show_default string in prompts", files)
    assert max(got, key=got.get) == "app/termui.py" and got["app/termui.py"] == 1.0
    assert all(0 < v <= 1 for v in got.values())


def test_no_task_no_terms_or_one_file_give_nothing():
    files = ["app/exceptions.py", "app/termui.py"]
    assert relevance(graph(), "", files) == {}
    assert relevance(graph(), "the of and", files) == {}  # stop words only
    assert relevance(graph(), "unrelated words entirely", files) == {}
    assert relevance(graph(), "exception", ["app/exceptions.py"]) == {}


def run(task: str, weight: float = DEFAULT.task_relevance_weight, channels=None,
        after: str = AFTER, edit_weight: float = DEFAULT.edit_relevance_weight,
        cut: float = 0.0, keep: int = DEFAULT.may_keep_files):
    # the set cut (triage.cut_weak) off unless asked: these tests are about the order
    settings = DEFAULT.replace(task_relevance_weight=weight, edit_relevance_weight=edit_weight,
                               channels=channels or DEFAULT.channels, may_relative_min=cut,
                               may_keep_files=keep)
    partners = [("app/formatting.py", 0.6), ("app/termui.py", 0.6), ("app/exceptions.py", 0.5)]
    return run_pipeline(graph(), [FileChange("app/cli.py", BEFORE, after)], module_of=module_of,
                        co_change={"app/cli.py": partners}, task=task, settings=settings)


def may_files(res) -> list[str]:
    return [e.file for e in res.triage.may_impact]


def test_task_orders_entries_within_the_bucket_conf_unchanged():
    plain = run("")
    assert may_files(plain) == ["app/formatting.py", "app/termui.py", "app/exceptions.py"]
    res = run("Raise NoSuchCommand exception on a misspelled command")
    assert may_files(res) == ["app/exceptions.py", "app/formatting.py", "app/termui.py"]
    by_file = {e.file: e for e in res.triage.may_impact}
    assert by_file["app/exceptions.py"].conf == 0.5  # the reported confidence is §3.7's
    assert by_file["app/exceptions.py"].relevance == 1.0
    out = res.impact_json()["triage"]["may_impact"]
    assert out[0]["task_relevance"] == 1.0 and "task_relevance" not in out[1]
    # buckets never change: the same entries, only the order
    assert sorted(may_files(res)) == sorted(may_files(plain))


def test_the_set_cut_moves_what_the_order_leaves_far_behind_to_low_risk():
    task = "Raise NoSuchCommand exception on a misspelled command"
    assert may_files(run("", cut=0.5)) == may_files(run(""))  # nothing far behind
    res = run(task, cut=0.5)
    # exceptions.py: 0.5 + the task's 1.0; termui.py 0.6 < 0.5 · 1.5, but the second file
    # of the list is spared (may_keep_files = 2): formatting.py stays, termui.py falls
    assert may_files(res) == ["app/exceptions.py", "app/formatting.py"]
    fell = [e for e in res.triage.low_risk if e.file == "app/termui.py"]
    assert fell and "weaker than 0.5 of the strongest candidate's evidence" in fell[0].reason
    assert fell[0].conf == 0.6  # the confidence is still §3.7's
    assert res.triage.low_risk[0].file == "app/termui.py"  # ahead of the low-risk proper
    assert len(may_files(run(task, cut=0.5, keep=3))) == 3


def test_weight_zero_and_the_lexical_ablation_switch_it_off():
    task = "Raise NoSuchCommand exception on a misspelled command"
    expected = ["app/formatting.py", "app/termui.py", "app/exceptions.py"]
    assert may_files(run(task, weight=0.0)) == expected
    no_lex = DEFAULT.channels - {"lexical"}
    assert may_files(run(task, channels=no_lex)) == expected


# the edit writes a call to a termui helper: the file defining it is what the edit is about
PROMPTING = "def parse(argv):\n    if not argv:\n        argv = [prompt('args?')]\n" \
    "    return list(argv)\n"


def test_the_edit_text_orders_entries_without_a_task():
    res = run("", after=PROMPTING)
    assert may_files(res) == ["app/termui.py", "app/formatting.py", "app/exceptions.py"]
    by_file = {e.file: e for e in res.triage.may_impact}
    assert by_file["app/termui.py"].edit_relevance == 1.0
    assert by_file["app/termui.py"].conf == 0.6 and by_file["app/termui.py"].relevance == 0.0
    out = res.impact_json()["triage"]["may_impact"]
    assert out[0]["edit_relevance"] == 1.0 and "edit_relevance" not in out[1]


def test_the_task_and_the_edit_add_up():
    # the task names exceptions.py, the edit termui.py: the edit weighs twice the task
    res = run("Raise NoSuchCommand exception on a misspelled command", after=PROMPTING)
    assert may_files(res)[:2] == ["app/termui.py", "app/exceptions.py"]
    res = run("Raise NoSuchCommand exception on a misspelled command", after=PROMPTING,
              edit_weight=0.5)
    assert may_files(res)[:2] == ["app/exceptions.py", "app/termui.py"]


def test_edit_weight_zero_and_the_lexical_ablation_switch_the_edit_text_off():
    expected = ["app/formatting.py", "app/termui.py", "app/exceptions.py"]
    assert may_files(run("", after=PROMPTING, edit_weight=0.0)) == expected
    no_lex = DEFAULT.channels - {"lexical"}
    assert may_files(run("", after=PROMPTING, channels=no_lex)) == expected
