"""Fixtures build on each other: eur -> catalog -> cart -> checkout (with gateway, outbox)."""

import pytest

from shop import Cart, Catalog, Checkout, DigitalProduct, Money, Product
from shop.notify import Outbox
from shop.orders import PercentOff
from shop.payments import get_gateway

VALID_CARD = "4111 1111 1111 1111"


@pytest.fixture
def eur():
    def make(amount):
        return Money.of(amount, "EUR")

    return make


@pytest.fixture
def catalog(eur):
    return Catalog(
        [
            Product("TEA-01", "Green tea", eur("4.50"), stock=10, tags=("drink", "organic")),
            Product("MUG-01", "Stoneware mug", eur("12.00"), stock=3, tags=("kitchen",)),
            DigitalProduct("EBOOK-01", "The tea book", eur("9.99"), download_url="/dl/tea"),
        ]
    )


@pytest.fixture
def cart(catalog):
    c = Cart(catalog)
    c.add("TEA-01", 2)
    c.add("MUG-01")
    return c


@pytest.fixture
def outbox():
    return Outbox()


@pytest.fixture
def gateway():
    return get_gateway("card")


@pytest.fixture
def checkout(catalog, gateway, outbox, eur):
    return Checkout(catalog, gateway, outbox, rules=[PercentOff(10, min_total=eur("20"))])
