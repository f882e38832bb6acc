"""Payment gateways, chosen by name."""

from shop.payments.gateway import (
    CardGateway,
    PaymentDeclined,
    PaymentGateway,
    Receipt,
    WalletGateway,
    get_gateway,
)

__all__ = [
    "CardGateway",
    "PaymentDeclined",
    "PaymentGateway",
    "Receipt",
    "WalletGateway",
    "get_gateway",
]
