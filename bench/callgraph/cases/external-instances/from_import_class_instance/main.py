from collections import OrderedDict


class Cache:
    def __init__(self):
        self.items = OrderedDict()

    def touch(self, key):
        self.items[key] = 1
        self.items.move_to_end(key)


c = Cache()
c.touch("a")
