"""Request handlers."""

from auth.service import password_service


def handle_login(request, passwords):
    service = password_service(passwords)
    token = service.login(request["user"], request["password"])
    return {"ok": token is not None, "token": token}
