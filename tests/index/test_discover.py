"""File discovery and module naming."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from impactlens.index.discover import is_test_file, list_source_files, module_names


def names(*paths: str) -> dict[str, str]:
    return module_names(paths)


def test_src_layout_is_stripped():
    got = names("src/pkg/__init__.py", "src/pkg/sub/__init__.py", "src/pkg/sub/mod.py")
    assert got == {"src/pkg/__init__.py": "pkg", "src/pkg/sub/__init__.py": "pkg.sub",
                   "src/pkg/sub/mod.py": "pkg.sub.mod"}


def test_nested_package_root_is_the_top_most_package():
    got = names("a/b/pkg/__init__.py", "a/b/pkg/x.py")
    assert got["a/b/pkg/x.py"] == "pkg.x"


def test_files_outside_packages_are_named_by_path():
    got = names("tests/test_x.py", "setup.py", "src/tool.py")
    assert got == {"tests/test_x.py": "tests.test_x", "setup.py": "setup", "src/tool.py": "tool"}


def test_test_file_patterns():
    assert is_test_file("tests/test_a.py") and is_test_file("pkg/a_test.py")
    assert is_test_file("tests/conftest.py")
    assert not is_test_file("tests/helpers.py") and not is_test_file("src/testing.py")


def test_git_tree_lists_tracked_and_untracked_not_ignored(make_repo):
    root = make_repo({"a.py": "x = 1\n", ".gitignore": "ignored.py\n", "README": "hi\n"})
    (root / "new.py").write_text("y = 2\n")
    (root / "ignored.py").write_text("z = 3\n")
    assert list_source_files(root) == ["a.py", "new.py"]


_ident = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)


@given(st.lists(_ident, min_size=1, max_size=4), _ident)
def test_module_name_is_dotted_path_inside_a_package(dirs, stem):
    pkg_inits = ["/".join(dirs[: i + 1]) + "/__init__.py" for i in range(len(dirs))]
    path = "/".join(dirs) + f"/{stem}.py"
    got = module_names([*pkg_inits, path])
    if stem != "__init__":
        assert got[path] == ".".join([*dirs, stem])
