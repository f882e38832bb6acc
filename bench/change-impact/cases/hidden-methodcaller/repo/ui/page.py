from operator import methodcaller


def render_all(widgets):
    return " ".join(map(methodcaller("render"), widgets))
