"""§3.4 co-change recall over planted git histories (real repositories in tmp_path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from git_dates import day, epoch

from impactlens.change.inputs import cut_time
from impactlens.errors import BadInputError
from impactlens.impact.cochange import co_change, tokenize
from impactlens.index.history import load_history, update_history
from impactlens.index.store import Store
from impactlens.settings import DEFAULT

FAR_FUTURE = epoch(10_000)


def history(root: Path, tmp_path: Path, settings=DEFAULT.replace(cochange_symbol_weight=2.0)):
    store = Store.open(tmp_path / f"{root.name}.db", create=True)
    try:
        update_history(store, root, settings)
        return load_history(store)
    finally:
        store.close()


def partners(commits, f, *, task="", cut=FAR_FUTURE, settings=DEFAULT, exists=None):
    res = co_change(commits, [f], task=task, cut=cut, settings=settings, exists=exists)
    return dict(res.candidates[f])


@pytest.fixture
def planted(make_repo, git_commit):
    """a↔b co-change twice, b↔c once (a partner of a partner), z alone."""
    root = make_repo({"README.md": "planted\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, "parser: quote handling", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "b.py": "B = 2\n"}, "parser: escapes", date=day(2))
    git_commit(root, {"b.py": "B = 3\n", "c.py": "C = 3\n"}, "b and c", date=day(3))
    git_commit(root, {"z.py": "Z = 4\n"}, "z alone", date=day(4))
    return root


def test_partner_scored_and_unrelated_absent(planted, tmp_path):
    commits = history(planted, tmp_path)
    assert partners(commits, "a.py") == {"b.py": 0.8}  # 2 / (2 + κ); z, c absent (0)
    assert partners(commits, "z.py") == {}


def test_partner_of_partner_never_appears(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, "a with b", date=day(1))
    git_commit(root, {"b.py": "B = 2\n", "c.py": "C = 2\n"}, "b with c", date=day(2))
    git_commit(root, {"c.py": "C = 3\n", "d.py": "D = 3\n"}, "c with d", date=day(3))
    commits = history(root, tmp_path)
    assert set(partners(commits, "a.py")) == {"b.py"}  # L = 1: c (via b) and d never
    assert set(partners(commits, "b.py")) == {"a.py", "c.py"}


def test_post_date_commit_is_excluded(planted, git_commit, tmp_path):
    git_commit(planted, {"a.py": "A = 9\n", "late.py": "L = 9\n"}, "late pairing", date=day(20))
    commits = history(planted, tmp_path)
    assert "late.py" in partners(commits, "a.py", cut=FAR_FUTURE)
    for cut in (epoch(20), epoch(19)):  # strictly before: a commit AT the cut is excluded too
        got = partners(commits, "a.py", cut=cut)
        assert "late.py" not in got and "b.py" in got
    # the scores are a function of the pre-cut history only: identical with the late commit gone
    pre = [c for c in commits if c.author_time < epoch(20)]
    assert partners(commits, "a.py", cut=epoch(20)) == partners(pre, "a.py", cut=epoch(20))


def test_nothing_before_the_cut(planted, tmp_path):
    commits = history(planted, tmp_path)
    res = co_change(commits, ["a.py"], cut=epoch(0), settings=DEFAULT)
    assert res.candidates == {"a.py": ()} and res.commits_used == 0


def test_sweeping_commit_excluded_from_pairs(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n"}, date=day(0))
    sweep = {f"gen/m{i}.py": f"M = {i}\n" for i in range(50)}
    sweep.update({"a.py": "A = 1\n", "b.py": "B = 1\n"})  # 52 files > cap 50
    git_commit(root, sweep, "reformat everything", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "c.py": "C = 2\n"}, "a with c", date=day(2))
    commits = history(root, tmp_path)
    res = co_change(commits, ["a.py"], cut=FAR_FUTURE)
    got = dict(res.candidates["a.py"])
    assert res.sweeping == 1
    assert "gen/m0.py" not in got and set(got) == {"c.py"}  # b only via the root commit
    wide = partners(commits, "a.py", settings=DEFAULT.replace(history_max_files_per_commit=60))
    assert "gen/m0.py" in wide


def test_root_commit_forms_no_pairs(make_repo, git_commit, tmp_path):
    """The initial import lists every file as added: it is kept (with parents = 0) but
    never pairs its files; the same files changed together later do pair."""
    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n", "c.py": "C = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "c.py": "C = 1\n"}, "a with c", date=day(1))
    commits = history(root, tmp_path)
    assert [c.parents for c in commits] == [0, 1]
    res = co_change(commits, ["a.py"], cut=FAR_FUTURE)
    assert dict(res.candidates["a.py"]) == {"c.py": 0.6666}
    assert res.commits_used == 1 and "1 root commit(s) excluded" in res.note


def test_bm25_weights_relevant_commits(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "quote.py": "Q = 1\n"},
               "Fix quoting of shell arguments in the parser", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "log.py": "L = 1\n"},
               "Update logging configuration docs", date=day(2))
    for i in range(3, 8):  # background corpus for the IDF statistics
        git_commit(root, {f"o{i}.py": f"O = {i}\n"}, f"unrelated change number {i}", date=day(i))
    commits = history(root, tmp_path)
    plain = partners(commits, "a.py")
    assert plain["quote.py"] == plain["log.py"]  # empty task text: all commits weigh equally
    cued = partners(commits, "a.py", task="shell argument quoting is broken in parser")
    assert cued["quote.py"] > cued["log.py"]
    other = partners(commits, "a.py", task="logging docs configuration")
    assert other["log.py"] > other["quote.py"]
    # β floor: an unmatched commit still counts (a quarter of the best match)
    assert cued["log.py"] > 0


def test_cap_of_forty_candidates(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 0\n"}, date=day(0))
    many = {f"p{i:02d}.py": f"P = {i}\n" for i in range(45)}
    many["a.py"] = "A = 1\n"
    git_commit(root, many, "wide but not sweeping (46 files)", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "p44.py": "P = 99\n"}, "a with p44", date=day(2))
    commits = history(root, tmp_path)
    got = co_change(commits, ["a.py"], cut=FAR_FUTURE).candidates["a.py"]
    assert len(got) == DEFAULT.max_cochange_candidates == 40
    assert got[0][0] == "p44.py"  # recurring partner first
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    names = [g for g, _ in got[1:]]
    assert names == sorted(names)  # ties broken by path


def test_scores_truncated_to_four_decimals(make_repo, git_commit, tmp_path):
    root = make_repo({"x.py": "X = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, "one", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "c.py": "C = 2\n", "d.py": "D = 2\n"}, "two",
               date=day(2))
    commits = history(root, tmp_path)
    got = partners(commits, "a.py")
    # b: 1 / (1 + κ) = 0.66666… truncated, not rounded; c, d: churn(3 files) = log2 3 / 2
    assert got == {"b.py": 0.6666, "c.py": 0.5283, "d.py": 0.5283}
    for value in partners(commits, "b.py").values():
        assert value == round(value, 4) and 0 <= value <= 1


def test_renames_followed(make_repo, git_commit, tmp_path):
    root = make_repo({"x.py": "X = 0\n"}, date=day(0))
    body = "".join(f"V{i} = {i}\n" for i in range(30))
    git_commit(root, {"old.py": body, "b.py": "B = 1\n"}, "old with b", date=day(1))
    git_commit(root, {"old.py": None, "new.py": body + "W = 1\n"}, "rename", date=day(2))
    git_commit(root, {"new.py": body + "W = 2\n", "b.py": "B = 2\n"}, "new with b", date=day(3))
    commits = history(root, tmp_path)
    # new.py shares two commits with b (one as old.py): 2 / (2 + κ); without following the
    # rename it would be 1 / (1 + κ)
    assert partners(commits, "new.py")["b.py"] == 0.8
    assert partners(commits, "b.py", cut=epoch(2)) == {"old.py": 0.6666}  # before the rename
    assert "old.py" not in partners(commits, "b.py")  # named as of the cut
    assert "new.py" in partners(commits, "b.py")
    # a past cut on today's tree (`--as-of`): the evidence is the cut's, the name today's
    got = co_change(commits, ["b.py"], cut=epoch(2), renamed_since=commits,
                    exists=lambda p: p != "old.py")
    assert dict(got.candidates["b.py"]) == {"new.py": 0.6666}
    # the rename counts for nothing else: the commits at and after the cut form no pairs
    assert got.commits_used == 1


def test_split_file_history_counts_for_both_heirs(make_repo, git_commit, tmp_path):
    """Moved away, then its path written again (flask's app.py → sansio/app.py + a new
    app.py): the commits before the move are the history of both files."""
    root = make_repo({"x.py": "X = 0\n"}, date=day(0))
    body = "".join(f"V{i} = {i}\n" for i in range(30))
    git_commit(root, {"app.py": body, "b.py": "B = 1\n"}, "app with b", date=day(1))
    git_commit(root, {"app.py": body + "A = 1\n", "b.py": "B = 2\n"}, "again", date=day(2))
    git_commit(root, {"app.py": None, "sansio.py": body + "A = 1\n"}, "move", date=day(3))
    git_commit(root, {"app.py": "from sansio import *\n"}, "split", date=day(4))
    commits = history(root, tmp_path)
    assert partners(commits, "app.py")["b.py"] == 0.8  # 2 / (2 + κ): its pre-move history
    assert partners(commits, "sansio.py")["b.py"] == 0.8
    # the two heirs of one file are not partners by the commits before the split
    assert partners(commits, "b.py") == {"app.py": 0.8, "sansio.py": 0.8}
    assert "app.py" not in partners(commits, "sansio.py")
    # before the path is written again it was a plain rename
    assert partners(commits, "b.py", cut=epoch(4)) == {"sansio.py": 0.8}


def test_edited_files_and_missing_files_are_not_candidates(planted, tmp_path):
    commits = history(planted, tmp_path)
    res = co_change(commits, ["a.py", "b.py"], cut=FAR_FUTURE)
    assert "b.py" not in dict(res.candidates["a.py"])
    assert "a.py" not in dict(res.candidates["b.py"])
    got = partners(commits, "b.py", exists=lambda p: p != "c.py")
    assert "c.py" not in got


def test_deterministic(planted, tmp_path):
    commits = history(planted, tmp_path)
    one = co_change(commits, ["b.py", "a.py"], task="parser quote", cut=FAR_FUTURE)
    two = co_change(list(reversed(commits)), ["a.py", "b.py"], task="parser quote",
                    cut=FAR_FUTURE)
    assert one == two


def test_tokenize_and_cut_time():
    assert tokenize("Fix parseArgs for HTTPServer_config; the quotes") == [
        "fix", "parse", "arg", "http", "server", "config", "quote"]
    assert cut_time("2024-01-02") == epoch(1)
    assert cut_time("2024-01-02T00:00:00+00:00") == epoch(1)
    assert cut_time(f"@{epoch(3)}") == epoch(3)
    assert cut_time(epoch(4)) == epoch(4)
    with pytest.raises(BadInputError):
        cut_time("yesterday-ish")


def test_project_index_mines_history_and_co_change_cuts(make_repo, git_commit):
    from impactlens.api import Project

    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n"}, date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, "a with b", date=day(1))
    git_commit(root, {"a.py": "A = 2\n", "c.py": "C = 2\n"}, "a with c", date=day(5))
    with Project(root) as p:
        summary = p.index()
        assert any("history: 3 commits indexed (3 new)" in n for n in summary.notes)
        now, note = p.co_change(["a.py"], task="")
        assert set(dict(now["a.py"])) == {"b.py", "c.py"} and "2 commits before" in note
        cut, _ = p.co_change(["a.py"], as_of="2024-01-05")  # day 4: before "a with c"
        assert set(dict(cut["a.py"])) == {"b.py"}
        git_commit(root, {"b.py": "B = 3\n"}, "b alone", date=day(6))
        again = p.index()
        assert any("4 commits indexed (1 new)" in n for n in again.notes)
        same = p.index()  # HEAD has not moved: nothing mined, and the note says so
        assert any("4 commits indexed (0 new)" in n for n in same.notes)


def test_as_of_on_todays_tree_names_a_partner_renamed_since(make_repo, git_commit):
    from impactlens.api import Project

    root = make_repo({"a.py": "A = 0\n", "old.py": "".join(f"V{i} = {i}\n" for i in range(30))},
                     date=day(0))
    git_commit(root, {"a.py": "A = 1\n", "old.py": (root / "old.py").read_text() + "W = 1\n"},
               "a with old", date=day(1))
    git_commit(root, {"old.py": None, "new.py": (root / "old.py").read_text()}, "rename",
               date=day(5))
    with Project(root) as p:
        p.index()
        cut, _ = p.co_change(["a.py"], as_of="2024-01-04")  # before the rename
        assert dict(cut["a.py"]) == {"new.py": 0.6666}  # old.py is gone from the tree


def test_project_without_git_has_an_empty_channel_and_says_so(tmp_path):
    from click.testing import CliRunner

    from impactlens.api import Project
    from impactlens.cli import main

    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.py").write_text("A = 1\n")
    res = CliRunner().invoke(main, ["index", str(root)])
    assert res.exit_code == 0, res.output
    assert "not a git repository" in res.output
    with Project(root) as p:
        got, note = p.co_change(["a.py"], task="anything")
    assert got == {"a.py": []}
    assert "not a git repository; co-change channel empty" in note


def test_test_partners_normalised_apart_from_code_partners(make_repo, git_commit, tmp_path):
    root = make_repo({"README.md": "x\n"}, date=day(0))
    for i in range(1, 4):
        git_commit(root, {"a.py": f"A = {i}\n", "tests/test_a.py": f"T = {i}\n"}, f"a {i}",
                   date=day(i))
    git_commit(root, {"a.py": "A = 9\n", "b.py": "B = 9\n"}, "a with b", date=day(5))
    got = partners(history(root, tmp_path), "a.py")
    # b is a's strongest *code* partner: 1 / (1 + κ), not 1 / (3 + κ) behind the test file
    assert got == {"tests/test_a.py": 0.8571, "b.py": 0.6666}


# ------------------------------------------------------------ symbol level
def _funcs(f: int, g: int, name: str = "f") -> str:
    return f"def {name}():\n    return {f}\n\n\ndef g():\n    return {g}\n"


@pytest.fixture
def per_function(make_repo, git_commit):
    """a.f changed once with b; a.g changed twice with c."""
    root = make_repo({"a.py": _funcs(0, 0)}, date=day(0))
    git_commit(root, {"a.py": _funcs(1, 0), "b.py": "B = 1\n"}, "f with b", date=day(1))
    git_commit(root, {"a.py": _funcs(1, 1), "c.py": "C = 1\n"}, "g with c", date=day(2))
    git_commit(root, {"a.py": _funcs(1, 2), "c.py": "C = 2\n"}, "g with c again", date=day(3))
    return root


def sym_partners(commits, symbols, *, cut=FAR_FUTURE, settings=DEFAULT):
    res = co_change(commits, ["a.py"], cut=cut, settings=settings, symbols=symbols)
    return dict(res.candidates["a.py"]), res.note


def test_commits_touching_the_edited_definition_weigh_more(per_function, tmp_path):
    commits = history(per_function, tmp_path)
    s4 = DEFAULT.replace(cochange_symbol_weight=4.0)
    assert sym_partners(commits, None)[0] == {"c.py": 0.8, "b.py": 0.4}  # file level
    got, note = sym_partners(commits, {"a.py": {"f"}}, settings=s4)
    assert got == {"b.py": 0.8888, "c.py": 0.4444}  # 4 / (4 + κ), 2 / (4 + κ)
    assert "(1 the edited definitions)" in note
    got, _ = sym_partners(commits, {"a.py": {"g"}}, settings=s4)
    assert got == {"c.py": 0.9411, "b.py": 0.1176}  # 8 / (8 + κ), 1 / (8 + κ)
    same = DEFAULT.replace(cochange_symbol_weight=1.0)
    assert sym_partners(commits, {"a.py": {"f"}}, settings=same)[0] == {"c.py": 0.8, "b.py": 0.4}


def test_symbol_level_path_keeps_the_cut(per_function, git_commit, tmp_path):
    git_commit(per_function, {"a.py": _funcs(9, 2), "late.py": "L = 1\n"}, "f with late",
               date=day(10))
    commits = history(per_function, tmp_path)
    s4 = DEFAULT.replace(cochange_symbol_weight=4.0)
    assert "late.py" in sym_partners(commits, {"a.py": {"f"}}, settings=s4)[0]
    for cut in (epoch(10), epoch(9)):  # a commit at the cut or after it never counts
        got, _ = sym_partners(commits, {"a.py": {"f"}}, cut=cut, settings=s4)
        assert got == {"b.py": 0.8888, "c.py": 0.4444}


def test_renamed_definition_keeps_its_history(per_function, git_commit, tmp_path):
    git_commit(per_function, {"a.py": _funcs(1, 2, name="h")}, "rename f to h", date=day(4))
    commits = history(per_function, tmp_path)
    got, _ = sym_partners(commits, {"a.py": {"h"}},
                          settings=DEFAULT.replace(cochange_symbol_weight=4.0))
    assert got == {"b.py": 0.8888, "c.py": 0.4444}  # "f with b" touched h under its old name


def test_edited_symbols_and_project_path(per_function):
    from impactlens.api import Project
    from impactlens.impact.cochange import edited_symbols
    from impactlens.model import FileChange

    change = [FileChange("a.py", _funcs(1, 2), _funcs(5, 2))]
    assert edited_symbols(change, lambda p: p[:-3]) == {"a.py": {"f"}}
    with Project(per_function, DEFAULT.replace(cochange_symbol_weight=4.0)) as p:
        p.index()
        got, note = p.co_change(["a.py"], symbols=edited_symbols(change, p.module_of))
        assert got["a.py"][0] == ("b.py", 0.8888) and "the edited definitions" in note
        result = p.analyze_before_after("a.py", _funcs(1, 2), _funcs(5, 2))
        assert dict(result.co_change)["a.py"][0] == ("b.py", 0.8888)


def test_a_weak_partner_falls_to_low_risk_end_to_end(make_repo, git_commit):
    """Real history: b.py co-changes with a.py 9 times, c.py 6, d.py 3 — d is admitted at
    co-change ≥ 0.3 (3 / (9 + κ)), but under half the strongest candidate's evidence."""
    from impactlens.api import Project

    files = {f"pkg/{n}.py": f"{n.upper()} = 0\n" for n in "abcd"}
    root = make_repo({"pkg/__init__.py": "", **files}, date=day(0))
    for i, partners in enumerate(["bc"] * 6 + ["b"] * 3 + ["d"] * 3):
        git_commit(root, {f"pkg/{n}.py": f"{n.upper()} = {i + 1}\n" for n in "a" + partners},
                   f"change {i}", date=day(i + 1))
    before = (root / "pkg/a.py").read_text()

    def triage(settings=DEFAULT):
        with Project(root, settings) as p:
            p.index()
            return p.analyze_before_after("pkg/a.py", before, "A = 99\n", refresh=False).triage

    on, off = triage(), triage(DEFAULT.replace(may_relative_min=0.0))
    assert [e.file for e in off.may_impact] == ["pkg/b.py", "pkg/c.py", "pkg/d.py"]
    assert [e.file for e in on.may_impact] == ["pkg/b.py", "pkg/c.py"]
    b = on.may_impact[0].reason  # history is evidence, never an obligation
    assert b.startswith("changed together with pkg/a.py before (git history, score")
    assert "must" not in b
    [d] = [e for e in on.low_risk if e.file == "pkg/d.py"]
    assert "weaker than 0.5 of the strongest candidate's evidence" in d.reason
    assert 0.3 <= d.conf < 0.5 * on.may_impact[0].conf


def test_a_pure_addition_still_lists_its_files_partners(make_repo, git_commit):
    """Nothing references a new function (§3.2: no reverse obligation), but the history of
    the file it is added to still says what usually changes with it: soft, never MUST."""
    from impactlens.api import Project

    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "A = 0\n", "pkg/b.py": "B = 0\n"},
                     date=day(0))
    for i in range(1, 5):
        git_commit(root, {"pkg/a.py": f"A = {i}\n", "pkg/b.py": f"B = {i}\n"},
                   f"parser step {i}", date=day(i))
    with Project(root) as p:
        p.index()
        tri = p.analyze_before_after("pkg/a.py", "A = 4\n",
                                     "A = 4\n\n\ndef brand_new():\n    return A\n",
                                     task="parser", refresh=False).triage
    assert tri.must_inspect == ()
    assert [(e.file, e.hard) for e in tri.may_impact] == [("pkg/b.py", False)]
    assert tri.may_impact[0].reason.startswith("changed together with pkg/a.py before")
    [new] = tri.low_risk
    assert new.entity == "pkg.a.brand_new" and "nothing refers to it yet" in new.reason


def test_rev_names_files_as_the_commit_had_them(make_repo, git_commit):
    """`--rev` of a commit whose file was renamed afterwards: its partners are found under
    the name the commit used, not today's (nor dropped for it)."""
    from impactlens.api import Project

    body = "".join(f"V{i} = {i}\n" for i in range(30))
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": body, "pkg/p.py": "P = 0\n"},
                     date=day(0))
    for i in range(1, 4):
        git_commit(root, {"pkg/a.py": body + f"A = {i}\n", "pkg/p.py": f"P = {i}\n"},
                   f"a with p {i}", date=day(i))
    git_commit(root, {"pkg/a.py": body + "A = 9\n"}, "target", date=day(5))
    target = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    git_commit(root, {"pkg/a.py": None, "pkg/z.py": body + "A = 9\n"}, "rename", date=day(6))
    with Project(root) as p:
        p.index()
        change = p.proposed_change(rev=target)
        result = p.analyze(change)
    assert "pkg/p.py" in {e.file for e in result.triage.may_impact}


def test_messages_without_a_weighable_word_weigh_equally(make_repo, git_commit, tmp_path):
    root = make_repo({"a.py": "A = 0\n", "b.py": "B = 0\n"}, date=day(0))
    for i in range(1, 3):  # "a 1", "a 2": no token BM25 keeps
        git_commit(root, {"a.py": f"A = {i}\n", "b.py": f"B = {i}\n"}, f"a {i}", date=day(i))
    commits = history(root, tmp_path)
    assert partners(commits, "a.py", task="tidy the parser") == partners(commits, "a.py")


def test_a_manifest_is_normalised_apart_from_the_code(make_repo, git_commit, tmp_path):
    # package.json changes with every release: scored against the manifests, it leaves the
    # code partner scored against the code (2 shared commits: 2 / (2 + κ) = 0.8)
    root = make_repo({"lib/a.js": "a0\n", "package.json": "{}\n"}, date=day(0))
    for i in range(1, 7):
        git_commit(root, {"lib/a.js": f"a{i}\n", "package.json": f'{{"v": {i}}}\n'},
                   f"release {i}", date=day(i))
    git_commit(root, {"lib/a.js": "a7\n", "lib/b.js": "b7\n"}, "a with b", date=day(7))
    git_commit(root, {"lib/a.js": "a8\n", "lib/b.js": "b8\n"}, "a with b again", date=day(8))
    got = partners(history(root, tmp_path), "lib/a.js")
    assert got["lib/b.js"] == 0.8
    assert got["package.json"] == pytest.approx(6 / 6.5, abs=1e-4)
