"""Which attributes nothing reads (impact/unread.py), on real indexed repositories."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from impactlens.api import Project
from impactlens.impact.unread import UnreadAttributes
from impactlens.index.worktree import WorkTree

FRAME = (
    "class Frame:\n"
    "    def __init__(self, parent=None):\n"
    "        self.parent = parent\n"
    "\n"
    "    def copy(self):\n"
    "        rv = object.__new__(self.__class__)\n"
    "        rv.__dict__.update(self.__dict__)\n"  # copying the dict shows it to no one
    "        return rv\n"
)
TESTS = "from app.frame import Frame\n\n\ndef test_frame():\n    assert Frame().parent is None\n"


def unread_of(indexed: Callable[..., Project], files: Mapping[str, str],
              edited: Mapping[str, str | None] | None = None,
              method: str = "app.frame.Frame.__init__") -> Callable[..., set[str]] | None:
    project = indexed({"app/__init__.py": "", "tests/test_frame.py": TESTS, **files})
    tree = WorkTree(project.root)
    return UnreadAttributes(tree, edited or {}).of_method(project.store, method)


def test_an_attribute_no_text_mentions_is_unread(indexed: Callable[..., Project]) -> None:
    unread = unread_of(indexed, {"app/frame.py": FRAME})
    assert unread is not None
    assert unread({"soft": 0, "parent": 1}) == {"soft"}  # `.parent` is read by the test


@pytest.mark.parametrize("reader", [
    ("app/use.py", "def f(frame):\n    return frame.soft\n"),
    ("app/use.py", "def f(frame):\n    return getattr(frame, 'soft', None)\n"),
    ("app/templates/page.html", "{{ frame.soft }}\n"),  # a template reads it too
    ("docs/usage.rst", '>>> hasattr(frame, "soft")\n'),
])
def test_a_mention_anywhere_in_the_work_tree_is_a_read(
        indexed: Callable[..., Project], reader: tuple[str, str]) -> None:
    unread = unread_of(indexed, {"app/frame.py": FRAME, reader[0]: reader[1]})
    assert unread is not None and unread({"soft": 0}) == set()


def test_the_edits_own_stores_do_not_count(indexed: Callable[..., Project]) -> None:
    after = FRAME.replace("        self.parent = parent\n",
                          "        self.parent = parent\n        self.soft = False\n")
    unread = unread_of(indexed, {"app/frame.py": FRAME}, {"app/frame.py": after})
    assert unread is not None
    assert unread({"soft": 1}) == {"soft"}
    assert unread({"soft": 0}) == set()  # a store the edit does not hold is a mention


@pytest.mark.parametrize("frame", [
    FRAME.replace("class Frame:\n", "@dataclass(frozen=True)\nclass Frame:\n"),
    FRAME.replace("class Frame:\n", "class Frame(Base):\n"),  # Base: from outside
    FRAME.replace("class Frame:\n", "class Frame(metaclass=Meta):\n"),
    FRAME.replace("class Frame:\n", "class Frame:\n    __slots__ = ('parent',)\n"),
    FRAME + "\n    def __setattr__(self, name, value):\n        pass\n",
    FRAME + "\n    def __eq__(self, other):\n        return vars(self) == vars(other)\n",
    FRAME + "\n    def __repr__(self):\n        return repr(self.__dict__)\n",
    FRAME + "\n\nclass Child(Frame):\n    __slots__ = ()\n\n"
            "    def __setattr__(self, name, value):\n        pass\n",  # a descendant's
])
def test_a_class_whose_stores_may_run_code_or_be_shown_has_none(
        indexed: Callable[..., Project], frame: str) -> None:
    assert unread_of(indexed, {"app/frame.py": frame}) is None


def test_a_name_the_family_binds_is_read(indexed: Callable[..., Project]) -> None:
    base = "class Base:\n    @property\n    def soft(self):\n        return 1\n"
    frame = "from app.base import Base\n\n\n" + FRAME.replace("class Frame:", "class Frame(Base):")
    unread = unread_of(indexed, {"app/base.py": base, "app/frame.py": frame})
    assert unread is not None
    assert unread({"soft": 0, "hard": 0}) == {"hard"}  # a property would run on the store


def test_a_function_outside_a_class_has_none(indexed: Callable[..., Project]) -> None:
    assert unread_of(indexed, {"app/frame.py": FRAME + "\n\ndef g(x):\n    x.a = 1\n"},
                     method="app.frame.g") is None


PACKAGE = (
    "import os\n"
    "from .util import helper as helper, other\n"
    "from .star import *\n"
    "CONST: int = 1\n"
    "A, B = 1, 2\n"
    "try:\n    import fast\nexcept ImportError:\n    fast = None\n"
    "\n\n"
    "def __getattr__(name):\n"
    "    raise AttributeError(name)\n"
    "\n\n"
    "LATE = 2\n"
)


def test_a_modules_hook_never_runs_for_the_names_it_always_binds_first(
        tmp_path: Path) -> None:
    names = UnreadAttributes(WorkTree(tmp_path), {"app/__init__.py": PACKAGE}).module_names(
        "app/__init__.py")
    # not `fast` (the try may not bind it), not LATE (bound after the hook), not `*`
    assert names == {"os", "helper", "other", "CONST", "A", "B"}


@pytest.mark.parametrize("where, text", [
    ("app/__init__.py", PACKAGE + "del helper\n"),
    ("app/__init__.py", PACKAGE + "del (os, helper)\n"),
    ("app/__init__.py", PACKAGE + "def drop():\n    global helper\n    helper = None\n"),
    ("tests/test_x.py", "def test(monkeypatch):\n    monkeypatch.delattr(app, 'helper')\n"),
    ("tests/test_x.py", "def test(monkeypatch):\n"
                        "    monkeypatch.delattr('app.helper')\n"),
    ("tests/test_x.py", "def test():\n    del app.helper\n"),
    ("tests/test_x.py", "def test():\n    vars(app).pop('helper')\n"),
    ("tests/test_x.py", "def test():\n    assert app.__getattr__('helper')\n"),
])
def test_a_name_something_may_delete_is_not_always_there(
        tmp_path: Path, where: str, text: str) -> None:
    files = {"app/__init__.py": PACKAGE, where: text}
    for path, body in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    names = UnreadAttributes(WorkTree(tmp_path), {}).module_names("app/__init__.py")
    assert "helper" not in names and "CONST" in names


def test_a_module_that_edits_its_namespace_or_has_no_hook_has_none(tmp_path: Path) -> None:
    edited = {"a.py": PACKAGE + "globals()['x'] = 1\n", "b.py": "import os\n",
              "c.py": PACKAGE + "sys.modules[__name__].__dict__.clear()\n"}
    reader = UnreadAttributes(WorkTree(tmp_path), edited)
    assert reader.module_names("a.py") == frozenset()
    assert reader.module_names("b.py") == frozenset()
    assert reader.module_names("c.py") == frozenset()


def test_a_module_named_globals_is_not_its_namespace(tmp_path: Path) -> None:
    text = "from .globals import current as current\n\n\ndef __getattr__(name):\n    pass\n"
    names = UnreadAttributes(WorkTree(tmp_path), {"a.py": text}).module_names("a.py")
    assert names == {"current"}


def test_a_name_the_edit_binds_or_unbinds_is_not_always_there(tmp_path: Path) -> None:
    # the edit imports `late` (its hook branch for it ran before) and drops `helper`
    after = PACKAGE.replace("CONST: int = 1\n", "CONST: int = 1\nfrom .x import late\n")
    after = after.replace("from .util import helper as helper, other\n",
                          "from .util import other\n")
    path = "app/__init__.py"
    names = UnreadAttributes(WorkTree(tmp_path), {path: after}, {path: PACKAGE}).module_names(path)
    assert "late" not in names and "helper" not in names and "other" in names
    assert "late" in UnreadAttributes(WorkTree(tmp_path), {path: after}).module_names(path)


def test_a_before_text_that_does_not_parse_leaves_no_name_always_there(tmp_path: Path) -> None:
    path = "app/__init__.py"
    for broken in ("def f(:\n", "x = 1\0\n"):  # a syntax error; a null byte (ValueError)
        reader = UnreadAttributes(WorkTree(tmp_path), {path: PACKAGE}, {path: broken})
        assert reader.module_names(path) == frozenset()
