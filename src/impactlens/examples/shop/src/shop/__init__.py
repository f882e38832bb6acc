"""A tiny shop: a product catalog, carts and pricing, payments, notifications."""

from shop.catalog import Catalog, DigitalProduct, Product
from shop.money import Money
from shop.orders import Cart, Checkout, Order, price_cart

__all__ = [
    "Cart",
    "Catalog",
    "Checkout",
    "DigitalProduct",
    "Money",
    "Order",
    "Product",
    "price_cart",
]
__version__ = "0.1.0"
