"""build_prompt: deterministic, the spec's order, signatures only, capped."""

from __future__ import annotations

import copy
import json
from typing import Any

from llm_helpers import ISSUE, SEED, VALIDATE, VIEW

from impactlens.llm import batch_order, build_prompt, change_plan, print_prompt, request_body
from impactlens.llm.config import LLMConfig
from impactlens.llm.prompt import assemble, describe_change
from impactlens.settings import DEFAULT


def _user(messages: list[dict[str, str]]) -> str:
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[1]["content"]


def _dag(user: str) -> dict[str, Any]:
    lines = user.splitlines()
    return json.loads(lines[lines.index("IMPACT DAG:") + 1])


def test_sections_in_the_spec_order(impact: dict[str, Any]) -> None:
    user = _user(build_prompt(impact, DEFAULT))
    lines = user.splitlines()
    assert lines[0] == (
        "CHANGE PLAN: method-signature change to auth.login.LoginService.login: "
        "def login(self, user) → def login(self, user, mfa_code)"
    )
    plan, dag, sigs = (user.index(s) for s in ("CHANGE PLAN:", "IMPACT DAG:", "MUST-INSPECT"))
    assert plan < dag < sigs
    tail = lines[lines.index("MUST-INSPECT SIGNATURES:") + 1 :]
    assert tail[:2] == [
        f"{VALIDATE}: def validate(self, token, mfa_code)",
        f"{VIEW}: def login_view(request)",
    ]


def test_dag_is_signature_only_with_causes_and_batches(impact: dict[str, Any]) -> None:
    dag = _dag(_user(build_prompt(impact, DEFAULT)))
    assert set(dag) == {"nodes", "edges", "batches"}
    assert dag["nodes"][1] == {
        "entity": VALIDATE,
        "kind": "method",
        "signature": "def validate(self, token, mfa_code)",
    }
    assert all(set(n) == {"entity", "kind", "signature"} for n in dag["nodes"])  # no file/line
    assert dag["edges"][0]["cause"].startswith("method-signature changed (added param mfa_code)")
    assert dag["batches"] == [
        {"batch_id": 0, "members": [SEED, VALIDATE, VIEW]},
        {"batch_id": 1, "members": [ISSUE]},
    ]


def test_deterministic(impact: dict[str, Any]) -> None:
    a = build_prompt(impact, DEFAULT)
    b = build_prompt(copy.deepcopy(impact), DEFAULT)
    assert json.dumps(a) == json.dumps(b)


def test_entity_cap_and_summary_length(impact: dict[str, Any]) -> None:
    long_sig = "def f(" + ", ".join(f"argument_{i}" for i in range(60)) + "):"
    nodes = [
        {"entity": f"pkg.mod.f{i:03d}", "kind": "function", "signature": long_sig, "batch_id": 2}
        for i in range(120)
    ]
    impact["dag"]["nodes"] += nodes
    impact["dag"]["edges"] += [{"from": SEED, "to": n["entity"], "cause": "x" * 500} for n in nodes]
    impact["obligations"]["change"].append({"batch_id": 2, "members": [n["entity"] for n in nodes]})
    prompt = assemble(impact, DEFAULT)
    assert len(prompt.entities) == 50
    # priority: seed, MUST-INSPECT, then batch order
    assert {SEED, VALIDATE, VIEW, ISSUE} <= prompt.entities
    assert "pkg.mod.f045" in prompt.entities and "pkg.mod.f046" not in prompt.entities
    dag = _dag(_user(prompt.messages))
    named = {n["entity"] for n in dag["nodes"]}
    named |= {m for b in dag["batches"] for m in b["members"]}
    named |= {x for e in dag["edges"] for x in (e["from"], e["to"])}
    assert named == prompt.entities
    assert all(len(n["signature"]) <= 200 for n in dag["nodes"])
    assert all(len(e["cause"]) <= 200 for e in dag["edges"])
    assert max(len(n["signature"]) for n in dag["nodes"]) == 200
    assert dag["nodes"][-1]["signature"].endswith("…")


def test_multiline_signature_becomes_one_line() -> None:
    change = {
        "change_type": "constructor",
        "entity": "a.B.__init__",
        "before_sig": "def __init__(\n    self,\n    x,\n):",
        "after_sig": "def __init__(\n    self,\n    x,\n    y=1,\n):",
    }
    assert describe_change(change) == (
        "constructor change to a.B.__init__: "
        "def __init__( self, x, ) → def __init__( self, x, y=1, )"
    )


def test_change_plan_kinds() -> None:
    plan = change_plan(
        {
            "changes": [
                {"change_type": "add", "entity": "a.new", "after_sig": "def new():"},
                {"change_type": "delete", "entity": "a.old", "before_sig": "def old(x):"},
                {"change_type": "method-body", "entity": "a.f", "file": "src/a.py"},
                {"change_type": "import", "entity": "a", "file": "src/a.py"},
            ]
        }
    )
    assert plan == (
        "add a.new: def new(); delete a.old: def old(x); method-body change to a.f in src/a.py; "
        "import change to a in src/a.py"
    )
    # no change list: the seed stands in
    assert change_plan({"seed": {"change_type": "field", "entity": "a.K", "file": "a.py"}}) == (
        "field change to a.K in a.py"
    )
    assert change_plan({}) == "(no atomic change recorded)"


def test_change_plan_quotes_headers_and_imports_only() -> None:
    plan = change_plan(
        {
            "changes": [
                {
                    "change_type": "field",
                    "entity": "a.C.retries",
                    "file": "a.py",
                    "before_sig": "self.retries = retries",
                    "after_sig": "self.retries = retries + 1",
                },
                {
                    "change_type": "import",
                    "entity": "a",
                    "file": "a.py",
                    "before_sig": "from b import c",
                    "after_sig": "from b import c, d",
                },
                {
                    "change_type": "class-decl",
                    "entity": "a.C",
                    "file": "a.py",
                    "before_sig": "class C:",
                    "after_sig": "class C(Base):",
                },
            ]
        }
    )
    assert plan == (
        "field change to a.C.retries in a.py; "
        "import change to a: from b import c → from b import c, d; "
        "class-decl change to a.C: class C → class C(Base)"
    )


def test_batch_order_flattens_batches(impact: dict[str, Any]) -> None:
    assert batch_order(impact) == [SEED, VALIDATE, VIEW, ISSUE]


def test_malformed_impact_does_not_crash() -> None:
    prompt = assemble({"dag": {"nodes": "nope", "edges": [1, None]}, "triage": []}, DEFAULT)
    assert prompt.entities == frozenset()
    assert "(none)" in _user(prompt.messages)


def test_print_prompt_is_the_request_body(impact: dict[str, Any]) -> None:
    cfg = LLMConfig.from_env(base_url="http://127.0.0.1:9/v1", model="tiny")
    body = json.loads(print_prompt(impact, cfg, DEFAULT))
    assert body == request_body(build_prompt(impact, DEFAULT), "tiny", DEFAULT)
    assert body["temperature"] == 0
    assert body["max_completion_tokens"] == 1024
    unset = json.loads(print_prompt(impact, None, DEFAULT))
    assert unset["model"] == "(IMPACTLENS_LLM_MODEL unset)"
    sampled = json.loads(print_prompt(impact, cfg, DEFAULT, samples=3))
    assert sampled["temperature"] == 0.7
