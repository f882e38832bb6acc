"""The catalog: products by SKU, with a small text search."""

from __future__ import annotations

from collections.abc import Iterable

from shop.catalog.models import Product


class UnknownProduct(KeyError):
    """No product with that SKU."""


class Catalog:
    def __init__(self, products: Iterable[Product] = ()) -> None:
        self._items: dict[str, Product] = {}
        for product in products:
            self.add(product)

    def add(self, product: Product) -> None:
        if product.sku in self._items:
            raise ValueError(f"duplicate SKU {product.sku}")
        self._items[product.sku] = product

    def get(self, sku: str) -> Product:
        try:
            return self._items[sku]
        except KeyError:
            raise UnknownProduct(sku) from None

    def search(self, text: str) -> list[Product]:
        needle = text.lower()
        hits = [
            p for p in self._items.values()
            if needle in p.name.lower() or needle in (t.lower() for t in p.tags)
        ]
        return sorted(hits, key=lambda p: p.sku)

    def restock(self, sku: str, qty: int) -> Product:
        product = self.get(sku)
        product.stock += qty
        return product

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, sku: object) -> bool:
        return sku in self._items
