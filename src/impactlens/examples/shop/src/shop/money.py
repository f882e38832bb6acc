"""Money as integer cents plus a currency; arithmetic refuses to mix currencies."""

from __future__ import annotations

from dataclasses import dataclass


class CurrencyMismatch(ValueError):
    """Two amounts in different currencies were combined."""


@dataclass(frozen=True, order=True)
class Money:
    cents: int
    currency: str = "EUR"

    @classmethod
    def of(cls, amount: str | int | float, currency: str = "EUR") -> Money:
        """``Money.of("12.34")`` is 1234 cents; ints and floats are whole units."""
        if isinstance(amount, str):
            negative = amount.startswith("-")
            whole, _, frac = amount.lstrip("-").partition(".")
            cents = int(whole or "0") * 100 + int((frac + "00")[:2])
            return cls(-cents if negative else cents, currency)
        return cls(round(amount * 100), currency)

    @classmethod
    def zero(cls, currency: str = "EUR") -> Money:
        return cls(0, currency)

    def _check(self, other: Money) -> None:
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.cents + other.cents, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.cents - other.cents, self.currency)

    def times(self, qty: int) -> Money:
        return Money(self.cents * qty, self.currency)

    def percent(self, pct: float) -> Money:
        """``pct`` percent of this amount, rounded half-up to the cent."""
        return Money(int(self.cents * pct / 100 + 0.5), self.currency)

    @property
    def is_zero(self) -> bool:
        return self.cents == 0

    def __str__(self) -> str:
        sign = "-" if self.cents < 0 else ""
        units, cents = divmod(abs(self.cents), 100)
        return f"{sign}{units}.{cents:02d} {self.currency}"


def total(amounts: list[Money], currency: str = "EUR") -> Money:
    """Sum of ``amounts`` (zero in ``currency`` when empty)."""
    result = Money.zero(currency)
    for amount in amounts:
        result = result + amount
    return result
