"""User-facing errors: each carries a one-line message naming the file and the problem."""

from __future__ import annotations


class ImpactlensError(Exception):
    """Base class: the CLI prints ``str(exc)`` on one line and exits 2."""


class BadInputError(ImpactlensError):
    """Input the user gave us is malformed (bad diff, unknown path, bad revision...)."""


class UnparsableError(BadInputError):
    """One version of an edited file cannot be parsed (a syntax error, nesting too deep):
    the analysis records the file as not analysed, with ``why``, and goes on."""

    def __init__(self, path: str, line: int, why: str) -> None:
        self.path, self.line, self.why = path, line, why
        super().__init__(f"{path}:{line}: {why}")


class UnknownSymbolError(ImpactlensError):
    """A symbol reference matched nothing; carries close matches."""

    def __init__(self, symbol: str, suggestions: list[str]) -> None:
        self.symbol = symbol
        self.suggestions = suggestions
        hint = f"; did you mean: {', '.join(suggestions[:5])}" if suggestions else ""
        super().__init__(f"unknown symbol {symbol!r}{hint}")


class IndexBusyError(ImpactlensError):
    """Another `impactlens index` holds the lock."""


class NotARepositoryError(ImpactlensError):
    """A path that is not a directory, or a git operation outside a work tree."""


class MissingExtraError(ImpactlensError):
    """A feature needs an optional extra that is not installed (the message says which)."""


class WatchError(ImpactlensError):
    """The file watcher of watch mode could not start, or stopped."""
