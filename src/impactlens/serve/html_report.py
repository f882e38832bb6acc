"""A self-contained HTML page for one answer (``impactlens analyze --html FILE``).

:func:`render_html` takes the ranked :class:`~impactlens.answer.Answer` and returns one
page built as the terminal and markdown reports are: the risk line first, the changes,
the MUST-INSPECT / MAY-IMPACT / LOW-RISK code with its causes in words, the tests to run
grouped by file, the dynamic sites, the edit order (only when something must change) and
the co-change partners, each section cut to ``settings.html_items`` entries in all by
the answer's own fit, a cut list ending in a ``+N more`` line. Above them the graph
(cytoscape.js with the dagre layout, both inlined from ``impactlens/assets``) draws the
code a reader may edit or read and one node per test file (:mod:`.html_graph`).

Nothing is fetched when the page is viewed: every script and style is inline, and a
Content-Security-Policy of ``default-src 'none'`` forbids any request. Everything but
the graph also reads without JavaScript. The output is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from impactlens.answer.build import Answer
from impactlens.answer.fit import Cut, fit, full_cut
from impactlens.answer.text import MORE_HINT, split_causes
from impactlens.fileio import atomic_write
from impactlens.model import TriageEntry, unresolved_words
from impactlens.serve.html_graph import graph_data
from impactlens.settings import DEFAULT, Settings

__all__ = ["html_cut", "render_html", "write_html"]

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")

_BUCKETS = (
    ("must_inspect", "MUST-INSPECT", "must", "breaks unless updated"),
    ("may_impact", "MAY-IMPACT", "may", "reachable; check"),
    ("low_risk", "LOW-RISK", "low", "weak evidence: walked to, or far behind the best"),
)
_LEGEND = (("seed", "changed"), ("must", "must change"), ("may", "may be affected"),
           ("low", "low risk"), ("other", "connects them"), ("test", "test file"))
# the sections the page lists, counted together against settings.html_items
_LISTED = ("changes", "must_inspect", "may_impact", "low_risk", "test_files",
           "unanalyzable", "batches", "co_change")


@cache
def _asset(name: str) -> str:
    return (resources.files("impactlens") / "assets" / name).read_text(encoding="utf-8")


def _script_json(obj: Any) -> str:
    """JSON safe to embed in a <script> element."""
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _inline_script(code: str) -> str:
    return "<script>" + code.replace("</script", "<\\/script") + "</script>"


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _lines(rng: Sequence[int]) -> str:
    a, b = rng[0], rng[-1]
    return str(a) if a == b else f"{a}–{b}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def html_cut(answer: Answer, settings: Settings = DEFAULT, *, show_all: bool = False) -> Cut:
    """How many entries of each section the page lists: ``settings.html_items`` in all."""
    if show_all:
        return full_cut(answer)
    return fit(answer, lambda c: sum(c[k] for k in _LISTED), settings.html_items)


def _table(headers: Iterable[str], rows: list[list[str]], empty: str) -> str:
    if not rows:
        return f'<p class="empty">{_e(empty)}</p>'
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _more(n: int, what: str) -> str:
    """The line a cut list ends in: how much is not listed and how to see it."""
    if n <= 0:
        return ""
    return (f'<p class="more">+{n} more {_e(what)} — <code>{_e(MORE_HINT)}</code>; '
            "<code>--all --html FILE</code> lists every entry here</p>")


def _header(answer: Answer, label: str) -> str:
    s = answer.counts()
    chips = [("", "changes", s["changes"]), ("must", "must change", s["must_inspect"]),
             ("may", "may be affected", s["may_impact"]), ("low", "low risk", s["low_risk"]),
             ("", "tests to run", s["tests"]), ("", "dynamic sites", s["unanalyzable"])]
    chip_html = "".join(f'<span class="chip {c}"><b>{n}</b> {_e(t)}</span>'
                        for c, t, n in chips)
    lab = f'<p class="label">{_e(label)}</p>' if label else ""
    risk = f'<p class="risk" id="risk">{_e(answer.risk)}</p>' if answer.changes else ""
    return (f"<header><h1>impactlens impact report</h1>{lab}{risk}"
            f'<div class="chips" id="summary">{chip_html}</div></header>')


def _next_edit(decision: Mapping[str, Any] | None) -> str:
    if not decision:
        return ""
    if decision.get("next_edit") == "failed":
        body = (f'<p class="note">The model gave no usable answer ({_e(decision.get("why"))});'
                " the edit order below stands.</p>")
    else:
        items = "".join(f'<li><span class="mono">{_e(x.get("entity"))}</span> — '
                        f'{_e(x.get("reason"))}</li>' for x in decision.get("next_edits") or [])
        body = f"<ol>{items}</ol>"
    return (f'<section id="next-edit"><h2>Next edits (model {_e(decision.get("model"))})</h2>'
            f"{body}</section>")


def _changes(answer: Answer, cut: Cut, other_files: Sequence[str]) -> str:
    rows = []
    for c in answer.changes[: cut["changes"]]:
        sig = c.after_sig or c.before_sig
        if c.before_sig and c.after_sig and c.before_sig != c.after_sig:
            sig = f"{c.before_sig}  →  {c.after_sig}"
        rows.append([f"<td>{_e(c.change_type.value)}</td>",
                     f'<td class="mono">{_e(c.entity)}</td>',
                     f'<td class="mono">{_e(c.file)}:{_lines(c.line_range)}</td>',
                     f'<td class="mono">{_e(sig)}</td>'])
    html = _table(("change", "entity", "where", "signature"), rows,
                  "No Python definitions changed: nothing to analyze.")
    html += _more(len(answer.changes) - cut["changes"], "changes")
    if other_files:
        html += (f'<p class="note">Also touched, not analyzed (not Python): '
                 f'{_e(", ".join(other_files))}</p>')
    return f'<section id="change"><h2>Changes ({len(answer.changes)})</h2>{html}</section>'


def _graph(graph: Mapping[str, Any]) -> str:
    nodes = graph["nodes"]
    code = sum(1 for n in nodes if n["bucket"] != "test")
    left = graph["not_drawn"]
    parts = []
    if left["code"]:
        parts.append(f"+{left['code']} more code not drawn")
    if left["test_files"]:
        parts.append(f"+{left['test_files']} more test files ({_plural(left['tests'], 'test')})"
                     " not drawn")
    more = f'<p class="more" id="not-drawn">{_e("; ".join(parts))} — every entry is listed ' \
        "below.</p>" if parts else ""
    legend = "".join(f'<span class="{b}">{_e(t)}</span>' for b, t in _LEGEND)
    return (
        '<section id="graph"><h2>What the change reaches</h2>'
        f'<p class="note">{_plural(code, "code node")} and '
        f'{_plural(len(nodes) - code, "test file")}; the change is on top, what depends on '
        "it below. Click a node for its full name, location and causes; point at an edge "
        "for why it is there.</p>"
        '<div id="graph-wrap"><div id="cy" role="img" aria-label="impact graph">'
        '<noscript><p class="noscript">The graph needs JavaScript; the lists below hold the '
        "same information.</p></noscript></div>"
        '<aside id="details"><p class="empty">Click a node or an edge.</p></aside></div>'
        f'<div class="legend">{legend}</div>{more}<div id="tip" hidden></div></section>')


def _causes(e: TriageEntry) -> str:
    items = "".join(f"<li>{_e(c)}</li>" for c in split_causes(e.reason))
    return f'<ul class="causes">{items}</ul>' if items else ""


def _bucket(answer: Answer, cut: Cut, key: str, title: str, cls: str, hint: str) -> str:
    entries: tuple[TriageEntry, ...] = getattr(answer, key)
    rows = [[f'<td class="mono">{_e(x.entity)}</td>', f'<td class="mono">{_e(x.file)}</td>',
             f'<td class="num">{x.conf:.2f}</td>', f"<td>{_causes(x)}</td>"]
            for x in entries[: cut[key]]]
    return (f'<div class="bucket-{cls}" id="bucket-{cls}"><h3>{title} ({len(entries)}) '
            f'<span class="note">— {_e(hint)}</span></h3>'
            + _table(("entity", "file", "conf", "why"), rows, "none")
            + _more(len(entries) - cut[key], "entries") + "</div>")


def _triage(answer: Answer, cut: Cut) -> str:
    return ('<section id="triage"><h2>Code to edit or read</h2>'
            + "".join(_bucket(answer, cut, *b) for b in _BUCKETS) + "</section>")


def _tests(answer: Answer, cut: Cut) -> str:
    shown = answer.test_files[: cut["test_files"]]
    rows = [[f'<td class="mono">{_e(g.file)}</td>', f'<td class="num">{g.count}</td>']
            for g in shown]
    rest = answer.test_files[len(shown):]
    more = _more(len(rest), f"files ({_plural(sum(g.count for g in rest), 'test')})")
    note = (f'<p class="note">{_e(answer.result.tests_note)}</p>'
            if answer.result.tests_note else "")
    run = ('<p class="note"><code>impactlens tests</code> lists every id; '
           "<code>impactlens tests --run</code> runs them.</p>" if answer.tests else "")
    return (f'<section id="tests"><h2>Tests to run ({len(answer.tests)})</h2>'
            + _table(("test file", "tests"), rows, "No test reaches the changed code.")
            + more + note + run + "</section>")


def _unanalyzable(answer: Answer, cut: Cut) -> str:
    if not answer.unanalyzable:
        return ""
    rows = [[f'<td class="mono">{_e(u.file)}:{u.line}</td>',
             f"<td>{_e(unresolved_words(u.reason))}</td>", f'<td class="mono">{_e(u.text)}</td>',
             f'<td class="mono">{_e(u.affects)}</td>']
            for u in answer.unanalyzable[: cut["unanalyzable"]]]
    return (f'<section id="unanalyzable"><h2>Dynamic sites ({len(answer.unanalyzable)})</h2>'
            '<p class="note">Static analysis cannot follow these; check them by hand.</p>'
            + _table(("site", "why", "code", "may reach"), rows, "none")
            + _more(len(answer.unanalyzable) - cut["unanalyzable"], "sites") + "</section>")


def _batches(answer: Answer, cut: Cut) -> str:
    if not answer.must_inspect:
        return ('<section id="batches"><p class="empty">Nothing else must change: no edits to '
                "order.</p></section>")
    items = []
    for b in answer.batches[: cut["batches"]]:
        members = " → ".join(f'<span class="mono">{_e(m)}</span>' for m in b.members)
        items.append(f"<li>{members}{' (split)' if b.split else ''}</li>")
    return ('<section id="batches"><h2>Edit together, in this order</h2><p class="note">Each '
            "step is one change unit, the changed code first.</p>"
            f'<ol class="batches">{"".join(items)}</ol>'
            + _more(len(answer.batches) - cut["batches"], "batches") + "</section>")


def _cochange(answer: Answer, cut: Cut) -> str:
    if not answer.co_change:
        return ""
    rows = [[f'<td class="mono">{_e(g)}</td>', f'<td class="mono">{_e(f)}</td>',
             f'<td class="num">{s:.2f}</td>'] for f, g, s in answer.co_change[: cut["co_change"]]]
    note = answer.result.co_change_note
    return (f'<section id="cochange"><h2>Changed together before ({len(answer.co_change)})'
            '</h2><p class="note">Git history; soft evidence.'
            + (f" {_e(note)}" if note else "") + "</p>"
            + _table(("file", "often changed with", "score"), rows, "none")
            + _more(len(answer.co_change) - cut["co_change"], "partners") + "</section>")


def render_html(answer: Answer, *, settings: Settings = DEFAULT, show_all: bool = False,
                label: str = "", other_files: Sequence[str] = (),
                next_edit: Mapping[str, Any] | None = None, title: str | None = None) -> str:
    """The report page of ``answer`` as one HTML string, its lists cut to
    ``settings.html_items`` entries (uncut with ``show_all``).

    ``label`` names the change (e.g. ``working tree vs HEAD``); ``other_files`` lists
    touched files that were not analyzed; ``next_edit`` is the model's pick, if asked."""
    cut = html_cut(answer, settings, show_all=show_all)
    first = answer.changes[0].entity if answer.changes else ""
    page_title = title or ("impactlens — " + (first or label or "impact report"))
    graph = graph_data(answer, settings) if answer.changes else {"nodes": [], "edges": []}
    return "".join([
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="impactlens">',
        '<link rel="icon" href="data:,">',
        f"<title>{_e(page_title)}</title>",
        f"<style>{_asset('report.css')}</style></head>\n<body>",
        _header(answer, label),
        "<main>",
        _next_edit(next_edit),
        _changes(answer, cut, other_files),
        _graph(graph) if answer.changes else "",
        _triage(answer, cut) if answer.changes else "",
        _tests(answer, cut),
        _unanalyzable(answer, cut),
        _batches(answer, cut) if answer.changes else "",
        _cochange(answer, cut),
        "</main>\n",
        '<pre id="rendered-nodes" hidden></pre>\n',
        '<script type="application/json" id="graph-data">'
        f"{_script_json(graph)}</script>\n",
        "<!-- cytoscape.js 3.35.0 (MIT) and cytoscape-dagre 4.0.1 (MIT; bundles dagre and "
        "graphlib, MIT): see impactlens/assets -->\n",
        _inline_script(_asset("cytoscape.min.js")), "\n",
        _inline_script(_asset("cytoscape-dagre.min.js")), "\n",
        _inline_script(_asset("report.js")),
        "\n</body></html>\n",
    ])


def write_html(path: str | Path, answer: Answer, **kw: Any) -> Path:
    """Render ``answer`` (see :func:`render_html`) and write it to ``path`` atomically."""
    from impactlens.errors import BadInputError

    path = Path(path)
    text = render_html(answer, **kw)
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise BadInputError(f"{path}: cannot write the HTML report ({exc.strerror})") from None
    return path
