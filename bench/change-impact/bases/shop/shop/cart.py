"""The shopping cart."""

from shop.models import Item
from shop.pricing import discount, price_with_tax


class Cart:
    def __init__(self, customer):
        self.customer = customer
        self.items = []
        self.percent_off = 10 if customer.vip else 0

    def add(self, name, price, qty=1):
        self.items.append(Item(name, price, qty))

    def apply_coupon(self, code):
        if code == "HALF":
            self.percent_off = 50

    def subtotal(self):
        return sum(item.subtotal() for item in self.items)

    def total(self):
        amount = discount(self.subtotal(), self.percent_off)
        return price_with_tax(amount)
