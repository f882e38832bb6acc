"""LLMConfig.from_env: environment, explicit overrides, one-line errors."""

from __future__ import annotations

import pytest

from impactlens.errors import BadInputError
from impactlens.llm import LLMConfig


def test_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IMPACTLENS_LLM_BASE_URL", "http://127.0.0.1:8080/v1/")
    monkeypatch.setenv("IMPACTLENS_LLM_MODEL", "qwen-small")
    monkeypatch.setenv("IMPACTLENS_LLM_API_KEY", "sekrit")
    cfg = LLMConfig.from_env()
    assert (cfg.base_url, cfg.model, cfg.api_key) == (
        "http://127.0.0.1:8080/v1",
        "qwen-small",
        "sekrit",
    )
    assert cfg.timeout is None
    assert cfg.sample_temperature == 0.7
    assert "sekrit" not in repr(cfg)


def test_explicit_arguments_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IMPACTLENS_LLM_BASE_URL", "http://env:1/v1")
    monkeypatch.setenv("IMPACTLENS_LLM_MODEL", "env-model")
    monkeypatch.setenv("IMPACTLENS_LLM_SAMPLE_TEMPERATURE", "0.9")
    cfg = LLMConfig.from_env(base_url="https://arg:2/v1", model="arg-model", api_key="k", timeout=3)
    assert (cfg.base_url, cfg.model, cfg.api_key, cfg.timeout) == (
        "https://arg:2/v1",
        "arg-model",
        "k",
        3,
    )
    assert cfg.sample_temperature == 0.9


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, "IMPACTLENS_LLM_BASE_URL and IMPACTLENS_LLM_MODEL"),
        ({"IMPACTLENS_LLM_BASE_URL": "http://h/v1"}, "IMPACTLENS_LLM_MODEL"),
        ({"IMPACTLENS_LLM_MODEL": "m"}, "IMPACTLENS_LLM_BASE_URL"),
    ],
)
def test_missing_configuration_is_one_line(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], missing: str
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(BadInputError) as err:
        LLMConfig.from_env()
    msg = str(err.value)
    assert "\n" not in msg
    assert f"set {missing} " in msg


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"base_url": "127.0.0.1:8080"}, "expected http(s)"),
        ({"base_url": "ftp://h/v1"}, "expected http(s)"),
        ({"timeout": 0}, "positive"),
        ({"timeout": -1}, "positive"),
        ({"sample_temperature": 3.0}, "between 0 and 2"),
    ],
)
def test_bad_values(kwargs: dict[str, object], fragment: str) -> None:
    args = {"base_url": "http://h/v1", "model": "m", **kwargs}
    with pytest.raises(BadInputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        LLMConfig.from_env(**args)  # type: ignore[arg-type]


def test_bad_env_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IMPACTLENS_LLM_TIMEOUT", "soon")
    with pytest.raises(BadInputError, match="IMPACTLENS_LLM_TIMEOUT='soon': not a number"):
        LLMConfig.from_env(base_url="http://h/v1", model="m")
    monkeypatch.setenv("IMPACTLENS_LLM_TIMEOUT", "2.5")
    assert LLMConfig.from_env(base_url="http://h/v1", model="m").timeout == 2.5
