"""A shopping cart: line items keyed by SKU, priced from the catalog."""

from __future__ import annotations

from dataclasses import dataclass

from shop import money as m
from shop.catalog import Catalog, OutOfStock, Product


@dataclass
class LineItem:
    product: Product
    qty: int

    @property
    def subtotal(self) -> m.Money:
        return self.product.price.times(self.qty)


class Cart:
    def __init__(self, catalog: Catalog, currency: str = "EUR") -> None:
        self.catalog = catalog
        self.currency = currency
        self._lines: dict[str, LineItem] = {}

    def add(self, sku: str, qty: int = 1) -> LineItem:
        if qty <= 0:
            raise ValueError("quantity must be positive")
        product = self.catalog.get(sku)
        if not product.in_stock:
            raise OutOfStock(sku, qty, 0)
        line = self._lines.get(sku)
        if line is None:
            line = self._lines[sku] = LineItem(product, 0)
        line.qty += qty
        return line

    def remove(self, sku: str) -> None:
        self._lines.pop(sku, None)

    def is_empty(self) -> bool:
        return not self._lines

    @property
    def lines(self) -> list[LineItem]:
        return [self._lines[sku] for sku in sorted(self._lines)]

    @property
    def subtotal(self) -> m.Money:
        return m.total([line.subtotal for line in self.lines], self.currency)

    @property
    def weight(self) -> float:
        return sum(line.product.shipping_weight() * line.qty for line in self.lines)
