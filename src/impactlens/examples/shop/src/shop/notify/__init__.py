"""Notifications: an outbox that dispatches to channels registered by name."""

from shop.notify import templates
from shop.notify.dispatch import Outbox, channel, channels

__all__ = ["Outbox", "channel", "channels", "templates"]
