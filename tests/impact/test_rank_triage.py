"""§3.6–§3.7 / phase 5: hard-gate / soft-rank and MUST / MAY / LOW triage."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from impact.graphs import Graph, call_detail, module_of
from impactlens.impact import triage as tr
from impactlens.impact.rank import Tokens, lex, rank, split_identifier
from impactlens.impact.relations import select_relations
from impactlens.impact.testmap import change_tests
from impactlens.impact.walk import walk
from impactlens.model import (
    AtomicChange,
    Bucket,
    ChangeType,
    EdgeKind,
    Params,
    Resolution,
    Triage,
    TriageEntry,
)
from impactlens.settings import DEFAULT

CT = ChangeType
SEED = "app.auth.LoginService.login"
NEW_SIG = Params(args=("self", "user", "mfa_code"), binding="method")


def triage(g: Graph, change: AtomicChange, co_change: dict[str, float] | None = None,
           edited: dict[str, frozenset[int]] | None = None,
           **settings: object) -> dict[str, tuple[str, float]]:
    """``{entity: (bucket, conf)}`` for one atomic change on graph ``g``."""
    s = DEFAULT.replace(**settings) if settings else DEFAULT
    res = walk(g, change.entity, select_relations(change), s)
    tests = change_tests(g, change, res, change.entity, s)
    ranked = rank(g, change.entity, change.after_sig, res, tests, co_change or {},
                  module_of=module_of, exclude_files={change.file}, settings=s)
    out = tr.triage(change, change.entity, res, ranked, tests, edited=edited, graph=g,
                    settings=s)
    return {e.entity: (e.bucket.value, e.conf) for e in out}


def reasons(g: Graph, change: AtomicChange,
            co_change: dict[str, float] | None = None) -> dict[str, str]:
    res = walk(g, change.entity, select_relations(change))
    ranked = rank(g, change.entity, change.after_sig, res, (), co_change or {},
                  module_of=module_of, exclude_files={change.file})
    return {e.entity: e.reason for e in tr.triage(change, change.entity, res, ranked, graph=g)}


def sig_change(params: Params = NEW_SIG) -> AtomicChange:
    return AtomicChange(CT.METHOD_SIGNATURE, SEED, "app/auth.py", (2, 2),
                        "def login(self, user):", "def login(self, user, mfa_code):",
                        kind="method", what="added param mfa_code", after_params=params)


@pytest.fixture
def g() -> Graph:
    g = Graph()
    g.method(SEED, "def login(self, user):", ids=("login", "service", "user"))
    g.fn("app.views.login_view", "def login_view(request):",
         ids=("login", "view", "request", "user"))
    g.fn("app.views.dashboard", ids=("dashboard", "login", "user"))
    g.call("app.views.login_view", SEED, line=7, args=1, bound=True)
    g.call("app.views.dashboard", "app.views.login_view", line=3, args=1)
    g.method("app.admin.Zzz.qqq", ids=("zzz", "qqq"))
    g.edge("app.admin.Zzz.qqq", SEED, EdgeKind.OVERRIDE)
    return g


# ------------------------------------------------------------------ phase 5
def test_distance_1_caller_of_signature_change_is_must_inspect(g):
    got = triage(g, sig_change())
    assert got["app.views.login_view"] == ("must_inspect", 0.7)


def test_distance_2_neighbour_is_may_impact(g):
    assert triage(g, sig_change())["app.views.dashboard"][0] == "may_impact"


def test_low_lex_distance_1_non_binding_neighbour_is_low_risk(g):
    bucket, conf = triage(g, sig_change())["app.admin.Zzz.qqq"]
    assert bucket == "low_risk" and conf < DEFAULT.lex_min
    assert reasons(g, sig_change())["app.admin.Zzz.qqq"].endswith(
        "shares few words with the change")


def test_soft_only_candidate_is_not_a_member(g):
    res = walk(g, SEED, select_relations(sig_change()))
    ranked = rank(g, SEED, "", res, (), {"app/session.py": 0.6, "app/views.py": 0.9},
                  module_of=module_of)
    by = {r.entity: r for r in ranked}
    assert not by["app.session"].hard and by["app.session"].admitting == ("co-change",)
    assert by["app.views.login_view"].co_change_score == 0.9  # boosts a hard member
    assert all(r.hard for r in ranked if r.entity != "app.session")


def test_soft_only_candidate_is_may_impact_from_cochange_min(g):
    got = triage(g, sig_change(), {"app/session.py": 0.3, "app/cache.py": 0.29})
    assert got["app.session"] == ("may_impact", 0.3)
    assert got["app.cache"] == ("low_risk", 0.29)


def test_cochange_partner_that_references_the_change_ranks_higher(g):
    """§3.7 with settings.cochange_proximity (off by default): a co-change partner whose
    file directly references the changed entity (here an import of it, which a signature
    change does not walk) counts s + (1 − s)·0.5; an equally co-changed file keeps s."""
    g.module("app.session")
    g.edge("app.session", SEED, EdgeKind.IMPORT)
    cc = {"app/session.py": 0.3, "app/cache.py": 0.3}
    got = triage(g, sig_change(), cc, cochange_proximity=0.5)
    assert got["app.session"] == ("may_impact", 0.65)
    assert got["app.cache"] == ("may_impact", 0.3)
    assert triage(g, sig_change(), cc)["app.session"][1] == 0.3  # default off: plain max()
    on = DEFAULT.replace(cochange_proximity=0.5)
    assert tr.co_change_conf(0.0, True, on) == 0.0  # no co-change history: nothing to raise
    assert tr.co_change_conf(0.3, True) == 0.3


def test_tests_are_may_impact_from_test_min(g):
    g.test("tests/test_auth.py::test_login")
    g.tests("tests/test_auth.py::test_login", SEED)
    g.module("app.auth")
    g.method("app.auth.LoginService.other")
    g.contains("app.auth", SEED)
    g.module("tests.test_misc", file="tests/test_misc.py")
    g.test("tests/test_misc.py::test_misc")
    g.contains("tests.test_misc", "tests/test_misc.py::test_misc")
    g.edge("tests.test_misc", "app.auth", EdgeKind.IMPORT)
    change = AtomicChange(CT.METHOD_SIGNATURE, SEED, "app/auth.py", (1, 1), after_params=NEW_SIG)
    got = triage(g, change)  # the spec's §3.5 set: all ≥ 0.45
    assert got["tests/test_auth.py::test_login"] == ("may_impact", 1.0)
    assert got["tests/test_misc.py::test_misc"] == ("low_risk", 0.45)  # IMPORTS < TEST_MIN
    # with the fallback on, an IMPORTS-only test drops out: a test executing the change exists
    assert "tests/test_misc.py::test_misc" not in triage(g, change, test_imports_fallback=True)


def test_lex_uses_the_spec_weights_and_no_embedding(monkeypatch):
    openai = pytest.importorskip("openai")

    def boom(*a, **k):
        raise AssertionError("no embedding may be computed")

    monkeypatch.setattr(openai.OpenAI, "__init__", boom)
    a = Tokens(frozenset({"login", "user"}), frozenset({"mfa"}), frozenset({"os"}))
    b = Tokens(frozenset({"login", "view"}), frozenset({"mfa"}), frozenset({"sys"}))
    # 0.5·(1/3) + 0.3·1 + 0.2·0
    assert lex(a, b) == pytest.approx(0.5 / 3 + 0.3)
    assert lex(a, b, DEFAULT.replace(w_id=1.0, w_str=0.0, w_imp=0.0)) == pytest.approx(1 / 3)
    assert lex(Tokens(frozenset(), frozenset(), frozenset()),
               Tokens(frozenset(), frozenset(), frozenset())) == 0.0


def test_identifier_splitting():
    assert split_identifier("auth.LoginService.check_mfaCode") == {
        "auth", "login", "service", "check", "mfa", "code"}
    assert split_identifier("HTTPServer.parse_url2") == {"http", "server", "parse", "url2"}
    assert split_identifier("tests/test_x.py::TestX::test_y[a-1]") >= {"tests", "test", "x", "y"}


def test_ranked_members_are_ordered_by_distance_then_lex(g):
    g.fn("app.views.aaa", ids=("aaa",))
    g.call("app.views.aaa", SEED, args=2, bound=True)
    res = walk(g, SEED, select_relations(sig_change()))
    ranked = rank(g, SEED, "", res, (), {}, module_of=module_of)
    assert [r.distance for r in ranked] == [1, 1, 1, 2]
    assert ranked[0].entity == "app.views.login_view"  # shares login/user with the seed
    assert ranked[0].lex > ranked[1].lex >= ranked[2].lex
    assert all(r.lex == 0.0 for r in rank(g, SEED, "", res, (), {}, module_of=module_of,
                                          settings=DEFAULT.replace(channels=frozenset())))


# ---------------------------------------------------------- binding check
def bind(params: Params, instantiation: bool = False, **site: object) -> tuple[bool | None, str]:
    return tr.bind(params, call_detail(**site), instantiation=instantiation)  # type: ignore[arg-type]


@pytest.mark.parametrize(("params", "site", "ok"), [
    (NEW_SIG, {"args": 1, "bound": True}, False),  # missing mfa_code
    (NEW_SIG, {"args": 2, "bound": True}, True),
    (NEW_SIG, {"args": 1, "kwargs": ("mfa_code",), "bound": True}, True),
    (NEW_SIG, {"args": 3, "bound": True}, False),  # too many
    (NEW_SIG, {"args": 3, "bound": False}, True),  # Class.login(obj, u, m)
    (Params(args=("self", "user", "mfa"), n_defaults=1, binding="method"),
     {"args": 1, "bound": True}, True),  # new param has a default
    (Params(args=("a",), kwonly=("key",), kwonly_required=("key",)), {"args": 1}, False),
    (Params(args=("a",), kwonly=("key",), kwonly_required=("key",)),
     {"args": 1, "kwargs": ("key",)}, True),
    (Params(posonly=("a",), args=("b",)), {"args": 1, "kwargs": ("a",)}, False),
    (Params(posonly=("a",), args=("b",), kwarg="kw"), {"args": 1, "kwargs": ("b",)}, True),
    (Params(args=("a",)), {"args": 1, "kwargs": ("a",)}, False),  # multiple values
    (Params(args=("a",)), {"kwargs": ("zz",)}, False),  # unexpected keyword
    (Params(args=("a",), kwarg="kw"), {"args": 1, "kwargs": ("zz",)}, True),
    (Params(args=("a",), vararg="rest"), {"args": 5}, True),
    (Params(args=("x", "y"), binding="staticmethod"), {"args": 2, "bound": True}, True),
    (Params(args=("cls", "y"), binding="classmethod"), {"args": 1, "bound": True}, True),
    (Params(args=("self", "name")), {"args": 0}, False),  # instantiation: name missing
])
def test_binding_against_the_new_parameter_list(params, site, ok):
    inst = params == Params(args=("self", "name"))
    assert bind(params, instantiation=inst, **site)[0] is ok


def test_star_sites_cannot_be_checked_but_definite_breaks_still_count():
    ok, why = bind(NEW_SIG, args=1, star=True, bound=True)
    assert ok is None and "*args" in why
    ok, why = bind(NEW_SIG, args=0, dstar=True, bound=True)
    assert ok is None and "**kwargs" in why
    assert bind(NEW_SIG, args=1, kwargs=("nope",), dstar=True, bound=True)[0] is False


def test_missing_site_detail_is_unknown():
    assert tr.bind(NEW_SIG, "")[0] is None
    assert tr.bind(NEW_SIG, json.dumps({"name": "x"}))[0] is None


def test_call_that_still_binds_is_may_with_reason(g):
    c = sig_change(Params(args=("self", "user", "mfa_code"), n_defaults=1, binding="method"))
    assert triage(g, c)["app.views.login_view"][0] == "may_impact"
    assert "still binds" in reasons(g, c)["app.views.login_view"]


def test_star_call_site_is_may_with_reason():
    g = Graph()
    g.method(SEED)
    g.fn("app.x.fwd")
    g.call("app.x.fwd", SEED, args=0, star=True, bound=True)
    assert triage(g, sig_change())["app.x.fwd"][0] == "may_impact"
    assert "cannot be checked" in reasons(g, sig_change())["app.x.fwd"]


def test_call_site_already_edited_by_the_change_is_not_a_proven_break(g):
    got = triage(g, sig_change(), edited={"app/views.py": frozenset({7})})
    assert got["app.views.login_view"][0] == "may_impact"


def test_ambiguous_call_target_is_not_a_proven_break():
    g = Graph()
    g.method(SEED)
    g.fn("app.x.duck", ids=("duck",))
    g.call("app.x.duck", SEED, args=1, bound=True, resolution=Resolution.AMBIGUOUS)
    assert triage(g, sig_change())["app.x.duck"][0] == "may_impact"
    assert "ambiguous" in reasons(g, sig_change())["app.x.duck"]


def test_delete_reference_edited_away_or_ambiguous_is_may():
    g = Graph()
    g.fn("app.m.gone")
    g.fn("app.m.fixed", ids=("fixed",))
    g.fn("app.m.duck", ids=("duck",))
    g.call("app.m.fixed", "app.m.gone", line=12)
    g.call("app.m.duck", "app.m.gone", resolution=Resolution.AMBIGUOUS)
    got = triage(g, AtomicChange(CT.DELETE, "app.m.gone", "app/m.py", (1, 2)),
                 edited={"app/m.py": frozenset({12})})
    assert got["app.m.fixed"][0] == "may_impact"
    assert got["app.m.duck"][0] == "may_impact"


def test_delete_references_are_must_inspect():
    g = Graph()
    g.fn("app.m.gone")
    g.fn("app.m.user")
    g.call("app.m.user", "app.m.gone")
    g.edge("app.n", "app.m.gone", EdgeKind.IMPORT)
    got = triage(g, AtomicChange(CT.DELETE, "app.m.gone", "app/m.py", (1, 2)))
    assert got == {"app.m.user": ("must_inspect", 0.7), "app.n": ("must_inspect", 0.7)}


def test_a_changed_field_value_makes_readers_and_constructions_may_impact():
    g = Graph()
    g.cls("app.m.Config", ids=("config",))
    g.field("app.m.Config.timeout", ids=("config", "timeout"))
    g.fn("app.m.read_timeout", ids=("read", "timeout"))
    g.fn("app.m.make_config", ids=("make", "config"))
    g.edge("app.m.read_timeout", "app.m.Config.timeout", EdgeKind.USE)
    g.new("app.m.make_config", "app.m.Config")
    got = triage(g, AtomicChange(CT.FIELD, "app.m.Config.timeout", "app/m.py", (2, 2)))
    # the field still exists: its readers see a new value, nothing is proven broken
    assert got["app.m.read_timeout"][0] == "may_impact"
    assert got["app.m.make_config"][0] == "may_impact"
    assert "reads the field whose value changed" in reasons(
        g, AtomicChange(CT.FIELD, "app.m.Config.timeout", "app/m.py", (2, 2)))[
            "app.m.read_timeout"]


@pytest.mark.parametrize("ct", [CT.CONSTRUCTOR, CT.CLASS_DECL])
def test_instantiations_that_no_longer_bind_are_must(ct):
    g = Graph()
    g.cls("app.m.User")
    g.method("app.m.User.__init__")
    g.fn("app.m.old_signup")
    g.fn("app.m.new_signup")
    g.new("app.m.old_signup", "app.m.User", args=1)
    g.new("app.m.new_signup", "app.m.User", args=1, kwargs=("email",))
    g.cls("app.m.Admin")
    g.method("app.m.Admin.__init__")
    g.call("app.m.Admin.__init__", "app.m.User.__init__", args=1, bound=True)
    entity = "app.m.User.__init__" if ct is CT.CONSTRUCTOR else "app.m.User"
    c = AtomicChange(ct, entity, "app/m.py", (1, 1), after_params=Params(
        args=("self", "name", "email"), binding="method"))
    got = triage(g, c)
    assert got["app.m.old_signup"][0] == "must_inspect"
    assert got["app.m.Admin.__init__"][0] == "must_inspect"  # super().__init__(name)
    assert got["app.m.new_signup"][0] != "must_inspect"


def test_positional_argument_that_now_lands_in_another_parameter_is_a_break():
    before = Params(args=("self", "name", "price", "qty"), n_defaults=1, binding="method")
    after = Params(args=("self", "name", "price", "currency", "qty"), n_defaults=1,
                   binding="method")
    site = call_detail(3)  # Item(name, price, qty): binds by count …
    ok, why = tr.bind(after, site, instantiation=True, before=before)
    assert ok is False and "lands in 'currency' instead of 'qty'" in why
    assert tr.bind(after, call_detail(2), instantiation=True, before=before)[0] is False
    # … a keyword call and a call that stops before the insertion still mean the same
    assert tr.bind(after, call_detail(2, ("currency",)), instantiation=True,
                   before=before)[0] is True
    # a renamed parameter keeps its position: positional callers are unaffected
    renamed = Params(args=("self", "title", "price", "qty"), n_defaults=1, binding="method")
    assert tr.bind(renamed, site, instantiation=True, before=before)[0] is True


@pytest.mark.parametrize(("base", "override", "ok"), [
    ("(self, x, y=None)", "(self, x, y=None)", True),
    ("(self, x, y=None)", "(self, x)", False),  # a call passing y through the base fails
    ("(self, x)", "(self, x, y)", False),  # the base's callers never pass y
    ("(self, x)", "(self, x, y=1)", True),
    ("(self, x)", "(self, z)", False),  # x=... through the base fails
    ("(self, x, *, k=1)", "(self, x, **kw)", True),
    ("(self, x, *, k=1)", "(self, x, *, k)", False),
    ("(self, x, *args)", "(self, x)", False),
    ("(self, x, y=None)", "(self, *args, **kwargs)", True),
])
def test_override_consistency(base, override, ok):
    def params(sig: str) -> Params:
        from impactlens.model import Node, NodeKind
        node = Node("m.C.f", NodeKind.METHOD, "m.C.f", "m.py", 1, 2, f"def f{sig}:")
        got = tr.node_params(node)
        assert got is not None
        return got
    assert tr.accepts_base_calls(params(base), params(override))[0] is ok


def test_overriders_that_no_longer_accept_the_base_calls_are_must_inspect():
    g = Graph()
    base = "app.b.Backend.authenticate"
    g.method(base, "def authenticate(self, user, secret):", ids=("authenticate",))
    for name, sig in (("Password", "def authenticate(self, user, secret):"),
                      ("Token", "def authenticate(self, user, secret, otp=None):"),
                      ("Any", "def authenticate(self, *args, **kwargs):")):
        g.method(f"app.b.{name}.authenticate", sig, ids=("zz",))
        g.edge(f"app.b.{name}.authenticate", base, EdgeKind.OVERRIDE)
    c = AtomicChange(CT.METHOD_SIGNATURE, base, "app/b.py", (2, 2),
                     after_sig="def authenticate(self, user, secret, otp=None):",
                     before_params=Params(args=("self", "user", "secret"), binding="method"),
                     after_params=Params(args=("self", "user", "secret", "otp"), n_defaults=1,
                                         binding="method"))
    got = triage(g, c)
    assert got["app.b.Password.authenticate"][0] == "must_inspect"
    assert got["app.b.Token.authenticate"][0] == "may_impact"  # already takes otp
    assert got["app.b.Any.authenticate"][0] == "may_impact"
    why = reasons(g, c)["app.b.Password.authenticate"]
    assert "no longer matches the changed base: the override does not take 'otp'" in why
    # the changed method as an override: its base is the other side of the contract
    up = AtomicChange(CT.METHOD_SIGNATURE, "app.b.Password.authenticate", "app/b.py", (2, 2),
                      before_params=Params(args=("self", "user", "secret"), binding="method"),
                      after_params=Params(args=("self", "user", "secret", "otp"),
                                          binding="method"))
    assert triage(g, up)[base][0] == "must_inspect"


def test_callers_of_an_escaping_body_change_are_may_impact_whatever_their_lex():
    g = Graph()
    g.fn("app.m.tax", ids=("tax",))
    g.fn("app.z.qq", ids=("qq",))  # no lexical coupling at all
    g.call("app.z.qq", "app.m.tax", args=1)
    c = AtomicChange(CT.METHOD_BODY, "app.m.tax", "app/m.py", (2, 2))  # no body: propagates
    assert triage(g, c)["app.z.qq"][0] == "may_impact"
    assert "uses what it returns or changes, which the edit alters" in reasons(g, c)["app.z.qq"]


def test_class_decl_without_own_init_is_not_provable():
    g = Graph()
    g.cls("app.m.User", ids=("user",))
    g.fn("app.m.signup_user", ids=("signup", "user"))
    g.new("app.m.signup_user", "app.m.User", args=1)
    got = triage(g, AtomicChange(CT.CLASS_DECL, "app.m.User", "app/m.py", (1, 1)))
    assert got["app.m.signup_user"][0] == "may_impact"


def test_add_is_low_risk_with_no_obligations():
    g = Graph()
    c = AtomicChange(CT.ADD, "app.m.new", "app/m.py", (1, 2), what="added function new")
    out = tr.triage(c, c.entity, walk(g, c.entity, select_relations(c)), ())
    assert [(e.entity, e.bucket) for e in out] == [("app.m.new", Bucket.LOW)]


def test_merge_keeps_strongest_bucket_highest_conf_and_unions_causes():
    a = TriageEntry("x", "x.py", 0.2, "cause A", Bucket.MAY, 2)
    b = TriageEntry("x", "x.py", 0.7, "cause B", Bucket.MUST, 1)
    c = TriageEntry("x", "x.py", 0.9, "cause A", Bucket.LOW, 3)
    merged = tr.merge([a, b, c])
    assert merged.may_impact == merged.low_risk == ()
    (e,) = merged.must_inspect
    assert (e.conf, e.distance, e.reason) == (0.9, 1, "cause A | cause B")


# ------------------------------------------------------------- properties
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
test_conf = st.sampled_from([0.0, 0.45, 0.5, 0.56, 1.0])


@given(walked=st.booleans(), distance=st.integers(0, 4),
       verdict=st.sampled_from([tr.BREAK, tr.BINDS, tr.UNKNOWN, tr.AFFECTED, tr.NONE]),
       lex_=unit,
       co=unit, tc=test_conf)
def test_bucket_thresholds(walked, distance, verdict, lex_, co, tc):
    hard = walked or tc > 0
    bucket, conf = tr.bucket_for(walked=walked, hard=hard, distance=distance, verdict=verdict,
                                 lex=lex_, co_change=co, test_conf=tc)
    s = DEFAULT
    hard_conf = lex_ * 0.5 ** (distance - 1) if hard and distance >= 1 else 0.0
    raw = max(hard_conf, co, tc)
    assert conf == (max(round(raw, 4), s.must_min) if bucket is Bucket.MUST else round(raw, 4))
    # MUST ⇔ a proven break at distance 1, reported at ≥ MUST_MIN
    assert (bucket is Bucket.MUST) == (walked and distance == 1 and verdict == tr.BREAK)
    if bucket is Bucket.MUST:
        assert conf >= s.must_min
    else:
        # the soft / test / structural-conf thresholds each force MAY-IMPACT
        if co >= s.cochange_min or tc >= s.test_min or max(hard_conf, co) >= s.may_min:
            assert bucket is Bucket.MAY
        # every walk member beyond distance 1 is MAY-IMPACT; so is one at distance 1
        # with no binding break (checked, uncheckable or perturbed by its relation)
        if walked and (distance >= 2 or (distance == 1 and verdict in (
                tr.BINDS, tr.UNKNOWN, tr.AFFECTED))):
            assert bucket is Bucket.MAY
        # LOW-RISK only below every threshold
        if bucket is Bucket.LOW:
            assert co < s.cochange_min and tc < s.test_min and hard_conf < s.may_min
            assert max(hard_conf, co) < s.may_min
            assert not walked or distance == 0 or (
                distance == 1 and lex_ < s.lex_min and verdict == tr.NONE)


# ------------------------------------------------------------------ the set cut
def _may(entity: str, file: str, conf: float, *, hard: bool = False,
         distance: int = 0) -> TriageEntry:
    return TriageEntry(entity, file, conf, "co-change", Bucket.MAY, distance, hard=hard)


def _cut(*entries: tr.TriageEntry, edited: tuple[str, ...] = ("app/core.py",),
         **settings: object) -> tuple[list[str], list[str]]:
    s = DEFAULT.replace(**settings)
    got = tr.cut_weak(Triage(may_impact=tuple(entries)), edited, s)
    return [e.file for e in got.may_impact], [e.file for e in got.low_risk]


def test_the_cut_moves_far_weak_entries_and_spares_the_first_two_files():
    top, second = _may("a", "app/a.py", 0.9), _may("b", "app/b.py", 0.2)
    weak = _may("c", "app/c.py", 0.4)
    assert _cut(top, second, weak) == (["app/a.py", "app/b.py"], ["app/c.py"])
    assert _cut(top, second, _may("c", "app/c.py", 0.45)) == (
        ["app/a.py", "app/b.py", "app/c.py"], [])  # at the bar: kept
    assert _cut(top, second, weak, may_relative_min=0.0)[1] == []  # switched off
    assert _cut(top, second, weak, may_keep_files=3)[1] == []


def test_the_cut_never_moves_a_hard_member_an_edited_file_or_a_test():
    top, second = _may("a", "app/a.py", 0.9), _may("b", "app/b.py", 0.9)
    direct = _may("c.run", "app/c.py", 0.1, hard=True, distance=1)
    far = _may("d.run", "app/d.py", 0.1, hard=True, distance=3)
    soft = _may("e", "app/e.py", 0.1)
    own = _may("core", "app/core.py", 0.1)
    test = _may("tests.test_a", "tests/test_a.py", 0.1)
    kept, fell = _cut(top, second, direct, far, soft, own, test)
    assert fell == ["app/e.py"] and set(kept) == {"app/a.py", "app/b.py", "app/c.py",
                                                  "app/d.py", "app/core.py",
                                                  "tests/test_a.py"}
    # what the task text names is pointed at, not weighed against the others
    named = replace(_may("f", "app/f.py", 0.1), task_named=("f",))
    assert _cut(top, second, named, soft) == (["app/a.py", "app/b.py", "app/f.py"],
                                              ["app/e.py"])


def test_only_library_files_not_edited_set_the_bar_and_take_the_spared_places():
    strong_test = _may("tests/t.py::t", "tests/test_t.py", 1.0, hard=True, distance=1)
    strong_own = _may("core.x", "app/core.py", 1.0)
    a, b, c = (_may(n, f"app/{n}.py", conf) for n, conf in (("a", 0.4), ("b", 0.35),
                                                             ("c", 0.3)))
    # were they counted, the test at 1.0 would raise the bar to 0.5 and take a spared
    # place: b and c would fall
    assert _cut(strong_test, strong_own, a, b, c)[1] == []
    assert _cut(a, b, c, _may("d", "app/d.py", 0.1))[1] == ["app/d.py"]


@given(st.lists(st.tuples(st.integers(0, 5), st.floats(0, 1), st.booleans(),
                          st.integers(0, 3)), max_size=12),
       st.sampled_from([0.0, 0.3, 0.5, 0.9]), st.integers(0, 3))
def test_the_cut_only_moves_may_entries_to_low_risk(rows, cut, keep):
    entries = [_may(f"m{i}.f", f"app/m{i % 6}.py" if n else "app/core.py", conf,
                    hard=hard, distance=d) for i, (n, conf, hard, d) in enumerate(rows)]
    s = DEFAULT.replace(may_relative_min=cut, may_keep_files=keep)
    got = tr.cut_weak(Triage(may_impact=tuple(entries)), ["app/core.py"], s)
    assert len(got.may_impact) + len(got.low_risk) == len(entries)  # nothing lost
    assert [e.entity for e in got.may_impact] == [
        e.entity for e in entries if e.entity in {k.entity for k in got.may_impact}]
    for e in got.low_risk:
        assert e.file != "app/core.py" and not e.hard
        assert e.bucket is Bucket.LOW and "weaker than" in e.reason
    library = [e for e in entries if e.file != "app/core.py"]
    spared = list(dict.fromkeys(e.file for e in library))[:keep]
    assert not {e.file for e in got.low_risk} & set(spared)
    if not cut:
        assert got.may_impact == tuple(entries)
        return
    bar = cut * max((tr.order_score(e, s) for e in library), default=0.0)
    assert all(tr.order_score(e, s) < bar for e in got.low_risk)  # only the weak fall …
    assert all(tr.order_score(e, s) >= bar for e in got.may_impact  # … and all of them
               if not e.hard and e in library and e.file not in spared)
