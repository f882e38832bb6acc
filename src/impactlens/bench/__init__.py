"""impactlens.bench: the benchmark harnesses (`impactlens bench …`)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["at_least"]


def at_least(low: float, kind: type[int] | type[float] = int, *, above: bool = False
             ) -> Callable[[str], float]:
    """An argparse ``type=``: ``kind(text)``, refused (a one-line usage error) unless
    ``≥ low`` (``> low`` with ``above``)."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
        if value < low or (above and value == low):
            raise argparse.ArgumentTypeError(
                f"must be {'above' if above else 'at least'} {low:g}, got {text}")
        return value
    return parse
