def _fmt(word, name):
    return word + ", " + name


def hello(name):
    return _fmt("hello", name)


def farewell(name):
    return _fmt("bye", name)


def unused():
    return _fmt("x", "y")
