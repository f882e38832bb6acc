"""Domain records."""


class Item:
    def __init__(self, name, price, qty=1):
        self.name = name
        self.price = price
        self.qty = qty

    def subtotal(self):
        return self.price * self.qty


class Customer:
    def __init__(self, name, vip=False):
        self.name = name
        self.vip = vip
