"""The answer for people: a terminal report and a pull-request comment.

Both are built from a cut (:mod:`impactlens.answer.fit`), so a long list ends in one
``+N more`` line saying how to see the rest; a terminal line longer than the width is
cut with an ellipsis (the whole text is in the JSON).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from impactlens.answer.build import Answer
from impactlens.answer.fit import Cut, fit, full_cut
from impactlens.impact.dag import short_name
from impactlens.model import TriageEntry, unresolved_words
from impactlens.settings import DEFAULT, Settings

__all__ = ["brief", "markdown", "markdown_cut", "print_terminal", "render_markdown",
           "split_causes", "terminal_cut", "terminal_lines"]

_SIG_PAIR = 110  # a longer before → after pair is shown as what changed in it
MORE_HINT = "impactlens analyze --all, or --json --detail"
_BUCKETS = (
    ("must_inspect", "MUST-INSPECT", "bold red", "breaks unless updated"),
    ("may_impact", "MAY-IMPACT", "yellow", "reachable; check"),
    ("low_risk", "LOW-RISK", "dim", "weak evidence: walked to, or far behind the best"),
)


def left_out_lines(answer: Answer) -> list[str]:
    """One line per edited file the analysis left out, saying why (never cut: the rest of
    the answer is silent about such a file)."""
    return [f"not analyzed: {n.file}" + (f":{n.line}" if n.line else "") + f" — {n.why}"
            for n in answer.result.not_analyzed]


def split_causes(reason: str) -> list[str]:
    """A merged cause string (``a | b``) as separate causes."""
    return [c.strip() for c in reason.split(" | ") if c.strip()]


def _lines(rng: Sequence[int]) -> str:
    a, b = rng[0], rng[-1]
    return str(a) if a == b else f"{a}-{b}"


def _named_by(e: TriageEntry) -> str:
    """Why an entry sits higher in its bucket than its confidence alone would put it."""
    parts = [f"{what} names it {v:.2f}" for what, v in (("edit", e.edit_relevance),
                                                      ("task", e.relevance)) if v]
    return "".join(f" · {p}" for p in parts)


# --------------------------------------------------------------- terminal
def _more(n: int, what: str) -> Text:
    return Text(f"  + {n} more {what} — {MORE_HINT}", style="dim")


def _head(title: str, count: int, hint: str, style: str = "bold") -> Text:
    t = Text()
    t.append(title, style=style)
    t.append(f" ({count})")
    if hint:
        t.append(f" — {hint}", style="dim")
    return t


def terminal_lines(answer: Answer, cut: Cut, *, label: str = "",
                   other_files: Iterable[str] = (), out_dir: Path | None = None
                   ) -> list[Text]:
    """The report as lines (uncut in width); ``cut`` says how many items each shows."""
    out = [Text(f"impact of {label}" if label else "impact", style="bold")]
    skipped = sorted(other_files)
    if not answer.changes:
        out.append(Text("no Python definitions changed — nothing to analyze."))
        if skipped:
            out.append(Text(f"not analyzed (not Python): {', '.join(skipped)}", style="dim"))
        return out + [Text(t) for t in left_out_lines(answer)]
    out.append(Text(answer.risk))
    out += _changes(answer, cut)
    for key, name, style, hint in _BUCKETS:
        out += _bucket(answer, cut, key, name, style, hint)
    out += _tests(answer, cut)
    out += _dynamic(answer, cut)
    out += _batches(answer, cut)
    out += _cochange(answer, cut)
    if skipped:
        out += [Text(""), Text(f"not analyzed (not Python): {', '.join(skipped)}", style="dim")]
    out += [Text(t) for t in left_out_lines(answer)]
    if out_dir is not None:
        out.append(Text(f"wrote {out_dir}/changes.json, impact.json, test_map.txt",
                        style="dim"))
    return out


def _changes(answer: Answer, cut: Cut) -> list[Text]:
    out = [Text(""), _head("Changes", len(answer.changes), "")]
    shown = answer.changes[: cut["changes"]]
    for c in shown:
        t = Text("  ")
        t.append(f"{c.change_type.value:<16} ", style="cyan")
        t.append(c.entity, style="bold")
        t.append(f"  {c.file}:{_lines(c.line_range)}", style="dim")
        out.append(t)
        if c.before_sig and c.after_sig and c.before_sig != c.after_sig:
            long = len(c.before_sig) + len(c.after_sig) > _SIG_PAIR and c.what
            out.append(Text(f"      {c.what}" if long else
                            f"      {c.before_sig}  →  {c.after_sig}", style="dim"))
    if len(answer.changes) > len(shown):
        out.append(_more(len(answer.changes) - len(shown), "changes"))
    return out


def _with_causes(answer: Answer, cut: Cut, key: str) -> int:
    """How many of bucket ``key``'s shown entries print their causes: the first
    ``cut["causes"]`` of the shown MUST then MAY entries (never LOW-RISK's)."""
    causes = cut.get("causes", 0)
    if key == "must_inspect":
        return causes
    if key == "may_impact":
        return max(0, causes - min(cut["must_inspect"], len(answer.must_inspect)))
    return 0


def _bucket(answer: Answer, cut: Cut, key: str, name: str, style: str, hint: str
            ) -> list[Text]:
    entries: tuple[TriageEntry, ...] = getattr(answer, key)
    if not entries and key == "low_risk":
        return []
    out = [Text(""), _head(name, len(entries), hint, style)]
    if not entries:
        out.append(Text("  (none)", style="dim"))
        return out
    shown = entries[: cut[key]]
    why = _with_causes(answer, cut, key)
    for i, e in enumerate(shown):
        t = Text("  ")
        t.append(e.entity, style="bold")
        t.append(f"  {e.file} · conf {e.conf:.2f}{_named_by(e)}", style="dim")
        out.append(t)
        if i < why:  # the rest print one line each (their causes are in the JSON)
            out += [Text(f"      ↳ {c}") for c in split_causes(e.reason)]
    if len(entries) > len(shown):
        out.append(_more(len(entries) - len(shown), "entries"))
    return out


def _tests(answer: Answer, cut: Cut) -> list[Text]:
    n = len(answer.tests)
    hint = "impactlens tests lists them, --run runs them" if n else ""
    out = [Text(""), _head("Tests to run", n, hint)]
    if not n:
        out.append(Text("  (no test reaches the changed code)", style="dim"))
    shown = answer.test_files[: cut["test_files"]]
    for g in shown:
        out.append(Text(f"  {g.file} — {g.count} test{'s' if g.count != 1 else ''}"))
    if len(answer.test_files) > len(shown):
        rest = answer.test_files[len(shown):]
        out.append(Text(f"  + {len(rest)} more files ({sum(g.count for g in rest)} tests)",
                        style="dim"))
    if answer.result.tests_note:
        out.append(Text(f"  {answer.result.tests_note}", style="dim"))
    return out


def _dynamic(answer: Answer, cut: Cut) -> list[Text]:
    if not answer.unanalyzable:
        return []
    out = [Text(""), _head("Dynamic sites", len(answer.unanalyzable),
                           "static analysis cannot follow these; check them by hand",
                           "magenta")]
    shown = answer.unanalyzable[: cut["unanalyzable"]]
    for u in shown:
        t = Text(f"  {u.file}:{u.line}  ")
        t.append(unresolved_words(u.reason), style="magenta")
        t.append(f"  {u.text}")
        if u.affects:
            t.append(f"  → may reach {u.affects}", style="dim")
        out.append(t)
    if len(answer.unanalyzable) > len(shown):
        out.append(_more(len(answer.unanalyzable) - len(shown), "sites"))
    return out


def _batches(answer: Answer, cut: Cut) -> list[Text]:
    if not answer.must_inspect:
        return [Text(""), Text("Nothing else must change: no edits to order.", style="dim")]
    out = [Text(""), _head("Edit together, in this order", len(answer.batches),
                           "each batch is one change unit, the changed code first")]
    shown = answer.batches[: cut["batches"]]
    for b in shown:
        flag = " (split)" if b.split else ""
        names = " → ".join(short_name(m) for m in b.members)  # full ids are listed above
        out.append(Text(f"  {b.batch_id + 1}. {names}{flag}"))
    if len(answer.batches) > len(shown):
        out.append(_more(len(answer.batches) - len(shown), "batches"))
    return out


def _cochange(answer: Answer, cut: Cut) -> list[Text]:
    note = answer.result.co_change_note
    if not answer.co_change:  # the note alone (how much history there was) is in the JSON
        return []
    out = [Text(""), _head("Changed together before", len(answer.co_change),
                           "git history; soft evidence")]
    if note:
        out.append(Text(f"  {note}", style="dim"))
    shown = answer.co_change[: cut["co_change"]]
    for f, g, s in shown:
        out.append(Text(f"  {g} ({s:.2f}) with {f}"))
    if len(answer.co_change) > len(shown):
        out.append(_more(len(answer.co_change) - len(shown), "partners"))
    return out


def _cut_width(lines: list[Text], width: int) -> list[Text]:
    out = []
    for line in lines:
        t = line.copy()
        if t.cell_len > width:
            t.truncate(width, overflow="ellipsis")
        out.append(t)
    return out


def terminal_cut(answer: Answer, settings: Settings = DEFAULT, *, label: str = "",
                 other_files: Iterable[str] = (), out_dir: Path | None = None) -> Cut:
    """How much of each section the default terminal report shows."""
    return fit(answer, lambda c: len(terminal_lines(answer, c, label=label,
                                                    other_files=other_files,
                                                    out_dir=out_dir)),
               settings.terminal_lines)


def print_terminal(answer: Answer, console: Console, *, settings: Settings = DEFAULT,
                   show_all: bool = False, label: str = "", other_files: Iterable[str] = (),
                   out_dir: Path | None = None) -> None:
    """Print the report within ``settings.terminal_lines`` lines of the console's width
    (``settings.piped_width`` when not a terminal); ``show_all`` prints everything, uncut."""
    kw = {"label": label, "other_files": other_files, "out_dir": out_dir}
    if show_all:
        for line in terminal_lines(answer, full_cut(answer), **kw):  # type: ignore[arg-type]
            console.print(line, soft_wrap=True)
        return
    cut = terminal_cut(answer, settings, **kw)  # type: ignore[arg-type]
    width = console.width if console.is_terminal else settings.piped_width
    for line in _cut_width(terminal_lines(answer, cut, **kw), width):  # type: ignore[arg-type]
        console.print(line, soft_wrap=True, crop=False)


# --------------------------------------------------------------- markdown
def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    t = text.replace("\n", " ")
    return f"`{t}`" if "`" not in t else f"``{t}``"


def _md_more(n: int, what: str) -> str:
    return f"_+{n} more {what} — `{MORE_HINT}`._"


def markdown(answer: Answer, cut: Cut, *, label: str = "",
             other_files: Iterable[str] = ()) -> str:
    """A pull-request comment showing ``cut`` of each section."""
    out = [f"### impactlens: {_md(label)}" if label else "### impactlens", ""]
    if not answer.changes:
        out.append("No Python definitions changed — nothing to analyze.")
        out += [f"- {t}" for t in left_out_lines(answer)]
        return "\n".join(out) + "\n"
    out += [f"**{_md(answer.risk)}**", "", "| change | entity | where |", "|---|---|---|"]
    for c in answer.changes[: cut["changes"]]:
        out.append(f"| {c.change_type.value} | {_code(c.entity)} | "
                   f"{_code(f'{c.file}:{_lines(c.line_range)}')} |")
    if len(answer.changes) > cut["changes"]:
        out += ["", _md_more(len(answer.changes) - cut["changes"], "changes")]
    for key, name, _style, hint in _BUCKETS[:2]:
        out += _md_bucket(answer, cut, key, name, hint)
    if answer.low_risk:
        out += ["", f"_{len(answer.low_risk)} low-risk entries (weak evidence) are in the "
                    "JSON report._"]
    out += _md_tests(answer, cut)
    if answer.unanalyzable:
        out += ["", f"#### Dynamic sites ({len(answer.unanalyzable)})", "",
                "Static analysis cannot follow these; check them by hand:", ""]
        for u in answer.unanalyzable[: cut["unanalyzable"]]:
            why = unresolved_words(u.reason)
            out.append(f"- {_code(f'{u.file}:{u.line}')} {why}: {_code(u.text)}"
                       + (f" → may reach {_code(u.affects)}" if u.affects else ""))
        if len(answer.unanalyzable) > cut["unanalyzable"]:
            out += ["", _md_more(len(answer.unanalyzable) - cut["unanalyzable"], "sites")]
    if answer.batches:
        out += ["", "#### Edit together, in this order", ""]
        for b in answer.batches[: cut["batches"]]:
            out.append(f"{b.batch_id + 1}. " + " → ".join(_code(m) for m in b.members)
                       + (" _(split)_" if b.split else ""))
        if len(answer.batches) > cut["batches"]:
            out += ["", _md_more(len(answer.batches) - cut["batches"], "batches")]
    skipped = sorted(other_files)
    if skipped:
        out += ["", "_Not analyzed (not Python): " + ", ".join(_code(s) for s in skipped)
                + "._"]
    left_out = left_out_lines(answer)
    if left_out:
        out += ["", *(f"- {t}" for t in left_out)]
    return "\n".join(out) + "\n"


def _md_bucket(answer: Answer, cut: Cut, key: str, name: str, hint: str) -> list[str]:
    entries: tuple[TriageEntry, ...] = getattr(answer, key)
    out = ["", f"#### {name} ({len(entries)}) — {hint}", ""]
    if not entries:
        return [*out, "_none_"]
    out += ["| entity | file | conf | cause |", "|---|---|---:|---|"]
    why = _with_causes(answer, cut, key)
    for i, e in enumerate(entries[: cut[key]]):
        cause = "<br>".join(_md(c) for c in split_causes(e.reason)) if i < why else ""
        out.append(f"| {_code(e.entity)} | {_code(e.file)} | {e.conf:.2f} | {cause} |")
    if len(entries) > cut[key]:
        out += ["", _md_more(len(entries) - cut[key], "entries")]
    return out


def _md_tests(answer: Answer, cut: Cut) -> list[str]:
    n = len(answer.tests)
    out = ["", f"#### Tests to run ({n})", ""]
    if not n:
        return [*out, "_No test reaches the changed code._"]
    for g in answer.test_files[: cut["test_files"]]:
        out.append(f"- {_code(g.file)} — {g.count} test{'s' if g.count != 1 else ''}")
    rest = answer.test_files[cut["test_files"]:]
    if rest:
        out.append(f"- _+{len(rest)} more files ({sum(g.count for g in rest)} tests)_")
    out += ["", "`impactlens tests` lists every id; `impactlens tests --run` runs them."]
    return out


def render_markdown(answer: Answer, *, settings: Settings = DEFAULT, show_all: bool = False,
                    label: str = "", other_files: Iterable[str] = ()) -> str:
    """The comment within ``settings.markdown_chars`` characters (uncut with ``show_all``)."""
    if show_all:
        return markdown(answer, full_cut(answer), label=label, other_files=other_files)
    cut = markdown_cut(answer, settings, label=label, other_files=other_files)
    return markdown(answer, cut, label=label, other_files=other_files)


def markdown_cut(answer: Answer, settings: Settings = DEFAULT, *, label: str = "",
                 other_files: Iterable[str] = ()) -> Cut:
    """How much of each section the default comment shows."""
    return fit(answer, lambda c: len(markdown(answer, c, label=label, other_files=other_files)),
               settings.markdown_chars)


def brief(answer: Answer, cut: Cut, limit: int = 5) -> str:
    """A few lines for an agent's eyes: the risk, then what must change first."""
    lines = [answer.risk, *left_out_lines(answer)]
    for key, name, _s, _h in _BUCKETS[:2]:
        entries: tuple[TriageEntry, ...] = getattr(answer, key)
        for e in entries[: min(limit, cut[key])]:
            lines.append(f"{name}: {e.entity} ({e.file}) — {split_causes(e.reason)[0]}"
                         if e.reason else f"{name}: {e.entity} ({e.file})")
    lines.append("The structured result has every section; `omitted` counts what was left "
                 "out (ask again with detail=true).")
    return "\n".join(lines)
