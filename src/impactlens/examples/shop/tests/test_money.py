import pytest

from shop.money import CurrencyMismatch, Money, total


@pytest.mark.parametrize(
    ("text", "cents"),
    [("12.34", 1234), ("0.5", 50), ("7", 700), ("-3.10", -310), (".99", 99)],
)
def test_of_parses_decimal_strings(text, cents):
    assert Money.of(text).cents == cents


@pytest.mark.parametrize(("amount", "cents"), [(3, 300), (2.5, 250)])
def test_of_numbers(amount, cents):
    assert Money.of(amount) == Money(cents)


def test_arithmetic_and_currency_check():
    assert Money(150) + Money(250) == Money(400)
    assert Money(150) - Money(250) == Money(-100)
    assert Money(199).times(3) == Money(597)
    with pytest.raises(CurrencyMismatch):
        Money(1, "EUR") + Money(1, "USD")


@pytest.mark.parametrize(
    ("cents", "pct", "expected"), [(1000, 10, 100), (999, 10, 100), (5, 50, 3)]
)
def test_percent_rounds_half_up(cents, pct, expected):
    assert Money(cents).percent(pct).cents == expected


def test_str_and_total():
    assert str(Money(-1205)) == "-12.05 EUR"
    assert total([Money(100), Money(23)]) == Money(123)
    assert total([], "USD") == Money.zero("USD")
    assert Money.zero().is_zero
