"""The repository's pytest collection rules: which configuration file counts, and
pytest's matching of file, class and function names."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from impactlens.index.python.pytest_config import DEFAULT, Collect, matches_file, matches_name, read


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_no_configuration_is_pytests_defaults(tmp_path):
    assert read(tmp_path) == DEFAULT
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "tox.ini": "[tox]\n",
                     "setup.cfg": "[metadata]\nname = x\n"})
    assert read(tmp_path) == DEFAULT  # none of them holds pytest options


def test_the_first_configuration_file_wins_in_pytests_order(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["p_*.py"]\n',
        "tox.ini": "[pytest]\npython_files = t_*.py\n",
        "setup.cfg": "[tool:pytest]\npython_files = s_*.py\n",
    })
    assert read(tmp_path).python_files == ("p_*.py",)
    (tmp_path / "pytest.ini").write_text("")  # pytest.ini counts even when empty
    assert read(tmp_path) == DEFAULT
    (tmp_path / "pytest.ini").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.black]\n")  # no pytest table: skipped
    assert read(tmp_path).python_files == ("t_*.py",)
    (tmp_path / "tox.ini").write_text("[tox]\nenvlist = py3\n")
    assert read(tmp_path).python_files == ("s_*.py",)


def test_ini_values_and_testpaths_globs(tmp_path):
    write(tmp_path, {"tests/unit/a.py": "", "tests/int/b.py": "", "docs/x.txt": "",
                     "pytest.ini": "[pytest]\ntestpaths = tests/* missing\n"
                                   "python_files = check_*.py\n    *_check.py\n"
                                   "python_classes = Check *Suite\n"
                                   "python_functions = check_\n"})
    got = read(tmp_path)
    assert got.testpaths == ("tests/int", "tests/unit")  # globbed; a missing one dropped
    assert got.python_files == ("check_*.py", "*_check.py")
    assert got.python_classes == ("Check", "*Suite")
    assert got.collects_class("CheckThing") and got.collects_class("MySuite")
    assert not got.collects_class("TestThing")
    assert got.collects_function("check_one") and not got.collects_function("test_one")
    assert Collect.from_key(got.key()) == got


def test_testpaths_and_python_files_pick_the_test_files(tmp_path):
    got = Collect(testpaths=("tests", "extra/test_one.py"))
    assert got.is_test_file("tests/test_a.py") and got.is_test_file("tests/sub/b_test.py")
    assert not got.is_test_file("scripts/test_tool.py")  # outside testpaths
    assert not got.is_test_file("tests_old/test_a.py")  # a sibling with the same prefix
    assert got.is_test_file("extra/test_one.py")
    assert got.is_test_file("scripts/conftest.py")  # fixtures wherever they are
    assert not got.is_test_file("tests/helpers.py")
    assert Collect(testpaths=("tests",), python_files=("check_*.py",)).is_test_file(
        "tests/check_x.py")


def test_a_broken_configuration_file_gives_the_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options\n")
    assert read(tmp_path) == DEFAULT


_name = st.text(alphabet="abcT_*?[]!.", min_size=0, max_size=8)
_plain = st.text(alphabet="abcT_.", min_size=1, max_size=6)


@given(st.lists(_plain, min_size=0, max_size=3), _name, _name)
def test_python_files_without_a_slash_match_the_base_name(dirs, name, pattern):
    path = "/".join([*dirs, name])
    assert matches_file(path, [pattern]) == fnmatchcase(name, pattern)


@given(_name, _name)
def test_names_match_by_prefix_or_glob_like_pytest(name, option):
    is_glob = any(c in option for c in "*?[")
    want = name.startswith(option) or (is_glob and fnmatchcase(name, option))
    assert matches_name(name, [option]) == want
    if not is_glob:
        assert matches_name(name, [option]) == name.startswith(option)


@given(st.lists(_plain, min_size=0, max_size=3), _name)
def test_the_defaults_are_the_old_name_rule(dirs, name):
    old = ((name.startswith("test_") and name.endswith(".py")) or name.endswith("_test.py")
           or name == "conftest.py")
    assert DEFAULT.is_test_file("/".join([*dirs, name])) == old


def test_rootdir_is_where_pytest_finds_its_configuration(tmp_path: Path) -> None:
    from impactlens.index.python.pytest_config import config_dir, node_id, repo_id, rootdir

    (tmp_path / "tests/unit").mkdir(parents=True)
    (tmp_path / "tests/unit/test_a.py").write_text("")
    assert rootdir(tmp_path, ["tests/unit/test_a.py::test_x"]) == ""  # nothing: the root
    (tmp_path / "setup.py").write_text("")
    assert rootdir(tmp_path, ["tests/unit/test_a.py"]) == ""
    (tmp_path / "tests/pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert rootdir(tmp_path, ["tests/unit/test_a.py"]) == "tests"  # a pyproject, last resort
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    assert rootdir(tmp_path, ["tests/unit/test_a.py"]) == ""  # a configuration file wins
    (tmp_path / "tests/tox.ini").write_text("[tox]\n")  # no [pytest]: not one
    assert rootdir(tmp_path, ["tests/unit"]) == ""
    (tmp_path / "tests/tox.ini").write_text("[pytest]\naddopts = -q\n")
    assert rootdir(tmp_path, ["tests/unit/test_a.py::T::test_x", "tests/test_b.py"]) == "tests"
    assert rootdir(tmp_path, ["tests/unit/test_a.py", "docs/test_c.py"]) == ""
    assert config_dir(tmp_path) == ""
    (tmp_path / "pytest.ini").unlink()
    assert config_dir(tmp_path) == "tests"
    assert node_id("tests/unit/test_a.py::T::test_x[1]", "tests") == "unit/test_a.py::T::test_x[1]"
    assert node_id("docs/test_c.py::test_y", "tests") == "../docs/test_c.py::test_y"
    assert repo_id("unit/test_a.py::T::test_x", "tests") == "tests/unit/test_a.py::T::test_x"
    assert repo_id("../docs/test_c.py::test_y", "tests") == "docs/test_c.py::test_y"
    assert node_id("t.py::x", "") == repo_id("t.py::x", "") == "t.py::x"


def test_a_configuration_in_the_tests_directory_is_read(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/pytest.ini").write_text(
        "[pytest]\npython_files = check_*.py\ntestpaths = unit\n")
    (tmp_path / "tests/unit").mkdir()
    got = read(tmp_path)
    assert got.python_files == ("check_*.py",) and got.testpaths == ("tests/unit",)
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\npython_files = t_*.py\n")
    assert read(tmp_path).python_files == ("t_*.py",)  # the root's comes first


def test_plugins_the_addopts_load_are_read(tmp_path):
    write(tmp_path, {"pyproject.toml": (
        '[tool.pytest.ini_options]\n'
        'addopts = "-q -p support.clock -pextra -p no:cacheprovider"\n')})
    got = read(tmp_path)
    assert got.plugins == ("support.clock", "extra")  # a disabled one is not loaded
    assert Collect.from_key(got.key()) == got
    assert Collect.from_key('{"testpaths": []}').plugins == ()  # a key stored before them
