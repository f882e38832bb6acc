"""Message bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shop.catalog import Product
    from shop.orders.pricing import Quote


def order_confirmation(order_id: str, quote: Quote) -> str:
    lines = [f"Order {order_id} confirmed.", f"Subtotal: {quote.subtotal}"]
    if not quote.discount.is_zero:
        lines.append(f"Discount: -{quote.discount}")
    lines.append(f"Shipping: {quote.shipping}")
    lines.append(f"Total: {quote.total}")
    return "\n".join(lines)


def low_stock_alert(product: Product) -> str:
    return f"Low stock: {product.sku} {product.name} has {product.stock} left"
