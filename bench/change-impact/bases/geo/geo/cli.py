"""Command-line options."""

from geo.units import set_decimals


def configure(options):
    set_decimals(options.get("decimals", 6))
    return options
