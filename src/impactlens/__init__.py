"""impactlens: change-impact analysis for Python repositories."""

__version__ = "0.1.0"
