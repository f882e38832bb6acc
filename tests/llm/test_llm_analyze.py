"""The `analyze` wiring: run_llm_step stores impact["next_edit"] and rewrites impact.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from llm_helpers import VALIDATE, VIEW, ChatServer

from impactlens.llm.cli_options import LLMOptions, next_edit_lines, run_llm_step
from impactlens.settings import DEFAULT

PLANTED = "PLANTED-4f2a-analyze-body-marker"

LOGIN_BEFORE = f'''\
class LoginService:
    def login(self, user):
        audit_marker = "{PLANTED}"
        return self.sessions.open(user, audit_marker)
'''
LOGIN_AFTER = LOGIN_BEFORE.replace("def login(self, user):", "def login(self, user, mfa_code):")
VIEWS = """\
from auth.login import LoginService


def login_view(request):
    return LoginService().login(request.user)
"""
TESTS = """\
from web.views import login_view


def test_login_view():
    assert login_view is not None
"""


class _FileChange:
    def __init__(self, path: str, before: str, after: str) -> None:
        self.path, self.before, self.after = path, before, after


def test_run_llm_step_stores_and_rewrites(
    chat_server: ChatServer, impact: dict[str, Any], tmp_path: Path
) -> None:
    chat_server.script(chat_server.reply({"next_edits": [{"entity": VIEW, "reason": "r"}]}))
    out = tmp_path / "out"
    opts = LLMOptions(enabled=True, base_url=chat_server.url, model="m", timeout=2)
    updated = run_llm_step(tmp_path, impact, opts, DEFAULT, out_dir=out)
    assert updated is impact
    on_disk = json.loads((out / "impact.json").read_text())
    assert on_disk["next_edit"]["next_edits"] == [{"entity": VIEW, "reason": "r"}]
    assert on_disk["dag"] == impact["dag"]
    assert chat_server.count == 1
    assert next_edit_lines(on_disk["next_edit"]) == [
        "Next edits (model scripted-model):",
        f"  1. {VIEW} — r",
    ]


def test_run_llm_step_off_and_print(
    chat_server: ChatServer, impact: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    assert run_llm_step(tmp_path, impact, LLMOptions(), DEFAULT, out_dir=tmp_path) is None
    assert not (tmp_path / "impact.json").exists()
    opts = LLMOptions(print_prompt=True, model="m", base_url=chat_server.url)
    assert run_llm_step(tmp_path, impact, opts, DEFAULT, out_dir=tmp_path) is None
    assert json.loads(capsys.readouterr().out)["model"] == "m"
    assert chat_server.count == 0
    assert not (tmp_path / "impact.json").exists()


def test_run_llm_step_guards_the_change_texts(
    chat_server: ChatServer, impact: dict[str, Any], tmp_path: Path
) -> None:
    # the before-text of a --rev/--diff change is not on disk; it is guarded all the same
    impact["dag"]["nodes"][1]["signature"] = f'audit_marker = "{PLANTED}"'
    change = _FileChange("src/auth/login.py", LOGIN_BEFORE, LOGIN_AFTER)
    opts = LLMOptions(enabled=True, base_url=chat_server.url, model="m", timeout=2)
    updated = run_llm_step(tmp_path, impact, opts, DEFAULT, change_files=[change])
    assert updated is not None
    decision = updated["next_edit"]
    assert decision["next_edit"] == "failed"
    assert decision["why"].startswith("guard: src/auth/login.py@after:3:")
    assert chat_server.count == 0
    assert next_edit_lines(decision)[0].startswith("Next edit (model): failed — guard:")


def test_failed_decision_lines() -> None:
    lines = next_edit_lines({"next_edit": "failed", "fallback": "batch_order", "why": "HTTP 500"})
    assert lines == ["Next edit (model): failed — HTTP 500; the batch order stands."]
    lines = next_edit_lines(
        {"next_edits": [{"entity": VALIDATE, "reason": "x"}], "dropped": 2, "model": "m"}
    )
    assert lines[-1] == "  (2 named entities not in the map were dropped)"


def test_analyze_command_end_to_end(
    chat_server: ChatServer, make_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("impactlens.impact.pipeline")
    if not hasattr(pytest.importorskip("impactlens.index.python"), "extract_file"):
        pytest.skip("the Python extractor (impactlens.index.python) is not built yet")
    from impactlens.cli import main

    root = make_repo(
        {
            "src/auth/__init__.py": "",
            "src/auth/login.py": LOGIN_BEFORE,
            "src/web/__init__.py": "",
            "src/web/views.py": VIEWS,
            "tests/test_views.py": TESTS,
        }
    )
    (root / "src/auth/login.py").write_text(LOGIN_AFTER)
    chat_server.script(
        chat_server.reply(
            {"next_edits": [{"entity": "web.views.login_view", "reason": "pass mfa_code"}]}
        )
    )
    monkeypatch.chdir(root)
    result = CliRunner().invoke(
        main,
        [
            "analyze",
            "--repo",
            str(root),
            "--json",
            "--llm",
            "--llm-base-url",
            chat_server.url,
            "--llm-model",
            "m",
            "--llm-timeout",
            "5",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    on_disk = json.loads((root / ".impactlens/out/impact.json").read_text())
    assert printed["next_edit"] == on_disk["next_edit"]
    assert chat_server.count == 1
    sent = chat_server.raw_bodies[0]
    assert PLANTED not in sent
    body = chat_server.bodies[0]
    assert body["temperature"] == 0 and body["max_completion_tokens"] == 1024
    if "web.views.login_view" in body["messages"][1]["content"]:
        assert on_disk["next_edit"]["next_edits"] == [
            {"entity": "web.views.login_view", "reason": "pass mfa_code"}
        ]
    else:  # the map does not hold the caller: a counted drop, batch order stands
        assert on_disk["next_edit"]["next_edit"] == "failed"

    # --print-prompt prints the request body and sends nothing
    printed_prompt = CliRunner().invoke(
        main,
        ["analyze", "--repo", str(root), "--print-prompt", "--llm-model", "m"],
        catch_exceptions=False,
    )
    assert printed_prompt.exit_code == 0, printed_prompt.output
    assert json.loads(printed_prompt.output)["messages"] == body["messages"]
    assert chat_server.count == 1
