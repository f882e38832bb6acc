__all__ = ["public_a", "Widget"]


def public_a():
    return _private()


def public_b():
    return 2


def _private():
    return 1


class Widget:
    def __init__(self):
        self.n = public_a()

    def show(self):
        return self.n
