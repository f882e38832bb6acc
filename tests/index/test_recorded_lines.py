"""Statement-level selection from a recorded run: a body edit selects the tests that ran the
changed statements (or the block that holds an added one), on a real repository and real
pytest runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_recording import pytest_run, record, relations, validate

from impactlens.api import Project
from impactlens.index.store import Store, index_path

SIGN = (
    "def sign(x):\n"            # 1
    '    """Sign of x."""\n'    # 2
    "    if x == 0:\n"          # 3
    "        return 'zero'\n"   # 4
    "    if x > 0:\n"           # 5
    "        label = 'pos'\n"   # 6
    "    else:\n"               # 7
    "        label = 'neg'\n"   # 8
    "    return label\n"        # 9
)
APP: dict[str, str] = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    ".gitignore": "__pycache__/\n.impactlens/\n",
    "src/app/__init__.py": "",
    "src/app/sign.py": SIGN,
    "tests/test_sign.py": (
        "from app.sign import sign\n\n\n"
        "def test_zero():\n    assert sign(0) == 'zero'\n\n\n"
        "def test_pos():\n    assert sign(3) == 'pos'\n\n\n"
        "def test_neg():\n    assert sign(-3) == 'neg'\n"
    ),
}
T = "tests/test_sign.py::"


@pytest.fixture
def recorded(make_repo: Callable[..., Path]) -> Path:
    repo = make_repo(APP)
    record(repo)
    return repo


def edit(repo: Path, old: str, new: str) -> tuple[set[str], str]:
    assert old in SIGN
    (repo / "src/app/sign.py").write_text(SIGN.replace(old, new))
    return validate(repo)


def test_each_test_keeps_the_lines_it_ran(recorded: Path) -> None:
    store = Store.open(index_path(recorded))
    lines = store.test_lines("app.sign.sign")
    assert lines == {T + "test_zero": "3-4", T + "test_pos": "3,5-6,9",
                     T + "test_neg": "3,5,8-9"}


def test_a_changed_statement_selects_the_tests_that_ran_it(recorded: Path) -> None:
    tests, note = edit(recorded, "label = 'neg'", "label = 'negative'")
    assert tests == {T + "test_neg"}
    assert "to the tests that ran the changed statements" in note
    assert relations(recorded)[T + "test_neg"] == "RECORDED"


def test_an_added_statement_selects_the_tests_that_ran_the_statement_before_it(
        recorded: Path) -> None:
    tests, _ = edit(recorded, "        label = 'neg'\n",
                    "        label = 'neg'\n        label = label.upper()\n")
    assert tests == {T + "test_neg"}
    # at the top level, after the `if x > 0` statement: whatever ran it (not test_zero)
    tests, _ = edit(recorded, "    return label\n", "    label += '!'\n    return label\n")
    assert tests == {T + "test_pos", T + "test_neg"}


def test_a_statement_starting_a_block_selects_the_tests_that_entered_the_block(
        recorded: Path) -> None:
    # whoever reaches the start of `else:` entered it: ran `label = 'neg'` (not test_pos,
    # which ran only the `if x > 0` header)
    tests, _ = edit(recorded, "    else:\n", "    else:\n        log = 1\n")
    assert tests == {T + "test_neg"}
    tests, _ = edit(recorded, "        label = 'pos'\n", "        log = 1\n        label = 'pos'\n")
    assert tests == {T + "test_pos"}
    tests, _ = edit(recorded, '    """Sign of x."""\n', '    """Sign of x."""\n    x += 0\n')
    assert tests == {T + "test_zero", T + "test_pos", T + "test_neg"}  # the body's start


def test_a_new_local_shadowing_a_global_read_elsewhere_widens_to_the_function(
        recorded: Path) -> None:
    tests, _ = edit(recorded, "label = 'neg'", "label = 'neg'; x = -x")
    assert tests == {T + "test_neg"}  # a statement added at the start of `else:`
    tests, _ = edit(recorded, "label = 'neg'", "label = str")  # `str` stays a global
    assert tests == {T + "test_neg"}


DESCRIBE = {
    "src/app/fmt.py": "from app.sign import sign\n\n\ndef describe(x):\n"
                      "    return sign(x).upper()\n",
    "tests/test_fmt.py": "from app.fmt import describe\n\n\n"
                         "def test_describe():\n    assert describe(0) == 'ZERO'\n",
}


def test_a_docstring_edit_selects_the_tests_that_name_the_function(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, **DESCRIBE})
    record(repo)
    (repo / "src/app/sign.py").write_text(SIGN.replace("Sign of x.", "The sign of x."))
    tests, note = validate(repo)
    # test_describe runs sign through describe but never holds it: it cannot read __doc__
    assert tests == {T + "test_zero", T + "test_pos", T + "test_neg"}
    assert relations(repo)[T + "test_neg"] == "TESTS"
    assert "narrowed the tests of 1 changed function" in note
    assert "1 docstring edit(s): with the tests that can read it" in note
    # with a statement changed too: the readers and the tests that ran the statement
    (repo / "src/app/sign.py").write_text(SIGN.replace("Sign of x.", "The sign of x.")
                                          .replace("return 'zero'", "return 'nil'"))
    assert validate(repo)[0] == {T + "test_zero", T + "test_pos", T + "test_neg",
                                 "tests/test_fmt.py::test_describe"}


TWICE = (
    "def twice(x):\n"
    '    """Double x.\n\n'
    "    >>> twice(2)\n"
    "    4\n"
    '    """\n'
    "    return 2 * x\n"
)


def test_a_docstring_edit_selects_the_functions_doctest(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({
        **APP, "pyproject.toml": APP["pyproject.toml"] + 'addopts = "--doctest-modules"\n',
        "src/app/twice.py": TWICE,
        "tests/test_twice.py": "from app.twice import twice\n\n\ndef test_twice():\n"
                               "    assert twice(1) == 2\n"})
    record(repo)
    (repo / "src/app/twice.py").write_text(TWICE.replace("twice(2)\n    4", "twice(3)\n    6"))
    tests, _ = validate(repo)
    assert tests == {"src/app/twice.py::app.twice.twice", "tests/test_twice.py::test_twice"}


def test_a_decorated_functions_docstring_edit_keeps_the_static_selection(
        make_repo: Callable[..., Path]) -> None:
    decorated = "import functools\n\n\n@functools.lru_cache\n" + SIGN
    dynamic = ("import importlib\n\n\ndef test_dynamic():\n"
               "    mod = importlib.import_module('app.' + 'sign')\n"
               "    assert getattr(mod, 'si' + 'gn')(0) == 'zero'\n")
    repo = make_repo({**APP, **DESCRIBE, "src/app/sign.py": decorated,
                      "tests/test_dynamic.py": dynamic})
    record(repo)
    doc = decorated.replace("Sign of x.", "The sign of x.")
    (repo / "src/app/sign.py").write_text(doc)
    tests, note = validate(repo)
    assert "tests/test_fmt.py::test_describe" in tests  # a decorator may read __doc__
    assert "tests/test_dynamic.py::test_dynamic" not in tests  # no static path: unseen
    assert "1 docstring edit(s)" in note
    # with a statement changed too, the recording adds who ran it (no static path does)
    (repo / "src/app/sign.py").write_text(doc.replace("return 'zero'", "return 'nil'"))
    tests, _ = validate(repo)
    assert {"tests/test_fmt.py::test_describe", "tests/test_dynamic.py::test_dynamic"} <= tests



META = (
    "def make_getattr(prefix):\n"
    "    def __getattr__(name):\n"
    "        if name == 'version':\n"
    "            return prefix + '1.0'\n"
    "        raise AttributeError(name)\n"
    "    return __getattr__\n\n\n"
    "__getattr__ = make_getattr('v')\n"
)


def test_an_edit_in_a_nested_function_built_at_import_selects_its_callers(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, "src/app/meta.py": META,
                      "tests/test_meta.py": "import app.meta\n\n\ndef test_version():\n"
                                            "    assert app.meta.version == 'v1.0'\n",
                      "tests/test_other.py": "import app.meta\n\n\ndef test_other():\n"
                                             "    assert app.meta.make_getattr\n"})
    record(repo)
    # the factory's def line ran at import (every importer), the body only when called
    (repo / "src/app/meta.py").write_text(META.replace(
        "        if name", "        name = name.lower()\n        if name"))
    tests, _ = validate(repo)
    assert tests == {"tests/test_meta.py::test_version"}


def test_an_edit_no_test_reaches_selects_none_and_says_so(
        make_repo: Callable[..., Path]) -> None:
    guarded = SIGN.replace("    if x == 0:\n", "    if x is None:\n        raise TypeError\n"
                           "    if x == 0:\n")
    repo = make_repo({**APP, "src/app/sign.py": guarded})
    record(repo)
    (repo / "src/app/sign.py").write_text(guarded.replace("raise TypeError",
                                                          "raise ValueError"))
    tests, note = validate(repo)
    assert tests == set()
    assert "no recorded test ran the changed statements of app.sign.sign" in note


def test_a_shared_fixture_counts_for_every_test_that_uses_it(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({
        **APP,
        "tests/conftest.py": (
            "import pytest\n\nfrom app.sign import sign\n\n\n"
            "@pytest.fixture(scope='session')\n"
            "def negative():\n    return sign(-1)\n"
        ),
        "tests/test_sign.py": (
            "def test_first(negative):\n    assert negative == 'neg'\n\n\n"
            "def test_second(negative):\n    assert negative == 'neg'\n\n\n"
            "def test_other():\n    assert True\n"
        ),
    })
    record(repo)
    lines = Store.open(index_path(repo)).test_lines("app.sign.sign")
    assert set(lines) == {T + "test_first", T + "test_second"}  # not only the first user
    tests, _ = edit(repo, "label = 'neg'", "label = 'negative'")
    assert tests == {T + "test_first", T + "test_second"}


REGISTRY = {
    **APP,
    "src/app/reg.py": (
        "NAMES = []\n\n\n"
        "def register(f, kind='plain'):\n"
        "    if kind == 'plain':\n"
        "        NAMES.append(f.__name__)\n"
        "    else:\n"
        "        NAMES.append(kind + f.__name__)\n"
        "    return f\n"
    ),
    # registers at its import, through the branch no other module takes
    "tests/test_special.py": (
        "from app.reg import NAMES, register\n\n\n"
        "def special():\n    return 1\n\n\n"
        "register(special, kind='x')\n\n\n"
        "def test_special():\n    assert 'xspecial' in NAMES\n"
    ),
    "tests/test_plain.py": (
        "from app.reg import NAMES, register\n\n\n"
        "@register\ndef plain():\n    return 1\n\n\n"
        "def test_plain():\n    assert 'plain' in NAMES\n"
    ),
}
REG = REGISTRY["src/app/reg.py"]


def test_lines_run_at_a_test_modules_import_select_that_modules_tests(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo(REGISTRY)
    record(repo)
    (repo / "src/app/reg.py").write_text(REG.replace("kind + f.__name__", "f.__name__ + kind"))
    tests, note = validate(repo)
    assert tests == {"tests/test_special.py::test_special"}
    assert "ran at import" in note
    (repo / "src/app/reg.py").write_text(REG.replace("return f", "return f  # noqa\n"
                                                     "    return f"))
    tests, _ = validate(repo)  # after the if statement: both modules' imports ran it
    assert tests == {"tests/test_special.py::test_special", "tests/test_plain.py::test_plain"}


def test_lines_run_at_a_conftest_import_or_in_a_hook_select_every_test(
        make_repo: Callable[..., Path]) -> None:
    changed = REG.replace("kind + f.__name__", "f.__name__ + kind")
    for conftest, by in (("from app.reg import register\n\n\n"
                          "register(print, kind='c')\n",  # at the conftest's import
                          "tests/conftest.py:4 (at its import)"),
                         ("from app.reg import register\n\n\n"
                          "def pytest_configure(config):\n"
                          "    register(print, kind='c')\n",  # outside tests and imports
                          "tests/conftest.py:5 (pytest_configure)")):
        repo = make_repo({**REGISTRY, "tests/test_special.py": "def test_x():\n    pass\n",
                          "tests/conftest.py": conftest})
        record(repo)
        (repo / "src/app/reg.py").write_text(changed)
        tests, note = validate(repo)
        # an error there stops pytest: test_x breaks too, though it imports nothing of app
        assert "tests/test_special.py::test_x" in tests
        assert tests == set(Store.open(index_path(repo)).recorded_tests())
        assert f"1 ran while pytest starts (app.reg.register from {by})" in note


def test_lines_run_at_an_import_a_conftest_began_select_every_test(
        make_repo: Callable[..., Path]) -> None:
    # the conftest imports app.lib, whose import registers through the changed branch: the
    # innermost module is app/lib.py, the chain began at the conftest's import
    repo = make_repo({**REGISTRY, "tests/test_special.py": "def test_x():\n    pass\n",
                      "src/app/lib.py": "from app.reg import register\n\n\n"
                                        "register(print, kind='c')\n",
                      "tests/conftest.py": "import app.lib  # noqa: F401\n"})
    record(repo)
    (repo / "src/app/reg.py").write_text(REG.replace("kind + f.__name__", "f.__name__ + kind"))
    tests, note = validate(repo)
    assert "tests/test_special.py::test_x" in tests  # imports nothing, breaks all the same
    assert tests == set(Store.open(index_path(repo)).recorded_tests())
    # what ran it: the conftest's import line, not app/lib.py in between
    assert "1 ran while pytest starts (app.reg.register from tests/conftest.py:1 " in note


def test_a_def_line_run_by_its_class_body_is_not_a_line_of_the_method(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({
        **APP,
        "src/app/shape.py": ("class Shape:\n"
                             "    def area(self):\n"
                             "        return 0\n"),
        "tests/test_shape.py": "from app.shape import Shape\n\n\n"
                               "def test_shape():\n    assert Shape\n",
    })
    record(repo)
    # the class body ran `def area` at import; no test called it
    assert Store.open(index_path(repo)).test_lines("app.shape.Shape.area") == {}


def test_a_functions_only_recording_selects_every_test_that_ran_the_function(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo(APP)
    pytest_run(repo, "--impact-record", "--impact-record-functions")
    assert set(Store.open(index_path(repo)).test_lines("app.sign.sign").values()) == {""}
    tests, note = edit(repo, "label = 'neg'", "label = 'negative'")
    assert tests == {T + "test_zero", T + "test_pos", T + "test_neg"}
    assert "functions only" in note and "changed statements" not in note


BOX = (
    "class Box:\n"
    "    def __init__(self, items):\n"
    "        self.items = list(items)\n"
    "\n"
    "    def size(self):\n"
    "        return len(self.items)\n"
)
BOXES: dict[str, str] = {
    **{k: v for k, v in APP.items() if not k.startswith("tests/")},
    "src/app/box.py": BOX,
    "tests/test_box.py": ("from app.box import Box\n\n\n"
                          "def test_size():\n    assert Box([1, 2]).size() == 2\n\n\n"
                          "def test_items():\n    assert Box('ab').items == ['a', 'b']\n"),
}


def test_a_store_nothing_reads_selects_no_test(make_repo: Callable[..., Path]) -> None:
    repo = make_repo(BOXES)
    record(repo)
    new = "        self.items = list(items)\n        self.sealed = False\n"
    (repo / "src/app/box.py").write_text(BOX.replace("        self.items = list(items)\n", new))
    tests, note = validate(repo)
    assert tests == set()
    assert "1 change only what no test can observe" in note
    # once something reads it, every test that builds a box may see it
    (repo / "src/app/seal.py").write_text("def sealed(box):\n    return box.sealed\n")
    tests, _ = validate(repo)
    assert tests == {"tests/test_box.py::test_size", "tests/test_box.py::test_items"}


def test_a_past_commits_store_is_not_judged_by_todays_files(
        make_repo: Callable[..., Path], git_commit: Callable[..., str]) -> None:
    # recorded at C1, where `seal.py` reads `sealed` if it is there; C2 adds the store, C3
    # removes the reader: judging C2 by the disk would call the store unread
    repo = make_repo({**BOXES, "src/app/seal.py": "def sealed(box):\n"
                                                  "    return getattr(box, 'sealed', False)\n"})
    record(repo)
    new = "        self.items = list(items)\n        self.sealed = False\n"
    (repo / "src/app/box.py").write_text(BOX.replace("        self.items = list(items)\n", new))
    c2 = git_commit(repo, None, "seal boxes")
    git_commit(repo, {"src/app/seal.py": None}, "drop the reader")
    with Project(repo) as project:
        result = project.analyze(rev=c2)
    assert set(result.validate) == {"tests/test_box.py::test_size",
                                    "tests/test_box.py::test_items"}


SHIM = (
    "from app.sign import sign as sign\n"
    "\n\n"
    "def __getattr__(name):\n"
    "    if name == 'old_sign':\n"
    "        return sign\n"
    "    raise AttributeError(name)\n"
)


def test_a_hook_branch_for_a_name_the_module_binds_selects_no_test(
        make_repo: Callable[..., Path]) -> None:
    # the test module holds the package, so pytest's collection asks the hook for names it
    # lacks while starting: any branch that can run selects every test
    repo = make_repo({**APP, "src/app/__init__.py": SHIM,
                      "tests/test_shim.py": "import app\n\n\ndef test_old():\n"
                                            "    assert app.old_sign(2) == 'pos'\n"})
    record(repo)
    branch = "    if name == '{}':\n        return sign\n    raise AttributeError(name)\n"
    (repo / "src/app/__init__.py").write_text(
        SHIM.replace("    raise AttributeError(name)\n", branch.format("sign")))
    tests, note = validate(repo)
    assert tests == set()
    assert "1 change only what no test can observe" in note
    (repo / "src/app/__init__.py").write_text(
        SHIM.replace("    raise AttributeError(name)\n", branch.format("new_sign")))
    tests, _ = validate(repo)
    assert len(tests) == 4  # run while pytest starts: every test
