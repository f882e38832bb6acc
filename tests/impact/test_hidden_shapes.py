"""Hidden-channel shapes: names and dotted paths in strings reach the changed entity.

Each shape is either resolved (an edge: the dependent is walked like any caller) or
flagged (an un-analyzable site that may reach the change) — never silent.
"""

from __future__ import annotations

import pytest

from impactlens.impact.config_refs import config_hits, plugin_paths
from impactlens.model import AtomicChange, ChangeType

OPS = {
    "app/__init__.py": "",
    "app/ops.py": (
        "def export_csv(rows):\n    return ','.join(rows)\n\n\n"
        "def other(rows):\n    return rows\n"
    ),
}
OLD, NEW = "','.join(rows)", "';'.join(rows)"


def analyze(indexed, extra: dict[str, str], path: str = "app/ops.py", old: str = OLD,
            new: str = NEW):
    with indexed({**OPS, **extra}) as p:
        before = (p.root / path).read_text()
        assert old in before
        return p.analyze_before_after(path, before, before.replace(old, new), refresh=False)


def flagged(res) -> dict[str, str]:
    return {u.scope: u.affects for u in res.unanalyzable}


def walked(res) -> dict[str, str]:
    """Entities the structural answer lists (MUST or MAY), with their bucket."""
    return {e.entity: e.bucket.value for e in (*res.triage.must_inspect, *res.triage.may_impact)}


# ---------------------------------------------------------------- registries of names

def test_a_table_of_names_read_by_getattr_is_flagged(indexed):
    res = analyze(indexed, {"app/service.py": (
        "from app import ops\n\nNAMES = {'csv': 'export_csv', 'raw': 'other'}\n\n\n"
        "def export(fmt, rows):\n    return getattr(ops, NAMES[fmt])(rows)\n")})
    assert flagged(res) == {"app.service.export": "app.ops.export_csv"}
    assert res.unanalyzable[0].reason == "dynamic-getattr"


def test_a_table_of_names_imported_from_another_module_is_flagged(indexed):
    res = analyze(indexed, {
        "app/names.py": "NAMES = ('export_csv', 'other')\n",
        "app/service.py": (
            "from app import ops\nfrom app.names import NAMES\n\n\n"
            "def export_all(rows):\n    return [getattr(ops, n)(rows) for n in NAMES]\n"),
    })
    assert flagged(res) == {"app.service.export_all": "app.ops.export_csv"}


def test_a_table_of_other_names_flags_nothing(indexed):
    res = analyze(indexed, {"app/service.py": (
        "from app import ops\n\nNAMES = {'raw': 'other'}\n\n\n"
        "def export(fmt, rows):\n    return getattr(ops, NAMES[fmt])(rows)\n")})
    assert flagged(res) == {}


# ---------------------------------------------------------------- dotted paths in code

LOADER = (
    "import importlib\n\n\ndef load(path):\n"
    "    mod, _, name = path.replace(':', '.').rpartition('.')\n"
    "    return getattr(importlib.import_module(mod), name)\n\n\n"
)


@pytest.mark.parametrize("path", ["app.ops.export_csv", "app.ops:export_csv"])
def test_a_dotted_path_handed_to_a_loader_is_an_edge_and_flagged(indexed, path):
    res = analyze(indexed, {
        "app/service.py": LOADER + f"def export(rows):\n    return load({path!r})(rows)\n",
        "tests/test_service.py": "from app.service import export\n\n\n"
                                 "def test_export():\n    assert export(['a']) == 'a'\n",
    })
    # the index has the reference; it is no call the walk follows, so it is reported
    hits = [(u.scope, u.reason, u.affects) for u in res.unanalyzable]
    assert ("app.service.export", "dotted-path", "app.ops.export_csv") in hits
    assert "tests/test_service.py::test_export" in res.validate


def test_a_dotted_path_is_a_use_edge_of_the_index(indexed):
    with indexed({**OPS, "app/service.py": "ROUTES = {'csv': 'app.ops:export_csv'}\n"}) as p:
        (e,) = [e for e in p.store.in_edges("app.ops.export_csv") if e.kind.value == "use"]
    assert (e.src, e.line, e.detail) == ("app.service", 1, '{"access":"path"}')


def test_a_dotted_path_naming_nothing_in_the_repository_is_no_edge(indexed):
    res = analyze(indexed, {"app/service.py": (
        "def load(path):\n    return path\n\n\n"
        "def export(rows):\n    return load('app.ops.missing'), load('os.path.join')\n")})
    assert "app.service.export" not in walked(res)
    assert "app.service.export" not in flagged(res)


# ---------------------------------------------------------------- configuration

@pytest.mark.parametrize(("path", "text", "line"), [
    ("pyproject.toml", "[project]\nname = 'app'\nversion = '1'\n\n"
     "[project.entry-points.'app.exporters']\ncsv = 'app.ops:export_csv'\n", 6),
    ("pyproject.toml", "[project]\nname = 'app'\nversion = '1'\n\n"
     "[project.scripts]\nexport = \"app.ops:export_csv\"\n", 6),
    ("setup.cfg", "[options.entry_points]\napp.exporters =\n    csv = app.ops:export_csv\n", 3),
    ("tox.ini", "[tox]\nenvlist = py\n\n[pytest]\naddopts = -p app.ops\n", 5),
    ("pytest.ini", "[pytest]\naddopts = -q -p app.ops\n", 2),
    ("conftest.py", "pytest_plugins = ['app.ops']\n", 1),
    ("tests/conftest.py", "pytest_plugins = (\n    'app.other',\n    'app.ops',\n)\n", 3),
])
def test_configuration_naming_the_changed_entity_is_flagged(indexed, path, text, line):
    res = analyze(indexed, {path: text})
    hits = [u for u in res.unanalyzable if u.file == path]
    assert [(u.line, u.reason, u.affects) for u in hits] == [
        (line, "config", "app.ops.export_csv")]


def test_configuration_naming_other_entities_flags_nothing(indexed):
    res = analyze(indexed, {
        "pyproject.toml": "[project.entry-points.'app.exporters']\n"
                          "raw = 'app.ops:other'\nx = 'app.opsx:export_csv'\n",
        "setup.cfg": "[metadata]\nname = app.ops.export_csv_tools\n",
    })
    assert [u for u in res.unanalyzable if u.reason == "config"] == []


def change(entity: str, file: str = "app/ops.py") -> AtomicChange:
    return AtomicChange(ChangeType.METHOD_BODY, entity, file, (1, 2))


def test_config_hits_name_the_entity_its_class_or_its_module_and_nothing_else():
    texts = {
        "pyproject.toml": "[project.entry-points.x]\na = 'app.ops:Exp'\n"
                          "b = 'app.ops:Exp.run'\nc = 'app.ops.Expo'\n",
        "setup.cfg": "[options.entry_points]\nx =\n    m = app.ops\n",
    }
    got = config_hits(texts, change("app.ops.Exp.run"), "app.ops.Exp.run", "app.ops")
    assert [(h.file, h.line, h.text) for h in got] == [
        ("pyproject.toml", 2, "a = 'app.ops:Exp'"),
        ("pyproject.toml", 3, "b = 'app.ops:Exp.run'"),
        ("setup.cfg", 3, "m = app.ops")]
    assert config_hits(texts, change("app.ops.Other"), "app.ops.Other", "app.opsx") == []


def test_plugin_paths_read_pytest_plugin_options_and_lists():
    assert plugin_paths("addopts = -q -p app.ops -p no:cacheprovider\n") == [
        (1, "app.ops"), (1, "no:cacheprovider")]
    assert plugin_paths("pytest_plugins = ['a.b', \"c\"]\n") == [(1, "a.b"), (1, "c")]


# ---------------------------------------------------------------- namespaces

@pytest.mark.parametrize("expr", [
    "vars(ops)['export_csv']", "ops.__dict__['export_csv']",
])
def test_a_module_namespace_read_with_a_literal_key_is_an_edge(indexed, expr):
    res = analyze(indexed, {"app/service.py": (
        f"from app import ops\n\n\ndef export(rows):\n    return {expr}(rows)\n")})
    assert "app.service.export" in walked(res)


def test_globals_read_with_a_literal_key_is_an_edge(indexed):
    res = analyze(indexed, {"app/more.py": (
        "from app.ops import export_csv\n\n\n"
        "def export(rows):\n    return globals()['export_csv'](rows)\n")})
    assert "app.more.export" in walked(res)


@pytest.mark.parametrize("expr", [
    "vars(ops)['export_' + kind]", "ops.__dict__[f'export_{kind}']",
])
def test_a_module_namespace_read_with_a_computed_key_is_flagged(indexed, expr):
    res = analyze(indexed, {"app/service.py": (
        f"from app import ops\n\n\ndef export(kind, rows):\n    return {expr}(rows)\n")})
    assert flagged(res) == {"app.service.export": "app.ops.export_csv"}


# ---------------------------------------------------------------- operator getters

@pytest.mark.parametrize("setup", [
    "GET = operator.attrgetter('export_csv')\n\n\ndef export(rows):\n    return GET(ops)(rows)\n",
    "def export(rows):\n    return operator.methodcaller('export_csv', rows)(ops)\n",
])
def test_operator_getters_naming_the_changed_function_are_flagged(indexed, setup):
    res = analyze(indexed, {"app/service.py": "import operator\n\nfrom app import ops\n\n"
                            + setup})
    assert "app.ops.export_csv" in set(flagged(res).values())
    (hit,) = [u for u in res.unanalyzable if u.file == "app/service.py"]
    assert hit.reason == "dynamic-getattr"


def test_an_operator_getter_of_another_name_flags_nothing(indexed):
    res = analyze(indexed, {"app/service.py": (
        "from operator import attrgetter\n\nfrom app import ops\n\n\n"
        "def export(rows):\n    return attrgetter('other')(ops)(rows)\n")})
    assert flagged(res) == {}


def test_getattr_with_a_literal_name_is_an_edge(indexed):
    res = analyze(indexed, {"app/service.py": (
        "from app import ops\n\n\ndef export(rows):\n"
        "    return getattr(ops, 'export_csv')(rows)\n")})
    assert "app.service.export" in walked(res)


# ---------------------------------------------------------------- PEP 562

LAZY = {
    "app/lazy.py": (
        "import importlib\n\n_LAZY = {'export_csv': 'app.ops'}\n\n\n"
        "def __getattr__(name):\n    if name in _LAZY:\n"
        "        return getattr(importlib.import_module(_LAZY[name]), name)\n"
        "    raise AttributeError(name)\n"),
    "app/service.py": "from app import lazy\n\n\ndef export(rows):\n"
                      "    return lazy.export_csv(rows)\n",
    "tests/test_service.py": "from app.service import export\n\n\n"
                             "def test_export():\n    assert export(['a']) == 'a'\n",
}


def test_a_name_a_module_getattr_serves_is_flagged_and_selects_its_tests(indexed):
    res = analyze(indexed, LAZY)
    got = {(u.scope, u.reason) for u in res.unanalyzable}
    assert ("app.service.export", "module-getattr") in got
    assert ("app.lazy.__getattr__", "dynamic-getattr") in got  # its table names the function
    assert "tests/test_service.py::test_export" in res.validate


def test_a_fixture_of_a_plugin_the_pytest_options_load_selects_its_tests(indexed):
    res = analyze(indexed, {
        "pytest.ini": "[pytest]\naddopts = -p support.clock\n",
        "support/__init__.py": "",
        "support/clock.py": "import pytest\n\n\n@pytest.fixture\ndef clock():\n    return [0]\n",
        "tests/test_ticks.py": "def test_tick(clock):\n    assert clock == [0]\n",
    }, path="support/clock.py", old="return [0]", new="return [10]")
    assert "tests/test_ticks.py::test_tick" in res.validate
    assert [(u.file, u.reason) for u in res.unanalyzable] == [("pytest.ini", "config")]


def test_a_dotted_path_naming_a_class_reaches_its_constructor(indexed):
    files = {"app/fmt.py": "class Json:\n    def __init__(self):\n        self.indent = 2\n",
             "app/service.py": LOADER + "def make():\n    return load('app.fmt:Json')()\n"}
    res = analyze(indexed, files, path="app/fmt.py", old="def __init__(self):",
                  new="def __init__(self, indent):")
    assert ("app.service.make", "dotted-path") in {(u.scope, u.reason)
                                                   for u in res.unanalyzable}
