"""Service: validate, then charge."""

from app.rules import charge, within_limit


def process(amount: int, limit: int) -> int:
    capped = min(amount, limit * 2)
    if capped <= 0:
        return 0
    ok = within_limit(capped, limit)
    if not ok:
        return -1
    return charge(capped)
