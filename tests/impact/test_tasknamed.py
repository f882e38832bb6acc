"""Definitions the task text names (impact/tasknamed.py): unit, property, end to end."""

from __future__ import annotations

import keyword
import re

from hypothesis import given
from hypothesis import strategies as st

from impactlens.api import Project
from impactlens.impact.retired import COMMON_NAMES, MIN_LENGTH
from impactlens.impact.tasknamed import (
    defined_names,
    named_identifiers,
    named_modules,
    task_named,
    task_named_entries,
)
from impactlens.impact.triage import merge
from impactlens.model import Bucket, Node, NodeKind, TriageEntry
from impactlens.settings import DEFAULT


def test_code_is_what_backticks_hold_or_what_is_spelled_as_code():
    assert named_identifiers("deprecate `OptionParser`") == ["OptionParser"]
    # a keyword argument's name is no definition
    assert named_identifiers("Deprecate `FileResponse(method=...)` parameter") == [
        "FileResponse"]
    assert named_identifiers("refactor parse_cookie and dump_cookie") == [
        "parse_cookie", "dump_cookie"]
    assert named_identifiers("Change _cv_req -> _cv_request") == ["_cv_req", "_cv_request"]
    assert named_identifiers("Support the WebSocket Denial Response") == ["WebSocket"]
    assert named_identifiers("remove request.url_charset") == ["url_charset"]
    # plain words are prose; keywords, builtins, builtin types' methods and short names
    # are nobody's definition
    assert named_identifiers("Fix the parser when a quote is missing") == []
    assert named_identifiers("Compile `elif` to `elif` instead of `else: if`") == []
    assert named_identifiers("Set `ensure_ascii=False` on `json.dumps()`, use `str.upper`") == [
        "json", "dumps"]
    assert named_identifiers("`_cv` and `url`") == []
    # any script's letters; digits inside, never first
    assert named_identifiers("fix naïve_datetime and `café_parser`, not 2nd_try") == [
        "café_parser", "naïve_datetime"]


@given(st.text(alphabet=st.sampled_from(list("abcXY_zé `.()=-1 \n")), max_size=80))
def test_every_named_identifier_is_a_whole_word_of_the_task_and_no_common_name(task):
    got = named_identifiers(task)
    assert len(got) == len(set(got))
    for name in got:
        assert name.isidentifier() and len(name) >= MIN_LENGTH
        assert re.search(rf"(?<!\w){re.escape(name)}(?!\w)", task)  # never a fragment
        assert name not in COMMON_NAMES and not keyword.iskeyword(name)


def _node(node_id: str, file: str, kind: NodeKind = NodeKind.FUNCTION) -> Node:
    return Node(id=node_id, kind=kind, qualname=node_id, file=file, start_line=1, end_line=2)


INDEX = {
    "url_charset": [_node("pkg.request.Request.url_charset", "pkg/request.py",
                          NodeKind.METHOD)],
    "OptionParser": [_node("pkg.parser.OptionParser", "pkg/parser.py", NodeKind.CLASS),
                     _node("tests.test_parser.OptionParser", "tests/test_parser.py",
                           NodeKind.CLASS)],
    "make_key": [_node(f"pkg.m{i}.make_key", f"pkg/m{i}.py") for i in range(4)],
    "DEFAULT_PORT": [_node("pkg.core.DEFAULT_PORT", "pkg/core.py", NodeKind.CONSTANT)],
    "base_url": [_node("pkg.core.Client.base_url", "pkg/core.py", NodeKind.FIELD)],
    "_compat": [_node("pkg._compat", "pkg/_compat.py", NodeKind.MODULE)],
    "utils": [_node("pkg.utils", "pkg/utils.py", NodeKind.MODULE),
              _node("pkg.sub.utils", "pkg/sub/utils.py", NodeKind.MODULE)],
    "core": [_node("pkg.core", "pkg/core.py", NodeKind.MODULE)],
}


def _named(task: str, edited=("pkg/core.py",), **settings: object):
    return task_named(lambda n: INDEX.get(n, []), task, edited, DEFAULT.replace(**settings))


def test_each_library_file_defining_a_named_identifier():
    got = _named("remove request.url_charset, deprecate `OptionParser`")
    assert got == {"pkg/request.py": (("pkg.request.Request.url_charset", "url_charset"),),
                   "pkg/parser.py": (("pkg.parser.OptionParser", "OptionParser"),)}
    assert _named("rename make_key") == {}  # four files define it: too common
    # the edited file's own definition neither counts nor is listed
    assert set(_named("rename make_key", edited=("pkg/m0.py",))) == {
        f"pkg/m{i}.py" for i in (1, 2, 3)}
    assert set(_named("rename make_key", task_named_max_files=4)) == {
        f"pkg/m{i}.py" for i in range(4)}
    assert _named("bump DEFAULT_PORT") == {}  # defined in the edited file only
    assert _named("bump DEFAULT_PORT", edited=()) == {
        "pkg/core.py": (("pkg.core.DEFAULT_PORT", "DEFAULT_PORT"),)}
    assert _named("set base_url", edited=()) == {}  # an attribute is no definition here
    assert _named("") == {}


def test_modules_are_what_backticks_hold_or_what_comes_before_a_dot():
    assert named_modules("remove _compat.get_strerror") == ["_compat"]
    assert named_modules("add `validate.And` and `--http`") == ["validate", "And", "http"]
    assert named_modules("move helpers out of _utils.py (#3389)") == ["_utils"]
    # a sentence's end and a version are no module; "e.g." and a file name are candidates,
    # listed only when exactly one library module has that name
    assert named_modules("Fix it. Then e.g. 3.11, see docs/api.rst") == ["e", "api"]


def test_the_one_library_module_a_word_names():
    assert _named("remove _compat.get_strerror") == {
        "pkg/_compat.py": (("pkg._compat", "_compat"),)}
    assert _named("clean utils.helper") == {}  # two modules by that name: which one?
    assert _named("tidy core.run") == {}  # the edited module is no candidate
    assert _named("remove _compat.get_strerror", task_named_max_files=0) == {}  # off


def test_entries_are_soft_may_impact_with_the_name_in_the_reason():
    [e] = task_named_entries({"pkg/parser.py": (("pkg.parser.OptionParser",
                                                 "OptionParser"),)})
    assert (e.entity, e.file, e.bucket, e.hard, e.conf) == (
        "pkg.parser.OptionParser", "pkg/parser.py", Bucket.MAY, False, DEFAULT.task_named_conf)
    assert e.reason == "the task text names `OptionParser`, defined here"
    assert e.to_json()["task_named"] == ["OptionParser"]
    # the same definition reached by the walk: one entry, hard, still marked
    walked = TriageEntry("pkg.parser.OptionParser", "pkg/parser.py", 0.5, "caller",
                         Bucket.MAY, 2, hard=True)
    [both] = merge([e, walked]).may_impact
    assert both.hard and both.task_named == ("OptionParser",) and both.conf == 0.8


FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x + 1\n",
    "pkg/cookies.py": "def dump_cookie(key, value):\n    return f'{key}={value}'\n",
    "pkg/other.py": "def other():\n    return 2\n",
    "tests/test_cookies.py": "def dump_cookie():\n    pass\n",
}


def test_analyze_lists_the_file_defining_what_the_task_names(indexed):
    before = FILES["pkg/util.py"]
    after = before.replace("x + 1", "x + 2")
    task = "quote values in dump_cookie"

    def triage(settings=DEFAULT):
        with indexed(FILES, settings=settings) as p:
            return p.analyze_before_after("pkg/util.py", before, after, task=task,
                                          refresh=False).triage

    on = triage()
    [e] = [e for e in on.may_impact if e.file == "pkg/cookies.py"]
    assert e.entity == "pkg.cookies.dump_cookie" and "dump_cookie" in e.reason
    assert e.task_named == ("dump_cookie",)
    assert not [e for e in on.entries() if e.file.startswith("tests/") and "names" in e.reason]
    off = triage(DEFAULT.replace(channels=DEFAULT.channels - {"named"}))
    assert "pkg/cookies.py" not in {e.file for e in off.entries()}


def test_analyze_lists_the_module_the_task_names_and_rev_needs_its_base_file(
        indexed, git_commit):
    before = FILES["pkg/util.py"]
    after = before.replace("x + 1", "x + 2")
    with indexed(FILES) as p:
        tri = p.analyze_before_after("pkg/util.py", before, after, refresh=False,
                                     task="use cookies.dump_cookie's quoting").triage
        [e] = [e for e in tri.may_impact if e.entity == "pkg.cookies"]
        assert e.file == "pkg/cookies.py" and e.task_named == ("cookies",)
        # a module the base commit did not have yet is not listed for it
        base = git_commit(p.root, {"pkg/util.py": after}, "one")
        git_commit(p.root, {"pkg/session.py": "S = 1\n"}, "later")
        p.index()
        assert set(p.task_named("see session.S", ["pkg/util.py"])) == {"pkg/session.py"}
        assert p.task_named("see session.S", ["pkg/util.py"], at=base) == {}


def test_defined_names_reads_classes_functions_methods_and_module_bindings():
    text = ("X_LIMIT = 3\nlog: int = 0\nclass Box:\n    size = 1\n    def open(self):\n"
            "        def inner():\n            pass\nasync def fetch():\n    local = 1\n")
    assert defined_names(text) == {"X_LIMIT", "log", "Box", "open", "inner", "fetch"}
    assert defined_names("def f(:\n") == frozenset() and defined_names(None) == frozenset()


def test_a_past_commit_lists_only_what_its_base_defined(make_repo, git_commit):
    root = make_repo(FILES)
    base = git_commit(root, {"pkg/util.py": FILES["pkg/util.py"] + "\n\ndef spare():\n"
                             "    return 0\n"}, "add spare")
    sha = git_commit(root, {"pkg/util.py": FILES["pkg/util.py"].replace("x + 1", "x + 2")},
                     "quote values like dump_cookie and make_token do")
    git_commit(root, {"pkg/other.py": "def make_token():\n    return 2\n"}, "later")
    with Project(root) as p:
        p.index()  # the work tree defines make_token now; the base did not
        assert set(p.task_named("dump_cookie and make_token", ["pkg/util.py"])) == {
            "pkg/cookies.py", "pkg/other.py"}
        assert set(p.task_named("dump_cookie and make_token", ["pkg/util.py"], at=base)) == {
            "pkg/cookies.py"}
        tri = p.analyze(rev=sha, refresh=False).triage
    listed = {e.file for e in tri.entries() if e.task_named}
    assert listed == {"pkg/cookies.py"}
