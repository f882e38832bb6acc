from geo import units
from geo.cli import configure


def test_configure():
    configure({"decimals": 2})
    assert units.DECIMALS == 2
    configure({})
