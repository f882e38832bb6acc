from .util import checksum


class Backend:
    def __init__(self, path):
        self.path = path

    def put(self, key, value):
        return checksum(key) + checksum(value)


def open_store(path):
    return Backend(path)
