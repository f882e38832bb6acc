"""`impactlens bench budget`: how large each surface's answer is on real commits, and
what its budget costs in recall.

Cases are mined as `bench history` mines them (one changed function of a real commit,
seeded at its parent; the truth is the other source files the commit changed). Each
case runs the user's path (`Project.analyze_before_after`) and renders every surface
with its default budget: `impact.json`, the MCP `analyze_change` answer (text plus
structured content), the terminal report as piped (160 columns) and the markdown
comment. Per surface it reports the size (p50/p95/max) and the file-level recall at
1/3/5 of the files the surface shows, in the order it shows them, beside the same
figures of the unbudgeted ranking.
"""

from __future__ import annotations

import argparse
import io
import json
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from impactlens.bench import at_least
from impactlens.bench.history import Case, is_source, mine_cases, stage_predictions, worktree
from impactlens.bench.metrics import fmt, mean, percentile, recall_at_k
from impactlens.index import git as gitcmd
from impactlens.settings import DEFAULT, Settings, override

KS = (1, 3, 5)
# surface → the sizes it reports (the first is the budgeted one)
SURFACES: dict[str, tuple[str, ...]] = {
    "impact.json": ("tokens",),
    "mcp analyze_change": ("tokens",),
    "terminal": ("lines", "width"),
    "markdown": ("chars",),
}


@dataclass
class CaseSizes:
    """One case: each surface's sizes and shown files, the unbudgeted ranking's files."""

    sha: str
    seed: str
    gold: list[str]
    ranking: list[str]  # the unbudgeted ranked files
    unbudgeted_tokens: int  # the whole answer as JSON
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    shown: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


def _files(entries: Sequence[dict[str, Any]] | Sequence[Any], seed_file: str) -> list[str]:
    out: dict[str, None] = {}
    for e in entries:
        f = e["file"] if isinstance(e, dict) else e.file
        if f and f != seed_file and is_source(f):
            out.setdefault(f)
    return list(out)


def _json_files(data: dict[str, Any], seed_file: str) -> list[str]:
    tri = data["triage"]
    return _files([*tri["must_inspect"], *tri["may_impact"]], seed_file)


def _cut_files(answer: Any, cut: Any, seed_file: str) -> list[str]:
    return _files([*answer.must_inspect[: cut["must_inspect"]],
                   *answer.may_impact[: cut["may_impact"]]], seed_file)


def measure(result: Any, change: Any, seed_file: str, settings: Settings) -> dict[str, Any]:
    """Each surface's sizes and the files it shows, rendered as a user gets them."""
    from impactlens.answer import answer_json, budgeted_json, build_answer, full_cut, json_text
    from impactlens.answer.text import markdown, markdown_cut, print_terminal, terminal_cut
    from impactlens.impact.token_count import count_tokens
    from impactlens.serve.mcp_server import analyze_result

    def tokens(text: str) -> int:
        return count_tokens(text, settings.tokenizer_encoding)

    answer = build_answer(result)
    sizes: dict[str, dict[str, int]] = {}
    shown: dict[str, list[str]] = {}
    data = budgeted_json(answer, settings)
    sizes["impact.json"] = {"tokens": tokens(json_text(data))}
    shown["impact.json"] = _json_files(data, seed_file)

    mcp = analyze_result(change, result, detail=False, max_tokens=settings.mcp_max_tokens,
                         cursor=None, settings=settings)
    structured = mcp.structured_content or {}
    text = "".join(getattr(c, "text", "") for c in mcp.content)
    sizes["mcp analyze_change"] = {
        "tokens": tokens(text) + tokens(json_text(structured, pretty=False))}
    shown["mcp analyze_change"] = _json_files(structured, seed_file)

    buf = io.StringIO()
    print_terminal(answer, Console(file=buf, width=settings.piped_width, color_system=None),
                   settings=settings, label=change.label)
    lines = buf.getvalue().splitlines()
    sizes["terminal"] = {"lines": len(lines), "width": max(map(len, lines), default=0)}
    shown["terminal"] = _cut_files(answer, terminal_cut(answer, settings, label=change.label),
                                   seed_file)

    cut = markdown_cut(answer, settings, label=change.label)  # as render_markdown cuts
    sizes["markdown"] = {"chars": len(markdown(answer, cut, label=change.label))}
    shown["markdown"] = _cut_files(answer, cut, seed_file)
    whole = tokens(json_text(answer_json(answer, full_cut(answer))))
    return {"sizes": sizes, "shown": shown, "unbudgeted_tokens": whole}


def run_case(repo: Path, case: Case, settings: Settings) -> list[CaseSizes]:
    from impactlens.api import Project
    from impactlens.change.inputs import from_texts, parse_as_of

    out: list[CaseSizes] = []
    with worktree(repo, case.parent) as wt, Project(wt, settings) as proj:
        proj.index()
        for seed in case.seeds:
            t0 = time.perf_counter()
            change = from_texts(proj.root, seed.file, case.before[seed.file], seed.seeded,
                                task=case.message, as_of=parse_as_of(case.author_time))
            result = proj.analyze(change, refresh=False)
            if result is None:
                continue
            seed_entity = f"{proj.module_of(seed.file)}.{seed.qualname}"
            partners = dict(result.co_change).get(seed.file, ())
            ranking, _syms, _tests, _why = stage_predictions(
                result, seed.file, seed_entity, set(), partners, settings)
            got = measure(result, change, seed.file, settings)
            out.append(CaseSizes(
                sha=case.sha, seed=seed_entity,
                gold=sorted(p for p in case.source_files if p != seed.file),
                ranking=ranking, unbudgeted_tokens=got["unbudgeted_tokens"],
                sizes=got["sizes"], shown=got["shown"],
                seconds=round(time.perf_counter() - t0, 3)))
    return out


def _stats(values: Sequence[float]) -> dict[str, float | None]:
    return {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95),
            "max": max(values) if values else None}


def _recalls(rows: Sequence[CaseSizes], files: Callable[[CaseSizes], list[str]]
             ) -> dict[str, float | None]:
    return {f"r@{k}": mean(recall_at_k(files(r), r.gold, k) for r in rows) for k in KS}


def summarize(rows: Sequence[CaseSizes]) -> dict[str, Any]:
    """Per surface: its sizes' p50/p95/max and the recall of what it shows; the
    unbudgeted ranking's recall and the whole answer's tokens beside them."""
    out: dict[str, Any] = {"cases": len(rows),
                           "unbudgeted": {"tokens": _stats([r.unbudgeted_tokens for r in rows]),
                                          **_recalls(rows, lambda r: r.ranking)}}
    for name, keys in SURFACES.items():
        out[name] = {**{k: _stats([r.sizes[name][k] for r in rows]) for k in keys},
                     **_recalls(rows, lambda r, n=name: r.shown[n])}
    return out


def _size_cell(stats: dict[str, float | None]) -> str:
    return " / ".join("–" if v is None else f"{v:,.0f}" for v in stats.values())


def format_markdown(summaries: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """One table: a row per repository and surface."""
    head = ("| repository | surface | size p50 / p95 / max | R@1 | R@3 | R@5 |\n"
            "|---|---|---|---|---|---|")
    lines = [head]
    for repo, s in summaries:
        u = s["unbudgeted"]
        lines.append(f"| {repo} ({s['cases']} cases) | unbudgeted ranking | "
                     f"{_size_cell(u['tokens'])} tokens | "
                     + " | ".join(fmt(u[f"r@{k}"]) for k in KS) + " |")
        for name, keys in SURFACES.items():
            row = s[name]
            size = "; ".join(f"{_size_cell(row[k])} {k}" for k in keys)
            lines.append(f"| | {name} | {size} | "
                         + " | ".join(fmt(row[f"r@{k}"]) for k in KS) + " |")
    return "\n".join(lines)


def _load(path: Path) -> tuple[str, list[CaseSizes]]:
    data = json.loads(path.read_text())
    return data["repo"], [CaseSizes(**r) for r in data["cases"]]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="impactlens bench budget",
        description="Answer size per surface on real commits (p50/p95/max) and the "
                    "file-level recall of what each surface shows, beside the unbudgeted "
                    "ranking's.")
    ap.add_argument("repo", type=Path, nargs="?",
                    help="a git work tree with history (never modified)")
    ap.add_argument("--limit", type=at_least(1), default=30, help="newest N cases (default 30)")
    ap.add_argument("--cap", type=at_least(2), default=8,
                    help="max changed source files per case (a case has at least 2)")
    ap.add_argument("--out", type=Path, default=None, help="also write the cases as JSON here")
    ap.add_argument("--from-json", type=Path, nargs="+", default=None, metavar="FILE",
                    help="tabulate saved --out files (a row group per file) instead of running")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a setting, e.g. --set mcp_max_tokens=4000 (repeatable)")
    args = ap.parse_args(list(argv) if argv is not None else None)

    if args.from_json:
        try:
            loaded = [_load(p) for p in args.from_json]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"impactlens: error: --from-json: {exc}", file=sys.stderr)
            return 2
        print(format_markdown([(name, summarize(rows)) for name, rows in loaded]))
        return 0
    if args.repo is None:
        ap.error("a repository path is required (or --from-json FILE...)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # worktrees are removed
    try:
        settings = override(DEFAULT, args.set)
        top = gitcmd.toplevel(args.repo.resolve())
    except Exception as exc:  # one line, no traceback
        print(f"impactlens: error: {exc}", file=sys.stderr)
        return 2
    cases, _info = mine_cases(top, limit=args.limit, cap=args.cap, settings=settings)
    rows: list[CaseSizes] = []
    for i, case in enumerate(cases):
        if sys.stderr.isatty():
            print(f"[{i + 1}/{len(cases)}] {case.sha[:10]}", file=sys.stderr)
        try:
            rows.extend(run_case(top, case, settings))
        except Exception as exc:  # a broken case is reported, the run goes on
            print(f"case {case.sha[:10]} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        if args.out:  # rewritten after every case: an interrupted run keeps its cases
            args.out.write_text(json.dumps({"repo": top.name,
                                            "cases": [asdict(r) for r in rows]}, indent=1))
    print(format_markdown([(top.name, summarize(rows))]))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
