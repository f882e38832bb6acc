"""§3.5 / phase 3: the TDAD-style test-impact map and ``test_map.txt``."""

from __future__ import annotations

import re

import pytest

from impact.graphs import Graph, module_of
from impactlens.impact import testmap as tm
from impactlens.impact.pipeline import run_pipeline
from impactlens.impact.relations import select_relations
from impactlens.impact.walk import walk
from impactlens.model import AtomicChange, ChangeType, EdgeKind, FileChange, RelationSet
from impactlens.settings import DEFAULT

SEED = "app.auth.login"


def confs(g: Graph, change_type: ChangeType | None = None, seed: str = SEED,
          **settings: object) -> dict[str, float]:
    """``{test id: confidence}`` of the tests a change of ``seed`` affects; by default a
    body change whose escape gate stopped the walk at depth 0."""
    s = DEFAULT.replace(**settings) if settings else DEFAULT
    c = AtomicChange(change_type or ChangeType.METHOD_BODY, seed, "app/auth.py", (1, 1))
    rels = (select_relations(c) if change_type is not None
            else RelationSet(ChangeType.METHOD_BODY, (), gated=True))
    res = walk(g, seed, rels, s)
    return {t.test_id: t.conf for t in tm.change_tests(g, c, res, seed, s)}


@pytest.fixture
def g() -> Graph:
    g = Graph()
    g.module("app.auth")
    g.fn(SEED)
    g.contains("app.auth", SEED)
    g.fn("app.views.home")
    g.fn("app.views.page")
    g.test("tests/test_auth.py::test_login")
    g.tests("tests/test_auth.py::test_login", SEED)
    return g


def test_direct_tests_edge_scores_one(g):
    assert confs(g) == {"tests/test_auth.py::test_login": 1.0}


def test_two_hop_calls_path_scores_0_56(g):
    g.test("tests/test_views.py::test_page")
    g.call("tests/test_views.py::test_page", "app.views.home")
    g.call("app.views.home", SEED)
    assert confs(g)["tests/test_views.py::test_page"] == 0.56


def test_tests_of_a_caller_score_0_56_when_the_walk_does_not_reach_it(g):
    # a body change gated to depth 0 still validates through the callers' tests
    g.call("app.views.home", SEED)
    g.test("tests/test_views.py::test_home")
    g.tests("tests/test_views.py::test_home", "app.views.home")
    assert confs(g)["tests/test_views.py::test_home"] == 0.56
    # a walked member's direct test scores 1.0
    assert confs(g, ChangeType.METHOD_SIGNATURE)["tests/test_views.py::test_home"] == 1.0


def test_imports_path_scores_0_45(g):
    g.module("tests.test_misc", file="tests/test_misc.py")
    g.test("tests/test_misc.py::test_misc")
    g.contains("tests.test_misc", "tests/test_misc.py::test_misc")
    g.edge("tests.test_misc", "app.auth", EdgeKind.IMPORT)
    assert confs(g)["tests/test_misc.py::test_misc"] == 0.45


def test_containment_and_inheritance_weights(g):
    g.cls("app.auth.Service")
    g.method("app.auth.Service.run")
    g.contains("app.auth.Service", "app.auth.Service.run")
    g.cls("app.auth.Sub")
    g.edge("app.auth.Sub", "app.auth.Service", EdgeKind.INHERIT)
    g.test("tests/test_auth.py::test_service")
    g.tests("tests/test_auth.py::test_service", "app.auth.Service")
    g.test("tests/test_auth.py::test_sub")
    g.tests("tests/test_auth.py::test_sub", "app.auth.Sub")
    got = confs(g, seed="app.auth.Service.run")
    assert got["tests/test_auth.py::test_service"] == 0.5  # CONTAINS
    assert got["tests/test_auth.py::test_sub"] == 0.5  # CONTAINS then INHERITS: weakest edge
    got = confs(g, seed="app.auth.Service")
    assert got["tests/test_auth.py::test_sub"] == 0.56  # INHERITS


def test_below_threshold_is_excluded(g):
    g.module("tests.test_misc", file="tests/test_misc.py")
    g.test("tests/test_misc.py::test_misc")
    g.contains("tests.test_misc", "tests/test_misc.py::test_misc")
    g.edge("tests.test_misc", "app.auth", EdgeKind.IMPORT)
    weights = dict(DEFAULT.test_edge_weights, IMPORTS=0.3)
    got = confs(g, test_edge_weights=weights)
    assert "tests/test_misc.py::test_misc" not in got  # 0.3 < TEST_MIN = 0.45
    assert got == {"tests/test_auth.py::test_login": 1.0}


def test_imports_only_tests_are_a_fallback(g):
    """An IMPORTS-only test joins only when no test reaches the change over an execution
    path (settings.test_imports_fallback, off by default: the spec set keeps both)."""
    g.module("tests.test_misc", file="tests/test_misc.py")
    g.test("tests/test_misc.py::test_misc")
    g.contains("tests.test_misc", "tests/test_misc.py::test_misc")
    g.edge("tests.test_misc", "app.auth", EdgeKind.IMPORT)
    assert confs(g, test_imports_fallback=True) == {"tests/test_auth.py::test_login": 1.0}
    assert confs(g) == {
        "tests/test_auth.py::test_login": 1.0, "tests/test_misc.py::test_misc": 0.45}


def test_imports_only_tests_stand_in_when_nothing_executes_the_change():
    g = Graph()
    g.module("app.auth")
    g.fn(SEED)
    g.contains("app.auth", SEED)
    g.module("tests.test_misc", file="tests/test_misc.py")
    g.test("tests/test_misc.py::test_misc")
    g.contains("tests.test_misc", "tests/test_misc.py::test_misc")
    g.edge("tests.test_misc", "app.auth", EdgeKind.IMPORT)
    assert confs(g, test_imports_fallback=True) == {"tests/test_misc.py::test_misc": 0.45}


def test_unrelated_test_is_not_mapped(g):
    g.test("tests/test_other.py::test_other")
    g.tests("tests/test_other.py::test_other", "app.views.page")
    assert "tests/test_other.py::test_other" not in confs(g)


def test_paths_longer_than_max_depth_are_not_followed(g):
    chain = ["app.m.a", "app.m.b", "app.m.c", "app.m.d"]
    g.call(chain[0], SEED)
    for x, y in zip(chain[1:], chain, strict=False):
        g.call(x, y)
    g.test("tests/test_far.py::test_far")
    g.tests("tests/test_far.py::test_far", "app.m.d")
    assert "tests/test_far.py::test_far" not in confs(g)


def test_merge_caps_pairs_and_sorts_by_confidence_within_file():
    items = [
        tm.TestImpact("b.py", "t::x", 0.56, "v", "CALLS"),
        tm.TestImpact("a.py", "t::y", 0.45, "v", "IMPORTS"),
        tm.TestImpact("a.py", "t::z", 1.0, "v", "TESTS"),
        tm.TestImpact("a.py", "t::y", 0.5, "v", "CONTAINS"),
    ]
    merged = tm.merge_test_map([items], DEFAULT)
    assert [(t.file, t.test_id, t.conf) for t in merged] == [
        ("a.py", "t::z", 1.0), ("a.py", "t::y", 0.5), ("b.py", "t::x", 0.56)]
    capped = tm.merge_test_map([items], DEFAULT.replace(max_test_pairs=2))
    assert [(t.file, t.test_id) for t in capped] == [("a.py", "t::z"), ("b.py", "t::x")]


def test_test_map_txt_lines_are_file_test_id_conf(g):
    g.call("app.views.home", SEED)
    g.test("tests/test_views.py::TestViews::test_home[a-1]")
    g.tests("tests/test_views.py::TestViews::test_home[a-1]", "app.views.home")
    before = "def login(user):\n    return user\n"
    after = "def login(user):\n    return user.strip()\n"
    res = run_pipeline(g, [FileChange("app/auth.py", before, after)], module_of=module_of)
    text = res.test_map_text()
    assert text == ("app/auth.py tests/test_auth.py::test_login 1.0\n"
                    "app/auth.py tests/test_views.py::TestViews::test_home[a-1] 1.0\n")
    for line in text.splitlines():
        assert re.fullmatch(r"\S+ \S+ (1\.0|0\.\d+)", line)
    assert res.validate == ("tests/test_auth.py::test_login",
                            "tests/test_views.py::TestViews::test_home[a-1]")


def test_body_change_without_escape_still_validates_its_direct_tests(g):
    g.call("app.views.home", SEED)
    before = "def login(user):\n    x = 1\n    return user\n"
    after = "def login(user):\n    x = 2\n    return user\n"
    res = run_pipeline(g, [FileChange("app/auth.py", before, after)], module_of=module_of)
    assert res.per_change[0].walk.relations.gated
    assert res.per_change[0].walk.members == ()
    assert "tests/test_auth.py::test_login" in res.validate


def test_a_changed_test_validates_itself():
    g = Graph()
    g.test("tests/test_auth.py::test_login")
    before = "def test_login():\n    assert 1\n"
    after = "def test_login():\n    assert 2\n"
    res = run_pipeline(g, [FileChange("tests/test_auth.py", before, after)],
                       module_of=module_of)
    assert res.changes[0].entity == "tests.test_auth.test_login"
    assert res.validate == ("tests/test_auth.py::test_login",)


def test_validation_set_is_not_cut_by_the_pair_cap(g):
    for i in range(5):
        g.test(f"tests/test_many.py::test_{i}")
        g.tests(f"tests/test_many.py::test_{i}", SEED)
    before = "def login(user):\n    return user\n"
    after = "def login(user, code):\n    return user\n"
    res = run_pipeline(g, [FileChange("app/auth.py", before, after)], module_of=module_of,
                       settings=DEFAULT.replace(max_test_pairs=3))
    assert len(res.test_map) == 3 and len(res.test_map_text().splitlines()) == 3
    assert len(res.validate) == 6


def _test_module(g: Graph, name: str, imports: str) -> str:
    """A test module ``tests.<name>`` with one test, importing ``imports``."""
    g.module(f"tests.{name}", file=f"tests/{name}.py")
    test = f"tests/{name}.py::test_it"
    g.test(test)
    g.contains(f"tests.{name}", test)
    g.edge(f"tests.{name}", imports, EdgeKind.IMPORT)
    return test


def test_imports_count_only_from_the_sources_not_from_modules_met_on_the_way(g):
    # home calls login; a body change gated at depth 0 reaches home's tests through
    # CALLS, but a test module importing home's module is not thereby affected
    g.module("app.views")
    g.contains("app.views", "app.views.home")
    g.call("app.views.home", SEED)
    far = _test_module(g, "test_views", "app.views")
    near = _test_module(g, "test_auth_imports", "app.auth")
    g.module("app.auth")
    g.contains("app.auth", SEED)
    got = confs(g)
    assert got[near] == 0.45
    assert far not in got
    # once home is a walk member (a signature change), its module's importers count
    got = confs(g, ChangeType.METHOD_SIGNATURE)
    assert got[far] == 0.45


def test_a_class_is_not_followed_up_to_its_base(g):
    # tests that use the base class do not run the changed subclass
    g.cls("app.base.Base")
    g.cls("app.auth.Sub")
    g.edge("app.auth.Sub", "app.base.Base", EdgeKind.INHERIT)
    g.test("tests/test_base.py::test_base")
    g.tests("tests/test_base.py::test_base", "app.base.Base")
    g.module("app.base")
    g.contains("app.base", "app.base.Base")
    user = _test_module(g, "test_base_users", "app.base.Base")
    got = confs(g, seed="app.auth.Sub")
    assert "tests/test_base.py::test_base" not in got and user not in got
    # … while the subclass's tests do run the changed base
    g.test("tests/test_sub.py::test_sub")
    g.tests("tests/test_sub.py::test_sub", "app.auth.Sub")
    assert confs(g, seed="app.base.Base")["tests/test_sub.py::test_sub"] == 0.56


def test_callers_of_the_overridden_base_method_may_dispatch_to_the_changed_override(g):
    g.method("app.base.Base.run")
    g.method("app.auth.Sub.run")
    g.edge("app.auth.Sub.run", "app.base.Base.run", EdgeKind.OVERRIDE)
    g.method("app.base.Base.template")
    g.call("app.base.Base.template", "app.base.Base.run")
    g.test("tests/test_base.py::test_template")
    g.tests("tests/test_base.py::test_template", "app.base.Base.template")
    assert confs(g, seed="app.auth.Sub.run")["tests/test_base.py::test_template"] == 0.56
    # a sibling override is not reached through the base
    g.method("app.other.Other.run")
    g.edge("app.other.Other.run", "app.base.Base.run", EdgeKind.OVERRIDE)
    g.test("tests/test_other.py::test_other")
    g.tests("tests/test_other.py::test_other", "app.other.Other.run")
    assert "tests/test_other.py::test_other" not in confs(g, seed="app.auth.Sub.run")


def test_an_added_module_level_statement_runs_in_every_test_importing_the_module():
    g = Graph()
    g.module("app.places", file="app/places.py")
    g.fn("app.places.load", file="app/places.py")
    g.contains("app.places", "app.places.load")  # the index links each top-level def
    user = _test_module(g, "test_places", "app.places.load")  # from app.places import load
    other = _test_module(g, "test_other", "app.other.thing")
    before = "def load():\n    return 1\n"
    res = run_pipeline(g, [FileChange("app/places.py", before, "import json\n" + before)],
                       module_of=module_of)
    assert [(c.change_type.value, c.kind) for c in res.changes] == [("add", "import")]
    assert res.validate == (user,) and other not in res.validate
    assert res.test_map[0].conf == 0.45 and res.triage.may_impact == ()  # no obligation


def test_an_added_override_runs_in_the_tests_that_reach_the_base_on_its_class():
    g = Graph()
    g.cls("app.b.Backend")
    g.method("app.b.Backend.describe")
    for sub in ("Token", "Password"):
        g.cls(f"app.b.{sub}")
        g.edge(f"app.b.{sub}", "app.b.Backend", EdgeKind.INHERIT)
        g.test(f"tests/test_b.py::test_{sub.lower()}")
        g.new(f"tests/test_b.py::test_{sub.lower()}", f"app.b.{sub}")
        g.tests(f"tests/test_b.py::test_{sub.lower()}", "app.b.Backend.describe")
    before = "class Token(Backend):\n    kind = 't'\n"
    after = before + "\n    def describe(self):\n        return 't'\n"
    res = run_pipeline(g, [FileChange("app/b.py", before, after)], module_of=module_of)
    assert res.validate == ("tests/test_b.py::test_token",)
    (t,) = res.test_map
    assert (t.conf, t.via, t.relation) == (0.56, "app.b.Backend.describe", "INHERITS")
    # a brand-new function runs nowhere yet
    fresh = run_pipeline(g, [FileChange("app/b.py", before, before + "\n\ndef f():\n    pass\n")],
                         module_of=module_of)
    assert fresh.validate == ()


def _import_time_graph() -> Graph:
    """app.models' top level calls the change (a class decorator applied at import);
    app/__init__ imports app.models; test_pkg imports the package and calls nothing;
    test_lazy imports app.models only inside its test function."""
    g = Graph()
    g.module("app.auth")
    g.fn(SEED)
    g.contains("app.auth", SEED)
    g.fn("app.auth.register")
    g.call("app.auth.register", SEED)
    g.module("app.models")
    g.call("app.models", "app.auth.register")  # @register at module level
    g.module("app", file="app/__init__.py")
    g.edge("app", "app.models", EdgeKind.IMPORT)
    for name in ("test_pkg", "test_lazy", "test_other"):
        g.module(f"tests.{name}", file=f"tests/{name}.py")
        g.test(f"tests/{name}.py::test_it")
        g.contains(f"tests.{name}", f"tests/{name}.py::test_it")
    g.edge("tests.test_pkg", "app", EdgeKind.IMPORT)
    g.edge("tests/test_lazy.py::test_it", "app.models", EdgeKind.IMPORT)
    g.edge("tests.test_other", "app.views", EdgeKind.IMPORT)
    return g


def test_tests_importing_a_module_whose_top_level_runs_the_change_are_affected():
    got = confs(_import_time_graph())
    # through the package's import of app.models: importing runs the decorator
    assert got["tests/test_pkg.py::test_it"] == 0.45
    assert got["tests/test_lazy.py::test_it"] == 0.45  # the import statement runs in the test
    assert "tests/test_other.py::test_it" not in got


def test_a_module_merely_containing_a_caller_makes_no_importer_affected():
    g = _import_time_graph()
    g.edges = [e for e in g.edges if not (e.src == "app.models" and e.kind is EdgeKind.CALL)]
    g.fn("app.models.setup")
    g.contains("app.models", "app.models.setup")
    g.call("app.models.setup", "app.auth.register")  # runs only when setup() is called
    assert "tests/test_pkg.py::test_it" not in confs(g)
