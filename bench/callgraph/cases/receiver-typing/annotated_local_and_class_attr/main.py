class Cache:
    def get(self, k):
        return None


class Store:
    cache: Cache

    def __init__(self, cache):
        self.cache = cache

    def lookup(self, k):
        return self.cache.get(k)


def build(factory):
    c: Cache = factory()
    c.get("warm")
    return Store(c)


build(Cache).lookup("k")
