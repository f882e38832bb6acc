"""`impactlens bench history`: the options, the run over the mined cases (saved after each
one), re-summarising saved runs, and the output."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.history.cases import Case, mine_cases
from impactlens.bench.history.evaluate import evaluate_case
from impactlens.bench.history.regression import write_plugin
from impactlens.bench.history.render import format_markdown, format_table
from impactlens.bench.history.results import CaseResult
from impactlens.bench.history.summary import summarize
from impactlens.index import git as gitcmd
from impactlens.settings import DEFAULT, Settings, override


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "impactlens" / "bench" / "history"


def _payload(top: Path, info: dict[str, Any], args: argparse.Namespace,
             results: Sequence[CaseResult], *, intervals: bool = True) -> dict[str, Any]:
    return {
        "repo": top.name, "head": gitcmd.run(top, "rev-parse", "HEAD").strip(), "info": info,
        "settings": {"cap": args.cap, "seed": args.seed, "limit": args.limit,
                     "gitnexus": args.gitnexus,
                     "run_tests": args.run_tests, "pytest_args": args.pytest_args,
                     "set": args.set},
        "summary": summarize(results, intervals=intervals), "cases": [asdict(r) for r in results],
    }


def _load_saved(paths: Sequence[Path]) -> tuple[str, dict[str, Any], list[CaseResult]]:
    """The cases of saved ``--out`` files, pooled, with a label and the summed mining
    counts (one file: its repository's name and info as saved)."""
    saved = [json.loads(p.read_text()) for p in paths]
    for p, d in zip(paths, saved, strict=True):
        if not (isinstance(d, dict) and isinstance(d.get("info"), dict)
                and isinstance(d.get("cases"), list) and isinstance(d.get("repo"), str)):
            raise ValueError(f"{p}: no repo, info and cases")
    rows = [CaseResult.from_json(c) for d in saved for c in d["cases"]]
    if len(saved) == 1:
        return saved[0]["repo"], saved[0]["info"], rows
    info = {k: sum(int(d["info"].get(k, 0)) for d in saved)
            for k in ("candidates", "skipped_semantic", "skipped_message")}
    return "pooled: " + ", ".join(d["repo"] for d in saved), info, rows


def _write(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def _unusable(repo: Path, out: Path | None) -> str:
    """Why the run cannot start ('' when it can): checked before hours of cases, not after."""
    if not repo.is_dir():
        return f"{repo}: no such directory"
    if out is not None and out.is_dir():
        return f"--out {out}: a directory (give a file name)"
    if out is not None and not out.parent.is_dir():
        return f"--out {out}: no such directory {out.parent}"
    if out is not None and not os.access(out.parent, os.W_OK):
        return f"--out {out}: {out.parent} is not writable"
    return ""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="impactlens bench history",
        description="Real-history evaluation: seed one changed function at the parent, "
                    "score the stage against what the commit co-changed.",
    )
    ap.add_argument("repo", type=Path, nargs="?",
                    help="a git work tree with history (never modified; cases run in "
                         "temporary `git worktree`s)")
    ap.add_argument("--json", action="store_true", help="print the full result as JSON")
    ap.add_argument("--limit", type=at_least(1), default=30, help="newest N cases (default 30)")
    ap.add_argument("--seed", choices=("first", "all"), default="first")
    ap.add_argument("--cap", type=at_least(2), default=8,
                    help="max changed source files per case (a case has at least 2)")
    ap.add_argument("--run-tests", action="store_true",
                    help="run the suite before/after the seed (regression measure, §7.2)")
    ap.add_argument("--test-timeout", type=at_least(0, float, above=True), default=300.0,
                    help="seconds per suite run (a run over it counts as not run)")
    ap.add_argument("--pytest-args", default="",
                    help="extra pytest arguments for the subject's suite, e.g. "
                         "'--ignore tests/test_stress.py'")
    ap.add_argument("--cache", type=Path, default=None,
                    help="test-outcome cache (default $XDG_CACHE_HOME/impactlens/bench/history)")
    ap.add_argument("--gitnexus", action="store_true",
                    help="also run GitNexus's `impact` on each seed as a baseline (needs "
                         "gitnexus installed: npm install --prefix /tmp/gn gitnexus@1.6.12, "
                         "or IMPACTLENS_GITNEXUS)")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    ap.add_argument("--markdown", action="store_true", help="print the README table")
    ap.add_argument("--from-json", type=Path, nargs="+", default=None, metavar="FILE",
                    help="re-summarise saved --out files instead of running; several "
                         "files are pooled (their cases summarised together)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a numeric setting for this run, e.g. "
                         "--set cochange_symbol_weight=1 (repeatable)")
    return ap


def _error(message: str) -> int:
    print(f"impactlens: error: {message}", file=sys.stderr)
    return 2


def _resummarise(args: argparse.Namespace) -> int:
    """``--from-json``: the summary of saved runs, printed as a run prints it."""
    try:
        label, info, rows = _load_saved(args.from_json)
    except OSError as exc:
        return _error(f"--from-json: cannot read {exc.filename}: {exc.strerror}")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return _error(f"--from-json: not a saved run ({type(exc).__name__}: {exc})")
    summary = summarize(rows)
    render = format_markdown if args.markdown else format_table
    print(json.dumps(summary, indent=2) if args.json else render(label, summary, info))
    return 0


def _subject(args: argparse.Namespace) -> tuple[Path, Settings] | str:
    """The repository's top level and the run's settings, or why the run cannot start."""
    repo = args.repo.resolve()
    problem = _unusable(repo, args.out)
    if problem:
        return problem
    try:
        top = gitcmd.toplevel(repo)
    except Exception as exc:  # one line, no traceback
        return f"{repo}: not a git work tree ({exc})"
    if not gitcmd.has_head(top):
        return f"{top}: the repository has no commits"
    try:
        return top, override(DEFAULT, args.set)
    except ValueError as exc:
        return f"--set: {exc}"


def _evaluate_all(top: Path, cases: Sequence[Case], info: dict[str, Any],
                  settings: Settings, args: argparse.Namespace) -> list[CaseResult]:
    """Every case's results; a case that fails is noted in ``info`` and the run goes on."""
    cache = (args.cache or _default_cache()) / hashlib.sha256(
        str(top).encode()).hexdigest()[:12]
    tty = sys.stderr.isatty()
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="impactlens-plugin-") as pd:
        plugin_dir = Path(pd)
        write_plugin(plugin_dir)
        for i, case in enumerate(cases):
            if tty:
                print(f"[{i + 1}/{len(cases)}] {case.sha[:10]} {case.message.splitlines()[0][:60]}",
                      file=sys.stderr)
            try:
                results.extend(evaluate_case(
                    top, case, settings, run_tests=args.run_tests,
                    test_timeout=args.test_timeout, cache=cache, plugin_dir=plugin_dir,
                    pytest_args=shlex.split(args.pytest_args), gitnexus=args.gitnexus))
            except Exception as exc:  # a broken case is reported, the run goes on
                info.setdefault("failed_cases", []).append(
                    {"sha": case.sha, "error": f"{type(exc).__name__}: {exc}"[:300]})
            if args.out:  # rewritten after every case: an interrupted run keeps its cases
                _write(args.out, _payload(top, info, args, results, intervals=False))
    return results


def _print_report(top: Path, payload: Mapping[str, Any], args: argparse.Namespace,
                  results: Sequence[CaseResult]) -> None:
    summary, info = payload["summary"], payload["info"]
    if args.json:
        print(json.dumps(payload, indent=2, sort_keys=False))
    elif args.markdown:
        print(format_markdown(top.name, summary, info))
    else:
        print(format_table(top.name, summary, info))
        for fc in info.get("failed_cases", []):
            print(f"case {fc['sha'][:10]} failed: {fc['error']}")
        for r in results:
            if r.not_run:
                print(f"case {r.sha[:10]} ({r.seed}): no regression measure: {r.not_run}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.from_json:
        return _resummarise(args)
    if args.repo is None:
        ap.error("a repository path is required (or --from-json FILE...)")
    # a terminated run still removes its temporary worktree (the `finally` blocks run)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subject = _subject(args)
    if isinstance(subject, str):
        return _error(subject)
    top, settings = subject
    cases, info = mine_cases(top, limit=args.limit, cap=args.cap, seed_mode=args.seed,
                             settings=settings)
    results = _evaluate_all(top, cases, info, settings, args)
    payload = _payload(top, info, args, results)
    if args.out:
        _write(args.out, payload)
    _print_report(top, payload, args, results)
    return 0
