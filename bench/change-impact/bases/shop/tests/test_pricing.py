from shop.pricing import discount, price_with_tax, tax


def test_tax():
    assert tax(100) == 20.0


def test_discount():
    assert discount(200, 10) == 180


def test_price_with_tax():
    assert price_with_tax(10) == 12.0
