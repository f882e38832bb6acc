"""Authentication backends."""

from auth.tokens import check_token


class Backend:
    name = "base"

    def authenticate(self, user, secret):
        raise NotImplementedError

    def describe(self):
        return f"{self.name} backend"


class TokenBackend(Backend):
    name = "token"

    def authenticate(self, user, secret):
        return check_token(user, secret)


class PasswordBackend(Backend):
    name = "password"

    def __init__(self, passwords):
        self.passwords = dict(passwords)

    def authenticate(self, user, secret):
        return self.passwords.get(user) == secret
