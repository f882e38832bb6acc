"""Retired references (impact/retired.py): what the edit stopped mentioning, who else does."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from impact.graphs import Graph
from impactlens.api import Project
from impactlens.impact.retired import project_modules, retired_names, retired_partners
from impactlens.index.worktree import WorkTree
from impactlens.model import Bucket, FileChange
from impactlens.settings import DEFAULT

BEFORE = '''\
from typing import AsyncIterator
from .codes import HTTP_STATUS_CODES, lookup_name
import marshal


def describe(code, scope):
    base = scope["root_path"]
    data = marshal.dumps(code)
    stream: AsyncIterator = None
    return HTTP_STATUS_CODES.get(code) or lookup_name(code) + base + str(len(data)) + str(stream)
'''

AFTER = '''\
from typing import AsyncIterator
from .codes import HTTP_STATUS_CODES, lookup_name
import marshal


def describe(code, scope):
    return lookup_name(code) + scope.get("path", "")
'''


def in_pkg(module: str) -> bool:
    return module.split(".")[0] == "pkg"


def test_names_the_edit_no_longer_mentions():
    got = retired_names(BEFORE, AFTER, in_pkg)
    # a project constant (the import left behind is not a mention), a mapping key
    assert {"HTTP_STATUS_CODES", "root_path"} <= got
    # still used; imported from outside the project; builtins; too short
    assert not got & {"lookup_name", "AsyncIterator", "marshal", "str", "len", "get"}
    # a builtin type's method is no more the project's than a builtin is
    assert not retired_names("def f(s):\n    return s.upper()\n",
                             "def f(s):\n    return s\n")
    # … unless the file defines it: a deleted module's own `update` is retired
    assert retired_names("def update(x):\n    return x\n", None) == {"update"}
    # locals count too (a parameter is a keyword at its call sites): the cap judges them
    assert {"base", "data", "stream"} <= got
    # an attribute of an outside module is an attribute like any other: the cap judges it
    assert "dumps" in got


def test_nothing_retired_without_a_before_text_or_when_it_does_not_parse():
    assert retired_names(None, AFTER) == frozenset()
    assert retired_names("def f(:\n", AFTER) == frozenset()
    assert retired_names(BEFORE, "def describe(:\n") == frozenset()  # mid-edit: unknown
    # a deleted file retires what it defined, not what it used
    assert retired_names(BEFORE, None, in_pkg) == {"describe"}
    assert retired_names("A_LIMIT: int = 3\nclass Thing:\n    size = 1\n", None) == {
        "A_LIMIT", "Thing"}


def test_project_modules_knows_packages_and_submodules():
    known = project_modules(["pkg", "pkg.codes", "other.mod"])
    assert known("pkg.codes") and known("pkg.codes.deep") and known("other.mod.x")
    assert not known("typing") and not known("othermod")


IDENTS = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(
    lambda s: s.isidentifier() and not __import__("keyword").iskeyword(s))


@st.composite
def modules(draw):
    names = draw(st.lists(IDENTS, min_size=1, max_size=6))
    shapes = ['{o}.{a}("{s}")', '{o}["{s}"]', '{o}.get("{s}")', '{{"{s}": {o}.{a}}}']
    lines = [f"{draw(IDENTS)} = " + draw(st.sampled_from(shapes)).format(
        o=draw(st.sampled_from(names)), a=draw(IDENTS), s=draw(IDENTS))
        for _ in range(draw(st.integers(1, 5)))]
    return "\n".join(lines) + "\n"


def _mentioned(text: str) -> set[str]:
    """Names, attributes, and strings in key places (a subscript, a dict key, ``.get``)."""
    out = set()
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        keys = (n.keys if isinstance(n, ast.Dict) else [n.slice] if isinstance(n, ast.Subscript)
                else n.args if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "get" else [])
        out.update(k.value for k in keys if isinstance(k, ast.Constant))
    return out


@settings(max_examples=200, deadline=None)
@given(modules(), modules())
def test_retired_means_mentioned_before_and_not_after(before, after):
    got = retired_names(before, after)
    assert got <= _mentioned(before)
    assert not got & _mentioned(after)
    assert retired_names(before, before) == frozenset()


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_partners_are_library_files_naming_a_rare_retired_identifier(tmp_path):
    files = {
        "pkg/views.py": BEFORE,
        "pkg/codes.py": "HTTP_STATUS_CODES = {}\ndef lookup_name(c):\n    return ''\n",
        "pkg/response.py": "from .codes import HTTP_STATUS_CODES\nX = HTTP_STATUS_CODES\n",
        "pkg/routing.py": "def go(scope):\n    return scope['root_path']\n",
        "pkg/near.py": "HTTP_STATUS_CODES_EXTRA = 1\n",  # a longer name: not a whole word
        "pkg/paths.py": "root_path = '/'\n",  # a variable: the retired key was a string
        "tests/test_codes.py": "from pkg.codes import HTTP_STATUS_CODES\n",  # not library
        "docs/conf.py": "root_path = 1\n",
    }
    write(tmp_path, files)
    change = [FileChange("pkg/views.py", BEFORE, AFTER)]
    got = retired_partners(WorkTree(tmp_path), change, files, in_pkg)
    assert got == {"pkg/codes.py": ("HTTP_STATUS_CODES",),
                   "pkg/response.py": ("HTTP_STATUS_CODES",),
                   "pkg/routing.py": ("root_path",)}
    # an identifier more files mention than the cap says nothing
    capped = retired_partners(WorkTree(tmp_path), change, files, in_pkg,
                              DEFAULT.replace(retired_max_files=1))
    assert capped == {"pkg/routing.py": ("root_path",)}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_analyze_lists_the_files_that_mention_what_the_edit_retired(indexed):
    with indexed({
        "pkg/__init__.py": "",
        "pkg/views.py": BEFORE,
        "pkg/codes.py": "HTTP_STATUS_CODES = {}\n\n\ndef lookup_name(c):\n    return ''\n",
        "pkg/response.py": "from .codes import HTTP_STATUS_CODES\n\n\n"
                           "def status(c):\n    return HTTP_STATUS_CODES[c]\n",
        "pkg/unrelated.py": "def other():\n    return 1\n",
    }) as p:
        res = p.analyze_before_after("pkg/views.py", BEFORE, AFTER, refresh=False)
        may = {e.file: e for e in res.triage.may_impact}
        for path in ("pkg/codes.py", "pkg/response.py"):
            assert may[path].conf >= DEFAULT.retired_conf
            assert "`HTTP_STATUS_CODES`" in may[path].reason
        assert "pkg/unrelated.py" not in may
        # the channel switched off (§7.6 ablation): neither file is named
        off = Project(p.root, DEFAULT.replace(channels=DEFAULT.channels - {"retired"}))
        with off:
            res = off.analyze_before_after("pkg/views.py", BEFORE, AFTER, refresh=False)
        named = {e.file for e in (*res.triage.must_inspect, *res.triage.may_impact)
                 if e.bucket is Bucket.MAY and "last mention" in e.reason}
        assert named == set()


def module(path: str) -> str:
    return path[:-3].replace("/", ".")


def test_a_retired_name_the_file_defines_is_named_as_that_definition():
    from impactlens.impact.triage import retired_entries

    g = Graph()
    g.fn("pkg.security.gen_salt", "def gen_salt(n):")
    g.fn("pkg.other.gen_salt", "def gen_salt(n):")  # same name, another file: not this one's
    got = retired_entries(g, {"pkg/security.py": ("gen_salt", "salt_chars"),
                              "pkg/debug.py": ("gen_salt",)}, module)
    assert [(e.entity, e.retired) for e in got] == [
        ("pkg.debug", ("gen_salt",)),
        ("pkg.security.gen_salt", ("gen_salt",)),
        ("pkg.security", ("salt_chars",))]
    assert all(e.bucket is Bucket.MAY and not e.hard and e.conf == DEFAULT.retired_conf
               for e in got)
    # a file another channel already lists: its entries carry the names, no module entry
    listed = {"pkg/debug.py": ["pkg.debug.show", "pkg.debug.trace"]}
    again = retired_entries(g, {"pkg/debug.py": ("gen_salt",)}, module, DEFAULT, listed)
    assert [(e.entity, e.retired) for e in again] == [
        ("pkg.debug.show", ("gen_salt",)), ("pkg.debug.trace", ("gen_salt",))]


def test_merge_keeps_the_retired_identifiers_and_the_weight_raises_them():
    from impactlens.impact.triage import merge, order_score, retired_entries
    from impactlens.model import TriageEntry

    walked = TriageEntry("pkg.codes", "pkg/codes.py", 0.9, "co-change", Bucket.MAY, 0,
                         hard=False)
    [named] = retired_entries(Graph(), {"pkg/codes.py": ("HTTP_STATUS_CODES",)}, module)
    [got] = merge([walked, named]).may_impact
    assert got.retired == ("HTTP_STATUS_CODES",) and got.conf == 0.9 and not got.hard
    assert "co-change" in got.reason and "last mention" in got.reason
    assert got.to_json()["retired"] == ["HTTP_STATUS_CODES"]
    tier = DEFAULT.replace(retired_weight=3.0)
    assert order_score(got, tier) == order_score(walked, tier) + 3.0


def test_a_past_commit_reads_the_other_files_from_its_base(make_repo, git_commit):
    files = {
        "pkg/__init__.py": "",
        "pkg/views.py": BEFORE,
        "pkg/codes.py": "HTTP_STATUS_CODES = {}\n\n\ndef lookup_name(c):\n    return ''\n",
        "pkg/response.py": "def status(c):\n    return c\n",
    }
    root = make_repo(files)
    sha = git_commit(root, {"pkg/views.py": AFTER}, "stop using the table")
    # later, on disk: response.py starts using the table — not part of that commit's world
    git_commit(root, {"pkg/response.py": "from .codes import HTTP_STATUS_CODES\n"}, "use it")
    with Project(root) as p:
        p.index()
        past = p.analyze(rev=sha)
        now = p.analyze_before_after("pkg/views.py", BEFORE, AFTER, refresh=False)
    assert [(e.file, e.retired) for e in past.triage.may_impact if e.retired] == [
        ("pkg/codes.py", ("HTTP_STATUS_CODES",))]
    assert sorted(e.file for e in now.triage.may_impact if e.retired) == [
        "pkg/codes.py", "pkg/response.py"]


def test_git_grep_in_a_commit_finds_what_the_disk_scan_finds(make_repo):
    from impactlens.impact.retired import partners_in_matches, retired_patterns
    from impactlens.index import git

    files = {
        "pkg/views.py": BEFORE,
        "pkg/codes.py": "HTTP_STATUS_CODES = {}\n",
        "pkg/response.py": "X = HTTP_STATUS_CODES_MORE\nY = 'root_path'\n",
        "pkg/a.py": "data = 1\n", "pkg/b.py": "data = 2\n",
        "pkg/c.py": "root_path = 3\nz = \"root_path\"\n", "pkg/d.py": "root_path = 4\n",
        "tests/test_codes.py": "HTTP_STATUS_CODES = 1\n",
    }
    root = make_repo(files)
    head = git.resolve_commit(root, "HEAD")
    change = [FileChange("pkg/views.py", BEFORE, AFTER)]
    for cap in (0, 1, 2, 5):
        s = DEFAULT.replace(retired_max_files=cap)
        disk = retired_partners(WorkTree(root), change, files, in_pkg, s)
        found = git.grep_words(root, head, retired_patterns(change, in_pkg), "*.py")
        assert partners_in_matches(change, files, found, in_pkg, s) == disk
    assert disk["pkg/codes.py"] == ("HTTP_STATUS_CODES",)
    assert disk["pkg/c.py"] == ("root_path",) and "pkg/d.py" not in disk  # quoted only


def test_a_term_spelled_only_as_a_string_is_looked_for_quoted():
    from impactlens.impact.retired import retired_terms

    before = "def f(scope, request):\n    return scope['root_path'] + request.base_url\n"
    after = "def f(scope, request):\n    return ''\n"
    assert retired_terms(before, after) == {"base_url": False, "request": False,
                                            "root_path": True, "scope": False}
    # a name the before-text also used as a variable is looked for as a word
    both = "def f(root_path):\n    return {'root_path': root_path}\n"
    assert retired_terms(both, "def f(x):\n    return x\n")["root_path"] is False
    # a string that is a value, not a key, names nothing
    assert retired_terms('class B:\n    name = "token"\n', 'class B:\n    name = "jwt"\n') == {}


WORDS = ["alpha_one", "beta_two", "gamma", "delta_x", "alpha_one_more"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=4), min_size=1, max_size=8),
       st.integers(0, 4))
def test_partners_match_a_plain_count_of_whole_word_mentions(tmp_path_factory, bodies, cap):
    import re

    root = tmp_path_factory.mktemp("tree")
    files = {f"pkg/m{i}.py": "\n".join(f"x = {w}" for w in ws) + "\n"
             for i, ws in enumerate(bodies)}
    write(root, files)
    retired = ["alpha_one", "beta_two", "gamma", "delta_x"]
    change = [FileChange("pkg/edited.py", "y = " + " + ".join(retired) + "\n", "y = 1\n")]
    got = retired_partners(WorkTree(root), change, files,
                           settings=DEFAULT.replace(retired_max_files=cap))
    want: dict[str, list[str]] = {}
    for name in retired:
        hits = [p for p, t in sorted(files.items()) if re.search(rf"\b{name}\b", t)]
        if len(hits) <= cap:
            for p in hits:
                want.setdefault(p, []).append(name)
    assert got == {p: tuple(sorted(ns)) for p, ns in sorted(want.items())}
