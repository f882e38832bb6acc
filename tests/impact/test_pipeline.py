"""run_pipeline: composite edits, the §3.9 schema, determinism, hidden channels."""

from __future__ import annotations

import json

from impact.graphs import Graph, module_of
from impactlens.impact.pipeline import run_pipeline
from impactlens.model import EdgeKind, FileChange, UnresolvedReason
from impactlens.settings import DEFAULT

AUTH_BEFORE = """\
class LoginService:
    def __init__(self, db):
        self.db = db

    def login(self, user):
        return self.db.check(user)


TIMEOUT = 30
"""
AUTH_AFTER = """\
class LoginService:
    def __init__(self, db, clock):
        self.db = db

    def login(self, user, mfa_code):
        return self.db.check(user)


TIMEOUT = 60
"""
LOGIN = "app.auth.LoginService.login"
INIT = "app.auth.LoginService.__init__"


def graph() -> Graph:
    g = Graph()
    g.module("app.auth")
    g.cls("app.auth.LoginService", ids=("login", "service"))
    g.method(INIT, "def __init__(self, db):")
    g.method(LOGIN, "def login(self, user):", ids=("login", "user"))
    g.field("app.auth.TIMEOUT", ids=("timeout",))
    for x in ("app.auth.LoginService", INIT, LOGIN, "app.auth.TIMEOUT"):
        g.contains("app.auth", x)
    g.fn("app.views.login_view", "def login_view(request):", ids=("login", "view", "user"))
    g.call("app.views.login_view", LOGIN, line=5, args=1, bound=True)
    g.new("app.views.login_view", "app.auth.LoginService", line=4, args=1)
    g.edge("app.views.login_view", "app.auth.TIMEOUT", EdgeKind.USE, line=6)
    g.fn("app.api.session", "def session():", ids=("session", "login"))
    g.call("app.api.session", "app.views.login_view", line=3, args=1)
    g.test("tests/test_views.py::test_login_view")
    g.tests("tests/test_views.py::test_login_view", "app.views.login_view")
    return g


def run(g: Graph, files: list[FileChange], **kw: object):
    return run_pipeline(g, files, module_of=module_of, **kw)  # type: ignore[arg-type]


def composite():
    return run(graph(), [FileChange("app/auth.py", AUTH_BEFORE, AUTH_AFTER)],
               co_change={"app/auth.py": [("app/session_store.py", 0.55123456)]},
               co_change_note="co-change: 12 commits before the change")


def test_composite_edit_is_analysed_per_atomic_change():
    res = composite()
    assert [(c.change_type.value, c.entity) for c in res.changes] == [
        ("constructor", INIT), ("method-signature", LOGIN), ("field", "app.auth.TIMEOUT")]
    assert [p.change.entity for p in res.per_change] == [c.entity for c in res.changes]


def test_composite_impacts_are_deduplicated_with_causes_unioned():
    res = composite()
    (view,) = [e for e in res.triage.must_inspect if e.entity == "app.views.login_view"]
    assert view.conf >= 0.7
    causes = view.reason.split(" | ")
    assert len(causes) == 3
    assert any("whose constructor changed" in c and c.startswith("instantiates") for c in causes)
    assert any("whose signature changed" in c and c.startswith("calls") for c in causes)
    assert any("whose value changed" in c and c.startswith("reads") for c in causes)
    all_entities = [e.entity for e in res.triage.entries()]
    assert len(all_entities) == len(set(all_entities))


def test_impact_json_has_the_spec_schema():
    out = composite().impact_json()
    assert out["seed"] == {"change_type": "constructor", "entity": INIT,
                           "file": "app/auth.py", "line_range": [2, 2]}
    assert [c["entity"] for c in out["changes"]] == [INIT, LOGIN, "app.auth.TIMEOUT"]
    assert set(out["obligations"]) == {"change", "validate"}
    assert out["obligations"]["change"][0] == {
        "batch_id": 0, "members": out["batches"][0]["members"]}
    assert out["obligations"]["validate"] == ["tests/test_views.py::test_login_view"]
    assert set(out["dag"]) >= {"nodes", "edges"}
    assert set(out["triage"]) == {"must_inspect", "may_impact", "low_risk"}
    for bucket in out["triage"].values():
        for e in bucket:
            # the spec's four keys; what else ordered the entry when it has one
            assert set(e) - {"edit_relevance", "sole_caller_of"} == {
                "entity", "file", "conf", "reason"}
    assert set(out["batches"][0]) == {"batch_id", "members", "size", "split"}
    assert out["co_change"] == {
        "note": "co-change: 12 commits before the change",
        "candidates": {"app/auth.py": [{"file": "app/session_store.py",
                                        "co_change_score": 0.5512}]}}
    assert out["test_map"][0]["test_id"] == "tests/test_views.py::test_login_view"
    assert out["unanalyzable"] == []
    changes = composite().changes_json()
    assert changes["changes"][1] == {
        "change_type": "method-signature", "entity": LOGIN, "file": "app/auth.py",
        "line_range": [5, 5], "before_sig": "def login(self, user):",
        "after_sig": "def login(self, user, mfa_code):"}


def test_seeds_lead_their_batch():
    res = composite()
    first = res.batches[0].members
    assert first[:3] == (INIT, LOGIN, "app.auth.TIMEOUT")
    assert "app.views.login_view" in first


def test_output_is_byte_identical_for_identical_inputs():
    a = json.dumps(composite().impact_json())
    b = json.dumps(composite().impact_json())
    assert a == b
    other = FileChange("app/other.py", "def f():\n    pass\n", "def f(x):\n    pass\n")
    main = FileChange("app/auth.py", AUTH_BEFORE, AUTH_AFTER)
    r1 = run(graph(), [main, other]).impact_json()
    r2 = run(graph(), [other, main]).impact_json()
    assert json.dumps(r1) == json.dumps(r2)


def test_no_history_is_said_in_the_output():
    res = run(graph(), [FileChange("app/auth.py", AUTH_BEFORE, AUTH_AFTER)],
              co_change_note="co-change: no git history")
    assert res.impact_json()["co_change"] == {"note": "co-change: no git history",
                                              "candidates": {}}


def test_cochange_candidates_are_capped_and_truncated():
    cands = [(f"app/f{i:02d}.py", 0.123456 + i / 1000) for i in range(50)]
    res = run(graph(), [FileChange("app/auth.py", AUTH_BEFORE, AUTH_AFTER)],
              co_change={"app/auth.py": cands})
    got = res.impact_json()["co_change"]["candidates"]["app/auth.py"]
    assert len(got) == 40
    assert got[0] == {"file": "app/f49.py", "co_change_score": 0.1724}
    assert [x["co_change_score"] for x in got] == sorted(
        (x["co_change_score"] for x in got), reverse=True)


def test_no_change_gives_an_empty_result():
    res = run(graph(), [FileChange("app/auth.py", AUTH_BEFORE, AUTH_BEFORE + "# note\n")])
    out = res.impact_json()
    assert out["seed"] is None and out["changes"] == [] and out["batches"] == []
    assert res.test_map_text() == ""


def test_hidden_channels_are_reported_never_silently_low_risk():
    g = graph()
    g.fn("app.plugins.dispatch", ids=("dispatch",))
    g.call("app.plugins.dispatch", "app.api.session")  # far from the change structurally
    g.site("app/plugins.py", 12, "app.plugins.dispatch", UnresolvedReason.REGISTRY_DISPATCH,
           "HANDLERS[name](request)", ("login",))
    g.site("app/auth.py", 30, "app.auth.helper", UnresolvedReason.DYNAMIC_GETATTR,
           "getattr(self, attr)()")
    g.site("app/other.py", 3, "app.other.f", UnresolvedReason.UNKNOWN_RECEIVER,
           "svc.login(user)")
    g.site("app/other.py", 9, "app.other.g", UnresolvedReason.EXTERNAL, "requests.login(x)")
    g.site("app/other.py", 11, "app.other.h", UnresolvedReason.UNKNOWN_RECEIVER, "x.logout()")
    before = "class LoginService:\n    def login(self, user):\n        return user\n"
    after = "class LoginService:\n    def login(self, user, code):\n        return user\n"
    res = run(g, [FileChange("app/auth.py", before, after)], unresolved=g.sites)
    hits = {(u.file, u.line): u.affects for u in res.unanalyzable}
    assert hits == {("app/auth.py", 30): LOGIN,  # a dynamic site in the changed module
                    ("app/other.py", 3): LOGIN,  # duck-typed call naming the method
                    ("app/plugins.py", 12): LOGIN}  # registry keyed by the name
    row = res.impact_json()["unanalyzable"][0]
    assert set(row) == {"file", "line", "scope", "reason", "text", "affects"}


def test_a_low_risk_site_holding_a_hidden_channel_is_raised():
    g = Graph()
    g.method(LOGIN, ids=("login",))
    g.fn("app.zz.qq", ids=("qq",))
    g.edge("app.zz.qq", LOGIN, EdgeKind.OVERRIDE)  # distance 1, no lexical overlap → LOW
    g.site("app/zz.py", 4, "app.zz.qq", UnresolvedReason.DYNAMIC_GETATTR,
           "getattr(obj, 'login')")
    before = "class LoginService:\n    def login(self, user):\n        return user\n"
    after = "class LoginService:\n    def login(self, user, code):\n        return user\n"
    res = run(g, [FileChange("app/auth.py", before, after)], unresolved=g.sites)
    (e,) = [e for e in res.triage.may_impact if e.entity == "app.zz.qq"]
    assert "static analysis cannot follow it" in e.reason
    assert all(e.entity != "app.zz.qq" for e in res.triage.low_risk)


def test_a_non_escaping_body_change_obliges_nothing():
    g = graph()
    before = "class LoginService:\n    def login(self, user):\n        x = 1\n        return user\n"
    after = "class LoginService:\n    def login(self, user):\n        x = 2\n        return user\n"
    res = run(g, [FileChange("app/auth.py", before, after)])
    assert res.triage.must_inspect == ()
    assert res.per_change[0].walk.members == ()
    # only validation: the caller's test exercises the changed body (CALLS path, 0.56)
    assert [b.members for b in res.batches] == [(LOGIN, "tests/test_views.py::test_login_view")]
    assert res.validate == ("tests/test_views.py::test_login_view",)


def test_deleted_file_and_added_file():
    g = graph()
    res = run(g, [FileChange("app/auth.py", AUTH_BEFORE, None),
                  FileChange("app/new.py", None, "def fresh():\n    pass\n")])
    kinds = {(c.change_type.value, c.entity) for c in res.changes}
    assert ("delete", "app.auth") in kinds and ("add", "app.new") in kinds
    must = {e.entity for e in res.triage.must_inspect}
    assert "app.views.login_view" in must
    assert any(e.entity == "app.new" for e in res.triage.low_risk)


def test_ablation_channels_switch_evidence_off():
    files = [FileChange("app/auth.py", AUTH_BEFORE, AUTH_AFTER)]
    no_walk = run(graph(), files, settings=DEFAULT.replace(
        channels=frozenset({"cochange", "testmap", "lexical"})))
    assert all(p.walk.members == () for p in no_walk.per_change)
    no_tests = run(graph(), files, settings=DEFAULT.replace(
        channels=frozenset({"walk", "cochange", "lexical"})))
    assert no_tests.validate == () and no_tests.test_map == ()
    no_cc = run(graph(), files, co_change={"app/auth.py": [("app/x.py", 0.9)]},
                settings=DEFAULT.replace(channels=frozenset({"walk", "testmap", "lexical"})))
    assert all(e.entity != "app.x" for e in no_cc.triage.entries())


def test_a_low_risk_test_holding_a_duck_typed_call_is_raised():
    g = Graph()
    g.module("app.auth")
    g.method(LOGIN, ids=("login",))
    g.contains("app.auth", LOGIN)
    g.module("tests.test_x", file="tests/test_x.py")
    g.test("tests/test_x.py::test_flow", ids=("flow",))
    g.contains("tests.test_x", "tests/test_x.py::test_flow")
    g.edge("tests.test_x", "app.auth", EdgeKind.IMPORT)  # 0.45: validated, LOW-RISK
    g.site("tests/test_x.py", 5, "tests.test_x.test_flow", UnresolvedReason.UNKNOWN_RECEIVER,
           "svc.login(...)", ("login",))
    before = "class LoginService:\n    def login(self, user):\n        return user\n"
    after = "class LoginService:\n    def login(self, user, code):\n        return user\n"
    res = run(g, [FileChange("app/auth.py", before, after)], unresolved=g.sites)
    assert "tests/test_x.py::test_flow" in res.validate
    (e,) = [e for e in res.triage.may_impact if e.entity == "tests/test_x.py::test_flow"]
    assert "call on a value of unknown type at tests/test_x.py:5" in e.reason
