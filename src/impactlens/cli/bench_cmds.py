"""`impactlens-bench …`: the benchmark harnesses (each lives in impactlens.bench.*).

A developer tool, apart from the user CLI: ``impactlens --help`` does not list it.
``impactlens bench …`` still runs the same commands, hidden, with a note on stderr.
"""

from __future__ import annotations

import importlib
import sys

import click

from impactlens import __version__
from impactlens.cli.common import ErrorsAsOneLine, main
from impactlens.errors import BadInputError

# subcommand → module whose main(argv) -> int runs it
HARNESSES = {
    "budget": ("impactlens.bench.budget", "answer size per surface on real commits, and the "
               "recall of what each shows"),
    "monorepo": ("impactlens.bench.monorepo", "generate a monorepo of renamed copies of a "
                 "project, for the scale figures"),
    "obligations": ("impactlens.bench.obligations", "precision of the names-an-edit-needs "
                    "obligations on real commits"),
    "callgraph": ("impactlens.bench.callgraph", "call-graph accuracy vs hand-written truth, PyCG"),
    "change": ("impactlens.bench.change_impact", "change-impact corpus: P/R per change type"),
    "history": ("impactlens.bench.history", "real-history evaluation against co-changed files"),
    "pdg": ("impactlens.bench.pdg", "statement-level PDG accuracy harness"),
    "pdg-realcode": ("impactlens.bench.pdg_realcode", "PDG vs call-graph on a large real repo"),
    "perf": ("impactlens.bench.perf", "index/impact speed on a large real repo (+GitNexus)"),
    "record": ("impactlens.bench.recording_cost", "recorded test runs: suite overhead, selection"),
    "replay": ("impactlens.bench.replay", "incremental == full index over real commits"),
    "workers": ("impactlens.bench.workers", "cold index per worker count, in interleaved "
                "pairs: wall, CPU, summed PSS"),
}

SOURCE_REPOSITORY = "https://github.com/impactlens/impactlens"


@click.group(
    "impactlens-bench", cls=ErrorsAsOneLine, hidden=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="The corpus harnesses (callgraph, change, pdg) read the corpora under bench/ in "
           f"a clone of {SOURCE_REPOSITORY} (pass --cases/--corpus to point elsewhere); the "
           "others take a repository to measure. Each subcommand takes --help.",
)
@click.version_option(__version__, prog_name="impactlens-bench")
@click.pass_context
def bench_main(ctx: click.Context) -> None:
    """Benchmarks of impactlens against ground truth and real repositories (developer tools)."""
    if ctx.parent is not None:  # reached as `impactlens bench`
        click.echo("impactlens: note: `impactlens bench` is deprecated and goes in the next "
                   "release; run `impactlens-bench` instead", err=True)


def _make(name: str, module: str, help_text: str) -> None:
    @bench_main.command(
        name, help=help_text,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                          "help_option_names": []},
    )
    @click.pass_context
    def _cmd(ctx: click.Context) -> None:
        if (ctx.find_root().obj or {}).get("overrides"):  # not silently dropped
            raise BadInputError(f"bench {name}: the root --set does not reach the "
                                "harnesses (`impactlens-bench history … --set NAME=VALUE` "
                                "takes its own)")
        mod = importlib.import_module(module)
        sys.exit(mod.main(list(ctx.args)))


for _name, (_module, _help) in HARNESSES.items():
    _make(_name, _module, _help)

main.add_command(bench_main, "bench")  # the hidden alias, for one release
