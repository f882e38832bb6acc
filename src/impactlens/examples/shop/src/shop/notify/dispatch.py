"""Channel handlers register under a string key; the outbox looks them up at send time."""

from __future__ import annotations

from collections.abc import Callable

Handler = Callable[[str, str], str]
_CHANNELS: dict[str, Handler] = {}
SMS_LIMIT = 140


def channel(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _CHANNELS[name] = fn
        return fn

    return register


@channel("email")
def send_email(to: str, body: str) -> str:
    return f"email to {to}: {body}"


@channel("sms")
def send_sms(to: str, body: str) -> str:
    if len(body) > SMS_LIMIT:
        body = body[: SMS_LIMIT - 1] + "…"
    return f"sms to {to}: {body}"


def channels() -> list[str]:
    return sorted(_CHANNELS)


class Outbox:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, kind: str, to: str, body: str) -> str:
        handler = _CHANNELS.get(kind)
        if handler is None:
            raise LookupError(f"no channel {kind!r} (have: {', '.join(channels())})")
        message = handler(to, body)
        self.sent.append(message)
        return message
