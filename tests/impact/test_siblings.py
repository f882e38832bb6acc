"""Other implementations of what a changed override implements, end to end."""

from __future__ import annotations

from impactlens.api import Project
from impactlens.settings import DEFAULT

BACKENDS = '''class Backend:
    def read(self, n):
        raise NotImplementedError


class TrioBackend(Backend):
    def read(self, n):
        return n


class AsyncioBackend(Backend):
    def read(self, n):
        return n


class SyncBackend(Backend):
    def read(self, n):
        return n

    def close(self):
        return None
'''
def _entries(root, after, settings=DEFAULT, path="net/backends.py"):
    with Project(root, settings) as p:
        p.index()
        res = p.analyze_before_after(path, (root / path).read_text(), after, refresh=False)
    return {e.entity: e for e in (*res.triage.may_impact, *res.triage.low_risk)}


def test_the_other_overrides_of_a_changed_override_are_listed(make_repo):
    root = make_repo({"net/__init__.py": "", "net/backends.py": "", "net/sync.py": ""})
    (root / "net/backends.py").write_text(BACKENDS.split("class SyncBackend")[0])
    (root / "net/sync.py").write_text("from net.backends import Backend\n\n\nclass SyncBackend("
                                      + BACKENDS.split("class SyncBackend(")[1])
    edited = (root / "net/backends.py").read_text().replace(
        "class TrioBackend(Backend):\n    def read(self, n):\n        return n",
        "class TrioBackend(Backend):\n    def read(self, n):\n        with self.lock:\n"
        "            return n")
    got = _entries(root, edited)
    sync = got["net.sync.SyncBackend.read"]
    assert sync.reason == ("another implementation of Backend.read, as TrioBackend.read is, "
                           "which the edit changes: the same change may be due here")
    assert not sync.hard and sync.conf == DEFAULT.sibling_conf
    assert "net.sync.SyncBackend.close" not in got  # not an implementation of read
    assert "net.backends.AsyncioBackend.read" not in got  # in the edited file
    off = _entries(root, edited, DEFAULT.replace(channels=DEFAULT.channels - {"siblings"}))
    assert "net.sync.SyncBackend.read" not in off


def test_a_broad_interface_lists_no_siblings(make_repo):
    impls = "".join(f"\n\nclass V{i}(Visitor):\n    def visit(self, node):\n        return {i}\n"
                    for i in range(8))
    root = make_repo({"ast_/__init__.py": "", "ast_/base.py":
                      "class Visitor:\n    def visit(self, node):\n        return None\n",
                      "ast_/impls.py": "from ast_.base import Visitor\n" + impls,
                      "ast_/one.py": "from ast_.base import Visitor\n\n\nclass One(Visitor):\n"
                                     "    def visit(self, node):\n        return 1\n"})
    got = _entries(root, (root / "ast_/one.py").read_text().replace("return 1", "return 2"),
                   path="ast_/one.py")
    assert not [e for e in got if e.startswith("ast_.impls.")]


def _preconf(make_repo, names=("json", "msgpack", "bson")):
    files = {"conv/__init__.py": "", "conv/preconf/__init__.py": ""}
    for n in names:
        files[f"conv/preconf/{n}.py"] = (f"def configure_converter(c):\n    c.kind = {n!r}\n"
                                         "    return c\n\n\ndef make_converter():\n"
                                         "    return configure_converter(object())\n")
    files["conv/other.py"] = "def configure_converter(c):\n    return c\n"
    return make_repo(files)


def test_same_named_functions_of_sibling_modules_are_listed(make_repo):
    root = _preconf(make_repo)
    path = "conv/preconf/bson.py"
    edited = (root / path).read_text().replace("    return c\n", "    c.fast = True\n"
                                               "    return c\n", 1)
    got = _entries(root, edited, path=path)
    json_ = got["conv.preconf.json.configure_converter"]
    assert json_.reason == ("json.py defines configure_converter too, as bson.py does, "
                            "where the edit changes it: the same change may be due here")
    assert not json_.hard and json_.conf == DEFAULT.sibling_conf
    assert "conv.preconf.msgpack.configure_converter" in got
    assert "conv.other.configure_converter" not in got  # another package
    assert "conv.preconf.json.make_converter" not in got  # another name
    off = _entries(root, edited, DEFAULT.replace(channels=DEFAULT.channels - {"namesakes"}),
                   path=path)
    assert "conv.preconf.json.configure_converter" not in off


def test_a_name_too_many_sibling_modules_define_lists_none(make_repo):
    root = _preconf(make_repo, names=("a", "b", "c", "d"))
    path = "conv/preconf/a.py"
    edited = (root / path).read_text().replace("c.kind = 'a'", "c.kind = 'A'")
    got = _entries(root, edited, DEFAULT.replace(max_siblings=2), path=path)
    assert not [e for e in got if e.endswith(".configure_converter")]
