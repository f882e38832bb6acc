"""Handlers."""


def handle_refund(amount: int) -> int:
    back = 0 - amount
    return back


def handle_sale(amount: int, bonus: int) -> int:
    gain = amount * 2 + bonus
    return gain


def handle_noop() -> int:
    return 0
