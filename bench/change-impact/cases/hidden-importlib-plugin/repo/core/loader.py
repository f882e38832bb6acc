"""Plugin loading by name."""

import importlib


def load_plugin(name, registry):
    module = importlib.import_module(f"plugins.{name}")
    module.setup(registry)
    return registry


def load_all(names):
    registry = {}
    for name in names:
        load_plugin(name, registry)
    return registry
