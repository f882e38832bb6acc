from typing import Optional


class Session:
    def refresh(self):
        return True


class User:
    def __init__(self, session: Optional[Session] = None):
        self.session = session

    def touch(self):
        if self.session is not None:
            self.session.refresh()


def current(session: "Session | None") -> None:
    if session:
        session.refresh()


User(Session()).touch()
User().touch()
current(Session())
current(None)
