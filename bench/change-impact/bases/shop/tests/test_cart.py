from shop.cart import Cart
from shop.models import Customer


def test_total_regular():
    cart = Cart(Customer("ann"))
    cart.add("pen", 10, 2)
    assert cart.total() == 24.0


def test_total_vip():
    cart = Cart(Customer("bob", vip=True))
    cart.add("pen", 10)
    assert cart.total() == 10.8


def test_coupon():
    cart = Cart(Customer("cy"))
    cart.add("book", 20)
    cart.apply_coupon("HALF")
    assert cart.total() == 12.0
