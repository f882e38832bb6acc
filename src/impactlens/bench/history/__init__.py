"""Real-history evaluation: `impactlens bench history REPO [--json] [--limit N] [--seed first|all]`.

The repository's own commits are the ground truth (§7.1): a maintainer changed these
files and functions together. For each evaluation case we go back to the commit's
parent, apply only a *seed* — the new version of one function the commit changed —
and ask the stage what else must change; the answer is scored against what the
commit actually changed besides the seed.

Case filter (tangled commits are the main validity threat)
----------------------------------------------------------
A commit is a case when it is a non-merge commit with a parent, touching at most
``settings.history_max_files_per_commit`` files in all, whose *semantically changed*
non-test Python source files number between 2 and ``--cap`` (default 8), and whose
subject line does not name a mechanical change (black/isort/pyupgrade/ruff/flake8/
pre-commit, "format", "typo", "lint", "typing", type hints, version bumps, copyright and
license headers, "drop python"; see ``cases.MECHANICAL``). The message filter is broad on
purpose — a tangled mechanical commit costs more than a lost real one — and the run
reports how many commits it alone dropped. *Semantically changed* = the file's AST
differs with docstrings removed — so formatting-only, comment-only, docstring-only and
rename-only edits (a renamed file whose AST is unchanged) never count, and a commit
left with fewer than two such files is skipped. Source = ``*.py`` outside tests,
docs, examples, benchmarks and scripts directories (and not ``setup.py``/``conftest.py``/
``noxfile.py``). Newest cases first; ``--limit`` bounds them.

TypeScript/JavaScript repositories (the language most library files at the head are in
decides which files count: ``sources.Universe``): library files are code files outside
tests (``*.test.*``, ``*.spec.*``, ``__tests__/``, ``test/``, ``spec/``, fixtures), docs,
examples, benchmarks, tool configuration (``*.config.*``, dotfiles), build outputs and
caches (``dist/``, ``build/``, ``node_modules``, ``*.min.js``), and outside committed copies
of ``src/`` found from the history (``cases.mirrored_prefixes``: zod's ``deno/lib/``, a
compiled ``lib/``). *Semantically changed* = the token stream of the tree-sitter tree
differs once comments, whitespace, quote style, semicolons and commas are dropped
(``semantic_ts``; type annotations stay: the compiler checks them); subjects naming
prettier, eslint, biome, dependency updates or a release are mechanical too. Seeds are
functions and methods of code files (not ``.d.ts``), named by the frontend's qualnames.

Seed and gold
-------------
The seed is the after-version of one function or method that exists at the parent and
whose AST changed (``--seed first``: the first by file path then line; ``--seed all``:
each in turn), spliced into the parent's file. Gold files = the other semantically
changed source files that exist at the parent (named as there); files the commit
created cannot be predicted by anyone and are counted separately. Gold symbols = the
other functions, methods and classes the commit modified or deleted (not added).

Methods compared on the same cases (files are ranked; ties by path)
-------------------------------------------------------------------
* ``stage`` — the full pipeline: MUST-INSPECT then MAY-IMPACT, each by combined
  confidence (§3.7; equal confidences in the co-change channel's order, then by name);
  the seed file and test files removed.
* ``imports`` — reverse import closure of the seed's module, by hop distance.
* ``cochange10`` — the co-change channel alone, its top 10 partners.
* ``callers1`` — files of the seed function's direct callers (most call sites first).
* ``gitnexus`` (``--gitnexus``) — GitNexus's ``impact`` (upstream, depth 3) on the same
  seed, its index built on the same parent (``peer``): files by depth, then its order.
* ``-walk``, ``-cochange``, ``-testmap``, ``-lexical``, ``-retired``, ``-named`` — the stage
  with one channel removed (§7.6 ablation), everything else fixed.

Metrics (means over cases; a case with an empty denominator is *excluded* from that
mean — ``n/a`` — never counted as 0 or 1): recall/precision/F1 of the whole predicted
set, precision@k and recall@k (k = 1, 3, 5), F1 at matched size (each method cut to the
stage's prediction count for that case), symbol-level P/R/F1, and the mean distance
(hops over the undirected file graph of import/call/inherit/instantiate/use edges at the
parent) from each predicted file to the nearest gold file.

Regression measure (§7.2, ``--run-tests``): the suite runs at the parent and again with
only the seed applied (``--test-timeout`` seconds each, ``--continue-on-collection-errors``);
tests that passed before and fail after are the *breaking* tests — rerun on their own at
the parent and seeded, and kept only if they pass and fail again (a flaky or order-dependent
test is not the seed's breakage). Reported: the share of breaking tests inside each
method's targeted validation set and the selection ratio (selected and collected / all
collected test functions). A parent run in which no test passed (say every module failed
to import) counts as *not run*. The suite also runs once more at the parent under
``pytest --impact-record``: the ``stage`` uses that recording as a user who records would
(:mod:`impactlens.impact.observed`), and the ``-recording`` row is the stage with the static
test map alone. Test outcomes and recordings are cached per (commit, seed) under
``--cache``.

Modules: ``sources`` (which files count), ``semantic`` (AST diffs and the seed splice),
``semantic_ts`` (the same for TypeScript/JavaScript), ``cases`` (mining), ``evaluate``
(one case: the stage and its ablations), ``baselines``, ``peer`` (GitNexus),
``regression`` (the suite runs and their pytest plugin), ``results``, ``summary``,
``render`` and ``command`` (the options and the run).
"""

from __future__ import annotations

from impactlens.bench.history.baselines import BASELINES, FileGraph
from impactlens.bench.history.cases import (
    Case,
    Seed,
    build_case,
    candidate_commits,
    mine_cases,
    worktree,
)
from impactlens.bench.history.command import main
from impactlens.bench.history.evaluate import (
    CHANNELS,
    evaluate_case,
    file_evidence,
    stage_predictions,
)
from impactlens.bench.history.regression import run_suite, suite_env
from impactlens.bench.history.render import format_markdown, format_table
from impactlens.bench.history.results import CaseResult, MethodRun
from impactlens.bench.history.sources import is_source, is_test_path, is_vendored
from impactlens.bench.history.summary import KS, NOISE, ablation_verdict, summarize

__all__ = [
    "BASELINES", "CHANNELS", "KS", "NOISE", "Case", "CaseResult", "FileGraph", "MethodRun",
    "Seed", "ablation_verdict", "build_case", "candidate_commits", "evaluate_case",
    "file_evidence", "format_markdown", "format_table", "is_source", "is_test_path",
    "is_vendored", "main", "mine_cases", "run_suite", "stage_predictions", "suite_env",
    "summarize", "worktree",
]
