class Handler:
    def handle(self):
        return self.render()

    def render(self):
        return "base"


class JsonHandler(Handler):
    def render(self):
        return "json"


class TextHandler(Handler):
    pass


def build(kind):
    return kind()


h = build(TextHandler)
h.handle()
j = JsonHandler()
j.handle()
