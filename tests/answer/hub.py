"""A generated repository with a hub: an application class that every test builds, and a
small helper its constructor calls (the shape that floods a naive impact report)."""

from __future__ import annotations

HELPER = '''import os


def get_debug_flag():
    return os.environ.get("APP_DEBUG") == "1"
'''
HELPER_EDITED = HELPER.replace('== "1"', 'in ("1", "true")')

CORE = '''from app.config import get_debug_flag


class App:
    def __init__(self, name):
        self.name = name
        self.debug = get_debug_flag()
        self.routes = {}

    def route(self, path, view):
        self.routes[path] = view
        return view

    def handle(self, path):
        return self.routes[path]()
'''

CLI = '''from app.config import get_debug_flag


def banner():
    return "debug" if get_debug_flag() else "release"
'''

PLUGIN = '''from app.core import App


def make_{n}():
    app = App("plugin{n}")
    app.route("/{n}", lambda: {n})
    return app
'''

TEST = '''from app.core import App
from app.plugin{m} import make_{m}

{tests}
'''
ONE_TEST = '''
def test_case_{m}_{k}():
    app = App("t{k}")
    app.route("/x", lambda: {k})
    assert app.handle("/x") == {k}
    assert make_{m}().handle("/{m}") == {m}
'''

TEST_FILES = 16
TESTS_PER_FILE = 20


def hub_files() -> dict[str, str]:
    """The repository: 16 plugins building the application, 16 test files of 20 tests."""
    files = {"app/__init__.py": "", "app/config.py": HELPER, "app/core.py": CORE,
             "app/cli.py": CLI, "tests/__init__.py": ""}
    for m in range(TEST_FILES):
        files[f"app/plugin{m}.py"] = PLUGIN.format(n=m)
        body = "".join(ONE_TEST.format(m=m, k=k) for k in range(TESTS_PER_FILE))
        files[f"tests/test_plugin{m}.py"] = TEST.format(m=m, tests=body)
    return files


def all_test_ids() -> set[str]:
    return {f"tests/test_plugin{m}.py::test_case_{m}_{k}"
            for m in range(TEST_FILES) for k in range(TESTS_PER_FILE)}
