from base import base_fn


def t1():
    return base_fn()


def _hidden():
    return 0
