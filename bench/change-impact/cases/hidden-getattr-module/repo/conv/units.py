"""Temperature conversions, looked up by name."""


def to_celsius(f):
    return (f - 32) * 5 / 9


def to_fahrenheit(c):
    return c * 9 / 5 + 32
