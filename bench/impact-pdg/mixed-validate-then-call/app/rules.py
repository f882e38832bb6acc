"""Validation and charging rules."""


def within_limit(amount: int, limit: int) -> bool:
    return amount <= limit


def charge(amount: int) -> int:
    fee = amount // 50
    return amount + fee
