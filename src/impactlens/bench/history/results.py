"""What the evaluation of one case records: each method's ranked predictions, the gold
they are scored against, and the regression measure's tests (saved with ``--out``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class MethodRun:
    files: list[str]
    symbols: list[str] | None = None  # None: the method predicts no symbols
    tests: list[str] | None = None  # None: the method selects no tests
    evidence: list[dict[str, Any]] | None = None  # the stage's: why each file ranks there


@dataclass
class CaseResult:
    sha: str
    seed_file: str
    seed: str
    message: str
    gold_files: list[str]
    gold_symbols: list[str]
    added_files: list[str]
    methods: dict[str, MethodRun]
    seconds_index: float
    seconds_stage: float
    note: str = ""
    breaking: list[str] | None = None  # None: tests not run
    all_tests: int = 0
    suite: list[str] = field(default_factory=list)  # test functions collected at the parent
    dist: dict[str, list[int | None]] = field(default_factory=dict)
    not_run: str = ""  # with --run-tests: why this case has no regression measure
    seconds_peer: float = 0.0  # GitNexus's CPU seconds on this case (``--gitnexus``)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CaseResult:
        """A case as ``dataclasses.asdict`` saved it."""
        d = dict(d)
        d["methods"] = {k: MethodRun(**v) for k, v in d["methods"].items()}
        return cls(**d)
