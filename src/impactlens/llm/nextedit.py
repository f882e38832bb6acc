"""The one learned step (§4): a model reads the impact map and names the next edits.

Exactly one chat-completions call per run (``temperature=0``,
``max_completion_tokens=1024``, a client built with ``max_retries=0``): no retry, no
re-prompt, no second call. Any failure — guard rejection, HTTP error, timeout, a reply
that is not the exact JSON schema, nothing usable left — is a no-op that returns::

    {"next_edit": "failed", "fallback": "batch_order", "why": "...", "order": [...]}

and the deterministic batch order (§3.8) stands. Success returns::

    {"next_edits": [{"entity", "reason"}], "dropped": n,
     "tokens": {"prompt": p, "completion": c}, "model": "..."}

where ``dropped`` counts named entities that were not in the map (or repeated).
``samples=K > 1`` (off by default) makes exactly K calls at the configured sample
temperature and combines them with :func:`impactlens.llm.vote.majority_order`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from impactlens.errors import BadInputError, MissingExtraError
from impactlens.llm.config import NO_API_KEY, LLMConfig, env_sample_temperature
from impactlens.llm.guard import BodyGuard, LLMGuardError
from impactlens.llm.prompt import assemble, batch_order, clip, prompt_text
from impactlens.llm.vote import majority_order
from impactlens.settings import DEFAULT, Settings

if TYPE_CHECKING:
    import openai

_FENCE = re.compile(r"\A```(?:json)?\s*\n(.*)\n```\Z", re.DOTALL)


def openai_client() -> Any:
    """The ``openai`` module, or a one-line error saying how to install it (an extra).

    Imported only when a call is made: importing the client costs ~1 s.
    """
    try:
        import openai
    except ImportError:
        raise MissingExtraError(
            "--llm needs the OpenAI client, an optional extra: pip install 'impactlens[llm]'"
        ) from None
    return openai


class ReplyError(ValueError):
    """The model's reply is not the §4 output schema."""


@dataclass(frozen=True)
class _Reply:
    edits: list[dict[str, str]]
    dropped: int
    prompt_tokens: int
    completion_tokens: int
    model: str


def request_body(
    messages: list[dict[str, str]],
    model: str,
    settings: Settings = DEFAULT,
    *,
    temperature: float | None = None,
) -> dict[str, Any]:
    """The chat-completions request body (what is POSTed to ``/chat/completions``)."""
    return {
        "model": model,
        "messages": messages,
        "temperature": settings.llm_temperature if temperature is None else temperature,
        "max_completion_tokens": settings.llm_max_completion_tokens,
    }


def print_prompt(
    impact: Mapping[str, Any],
    config: LLMConfig | None = None,
    settings: Settings = DEFAULT,
    *,
    body_guard: BodyGuard | None = None,
    samples: int = 1,
    model: str | None = None,
) -> str:
    """The exact request body as JSON, without sending anything.

    Without a ``config`` the body names ``model`` (or ``"(IMPACTLENS_LLM_MODEL unset)"``)
    and, for ``samples > 1``, the sample temperature from the environment. A
    ``body_guard`` is applied as for a real call (raising :class:`LLMGuardError`).
    """
    prompt = assemble(impact, settings)
    if body_guard is not None:
        body_guard(prompt_text(prompt.messages))
    if config is not None:
        model, sample_temperature = config.model, config.sample_temperature
    else:
        model = model or "(IMPACTLENS_LLM_MODEL unset)"
        sample_temperature = env_sample_temperature()
    temperature = sample_temperature if samples > 1 else None
    body = request_body(prompt.messages, model, settings, temperature=temperature)
    return json.dumps(body, ensure_ascii=False, indent=2)


def parse_reply(content: str | None, entities: frozenset[str], settings: Settings = DEFAULT):
    """Validate ``{"next_edits": [{"entity", "reason"}]}``; returns ``(edits, dropped)``.

    The reply must be one JSON object (optionally inside a single ```` ```json ```` fence).
    Named entities outside ``entities`` (and repeats) are dropped and counted.
    """
    if not isinstance(content, str) or not content.strip():
        raise ReplyError("empty reply")
    text = content.strip()
    if m := _FENCE.match(text):
        text = m.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"reply is not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(data, dict) or not isinstance(data.get("next_edits"), list):
        raise ReplyError('reply is not {"next_edits": [...]}')
    edits: list[dict[str, str]] = []
    seen: set[str] = set()
    dropped = 0
    for i, item in enumerate(data["next_edits"]):
        if not isinstance(item, dict):
            raise ReplyError(f"next_edits[{i}] is not an object")
        entity, reason = item.get("entity"), item.get("reason")
        if not isinstance(entity, str) or not isinstance(reason, str):
            raise ReplyError(f"next_edits[{i}] needs string 'entity' and 'reason'")
        if entity not in entities or entity in seen or len(edits) >= settings.llm_max_entities:
            dropped += 1
            continue
        seen.add(entity)
        edits.append({"entity": entity, "reason": clip(reason, settings.llm_max_summary_chars)})
    return edits, dropped


def _why(exc: BaseException, timeout: float) -> str:
    openai = openai_client()
    if isinstance(exc, openai.APITimeoutError):
        return f"timeout after {timeout:g}s"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = body.get("message") or exc.message
        return clip(f"HTTP {exc.status_code}: {detail}", 200)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        return clip(f"connection error: {cause or exc}", 200)
    if isinstance(exc, ReplyError):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError):
        return clip(f"response body is not JSON ({exc.msg} at char {exc.pos})", 200)
    return clip(f"{type(exc).__name__}: {exc}", 200)


def _call(
    client: openai.OpenAI,
    body: dict[str, Any],
    entities: frozenset[str],
    timeout: float,
    settings: Settings,
) -> _Reply:
    response = client.chat.completions.create(**body, timeout=timeout)
    choices = getattr(response, "choices", None)
    if not choices:
        raise ReplyError("reply has no choices")
    edits, dropped = parse_reply(choices[0].message.content, entities, settings)
    usage = getattr(response, "usage", None)
    return _Reply(
        edits=edits,
        dropped=dropped,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        model=str(getattr(response, "model", "") or body["model"]),
    )


def _failed(why: str, order: list[str], **extra: Any) -> dict[str, Any]:
    return {"next_edit": "failed", "fallback": "batch_order", "why": why, "order": order, **extra}


def next_edits(
    impact: Mapping[str, Any],
    config: LLMConfig,
    settings: Settings = DEFAULT,
    *,
    body_guard: BodyGuard | None = None,
    samples: int = 1,
) -> dict[str, Any]:
    """Ask the model once (or ``samples`` times) for the next edits; never raises on failure.

    The prompt is refused (zero calls) when ``body_guard`` finds body text in it or when the
    map is empty. ``samples`` below 1 is a user error, and so is a call without the
    ``llm`` extra installed (:class:`MissingExtraError`).
    """
    if samples < 1:
        raise BadInputError(f"--samples {samples}: must be at least 1")
    prompt = assemble(impact, settings)
    order = batch_order(impact) if isinstance(impact, Mapping) else []
    if not prompt.entities:
        return _failed("empty impact map: nothing to decide", order)
    if body_guard is not None:
        try:
            body_guard(prompt_text(prompt.messages))
        except LLMGuardError as exc:
            return _failed(f"guard: {exc}", order)

    openai = openai_client()
    timeout = config.timeout if config.timeout is not None else settings.llm_timeout_s
    temperature = config.sample_temperature if samples > 1 else settings.llm_temperature
    body = request_body(prompt.messages, config.model, settings, temperature=temperature)
    client = openai.OpenAI(
        base_url=config.base_url,
        api_key=config.api_key or NO_API_KEY,
        max_retries=0,
        timeout=timeout,
    )
    replies: list[_Reply] = []
    failures: list[str] = []
    try:
        for _ in range(samples):  # exactly `samples` calls, each at most once
            try:
                replies.append(_call(client, body, prompt.entities, timeout, settings))
            except Exception as exc:  # any failure is a no-op for this call
                failures.append(_why(exc, timeout))
    finally:
        client.close()

    if not replies:
        return _failed(failures[0], order)
    dropped = sum(r.dropped for r in replies)
    if samples == 1:
        edits = replies[0].edits
    else:
        edits = majority_order([r.edits for r in replies], order)
    if not edits:
        why = "no entity in the reply is in the map" if dropped else "reply named no entity"
        return _failed(why, order, dropped=dropped)
    result: dict[str, Any] = {
        "next_edits": edits,
        "dropped": dropped,
        "tokens": {
            "prompt": sum(r.prompt_tokens for r in replies),
            "completion": sum(r.completion_tokens for r in replies),
        },
        "model": replies[0].model,
    }
    if samples > 1:
        result["samples"] = {"requested": samples, "ok": len(replies), "failed": failures}
    return result
