"""§7.4 hidden channels: computed names, registries, reflection — flagged, never LOW-RISK."""

from __future__ import annotations

import pytest

from impact.graphs import Graph, module_of
from impactlens.impact.hidden import fragment_pattern
from impactlens.impact.pipeline import run_pipeline
from impactlens.model import FileChange, UnresolvedReason
from impactlens.settings import DEFAULT


@pytest.mark.parametrize(("text", "fits", "misses"), [
    ("do_", ["do_refund"], ["undo_refund", "do_"]),
    ("plugins.", ["plugins.email"], ["core.plugins.email"]),
    ("_handler", ["csv_handler"], ["handler"]),
    ("get_%s_display", ["get_name_display"], ["get_display"]),
    ("{}.handlers", ["app.handlers"], ["handlers"]),
])
def test_fragments_of_computed_names(text, fits, misses):
    p = fragment_pattern(text)
    assert p is not None
    assert all(p.fullmatch(n) for n in fits) and not any(p.fullmatch(n) for n in misses)


@pytest.mark.parametrize("text", ["name", "_", ".", "a b_"])
def test_whole_names_and_bare_separators_are_not_fragments(text):
    assert fragment_pattern(text) is None


def analyze(indexed, files: dict[str, str], path: str, old: str, new: str):
    with indexed(files) as p:
        before = (p.root / path).read_text()
        assert old in before
        return p.analyze_before_after(path, before, before.replace(old, new), refresh=False)


def flagged(res) -> dict[str, str]:
    return {u.scope: u.affects for u in res.unanalyzable}


PREFIX = {
    "jobs/__init__.py": "",
    "jobs/processor.py": (
        "class Processor:\n    def do_refund(self, order):\n        return order\n\n"
        "    def do_ship(self, order):\n        return order\n"
    ),
    "jobs/dispatch.py": (
        "def run(processor, action, order):\n"
        "    return getattr(processor, 'do_' + action)(order)\n\n\n"
        "def other(obj, name):\n    return getattr(obj, name)\n"
    ),
    "tests/test_dispatch.py": (
        "from jobs.dispatch import run\nfrom jobs.processor import Processor\n\n\n"
        "def test_run():\n    assert run(Processor(), 'refund', 1) == 1\n"
    ),
}


def test_a_computed_attribute_name_that_fits_the_changed_method_is_flagged(indexed):
    res = analyze(indexed, PREFIX, "jobs/processor.py", "def do_refund(self, order):",
                  "def do_refund(self, order, amount):")
    assert flagged(res) == {"jobs.dispatch.run": "jobs.processor.Processor.do_refund"}
    # the dispatcher's tests run the changed method through the invisible call
    (t,) = [t for t in res.test_map if t.test_id == "tests/test_dispatch.py::test_run"]
    assert (t.conf, t.via, t.relation) == (0.56, "jobs.dispatch.run", "CALLS")


REGISTRY = {
    "reports/__init__.py": "",
    "reports/exporters.py": (
        "def export_csv(rows):\n    return ','.join(rows)\n\n\n"
        "def export_tsv(rows):\n    return '\\t'.join(rows)\n\n\n"
        "HANDLERS = {'csv': export_csv, 'tsv': export_tsv}\n"
    ),
    "reports/service.py": (
        "from reports.exporters import HANDLERS\n\n\n"
        "def export(fmt, rows):\n    handler = HANDLERS[fmt]\n    return handler(rows)\n\n\n"
        "def formats():\n    return sorted(HANDLERS)\n"
    ),
    "tests/test_service.py": (
        "from reports.service import export\n\n\n"
        "def test_export():\n    assert export('csv', ['a']) == 'a'\n"
    ),
}


def test_a_function_reading_a_registry_that_holds_the_change_is_flagged(indexed):
    res = analyze(indexed, REGISTRY, "reports/exporters.py", "def export_csv(rows):",
                  "def export_csv(rows, header):")
    got = flagged(res)
    assert got["reports.service.export"] == "reports.exporters.export_csv"
    # (the index may also record the registration itself, HANDLERS = {...}, as a site)
    assert set(got) <= {"reports.service.export", "reports.exporters"}
    assert "tests/test_service.py::test_export" in res.validate
    assert "reports.service.formats" not in got  # reads the registry, dispatches nothing


DECORATED = {
    "calc/__init__.py": "",
    "calc/ops.py": (
        "OPS = {}\n\n\ndef register(name):\n    def deco(fn):\n        OPS[name] = fn\n"
        "        return fn\n\n    return deco\n\n\n"
        "@register('mean')\ndef op_mean(values):\n    return sum(values) / len(values)\n"
    ),
    "calc/engine.py": (
        "from calc.ops import OPS\n\n\ndef compute(name, values):\n"
        "    return OPS[name](values)\n"
    ),
}


def test_a_registry_filled_by_the_changed_function_s_decorator_is_followed(indexed):
    res = analyze(indexed, DECORATED, "calc/ops.py", "sum(values) / len(values)",
                  "sum(values) / max(len(values), 1)")
    assert flagged(res) == {"calc.engine.compute": "calc.ops.op_mean"}


def test_a_dynamic_site_merely_in_the_changed_module_is_reported_but_selects_no_test():
    g = Graph()
    g.fn("app.m.f", ids=("f",))
    g.fn("app.m.g", ids=("g",))
    g.test("tests/test_g.py::test_g")
    g.tests("tests/test_g.py::test_g", "app.m.g")
    g.site("app/m.py", 9, "app.m.g", UnresolvedReason.DYNAMIC_GETATTR, "getattr(...)",
           ("name",))
    res = run_pipeline(g, [FileChange("app/m.py", "def f(x):\n    return x\n",
                                      "def f(x, y):\n    return x\n")],
                       module_of=module_of, unresolved=g.sites)
    assert [(u.scope, u.affects) for u in res.unanalyzable] == [("app.m.g", "app.m.f")]
    assert res.validate == ()


def test_duck_typed_matches_feed_the_test_map_only_when_few_sites_share_the_name():
    g = Graph()
    g.method("app.m.Mail.send", ids=("send",))
    for i in range(3):
        g.fn(f"app.u.use{i}", ids=("use",))
        g.test(f"tests/test_u.py::test_{i}")
        g.tests(f"tests/test_u.py::test_{i}", f"app.u.use{i}")
        g.site("app/u.py", i + 1, f"app.u.use{i}", UnresolvedReason.UNKNOWN_RECEIVER,
               "x.send(...)", ("send",))
    change = [FileChange("app/m.py", "class Mail:\n    def send(self, to):\n        pass\n",
                         "class Mail:\n    def send(self, to, cc):\n        pass\n")]
    few = run_pipeline(g, change, module_of=module_of, unresolved=g.sites)
    assert len(few.unanalyzable) == 3 and len(few.validate) == 3
    many = run_pipeline(g, change, module_of=module_of, unresolved=g.sites,
                        settings=DEFAULT.replace(max_hidden_sources=2))
    assert len(many.unanalyzable) == 3 and many.validate == ()  # reported, not selected
