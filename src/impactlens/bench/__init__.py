"""impactlens.bench: the benchmark harnesses (`impactlens bench …`)."""

from __future__ import annotations

import argparse
import math
import os
import shutil
from collections.abc import Callable
from pathlib import Path

__all__ = ["at_least", "installed_binary"]


def installed_binary(env_var: str, default: str, name: str) -> str | None:
    """A peer tool's executable: ``$env_var`` if it exists, else ``default`` (where the
    benchmark instructions install it), else ``name`` on PATH; ``None`` when absent."""
    env = os.environ.get(env_var)
    if env and Path(env).exists():
        return env
    if Path(default).exists():
        return default
    return shutil.which(name)


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
