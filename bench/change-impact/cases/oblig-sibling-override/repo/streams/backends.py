class Backend:
    def read(self, n):
        raise NotImplementedError


class AsyncioBackend(Backend):
    def __init__(self):
        self.buf = b'abc'

    def read(self, n):
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


class TrioBackend(Backend):
    def __init__(self):
        self.buf = b'abc'

    def read(self, n):
        out, self.buf = self.buf[:n], self.buf[n:]
        return out
