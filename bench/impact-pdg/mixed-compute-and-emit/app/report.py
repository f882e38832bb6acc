"""Summaries are computed, then emitted."""

from app.emit import emit, stamp


def summarize(values: list[int], offset: int) -> int:
    ts = stamp()
    total = 0
    for v in values:
        total += v
    adjusted = total + offset
    sent = emit("stats", adjusted)
    return sent + ts
