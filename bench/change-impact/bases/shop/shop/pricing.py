"""Prices and taxes."""

TAX_RATE = 0.2


def tax(amount, rate=TAX_RATE):
    return round(amount * rate, 2)


def discount(amount, percent):
    if percent <= 0:
        return amount
    return amount - amount * percent / 100


def price_with_tax(amount):
    return amount + tax(amount)
