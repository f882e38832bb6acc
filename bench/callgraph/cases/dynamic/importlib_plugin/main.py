import importlib


def load(name):
    mod = importlib.import_module("plugins." + name)  # unresolvable: importlib
    return mod.activate()


load("alpha")
load("beta")
