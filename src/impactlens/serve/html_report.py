"""A self-contained HTML page for one impact result (``impactlens analyze --html FILE``).

:func:`render_html` takes the ``impact.json`` object (``ImpactResult.impact_json()``)
and returns one page: the change summary, the three triage buckets with their causes,
the batches in order, the tests to run, the un-analyzable sites, and the impact DAG
drawn as a graph (cytoscape.js with the dagre layout, both inlined from
``impactlens/assets``; seed first, edges labelled by cause, nodes coloured by bucket;
click a node for its signature and location).

Nothing is fetched when the page is viewed: every script and style is inline, and a
Content-Security-Policy of ``default-src 'none'`` forbids any request. Everything but
the graph also reads without JavaScript. The output is deterministic.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["render_html", "write_html"]

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")

_BUCKETS = (
    ("must_inspect", "MUST-INSPECT", "must", "breaks unless updated"),
    ("may_impact", "MAY-IMPACT", "may", "reachable; check"),
    ("low_risk", "LOW-RISK", "low", "weak: walked to, or soft evidence far behind the best"),
)
_LEGEND = (("seed", "changed (seed)", "#0969da"), ("must", "must-inspect", "#cf222e"),
           ("may", "may-impact", "#bf8700"), ("low", "low-risk", "#8c959f"),
           ("test", "test", "#1a7f37"), ("other", "other", "#6e7781"))


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


def _conf(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else _e(value)


def _lines(rng: Sequence[int] | None) -> str:
    if not rng:
        return ""
    a, b = rng[0], rng[-1]
    return str(a) if a == b else f"{a}–{b}"


def _table(headers: Iterable[str], rows: list[list[str]], empty: str) -> str:
    if not rows:
        return f'<p class="empty">{_e(empty)}</p>'
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(rows_i) + "</tr>" for rows_i in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary(impact: Mapping[str, Any]) -> dict[str, int]:
    triage = impact.get("triage") or {}
    return {
        "changes": len(impact.get("changes") or []),
        "must_inspect": len(triage.get("must_inspect") or []),
        "may_impact": len(triage.get("may_impact") or []),
        "low_risk": len(triage.get("low_risk") or []),
        "batches": len(impact.get("batches") or []),
        "tests": len((impact.get("obligations") or {}).get("validate") or []),
        "unanalyzable": len(impact.get("unanalyzable") or []),
    }


def _header(impact: Mapping[str, Any], label: str | None) -> str:
    s = _summary(impact)
    chips = [
        ("", "changes", s["changes"]), ("must", "must-inspect", s["must_inspect"]),
        ("may", "may-impact", s["may_impact"]), ("low", "low-risk", s["low_risk"]),
        ("", "batches", s["batches"]), ("", "tests to run", s["tests"]),
        ("", "un-analyzable sites", s["unanalyzable"]),
    ]
    chip_html = "".join(f'<span class="chip {c}"><b>{n}</b> {_e(t)}</span>' for c, t, n in chips)
    lab = f'<p class="label">{_e(label)}</p>' if label else ""
    return (f'<header><h1>impactlens impact report</h1>{lab}'
            f'<div class="chips" id="summary">{chip_html}</div></header>')


def _changes(impact: Mapping[str, Any], other_files: Sequence[str]) -> str:
    changes = impact.get("changes") or []
    rows = []
    for c in changes:
        sig = c.get("after_sig") or c.get("before_sig") or ""
        if c.get("before_sig") and c.get("after_sig") and c["before_sig"] != c["after_sig"]:
            sig = f'{c["before_sig"]}  →  {c["after_sig"]}'
        rows.append([
            f'<td>{_e(c.get("change_type"))}</td>',
            f'<td class="mono">{_e(c.get("entity"))}</td>',
            f'<td class="mono">{_e(c.get("file"))}:{_lines(c.get("line_range"))}</td>',
            f'<td class="mono">{_e(sig)}</td>',
        ])
    html = _table(("change", "entity", "where", "signature"), rows,
                  "No Python definitions changed: nothing to analyze.")
    if other_files:
        html += (f'<p class="note">Also touched, not analyzed: '
                 f'{_e(", ".join(other_files))}</p>')
    return f'<section id="change"><h2>Change</h2>{html}</section>'


def _graph(impact: Mapping[str, Any]) -> str:
    dag = impact.get("dag") or {}
    n_nodes, n_edges = len(dag.get("nodes") or []), len(dag.get("edges") or [])
    trunc = ""
    if dag.get("truncated"):
        trunc = (f' — truncated ({_e(dag.get("omitted_nodes", 0))} nodes, '
                 f'{_e(dag.get("omitted_edges", 0))} edges omitted)')
    legend = "".join(f'<span style="--c:{c}">{_e(t)}</span>' for _, t, c in _LEGEND)
    return (
        '<section id="graph"><h2>Impact DAG</h2>'
        f'<p class="note">{n_nodes} nodes, {n_edges} cause-labelled edges{trunc}; the seed '
        'change is on top. Click a node for its signature and location, an edge for its '
        'cause.</p>'
        '<div id="graph-wrap"><div id="cy" role="img" aria-label="impact graph">'
        '<noscript><p class="noscript">The graph needs JavaScript; the tables below hold the '
        'same information.</p></noscript></div>'
        '<aside id="details"><p class="empty">Click a node or an edge.</p></aside></div>'
        f'<div class="legend">{legend}</div></section>'
    )


def _triage(impact: Mapping[str, Any]) -> str:
    triage = impact.get("triage") or {}
    parts = ['<section id="triage"><h2>Triage</h2>']
    for key, title, cls, what in _BUCKETS:
        entries = triage.get(key) or []
        rows = [[
            f'<td class="mono">{_e(x.get("entity"))}</td>',
            f'<td class="mono">{_e(x.get("file"))}</td>',
            f'<td class="num">{_conf(x.get("conf"))}</td>',
            f'<td>{_e(x.get("reason"))}</td>',
        ] for x in entries]
        parts.append(
            f'<div class="bucket-{cls}" id="bucket-{cls}"><h3>{title} ({len(entries)}) '
            f'<span class="note">— {_e(what)}</span></h3>'
            + _table(("entity", "file", "conf", "cause"), rows, "none") + "</div>")
    parts.append("</section>")
    return "".join(parts)


def _batches(impact: Mapping[str, Any]) -> str:
    batches = impact.get("batches") or []
    if not batches:
        body = '<p class="empty">No batches: nothing must or may change with the edit.</p>'
    else:
        items = []
        for b in batches:
            members = "".join(f'<li class="mono">{_e(m)}</li>' for m in b.get("members") or [])
            split = " (split)" if b.get("split") else ""
            items.append(f'<li>batch {_e(b.get("batch_id"))} — {len(b.get("members") or [])} '
                         f'member(s){split}<ol>{members}</ol></li>')
        omitted = impact.get("omitted_batches") or 0
        more = f'<p class="note">{_e(omitted)} more batch(es) omitted.</p>' if omitted else ""
        body = f'<ol class="batches">{"".join(items)}</ol>{more}'
    return (
        '<section id="batches"><h2>Batches, in order</h2><p class="note">Edit and validate '
        'each batch together, in this order; within a batch the seed comes first.</p>'
        f"{body}</section>")


def _tests(impact: Mapping[str, Any]) -> str:
    tests = (impact.get("obligations") or {}).get("validate") or []
    conf: dict[str, float] = {}
    for t in impact.get("test_map") or []:
        tid, c = t.get("test_id"), t.get("conf")
        if isinstance(c, int | float) and (tid not in conf or c > conf[tid]):
            conf[tid] = c
    rows = [[f'<td class="mono">{_e(t)}</td>',
             f'<td class="num">{_conf(conf[t]) if t in conf else ""}</td>'] for t in tests]
    cmd = ""
    if tests:
        cmd = ('<p class="note">Run them: <code>pytest --impact</code> or <code>pytest '
               + _e(" ".join(tests[:5])) + (" …" if len(tests) > 5 else "") + "</code></p>")
    return ('<section id="tests"><h2>Tests to run</h2>'
            + _table(("test", "conf"), rows, "No test reaches the changed code.")
            + cmd + "</section>")


def _unanalyzable(impact: Mapping[str, Any]) -> str:
    sites = impact.get("unanalyzable") or []
    rows = [[
        f'<td class="mono">{_e(u.get("file"))}:{_e(u.get("line"))}</td>',
        f'<td>{_e(u.get("reason"))}</td>',
        f'<td class="mono">{_e(u.get("text"))}</td>',
        f'<td class="mono">{_e(u.get("affects"))}</td>',
    ] for u in sites]
    return ('<section id="unanalyzable"><h2>Un-analyzable sites</h2><p class="note">Dynamic '
            'code static analysis cannot follow; it may reach the change. Unknown, not '
            'safe.</p>'
            + _table(("site", "why", "code", "may affect"), rows, "none") + "</section>")


def _cochange(impact: Mapping[str, Any]) -> str:
    co = impact.get("co_change") or {}
    rows = []
    for f, cands in sorted((co.get("candidates") or {}).items()):
        for c in cands:
            rows.append([f'<td class="mono">{_e(f)}</td>', f'<td class="mono">{_e(c.get("file"))}'
                         f'</td>', f'<td class="num">{_conf(c.get("co_change_score"))}</td>'])
    note = f'<p class="note">{_e(co.get("note"))}</p>' if co.get("note") else ""
    return ('<section id="cochange"><h2>Git co-change</h2>' + note
            + _table(("changed file", "often changed with", "score"), rows, "none")
            + "</section>")


def render_html(impact: Mapping[str, Any], *, label: str | None = None,
                other_files: Sequence[str] = (), title: str | None = None) -> str:
    """The report page for ``impact`` (the ``impact.json`` object) as one HTML string.

    ``label`` names the change (e.g. ``working tree vs HEAD``); ``other_files`` lists
    touched files that were not analyzed."""
    seed = impact.get("seed") or {}
    page_title = title or ("impactlens — " + (seed.get("entity") or label or "impact report"))
    data = {k: impact.get(k) for k in ("seed", "changes", "dag", "triage") if k in impact}
    return "".join([
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="impactlens">',
        '<link rel="icon" href="data:,">',
        f"<title>{_e(page_title)}</title>",
        f"<style>{_asset('report.css')}</style></head>\n<body>",
        _header(impact, label),
        "<main>",
        _changes(impact, other_files),
        _graph(impact),
        _triage(impact),
        _batches(impact),
        _tests(impact),
        _unanalyzable(impact),
        _cochange(impact),
        "</main>\n",
        '<pre id="rendered-nodes" hidden></pre>\n',
        f'<script type="application/json" id="impact-data">{_script_json(data)}</script>\n',
        "<!-- cytoscape.js 3.35.0 (MIT) and cytoscape-dagre 4.0.1 (MIT; bundles dagre and "
        "graphlib, MIT): see impactlens/assets -->\n",
        _inline_script(_asset("cytoscape.min.js")), "\n",
        _inline_script(_asset("cytoscape-dagre.min.js")), "\n",
        _inline_script(_asset("report.js")),
        "\n</body></html>\n",
    ])


def write_html(path: str | Path, impact: Mapping[str, Any], **kw: Any) -> Path:
    """Render ``impact`` (see :func:`render_html`) and write it to ``path`` atomically."""
    from impactlens.errors import BadInputError

    path = Path(path)
    text = render_html(impact, **kw)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8", newline="\n")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise BadInputError(f"{path}: cannot write the HTML report ({exc.strerror})") from None
    return path
