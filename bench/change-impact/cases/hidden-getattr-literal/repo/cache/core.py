from cache.backend import MemoryBackend


class Cache:
    def __init__(self):
        self.backend = MemoryBackend()

    def sync(self):
        return getattr(self.backend, "flush")()
