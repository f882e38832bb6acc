"""A test's or fixture's parameter named after a fixture receives the fixture's value."""

from __future__ import annotations

from pyindex_helpers import Repo

from impactlens.model import EdgeKind

APP = {
    "app/__init__.py": "",
    "app/core.py": """
        class Service:
            def __init__(self, db):
                self.db = db
            def login(self, user):
                return user

        class Database:
            def close(self):
                pass
            def query(self, q):
                return q

        def connect():
            return Database()
    """,
}

CONFTEST = """
    import pytest
    from app.core import Service, connect

    @pytest.fixture
    def db():
        conn = connect()
        yield conn
        conn.close()

    @pytest.fixture(name="svc")
    def make_service(db):
        db.query("warm")
        return Service(db)

    @pytest.fixture
    def maker():
        def make(x):
            return Service(x)
        return make

    @pytest.fixture
    def built(maker):
        return maker(1)
"""


def unknown_texts(r: Repo, path: str) -> set[str]:
    return {u.text for u in r.unresolved if u.file == path and u.reason == "unknown-receiver"}


def test_a_test_parameter_gets_the_conftest_fixture_return_type() -> None:
    r = Repo({**APP, "tests/conftest.py": CONFTEST, "tests/test_svc.py": """
        def test_login(svc):
            svc.login("u")
    """})
    edge = r.edge("tests/test_svc.py::test_login", "app.core.Service.login")
    assert edge.resolution.value == "inferred"  # it relies on the fixture's return
    tested = {e.dst for e in r.edges if e.kind == EdgeKind.TESTS
              and e.src == "tests/test_svc.py::test_login"}
    assert "app.core.Service.login" in tested
    assert unknown_texts(r, "tests/test_svc.py") == set()


def test_generator_fixture_gives_what_it_yields_and_fixtures_request_fixtures() -> None:
    r = Repo({**APP, "tests/conftest.py": CONFTEST, "tests/test_db.py": """
        def test_query(db):
            db.query("x")

        def test_built(built):
            built.login("u")
    """})
    assert "app.core.Database.query" in r.calls_from("tests/test_db.py::test_query")
    # a fixture's own parameter is typed the same way (make_service(db) -> db.query)
    assert "app.core.Database.query" in r.calls_from("tests.conftest.make_service")
    # a fixture returning a local factory: the requesting fixture calls the factory
    assert "tests.conftest.maker.make" in r.calls_from("tests.conftest.built")
    assert "app.core.Service.login" in r.calls_from("tests/test_db.py::test_built")


def test_the_nearest_fixture_wins_and_class_fixtures_count() -> None:
    r = Repo({**APP, "tests/conftest.py": CONFTEST, "tests/test_near.py": """
        import pytest
        from app.core import Database

        @pytest.fixture
        def svc():
            return Database()

        def test_near(svc):
            svc.query("x")

        class TestInClass:
            @pytest.fixture
            def db(self):
                from app.core import Service
                return Service(None)

            def test_cls(self, db):
                db.login("u")
    """})
    assert r.calls_from("tests/test_near.py::test_near") >= {"app.core.Database.query"}
    assert "app.core.Service.login" not in r.calls_from("tests/test_near.py::test_near")
    assert "app.core.Service.login" in r.calls_from("tests/test_near.py::TestInClass::test_cls")


def test_no_guess_without_a_fixture_or_outside_tests_and_fixtures() -> None:
    r = Repo({**APP, "tests/conftest.py": CONFTEST, "tests/test_none.py": """
        def helper(svc):
            svc.login("u")

        def test_unknown(nothing, request):
            nothing.run()
            request.getfixturevalue("svc")
    """, "app/use.py": """
        def test_like(svc):
            svc.login("u")
    """})
    assert "app.core.Service.login" not in r.calls_from("tests.test_none.helper")
    assert unknown_texts(r, "tests/test_none.py") >= {
        "svc.login(...)", "nothing.run(...)", "request.getfixturevalue(...)"}
    # library code is not a test module: its parameters are never fixtures
    assert "app.core.Service.login" not in r.calls_from("app.use.test_like")


def test_pytest_builtin_fixtures_are_external_instances() -> None:
    r = Repo({**APP, "tests/conftest.py": CONFTEST, "tests/test_builtin.py": """
        def test_env(monkeypatch, tmp_path, capsys):
            monkeypatch.setenv("A", "1")
            (tmp_path / "x").write_text("y")
            tmp_path.mkdir()
            capsys.readouterr()
    """})
    names = {n for u in r.unresolved if u.file == "tests/test_builtin.py"
             for n in u.names if "." in n}
    assert {"pytest.MonkeyPatch.setenv", "pathlib.Path.mkdir",
            "pytest.CaptureFixture.readouterr"} <= names
    assert unknown_texts(r, "tests/test_builtin.py") <= {"<expr>.write_text(...)"}
