HANDLERS = {}


def handler(name):
    def deco(fn):
        HANDLERS[name] = fn
        return fn

    return deco


@handler("png")
def render_png(data):
    return "png"


@handler("svg")
def render_svg(data):
    return "svg"


def render(kind, data):
    return HANDLERS[kind](data)  # unresolvable: registry dispatch


render("png", b"")
render("svg", b"")
