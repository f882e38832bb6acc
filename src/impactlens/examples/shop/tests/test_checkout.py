import pytest

from shop import Cart
from shop.money import Money
from shop.payments import PaymentDeclined

from conftest import VALID_CARD


def test_place_order_charges_reserves_and_notifies(checkout, cart, catalog, outbox):
    order = checkout.place(cart, VALID_CARD, "ada@example.com")
    assert order.id == "ORD-00001"
    assert order.receipt.amount == order.quote.total == Money(2100 - 210 + 500)
    assert catalog.get("TEA-01").stock == 8
    assert catalog.get("MUG-01").stock == 2
    assert outbox.sent[0] == "sms to ops: Low stock: MUG-01 Stoneware mug has 2 left"
    assert outbox.sent[-1].startswith("email to ada@example.com: Order ORD-00001 confirmed.")


def test_empty_cart_and_declined_card(checkout, catalog):
    with pytest.raises(ValueError):
        checkout.place(Cart(catalog), VALID_CARD, "x@example.com")
    c = Cart(catalog)
    c.add("EBOOK-01")
    with pytest.raises(PaymentDeclined):
        checkout.place(c, "4111 1111 1111 1112", "x@example.com")


def test_quote_without_rules(catalog, gateway, cart):
    from shop import Checkout

    assert Checkout(catalog, gateway).quote(cart).discount.is_zero
