from conv.api import convert


def test_convert_celsius():
    assert convert(212, "celsius") == 100
