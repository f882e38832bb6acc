def bold(fn):
    def wrap_b():
        return "<b>" + fn() + "</b>"

    return wrap_b


def italic(fn):
    def wrap_i():
        return "<i>" + fn() + "</i>"

    return wrap_i


@bold
@italic
def text():
    return "hi"


text()
