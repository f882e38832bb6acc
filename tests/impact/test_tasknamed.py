"""Definitions the task text names (impact/tasknamed.py): unit, property, end to end."""

from __future__ import annotations

import keyword
import re

from hypothesis import given
from hypothesis import strategies as st

from impactlens.api import Project
from impactlens.impact.retired import COMMON_NAMES, MIN_LENGTH
from impactlens.impact.tasknamed import named_identifiers, task_named, task_named_entries
from impactlens.model import Bucket, Node, NodeKind
from impactlens.settings import DEFAULT


def test_code_is_what_backticks_hold_or_what_is_spelled_as_code():
    assert named_identifiers("deprecate `OptionParser`") == ["OptionParser"]
    assert named_identifiers("Deprecate `FileResponse(method=...)` parameter") == [
        "FileResponse", "method"]
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
        "ensure_ascii", "json", "dumps"]
    assert named_identifiers("`_cv` and `url`") == []


@given(st.text(alphabet=st.sampled_from(list("abcXY_z `.()=-1 \n")), max_size=80))
def test_every_named_identifier_is_a_word_of_the_task_and_no_common_name(task):
    got = named_identifiers(task)
    assert len(got) == len(set(got))
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", task))
    for name in got:
        assert name in words and name.isidentifier() and len(name) >= MIN_LENGTH
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
}


def _named(task: str, edited=("pkg/core.py",), **settings: object):
    return task_named(lambda n: INDEX.get(n, []), task, edited, DEFAULT.replace(**settings))


def test_each_library_file_defining_a_named_identifier():
    got = _named("remove request.url_charset, deprecate `OptionParser`")
    assert got == {"pkg/request.py": (("pkg.request.Request.url_charset", "url_charset"),),
                   "pkg/parser.py": (("pkg.parser.OptionParser", "OptionParser"),)}
    assert _named("rename make_key") == {}  # four files define it: too common
    assert set(_named("rename make_key", task_named_max_files=4)) == {
        f"pkg/m{i}.py" for i in range(4)}
    assert _named("bump DEFAULT_PORT") == {}  # defined in the edited file only
    assert _named("bump DEFAULT_PORT", edited=()) == {
        "pkg/core.py": (("pkg.core.DEFAULT_PORT", "DEFAULT_PORT"),)}
    assert _named("set base_url", edited=()) == {}  # an attribute is no definition here
    assert _named("") == {}


def test_entries_are_soft_may_impact_with_the_name_in_the_reason():
    [e] = task_named_entries({"pkg/parser.py": (("pkg.parser.OptionParser",
                                                 "OptionParser"),)})
    assert (e.entity, e.file, e.bucket, e.hard, e.conf) == (
        "pkg.parser.OptionParser", "pkg/parser.py", Bucket.MAY, False, DEFAULT.task_named_conf)
    assert e.reason == "defines `OptionParser`, which the task text names"
    assert e.to_json()["task_named"] == ["OptionParser"]


FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x + 1\n",
    "pkg/cookies.py": "def dump_cookie(key, value):\n    return f'{key}={value}'\n",
    "pkg/other.py": "def other():\n    return 2\n",
    "tests/test_cookies.py": "def dump_cookie():\n    pass\n",
}


def test_analyze_lists_the_file_defining_what_the_task_names(make_repo):
    root = make_repo(FILES)
    before = FILES["pkg/util.py"]
    after = before.replace("x + 1", "x + 2")
    task = "quote values in dump_cookie"

    def triage(settings=DEFAULT):
        with Project(root, settings) as p:
            p.index()
            return p.analyze_before_after("pkg/util.py", before, after, task=task,
                                          refresh=False).triage

    on = triage()
    [e] = [e for e in on.may_impact if e.file == "pkg/cookies.py"]
    assert e.entity == "pkg.cookies.dump_cookie" and "dump_cookie" in e.reason
    assert e.task_named == ("dump_cookie",)
    assert not [e for e in on.entries() if e.file.startswith("tests/") and "names" in e.reason]
    off = triage(DEFAULT.replace(channels=DEFAULT.channels - {"named"}))
    assert "pkg/cookies.py" not in {e.file for e in off.entries()}
