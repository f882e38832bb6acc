"""Checkout flow."""

from shop.cart import Cart
from shop.models import Customer


def checkout(name, lines, vip=False, coupon=None):
    cart = Cart(Customer(name, vip))
    for item_name, price in lines:
        cart.add(item_name, price)
    if coupon:
        cart.apply_coupon(coupon)
    return receipt(cart)


def receipt(cart: Cart):
    return f"{cart.customer.name}: {cart.total():.2f}"
