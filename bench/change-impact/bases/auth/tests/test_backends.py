from auth.backends import PasswordBackend, TokenBackend
from auth.tokens import make_token


def test_password_backend():
    assert PasswordBackend({"ann": "pw"}).authenticate("ann", "pw")


def test_token_backend():
    assert TokenBackend().authenticate("ann", make_token("ann"))


def test_describe():
    assert TokenBackend().describe() == "token backend"
