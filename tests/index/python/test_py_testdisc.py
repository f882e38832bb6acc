"""pytest/unittest discovery, parametrize ids, fixtures and TESTS edges."""

from __future__ import annotations

import ast

import pytest
from pyindex_helpers import Repo

from impactlens.index.python import pytest_marks as pm
from impactlens.model import EdgeKind, NodeKind

APP = {
    "app/__init__.py": "",
    "app/core.py": """
        class Service:
            def __init__(self, db):
                self.db = db
            def login(self, user):
                return check(user)

        def check(user):
            return bool(user)

        def connect():
            return Database()

        class Database:
            def close(self):
                pass
    """,
}


def units_of(r: Repo, test_id: str) -> set[str]:
    return {e.dst for e in r.edges if e.kind == EdgeKind.TESTS and e.src == test_id}


def test_pytest_functions_classes_and_unittest_cases() -> None:
    r = Repo({**APP, "tests/test_core.py": """
        import unittest
        from app.core import Service, check

        def helper_not_a_test():
            pass

        def test_check():
            check("u")

        class TestService:
            def test_login(self):
                Service(None).login("u")
            def helper(self):
                pass

        class TestWithInit:
            def __init__(self):
                pass
            def test_never_collected(self):
                pass

        class LoginCase(unittest.TestCase):
            def test_case(self):
                check(1)

        class NotATest:
            def test_x(self):
                pass
    """})
    tests = {n.id: n for n in r.nodes if n.kind == NodeKind.TEST}
    assert set(tests) == {
        "tests/test_core.py::test_check",
        "tests/test_core.py::TestService::test_login",
        "tests/test_core.py::LoginCase::test_case",
    }
    t = tests["tests/test_core.py::TestService::test_login"]
    assert t.qualname == "tests.test_core.TestService.test_login"
    assert t.parent == "tests.test_core.TestService"
    assert r.node("tests.test_core.helper_not_a_test").kind == NodeKind.FUNCTION
    assert r.node("tests.test_core.NotATest.test_x").kind == NodeKind.METHOD
    assert not [n for n in r.nodes if n.id == "tests.test_core.test_check"]
    assert units_of(r, "tests/test_core.py::test_check") == {"app.core.check"}
    assert units_of(r, "tests/test_core.py::TestService::test_login") == {
        "app.core.Service", "app.core.Service.__init__", "app.core.Service.login"}
    # the test's own call edges are emitted with the test id as source
    assert ("tests/test_core.py::test_check", "app.core.check") in r.pairs("call")
    assert ("tests.test_core.TestService", "tests/test_core.py::TestService::test_login") in \
        r.pairs("contains")


def test_inherited_and_nested_test_classes() -> None:
    r = Repo({**APP, "tests/base.py": """
        from app.core import check

        class Mixin:
            def test_shared(self):
                self.target()
            def target(self):
                check(1)
    """, "tests/test_inherit.py": """
        from app.core import connect
        from tests.base import Mixin

        class TestA(Mixin):
            def target(self):
                connect()

        class TestOuter:
            class TestInner:
                def test_deep(self):
                    connect()
    """})
    tests = {n.id for n in r.nodes if n.kind == NodeKind.TEST}
    assert tests == {"tests/test_inherit.py::TestA::test_shared",
                     "tests/test_inherit.py::TestOuter::TestInner::test_deep"}
    # self.target() dispatches on the subclass: TestA.target
    assert units_of(r, "tests/test_inherit.py::TestA::test_shared") == {
        "tests.test_inherit.TestA.target", "app.core.connect"}


def test_fixtures_conftest_transitive_autouse_usefixtures() -> None:
    r = Repo({**APP, "tests/conftest.py": """
        import pytest
        from app.core import connect, Service

        @pytest.fixture
        def db():
            conn = connect()
            yield conn
            conn.close()

        @pytest.fixture(name="svc")
        def make_service(db):
            return Service(db)

        @pytest.fixture(autouse=True)
        def always():
            pass
    """, "tests/unit/test_fx.py": """
        import pytest
        from app.core import check

        @pytest.fixture
        def local():
            check(0)

        def test_uses_svc(svc):
            svc.login("u")

        @pytest.mark.usefixtures("local")
        def test_marked():
            pass
    """})
    got = units_of(r, "tests/unit/test_fx.py::test_uses_svc")
    assert got >= {"tests.conftest.make_service", "tests.conftest.db", "app.core.connect",
                   "app.core.Database.close", "app.core.Service", "tests.conftest.always"}
    marked = units_of(r, "tests/unit/test_fx.py::test_marked")
    assert marked == {"tests.unit.test_fx.local", "app.core.check", "tests.conftest.always"}


def test_setup_methods_and_test_module_helpers_one_level() -> None:
    r = Repo({**APP, "tests/test_setup.py": """
        import unittest
        from app.core import connect, Service

        def make():
            return Service(None)

        def deep_helper():
            make()

        class Case(unittest.TestCase):
            def setUp(self):
                self.db = connect()

            def test_a(self):
                make()
                deep_helper()
    """})
    got = units_of(r, "tests/test_setup.py::Case::test_a")
    assert got == {"tests.test_setup.make", "tests.test_setup.deep_helper",
                   "tests.test_setup.Case.setUp", "app.core.connect", "app.core.Service",
                   "app.core.Service.__init__"}


def test_parametrize_ids_on_nodes() -> None:
    r = Repo({"tests/test_p.py": """
        import pytest

        @pytest.mark.parametrize("x", [0, 1])
        @pytest.mark.parametrize("y", [2, 3])
        def test_product(x, y):
            pass

        @pytest.mark.parametrize("a,b", [(1, "x y"), pytest.param(2, None, id="two")])
        def test_params(a, b):
            pass

        @pytest.mark.parametrize("v", [f(), 2])
        def test_dynamic(v):
            pass

        @pytest.mark.parametrize("v", [1])
        class TestCls:
            @pytest.mark.parametrize("w", ["a"])
            def test_m(self, v, w):
                pass
    """})
    params = {n.id: n.params for n in r.nodes if n.kind == NodeKind.TEST}
    assert params == {
        "tests/test_p.py::test_product": ("2-0", "2-1", "3-0", "3-1"),
        "tests/test_p.py::test_params": ("1-x y", "two"),
        "tests/test_p.py::test_dynamic": (),
        "tests/test_p.py::TestCls::test_m": ("a-1",),
    }


@pytest.mark.parametrize(("src", "ids"), [
    ('("x", [1, 1, 2])', ["1_0", "1_1", "2"]),
    ('("x", ["a", "a"])', ["a0", "a1"]),
    ('("x", [True, None, 1.5, -3])', ["True", "None", "1.5", "-3"]),
    ('("x", [[1], {"k": 1}, (lambda: 0)])', ["x0", "x1", "<lambda>"]),
    ('("x", ["é\\n"])', ["\\xe9\\n"]),
    ('("x", ["a" * 101])', None),
    ('("x", [1, 2], ids=["one", None])', ["one", "2"]),
    ('(["a", "b"], [(1, 2)])', ["1-2"]),
    ('("x", [1], ids=some_func)', None),
])
def test_parametrize_id_rules(src: str, ids: list[str] | None) -> None:
    call = ast.parse("pytest.mark.parametrize" + src, mode="eval").body
    got = pm.parametrize_ids(call)
    if src.startswith('("x", ["a" * 101])'):
        assert got is None  # not a literal: unknown
    else:
        assert got == ids


def test_long_string_param_uses_argname_index() -> None:
    call = ast.parse('pytest.mark.parametrize("x", [' + repr("a" * 101) + ', "b"])',
                     mode="eval").body
    assert pm.parametrize_ids(call) == ["x0", "b"]


def test_rootdir_sibling_imports_in_test_dirs() -> None:
    r = Repo({
        "tests/helpers_mod.py": "def build():\n    pass\n",
        "tests/test_sib.py": "from helpers_mod import build\n\ndef test_b():\n    build()\n",
    })
    assert units_of(r, "tests/test_sib.py::test_b") == {"tests.helpers_mod.build"}


def test_parametrized_classes_and_plugin_fixtures_are_units() -> None:
    r = Repo({**APP, "tests/fixtures.py": """
        import pytest
        from app.core import connect

        @pytest.fixture
        def conn():
            return connect()
    """, "tests/conftest.py": """
        pytest_plugins = ["tests.fixtures"]
    """, "tests/test_param.py": """
        import pytest
        from app.core import Service, Database

        @pytest.mark.parametrize("cls", [Service, Database])
        def test_kinds(cls, conn):
            pass
    """})
    assert units_of(r, "tests/test_param.py::test_kinds") == {
        "app.core.Service", "app.core.Database", "tests.fixtures.conn", "app.core.connect"}
