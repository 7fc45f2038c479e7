// dpdt explorer: draws the Pareto front and the chosen tree as SVG, from the JSON in #dpdt-data.
//
// The data (written by dpdt/_explorer.py):
//   nodes: the nodes of every tree of the front, each distinct subtree once, as columns
//     f (feature, -1 for a leaf), t (threshold), m (missing values go left), l, r (children),
//     n (training samples), v (class fractions or output means), i (impurity);
//   rows: one entry per tree of the front, sorted by complexity: root (its root in nodes),
//     complexity, train (train loss), test (test accuracy or mean squared error, or null),
//     n_leaves, depth, alpha_min,
//     alpha_max, expected_tests, code;
//   cost: null, or a policy's budget front (fitted with action_costs), drawn instead of the
//     complexity front when the reader switches to it: rows (as above, cheapest first, with
//     cost in place of complexity, train the policy's value, price_min, price_max and price),
//     chosen (the tree the policy predicts with under its max_cost, or null), chosen_label,
//     xlabel, ylabel; its trees are in nodes too;
//   multiway: instead of nodes and rows, the one multiway tree (f, children, n, v);
//   samples: X (test samples, null for missing), y, and for a multiway tree their paths.
// window.dpdtExplorer is a small read-only API, used by the tests and the benchmark.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("dpdt-data").textContent);
  const SVGNS = "http://www.w3.org/2000/svg";
  // The palette of every dpdt picture (dpdt/_palette.py): classes, the front's series, and
  // the validation curves (past the last colour, the same again dashed).
  const PALETTE = data.colours.classes;
  const SERIES = data.colours.series;
  const CURVE_COLOURS = data.colours.validation;
  for (const name in SERIES) document.documentElement.style.setProperty("--" + name, SERIES[name]);
  const NODE_H = 48, GAP_X = 18, GAP_Y = 42, PAD = 7, MIN_BOX_W = 72, MAX_BOX_W = 260;
  // The smallest zoom at which a tree is first shown (node text 9 px); below, it is folded.
  const READABLE = 0.75;
  const $ = (id) => document.getElementById(id);
  const classifier = data.classifier;
  // A policy's actions (its leaves show the action of largest mean reward), else null.
  const actions = data.actions;
  const multiway = !!data.multiway;
  // The fronts the page can draw, one at a time: what drawing, choosing and the panels read
  // of the front shown (F), its rows, and the row last shown of each.
  const fronts = {};
  if (!multiway) {
    fronts.complexity = { kind: "complexity", rows: data.rows, x: data.rows.complexity,
      chosen: data.chosen, chosen_label: data.chosen_label, steps: data.steps, cart: data.cart,
      curves: data.curves, same_scale: data.same_scale, xlabel: data.xlabel, ylabel: data.ylabel,
      validation_label: data.validation_label, row: data.chosen };
  }
  if (data.cost) {
    const c = data.cost;
    // Steps: a budget between two trees gets the cheaper one.
    fronts.cost = { kind: "cost", rows: c.rows, x: c.rows.cost, chosen: c.chosen,
      chosen_label: c.chosen_label, steps: true, cart: null, curves: [], same_scale: true,
      xlabel: c.xlabel, ylabel: c.ylabel, validation_label: "",
      row: c.chosen === null ? c.rows.root.length - 1 : c.chosen };
  }
  // The page opens on the front of the tree the estimator predicts with.
  let F = fronts[data.cost && data.cost.chosen !== null ? "cost" : "complexity"] || null;
  let rows = F && F.rows;
  let nRows = multiway ? 1 : rows.root.length;

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVGNS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, content, attrs) {
    const node = svg("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    node.textContent = content;
    return node;
  }

  function fmt(value, digits) {
    if (value === null || value === undefined) return "–";
    if (value === "inf") return "∞";
    if (!isFinite(value)) return value > 0 ? "∞" : "–∞";
    if (value === 0) return "0";
    const a = Math.abs(value);
    if (a >= 1e6 || a < 1e-3) return value.toExponential(Math.max(1, (digits || 4) - 2));
    return String(parseFloat(value.toPrecision(digits || 4)));
  }

  // ---- text measuring: the boxes are sized to their text, and text is cut to its box ----
  const measureContext = document.createElement("canvas").getContext("2d");
  const fontFamily = getComputedStyle(document.body).fontFamily;
  // Setting a canvas font parses it: set once per font, and measure each string once.
  const widths = new Map();
  let currentFont = null;
  function width(content, size, bold) {
    const font = (bold ? "600 " : "") + size + "px " + fontFamily;
    const key = font + "\u0000" + content;
    let w = widths.get(key);
    if (w === undefined) {
      if (font !== currentFont) { measureContext.font = font; currentFont = font; }
      w = measureContext.measureText(content).width;
      if (widths.size > 50000) widths.clear();
      widths.set(key, w);
    }
    return w;
  }
  function fit(content, size, bold, room) {
    if (width(content, size, bold) <= room) return content;
    let lo = 0, hi = content.length;
    while (lo < hi) {   // the longest prefix that fits with its ellipsis
      const mid = (lo + hi + 1) >> 1;
      if (width(content.slice(0, mid) + "…", size, bold) <= room) lo = mid; else hi = mid - 1;
    }
    return content.slice(0, lo) + "…";
  }

  // ---- the trees ----
  function binaryTree(root) {
    const N = data.nodes;
    const t = { feature: [], threshold: [], missing: [], children: [], labels: [], n: [],
      value: [], impurity: [], depth: [], parent: [] };
    (function visit(g, parent, depth) {
      const k = t.feature.length;
      t.feature.push(N.f[g]); t.threshold.push(N.f[g] >= 0 ? N.t[g] : -2);
      t.missing.push(N.m[g]); t.n.push(N.n[g]); t.value.push(N.v[g]); t.impurity.push(N.i[g]);
      t.depth.push(depth); t.parent.push(parent); t.children.push([]); t.labels.push([]);
      if (N.f[g] >= 0) {
        t.children[k] = [visit(N.l[g], k, depth + 1), visit(N.r[g], k, depth + 1)];
        t.labels[k] = ["yes", "no"];
      }
      return k;
    })(root, -1, 0);
    t.count = t.feature.length;
    return t;
  }

  function multiwayTree() {
    const M = data.multiway;
    const count = M.f.length;
    const t = { feature: M.f, threshold: null, children: [], labels: [], n: M.n, value: M.v,
      impurity: null, depth: new Array(count).fill(0), parent: new Array(count).fill(-1),
      count: count };
    for (let k = 0; k < count; k++) {
      t.children.push(M.children[k].map((e) => e[1]));
      t.labels.push(M.children[k].map((e) => e[0]));
    }
    for (let k = 0; k < count; k++) {
      for (const c of t.children[k]) { t.depth[c] = t.depth[k] + 1; t.parent[c] = k; }
    }
    return t;
  }

  function samplePath(t, s) {
    if (multiway) return data.samples.paths[s];
    const x = data.samples.X[s];
    const path = [0];
    let node = 0;
    while (t.feature[node] >= 0) {
      const v = x[t.feature[node]];
      const left = v === null ? t.missing[node] === 1 : v <= t.threshold[node];
      node = t.children[node][left ? 0 : 1];
      path.push(node);
    }
    return path;
  }

  function argmax(values) {
    let best = 0;
    for (let k = 1; k < values.length; k++) if (values[k] > values[best]) best = k;
    return best;
  }

  // A class named by a number reads as one: "class 1".
  const numericClasses = classifier && data.classes.every((c) => /^-?[\d.]+$/.test(c));
  function className(c) {
    return numericClasses ? "class " + data.classes[c] : data.classes[c];
  }

  function prediction(t, node) {
    const v = t.value[node];
    if (classifier) return className(argmax(v));
    if (actions) return "action " + actions[argmax(v)];
    return "value " + (v.length === 1 ? fmt(v[0]) : "[" + v.map((x) => fmt(x, 3)).join(", ") +
      "]");
  }

  // ---- state ----
  const state = {
    row: multiway ? 0 : F.row,
    tree: null,
    folded: new Set(),
    depthChoice: undefined,
    sample: 0,
    showPath: true,
    view: { x: 0, y: 0, k: 1 },
    layout: null,
    lastSelectMs: null,
  };
  let valueRange = [0, 1];

  // What the complexity front's y axis shows of a train loss (the cost front's is the value).
  function metric(loss) {
    return loss === null ? null : (classifier && F.kind === "complexity" ? 1 - loss : loss);
  }

  // ---- the front ----
  const front = { svg: $("x-front"), x: null, y: null, y2: null, box: null };
  const legendBox = document.createElement("div");
  legendBox.className = "x-legend x-front-legend";

  function niceTicks(lo, hi, count) {
    if (!(hi > lo)) { hi = lo + 1; lo = lo - 1; }
    const raw = (hi - lo) / count;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return ticks;
  }

  function extent(values, pad) {
    const finite = values.filter((v) => v !== null && isFinite(v));
    let lo = Math.min.apply(null, finite), hi = Math.max.apply(null, finite);
    if (!finite.length) { lo = 0; hi = 1; }
    if (hi === lo) { lo -= 0.5 * (Math.abs(lo) || 1); hi += 0.5 * (Math.abs(hi) || 1); }
    const p = (hi - lo) * pad;
    return [lo - p, hi + p];
  }

  function drawFront() {
    const el = front.svg;
    el.textContent = "";
    const W = el.clientWidth || 480, H = el.clientHeight || 300;
    el.setAttribute("viewBox", "0 0 " + W + " " + H);
    const cvApart = F.curves.length > 0 && !F.same_scale;
    const m = { l: 58, r: cvApart ? 56 : 14, t: 12, b: 40 };
    const train = rows.train.map(metric);
    const test = rows.test;   // accuracy or mean squared error already
    const xs = F.x.slice(), ys = train.slice();
    if (test) ys.push.apply(ys, test);
    if (F.cart) F.cart.forEach((p) => { xs.push(p[0]); ys.push(metric(p[1])); });
    const y2s = [];
    F.curves.forEach((c) => {
      xs.push.apply(xs, c.complexity);
      c.mean.forEach((v, k) => (cvApart ? y2s : ys).push(v - c.std[k], v + c.std[k]));
    });
    const xd = extent(xs, 0.04), yd = extent(ys, 0.06);
    const X = (v) => m.l + (v - xd[0]) / (xd[1] - xd[0]) * (W - m.l - m.r);
    const Y = (v) => H - m.b - (v - yd[0]) / (yd[1] - yd[0]) * (H - m.t - m.b);
    let Y2 = Y;
    if (cvApart) {
      const y2d = extent(y2s, 0.06);
      Y2 = (v) => H - m.b - (v - y2d[0]) / (y2d[1] - y2d[0]) * (H - m.t - m.b);
      front.y2d = y2d;
    }
    front.X = X; front.Y = Y; front.Y2 = Y2; front.m = m; front.W = W; front.H = H;
    // axes and grid
    const axes = svg("g", { class: "x-axis" }, el);
    niceTicks(xd[0], xd[1], Math.max(3, Math.floor((W - m.l - m.r) / 70))).forEach((v) => {
      const x = X(v);
      svg("line", { class: "x-grid", x1: x, x2: x, y1: m.t, y2: H - m.b }, axes);
      text(axes, x, H - m.b + 15, fmt(v, 3), { "text-anchor": "middle" });
    });
    niceTicks(yd[0], yd[1], Math.max(3, Math.floor((H - m.t - m.b) / 40))).forEach((v) => {
      const y = Y(v);
      svg("line", { class: "x-grid", x1: m.l, x2: W - m.r, y1: y, y2: y }, axes);
      text(axes, m.l - 6, y + 4, fmt(v, 3), { "text-anchor": "end" });
    });
    if (cvApart) {
      niceTicks(front.y2d[0], front.y2d[1], Math.max(3, Math.floor((H - m.t - m.b) / 40)))
        .forEach((v) => {
          text(axes, W - m.r + 6, Y2(v) + 4, fmt(v, 3), { "text-anchor": "start",
            fill: CURVE_COLOURS[0] });
        });
      text(el, 0, 0, F.validation_label, { class: "x-axis-label", "text-anchor": "middle",
        transform: "translate(" + (W - 10) + "," + (m.t + (H - m.t - m.b) / 2) + ") rotate(90)" });
    }
    svg("rect", { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: "none",
      stroke: "#9aa0a6" }, axes);
    text(el, m.l + (W - m.l - m.r) / 2, H - 6, F.xlabel, { class: "x-axis-label",
      "text-anchor": "middle" });
    text(el, 0, 0, F.ylabel, { class: "x-axis-label", "text-anchor": "middle",
      transform: "translate(13," + (m.t + (H - m.t - m.b) / 2) + ") rotate(-90)" });
    const legend = [];
    // validation curves, under the rest
    F.curves.forEach((c, k) => {
      const colour = CURVE_COLOURS[k % CURVE_COLOURS.length];
      const dash = k >= CURVE_COLOURS.length ? "5 3" : "none";
      const upper = c.complexity.map((x, j) => X(x) + "," + Y2(c.mean[j] + c.std[j]));
      const lower = c.complexity.map((x, j) => X(x) + "," + Y2(c.mean[j] - c.std[j])).reverse();
      svg("polygon", { points: upper.concat(lower).join(" "), fill: colour, opacity: 0.15 }, el);
      svg("polyline", { points: c.complexity.map((x, j) => X(x) + "," + Y2(c.mean[j])).join(" "),
        fill: "none", stroke: colour, "stroke-width": 1.5, "stroke-dasharray": dash,
        class: "x-curve" }, el);
      c.complexity.forEach((x, j) => svg("circle", { cx: X(x), cy: Y2(c.mean[j]), r: 2.2,
        fill: colour }, el));
      legend.push([colour, "validation" + (F.curves.length > 1 ? " (depth " + c.depth + ")"
        : "") + (cvApart ? ", right axis" : "") + " ± 1 sd"]);
    });
    if (F.cart) {
      svg("polyline", { points: F.cart.map((p) => X(p[0]) + "," + Y(metric(p[1]))).join(" "),
        fill: "none", stroke: SERIES.cart, "stroke-width": 1.3, "stroke-dasharray": "5 3",
        class: "x-curve" }, el);
      F.cart.forEach((p) => svg("rect", { x: X(p[0]) - 3, y: Y(metric(p[1])) - 3, width: 6,
        height: 6, fill: SERIES.cart, class: "x-marker" }, el));
      legend.push([SERIES.cart, "CART pruning path"]);
    }
    function line(values) {
      const points = [];
      F.x.forEach((x, k) => {
        if (values[k] === null) return;
        if (F.steps && points.length) points.push(X(x) + "," + points[points.length - 1]
          .split(",")[1]);
        points.push(X(x) + "," + Y(values[k]));
      });
      return points.join(" ");
    }
    if (test) {
      svg("polyline", { points: line(test), fill: "none", stroke: SERIES.test,
        "stroke-width": 1.5, class: "x-curve" }, el);
      test.forEach((v, k) => {
        if (v === null) return;
        const x = X(F.x[k]), y = Y(v);
        svg("path", { d: "M" + x + "," + (y - 4) + "l4,4l-4,4l-4,-4z", fill: SERIES.test,
          class: "x-marker" }, el);
      });
      legend.push([SERIES.test, "test"]);
    }
    svg("polyline", { points: line(train), fill: "none", stroke: SERIES.front,
      "stroke-width": 1.8, class: "x-curve" }, el);
    legend.unshift([SERIES.front, F.kind === "cost" ? "budget front (train)" :
      "DPDT front (train)"]);
    const points = svg("g", {}, el);
    train.forEach((v, k) => {
      const dot = svg("circle", { class: "x-point", cx: X(F.x[k]), cy: Y(v), r: 4,
        fill: SERIES.front, "data-row": k }, points);
      svg("title", {}, dot).textContent = rows.n_leaves[k] + " leaves, " + F.kind + " " +
        fmt(F.x[k]) + ", train " + fmt(v) +
        (test && test[k] !== null ? ", test " + fmt(test[k]) : "");
    });
    const c = F.chosen;
    if (c !== null) {
      star(el, X(F.x[c]), Y(train[c]));
      legend.push([SERIES.chosen, F.chosen_label]);
    }
    front.marks = svg("g", {}, el);
    labelPoints(el, train, X, Y, m, W, H);
    legendBox.textContent = "";
    legend.forEach((item) => {
      const span = document.createElement("span");
      const swatch = document.createElement("i");
      swatch.style.background = item[0];
      span.appendChild(swatch);
      span.appendChild(document.createTextNode(item[1]));
      legendBox.appendChild(span);
    });
  }

  function star(parent, x, y) {
    const points = [];
    for (let k = 0; k < 10; k++) {
      const r = k % 2 ? 3.2 : 8, a = Math.PI / 2 + k * Math.PI / 5;
      points.push((x + r * Math.cos(a)) + "," + (y - r * Math.sin(a)));
    }
    const node = svg("polygon", { class: "x-chosen-star", points: points.join(" ") }, parent);
    svg("title", {}, node).textContent = F.chosen_label;
    return node;
  }

  // Each point's number of leaves goes beside it where it meets no other label; else none.
  function labelPoints(el, train, X, Y, m, W, H) {
    const g = svg("g", { class: "x-point-labels" }, el);
    // A label covers no point of any curve, nor another label.
    const points = F.x.map((x, k) => [X(x), Y(train[k])]);
    if (rows.test) {
      rows.test.forEach((v, k) => { if (v !== null) points.push([X(F.x[k]), Y(v)]); });
    }
    if (F.cart) F.cart.forEach((p) => points.push([X(p[0]), Y(metric(p[1]))]));
    const taken = points.map((p) => [p[0] - 3.5, p[1] - 3.5, p[0] + 3.5, p[1] + 3.5]);
    const order = rows.n_leaves.map((n, k) => k).sort((a, b) => rows.n_leaves[a] -
      rows.n_leaves[b]);
    const places = [[5, -5, "start"], [5, 13, "start"], [-5, -5, "end"], [-5, 13, "end"],
      [0, -7, "middle"], [0, 16, "middle"]];
    for (const k of order) {
      const x = X(F.x[k]), y = Y(train[k]);
      const content = String(rows.n_leaves[k]);
      const w = width(content, 10, false), h = 10;
      for (const p of places) {
        const x0 = p[2] === "start" ? x + p[0] : p[2] === "end" ? x + p[0] - w : x - w / 2,
          y0 = y + p[1] - h;
        const box = [x0 - 1, y0 - 1, x0 + w + 1, y0 + h + 2];
        const inside = box[0] > m.l && box[2] < W - m.r && box[1] > m.t && box[3] < H - m.b;
        if (inside && !taken.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] &&
            box[1] < b[3])) {
          taken.push(box);
          text(g, x + p[0], y + p[1], content, { "text-anchor": p[2], "font-size": 10,
            fill: SERIES.front });
          break;
        }
      }
    }
  }

  function markFront() {
    const g = front.marks;
    g.textContent = "";
    const k = state.row;
    const x = front.X(F.x[k]);
    svg("line", { x1: x, x2: x, y1: front.m.t, y2: front.H - front.m.b, stroke: "#1d1d1f",
      "stroke-dasharray": "3 3", "stroke-width": 1 }, g);
    svg("circle", { class: "x-selected-ring", cx: x, cy: front.Y(metric(rows.train[k])),
      r: 8 }, g);
    if (rows.test && rows.test[k] !== null) {
      svg("circle", { class: "x-selected-ring", cx: x, cy: front.Y(rows.test[k]),
        r: 7, stroke: SERIES.test }, g);
    }
  }

  function frontClick(event) {
    const rect = front.svg.getBoundingClientRect();
    const sx = front.W / rect.width, sy = front.H / rect.height;
    const px = (event.clientX - rect.left) * sx, py = (event.clientY - rect.top) * sy;
    let best = 0, bestD = Infinity;
    for (let k = 0; k < nRows; k++) {
      const dx = front.X(F.x[k]) - px, dy = front.Y(metric(rows.train[k])) - py;
      const d = dx * dx + dy * dy * 0.25;   // nearest mostly along complexity
      if (d < bestD) { bestD = d; best = k; }
    }
    select(best);
    front.svg.focus();
  }

  // ---- the tree ----
  const treeSvg = $("x-tree");
  const viewport = svg("g", {}, treeSvg);

  function visibleChildren(t, k) {
    return state.folded.has(k) ? [] : t.children[k];
  }

  function layout(t) {
    // A tidy tree (Reingold and Tilford): each subtree is drawn, then its siblings are brought
    // as close as their outlines allow, level by level, and a parent is centred over its first
    // and last child. Each box is as wide as its text (up to MAX_BOX_W), and boxes of a level
    // are at least a gap apart: no two texts overlap.
    const visible = [];
    (function walk(k) { visible.push(k); visibleChildren(t, k).forEach(walk); })(0);
    const heads = {}, subs = {}, w = {};
    for (const k of visible) {
      heads[k] = headText(t, k); subs[k] = subText(t, k);
      const widest = Math.max(width(heads[k], 12, true), width(subs[k], 11, false));
      w[k] = Math.min(MAX_BOX_W, Math.max(MIN_BOX_W, Math.ceil(widest) + 2 * PAD));
    }
    const offset = {};   // of each node's centre from its parent's
    // Returns the outline of k's subtree: per level from k's own down, the left and right edges
    // of its boxes, relative to k's centre.
    function outline(k) {
      const l = [-w[k] / 2], r = [w[k] / 2];
      const children = visibleChildren(t, k);
      if (!children.length) return { l: l, r: r };
      const shapes = children.map(outline);
      const at = [0];
      const right = shapes[0].r.slice();
      for (let i = 1; i < shapes.length; i++) {
        const shape = shapes[i];
        let o = -Infinity;
        for (let d = 0; d < Math.min(right.length, shape.l.length); d++) {
          o = Math.max(o, right[d] - shape.l[d] + GAP_X);
        }
        at.push(o);
        for (let d = 0; d < shape.r.length; d++) {
          right[d] = d < right.length ? Math.max(right[d], o + shape.r[d]) : o + shape.r[d];
        }
      }
      const centre = (at[0] + at[at.length - 1]) / 2;
      shapes.forEach((shape, i) => {
        const o = at[i] - centre;
        offset[children[i]] = o;
        shape.l.forEach((v, d) => {
          l[d + 1] = l[d + 1] === undefined ? o + v : Math.min(l[d + 1], o + v);
        });
        shape.r.forEach((v, d) => {
          r[d + 1] = r[d + 1] === undefined ? o + v : Math.max(r[d + 1], o + v);
        });
      });
      return { l: l, r: r };
    }
    const shape = outline(0);
    const low = Math.min.apply(null, shape.l), high = Math.max.apply(null, shape.r);
    const cx = {}, x = {}, y = {};
    let maxDepth = 0;
    for (const k of visible) {   // preorder: a parent before its children
      cx[k] = k === 0 ? -low : cx[t.parent[k]] + offset[k];
      x[k] = cx[k] - w[k] / 2;
      y[k] = t.depth[k] * (NODE_H + GAP_Y);
      maxDepth = Math.max(maxDepth, t.depth[k]);
    }
    return { visible: visible, x: x, cx: cx, w: w, y: y, heads: heads, subs: subs,
      width: high - low, height: (maxDepth + 1) * (NODE_H + GAP_Y) - GAP_Y + 22 };
  }

  function headText(t, k) {
    if (t.feature[k] >= 0) {
      const name = data.features[t.feature[k]];
      return multiway ? name : name + " ≤ " + fmt(t.threshold[k], 6);
    }
    return prediction(t, k);
  }

  // A test too long for its box loses the end of its feature's name, never its threshold.
  function fitHead(t, k, head, room) {
    if (multiway || t.feature[k] < 0 || width(head, 12, true) <= room) {
      return fit(head, 12, true, room);
    }
    const test = " ≤ " + fmt(t.threshold[k], 6);
    return fit(data.features[t.feature[k]], 12, true, room - width(test, 12, true)) + test;
  }

  function subText(t, k) {
    const v = t.value[k];
    if (classifier) {
      const best = argmax(v);
      const share = Math.round(100 * v[best]);
      return "n=" + t.n[k] + " · " + share + "% " + (t.feature[k] >= 0 ? className(best) :
        "pure");
    }
    if (actions) return "n=" + t.n[k] + " · reward " + fmt(Math.max(...v), 3) +
      (t.feature[k] >= 0 ? " " + actions[argmax(v)] : "");
    if (t.feature[k] >= 0) return "n=" + t.n[k] + " · mean " + (v.length === 1 ? fmt(v[0], 3) :
      "[" + v.map((x) => fmt(x, 3)).join(", ") + "]");
    return "n=" + t.n[k] + " · mse " + fmt(t.impurity[k], 3);
  }

  function mix(hex, share) {
    // hex blended with white: share 0 is white, 1 the colour
    const c = parseInt(hex.slice(1), 16);
    const ch = [(c >> 16) & 255, (c >> 8) & 255, c & 255].map((v) => Math.round(255 +
      (v - 255) * share));
    return "rgb(" + ch.join(",") + ")";
  }

  function boxColour(t, k) {
    const v = t.value[k];
    if (classifier) {
      const best = argmax(v), K = v.length;
      const purity = K > 1 ? (v[best] - 1 / K) / (1 - 1 / K) : 1;
      return [mix(PALETTE[best % PALETTE.length], 0.12 + 0.38 * purity),
        PALETTE[best % PALETTE.length]];
    }
    if (actions) {
      const best = argmax(v);
      return [mix(PALETTE[best % PALETTE.length], 0.35), PALETTE[best % PALETTE.length]];
    }
    const share = (v[0] - valueRange[0]) / ((valueRange[1] - valueRange[0]) || 1);
    return [mix("#56B4E9", 0.08 + 0.5 * share), "#0072B2"];
  }

  function escape(content) {
    return String(content).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  function round1(v) { return Math.round(v * 10) / 10; }

  // The tree is written as one string of SVG markup, parsed once: thousands of nodes draw in a
  // few milliseconds, where as many DOM calls would take ten times longer.
  function drawTree() {
    const t = state.tree;
    const L = state.layout = layout(t);
    const onPath = new Set(state.showPath && state.path ? state.path : []);
    // Edges, and the class bars of every node, are one path per style: a few elements in all.
    const edges = [], pathEdges = [], labels = [], nodes = [];
    const bars = classifier ? data.classes.map(() => []) : [];
    for (const k of L.visible) {
      const x = L.x[k], y = L.y[k], w = L.w[k], half = w / 2;
      const children = visibleChildren(t, k);
      for (let j = 0; j < children.length; j++) {
        const c = children[j];
        const cx = L.cx[c], cy = L.y[c], top = y + NODE_H, mid = (top + cy) / 2;
        const on = onPath.has(k) && onPath.has(c);
        (on ? pathEdges : edges).push("M" + round1(x + half) + "," + top + "C" +
          round1(x + half) + "," + mid + " " + round1(cx) + "," + mid + " " +
          round1(cx) + "," + cy);
        labels.push('<text class="x-edge-label' + (on ? " x-on-path" : "") + '" x="' +
          round1(cx) + '" y="' + (cy - 6) + '">' +
          escape(fit(t.labels[k][j], 11, false, L.w[c] - 4)) + "</text>");
      }
      const colours = boxColour(t, k);
      const leaf = t.feature[k] < 0;
      let node = '<g class="x-node ' + (leaf ? "x-leaf" : "x-split") + (onPath.has(k) ?
        " x-on-path" : "") + '" data-node="' + k + '" data-feature="' + t.feature[k] +
        '" data-samples="' + t.n[k] + '"';
      if (!multiway && !leaf) node += ' data-threshold="' + t.threshold[k] + '"';
      if (leaf) node += ' data-value="' + escape(JSON.stringify(t.value[k])) + '"';
      node += '><rect class="x-box" x="' + round1(x) + '" y="' + y + '" width="' + w +
        '" height="' + NODE_H + '" rx="5" fill="' + colours[0] + '" stroke="' +
        (leaf ? colours[1] : "#555") + '"/>' +
        '<text class="x-head" x="' + round1(x + PAD) + '" y="' + (y + 17) + '">' +
        escape(fitHead(t, k, L.heads[k], w - 2 * PAD)) + "</text>" +
        '<text class="x-sub" x="' + round1(x + PAD) + '" y="' + (y + 32) + '">' +
        escape(fit(L.subs[k], 11, false, w - 2 * PAD)) + "</text>";
      if (classifier) {   // the class fractions, as a bar
        let at = x + PAD;
        const v = t.value[k];
        for (let c = 0; c < v.length; c++) {
          const bw = v[c] * (w - 2 * PAD);
          if (bw > 0.2) bars[c].push("M" + round1(at) + "," + (y + 37) + "h" + round1(bw) + "v5h" +
            round1(-bw) + "z");
          at += bw;
        }
      }
      if (!leaf && state.folded.has(k)) {
        const badge = "+" + countBelow(t, k) + " nodes";
        const bw = Math.min(w, width(badge, 11, false) + 12);
        node += '<rect class="x-fold" x="' + round1(x + (w - bw) / 2) + '" y="' +
          (y + NODE_H + 3) + '" width="' + round1(bw) + '" height="16" rx="8"/>' +
          '<text class="x-fold-text" x="' + round1(x + half) + '" y="' + (y + NODE_H + 15) +
          '">' + escape(fit(badge, 11, false, bw - 6)) + "</text>";
      }
      nodes.push(node + "</g>");
    }
    viewport.innerHTML = '<path class="x-edge" d="' + edges.join("") + '"/>' +
      '<path class="x-edge x-on-path" d="' + pathEdges.join("") + '"/>' +
      "<g>" + nodes.join("") + "</g>" +
      bars.map((b, c) => '<path class="x-bar-part" fill="' + PALETTE[c % PALETTE.length] +
        '" d="' + b.join("") + '"/>').join("") +
      "<g>" + labels.join("") + "</g>";
    overviewStale = true;
    applyView();
  }

  // A node's tooltip is written when the pointer first reaches it.
  function tooltip(event) {
    const g = event.target.closest && event.target.closest(".x-node");
    if (!g || g.querySelector("title")) return;
    const t = state.tree, k = parseInt(g.getAttribute("data-node"), 10);
    let tip = headText(t, k) + "\n" + subText(t, k);
    if (classifier) tip += "\n" + t.value[k].map((s, c) => data.classes[c] + ": " +
      fmt(100 * s, 3) + "%").join(", ");
    if (t.feature[k] >= 0) tip += "\nclick to " + (state.folded.has(k) ? "unfold" : "fold");
    svg("title", {}, g).textContent = tip;
  }

  // Redraw after folding or unfolding with node ``anchor`` where it was on the screen, then
  // pan the least that brings the test sample's leaf into view.
  function redrawKeeping(anchor) {
    const v = state.view, before = state.layout;
    const x0 = before && before.x[anchor] !== undefined ? before.x[anchor] * v.k + v.x : null;
    drawTree();
    const L = state.layout;
    if (x0 !== null) v.x = x0 - L.x[anchor] * v.k;
    if (state.showPath && state.path) {
      const leaf = state.path[state.path.length - 1];
      const W = viewSize()[0], H = viewSize()[1];
      // The whole path in view if a readable zoom allows it, centred on it.
      const xs = state.path.map((k) => L.x[k]);
      const lo = Math.min.apply(null, xs),
        hi = Math.max.apply(null, state.path.map((k) => L.x[k] + L.w[k]));
      const outside = lo * v.k + v.x < 10 || hi * v.k + v.x > W - 10;
      if (outside) {
        v.k = Math.max(READABLE, Math.min(v.k, (W - 20) / (hi - lo)));
        v.x = (W - (hi - lo) * v.k) / 2 - lo * v.k;
      }
      const left = L.x[leaf] * v.k + v.x, right = left + L.w[leaf] * v.k;
      if (right > W - 10) v.x -= right - (W - 10);
      if (left < 10) v.x += 10 - left;
      const bottom = (L.y[leaf] + NODE_H) * v.k + v.y;
      if (bottom > H - 10) v.y -= bottom - (H - 10);
    }
    applyView();
  }

  function countBelow(t, k) {
    let count = 0;
    (function walk(j) { t.children[j].forEach((c) => { count++; walk(c); }); })(k);
    return count;
  }

  function applyView() {
    const v = state.view;
    viewport.setAttribute("transform", "translate(" + v.x + "," + v.y + ") scale(" + v.k + ")");
    frameOverview();
  }

  // ---- the overview: shown when the tree does not fit the view ----
  const overview = $("x-overview");
  const OVERVIEW_W = 200, OVERVIEW_H = 110;
  let overviewScale = null, overviewStale = true;

  // Drawn when first needed after the tree changes: one path per colour.
  function drawOverview() {
    const L = state.layout, t = state.tree;
    overviewScale = Math.min((OVERVIEW_W - 8) / L.width, (OVERVIEW_H - 8) / L.height);
    const s = overviewScale;
    const h = round1(Math.max(1, NODE_H * s));
    // As tall as the tree's shape needs, so that it hides little of the tree.
    overview.style.width = Math.ceil(L.width * s + 8) + "px";
    overview.style.height = Math.ceil(L.height * s + 8) + "px";
    const parts = new Map();
    for (const k of L.visible) {
      const colour = boxColour(t, k)[1], w = round1(Math.max(1, L.w[k] * s));
      if (!parts.has(colour)) parts.set(colour, []);
      parts.get(colour).push("M" + round1(4 + L.x[k] * s) + "," + round1(4 + L.y[k] * s) + "h" +
        w + "v" + h + "h-" + w + "z");
    }
    let markup = "";
    parts.forEach((d, colour) => {
      markup += '<path fill="' + colour + '" d="' + d.join("") + '"/>';
    });
    overview.innerHTML = markup + '<rect class="x-overview-frame"/>';
    overviewStale = false;
  }

  function frameOverview() {
    const L = state.layout, v = state.view;
    if (!L) return;
    const W = viewSize()[0], H = viewSize()[1];
    // The part of the tree in view, in the tree's coordinates.
    const x0 = -v.x / v.k, y0 = -v.y / v.k, x1 = (W - v.x) / v.k, y1 = (H - v.y) / v.k;
    // Shown for a tree much larger than the view; one merely off centre has the Fit button.
    const fits = x1 - x0 >= 0.9 * L.width && y1 - y0 >= 0.9 * L.height;
    overview.style.display = fits ? "none" : "block";
    if (fits) return;
    if (overviewStale) drawOverview();
    const s = overviewScale;
    const frame = overview.querySelector(".x-overview-frame");
    frame.setAttribute("x", round1(4 + x0 * s));
    frame.setAttribute("y", round1(4 + y0 * s));
    frame.setAttribute("width", round1((x1 - x0) * s));
    frame.setAttribute("height", round1((y1 - y0) * s));
  }

  function overviewClick(event) {
    const rect = overview.getBoundingClientRect(), v = state.view;
    const W = viewSize()[0], H = viewSize()[1];
    // Centre the view on the point clicked.
    const x = (event.clientX - rect.left - 4) / overviewScale;
    const y = (event.clientY - rect.top - 4) / overviewScale;
    v.x = W / 2 - x * v.k;
    v.y = H / 2 - y * v.k;
    applyView();
  }

  // The tree's view size, read again only when the window changes: reading it after the tree
  // is redrawn would make the browser lay out the page in the middle of the drawing.
  let treeSize = null;
  function viewSize() {
    if (!treeSize) treeSize = [treeSvg.clientWidth || 800, treeSvg.clientHeight || 500];
    return treeSize;
  }
  window.addEventListener("resize", () => { treeSize = null; });

  function fitView(readable) {
    const L = state.layout;
    const W = viewSize()[0], H = viewSize()[1];
    let k = Math.min((W - 20) / Math.max(L.width, 1), (H - 20) / Math.max(L.height, 1), 1.3);
    if (readable && k < READABLE) k = READABLE;   // smaller text is hard to read: pan instead
    const root = L.cx[0];
    // Centred; a tree wider than the view is centred on its root, as little of it cut as can be.
    const x = L.width * k <= W - 20 ? (W - L.width * k) / 2 :
      Math.min(10, Math.max(W - 10 - L.width * k, W / 2 - root * k));
    state.view = { x: x, y: 10, k: k };
    applyView();
  }

  function zoom(factor, cx, cy) {
    const v = state.view;
    const W = viewSize()[0], H = viewSize()[1];
    if (cx === undefined) { cx = W / 2; cy = H / 2; }
    const k = Math.min(4, Math.max(0.05, v.k * factor));
    v.x = cx - (cx - v.x) * k / v.k; v.y = cy - (cy - v.y) * k / v.k; v.k = k;
    applyView();
  }

  // ---- panels ----
  // The split nodes folded when the tree is shown down to depth ``limit`` (null: all), the
  // test sample's path kept open.
  function foldedAt(t, limit) {
    const folded = new Set();
    if (limit !== null) {
      for (let k = 0; k < t.count; k++) {
        if (t.feature[k] >= 0 && t.depth[k] === limit) folded.add(k);
      }
    }
    if (state.showPath && state.path) {
      state.path.forEach((k, j) => { if (j < state.path.length - 1) folded.delete(k); });
    }
    return folded;
  }

  function defaultDepth(t) {
    // The deepest level down to which the tree, laid out, fits the view at a readable size:
    // the whole tree when there is room, else its top, the rest a click (or the depth menu)
    // away.
    const W = viewSize()[0] - 20, H = viewSize()[1] - 20;
    let maxDepth = 0;
    for (let k = 0; k < t.count; k++) maxDepth = Math.max(maxDepth, t.depth[k]);
    const kept = state.folded;
    try {
      for (let d = maxDepth; d >= 1; d--) {
        state.folded = foldedAt(t, d >= maxDepth ? null : d);
        const L = layout(t);
        if (L.width * READABLE <= W && L.height * READABLE <= H) return d >= maxDepth ? null : d;
      }
    } finally {
      state.folded = kept;
    }
    return 1;
  }

  function setDepth(limit) {
    state.folded = foldedAt(state.tree, limit);
    const menu = $("x-depth");
    menu.value = limit === null ? "all" : String(limit);
    if (menu.selectedIndex < 0) menu.value = "all";   // a limit this tree does not reach
  }

  function unfoldPath() {
    if (!state.showPath || !state.path) return;
    state.path.forEach((k, j) => { if (j < state.path.length - 1) state.folded.delete(k); });
  }

  function fillDepthMenu(t) {
    const menu = $("x-depth");
    menu.textContent = "";
    let maxDepth = 0;
    for (let k = 0; k < t.count; k++) maxDepth = Math.max(maxDepth, t.depth[k]);
    for (let d = 1; d < maxDepth; d++) {
      const o = document.createElement("option");
      o.value = String(d); o.textContent = String(d);
      menu.appendChild(o);
    }
    const all = document.createElement("option");
    all.value = "all"; all.textContent = "all (" + maxDepth + ")";
    menu.appendChild(all);
  }

  function fillSummary() {
    const dl = $("x-summary");
    dl.textContent = "";
    const t = state.tree;
    const add = (term, value) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = term; dd.textContent = value;
      dl.appendChild(dt); dl.appendChild(dd);
    };
    let leaves = 0, maxDepth = 0;
    for (let k = 0; k < t.count; k++) {
      if (t.feature[k] < 0) leaves++;
      maxDepth = Math.max(maxDepth, t.depth[k]);
    }
    add("leaves, depth", leaves + ", " + maxDepth);
    if (!multiway && F.kind === "cost") {
      const k = state.row;
      add("expected tests", fmt(rows.expected_tests[k]) + " per sample (training)");
      add("total cost", fmt(rows.cost[k], 6) + " (training)");
      add("value", "train " + fmt(rows.train[k]) + (rows.test ? ", test " + fmt(rows.test[k])
        : ""));
      add("price", "[" + fmt(rows.price_min[k]) + ", " + fmt(rows.price_max[k]) + "]" +
        " reward per unit of cost makes it the best");
      // A tree fitted at a price p holds the net rewards, the mean of rewards - p * costs; the
      // cheapest, fitted at an infinite price, minus the mean costs.
      if (rows.price[k] === "inf") add("node values", "minus the mean cost of each action");
      else if (rows.price[k] !== 0) add("node values", "net reward at price " +
        fmt(rows.price[k]) + ": mean of reward − price × cost");
      if (k === F.chosen) add("", "the tree the estimator predicts with now (its max_cost)");
    } else if (!multiway) {
      const k = state.row;
      add("expected tests", fmt(rows.expected_tests[k]) + " per sample (training)");
      // Counted splits are the leaves less one, shown above; costed ones are not.
      if (F.xlabel.indexOf("expected") < 0 && rows.complexity[k] !== leaves - 1)
        add(F.xlabel, fmt(rows.complexity[k]));
      add("train " + F.ylabel, fmt(metric(rows.train[k])));
      if (rows.test) add("test " + F.ylabel, fmt(rows.test[k]));
      add("alpha", rows.alpha_min[k] === null ? "none selects it alone (off the hull)" : "[" +
        fmt(rows.alpha_min[k]) + ", " + fmt(rows.alpha_max[k]) + "]");
      if (k === F.chosen) add("", "the tree the estimator predicts with now");
    }
  }

  function fillFeatures() {
    const t = state.tree;
    const table = $("x-features");
    table.textContent = "";
    // share: the training samples whose path tests the feature at least once, i.e. reach a
    // node testing it with no such node above.
    const used = new Map();
    (function walk(k, tested) {
      const f = t.feature[k];
      if (f < 0) return;
      const u = used.get(f) || { tests: 0, share: 0 };
      u.tests++;
      if (!tested.has(f)) u.share += t.n[k] / t.n[0];
      used.set(f, u);
      const below = new Set(tested).add(f);
      t.children[k].forEach((c) => walk(c, below));
    })(0, new Set());
    const order = Array.from(used.keys()).sort((a, b) => used.get(b).share - used.get(a).share);
    if (!order.length) {
      const row = table.insertRow();
      row.insertCell().textContent = "none: the tree is a single leaf";
    }
    for (const f of order) {
      const u = used.get(f);
      const row = table.insertRow();
      row.insertCell().textContent = data.features[f];
      const bar = document.createElement("div");
      bar.className = "x-bar";
      bar.style.width = Math.round(80 * Math.min(1, u.share)) + "px";
      const cell = row.insertCell();
      cell.appendChild(bar);
      cell.title = "share of training samples tested on it";
      const tests = row.insertCell();
      tests.className = "num"; tests.textContent = u.tests + (u.tests > 1 ? " tests" : " test");
      const share = row.insertCell();
      share.className = "num"; share.textContent = Math.round(100 * u.share) + "% of samples";
    }
  }

  function fillSample() {
    if (!data.samples) return;
    const t = state.tree, s = state.sample;
    const path = state.path = samplePath(t, s);
    const leaf = path[path.length - 1];
    const result = $("x-sample-result");
    let line = "predicted " + prediction(t, leaf);
    if (data.samples.y) {
      const truth = data.samples.y[s];
      line += " · true " + (classifier ? truth : truth.length === 1 ? fmt(truth[0]) :
        "[" + truth.map((v) => fmt(v, 3)).join(", ") + "]");
      if (classifier) line += truth === data.classes[argmax(t.value[leaf])] ? "  ✓" : "  ✗";
    }
    result.textContent = line;
    const list = $("x-sample-path");
    list.textContent = "";
    for (let j = 0; j + 1 < path.length; j++) {
      const k = path[j], f = t.feature[k];
      const value = data.samples.X[s][f];
      const item = document.createElement("li");
      if (multiway) {
        item.textContent = data.features[f] + " " + t.labels[k][t.children[k].indexOf(path[j +
          1])];
      } else {
        const left = path[j + 1] === t.children[k][0];
        item.textContent = data.features[f] + " = " + (value === null ? "missing" : fmt(value, 6)) +
          (left ? " ≤ " : " > ") + fmt(t.threshold[k], 6);
      }
      list.appendChild(item);
    }
    const leafItem = document.createElement("li");
    leafItem.textContent = "leaf: " + prediction(t, leaf);
    list.appendChild(leafItem);
  }

  // ---- choosing ----
  function select(k, keepView) {
    const start = performance.now();
    k = Math.max(0, Math.min(nRows - 1, k));
    state.row = k;
    if (F) F.row = k;
    state.tree = multiway ? multiwayTree() : binaryTree(rows.root[k]);
    if (!classifier) {
      let lo = Infinity, hi = -Infinity;
      state.tree.value.forEach((v) => { lo = Math.min(lo, v[0]); hi = Math.max(hi, v[0]); });
      valueRange = [lo, hi];
    }
    if (data.samples) fillSample();
    fillDepthMenu(state.tree);
    // The depth the reader chose holds for the next trees; else the readable default.
    setDepth(state.depthChoice === undefined ? defaultDepth(state.tree) : state.depthChoice);
    drawTree();
    if (!keepView) fitView(true);
    fillSummary();
    fillFeatures();
    if (!multiway) {
      $("x-slider").value = String(k);
      $("x-slider-text").textContent = rows.n_leaves[k] + " leaves · " + (F.kind === "cost" ?
        "cost " + fmt(rows.cost[k], 4) : "alpha " + (rows.alpha_min[k] === null ? "–" :
          fmt(rows.alpha_min[k], 3) + "…" + fmt(rows.alpha_max[k], 3)));
      $("x-code").value = rows.code[k];
      $("x-code").rows = Math.min(5, rows.code[k].split("\n").length + 1);
      markFront();
    }
    state.lastSelectMs = performance.now() - start;
    return state.lastSelectMs;
  }

  // Show the front ``kind`` ("complexity" or "cost") and the tree last shown of it.
  function showFront(kind) {
    if (!fronts[kind]) return;
    F = fronts[kind];
    rows = F.rows;
    nRows = rows.root.length;
    $("x-slider").max = String(nRows - 1);
    document.querySelectorAll("input[name=x-front-kind]").forEach((input) => {
      input.checked = input.value === kind;
    });
    drawFront();
    select(F.row);
  }

  function setSample(s) {
    if (!data.samples) return;
    const n = data.samples.X.length;
    state.sample = Math.max(0, Math.min(n - 1, s));
    $("x-sample").value = String(state.sample);
    fillSample();
    showPath();
  }

  // After the sample's path changed: under the page's own depth, the levels that fit with the
  // new path open, the whole in view; under the reader's, the path opened and brought into view.
  function showPath() {
    if (state.depthChoice === undefined) {
      setDepth(defaultDepth(state.tree));
      drawTree();
      fitView(true);
      return;
    }
    unfoldPath();
    redrawKeeping(0);
  }

  // ---- wiring ----
  function init() {
    document.title = "dpdt explorer: " + data.estimator;
    $("x-title").textContent = "dpdt explorer · " + data.estimator;
    $("x-repr").textContent = data.repr;
    if (multiway) {
      $("x-front-box").hidden = true;
      $("x-code-box").hidden = true;
    } else {
      const frontBox = $("x-front-box");
      frontBox.insertBefore(legendBox, front.svg.nextSibling);
      if (fronts.cost) {
        $("x-front-switch").hidden = false;
        document.querySelectorAll("input[name=x-front-kind]").forEach((input) => {
          input.checked = input.value === F.kind;
          input.addEventListener("change", () => { if (input.checked) showFront(input.value); });
        });
      }
      const slider = $("x-slider");
      slider.max = String(nRows - 1);
      slider.addEventListener("input", () => select(parseInt(slider.value, 10)));
      front.svg.addEventListener("click", frontClick);
      drawFront();
      let resizeTimer = null;
      window.addEventListener("resize", () => {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => { drawFront(); markFront(); }, 100);
      });
    }
    const legend = $("x-legend");
    if (classifier) {
      data.classes.forEach((name, c) => {
        const span = document.createElement("span");
        const swatch = document.createElement("i");
        swatch.style.background = PALETTE[c % PALETTE.length];
        span.appendChild(swatch);
        span.appendChild(document.createTextNode(name));
        legend.appendChild(span);
      });
    }
    if (data.samples) {
      $("x-sample-box").hidden = false;
      const input = $("x-sample");
      input.max = String(data.samples.X.length - 1);
      $("x-sample-count").textContent = "of " + data.samples.X.length;
      input.addEventListener("change", () => setSample(parseInt(input.value, 10) || 0));
      $("x-sample-prev").addEventListener("click", () => setSample(state.sample - 1));
      $("x-sample-next").addEventListener("click", () => setSample(state.sample + 1));
      $("x-sample-on").addEventListener("change", (e) => {
        state.showPath = e.target.checked;
        showPath();
      });
    }
    $("x-copy").addEventListener("click", () => {
      const area = $("x-code");
      const done = () => { $("x-copied").textContent = "copied"; };
      area.select();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(area.value).then(done, () => {
          $("x-copied").textContent = "selected: press Ctrl+C";
        });
      } else {
        $("x-copied").textContent = document.execCommand && document.execCommand("copy") ?
          "copied" : "selected: press Ctrl+C";
      }
    });
    $("x-zoom-in").addEventListener("click", () => zoom(1.25));
    $("x-zoom-out").addEventListener("click", () => zoom(0.8));
    $("x-fit").addEventListener("click", () => fitView(false));
    $("x-depth").addEventListener("change", (e) => {
      state.depthChoice = e.target.value === "all" ? null : parseInt(e.target.value, 10);
      setDepth(state.depthChoice);
      drawTree();
      fitView(true);
    });
    // pan, zoom, fold
    let drag = null;
    treeSvg.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, vx: state.view.x, vy: state.view.y, moved: false };
    });
    treeSvg.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && dx * dx + dy * dy < 16) return;
      if (!drag.moved) { drag.moved = true; treeSvg.setPointerCapture(e.pointerId); }
      treeSvg.classList.add("dragging");
      state.view.x = drag.vx + dx; state.view.y = drag.vy + dy;
      applyView();
    });
    treeSvg.addEventListener("pointerup", (e) => {
      const moved = drag && drag.moved;
      drag = null;
      treeSvg.classList.remove("dragging");
      if (moved) return;
      const node = e.target.closest && e.target.closest(".x-node");
      if (!node) return;
      const k = parseInt(node.getAttribute("data-node"), 10);
      if (state.tree.feature[k] < 0) return;
      if (state.folded.has(k)) state.folded.delete(k); else state.folded.add(k);
      redrawKeeping(k);
    });
    treeSvg.addEventListener("mouseover", tooltip);
    overview.addEventListener("click", overviewClick);
    treeSvg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const rect = treeSvg.getBoundingClientRect();
      zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - rect.left, e.clientY - rect.top);
    }, { passive: false });
    document.addEventListener("keydown", (e) => {
      const tag = e.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const actions = {
        ArrowLeft: () => select(state.row - 1), ArrowRight: () => select(state.row + 1),
        ArrowDown: () => select(state.row - 1), ArrowUp: () => select(state.row + 1),
        Home: () => select(0), End: () => select(nRows - 1),
        "+": () => zoom(1.25), "=": () => zoom(1.25), "-": () => zoom(0.8),
        "0": () => fitView(false),
        "[": () => setSample(state.sample - 1), "]": () => setSample(state.sample + 1),
      };
      if (multiway && e.key.startsWith("Arrow")) return;
      const action = actions[e.key];
      if (action) { e.preventDefault(); action(); }
    });
    select(state.row);
  }

  // The read-only API of the tests and the benchmark.
  window.dpdtExplorer = {
    data: data,
    select: (k) => select(k),
    selected: () => state.row,
    // The front shown ("complexity" or "cost"), and showing one.
    front: () => (F ? F.kind : null),
    showFront: (kind) => showFront(kind),
    setSample: (s) => setSample(s),
    // d: the deepest level shown unfolded, null for all, undefined for the page's own choice.
    setDepth: (d) => {
      state.depthChoice = d;
      setDepth(d === undefined ? defaultDepth(state.tree) : d);
      drawTree();
      fitView(true);
    },
    lastSelectMs: () => state.lastSelectMs,
    tree: () => {
      const t = state.tree;
      const left = t.children.map((c) => (multiway ? -1 : c.length ? c[0] : -1));
      const right = t.children.map((c) => (multiway ? -1 : c.length ? c[1] : -1));
      return { node_count: t.count, feature: t.feature.slice(), threshold: t.threshold &&
        t.threshold.slice(), value: t.value.slice(), n_node_samples: t.n.slice(),
      children_left: left, children_right: right,
      children: t.children.map((c) => c.slice()) };
    },
    path: () => (state.path ? state.path.slice() : null),
    shownNodes: () => state.layout.visible.slice(),
  };
  init();
})();
