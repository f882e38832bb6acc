"""Human renderings of an :class:`~impactlens.model.ImpactResult`.

``render_terminal`` prints the report by bucket (each item with its cause), the
batches in order and the tests to run, with rich (plain text when piped);
``render_markdown`` returns a pull-request comment. Both read only the result
(nothing is recomputed) and are deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from impactlens.model import ImpactResult, TriageEntry

__all__ = ["is_test_entry", "render_markdown", "render_terminal", "split_causes",
           "summary_counts"]

_LOW_SHOWN = 10
_VALIDATE_SHOWN = 50
_BUCKETS = (
    ("must_inspect", "MUST-INSPECT", "bold red", "breaks unless updated"),
    ("may_impact", "MAY-IMPACT", "yellow", "reachable; check"),
    ("low_risk", "LOW-RISK", "dim", "weak: walked to, or soft evidence far behind the best"),
)


def summary_counts(result: ImpactResult) -> dict[str, int]:
    t = result.triage
    return {
        "changes": len(result.changes),
        "must_inspect": len(t.must_inspect),
        "may_impact": len(t.may_impact),
        "low_risk": len(t.low_risk),
        "batches": len(result.batches),
        "tests": len(result.validate),
        "unanalyzable": len(result.unanalyzable),
    }


def is_test_entry(e: TriageEntry) -> bool:
    """A test (pytest node id), or a definition in a test file (fixtures, test modules)."""
    if "::" in e.entity:
        return True
    name = e.file.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def split_causes(reason: str) -> list[str]:
    """A merged cause string (``a | b``) as separate causes."""
    return [c.strip() for c in reason.split(" | ") if c.strip()]


def _entries(result: ImpactResult, key: str) -> tuple[TriageEntry, ...]:
    return tuple(getattr(result.triage, key))


def _loc(file: str, line: int | None = None) -> str:
    return f"{file}:{line}" if line else file


def _lines(rng: Sequence[int]) -> str:
    a, b = rng[0], rng[-1]
    return str(a) if a == b else f"{a}-{b}"


# --------------------------------------------------------------- terminal
def render_terminal(
    result: ImpactResult,
    *,
    label: str = "",
    out_dir: Path | None = None,
    console: Console | None = None,
    other_files: Iterable[str] = (),
) -> None:
    con = console or Console()
    counts = summary_counts(result)
    title = f"impact of {label}" if label else "impact"
    con.print(f"[bold]{escape(title)}[/bold]")
    if not result.changes:
        con.print("no Python definitions changed — nothing to analyze.")
        skipped = sorted(other_files)
        if skipped:
            con.print(f"[dim]not analyzed (not Python): {escape(', '.join(skipped))}[/dim]")
        if out_dir is not None:
            con.print(f"[dim]wrote {escape(str(out_dir))}/{{changes,impact}}.json, "
                      "test_map.txt[/dim]")
        return
    con.print(
        f"{counts['changes']} atomic change(s) · "
        f"[bold red]{counts['must_inspect']} must-inspect[/bold red] · "
        f"[yellow]{counts['may_impact']} may-impact[/yellow] · "
        f"{counts['low_risk']} low-risk · {counts['batches']} batch(es) · "
        f"{counts['tests']} test(s) to run"
        + (f" · [magenta]{counts['unanalyzable']} un-analyzable site(s)[/magenta]"
           if counts["unanalyzable"] else "")
    )

    con.print()
    con.print("[bold]Changes[/bold]")
    for c in result.changes:
        con.print(f"  [cyan]{c.change_type.value:<16}[/cyan] [bold]{escape(c.entity)}[/bold]  "
                  f"[dim]{escape(c.file)}:{_lines(c.line_range)}[/dim]")
        if c.before_sig and c.after_sig and c.before_sig != c.after_sig:
            con.print(f"      [dim]{escape(c.before_sig)}  →  {escape(c.after_sig)}[/dim]")

    for key, name, style, hint in _BUCKETS:
        entries = _entries(result, key)
        code = [e for e in entries if not is_test_entry(e)]
        tests = [e for e in entries if is_test_entry(e)]
        con.print()
        con.print(f"[{style}]{name}[/{style}] ({len(entries)}) [dim]— {hint}[/dim]")
        if not entries:
            con.print("  [dim](none)[/dim]")
            continue
        shown = code if key != "low_risk" else code[:_LOW_SHOWN]
        for e in shown:
            con.print(f"  [bold]{escape(e.entity)}[/bold]  [dim]{escape(e.file)} · "
                      f"conf {e.conf:.2f}{_named_by(e)}[/dim]")
            if key == "low_risk":
                continue  # weak evidence: the name is enough here (causes in impact.json)
            for cause in split_causes(e.reason):
                con.print(f"      [dim]↳[/dim] {escape(cause)}")
        if len(code) > len(shown):
            con.print(f"  [dim]… and {len(code) - len(shown)} more (see impact.json)[/dim]")
        if tests:
            if key == "must_inspect":
                con.print(f"  tests that must be updated ({len(tests)}):")
                for e in tests:
                    con.print(f"    {escape(e.entity)}")
            else:
                con.print(f"  [dim]+ {len(tests)} test(s) — see Tests to run[/dim]")

    if result.unanalyzable:
        con.print()
        con.print(
            f"[magenta]UN-ANALYZABLE[/magenta] ({len(result.unanalyzable)}) "
            "[dim]— dynamic sites static analysis cannot follow; inspect by hand[/dim]"
        )
        for u in result.unanalyzable:
            reach = f"  [dim]→ may reach {escape(u.affects)}[/dim]" if u.affects else ""
            con.print(f"  {escape(_loc(u.file, u.line))}  [magenta]{u.reason}[/magenta]  "
                      f"{escape(u.text)}{reach}")

    cands = [(f, c) for f, c in result.co_change if c]
    if cands or result.co_change_note:
        con.print()
        con.print("[bold]Co-change history[/bold] [dim]— files that changed with these "
                  "before (soft evidence)[/dim]")
        if result.co_change_note:
            con.print(f"  [dim]{escape(result.co_change_note)}[/dim]")
        for f, partners in cands:
            top = ", ".join(f"{g} ({s:.2f})" for g, s in partners[:5])
            more = f" … +{len(partners) - 5}" if len(partners) > 5 else ""
            con.print(f"  {escape(f)}: {escape(top)}{more}")

    con.print()
    con.print(f"[bold]Batches[/bold] ({len(result.batches)}) [dim]— edit and validate each "
              "unit together, in this order[/dim]")
    if not result.batches:
        con.print("  [dim](none: nothing else must change)[/dim]")
    for b in result.batches:
        flag = " [dim](split)[/dim]" if b.split else ""
        con.print(f"  {b.batch_id}. {escape(' → '.join(b.members))}{flag}")
    if result.omitted_batches:
        con.print(f"  [dim]… {result.omitted_batches} more batch(es) omitted by the cap[/dim]")

    con.print()
    con.print(f"[bold]Tests to run[/bold] ({len(result.validate)})")
    if not result.validate:
        con.print("  [dim](no test reaches the changed code)[/dim]")
    for tid in result.validate[:_VALIDATE_SHOWN]:
        con.print(f"  {escape(tid)}")
    if len(result.validate) > _VALIDATE_SHOWN:
        con.print(f"  [dim]… and {len(result.validate) - _VALIDATE_SHOWN} more "
                  "(`impactlens tests` lists all)[/dim]")
    if result.tests_note:
        con.print(f"  [dim]{escape(result.tests_note)}[/dim]")
    skipped = sorted(other_files)
    if skipped:
        con.print()
        con.print(f"[dim]not analyzed (not Python): {escape(', '.join(skipped))}[/dim]")
    if out_dir is not None:
        con.print()
        con.print(f"[dim]wrote {escape(str(out_dir))}/changes.json, impact.json, "
                  "test_map.txt[/dim]")


def _named_by(e: TriageEntry) -> str:
    """Why an entry sits higher in its bucket than its confidence alone would put it."""
    parts = [f"{what} names it {v:.2f}" for what, v in (("edit", e.edit_relevance),
                                                      ("task", e.relevance)) if v]
    return "".join(f" · {p}" for p in parts)


# --------------------------------------------------------------- markdown
def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    t = text.replace("\n", " ")
    return f"`{t}`" if "`" not in t else f"``{t}``"


def render_markdown(
    result: ImpactResult, *, label: str = "", other_files: Iterable[str] = ()
) -> str:
    """A pull-request comment: the counts, the changes, MUST/MAY with causes, tests."""
    counts = summary_counts(result)
    out: list[str] = []
    out.append(f"### impactlens: {_md(label)}" if label else "### impactlens")
    out.append("")
    if not result.changes:
        out.append("No Python definitions changed — nothing to analyze.")
        return "\n".join(out) + "\n"
    out.append(
        f"**{counts['must_inspect']} must-inspect** · {counts['may_impact']} may-impact · "
        f"{counts['low_risk']} low-risk · {counts['batches']} batch(es) · "
        f"{counts['tests']} test(s) to run"
        + (f" · ⚠️ {counts['unanalyzable']} un-analyzable site(s)" if counts["unanalyzable"]
           else "")
    )
    out.append("")
    out.append("| change | entity | where |")
    out.append("|---|---|---|")
    for c in result.changes:
        out.append(f"| {c.change_type.value} | {_code(c.entity)} | "
                   f"{_code(f'{c.file}:{_lines(c.line_range)}')} |")
    for key, name, _style, _hint in _BUCKETS[:2]:
        entries = _entries(result, key)
        code = [e for e in entries if not is_test_entry(e)]
        tests = [e for e in entries if is_test_entry(e)]
        out.append("")
        out.append(f"#### {name} ({len(entries)})")
        out.append("")
        if not entries:
            out.append("_none_")
            continue
        if code:
            out.append("| entity | file | conf | cause |")
            out.append("|---|---|---:|---|")
            for e in code:
                cause = "<br>".join(_md(c) for c in split_causes(e.reason))
                out.append(f"| {_code(e.entity)} | {_code(e.file)} | {e.conf:.2f} | {cause} |")
        if tests:
            if code:
                out.append("")
            verb = "must be updated" if key == "must_inspect" else "listed under tests to run"
            out.append(f"_{len(tests)} test(s) {verb}"
                       + (": " + ", ".join(_code(e.entity) for e in tests) if
                          key == "must_inspect" else "") + "._")
    if result.triage.low_risk:
        out.append("")
        out.append(f"_{len(result.triage.low_risk)} low-risk site(s) omitted (see impact.json)._")
    if result.unanalyzable:
        out.append("")
        out.append(f"#### ⚠️ Un-analyzable sites ({len(result.unanalyzable)})")
        out.append("")
        out.append("Dynamic code static analysis cannot follow — check these by hand:")
        out.append("")
        for u in result.unanalyzable:
            out.append(f"- {_code(_loc(u.file, u.line))} {u.reason}: {_code(u.text)}"
                       + (f" → may reach {_code(u.affects)}" if u.affects else ""))
    if result.batches:
        out.append("")
        out.append("#### Batches (edit together, in order)")
        out.append("")
        for b in result.batches:
            out.append(f"{b.batch_id + 1}. " + " → ".join(_code(m) for m in b.members)
                       + (" _(split)_" if b.split else ""))
    out.append("")
    out.append(f"<details><summary>Tests to run ({len(result.validate)})</summary>")
    out.append("")
    if result.validate:
        out.append("```")
        out.extend(result.validate)
        out.append("```")
    else:
        out.append("_No test reaches the changed code._")
    out.append("")
    out.append("</details>")
    skipped = sorted(other_files)
    if skipped:
        out.append("")
        out.append("_Not analyzed (not Python): " + ", ".join(_code(s) for s in skipped) + "._")
    return "\n".join(out) + "\n"
