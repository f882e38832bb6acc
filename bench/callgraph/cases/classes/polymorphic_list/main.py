class Handler:
    def handle(self, x):
        raise NotImplementedError("abstract")


class Upper(Handler):
    def handle(self, x):
        return x + "!"


class Lower(Handler):
    def handle(self, x):
        return x + "?"


def dispatch(handlers, x):
    return [h.handle(x) for h in handlers]


dispatch([Upper(), Lower()], "a")
