import importlib


def load(path):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
