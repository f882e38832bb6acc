import pytest

from shop import Cart
from shop.catalog import OutOfStock
from shop.money import Money


def test_add_accumulates_quantities(cart):
    cart.add("TEA-01", 3)
    assert [(line.product.sku, line.qty) for line in cart.lines] == [("MUG-01", 1), ("TEA-01", 5)]


def test_subtotal_and_weight(cart):
    assert cart.subtotal == Money(2100)
    assert cart.weight == pytest.approx(1.5)


def test_remove_and_empty(catalog):
    c = Cart(catalog)
    assert c.is_empty()
    c.add("EBOOK-01")
    c.remove("EBOOK-01")
    assert c.is_empty()


def test_rejects_bad_quantity_and_sold_out(catalog):
    c = Cart(catalog)
    with pytest.raises(ValueError):
        c.add("TEA-01", 0)
    catalog.get("MUG-01").reserve(3)
    with pytest.raises(OutOfStock):
        c.add("MUG-01")
