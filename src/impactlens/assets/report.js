/* impactlens HTML report: draws the answer's graph with cytoscape.js + dagre (both inlined).
 * Reads {nodes, edges} from #graph-data (chosen in impactlens/serve/html_graph.py): code
 * nodes with their bucket, one node per test file, edges carrying their causes in words
 * (`why`). The layout is layered (dagre, top to bottom, the change on top); a layer wider
 * than the view wraps onto more rows so the labels stay legible at fit. After layout it
 * writes the drawn nodes (id, bucket, x, y, w, label_w) as JSON into #rendered-nodes and
 * sets body[data-graph] = "ok" (or "error: ..."), so a headless browser can check what
 * was drawn. #node=<id> in the URL selects that node on load. */
(function () {
  "use strict";
  var out = document.getElementById("rendered-nodes");
  var violations = 0;
  document.addEventListener("securitypolicyviolation", function () {
    violations += 1;
    document.body.setAttribute("data-csp-violations", String(violations));
  });
  function fail(msg) {
    document.body.setAttribute("data-graph", "error: " + msg);
    var el = document.getElementById("cy");
    if (el) { el.textContent = "The graph could not be drawn: " + msg; }
  }
  window.addEventListener("error", function (ev) { fail(String(ev.message)); });

  var box = document.getElementById("cy");
  if (!box) { return; }  // no change, no graph
  var data;
  try {
    data = JSON.parse(document.getElementById("graph-data").textContent);
  } catch (e) { fail("bad graph data: " + e); return; }
  if (typeof cytoscape !== "function") { fail("cytoscape.js missing"); return; }
  if (typeof cytoscapeDagre === "function") { cytoscape.use(cytoscapeDagre); }

  var FONT = 13, FAMILY = "Helvetica, Arial, sans-serif", PAD_X = 10, PAD_Y = 7, LINE = 1.25;
  var FIT_PAD = 24;
  // a layer wider than the box (drawn at zoom 1) wraps onto more rows
  var ROW_WIDTH = Math.max(360, box.clientWidth - 2 * FIT_PAD);
  var fill = {seed: "#ddf4ff", must: "#ffebe9", may: "#fff8c5", low: "#f6f8fa",
              other: "#ffffff", test: "#dafbe1"};
  var stroke = {seed: "#0969da", must: "#cf222e", may: "#bf8700", low: "#8c959f",
                other: "#6e7781", test: "#1a7f37"};

  // each node is as large as its label (one box per line of text)
  var ctx = document.createElement("canvas").getContext("2d");
  function measure(label, bold) {
    ctx.font = (bold ? "bold " : "") + FONT + "px " + FAMILY;
    var lines = String(label).split("\n"), w = 0;
    lines.forEach(function (l) { w = Math.max(w, ctx.measureText(l).width); });
    return {w: Math.ceil(w) + 2 * PAD_X, h: Math.ceil(lines.length * FONT * LINE) + 2 * PAD_Y};
  }
  var elements = [];
  (data.nodes || []).forEach(function (n) {
    var size = measure(n.label, n.bucket === "seed");
    elements.push({group: "nodes", data: Object.assign({}, n, {w: size.w, h: size.h})});
  });
  (data.edges || []).forEach(function (e, i) {
    elements.push({group: "edges", data: {id: "e" + i, source: e.source, target: e.target,
                                          why: e.why || [], cause: e.cause || [],
                                          soft: e.soft ? "yes" : "no"}});
  });

  var cy = cytoscape({
    container: box,
    elements: elements,
    wheelSensitivity: 0.3,
    style: [
      {selector: "node", style: {
        "shape": "round-rectangle", "width": "data(w)", "height": "data(h)",
        "background-color": function (n) { return fill[n.data("bucket")] || fill.other; },
        "border-width": 1.5,
        "border-color": function (n) { return stroke[n.data("bucket")] || stroke.other; },
        "label": "data(label)", "font-size": FONT, "font-family": FAMILY, "color": "#1f2328",
        "text-valign": "center", "text-halign": "center", "text-wrap": "wrap",
        "line-height": LINE}},
      {selector: "node[bucket = 'seed']", style: {"border-width": 3, "font-weight": "bold"}},
      {selector: "node[bucket = 'other']", style: {"border-style": "dashed"}},
      {selector: "node[must_change > 0]", style: {"border-color": stroke.must, "border-width": 3}},
      {selector: "node:selected", style: {"border-width": 4, "border-color": "#1f2328"}},
      {selector: "edge", style: {
        "curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.5,
        "line-color": "#8c959f", "target-arrow-color": "#8c959f", "arrow-scale": 0.9}},
      {selector: "edge[soft = 'yes']", style: {"line-style": "dashed"}},
      {selector: "edge[target ^= 'file:']", style: {"line-color": "#d0d7de",  // into tests
        "target-arrow-color": "#d0d7de", "width": 1}},
      {selector: "edge:selected, edge.hover", style: {"line-color": "#1f2328",
        "target-arrow-color": "#1f2328", "width": 2.5, "z-index": 10}}
    ],
    layout: {name: "preset"}
  });

  // rows of one layer, each at most ROW_WIDTH wide, in the layer's own left-to-right order
  function wrapLayers() {
    var layers = {}, keys = [];
    cy.nodes().forEach(function (n) {
      var y = Math.round(n.position("y"));
      if (!layers[y]) { layers[y] = []; keys.push(y); }
      layers[y].push(n);
    });
    keys.sort(function (a, b) { return a - b; });
    var top = 0, GAP_X = 16, GAP_Y = 22, RANK_GAP = 56;
    keys.forEach(function (y) {
      var layer = layers[y].sort(function (a, b) { return a.position("x") - b.position("x"); });
      var rows = [[]], width = 0;
      layer.forEach(function (n) {
        var w = n.data("w");
        if (rows[rows.length - 1].length && width + w > ROW_WIDTH) { rows.push([]); width = 0; }
        rows[rows.length - 1].push(n);
        width += w + GAP_X;
      });
      rows.forEach(function (row) {
        var total = -GAP_X, h = 0;
        row.forEach(function (n) { total += n.data("w") + GAP_X; h = Math.max(h, n.data("h")); });
        var x = -total / 2;
        row.forEach(function (n) {
          n.position({x: x + n.data("w") / 2, y: top + h / 2});
          x += n.data("w") + GAP_X;
        });
        top += h + GAP_Y;
      });
      top += RANK_GAP - GAP_Y;
    });
  }
  // the box as tall as the drawing at the zoom that fits its width, then fit
  function fitBox() {
    var bb = cy.elements().boundingBox();
    var zoom = Math.min(1.25, (box.clientWidth - 2 * FIT_PAD) / Math.max(1, bb.w));
    box.style.height = Math.max(240, Math.min(1400, Math.ceil(bb.h * zoom) + 2 * FIT_PAD)) + "px";
    cy.resize();
    cy.fit(undefined, FIT_PAD);
    if (cy.zoom() > 1.25) { cy.zoom(1.25); cy.center(); }
  }

  // test files sit in one layer below all the code: an edge into one is as long as it
  // takes from its source's depth (the longest path from the change) to the bottom
  var depth = {}, deepest = 0;
  function depthOf(n) {
    var id = n.id();
    if (depth[id] === undefined) {
      depth[id] = 0;  // (the graph is acyclic; this only guards the recursion)
      var d = 0;
      n.incomers("node").forEach(function (p) { d = Math.max(d, depthOf(p) + 1); });
      depth[id] = d;
    }
    return depth[id];
  }
  cy.nodes("[bucket != 'test']").forEach(function (n) { deepest = Math.max(deepest, depthOf(n)); });
  function minLen(e) {
    return e.target().data("bucket") === "test" ? deepest + 1 - depthOf(e.source()) : 1;
  }

  var layoutName = typeof cytoscapeDagre === "function" ? "dagre" : "breadthfirst";
  var layout = cy.layout(layoutName === "dagre"
    ? {name: "dagre", rankDir: "TB", nodeSep: 16, rankSep: 56, edgeSep: 8, minLen: minLen,
       animate: false, fit: false}
    : {name: "breadthfirst", directed: true, roots: cy.nodes("[bucket = 'seed']"),
       animate: false, fit: false});
  layout.one("layoutstop", function () {
    wrapLayers();
    fitBox();
    var drawn = cy.nodes().map(function (n) {
      var p = n.position();
      var lab = n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
      return {id: n.id(), bucket: n.data("bucket"), x: Math.round(p.x), y: Math.round(p.y),
              w: Math.round(n.width()), label_w: Math.round(lab.w)};
    });
    drawn.sort(function (a, b) { return a.id < b.id ? -1 : (a.id > b.id ? 1 : 0); });
    out.textContent = JSON.stringify({layout: layoutName, nodes: drawn, edges: cy.edges().length,
                                      zoom: Math.round(cy.zoom() * 100) / 100});
    document.body.setAttribute("data-graph", "ok");
  });
  layout.run();

  var panel = document.getElementById("details");
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }
  var ROLE = {seed: "changed", must: "must change (MUST-INSPECT)",
              may: "may be affected (MAY-IMPACT)", low: "low risk (LOW-RISK)",
              other: "connects the change to what it reaches", test: "tests to run"};
  function show(node) {
    var d = node.data();
    panel.textContent = "";
    panel.appendChild(el("h3", d.bucket === "test" ? d.file : d.id, "mono"));
    var dl = el("dl");
    function row(k, v, mono) {
      if (v === undefined || v === null || v === "" || (v.length === 0)) { return; }
      dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v, mono ? "mono" : ""));
    }
    row("role", ROLE[d.bucket]);
    row("change", d.change);
    if (d.bucket === "test") {
      row("tests", d.count + (d.must_change ? " (" + d.must_change + " must change)" : ""));
    } else {
      row("kind", d.kind);
      row("location", d.file ? d.file + (d.line ? ":" + d.line : "") : "", true);
      row("signature", d.signature, true);
      row("confidence", d.conf);
      row("why", (d.causes || []).join("\n"));
      row("edit step", d.batch);
    }
    var from = [];
    node.incomers("edge").forEach(function (e) {
      from.push(e.source().data("label").split("\n")[0] + ": " + e.data("why").join("; "));
    });
    row("reached from", from.join("\n"));
    panel.appendChild(dl);
    panel.setAttribute("data-selected", d.id);
  }
  function showEdge(e) {
    panel.textContent = "";
    panel.appendChild(el("h3", "why"));
    e.data("why").forEach(function (w) { panel.appendChild(el("p", w)); });
    panel.appendChild(el("p", e.source().id() + " → " + e.target().data("label").split("\n")[0],
                         "mono"));
  }
  cy.on("tap", "node", function (ev) { show(ev.target); });
  cy.on("tap", "edge", function (ev) { showEdge(ev.target); });

  // pointing at an edge shows why it is there
  var tip = document.getElementById("tip");
  cy.on("mouseover", "edge", function (ev) {
    ev.target.addClass("hover");
    if (!tip) { return; }
    tip.textContent = ev.target.data("why").join("\n");
    var p = ev.renderedPosition, r = box.getBoundingClientRect();
    tip.style.left = (r.left + window.scrollX + p.x + 12) + "px";
    tip.style.top = (r.top + window.scrollY + p.y + 12) + "px";
    tip.hidden = false;
  });
  cy.on("mouseout", "edge", function (ev) {
    ev.target.removeClass("hover");
    if (tip) { tip.hidden = true; }
  });

  var m = /^#node=(.+)$/.exec(window.location.hash || "");
  if (m) {
    var hit = cy.getElementById(decodeURIComponent(m[1]));
    if (hit && hit.length) { hit.select(); show(hit); }
  }
})();
