class Document:
    def __init__(self, s):
        self.s = s

    def title(self):
        return self.s


class Parser:
    def parse(self, s):
        return Document(s)


def make_parser():
    return Parser()


make_parser().parse("x").title()
