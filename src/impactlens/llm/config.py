"""Where the one LLM call goes: an OpenAI-compatible chat-completions endpoint.

Configured from the environment (``IMPACTLENS_LLM_*``) with explicit arguments taking
precedence. Nothing here talks to the network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import urlparse

from impactlens.errors import BadInputError

ENV_BASE_URL = "IMPACTLENS_LLM_BASE_URL"
ENV_MODEL = "IMPACTLENS_LLM_MODEL"
ENV_API_KEY = "IMPACTLENS_LLM_API_KEY"
ENV_TIMEOUT = "IMPACTLENS_LLM_TIMEOUT"
ENV_SAMPLE_TEMPERATURE = "IMPACTLENS_LLM_SAMPLE_TEMPERATURE"

DEFAULT_SAMPLE_TEMPERATURE = 0.7  # Ripple-style self-consistency (--samples K > 1 only)
NO_API_KEY = "impactlens-no-key"  # sent when none is configured (local servers ignore it)


@dataclass(frozen=True)
class LLMConfig:
    """Endpoint, model and per-call timeout (``None`` = ``Settings.llm_timeout_s``).

    ``base_url`` is the API root of an OpenAI-compatible server, e.g.
    ``http://127.0.0.1:8080/v1``; the request goes to ``{base_url}/chat/completions``.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float | None = None
    sample_temperature: float = DEFAULT_SAMPLE_TEMPERATURE

    @classmethod
    def from_env(
        cls,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        sample_temperature: float | None = None,
    ) -> LLMConfig:
        """Explicit arguments win over ``IMPACTLENS_LLM_*``; missing url/model is a user error."""
        base_url = base_url or os.environ.get(ENV_BASE_URL) or None
        model = model or os.environ.get(ENV_MODEL) or None
        api_key = api_key or os.environ.get(ENV_API_KEY) or None
        missing = [
            name for name, value in ((ENV_BASE_URL, base_url), (ENV_MODEL, model)) if not value
        ]
        if missing:
            raise BadInputError(
                f"LLM not configured: set {' and '.join(missing)} "
                "(or pass --llm-base-url / --llm-model)"
            )
        assert base_url is not None and model is not None
        parsed = urlparse(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise BadInputError(f"LLM base URL {base_url!r}: expected http(s)://host[:port]/path")
        if timeout is None:
            timeout = _env_float(ENV_TIMEOUT)
        if timeout is not None and not timeout > 0:
            raise BadInputError(f"LLM timeout {timeout!r}: must be a positive number of seconds")
        if sample_temperature is None:
            sample_temperature = env_sample_temperature()
        _check_temperature(sample_temperature)
        return cls(
            base_url=base_url.rstrip("/"),
            model=model,
            api_key=api_key,
            timeout=timeout,
            sample_temperature=sample_temperature,
        )


def env_sample_temperature() -> float:
    """``IMPACTLENS_LLM_SAMPLE_TEMPERATURE`` or the default 0.7."""
    value = _env_float(ENV_SAMPLE_TEMPERATURE)
    value = DEFAULT_SAMPLE_TEMPERATURE if value is None else value
    _check_temperature(value)
    return value


def _check_temperature(value: float) -> None:
    if not 0 <= value <= 2:
        raise BadInputError(f"sample temperature {value!r}: must be between 0 and 2")


def _env_float(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise BadInputError(f"{name}={raw!r}: not a number") from None
