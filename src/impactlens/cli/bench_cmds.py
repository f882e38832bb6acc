"""`impactlens bench ...`: the benchmark harnesses (each lives in impactlens.bench.*)."""

from __future__ import annotations

import importlib
import sys

import click

from impactlens.cli.common import main
from impactlens.errors import BadInputError

# subcommand → module whose main(argv) -> int runs it
HARNESSES = {
    "budget": ("impactlens.bench.budget", "answer size per surface on real commits, and the "
               "recall of what each shows"),
    "obligations": ("impactlens.bench.obligations", "precision of the names-an-edit-needs "
                    "obligations on real commits"),
    "callgraph": ("impactlens.bench.callgraph", "call-graph accuracy vs hand-written truth, PyCG"),
    "change": ("impactlens.bench.change_impact", "change-impact corpus: P/R per change type"),
    "history": ("impactlens.bench.history", "real-history evaluation against co-changed files"),
    "pdg": ("impactlens.bench.pdg", "statement-level PDG accuracy harness"),
    "pdg-realcode": ("impactlens.bench.pdg_realcode", "PDG vs call-graph on a large real repo"),
    "perf": ("impactlens.bench.perf", "index/impact speed on a large real repo (+GitNexus)"),
    "record": ("impactlens.bench.record", "recorded test runs: suite overhead, selection"),
    "replay": ("impactlens.bench.replay", "incremental == full index over real commits"),
}


@main.group("bench")
def bench_group() -> None:
    """Benchmarks with ground truth or real repositories (figures in bench/README.md)."""


def _make(name: str, module: str, help_text: str) -> None:
    @bench_group.command(
        name, help=help_text,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                          "help_option_names": []},
    )
    @click.pass_context
    def _cmd(ctx: click.Context) -> None:
        if (ctx.find_root().obj or {}).get("overrides"):  # not silently dropped
            raise BadInputError(f"bench {name}: the root --set does not reach the "
                                "harnesses (`impactlens bench history … --set NAME=VALUE` "
                                "takes its own)")
        mod = importlib.import_module(module)
        sys.exit(mod.main(list(ctx.args)))


for _name, (_module, _help) in HARNESSES.items():
    _make(_name, _module, _help)
