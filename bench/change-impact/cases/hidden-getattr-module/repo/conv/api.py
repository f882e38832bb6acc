"""Convert by target unit name."""

from conv import units


def convert(value, target):
    fn = getattr(units, f"to_{target}")
    return fn(value)
