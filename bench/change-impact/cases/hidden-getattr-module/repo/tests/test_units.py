from conv.units import to_fahrenheit


def test_fahrenheit():
    assert to_fahrenheit(100) == 212
