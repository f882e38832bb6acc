"""§3.9 / phase 7 (DAG part): the cause-labelled impact DAG."""

from __future__ import annotations

import json
import re

from impact.graphs import Graph, module_of
from impactlens.impact.dag import cause_label, edge_label
from impactlens.impact.pipeline import run_pipeline
from impactlens.impact.token_count import count_tokens
from impactlens.model import AtomicChange, ChangeType, EdgeKind, FileChange
from impactlens.settings import DEFAULT

BEFORE = "class LoginService:\n    def login(self, user):\n        return user\n"
AFTER = "class LoginService:\n    def login(self, user, mfa_code):\n        return user\n"
SEED = "app.auth.LoginService.login"
TEMPLATE = re.compile(r"(?P<ct>[a-z-]+) changed \((?P<what>.+)\) → (?P<site>\S+) "
                      r"(?P<verb>must re-bind|must be updated|must be re-checked|"
                      r"must be re-tested) via (?P<rel>\S+)")


def graph() -> Graph:
    g = Graph()
    g.method(SEED, "def login(self, user):", ids=("login", "user"))
    g.fn("app.views.login_page", "def login_page(request):", ids=("login", "page", "user"))
    g.fn("app.views.portal", "def portal():", ids=("portal", "login", "user"))
    g.fn("app.cli.main", "def main():", ids=("main",))
    g.call("app.views.login_page", SEED, line=4, args=1, bound=True)
    g.call("app.cli.main", SEED, line=9, args=2, bound=True)
    g.call("app.views.portal", "app.views.login_page", line=2, args=1)
    g.test("tests/test_views.py::test_portal")
    g.tests("tests/test_views.py::test_portal", "app.views.portal")
    return g


def dag(g: Graph, before: str = BEFORE, after: str = AFTER, **cfg: object) -> dict:
    s = DEFAULT.replace(**cfg) if cfg else DEFAULT
    res = run_pipeline(g, [FileChange("app/auth.py", before, after)], module_of=module_of,
                       settings=s)
    return res.impact_json()["dag"]


def test_edges_carry_cause_labels_from_the_template():
    d = dag(graph())
    edges = {(e["from"], e["to"]): e["cause"] for e in d["edges"]}
    why = {(e["from"], e["to"]): e["why"] for e in d["edges"]}
    assert edges[(SEED, "app.views.login_page")] == (
        "method-signature changed (added param mfa_code) → app.views.login_page must re-bind "
        "via CalledBy")
    assert why[(SEED, "app.views.login_page")] == (
        "calls LoginService.login, whose signature changed (added param mfa_code)")
    assert edges[("app.views.portal", "tests/test_views.py::test_portal")].endswith(
        "tests/test_views.py::test_portal must be re-tested via TESTS")
    for cause in edges.values():
        assert TEMPLATE.fullmatch(cause), cause
    for words in why.values():  # what people read names no relation
        assert " via " not in words and "CalledBy" not in words, words


def test_seed_precedes_its_callers_and_the_dag_is_acyclic():
    d = dag(graph())
    order = [n["entity"] for n in d["nodes"]]
    assert order[0] == SEED
    pos = {n: i for i, n in enumerate(order)}
    for e in d["edges"]:
        assert pos[e["from"]] < pos[e["to"]]  # never a reversed cause edge


def test_nodes_carry_kind_file_line_signature_and_batch():
    d = dag(graph())
    seed = d["nodes"][0]
    assert seed == {"entity": SEED, "kind": "method", "file": "app/auth.py", "line": 1,
                    "signature": "def login(self, user, mfa_code):", "batch_id": 0}
    page = next(n for n in d["nodes"] if n["entity"] == "app.views.login_page")
    assert page["signature"] == "def login_page(request):" and page["kind"] == "function"


def test_low_risk_ancestor_that_connects_an_obligation_is_kept_without_batch():
    g = Graph()
    g.cls("app.auth.LoginService", ids=("login", "service"))
    g.cls("app.zz.Qq", ids=("qq",))  # its base: distance 1, no evidence, no lexical overlap
    g.cls("app.zz.Rr", ids=("rr",))  # the base's base: distance 2 → MAY-IMPACT
    g.edge("app.auth.LoginService", "app.zz.Qq", EdgeKind.INHERIT)
    g.edge("app.zz.Qq", "app.zz.Rr", EdgeKind.INHERIT)
    g.test("tests/test_rr.py::test_rr")
    g.tests("tests/test_rr.py::test_rr", "app.zz.Rr")
    d = dag(g, "class LoginService(Qq):\n    pass\n",
            "class LoginService(Qq, Mixin):\n    pass\n")
    nodes = {n["entity"]: n["batch_id"] for n in d["nodes"]}
    assert nodes["app.zz.Qq"] is None  # LOW-RISK: not in a batch, but on the cause path
    assert nodes["app.zz.Rr"] is not None
    edges = {(e["from"], e["to"]) for e in d["edges"]}
    assert {("app.auth.LoginService", "app.zz.Qq"), ("app.zz.Qq", "app.zz.Rr"),
            ("app.zz.Rr", "tests/test_rr.py::test_rr")} <= edges


def test_node_and_edge_caps():
    g = Graph()
    g.method(SEED, ids=("login",))
    for i in range(30):
        g.fn(f"app.v.login_{i:02d}", ids=("login", f"n{i}"))
        g.call(f"app.v.login_{i:02d}", SEED, args=1, bound=True)
    d = dag(g, max_dag_nodes=10, max_dag_edges=5)
    assert len(d["nodes"]) == 10 and d["omitted_nodes"] == 21
    assert len(d["edges"]) == 5 and d["truncated"]


def test_token_cap_truncates_longest_signatures_first_then_drops_nodes():
    g = Graph()
    g.method(SEED, ids=("login",))
    for i in range(12):
        params = ", ".join(f"argument_{k}" for k in range(40))
        long = f"def login_{i:02d}({params}):"
        g.fn(f"app.v.login_{i:02d}", long, ids=("login",))
        g.call(f"app.v.login_{i:02d}", SEED, args=1, bound=True)
    full = dag(g)
    assert not full["truncated"]
    cap = count_tokens(json.dumps(full, ensure_ascii=False), DEFAULT.tokenizer_encoding) // 2
    cut = dag(g, max_dag_tokens=cap)
    assert count_tokens(json.dumps(cut, ensure_ascii=False), DEFAULT.tokenizer_encoding) <= cap
    assert cut["truncated"] and len(cut["nodes"]) == len(full["nodes"])  # only summaries cut
    assert all(n["signature"].endswith("…") for n in cut["nodes"][1:])
    tiny = dag(g, max_dag_tokens=300)
    assert tiny["omitted_nodes"] > 0
    assert count_tokens(json.dumps(tiny, ensure_ascii=False), DEFAULT.tokenizer_encoding) <= 300


def test_verbs_follow_the_change_type():
    def c(ct: ChangeType) -> AtomicChange:
        return AtomicChange(ct, "m.f", "m.py", (1, 1), what="x")

    assert edge_label(c(ChangeType.IMPORT), "s", "ImportedBy").endswith(
        "must re-bind via ImportedBy")
    assert "must be updated" in edge_label(c(ChangeType.FIELD), "s", "UsedBy")
    assert "must be updated" in edge_label(c(ChangeType.CONSTRUCTOR), "s", "InstantiatedBy")
    assert "must be updated" in edge_label(c(ChangeType.CLASS_DECL), "s", "SubclassOf")
    assert "must be re-checked" in edge_label(c(ChangeType.METHOD_BODY), "s", "Callers")
    assert "must be re-tested" in edge_label(c(ChangeType.METHOD_BODY), "t", "TESTS", test=True)
    assert cause_label(c(ChangeType.IMPORT), "s", "ImportedBy") == (
        "imports m.f, whose imported name changed (x)")
    assert cause_label(c(ChangeType.FIELD), "s", "UsedBy") == "reads m.f, whose value changed (x)"
    assert cause_label(c(ChangeType.METHOD_BODY), "s", "Callers", via="a.g") == (
        "calls a.g, which depends on m.f, whose body changed (x)")
