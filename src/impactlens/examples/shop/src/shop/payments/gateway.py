"""Gateways charge an account; the registry maps a gateway name to its class."""

from __future__ import annotations

from dataclasses import dataclass

from shop.money import Money


class PaymentDeclined(Exception):
    """The gateway refused the charge."""


@dataclass(frozen=True)
class Receipt:
    reference: str
    amount: Money
    gateway: str


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 12:
        return False
    checksum = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        checksum += d
    return checksum % 10 == 0


class PaymentGateway:
    name = "base"

    def __init__(self) -> None:
        self._seq = 0

    def validate(self, amount: Money, account: str) -> None:
        if amount.cents <= 0:
            raise PaymentDeclined("amount must be positive")

    def charge(self, amount: Money, account: str) -> Receipt:
        self.validate(amount, account)
        self._seq += 1
        return Receipt(f"{self.name}-{self._seq:04d}", amount, self.name)


class CardGateway(PaymentGateway):
    name = "card"

    def validate(self, amount: Money, account: str) -> None:
        super().validate(amount, account)
        if not luhn_ok(account):
            raise PaymentDeclined("card number fails the Luhn check")


class WalletGateway(PaymentGateway):
    name = "wallet"

    def __init__(self, balances: dict[str, Money] | None = None) -> None:
        super().__init__()
        self.balances = dict(balances or {})

    def validate(self, amount: Money, account: str) -> None:
        super().validate(amount, account)
        balance = self.balances.get(account, Money.zero(amount.currency))
        if balance < amount:
            raise PaymentDeclined(f"wallet {account} has {balance}, needs {amount}")

    def charge(self, amount: Money, account: str) -> Receipt:
        receipt = super().charge(amount, account)
        self.balances[account] = self.balances[account] - amount
        return receipt


_GATEWAYS: dict[str, type[PaymentGateway]] = {"card": CardGateway, "wallet": WalletGateway}


def get_gateway(name: str, **options: object) -> PaymentGateway:
    """A new gateway by registry name (the class is picked at run time)."""
    try:
        cls = _GATEWAYS[name]
    except KeyError:
        raise PaymentDeclined(f"unknown gateway {name!r}") from None
    return cls(**options)
