"""A deliberately simple fraud screen."""

from __future__ import annotations

from shop.money import Money
from shop.payments.gateway import PaymentDeclined

REVIEW_LIMIT = Money(100_000)
BLOCKED_PREFIXES = ("0000",)


def risk_score(amount: Money, account: str) -> int:
    score = 0
    if amount >= REVIEW_LIMIT:
        score += 50
    if account.startswith(BLOCKED_PREFIXES):
        score += 100
    return score


def screen(amount: Money, account: str, threshold: int = 100) -> int:
    score = risk_score(amount, account)
    if score >= threshold:
        raise PaymentDeclined(f"blocked by fraud screen (score {score})")
    return score
