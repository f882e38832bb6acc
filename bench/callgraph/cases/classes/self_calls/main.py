class Counter:
    def __init__(self):
        self.n = 0
        self.reset()

    def reset(self):
        self.n = 0

    def incr(self):
        self.n = self._next()

    def _next(self):
        return self.n + 1


c = Counter()
c.incr()
