"""Checkout: price the cart, screen and charge, reserve stock, notify."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import shop.payments as payments
from shop.catalog import Catalog
from shop.notify import Outbox, templates
from shop.orders.cart import Cart, LineItem
from shop.orders.pricing import PricingRule, Quote, price_cart
from shop.payments.fraud import screen

LOW_STOCK = 2


@dataclass
class Order:
    id: str
    lines: list[LineItem]
    quote: Quote
    receipt: payments.Receipt
    status: str = "paid"
    notes: list[str] = field(default_factory=list)


class Checkout:
    def __init__(
        self,
        catalog: Catalog,
        gateway: payments.PaymentGateway,
        outbox: Outbox | None = None,
        rules: Sequence[PricingRule] = (),
    ) -> None:
        self.catalog = catalog
        self.gateway = gateway
        self.outbox = outbox or Outbox()
        self.rules = list(rules)
        self._seq = 0

    def quote(self, cart: Cart) -> Quote:
        return price_cart(cart, self.rules)

    def place(self, cart: Cart, account: str, email: str) -> Order:
        if cart.is_empty():
            raise ValueError("cannot check out an empty cart")
        quote = self.quote(cart)
        screen(quote.total, account)
        for line in cart.lines:
            self.catalog.get(line.product.sku).reserve(line.qty)
        receipt = self.gateway.charge(quote.total, account)
        self._seq += 1
        order = Order(f"ORD-{self._seq:05d}", cart.lines, quote, receipt)
        for line in order.lines:
            product = line.product
            if product.shipping_weight() > 0 and product.stock <= LOW_STOCK:
                self.outbox.send("sms", "ops", templates.low_stock_alert(product))
        self.outbox.send("email", email, templates.order_confirmation(order.id, quote))
        return order
