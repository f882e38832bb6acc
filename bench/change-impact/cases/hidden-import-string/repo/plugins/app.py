from plugins.loader import load


def greet(name):
    return load("plugins.greet:hello")(name)
