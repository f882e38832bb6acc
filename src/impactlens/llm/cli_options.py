"""Command-line switches for the optional next-edit decision.

``@llm_options`` adds ``--llm``, ``--llm-base-url``, ``--llm-model``, ``--llm-api-key``,
``--llm-timeout``, ``--print-prompt`` and ``--samples K`` to a click command and hands the
command one ``llm_opts: LLMOptions`` keyword argument instead of seven. After the
pipeline, the command calls :func:`apply_llm` and stores a non-``None`` result under
``impact["next_edit"]``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from impactlens.errors import BadInputError
from impactlens.fileio import atomic_write, read_source
from impactlens.llm.config import ENV_MODEL, LLMConfig
from impactlens.llm.guard import BodyGuard, make_body_guard
from impactlens.llm.nextedit import next_edits, openai_client, print_prompt
from impactlens.settings import DEFAULT, Settings

F = TypeVar("F", bound=Callable[..., Any])

_KEYS = (
    "llm",
    "llm_base_url",
    "llm_model",
    "llm_api_key",
    "llm_timeout",
    "print_prompt",
    "samples",
)


@dataclass(frozen=True)
class LLMOptions:
    enabled: bool = False
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    print_prompt: bool = False
    samples: int = 1

    def config(self) -> LLMConfig:
        """The endpoint from these options over ``IMPACTLENS_LLM_*`` (BadInputError if unset)."""
        return LLMConfig.from_env(
            base_url=self.base_url, model=self.model, api_key=self.api_key, timeout=self.timeout
        )


def llm_options(f: F) -> F:
    """Add the LLM switches to a click command; it receives ``llm_opts: LLMOptions``."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {k: kwargs.pop(k, None) for k in _KEYS}
        opts = LLMOptions(
            enabled=bool(values["llm"]),
            base_url=values["llm_base_url"],
            model=values["llm_model"],
            api_key=values["llm_api_key"],
            timeout=values["llm_timeout"],
            print_prompt=bool(values["print_prompt"]),
            samples=int(values["samples"] or 1),
        )
        if opts.enabled and not opts.print_prompt:
            openai_client()  # a missing extra fails before the analysis, not after it
        return f(*args, llm_opts=opts, **kwargs)

    options = [
        click.option(
            "--llm",
            is_flag=True,
            help="Ask a model (OpenAI-compatible endpoint) for the next edits; "
            "any failure falls back to the batch order.",
        ),
        click.option(
            "--llm-base-url",
            metavar="URL",
            help="API root, e.g. http://127.0.0.1:8080/v1 [env IMPACTLENS_LLM_BASE_URL].",
        ),
        click.option("--llm-model", metavar="NAME", help="Model name [env IMPACTLENS_LLM_MODEL]."),
        click.option("--llm-api-key", metavar="KEY", help="API key [env IMPACTLENS_LLM_API_KEY]."),
        click.option(
            "--llm-timeout",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help="Per-call timeout (default 60) [env IMPACTLENS_LLM_TIMEOUT].",
        ),
        click.option(
            "--print-prompt",
            is_flag=True,
            help="Print the exact chat-completions request body and send nothing.",
        ),
        click.option(
            "--samples",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            metavar="K",
            help="With --llm: K calls at IMPACTLENS_LLM_SAMPLE_TEMPERATURE (0.7) and their "
            "majority order (the order most calls agree on).",
        ),
    ]
    decorated: Any = wrapper
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


def apply_llm(
    impact: Mapping[str, Any],
    opts: LLMOptions,
    settings: Settings = DEFAULT,
    body_guard: BodyGuard | None = None,
) -> dict[str, Any] | None:
    """Run the next-edit decision as the options ask; ``None`` when it was not asked for.

    ``--print-prompt`` echoes the request body to stdout, sends nothing and returns
    ``None`` (the command should treat the body as its output). ``--llm`` without a base
    URL and model raises :class:`BadInputError` (one line, exit 2).
    """
    if opts.print_prompt:
        try:
            config: LLMConfig | None = opts.config()
        except BadInputError:
            config = None
        model = opts.model or os.environ.get(ENV_MODEL) or None
        body = print_prompt(
            impact, config, settings, body_guard=body_guard, samples=opts.samples, model=model
        )
        click.echo(body)
        return None
    if not opts.enabled:
        return None
    return next_edits(impact, opts.config(), settings, body_guard=body_guard, samples=opts.samples)


def impact_files(impact: Mapping[str, Any]) -> list[str]:
    """Every repository file ``impact.json`` names (seed, changes, DAG nodes, triage)."""
    files: set[str] = set()

    def add(records: Any) -> None:
        for r in records if isinstance(records, list) else [records]:
            if isinstance(r, Mapping) and isinstance(r.get("file"), str) and r["file"]:
                files.add(r["file"])

    add(impact.get("seed"))
    add(impact.get("changes"))
    dag = impact.get("dag")
    if isinstance(dag, Mapping):
        add(dag.get("nodes"))
    triage = impact.get("triage")
    if isinstance(triage, Mapping):
        for bucket in triage.values():
            add(bucket)
    return sorted(files)


def repo_body_guard(
    root: str | Path,
    impact: Mapping[str, Any],
    extra_sources: Mapping[str, str] | None = None,
    def_spans: Iterable[tuple[str, int, int]] | None = None,
) -> BodyGuard:
    """A body guard over every function in the files ``impact`` names (read from ``root``).

    ``extra_sources`` adds texts not on disk (e.g. the before-tree of a revision change).
    """
    base = Path(root)
    sources: dict[str, str] = {}
    for rel in impact_files(impact):
        path = base / rel
        if rel.endswith(".py") and path.is_file():
            text = read_source(path)
            if text is not None:
                sources[rel] = text
    guard = make_body_guard(sources, def_spans)
    if not extra_sources:
        return guard
    extra = make_body_guard(extra_sources)

    def both(text: str) -> None:
        guard(text)
        extra(text)

    return both


def run_llm_step(
    root: str | Path,
    impact: dict[str, Any],
    opts: LLMOptions,
    settings: Settings = DEFAULT,
    *,
    out_dir: Path | None = None,
    change_files: Iterable[Any] = (),
) -> dict[str, Any] | None:
    """The `analyze` hook: guard, decide, store ``impact["next_edit"]``, rewrite impact.json.

    The body guard covers every function of the files ``impact`` names, as on disk under
    ``root``, plus the before/after texts of ``change_files`` (objects with ``path``,
    ``before``, ``after``). Returns the updated ``impact``, or ``None`` when no decision was
    asked for (no ``--llm``) or ``--print-prompt`` printed the request instead.
    """
    if not (opts.enabled or opts.print_prompt):
        return None
    extra: dict[str, str] = {}
    for f in change_files:
        for side in ("before", "after"):
            text = getattr(f, side, None)
            if isinstance(text, str) and str(getattr(f, "path", "")).endswith(".py"):
                extra[f"{f.path}@{side}"] = text
    guard = repo_body_guard(root, impact, extra_sources=extra)
    decision = apply_llm(impact, opts, settings, body_guard=guard)
    if decision is None:
        return None
    impact["next_edit"] = decision
    if out_dir is not None:
        path = Path(out_dir) / "impact.json"
        try:
            atomic_write(path, json.dumps(impact, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise BadInputError(f"{path}: cannot write ({exc.strerror})") from None
    return impact


def next_edit_lines(decision: Mapping[str, Any]) -> list[str]:
    """A short human-readable account of ``impact["next_edit"]`` for the reports."""
    if decision.get("next_edit") == "failed":
        return [f"Next edit (model): failed — {decision.get('why')}; the batch order stands."]
    lines = [f"Next edits (model {decision.get('model')}):"]
    for i, edit in enumerate(decision.get("next_edits") or [], 1):
        lines.append(f"  {i}. {edit['entity']} — {edit['reason']}")
    if decision.get("dropped"):
        lines.append(f"  ({decision['dropped']} named entities not in the map were dropped)")
    return lines


