"""The self-contained HTML report: built from the answer, cut to its budget, and drawn
readably in headless Chromium (the graph: the code a reader may edit or read, one node
per test file)."""

from __future__ import annotations

import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from answer.hub import HELPER_EDITED, TEST_FILES, TESTS_PER_FILE, hub_files

from impactlens.answer import Answer, build_answer
from impactlens.answer.fit import omitted
from impactlens.api import Project
from impactlens.model import (
    AtomicChange,
    Batch,
    Bucket,
    ChangeType,
    DagEdge,
    DagNode,
    ImpactDag,
    ImpactResult,
    Triage,
    TriageEntry,
    UnanalyzableHit,
)
from impactlens.serve.html_graph import graph_data
from impactlens.serve.html_report import html_cut, render_html
from impactlens.settings import DEFAULT

from .conftest import PRICING_AFTER

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img" / "impact-report.png"
HUB_CALLERS = ("app.core.App.__init__", "app.cli.banner")  # what calls the edited helper


@pytest.fixture
def answer(shop: Path) -> Answer:
    """The answer of a real signature change in the shop repository."""
    (shop / "src/shop/pricing.py").write_text(PRICING_AFTER)
    with Project(shop) as project:
        return build_answer(project.analyze())


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, init_repo: Callable[..., Path]) -> Answer:
    """The hub repository (tests/answer/hub.py): a helper's body edited; the application
    class calling it is built by 320 tests in 16 files."""
    root = init_repo(tmp_path_factory.mktemp("hub") / "hub", hub_files())
    (root / "app/config.py").write_text(HELPER_EDITED)
    with Project(root) as project:
        return build_answer(project.analyze())


def _graph_json(page: str) -> Any:
    m = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


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


def test_page_holds_every_part_of_the_answer(answer: Answer) -> None:
    page = render_html(answer, label="working tree vs HEAD")
    assert page == render_html(answer, label="working tree vs HEAD")  # deterministic
    assert page.startswith("<!doctype html>")
    assert """content="default-src 'none';""" in page
    parser = _Refs()
    parser.feed(page)
    assert parser.refs == [("link", "href", "data:,")]  # no external resource at all
    assert {"summary", "risk", "change", "graph", "cy", "details", "triage", "bucket-must",
            "bucket-may", "bucket-low", "batches", "tests", "rendered-nodes",
            "graph-data"} <= parser.ids
    assert "working tree vs HEAD" in page
    assert html.escape(answer.risk) in page
    assert answer.must_inspect
    for e in answer.must_inspect:
        assert e.entity in page and html.escape(e.reason.split(" | ")[0]) in page
    for g in answer.test_files:  # tests grouped by file, with their counts
        assert f'<td class="mono">{g.file}</td><td class="num">{g.count}</td>' in page
    assert "::" not in page.split('id="tests"')[1].split("</section>")[0]  # no test ids
    assert "def price(amount, rate, currency):" in page
    assert "Edit together, in this order" in page  # something must change
    assert _graph_json(page) == json.loads(json.dumps(graph_data(answer)))
    picked = render_html(answer, next_edit={"model": "m1", "next_edits": [
        {"entity": "shop.orders.Order.total", "reason": "pass the currency on"}]})
    assert "Next edits (model m1)" in picked and "pass the currency on" in picked
    assert "Next edits" not in page
    # the vendored libraries are inlined, with their licences shipped alongside
    assert "cytoscape" in page and "cytoscapeDagre" in page
    assets = Path(__file__).resolve().parents[2] / "src/impactlens/assets"
    for lic in ("cytoscape.LICENSE", "cytoscape-dagre.LICENSE", "dagre.LICENSE",
                "graphlib.LICENSE"):
        assert "MIT" in (assets / lic).read_text() or "Permission" in (assets / lic).read_text()


def test_the_page_lists_its_budget_and_counts_the_rest(hub: Answer) -> None:
    settings = DEFAULT.replace(html_items=20)
    cut = html_cut(hub, settings)
    left = omitted(hub, cut)
    page = render_html(hub, settings=settings)
    rows = re.findall(r"<tr><td", page)
    assert len(rows) <= 20 < len(hub.may_impact) + len(hub.test_files) + 1
    assert f"+{left['may_impact']} more entries" in page
    rest = hub.test_files[cut["test_files"]:]
    if rest:
        assert f"+{len(rest)} more files ({sum(g.count for g in rest)} tests)" in page
    assert "Nothing else must change: no edits to order." in page  # no batches
    whole = render_html(hub, settings=settings, show_all=True)
    assert "more entries" not in whole
    assert all(e.entity in whole for e in hub.may_impact)


def test_the_graph_draws_code_and_one_node_per_test_file(hub: Answer) -> None:
    graph = graph_data(hub)
    code = [n for n in graph["nodes"] if n["bucket"] != "test"]
    files = [n for n in graph["nodes"] if n["bucket"] == "test"]
    assert {n["id"] for n in code} == {hub.changes[0].entity} | {
        e.entity for e in hub.may_impact}
    assert [(n["label"], n["count"]) for n in files] == [
        (f"{g.file}\n({g.count} tests)", g.count) for g in hub.test_files]
    assert len(files) == TEST_FILES and sum(n["count"] for n in files) == 320
    by_id = {n["id"]: n for n in graph["nodes"]}
    assert by_id["app.core.App.__init__"]["label"] == "App.__init__"
    assert by_id[hub.changes[0].entity]["bucket"] == "seed"
    assert all(n["causes"] for n in code if n["bucket"] == "may")
    targets = {e["target"] for e in graph["edges"]}
    assert {n["id"] for n in graph["nodes"]} - targets == {hub.changes[0].entity}
    for e in graph["edges"]:  # every edge says why in words
        assert e["why"] and all(w and "→" not in w and "via" not in w for w in e["why"])
    assert graph["not_drawn"] == {"code": 0, "test_files": 0, "tests": 0}


def test_the_graph_is_capped_and_says_what_it_left_out(hub: Answer) -> None:
    settings = DEFAULT.replace(html_graph_nodes=5, html_graph_test_files=4)
    graph = graph_data(hub, settings)
    assert [n["bucket"] for n in graph["nodes"]].count("test") == 4
    assert len(graph["nodes"]) == 5 + 4
    assert set(HUB_CALLERS) <= {n["id"] for n in graph["nodes"]}  # the first ranked
    code_total = 1 + len(hub.may_impact)
    rest = TEST_FILES - 4
    assert graph["not_drawn"] == {"code": code_total - 5, "test_files": rest,
                                  "tests": rest * TESTS_PER_FILE}
    page = render_html(hub, settings=settings)
    assert (f"+{code_total - 5} more code not drawn; +{rest} more test files "
            f"({rest * TESTS_PER_FILE} tests) not drawn") in page
    drawn = {n["id"] for n in graph["nodes"]}
    assert all(e["source"] in drawn and e["target"] in drawn for e in graph["edges"])


def _hostile_answer(evil: str) -> Answer:
    change = AtomicChange(ChangeType.METHOD_BODY, "m.f", "m.py", (1, 2), evil, evil)
    entry = TriageEntry("m.g", "m.py", 0.9, evil, Bucket.MUST)
    dag = ImpactDag((DagNode("m.f", "function", "m.py", 1, evil, 0),
                     DagNode("m.g", "function", "m.py", 4, evil, 0)),
                    (DagEdge("m.f", "m.g", evil, evil),))
    result = ImpactResult((change,), (), (), Triage(must_inspect=(entry,)),
                          (Batch(0, ("m.f", "m.g")),), dag, (f"tests/t.py::{evil}",),
                          co_change=(("m.py", (("n.py", 0.5),)),), co_change_note=evil,
                          unanalyzable=(UnanalyzableHit("m.py", 3, "m.f", "eval", evil, "m.f"),))
    return build_answer(result)


def test_hostile_text_is_escaped() -> None:
    evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    page = render_html(_hostile_answer(evil), label=evil)
    assert "<img src=x" not in page
    assert page.count("<script") == 4  # graph data + the two libraries + the report code
    parser = _Refs()
    parser.feed(page)
    assert parser.refs == [("link", "href", "data:,")]


def test_an_empty_change_renders() -> None:
    page = render_html(build_answer(ImpactResult((), (), (), Triage(), (), ImpactDag((), ()),
                                                 ())))
    assert "No Python definitions changed" in page
    assert "No test reaches the changed code." in page
    assert _graph_json(page) == {"edges": [], "nodes": []}


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


def _drawn(dom: str) -> dict[str, Any]:
    """What the page's script reports it drew (after the layout ran)."""
    body = re.search(r"<body[^>]*>", dom)
    assert body is not None and 'data-graph="ok"' in body.group(0), dom[:500]
    assert "data-csp-violations" not in body.group(0)  # nothing was blocked
    m = re.search(r'<pre id="rendered-nodes"[^>]*>(.*?)</pre>', dom, re.S)
    assert m is not None
    return json.loads(html.unescape(m.group(1)))  # type: ignore[no-any-return]


def _browser() -> str:
    exe = _chromium()
    if exe is None:
        pytest.skip("headless Chromium not installed (apt-get install chromium)")
    return exe


def test_graph_renders_in_headless_chromium_without_network(
        answer: Answer, loopback_page: tuple[list[str], Any], tmp_path: Path) -> None:
    exe = _browser()
    requests, set_page = loopback_page
    url = set_page(render_html(answer, label="working tree vs HEAD"))
    clicked = "shop.orders.Order.total"
    drawn = _drawn(_run_chromium(exe, tmp_path / "profile", "--dump-dom",
                                 f"{url}#node={clicked}"))
    assert drawn["layout"] == "dagre"
    graph = graph_data(answer)
    assert {n["id"] for n in drawn["nodes"]} == {n["id"] for n in graph["nodes"]}
    assert drawn["edges"] == len(graph["edges"])
    pos = {n["id"]: n for n in drawn["nodes"]}
    seed = answer.changes[0].entity
    assert pos[seed]["bucket"] == "seed" and pos[clicked]["bucket"] == "must"
    assert all(pos[seed]["y"] < n["y"] for i, n in pos.items() if i != seed)  # seed on top
    dom = _run_chromium(exe, tmp_path / "profile1", "--dump-dom", f"{url}#node={clicked}")
    panel = re.search(r'<aside id="details" data-selected="([^"]+)">(.*?)</aside>', dom, re.S)
    assert panel is not None and panel.group(1) == clicked  # full id, signature, location
    assert "def total(self):" in panel.group(2) and "src/shop/orders.py:8" in panel.group(2)
    assert "calls pricing.price" in panel.group(2)  # the cause in words
    assert requests == ["/report.html"] * 2  # the page itself, nothing else

    shot = tmp_path / "impact-report.png"
    _run_chromium(exe, tmp_path / "profile2", "--window-size=1280,900",
                  f"--screenshot={shot}", f"{url}#node={clicked}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert all(r == "/report.html" for r in requests)
    if os.environ.get("IMPACTLENS_UPDATE_SCREENSHOT") == "1":
        DOCS_IMG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG)


def test_a_hub_is_drawn_layered_and_legible(hub: Answer, tmp_path: Path) -> None:
    """320 tests reach the edited helper: the graph draws its 19 code nodes and one node
    per test file, the helper above its callers, every label inside its node, at a zoom
    that keeps the labels readable; the page is read from a file, with no network."""
    exe = _browser()
    page = tmp_path / "hub.html"
    page.write_text(render_html(hub, label="working tree vs HEAD"), encoding="utf-8")
    drawn = _drawn(_run_chromium(exe, tmp_path / "profile", "--dump-dom", page.as_uri()))
    code = 1 + len(hub.may_impact)
    assert len(drawn["nodes"]) == code + TEST_FILES
    pos = {n["id"]: n for n in drawn["nodes"]}
    seed = pos[hub.changes[0].entity]
    assert seed["bucket"] == "seed"
    assert all(seed["y"] < pos[c]["y"] for c in HUB_CALLERS)  # layered: the change on top
    tests = [n for n in drawn["nodes"] if n["bucket"] == "test"]
    assert min(t["y"] for t in tests) > max(n["y"] for n in drawn["nodes"]
                                            if n["bucket"] != "test")  # tests below the code
    assert all(n["label_w"] <= n["w"] for n in drawn["nodes"]), drawn["nodes"]
    assert drawn["zoom"] >= 0.75  # fit to view, the 13px labels stay about 10px or more
    shot = tmp_path / "hub.png"
    _run_chromium(exe, tmp_path / "profile2", "--window-size=1280,1100",
                  f"--screenshot={shot}", page.as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("IMPACTLENS_KEEP_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["IMPACTLENS_KEEP_SCREENSHOT"])


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
    assert 'id="risk">risk: high' in page and 'id="graph-data"' in page  # from the answer
    assert json.loads(res.stdout)["seed"]["entity"] == "shop.pricing.price"
    bad = CliRunner().invoke(main, ["analyze", "--repo", str(shop), "--format", "json",
                                    "--html", str(shop / "src/shop/pricing.py/x.html")])
    assert bad.exit_code == 2 and "cannot write the HTML report" in bad.output
