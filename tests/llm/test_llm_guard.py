"""The body guard, and proof that a function body never reaches the model."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from llm_helpers import ChatServer

from impactlens.llm import LLMConfig, LLMGuardError, make_body_guard, next_edits, print_prompt
from impactlens.llm.cli_options import impact_files, repo_body_guard
from impactlens.llm.guard import body_lines
from impactlens.settings import DEFAULT

PLANTED = "PLANTED-7c1e9b-body-marker-never-sent"

LOGIN = f'''\
import hashlib


class LoginService:
    @staticmethod
    def hash_password(
        password: str,
        salt: str = "pepper-and-salt-default",
    ) -> str:
        return hashlib.sha256((salt + password).encode()).hexdigest()

    def login(self, user, mfa_code):
        """Log ``user`` in, checking the second factor."""
        marker = "{PLANTED}"
        session = self.sessions.open(user, marker)
        session.validate(self.tokens.issue(self), mfa_code)

        def audit(event_name):
            return self.audit_log.append((event_name, user))

        audit("in")
        return session
'''

VIEWS = """\
from auth.login import LoginService


def login_view(request):
    return LoginService().login(request.user, request.POST["mfa"])
"""


def _signature(source: str, qualname: str) -> tuple[int, int, str]:
    """What the index stores for a def: its span and its one-line signature (no body)."""
    tree = ast.parse(source)
    parts = qualname.split(".")
    scope: Any = tree
    node: Any = None
    for part in parts:
        node = next(n for n in scope.body if getattr(n, "name", None) == part)
        scope = node
    lines = source.splitlines()
    header = " ".join(x.strip() for x in lines[node.lineno - 1 : node.body[0].lineno - 1])
    return node.lineno, node.end_lineno, header


def _impact_from_repo(root: Path) -> dict[str, Any]:
    login = (root / "src/auth/login.py").read_text()
    views = (root / "src/web/views.py").read_text()
    start, end, sig = _signature(login, "LoginService.login")
    vstart, _, vsig = _signature(views, "login_view")
    seed = "auth.login.LoginService.login"
    return {
        "seed": {
            "change_type": "method-signature",
            "entity": seed,
            "file": "src/auth/login.py",
            "line_range": [start, end],
        },
        "changes": [
            {
                "change_type": "method-signature",
                "entity": seed,
                "file": "src/auth/login.py",
                "line_range": [start, end],
                "before_sig": "def login(self, user):",
                "after_sig": sig,
            }
        ],
        "obligations": {
            "change": [{"batch_id": 0, "members": [seed, "web.views.login_view"]}],
            "validate": [],
        },
        "dag": {
            "nodes": [
                {
                    "entity": seed,
                    "kind": "method",
                    "file": "src/auth/login.py",
                    "line": start,
                    "signature": sig,
                    "batch_id": 0,
                },
                {
                    "entity": "web.views.login_view",
                    "kind": "function",
                    "file": "src/web/views.py",
                    "line": vstart,
                    "signature": vsig,
                    "batch_id": 0,
                },
            ],
            "edges": [
                {
                    "from": seed,
                    "to": "web.views.login_view",
                    "cause": "method-signature changed (added param mfa_code) → "
                    "login_view must re-bind via CalledBy",
                }
            ],
        },
        "triage": {
            "must_inspect": [
                {
                    "entity": "web.views.login_view",
                    "file": "src/web/views.py",
                    "conf": 0.9,
                    "reason": "caller no longer binds",
                }
            ],
            "may_impact": [],
            "low_risk": [],
        },
    }


@pytest.fixture
def repo(make_repo: Any) -> Path:
    return make_repo({"src/auth/login.py": LOGIN, "src/web/views.py": VIEWS})


def test_planted_body_string_never_reaches_the_request(repo: Path, chat_server: ChatServer) -> None:
    impact = _impact_from_repo(repo)
    guard = repo_body_guard(repo, impact)
    reply = {"next_edits": [{"entity": "web.views.login_view", "reason": "pass mfa_code"}]}
    chat_server.script(chat_server.reply(reply))
    cfg = LLMConfig.from_env(base_url=chat_server.url, model="m", timeout=2)

    result = next_edits(impact, cfg, DEFAULT, body_guard=guard)

    assert result["next_edits"] == reply["next_edits"]
    assert chat_server.count == 1
    sent = chat_server.raw_bodies[0]
    assert PLANTED not in sent
    assert "def login(self, user, mfa_code)" in sent  # the signature does go
    for line in body_lines({"src/auth/login.py": LOGIN}):
        assert line not in sent and json.dumps(line)[1:-1] not in sent
    # ...and the guard would have caught the body had it been there
    with pytest.raises(LLMGuardError, match=r"^src/auth/login.py:14: prompt contains"):
        guard(sent.replace("def login_view(request)", f'marker = "{PLANTED}"'))


def test_guard_blocks_a_body_smuggled_into_a_signature(repo: Path, chat_server: ChatServer) -> None:
    impact = _impact_from_repo(repo)
    impact["dag"]["nodes"][0]["signature"] += f' marker = "{PLANTED}"'
    guard = repo_body_guard(repo, impact)
    cfg = LLMConfig.from_env(base_url=chat_server.url, model="m", timeout=2)

    result = next_edits(impact, cfg, DEFAULT, body_guard=guard)

    assert result["next_edit"] == "failed"
    assert result["why"].startswith("guard: src/auth/login.py:14: prompt contains")
    assert result["order"] == ["auth.login.LoginService.login", "web.views.login_view"]
    assert chat_server.count == 0
    with pytest.raises(LLMGuardError):
        print_prompt(impact, None, DEFAULT, body_guard=guard)


def test_body_lines_exclude_signatures_and_short_lines() -> None:
    lines = body_lines({"src/auth/login.py": LOGIN})
    text = "\n".join(lines)
    assert f'marker = "{PLANTED}"' in lines
    assert '"""Log ``user`` in, checking the second factor."""' in lines  # docstrings are body
    assert "return hashlib.sha256((salt + password).encode()).hexdigest()" in lines
    assert "return self.audit_log.append((event_name, user))" in lines  # nested body
    # header lines of every def (incl. decorators, multi-line params, nested defs) are not
    assert "def login(" not in text
    assert "@staticmethod" not in text
    assert 'salt: str = "pepper-and-salt-default",' not in lines
    assert "def audit(event_name):" not in lines
    assert "class LoginService" not in text
    assert "import hashlib" not in text  # module level is not a body
    assert 'audit("in")' not in lines  # shorter than 12 characters
    assert lines[f'marker = "{PLANTED}"'] == ("src/auth/login.py", 14)


def test_explicit_def_spans_limit_the_guard() -> None:
    start, end, _ = _signature(VIEWS, "login_view")
    lines = body_lines(
        {"src/web/views.py": VIEWS, "src/auth/login.py": LOGIN}, [("src/web/views.py", start, end)]
    )
    assert list(lines) == ['return LoginService().login(request.user, request.POST["mfa"])']


def test_guard_sees_json_escaped_text() -> None:
    guard = make_body_guard({"src/web/views.py": VIEWS})
    body_line = 'return LoginService().login(request.user, request.POST["mfa"])'
    guard("nothing to see: def login_view(request)")
    with pytest.raises(LLMGuardError, match=r"src/web/views\.py:5"):
        guard(json.dumps({"signature": body_line}))
    with pytest.raises(LLMGuardError):
        guard("prefix " + body_line + " suffix")


def test_guard_on_unparseable_source() -> None:
    broken = "def f(a,\n      b):\n    value_of_the_sum = a + b\n    return value_of_the_sum +\n"
    lines = body_lines({"x.py": broken}, [("x.py", 1, 4)])
    assert set(lines) == {"value_of_the_sum = a + b", "return value_of_the_sum +"}


def test_impact_files(repo: Path) -> None:
    assert impact_files(_impact_from_repo(repo)) == ["src/auth/login.py", "src/web/views.py"]


def test_one_line_def_body_is_guarded() -> None:
    src = (
        "def short(x): return x * 1000003 + 17\n"
        "def also(\n    y,\n): return compute_the_thing(y)\n"
        "def normal(z):\n    return z + 12345678901\n"
    )
    lines = body_lines({"m.py": src})
    assert lines == {
        "return x * 1000003 + 17": ("m.py", 1),
        "return compute_the_thing(y)": ("m.py", 4),
        "return z + 12345678901": ("m.py", 6),
    }
