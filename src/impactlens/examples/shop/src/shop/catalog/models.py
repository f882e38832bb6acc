"""Product records: physical goods hold stock, digital goods never run out."""

from __future__ import annotations

from dataclasses import dataclass

from shop.money import Money


class OutOfStock(Exception):
    def __init__(self, sku: str, wanted: int, available: int) -> None:
        super().__init__(f"{sku}: wanted {wanted}, only {available} left")
        self.sku = sku
        self.wanted = wanted
        self.available = available


@dataclass
class Product:
    sku: str
    name: str
    price: Money
    stock: int = 0
    tags: tuple[str, ...] = ()

    @property
    def in_stock(self) -> bool:
        return self.stock > 0

    def shipping_weight(self) -> float:
        """Kilograms per unit."""
        return 0.5

    def reserve(self, qty: int) -> None:
        if qty > self.stock:
            raise OutOfStock(self.sku, qty, self.stock)
        self.stock -= qty

    def describe(self) -> str:
        return f"{self.name} ({self.price})"


@dataclass
class DigitalProduct(Product):
    download_url: str = ""

    @property
    def in_stock(self) -> bool:
        return True

    def shipping_weight(self) -> float:
        return 0.0

    def reserve(self, qty: int) -> None:
        return None  # unlimited copies

    def describe(self) -> str:
        return super().describe() + " [download]"
