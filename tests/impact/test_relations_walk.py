"""§3.2–§3.3 / phase 2: the relation-set table, the escape gate and the reverse walk."""

from __future__ import annotations

import inspect
from textwrap import dedent

import pytest

from impact.graphs import Graph
from impactlens.impact.classify import classify
from impactlens.impact.relations import RELATION_TABLE, select_relations
from impactlens.impact.walk import walk
from impactlens.model import AtomicChange, ChangeType, EdgeKind, NodeKind, Relation, RelationSet
from impactlens.settings import DEFAULT

CT, R = ChangeType, Relation


def change(ct: ChangeType, entity: str, file: str = "app/auth.py") -> AtomicChange:
    return AtomicChange(ct, entity, file, (1, 1))


def reached(g: Graph, c: AtomicChange,
            **settings: object) -> dict[str, tuple[int, tuple[str, ...]]]:
    """``{entity: (distance, admitting relations)}`` of the walk of change ``c``."""
    s = DEFAULT.replace(**settings) if settings else DEFAULT
    res = walk(g, c.entity, select_relations(c), s)
    return {m.entity: (m.distance, tuple(r.value for r in m.admitting_relations))
            for m in res.members}


def test_relation_table_is_codeplan_table_1_with_add_and_delete():
    assert dict(RELATION_TABLE) == {
        CT.METHOD_SIGNATURE: (R.CALLED_BY, R.OVERRIDES, R.OVERRIDDEN_BY),
        CT.METHOD_BODY: (R.CALLERS,),
        CT.FIELD: (R.USED_BY, R.CONSTRUCTED_BY, R.SUBCLASS_OF),
        CT.CLASS_DECL: (R.INSTANTIATED_BY, R.SUBCLASS_OF, R.SUPERCLASS_OF),
        CT.CONSTRUCTOR: (R.INSTANTIATED_BY,),
        CT.IMPORT: (R.IMPORTED_BY,),
        CT.ADD: (),
        CT.DELETE: (R.CALLED_BY, R.USED_BY, R.IMPORTED_BY, R.INSTANTIATED_BY, R.OVERRIDES,
                    R.OVERRIDDEN_BY),
    }


@pytest.fixture
def service() -> Graph:
    g = Graph()
    g.cls("app.auth.Base")
    g.method("app.auth.Base.login")
    g.cls("app.auth.LoginService")
    g.method("app.auth.LoginService.login")
    g.method("app.auth.Admin.login")
    g.field("app.auth.LoginService.attempts")
    g.fn("app.views.home")
    g.fn("app.views.stats")
    g.fn("app.cli.main")
    g.call("app.views.home", "app.auth.LoginService.login", args=1, bound=True)
    g.edge("app.auth.LoginService.login", "app.auth.Base.login", EdgeKind.OVERRIDE)
    g.edge("app.auth.Admin.login", "app.auth.LoginService.login", EdgeKind.OVERRIDE)
    g.edge("app.views.stats", "app.auth.LoginService.login", EdgeKind.USE)  # not a call
    g.call("app.cli.main", "app.views.home")
    return g


def test_signature_change_reaches_caller_and_overriders_but_no_field_relation(service):
    got = reached(service, change(CT.METHOD_SIGNATURE, "app.auth.LoginService.login"))
    assert got == {
        "app.auth.Admin.login": (1, ("OverriddenBy",)),
        "app.auth.Base.login": (1, ("Overrides",)),
        "app.views.home": (1, ("CalledBy",)),
        "app.cli.main": (2, ("CalledBy",)),
    }
    assert "app.views.stats" not in got  # a USE edge is a field relation: never traversed


def test_add_emits_zero_obligations(service):
    assert select_relations(change(CT.ADD, "app.auth.LoginService.login")).relations == ()
    assert reached(service, change(CT.ADD, "app.auth.LoginService.login")) == {}


def test_bfs_never_exceeds_max_depth():
    g = Graph()
    chain = [f"app.m.f{i}" for i in range(6)]
    for a, b in zip(chain[1:], chain, strict=False):
        g.call(a, b)
    c = change(CT.METHOD_SIGNATURE, "app.m.f0")
    assert reached(g, c) == {f"app.m.f{i}": (i, ("CalledBy",)) for i in (1, 2, 3)}
    assert set(reached(g, c, max_depth=1)) == {"app.m.f1"}


def test_walk_caps_nodes_keeping_the_nearest():
    g = Graph()
    for i in range(5):
        g.call(f"app.m.a{i}", "app.m.seed")
        g.call(f"app.m.b{i}", f"app.m.a{i}")
    res = walk(g, "app.m.seed", select_relations(change(CT.METHOD_SIGNATURE, "app.m.seed")),
               DEFAULT.replace(max_walk_nodes=7))
    assert res.truncated and res.omitted == 3
    assert [m.distance for m in res.members] == [1] * 5 + [2] * 2


def test_a_change_type_blind_walk_is_impossible(service):
    params = list(inspect.signature(walk).parameters)
    # no bare hop count: the relation set decides (import_binding only names the seed)
    assert params == ["graph", "seed", "relations", "settings", "import_binding"]
    blind = RelationSet(CT.METHOD_BODY, (R.CALLED_BY, R.USED_BY, R.IMPORTED_BY))
    with pytest.raises(ValueError, match="change-type-blind"):
        walk(service, "app.auth.LoginService.login", blind)


def test_walk_records_admitting_edges_parents_and_tests(service):
    service.test("tests/test_views.py::test_home")
    service.tests("tests/test_views.py::test_home", "app.views.home")
    res = walk(service, "app.auth.LoginService.login",
               select_relations(change(CT.METHOD_SIGNATURE, "app.auth.LoginService.login")))
    home = next(m for m in res.members if m.entity == "app.views.home")
    assert home.parents == ("app.auth.LoginService.login",)
    assert [e.kind for e in home.edges] == [EdgeKind.CALL]
    assert home.file == "app/views.py"
    assert res.tests == (("tests/test_views.py::test_home", "app.views.home"),)


def test_beyond_the_first_hop_a_member_follows_what_its_admission_warrants():
    g = Graph()
    g.method("app.b.Base.run")
    g.method("app.m.Impl.run")  # the changed method
    g.method("app.m.Deep.run")
    g.method("app.o.Other.run")
    g.edge("app.m.Impl.run", "app.b.Base.run", EdgeKind.OVERRIDE)
    g.edge("app.m.Deep.run", "app.m.Impl.run", EdgeKind.OVERRIDE)
    g.edge("app.o.Other.run", "app.b.Base.run", EdgeKind.OVERRIDE)  # a sibling
    g.method("app.c.Caller.setup")  # calls the changed method …
    g.call("app.c.Caller.setup", "app.m.Impl.run", args=0, bound=True)
    g.method("app.c.Root.setup")  # … and overrides an unrelated base method
    g.edge("app.c.Caller.setup", "app.c.Root.setup", EdgeKind.OVERRIDE)
    g.call("app.b.dispatch", "app.b.Base.run")  # may dispatch to the override
    g.call("app.m.use_deep", "app.m.Deep.run")
    g.call("app.c.main", "app.c.Caller.setup")
    got = reached(g, change(CT.METHOD_SIGNATURE, "app.m.Impl.run"))
    assert got == {
        "app.b.Base.run": (1, ("Overrides",)),
        "app.c.Caller.setup": (1, ("CalledBy",)),
        "app.m.Deep.run": (1, ("OverriddenBy",)),
        "app.b.dispatch": (2, ("CalledBy",)),
        "app.c.main": (2, ("CalledBy",)),
        "app.m.use_deep": (2, ("CalledBy",)),
    }  # not the caller's base (Root.setup), not the sibling override (Other.run)


def test_a_superclass_is_only_followed_further_up():
    g = Graph()
    for c in ("Top", "Base", "User", "Sibling"):
        g.cls(f"app.m.{c}")
    g.edge("app.m.Base", "app.m.Top", EdgeKind.INHERIT)
    g.edge("app.m.User", "app.m.Base", EdgeKind.INHERIT)
    g.edge("app.m.Sibling", "app.m.Base", EdgeKind.INHERIT)
    g.new("app.m.make_base", "app.m.Base")
    assert reached(g, change(CT.CLASS_DECL, "app.m.User")) == {
        "app.m.Base": (1, ("SuperclassOf",)), "app.m.Top": (2, ("SuperclassOf",))}


def test_admitting_relations_union_at_the_same_distance():
    g = Graph()
    g.call("app.m.caller", "app.m.f")
    g.edge("app.m.caller", "app.m.f", EdgeKind.USE)
    got = reached(g, change(CT.DELETE, "app.m.f"))
    assert got == {"app.m.caller": (1, ("CalledBy", "UsedBy"))}


def test_field_change_walks_uses_constructions_and_subclasses():
    g = Graph()
    g.cls("app.m.Config")
    g.field("app.m.Config.timeout")
    g.cls("app.m.Strict")
    g.edge("app.m.read", "app.m.Config.timeout", EdgeKind.USE)
    g.new("app.m.make", "app.m.Config")
    g.edge("app.m.Strict", "app.m.Config", EdgeKind.INHERIT)
    g.call("app.m.unrelated", "app.m.read")
    got = reached(g, change(CT.FIELD, "app.m.Config.timeout"))
    assert got == {
        "app.m.read": (1, ("UsedBy",)),
        "app.m.make": (1, ("ConstructedBy",)),
        "app.m.Strict": (1, ("SubclassOf",)),
    }


def test_class_decl_walks_instantiations_super_init_calls_and_hierarchy():
    g = Graph()
    g.cls("app.m.User")
    g.cls("app.m.Admin")
    g.cls("app.m.Model")
    g.edge("app.m.Admin", "app.m.User", EdgeKind.INHERIT)
    g.edge("app.m.User", "app.m.Model", EdgeKind.INHERIT)
    g.new("app.m.signup", "app.m.User", args=1)
    g.call("app.m.Admin.__init__", "app.m.User.__init__", args=1, bound=True)
    got = reached(g, change(CT.CLASS_DECL, "app.m.User"))
    assert got == {
        "app.m.Admin": (1, ("SubclassOf",)),
        "app.m.Admin.__init__": (1, ("InstantiatedBy",)),
        "app.m.Model": (1, ("SuperclassOf",)),
        "app.m.signup": (1, ("InstantiatedBy",)),
    }


def test_constructor_change_walks_instantiation_sites_of_the_class():
    g = Graph()
    g.cls("app.m.User")
    g.method("app.m.User.__init__")
    g.new("app.m.signup", "app.m.User", args=1)
    g.call("app.m.other", "app.m.User.save")
    assert reached(g, change(CT.CONSTRUCTOR, "app.m.User.__init__")) == {
        "app.m.signup": (1, ("InstantiatedBy",))}


def test_import_change_walks_importers():
    g = Graph()
    g.edge("app.views", "app.auth.hash_pw", EdgeKind.IMPORT)
    g.call("app.views.home", "app.auth.hash_pw")
    assert reached(g, change(CT.IMPORT, "app.auth.hash_pw")) == {
        "app.views": (1, ("ImportedBy",)),
        "app.views.home": (2, ("ImportedBy",)),  # uses the name app.views imported
    }


# ------------------------------------------------------------- escape gate (PDG def/use)

WITHDRAW = """\
    class Account:
        def withdraw(self, amount):
            fee = 1
            total = amount + fee
            return total
"""


def body_change(before: str, after: str) -> AtomicChange:
    (c,) = classify(dedent(before), dedent(after), "app/bank.py", "app.bank")
    assert c.change_type is CT.METHOD_BODY
    return c


def bank_graph() -> Graph:
    g = Graph()
    g.method("app.bank.Account.withdraw")
    g.call("app.shop.checkout", "app.bank.Account.withdraw", args=1, bound=True)
    g.call("app.cli.main", "app.shop.checkout")
    return g


def test_purely_local_body_edit_reaches_no_caller():
    after = WITHDRAW.replace("            return total\n",
                             "            debug = [fee, 2]\n            return total\n")
    c = body_change(WITHDRAW, after)
    rs = select_relations(c)
    assert rs.gated and rs.relations == ()
    res = walk(bank_graph(), c.entity, rs)
    assert res.members == ()


def test_body_edit_writing_self_attribute_reaches_callers():
    after = WITHDRAW.replace("fee = 1", "fee = 1\n            self.last_fee = fee")
    c = body_change(WITHDRAW, after)
    rs = select_relations(c)
    assert not rs.gated and rs.relations == (R.CALLERS,)
    assert {m.entity: m.distance for m in walk(bank_graph(), c.entity, rs).members} == {
        "app.shop.checkout": 1, "app.cli.main": 2}


def test_body_edit_reaching_the_return_through_locals_escapes():
    # the changed statement is `fee = 2`; the return text itself is unchanged
    c = body_change(WITHDRAW, WITHDRAW.replace("fee = 1", "fee = 2"))
    assert c.body is not None and c.body.after_lines == frozenset({2})
    rs = select_relations(c)
    assert not rs.gated and rs.relations == (R.CALLERS,)


def test_body_edit_writing_a_parameter_escapes():
    after = WITHDRAW.replace("fee = 1", "fee = 1\n            amount.history.append(fee)")
    assert not select_relations(body_change(WITHDRAW, after)).gated


def test_module_level_statement_change_propagates_conservatively():
    (c,) = classify("import r\nr.add('a')\n", "import r\nr.add('b')\n", "app/m.py", "app.m")
    rs = select_relations(c)
    assert not rs.gated and rs.relations == (R.CALLERS,)
    assert "not a function body" in rs.gate_reasons[0]


def test_renaming_only_local_names_changes_nothing_a_caller_can_observe():
    after = WITHDRAW.replace("fee", "charge")
    c = body_change(WITHDRAW, after)
    rs = select_relations(c)
    assert rs.gated and rs.relations == ()
    assert "only local names are renamed" in rs.gate_reasons[0]


@pytest.mark.parametrize(("old", "new"), [
    ("fee = 1", "fee = amount"),  # not a rename: the value changes
    ("fee", "amount"),  # collapses a local into a parameter
])
def test_a_rename_that_changes_what_a_name_refers_to_is_not_local(old, new):
    assert not select_relations(body_change(WITHDRAW, WITHDRAW.replace(old, new))).gated


def test_a_reference_in_a_def_header_belongs_to_that_def():
    g = Graph()
    g.module("app.pricing")
    g.add("app.pricing.TAX", NodeKind.CONSTANT, line=1)
    g.fn("app.pricing.tax", line=4)  # def tax(amount, rate=TAX): lines 4-6
    g.edge("app.pricing", "app.pricing.TAX", EdgeKind.USE, line=4)  # the default value
    g.edge("app.pricing", "app.pricing.TAX", EdgeKind.USE, line=9)  # a module-level use
    got = reached(g, change(CT.FIELD, "app.pricing.TAX", "app/pricing.py"))
    assert got == {"app.pricing.tax": (1, ("UsedBy",)), "app.pricing": (1, ("UsedBy",))}


def test_the_importers_of_a_caller_are_not_impacted_by_its_body_changing():
    g = Graph()
    g.add("app.units.RADIUS", NodeKind.CONSTANT)
    g.fn("app.dist.haversine")
    g.edge("app.dist.haversine", "app.units.RADIUS", EdgeKind.USE)
    g.module("app.places")
    g.edge("app.places", "app.dist.haversine", EdgeKind.IMPORT)
    g.fn("app.places.distance_to")
    g.call("app.places.distance_to", "app.dist.haversine")
    got = reached(g, change(CT.DELETE, "app.units.RADIUS"))
    assert got == {"app.dist.haversine": (1, ("UsedBy",)),
                   "app.places.distance_to": (2, ("CalledBy",))}


def test_readers_of_a_shadowed_base_field_read_the_changed_subclass_field():
    g = Graph()
    g.cls("app.b.Backend")
    g.field("app.b.Backend.name")
    g.cls("app.b.Token")
    g.field("app.b.Token.name")
    g.edge("app.b.Token", "app.b.Backend", EdgeKind.INHERIT)
    g.method("app.b.Backend.describe")
    g.edge("app.b.Backend.describe", "app.b.Backend.name", EdgeKind.USE)  # self.name
    got = reached(g, change(CT.FIELD, "app.b.Token.name", "app/b.py"))
    assert got["app.b.Backend.describe"] == (1, ("UsedBy",))
    # the base's field changing does not make the subclass's readers read it
    g.method("app.b.Token.show")
    g.edge("app.b.Token.show", "app.b.Token.name", EdgeKind.USE)
    assert "app.b.Token.show" not in reached(g, change(CT.FIELD, "app.b.Backend.name"))
