class Feed:
    def __init__(self, items):
        self.items = items

    def entries(self):
        for it in self.items:
            yield self.render(it)

    def render(self, it):
        return str(it)


f = Feed([1, 2])
gen = f.entries()
next(gen)
