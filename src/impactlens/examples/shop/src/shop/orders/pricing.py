"""Pricing: discount rules over a cart, shipping, and the resulting quote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shop.money import Money
from shop.orders.cart import Cart

FREE_SHIPPING_FROM = Money(5000)
SHIPPING_PER_KG = Money(250)


class PricingRule:
    """A discount; subclasses say when it applies and how much it takes off."""

    name = "rule"

    def applies_to(self, cart: Cart) -> bool:
        return not cart.is_empty()

    def discount(self, cart: Cart) -> Money:
        raise NotImplementedError

    def apply(self, cart: Cart) -> Money:
        if not self.applies_to(cart):
            return Money.zero(cart.currency)
        return self.discount(cart)


class PercentOff(PricingRule):
    name = "percent-off"

    def __init__(self, pct: float, min_total: Money | None = None) -> None:
        self.pct = pct
        self.min_total = min_total

    def applies_to(self, cart: Cart) -> bool:
        if not super().applies_to(cart):
            return False
        return self.min_total is None or cart.subtotal >= self.min_total

    def discount(self, cart: Cart) -> Money:
        return cart.subtotal.percent(self.pct)


class BuyXGetY(PricingRule):
    """Every ``buy + free`` units of ``sku``, ``free`` of them cost nothing."""

    name = "buy-x-get-y"

    def __init__(self, sku: str, buy: int, free: int) -> None:
        self.sku = sku
        self.buy = buy
        self.free = free

    def applies_to(self, cart: Cart) -> bool:
        return any(line.product.sku == self.sku for line in cart.lines)

    def discount(self, cart: Cart) -> Money:
        line = next(line for line in cart.lines if line.product.sku == self.sku)
        groups = line.qty // (self.buy + self.free)
        return line.product.price.times(groups * self.free)


@dataclass(frozen=True)
class Quote:
    subtotal: Money
    discount: Money
    shipping: Money

    @property
    def total(self) -> Money:
        return self.subtotal - self.discount + self.shipping


def shipping_for(cart: Cart) -> Money:
    if cart.subtotal >= FREE_SHIPPING_FROM or cart.weight == 0:
        return Money.zero(cart.currency)
    kilos = max(1, round(cart.weight))
    return SHIPPING_PER_KG.times(kilos)


def price_cart(cart: Cart, rules: Sequence[PricingRule] = ()) -> Quote:
    """The best single rule wins (discounts do not stack)."""
    best = Money.zero(cart.currency)
    for rule in rules:
        best = max(best, rule.apply(cart))
    return Quote(subtotal=cart.subtotal, discount=best, shipping=shipping_for(cart))
