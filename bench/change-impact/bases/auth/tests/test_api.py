from auth.api import handle_login


def test_handle_login():
    assert handle_login({"user": "ann", "password": "pw"}, {"ann": "pw"})["ok"]
