from auth.service import password_service


def test_login_and_whoami():
    service = password_service({"ann": "pw"})
    token = service.login("ann", "pw")
    assert service.whoami(token) == "ann"


def test_login_rejects():
    assert password_service({"ann": "pw"}).login("ann", "bad") is None
