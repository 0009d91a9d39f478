// The boards as SVG: Brazilian draughts (8×8 with both coordinates and the square
// numbers) and Kalah (two rows of six pits and the stores). Drawing only: the page
// (app.js) decides what is marked and what a click does.
"use strict";

const Boards = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, content, attrs) {
    const node = el("text", Object.assign({ x, y }, attrs || {}), parent);
    node.textContent = content;
    return node;
  }

  // squares: [{n, file, rank}] (file 0 = a, rank 0 = 1); pieces[n - 1]: "w", "W", "b",
  // "B" or null; marks: {selected, targets, path, last, captured} of square numbers.
  function draughts(container, { squares, pieces, flipped, marks, onClick }) {
    const cell = 60;
    const margin = 22;
    const size = 8 * cell + 2 * margin;
    const svg = el("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": "draughts board" });
    const m = marks || {};
    const has = (list, n) => (list || []).includes(n);
    const x = (file) => margin + (flipped ? 7 - file : file) * cell;
    const y = (rank) => margin + (flipped ? rank : 7 - rank) * cell;
    for (let file = 0; file < 8; file++) {
      for (let rank = 0; rank < 8; rank++) {
        if ((file + rank) % 2 === 1) el("rect", { x: x(file), y: y(rank), width: cell, height: cell, class: "sq-light" }, svg);
      }
    }
    for (const sq of squares) {
      const classes = ["sq-dark"];
      if (has(m.last, sq.n)) classes.push("last");
      if (has(m.path, sq.n)) classes.push("path");
      if (has(m.targets, sq.n)) classes.push("target");
      if (m.selected === sq.n) classes.push("selected");
      const rect = el("rect", {
        x: x(sq.file), y: y(sq.rank), width: cell, height: cell,
        class: classes.join(" "), "data-square": sq.n,
      }, svg);
      if (onClick) rect.addEventListener("click", () => onClick(sq.n));
      text(svg, x(sq.file) + 3, y(sq.rank) + 11, String(sq.n), { class: "sq-num" });
      const piece = pieces[sq.n - 1];
      if (piece) {
        const colour = piece.toLowerCase() === "w" ? "white" : "black";
        const cx = x(sq.file) + cell / 2;
        const cy = y(sq.rank) + cell / 2;
        el("circle", { cx, cy, r: cell * 0.38, class: `piece ${colour}`, "data-piece": piece, "data-on": sq.n }, svg);
        if (piece === "W" || piece === "B") text(svg, cx, cy + 7, "K", { class: `crown ${colour}` });
      }
      if (has(m.captured, sq.n)) {
        el("circle", { cx: x(sq.file) + cell / 2, cy: y(sq.rank) + cell / 2, r: cell * 0.45, class: "captured-mark" }, svg);
      }
    }
    for (let i = 0; i < 8; i++) {
      text(svg, x(i) + cell / 2, size - 6, "abcdefgh"[i], { class: "coord", "text-anchor": "middle" });
      text(svg, 8, y(i) + cell / 2 + 4, String(i + 1), { class: "coord", "text-anchor": "middle" });
    }
    container.replaceChildren(svg);
  }

  // board: {pits: [[6 counts of the first side], [the second's]], stores: [a, b]};
  // names: the sides' names; playable: pits (1..6) of `side` that may be clicked;
  // sown: {side, pit} to mark.
  function kalah(container, { board, names, flipped, playable, sown, onClick }) {
    const w = 90;
    const top = flipped ? 0 : 1;
    const bottom = 1 - top;
    const width = 8 * w;
    const height = 3 * w + 40;
    const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Kalah board" });
    el("rect", { x: 0, y: 20, width, height: 3 * w, rx: 24, class: "kalah-bg" }, svg);
    const pit = (side, index, cx, cy) => {
      const classes = ["pit"];
      const canPlay = playable && playable.side === side && playable.pits.includes(index + 1);
      if (canPlay) classes.push("playable");
      if (sown && sown.side === side && sown.pit === index + 1) classes.push("sown");
      const circle = el("circle", {
        cx, cy, r: w * 0.38, class: classes.join(" "),
        "data-pit": `${side}:${index + 1}`,
      }, svg);
      if (onClick) circle.addEventListener("click", () => onClick(side, index + 1));
      text(svg, cx, cy, String(board.pits[side][index]), { class: "count", "data-count": `${side}:${index + 1}` });
    };
    // The top side's pits run right to left (its pit 1 on its own left, our right).
    for (let i = 0; i < 6; i++) {
      const cxTop = w * (6 - i) + w / 2;
      pit(top, i, cxTop, 20 + w * 0.8);
      text(svg, cxTop, 14, String(i + 1), { class: "pit-label" });
      const cxBottom = w * (1 + i) + w / 2;
      pit(bottom, i, cxBottom, 20 + w * 2.2);
      text(svg, cxBottom, height - 4, String(i + 1), { class: "pit-label" });
    }
    const store = (side, x) => {
      el("rect", { x: x + 10, y: 40, width: w - 20, height: 3 * w - 40, rx: 30, class: "store", "data-store": side }, svg);
      text(svg, x + w / 2, 20 + 1.5 * w, String(board.stores[side]), { class: "count", "data-store-count": side });
    };
    store(top, 0);
    store(bottom, 7 * w);
    text(svg, 6, 14, names[top], { class: "side-label" });
    text(svg, width - 6, height - 4, names[bottom], { class: "side-label", "text-anchor": "end" });
    container.replaceChildren(svg);
  }

  // A line chart of several series over x: [{name, colour, points: [[x, y]]}].
  function lines(container, { title, xLabel, series }) {
    const W = 520, H = 300, L = 60, R = 16, T = 34, B = 44;
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
    text(svg, W / 2, 20, title, { "text-anchor": "middle", "font-size": 14 });
    const all = series.flatMap((s) => s.points);
    if (all.length === 0) {
      text(svg, W / 2, H / 2, "no data yet", { "text-anchor": "middle", fill: "#888" });
      container.replaceChildren(svg);
      return;
    }
    const xs = all.map((p) => p[0]);
    const ys = all.map((p) => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
    let y0 = Math.min(...ys, 0), y1 = Math.max(...ys);
    if (y1 <= y0) y1 = y0 + 1;
    const px = (v) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
    const py = (v) => T + ((y1 - v) / (y1 - y0)) * (H - T - B);
    for (let i = 0; i <= 4; i++) {
      const v = y0 + ((y1 - y0) * i) / 4;
      el("line", { x1: L, x2: W - R, y1: py(v), y2: py(v), stroke: "#eee" }, svg);
      text(svg, L - 6, py(v) + 4, String(Number(v.toPrecision(2))), { "text-anchor": "end", "font-size": 11 });
    }
    text(svg, L, H - 24, String(x0), { "font-size": 11, "text-anchor": "middle" });
    text(svg, W - R, H - 24, String(x1), { "font-size": 11, "text-anchor": "middle" });
    text(svg, (L + W - R) / 2, H - 8, xLabel, { "text-anchor": "middle", "font-size": 12 });
    series.forEach((s, k) => {
      const pts = s.points.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(" ");
      el("polyline", { points: pts, fill: "none", stroke: s.colour, "stroke-width": 2 }, svg);
      el("rect", { x: L + 10 + k * 150, y: T - 4, width: 12, height: 4, fill: s.colour }, svg);
      text(svg, L + 26 + k * 150, T, s.name, { "font-size": 11 });
    });
    container.replaceChildren(svg);
  }

  return { draughts, kalah, lines };
})();
