"""The summary as text: the terminal table and the README's markdown tables (methods,
ablation, paired comparison, regression measure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from impactlens.bench.history.summary import ABLATION_KEYS, PAIRED
from impactlens.bench.metrics import fmt


def format_table(repo: str, summary: dict[str, Any], info: dict[str, Any]) -> str:
    lines = [f"# {repo}: {summary['cases']} cases "
             f"({info.get('candidates', 0)} candidate commits, "
             f"{info.get('skipped_semantic', 0)} skipped by the semantic filter"
             f"{_by_message(info)})"]
    cols = [("recall", "R"), ("precision", "P"), ("f1", "F1"), ("p@1", "P@1"), ("r@1", "R@1"),
            ("p@3", "P@3"), ("r@3", "R@3"), ("p@5", "P@5"), ("r@5", "R@5"),
            ("f1@matched", "F1@n"), ("predicted_files", "|pred|"), ("distance", "dist"),
            ("sym_recall", "symR"), ("sym_precision", "symP"), ("breaking_caught", "brk"),
            ("selection_ratio", "sel")]
    lines.append(f"{'method':<11}" + "".join(f"{label:>7}" for _, label in cols))
    for m, row in summary["methods"].items():
        lines.append(f"{m:<11}" + "".join(
            f"{fmt(row.get(c), 3) if c in row else '-':>7}" for c, _ in cols))
    if summary.get("ablation"):
        lines.append("ablation (Δ = without − with; |Δ| ≤ 0.05 is noise):")
        for ch, a in summary["ablation"].items():
            d = ", ".join(f"{k} {fmt(v, 3)}" for k, v in a["deltas"].items())
            lines.append(f"  {ch:<9} {a['verdict']:<16} {d}")
    lines += _interval_lines(summary)
    for b, p in (summary.get("paired") or {}).items():
        verdicts = {k: d["verdict"] for k, d in p.get("diff", {}).items()}
        tally = ", ".join(f"{v} {sum(1 for x in verdicts.values() if x == v)}"
                          for v in ("ahead", "tie", "behind"))
        behind = [k for k, v in verdicts.items() if v == "behind"]
        lines.append(f"paired with {b} ({p['cases']} cases, 95 % bootstrap): {tally}"
                     + (f" — behind on {', '.join(behind)}" if behind else ""))
    t = summary.get("timing", {})
    lines.append(f"mean index {fmt(t.get('index_s'), 2)} s, "
                 f"mean stage {fmt(t.get('stage_s'), 3)} s per case")
    return "\n".join(lines)


def _by_message(info: Mapping[str, Any]) -> str:
    n = info.get("skipped_message")  # not in runs saved before it was counted
    return f"; {n} dropped by the message filter in the same span" if n else ""


def format_markdown(repo: str, summary: dict[str, Any], info: dict[str, Any]) -> str:
    """The README table of one repository."""
    cols = [("r@1", "R@1"), ("p@1", "P@1"), ("r@3", "R@3"), ("p@3", "P@3"), ("r@5", "R@5"),
            ("p@5", "P@5"), ("recall", "R"), ("precision", "P"), ("f1", "F1"),
            ("f1@matched", "F1@n"), ("predicted_files", "files"), ("answered", "answered"),
            ("distance", "dist"),
            ("sym_recall", "sym R"), ("sym_precision", "sym P"),
            ("breaking_caught", "breaking caught"), ("selection_ratio", "selected")]
    out = [f"**{repo}** — {summary['cases']} cases from {info.get('candidates', 0)} candidate "
           f"commits ({info.get('skipped_semantic', 0)} skipped by the semantic filter"
           f"{_by_message(info)})", "",
           "| method | " + " | ".join(label for _, label in cols) + " |",
           "|---|" + "---:|" * len(cols)]
    for m, row in summary["methods"].items():
        out.append(f"| {m} | " + " | ".join(
            fmt(row.get(c), 3) if c in row else "–" for c, _ in cols) + " |")
    if summary.get("ablation"):
        out += ["", "| channel removed | ΔR | ΔP | ΔF1 | ΔR@3 | ΔP@3 | Δsym R | Δsym P | "
                "Δbreaking caught | Δselected | verdict (§7.6, abs(Δ) ≤ 0.05 = noise) |",
                "|---|" + "---:|" * 9 + "---|"]
        for ch, a in summary["ablation"].items():
            d = a["deltas"]
            out.append(f"| {ch} | " + " | ".join(fmt(d.get(k), 3) for k in (
                *ABLATION_KEYS, "selection_ratio")) + f" | {a['verdict']} |")
    ci = _interval_lines(summary)
    out += ["", *ci] if ci else []
    out += _paired_markdown(summary)
    out += _regression_markdown(summary)
    return "\n".join(out)


def _interval_lines(summary: dict[str, Any]) -> list[str]:
    ci = (summary["methods"].get("stage") or {}).get("ci") or {}
    if not ci:
        return []
    return ["stage, 95 % bootstrap intervals of the means: " + ", ".join(
        f"{k.upper()} [{fmt(lo, 3)}, {fmt(hi, 3)}]" for k, (lo, hi) in ci.items())]


def _paired_markdown(summary: dict[str, Any]) -> list[str]:
    """Stage against each baseline on the cases both answer: each cell "stage / baseline",
    then the bootstrap verdict on the difference (▲ ahead, ▼ behind, = tie)."""
    paired = summary.get("paired") or {}
    if not paired:
        return []
    mark = {"ahead": "▲", "behind": "▼", "tie": "="}
    labels = [k.upper().replace("@N", "@n") for k in PAIRED]
    out = ["", "| paired: cases both answer (stage / baseline, 95 % bootstrap: ▲ ahead, "
           "▼ behind, = tie) | cases | " + " | ".join(labels) + " |",
           "|---|---:|" + "---:|" * len(PAIRED)]
    for b, p in paired.items():
        diff = p.get("diff", {})
        cells = [f"{fmt(p['stage'][k], 3)} / {fmt(p[b][k], 3)}"
                 + (f" {mark[diff[k]['verdict']]}" if k in diff else "") for k in PAIRED]
        out.append(f"| {b} | {p['cases']} | " + " | ".join(cells) + " |")
    return out


def _regression_markdown(summary: dict[str, Any]) -> list[str]:
    """The §7.2 regression measure of the stage with and without the recorded run."""
    rows = [(m, summary["methods"].get(m) or {}) for m in ("stage", "-recording", "-testmap")]
    rows = [(m, r) for m, r in rows if r.get("selection_ratio") is not None]
    if not rows:
        return []
    out = ["", "| tests selected by | cases run | cases with breaking tests | breaking tests "
           "| caught (micro / macro) | selected / all | least selection catching all |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for m, r in rows:
        caught = f"{fmt(r.get('breaking_caught'), 3)} / {fmt(r.get('breaking_caught_macro'), 3)}"
        out.append(f"| {m} | {r.get('cases_run', 0)} | {r.get('cases_with_breaking', 0)} "
                   f"| {r.get('breaking_tests', 0)} "
                   f"| {caught} | {fmt(r.get('selection_ratio'), 3)} "
                   f"| {fmt(r.get('least_selection'), 3)} |")
    return out
