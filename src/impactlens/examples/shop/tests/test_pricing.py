import pytest

from shop import Cart, price_cart
from shop.money import Money
from shop.orders import BuyXGetY, PercentOff, PricingRule
from shop.orders.pricing import shipping_for


@pytest.mark.parametrize(
    ("min_total", "expected_discount"),
    [(None, 210), (Money(2100), 210), (Money(2101), 0)],
)
def test_percent_off_threshold(cart, min_total, expected_discount):
    assert PercentOff(10, min_total=min_total).apply(cart).cents == expected_discount


@pytest.mark.parametrize(("qty", "free_units"), [(2, 0), (3, 1), (7, 2)])
def test_buy_two_get_one(catalog, qty, free_units):
    c = Cart(catalog)
    c.add("TEA-01", qty)
    assert BuyXGetY("TEA-01", buy=2, free=1).apply(c) == Money(450).times(free_units)


def test_rules_do_not_stack(cart):
    quote = price_cart(cart, [PercentOff(5), PercentOff(10)])
    assert quote.discount == Money(210)
    assert quote.shipping == Money(500)
    assert quote.total == Money(2100 - 210 + 500)


def test_shipping(catalog):
    digital = Cart(catalog)
    digital.add("EBOOK-01")
    assert shipping_for(digital).is_zero
    big = Cart(catalog)
    big.add("TEA-01", 10)
    big.add("MUG-01", 1)
    assert shipping_for(big).is_zero  # over the free-shipping threshold


def test_base_rule_is_abstract(cart):
    with pytest.raises(NotImplementedError):
        PricingRule().apply(cart)
