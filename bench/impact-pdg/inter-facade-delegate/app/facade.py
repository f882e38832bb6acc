"""Facade delegating to the ledger."""

from app.store import Ledger, audit


def deposit(amount: int, fee: int) -> int:
    ledger = Ledger()
    if not audit(amount):
        return -1
    return ledger.append(amount - fee)
