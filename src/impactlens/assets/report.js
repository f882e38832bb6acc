/* impactlens HTML report: draws the impact DAG with cytoscape.js + dagre (both inlined).
 * Reads the impact JSON from #impact-data. After layout it writes the rendered nodes
 * (id, bucket, x, y) as JSON into #rendered-nodes and sets body[data-graph] = "ok"
 * (or "error: ..."), so a headless browser can check what was drawn.
 * #node=<entity> in the URL selects that node on load. */
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

  var data;
  try {
    data = JSON.parse(document.getElementById("impact-data").textContent);
  } catch (e) { fail("bad impact data: " + e); return; }
  if (typeof cytoscape !== "function") { fail("cytoscape.js missing"); return; }
  if (typeof cytoscapeDagre === "function") { cytoscape.use(cytoscapeDagre); }

  var triage = data.triage || {};
  var info = {};   // entity -> {bucket, conf, reason}
  [["must_inspect", "must"], ["may_impact", "may"], ["low_risk", "low"]].forEach(function (b) {
    (triage[b[0]] || []).forEach(function (e) {
      if (!info[e.entity]) { info[e.entity] = {bucket: b[1], conf: e.conf, reason: e.reason}; }
    });
  });
  var seeds = {};
  (data.changes || []).forEach(function (c) { seeds[c.entity] = c; });
  if (data.seed && data.seed.entity) { seeds[data.seed.entity] = seeds[data.seed.entity] || data.seed; }

  var dag = data.dag || {nodes: [], edges: []};
  var nodes = {}, order = [];
  function short(id) {
    var s = id.indexOf("::") >= 0 ? id.split("::").slice(-2).join("::") : id.split(".").slice(-2).join(".");
    return s.length > 42 ? "…" + s.slice(-41) : s;
  }
  function addNode(id, n) {
    if (nodes[id]) { return; }
    var bucket = seeds[id] ? "seed" : (info[id] ? info[id].bucket : ((n && n.kind) === "test" ? "test" : "other"));
    nodes[id] = {data: {id: id, label: short(id), bucket: bucket, kind: (n && n.kind) || "",
                        file: (n && n.file) || (seeds[id] && seeds[id].file) || "",
                        line: (n && n.line) || (seeds[id] && seeds[id].line_range ? seeds[id].line_range[0] : ""),
                        signature: (n && n.signature) || (seeds[id] && (seeds[id].after_sig || seeds[id].before_sig)) || "",
                        batch: (n && n.batch_id !== undefined && n.batch_id !== null) ? n.batch_id : ""}};
    order.push(id);
  }
  // seeds first, then the DAG's own (distance-ordered) nodes
  Object.keys(seeds).sort().forEach(function (id) {
    var n = null;
    (dag.nodes || []).forEach(function (m) { if (m.entity === id) { n = m; } });
    addNode(id, n);
  });
  (dag.nodes || []).forEach(function (n) { addNode(n.entity, n); });
  // "<type> changed (<what>) → <site> <verb> via <relation>": the edge shows
  // "<verb> via <relation>" (its ends are drawn); the full cause is one click away.
  function edgeLabel(e) {
    var cause = String(e.cause || ""), k = cause.lastIndexOf(" → ");
    var tail = k >= 0 ? cause.slice(k + 3) : cause;
    if (tail.indexOf(e.to + " ") === 0) { tail = tail.slice(e.to.length + 1); }
    return tail.length > 60 ? tail.slice(0, 59) + "…" : tail;
  }
  // parallel causes between the same two nodes share one drawn edge (one label line each)
  var edges = [], byPair = {}, nCauses = 0;
  (dag.edges || []).forEach(function (e) {
    addNode(e.from, null); addNode(e.to, null);
    nCauses += 1;
    var key = e.from + "\u0000" + e.to, lab = edgeLabel(e), got = byPair[key];
    if (!got) {
      got = byPair[key] = {data: {id: "e" + edges.length, source: e.from, target: e.to,
                                  cause: e.cause, label: lab, causes: [e.cause]}};
      edges.push(got);
      return;
    }
    got.data.causes.push(e.cause);
    got.data.cause = got.data.causes.join("\n");
    if (got.data.label.split("\n").indexOf(lab) < 0) { got.data.label += "\n" + lab; }
  });
  var elements = order.map(function (id) { return nodes[id]; }).concat(edges);
  var colour = {seed: "#0969da", must: "#cf222e", may: "#bf8700", low: "#8c959f",
                test: "#1a7f37", other: "#6e7781"};

  var cy = cytoscape({
    container: document.getElementById("cy"),
    elements: elements,
    wheelSensitivity: 0.3,
    style: [
      {selector: "node", style: {
        "background-color": function (n) { return colour[n.data("bucket")] || colour.other; },
        "label": "data(label)", "font-size": 11, "color": "#1f2328",
        "text-valign": "bottom", "text-margin-y": 4, "width": 22, "height": 22,
        "text-background-color": "#ffffff", "text-background-opacity": 0.85,
        "text-background-padding": 1}},
      {selector: "node[bucket = 'seed']", style: {"shape": "round-rectangle", "width": 30,
        "height": 30, "border-width": 3, "border-color": "#033d8b"}},
      {selector: "node:selected", style: {"border-width": 4, "border-color": "#1f2328"}},
      {selector: "edge", style: {
        "curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.5,
        "line-color": "#afb8c1", "target-arrow-color": "#afb8c1",
        "label": "data(label)", "font-size": 8, "color": "#59636e",
        "text-wrap": "wrap", "text-max-width": 120, "text-rotation": "none",
        "text-background-color": "#ffffff", "text-background-opacity": 0.8}},
      {selector: "edge:selected", style: {"line-color": "#1f2328", "target-arrow-color": "#1f2328",
        "color": "#1f2328", "width": 2.5}}
    ],
    layout: {name: "preset"}
  });

  var layoutName = typeof cytoscapeDagre === "function" ? "dagre" : "breadthfirst";
  var layout = cy.layout(layoutName === "dagre"
    ? {name: "dagre", rankDir: "TB", nodeSep: 80, rankSep: 70, edgeSep: 10, animate: false,
       fit: true, padding: 30, nodeDimensionsIncludeLabels: true}
    : {name: "breadthfirst", directed: true, roots: cy.nodes("[bucket = 'seed']"),
       animate: false, fit: true, padding: 24});
  layout.one("layoutstop", function () {
    if (cy.zoom() > 1.25) { cy.zoom(1.25); cy.center(); }
    var drawn = cy.nodes().map(function (n) {
      var p = n.position();
      return {id: n.id(), bucket: n.data("bucket"), x: Math.round(p.x), y: Math.round(p.y)};
    });
    drawn.sort(function (a, b) { return a.id < b.id ? -1 : (a.id > b.id ? 1 : 0); });
    out.textContent = JSON.stringify({layout: layoutName, nodes: drawn, edges: cy.edges().length,
                                      causes: nCauses});
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
  function show(node) {
    var d = node.data(), i = info[d.id];
    panel.textContent = "";
    panel.appendChild(el("h3", d.id, "mono"));
    var dl = el("dl");
    function row(k, v, mono) {
      if (v === undefined || v === null || v === "") { return; }
      dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v, mono ? "mono" : ""));
    }
    row("role", d.bucket === "seed" ? "changed (seed)" : ({must: "MUST-INSPECT", may: "MAY-IMPACT",
        low: "LOW-RISK", test: "test", other: "—"})[d.bucket]);
    if (seeds[d.id] && seeds[d.id].change_type) { row("change", seeds[d.id].change_type); }
    row("kind", d.kind);
    row("location", d.file ? d.file + (d.line ? ":" + d.line : "") : "", true);
    row("signature", d.signature, true);
    if (i) { row("confidence", i.conf); row("reason", i.reason); }
    row("batch", d.batch);
    var causes = [];
    node.incomers("edge").forEach(function (e) { causes = causes.concat(e.data("causes")); });
    if (causes.length) { row("caused by", causes.join("\n")); }
    panel.appendChild(dl);
    panel.setAttribute("data-selected", d.id);
  }
  cy.on("tap", "node", function (ev) { show(ev.target); });
  cy.on("tap", "edge", function (ev) {
    var e = ev.target;
    panel.textContent = "";
    panel.appendChild(el("h3", e.data("causes").length > 1 ? "causes" : "cause"));
    e.data("causes").forEach(function (c) { panel.appendChild(el("p", c)); });
    panel.appendChild(el("p", e.data("source") + " → " + e.data("target"), "mono"));
  });
  var m = /^#node=(.+)$/.exec(window.location.hash || "");
  if (m) {
    var want = decodeURIComponent(m[1]);
    var hit = cy.getElementById(want);
    if (hit && hit.length) { hit.select(); show(hit); }
  }
})();
