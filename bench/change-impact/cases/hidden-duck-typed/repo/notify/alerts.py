"""Alerts on the default channels."""

from notify.broadcast import broadcast
from notify.channels import EmailChannel, SmsChannel


def default_channels():
    return [EmailChannel(), SmsChannel()]


def alert(to, text):
    return broadcast(default_channels(), to, text)
