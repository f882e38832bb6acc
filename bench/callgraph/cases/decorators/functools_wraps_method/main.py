import functools


def traced(fn):
    @functools.wraps(fn)
    def inner(*args):
        return fn(*args)

    return inner


class Api:
    @traced
    def get(self, key):
        return self._load(key)

    def _load(self, key):
        return key


Api().get("a")
