"""Straight-line def-use chain."""


def scale_total(price: int, qty: int) -> int:
    base = price * qty
    taxed = base + base // 10
    rounded = taxed - taxed % 5
    label = "total"
    return rounded
