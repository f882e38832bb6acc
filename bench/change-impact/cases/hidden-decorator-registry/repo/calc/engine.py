"""Evaluate a named reduction."""

from calc.ops import OPS


def compute(name, values):
    return OPS[name](values)
