"""A tiny shop."""

from shop.checkout import checkout

__all__ = ["checkout"]
