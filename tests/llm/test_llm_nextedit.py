"""next_edits against a real chat-completions server on loopback.

Every run makes exactly one HTTP request (K with --samples K), whatever happens: the
client is built with max_retries=0, so a 500 or a timeout is not retried.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from llm_helpers import AUDIT, ISSUE, MODEL, SEED, VALIDATE, VIEW, ChatServer

from impactlens.errors import BadInputError
from impactlens.llm import LLMConfig, LLMGuardError, build_prompt, next_edits
from impactlens.settings import DEFAULT

FALLBACK_ORDER = [SEED, VALIDATE, VIEW, ISSUE]


def _config(server: ChatServer, timeout: float = 2.0, **kw: Any) -> LLMConfig:
    return LLMConfig.from_env(base_url=server.url, model="tiny-model", timeout=timeout, **kw)


def _edits(*entities: str) -> dict[str, Any]:
    return {"next_edits": [{"entity": e, "reason": f"re-bind {e}"} for e in entities]}


def _assert_fallback(result: dict[str, Any], why: str) -> None:
    assert result["next_edit"] == "failed"
    assert result["fallback"] == "batch_order"
    assert why in result["why"], result["why"]
    assert result["order"] == FALLBACK_ORDER
    assert "next_edits" not in result


def test_one_call_with_the_spec_parameters(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.reply(_edits(VALIDATE, VIEW), prompt_tokens=400))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    assert result == {
        "next_edits": [
            {"entity": VALIDATE, "reason": f"re-bind {VALIDATE}"},
            {"entity": VIEW, "reason": f"re-bind {VIEW}"},
        ],
        "dropped": 0,
        "tokens": {"prompt": 400, "completion": 45},
        "model": MODEL,
    }
    assert chat_server.count == 1
    path, headers, _ = chat_server.requests[0]
    assert path == "/v1/chat/completions"
    body = chat_server.bodies[0]
    assert body["model"] == "tiny-model"
    assert body["temperature"] == 0
    assert body["max_completion_tokens"] == 1024
    assert body["messages"] == build_prompt(impact, DEFAULT)
    assert {k.lower(): v for k, v in headers.items()}["x-stainless-retry-count"] == "0"


def test_entities_not_in_the_map_are_dropped_and_counted(
    chat_server: ChatServer, impact: dict
) -> None:
    reply = _edits(AUDIT, VIEW, "made.up.entity", VIEW, VALIDATE)
    chat_server.script(chat_server.reply(reply))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    assert [e["entity"] for e in result["next_edits"]] == [VIEW, VALIDATE]
    assert result["dropped"] == 3  # two unknown entities and one repeat
    assert chat_server.count == 1


def test_only_unknown_entities_falls_back(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.reply(_edits(AUDIT)))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    _assert_fallback(result, "no entity in the reply is in the map")
    assert result["dropped"] == 1
    assert chat_server.count == 1


def test_fenced_json_reply_is_accepted(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.reply("```json\n" + json.dumps(_edits(ISSUE)) + "\n```"))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    assert result["next_edits"] == [{"entity": ISSUE, "reason": f"re-bind {ISSUE}"}]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("Sure! Edit Session.validate next.", "reply is not JSON"),
        ('{"next_edits": [{"entity": "auth.session.Session.validate"', "reply is not JSON"),
        ("", "empty reply"),
        ('["auth.session.Session.validate"]', 'reply is not {"next_edits": [...]}'),
        ('{"next_edit": []}', 'reply is not {"next_edits": [...]}'),
        ('{"next_edits": ["auth.session.Session.validate"]}', "next_edits[0] is not an object"),
        (
            '{"next_edits": [{"entity": "auth.session.Session.validate"}]}',
            "needs string 'entity' and 'reason'",
        ),
        ('{"next_edits": [{"entity": 3, "reason": "r"}]}', "needs string 'entity' and 'reason'"),
    ],
)
def test_malformed_reply_falls_back_after_one_call(
    chat_server: ChatServer, impact: dict, content: str, why: str
) -> None:
    chat_server.script(chat_server.reply(content), chat_server.reply(_edits(VALIDATE)))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    _assert_fallback(result, why)
    assert chat_server.count == 1  # never a re-prompt


def test_response_body_not_json_falls_back(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.raw("<html>bad gateway</html>"), chat_server.reply(_edits(VIEW)))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    _assert_fallback(result, "response body is not JSON")
    assert chat_server.count == 1


@pytest.mark.parametrize("code", [500, 503, 429, 401])
def test_http_error_falls_back_without_retry(
    chat_server: ChatServer, impact: dict, code: int
) -> None:
    # the openai client retries 5xx/429 twice by default; max_retries=0 must hold
    chat_server.script(chat_server.status(code), chat_server.reply(_edits(VALIDATE)))
    result = next_edits(impact, _config(chat_server), DEFAULT)
    _assert_fallback(result, f"HTTP {code}: scripted failure")
    assert chat_server.count == 1


def test_timeout_falls_back_without_retry(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.hang(10), chat_server.reply(_edits(VALIDATE)))
    start = time.monotonic()
    result = next_edits(impact, _config(chat_server, timeout=0.4), DEFAULT)
    elapsed = time.monotonic() - start
    _assert_fallback(result, "timeout after 0.4s")
    assert elapsed < 3
    time.sleep(0.2)  # a retry would have arrived by now
    assert chat_server.count == 1


def test_settings_timeout_is_the_default(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.hang(10))
    cfg = LLMConfig.from_env(base_url=chat_server.url, model="m")
    result = next_edits(impact, cfg, DEFAULT.replace(llm_timeout_s=0.3))
    _assert_fallback(result, "timeout after 0.3s")
    assert chat_server.count == 1


def test_connection_refused_falls_back(impact: dict) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = LLMConfig.from_env(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=1)
    result = next_edits(impact, cfg, DEFAULT)
    _assert_fallback(result, "connection error")


def test_empty_map_makes_no_call(chat_server: ChatServer) -> None:
    result = next_edits({"dag": {"nodes": []}}, _config(chat_server), DEFAULT)
    assert result == {
        "next_edit": "failed",
        "fallback": "batch_order",
        "why": "empty impact map: nothing to decide",
        "order": [],
    }
    assert chat_server.count == 0


def test_guard_rejection_makes_no_call(chat_server: ChatServer, impact: dict) -> None:
    def guard(text: str) -> None:
        if "mfa_code" in text:
            raise LLMGuardError("src/auth/login.py:3: prompt contains statement-body text")

    result = next_edits(impact, _config(chat_server), DEFAULT, body_guard=guard)
    _assert_fallback(result, "guard: src/auth/login.py:3")
    assert chat_server.count == 0


def test_api_key_is_sent_when_configured(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.reply(_edits(VIEW)))
    next_edits(impact, _config(chat_server, api_key="sk-test-123"), DEFAULT)
    headers = {k.lower(): v for k, v in chat_server.requests[0][1].items()}
    assert headers["authorization"] == "Bearer sk-test-123"


# ------------------------------------------------------------------------------- samples
def test_samples_make_exactly_k_calls_and_vote(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(
        chat_server.reply(_edits(VALIDATE, VIEW, ISSUE)),
        chat_server.reply(_edits(VIEW, VALIDATE, AUDIT)),
        chat_server.reply(_edits(VIEW, ISSUE)),
        chat_server.reply("not json"),
        chat_server.reply(_edits(VIEW, VALIDATE)),
    )
    cfg = _config(chat_server, sample_temperature=0.6)
    result = next_edits(impact, cfg, DEFAULT, samples=5)
    assert chat_server.count == 5
    assert {b["temperature"] for b in chat_server.bodies} == {0.6}
    assert {b["max_completion_tokens"] for b in chat_server.bodies} == {1024}
    # 4 good samples; Borda: VIEW 2+3+2+2=9, VALIDATE 3+2+0+1=6 (3 votes), ISSUE 1+1=2 (2 votes)
    assert [e["entity"] for e in result["next_edits"]] == [VIEW, VALIDATE, ISSUE]
    assert result["dropped"] == 1  # AUDIT
    assert result["samples"] == {
        "requested": 5,
        "ok": 4,
        "failed": ["reply is not JSON (Expecting value at char 0)"],
    }
    assert result["tokens"] == {"prompt": 4 * 321, "completion": 4 * 45}


def test_samples_all_failing_fall_back(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.status(500))
    result = next_edits(impact, _config(chat_server), DEFAULT, samples=3)
    _assert_fallback(result, "HTTP 500")
    assert chat_server.count == 3


def test_default_is_one_call_at_temperature_zero(chat_server: ChatServer, impact: dict) -> None:
    chat_server.script(chat_server.reply(_edits(VIEW)))
    result = next_edits(impact, _config(chat_server, sample_temperature=0.9), DEFAULT)
    assert "samples" not in result
    assert chat_server.count == 1
    assert chat_server.bodies[0]["temperature"] == 0


def test_samples_below_one_is_a_user_error(chat_server: ChatServer, impact: dict) -> None:
    with pytest.raises(BadInputError):
        next_edits(impact, _config(chat_server), DEFAULT, samples=0)
    assert chat_server.count == 0
