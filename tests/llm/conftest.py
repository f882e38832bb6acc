"""Fixtures for the LLM tests: a scripted chat-completions server and an impact.json."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from llm_helpers import ChatServer, make_impact


@pytest.fixture
def chat_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = ChatServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests configure the endpoint explicitly; a developer's environment must not leak in."""
    for name in (
        "IMPACTLENS_LLM_BASE_URL",
        "IMPACTLENS_LLM_MODEL",
        "IMPACTLENS_LLM_API_KEY",
        "IMPACTLENS_LLM_TIMEOUT",
        "IMPACTLENS_LLM_SAMPLE_TEMPERATURE",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def impact() -> dict[str, Any]:
    return make_impact()
