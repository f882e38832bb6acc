"""Checkout ends by publishing an order message."""

from app.notify import build_message, log_event, publish


def checkout(user: str, prices: list[int]) -> None:
    log_event("checkout")
    total = sum(prices)
    publish("orders", build_message(user, total + 1))
