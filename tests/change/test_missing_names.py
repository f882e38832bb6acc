"""An edit that imports a name its module does not have obliges that module, end to end
on real repositories (and never when the name exists in any form)."""

from __future__ import annotations

from impactlens.api import Project

UTIL = '''"""Helpers."""
import os
from pkg.base import Base as Base

LIMIT = 3


def slug(text):
    return text.lower()


class Box:
    pass


try:
    import json as fast_json
except ImportError:
    fast_json = None
'''
PLAIN = '''def slug(text):
    return text.lower()


LIMIT = 3
'''
VIEW = "def render(x):\n    return x\n"


def _analyze(make_repo, files, edits):
    root = make_repo(files)
    for path, text in edits.items():
        (root / path).write_text(text)
    with Project(root) as p:
        p.index()
        return p.analyze(p.proposed_change(), refresh=False)


def _must(res):
    return {e.entity: e.reason for e in res.triage.must_inspect}


def test_a_name_the_module_lacks_makes_it_must_inspect(make_repo):
    files = {"pkg/__init__.py": "", "pkg/plain.py": PLAIN, "pkg/view.py": VIEW}
    res = _analyze(make_repo, files, {"pkg/view.py": (
        "from pkg.plain import slug, slugify\n\n\ndef render(x):\n    return slugify(x)\n")})
    must = _must(res)
    assert "pkg.plain" in must, must
    assert must["pkg.plain"].startswith(
        "define slugify here: the edit imports it at pkg/view.py:1 "
        "(from pkg.plain import slugify)")
    [entry] = [e for e in res.triage.must_inspect if e.entity == "pkg.plain"]
    assert entry.file == "pkg/plain.py"


def test_a_multi_line_import_and_a_relative_one(make_repo):
    files = {"pkg/__init__.py": "", "pkg/plain.py": PLAIN, "pkg/view.py": VIEW}
    res = _analyze(make_repo, files, {"pkg/view.py": (
        "from .plain import (\n    slug,\n    LIMIT,\n    to_html,\n)\n\n\n" + VIEW)})
    assert "define to_html here" in _must(res).get("pkg.plain", "")


def test_no_obligation_when_the_name_exists_in_any_form(make_repo):
    files = {"pkg/__init__.py": "from pkg.plain import slug\n", "pkg/plain.py": PLAIN,
             "pkg/base.py": "class Base:\n    pass\n\n\nEXTRA = 1\n",
             "pkg/util.py": UTIL, "pkg/sub/__init__.py": "", "pkg/sub/deep.py": "X = 1\n",
             "pkg/lazy.py": "def __getattr__(name):\n    return name\n",
             "pkg/star.py": "from pkg.base import *  # noqa: F403\n",
             "pkg/view.py": VIEW}
    imports = ("from pkg.util import slug, LIMIT, Box, os, Base, fast_json\n"  # every binding
               "from pkg.star import EXTRA, anything\n"  # a star import may supply any name
               "from pkg import slug as s2, sub\n"  # a package re-export, a subpackage
               "from pkg.sub import deep\n"  # a submodule
               "from pkg.lazy import whatever\n"  # module-level __getattr__
               "from os.path import nothing_checked\n")  # outside the repository
    res = _analyze(make_repo, files, {"pkg/view.py": imports + "\n\n" + VIEW})
    assert not [e for e in res.triage.must_inspect if "define" in e.reason], _must(res)
    control = _analyze(make_repo, files, {"pkg/view.py": imports + "from pkg.util import nope"
                                          "\n\n\n" + VIEW})
    assert [e.entity for e in control.triage.must_inspect if "define" in e.reason] == [
        "pkg.util"]


def test_no_obligation_when_the_same_edit_defines_it(make_repo):
    files = {"pkg/__init__.py": "", "pkg/plain.py": PLAIN, "pkg/view.py": VIEW}
    res = _analyze(make_repo, files, {
        "pkg/view.py": "from pkg.plain import slugify\n\n\n" + VIEW,
        "pkg/plain.py": PLAIN + "\n\ndef slugify(text):\n    return slug(text)\n"})
    assert "pkg.plain" not in _must(res)


def test_an_import_that_was_already_there_is_not_the_edits_obligation(make_repo):
    broken = "from pkg.plain import gone\n\n\n" + VIEW  # broken before the edit
    files = {"pkg/__init__.py": "", "pkg/plain.py": PLAIN, "pkg/view.py": broken}
    res = _analyze(make_repo, files, {"pkg/view.py": broken.replace("return x", "return 2")})
    assert "pkg.plain" not in _must(res)


AUTH = '''class Base:
    retries = 2

    def close(self):
        return None


class Auth(Base):
    def __init__(self):
        self.token = 1

    @property
    def scheme(self):
        return "Bearer"

    def header(self):
        return self.token


class Lazy:
    def __getattr__(self, name):
        return name
'''
CLIENT = '''from pkg.auth import Auth, Lazy


class Client:
    def __init__(self):
        self.auth = Auth()
        self.lazy = Lazy()

    def send(self):
        return self.auth.header()
'''


def test_a_member_the_receivers_class_lacks_makes_the_class_must_inspect(make_repo):
    files = {"pkg/__init__.py": "", "pkg/auth.py": AUTH, "pkg/client.py": CLIENT}
    res = _analyze(make_repo, files, {"pkg/client.py": CLIENT.replace(
        "return self.auth.header()",
        "if self.auth.requires_body:\n            return self.auth.sign()\n"
        "        return self.auth.header()")})
    must = _must(res)
    assert "pkg.auth.Auth" in must, must
    causes = must["pkg.auth.Auth"].split(" | ")
    assert any(c.startswith("add the member requires_body: the edit uses it on an instance "
                            "of Auth at pkg/client.py:10") for c in causes), causes
    assert any(c.startswith("add the member sign:") for c in causes), causes
    [entry] = [e for e in res.triage.must_inspect if e.entity == "pkg.auth.Auth"]
    assert entry.file == "pkg/auth.py"


def test_a_name_read_off_an_imported_module(make_repo):
    files = {"pkg/__init__.py": "", "pkg/plain.py": PLAIN, "pkg/view.py": VIEW}
    res = _analyze(make_repo, files, {"pkg/view.py": (
        "import pkg.plain\n\n\ndef render(x):\n    return pkg.plain.slugify(x)\n")})
    assert _must(res).get("pkg.plain", "").startswith(
        "define slugify here: the edit uses pkg.plain.slugify at pkg/view.py:5")


def test_no_obligation_for_members_that_exist_or_may(make_repo):
    files = {"pkg/__init__.py": "", "pkg/auth.py": AUTH, "pkg/client.py": CLIENT}
    uses = ("        a = self.auth\n"
            "        return (a.token, a.scheme, a.retries, a.close(), a.header(),"
            " self.lazy.anything, a.__class__, self.auth.fresh)\n")
    edited_auth = AUTH.replace("        self.token = 1\n",
                               "        self.token = 1\n        self.fresh = True\n")
    res = _analyze(make_repo, files, {
        "pkg/client.py": CLIENT.replace("        return self.auth.header()\n", uses),
        "pkg/auth.py": edited_auth})  # the same edit adds `fresh`
    assert not [e for e in res.triage.must_inspect if "add the member" in e.reason], _must(res)


def _may(res):
    return {e.entity: e.reason for e in res.triage.may_impact}


INIT = "from pkg.shapes import Circle, Square\n\n__all__ = ['Circle', 'Square']\n"
SHAPES = "class Circle:\n    pass\n\n\nclass Square:\n    pass\n"


def test_a_new_public_name_beside_re_exported_siblings_asks_for_a_re_export(make_repo):
    files = {"pkg/__init__.py": INIT, "pkg/shapes.py": SHAPES}
    res = _analyze(make_repo, files, {"pkg/shapes.py": SHAPES + (
        "\n\nclass Triangle:\n    pass\n\n\ndef _private():\n    pass\n")})
    may = _may(res)
    assert may.get("pkg", "").startswith(
        "re-export Triangle? pkg/__init__.py imports Circle, Square from pkg.shapes"), may
    assert "_private" not in may.get("pkg", "")
    assert "pkg" not in _must(res)


def test_no_re_export_hint_when_the_package_takes_everything_or_nothing(make_repo):
    edit = {"pkg/shapes.py": SHAPES + "\n\nclass Triangle:\n    pass\n"}
    for init in ("from pkg.shapes import *  # noqa: F403\n", "", "import pkg.shapes\n"):
        res = _analyze(make_repo, {"pkg/__init__.py": init, "pkg/shapes.py": SHAPES}, edit)
        assert "re-export" not in _may(res).get("pkg", ""), init
    both = _analyze(make_repo, {"pkg/__init__.py": INIT, "pkg/shapes.py": SHAPES}, {
        **edit, "pkg/__init__.py": INIT.replace("Square\n", "Square, Triangle\n")})
    assert "re-export" not in _may(both).get("pkg", "")  # the same edit re-exports it
