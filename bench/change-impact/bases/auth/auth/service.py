"""Login sessions."""

from auth.backends import Backend, PasswordBackend, TokenBackend
from auth.tokens import make_token


class LoginService:
    def __init__(self, backend: Backend):
        self.backend = backend
        self.sessions = {}

    def login(self, user, secret):
        if not self.backend.authenticate(user, secret):
            return None
        token = make_token(user, salt="session")
        self.sessions[token] = user
        return token

    def whoami(self, token):
        return self.sessions.get(token)


def password_service(passwords):
    return LoginService(PasswordBackend(passwords))


def token_service():
    return LoginService(TokenBackend())
