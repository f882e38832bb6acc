"""Products and the catalog that holds them."""

from .models import DigitalProduct, OutOfStock, Product
from .repository import Catalog, UnknownProduct

__all__ = ["Catalog", "DigitalProduct", "OutOfStock", "Product", "UnknownProduct"]
