"""Carts, pricing rules and checkout."""

from shop.orders.cart import Cart, LineItem
from shop.orders.checkout import Checkout, Order
from shop.orders.pricing import BuyXGetY, PercentOff, PricingRule, Quote, price_cart

__all__ = [
    "BuyXGetY",
    "Cart",
    "Checkout",
    "LineItem",
    "Order",
    "PercentOff",
    "PricingRule",
    "Quote",
    "price_cart",
]
