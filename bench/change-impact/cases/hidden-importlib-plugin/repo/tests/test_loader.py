from core.loader import load_all


def test_load_email():
    assert load_all(["email"])["email"]("hi") == "email:hi"


def test_load_sms():
    assert load_all(["sms"])["sms"]("hi") == "sms:hi"
