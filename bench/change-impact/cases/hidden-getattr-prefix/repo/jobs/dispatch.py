"""Run an action by name."""


def run(processor, action, *args):
    method = getattr(processor, "do_" + action)
    return method(*args)
