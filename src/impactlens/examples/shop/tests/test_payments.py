import pytest

from shop.money import Money
from shop.payments import PaymentDeclined, WalletGateway, get_gateway
from shop.payments.fraud import screen
from shop.payments.gateway import luhn_ok


@pytest.mark.parametrize(
    ("number", "ok"),
    [("4111111111111111", True), ("4111 1111 1111 1112", False), ("1234", False)],
)
def test_luhn(number, ok):
    assert luhn_ok(number) is ok


def test_card_gateway_by_name():
    gw = get_gateway("card")
    receipt = gw.charge(Money(500), "4111111111111111")
    assert receipt.reference == "card-0001" and receipt.amount == Money(500)
    with pytest.raises(PaymentDeclined):
        gw.charge(Money(500), "4111111111111112")
    with pytest.raises(PaymentDeclined):
        gw.charge(Money(0), "4111111111111111")


def test_wallet_balance_is_debited():
    gw = get_gateway("wallet", balances={"alice": Money(1000)})
    assert isinstance(gw, WalletGateway)
    gw.charge(Money(400), "alice")
    assert gw.balances["alice"] == Money(600)
    with pytest.raises(PaymentDeclined):
        gw.charge(Money(700), "alice")


def test_unknown_gateway():
    with pytest.raises(PaymentDeclined, match="unknown gateway"):
        get_gateway("barter")


def test_fraud_screen():
    assert screen(Money(100), "4111") == 0
    with pytest.raises(PaymentDeclined):
        screen(Money(100), "0000-1111")
