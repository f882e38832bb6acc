"""The self-contained HTML report: content, determinism, and a headless-Chromium render."""

from __future__ import annotations

import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from impactlens.api import Project
from impactlens.serve.html_report import render_html

from .conftest import PRICING_AFTER

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img" / "impact-report.png"


@pytest.fixture
def impact(shop: Path) -> dict[str, Any]:
    """impact.json of a real signature change in the shop repository."""
    (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)
    with Project(shop) as project:
        return project.analyze().impact_json()


class _Refs(HTMLParser):
    """Every URL-bearing attribute in the page."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, v in attrs:
            if k in ("src", "href", "action", "poster", "data", "srcset") and v is not None:
                self.refs.append((tag, k, v))
            if k == "id" and v:
                self.ids.add(v)


def test_page_holds_every_part_of_the_result(impact: dict[str, Any]) -> None:
    page = render_html(impact, label="working tree vs HEAD")
    assert page == render_html(impact, label="working tree vs HEAD")  # deterministic
    assert page.startswith("<!doctype html>")
    assert """content="default-src 'none';""" in page
    parser = _Refs()
    parser.feed(page)
    assert parser.refs == [("link", "href", "data:,")]  # no external resource at all
    assert {"summary", "change", "graph", "cy", "details", "triage", "bucket-must",
            "bucket-may", "bucket-low", "batches", "tests", "unanalyzable", "cochange",
            "rendered-nodes", "impact-data"} <= parser.ids
    assert "working tree vs HEAD" in page
    for e in impact["triage"]["must_inspect"]:
        assert e["entity"] in page and html.escape(e["reason"]) in page
    for t in impact["obligations"]["validate"]:
        assert t in page
    assert "def price(amount, rate, currency):" in page
    # the embedded data is exactly what the graph draws from
    m = re.search(r'<script type="application/json" id="impact-data">(.*?)</script>', page, re.S)
    assert m is not None
    data = json.loads(m.group(1))
    assert data["dag"] == impact["dag"] and data["triage"] == impact["triage"]
    # the vendored libraries are inlined, with their licences shipped alongside
    assert "cytoscape" in page and "cytoscapeDagre" in page
    assets = Path(__file__).resolve().parents[2] / "src/impactlens/assets"
    for lic in ("cytoscape.LICENSE", "cytoscape-dagre.LICENSE", "dagre.LICENSE",
                "graphlib.LICENSE"):
        assert "MIT" in (assets / lic).read_text() or "Permission" in (assets / lic).read_text()


def test_hostile_text_is_escaped() -> None:
    evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    impact = {
        "seed": {"change_type": "method-body", "entity": "m.f", "file": "m.py",
                 "line_range": [1, 2]},
        "changes": [{"change_type": "method-body", "entity": "m.f", "file": "m.py",
                     "line_range": [1, 2], "before_sig": evil, "after_sig": evil}],
        "obligations": {"change": [], "validate": [evil]},
        "dag": {"nodes": [{"entity": "m.g", "kind": "function", "file": "m.py", "line": 4,
                           "signature": evil, "batch_id": 0}],
                "edges": [{"from": "m.f", "to": "m.g", "cause": evil}]},
        "triage": {"must_inspect": [{"entity": "m.g", "file": "m.py", "conf": 0.9,
                                     "reason": evil}], "may_impact": [], "low_risk": []},
        "batches": [{"batch_id": 0, "members": ["m.f", "m.g"], "size": 2}],
        "unanalyzable": [{"file": "m.py", "line": 3, "scope": "m.f", "reason": "eval",
                          "text": evil, "affects": "m.f"}],
        "co_change": {"note": evil, "candidates": {}},
    }
    page = render_html(impact, label=evil)
    assert "<img src=x" not in page
    assert page.count("<script") == 4  # impact data + the two libraries + the report code
    parser = _Refs()
    parser.feed(page)
    assert parser.refs == [("link", "href", "data:,")]


def test_an_empty_change_renders() -> None:
    page = render_html({"seed": None, "changes": [], "obligations": {"change": [],
                        "validate": []}, "dag": {"nodes": [], "edges": []},
                        "triage": {"must_inspect": [], "may_impact": [], "low_risk": []},
                        "batches": []})
    assert "No Python definitions changed" in page
    assert "No test reaches the changed code." in page


# ------------------------------------------------------------------ browser
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture
def loopback_page() -> Iterator[tuple[list[str], Any]]:
    """A loopback HTTP server serving one page; yields (requested paths, set_page)."""
    requests: list[str] = []
    page: dict[str, bytes] = {"body": b""}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            if self.path.split("#")[0] != "/report.html":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page["body"])))
            self.end_headers()
            self.wfile.write(page["body"])

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def set_page(html: str) -> str:
        page["body"] = html.encode("utf-8")
        return f"http://127.0.0.1:{server.server_address[1]}/report.html"

    try:
        yield requests, set_page
    finally:
        server.shutdown()
        server.server_close()


def _run_chromium(exe: str, tmp: Path, *args: str) -> str:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={tmp}",
             "--virtual-time-budget=5000"]
    proc = subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_graph_renders_in_headless_chromium_without_network(
        impact: dict[str, Any], loopback_page: tuple[list[str], Any], tmp_path: Path) -> None:
    exe = _chromium()
    if exe is None:
        pytest.skip("headless Chromium not installed (apt-get install chromium)")
    requests, set_page = loopback_page
    url = set_page(render_html(impact, label="working tree vs HEAD"))
    clicked = "shop.orders.Order.total"
    dom = _run_chromium(exe, tmp_path / "profile", "--dump-dom", f"{url}#node={clicked}")

    body = re.search(r"<body[^>]*>", dom)
    assert body is not None and 'data-graph="ok"' in body.group(0), dom[:500]
    assert "data-csp-violations" not in body.group(0)  # nothing was blocked
    m = re.search(r'<pre id="rendered-nodes"[^>]*>(.*?)</pre>', dom, re.S)
    assert m is not None
    drawn = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert drawn["layout"] == "dagre"
    ids = {n["id"] for n in drawn["nodes"]}
    seed = impact["seed"]["entity"]
    assert ids == {n["entity"] for n in impact["dag"]["nodes"]} | {seed} | {
        x for e in impact["dag"]["edges"] for x in (e["from"], e["to"])}
    assert clicked in ids
    assert drawn["causes"] == len(impact["dag"]["edges"])
    assert drawn["edges"] == len({(e["from"], e["to"]) for e in impact["dag"]["edges"]})
    pos = {n["id"]: n for n in drawn["nodes"]}
    assert pos[seed]["bucket"] == "seed"
    assert pos[clicked]["bucket"] == "must"
    assert all(pos[seed]["y"] < n["y"] for i, n in pos.items() if i != seed)  # seed on top
    # the node's details panel: signature and location
    panel = re.search(r'<aside id="details" data-selected="([^"]+)">(.*?)</aside>', dom, re.S)
    assert panel is not None and panel.group(1) == clicked
    assert "def total(self):" in panel.group(2) and "src/shop/orders.py:8" in panel.group(2)
    assert requests == ["/report.html"]  # the page itself, nothing else

    shot = tmp_path / "impact-report.png"
    _run_chromium(exe, tmp_path / "profile2", "--window-size=1280,900",
                  f"--screenshot={shot}", f"{url}#node={clicked}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert all(r == "/report.html" for r in requests)
    if os.environ.get("IMPACTLENS_UPDATE_SCREENSHOT") == "1":
        DOCS_IMG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG)


def test_analyze_html_option_writes_the_page(shop: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from impactlens.cli import main

    (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)
    out = tmp_path / "report" / "impact.html"
    res = CliRunner().invoke(main, ["analyze", "--repo", str(shop), "--format", "json",
                                    "--html", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert "shop.pricing.price" in page and "working tree" in page
    assert json.loads(res.stdout)["seed"]["entity"] == "shop.pricing.price"
    bad = CliRunner().invoke(main, ["analyze", "--repo", str(shop), "--format", "json",
                                    "--html", str(shop / "src/shop/pricing.py/x.html")])
    assert bad.exit_code == 2 and "cannot write the HTML report" in bad.output
