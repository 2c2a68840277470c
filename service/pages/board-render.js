/* The board {"kind", "cells": [{id, x, y, label, fill, pieces}], "edges"} as an SVG: a small
 * composition of the geometry (board-geometry.js), the cells (board-cell.js) and the overlays.
 *
 * A game's skin (docs/pages.md) may give each cell a readable `name`, a `mark` (a glyph), a
 * `tip`, a `ring` colour, on a grid a `span` [columns, rows] for a cell drawn wider or taller
 * than one square (centred on its x, y), and each piece a title, a symbol and a shape;
 * `overlays` are extra clickable shapes over groups of cells (e.g. the set-up spots of
 * Factions). Options:
 *   onCell(id)  called when a target is activated (click, Enter or Space);
 *   targets     ids that may be chosen now (highlighted, and the only ones in the tab order);
 *   path        ids chosen so far (numbered); marked: ids the last move touched;
 *   ghosts      {cell id: [pieces]} removed since the viewer's last move, drawn faded;
 *   fit         the width in px the board may take: text is sized so that none is drawn
 *               under `minFont` px at that width; rotate: 0 or 180 (the viewer's side down);
 *   onInfo(id, text) called on any click of a cell, with what its tooltip says. */

import { el, svg } from "./dom.js";
import { layout } from "./board-geometry.js";
import { drawCell } from "./board-cell.js";

/* Each cell's half width and height (its span on a grid), and the drawing's bounds. */
function extent(L) {
  const half = L.kind === "grid" ? L.unit / 2 : L.radius;
  const spanOf = (cell) => {
    const sp = L.kind === "grid" && Array.isArray(cell.span) ? cell.span.map(Number) : [1, 1];
    return sp.length === 2 && sp.every((n) => Number.isFinite(n) && n >= 1 && n <= 16) ? sp : [1, 1];
  };
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const c of L.cells) {
    const [sw, sh] = spanOf(c.cell);
    c.hw = L.kind === "grid" ? half * sw : half;
    c.hh = L.kind === "grid" ? half * sh : half;
    minX = Math.min(minX, c.cx - c.hw); maxX = Math.max(maxX, c.cx + c.hw);
    minY = Math.min(minY, c.cy - c.hh); maxY = Math.max(maxY, c.cy + c.hh);
  }
  const pad = 8;
  return { x: minX - pad, y: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
}

/* The <svg>, sized to the width given (never above 1.35x natural size); without one, about
 * natural size and never below half (a very large board scrolls inside its box). */
function root(L, box, title, fit) {
  const node = svg("svg", {
    viewBox: `${box.x.toFixed(1)} ${box.y.toFixed(1)} ${box.w.toFixed(1)} ${box.h.toFixed(1)}`,
    class: `board board-${L.kind}`, role: "group", "aria-label": `${title}: ${L.kind} board, ${L.cells.length} cells`,
    preserveAspectRatio: "xMidYMid meet",
  });
  let scale = 1;
  if (fit > 0) {
    scale = Math.min(1.35, fit / box.w);
    node.style.width = (box.w * scale).toFixed(0) + "px";
  } else {
    node.style.width = "100%";
    node.style.maxWidth = (box.w * 1.35).toFixed(0) + "px";
    node.style.minWidth = Math.min(box.w * 0.5, 1400).toFixed(0) + "px";
  }
  node.append(svg("title", { text: `${title} (${L.kind})` }));
  return { node, scale };
}

function edges(board, byId) {
  const g = svg("g", { class: "edges" });
  for (const e of board.edges) {
    if (!Array.isArray(e) || e.length < 2) continue;
    const a = byId.get(String(e[0])), b = byId.get(String(e[1]));
    if (a && b) g.append(svg("line", { x1: a.cx.toFixed(1), y1: a.cy.toFixed(1), x2: b.cx.toFixed(1), y2: b.cy.toFixed(1), class: "edge" }));
  }
  return g;
}

/* A target's keyboard and click handling: in the tab order, Enter or Space chooses it. */
function activator(onCell) {
  return (g, id, label) => {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", label);
    g.classList.add("clickable", "target");
    g.addEventListener("click", () => onCell(id));
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onCell(id); } });
  };
}

function overlay(L, o, byId, fonts, opts) {
  const cs = (o.cells || []).map((x) => byId.get(String(x))).filter(Boolean);
  if (!cs.length) return null;
  const xs = cs.map((c) => c.cx), ys = cs.map((c) => c.cy);
  const hx = L.kind === "grid" ? L.unit / 2 : L.radius;
  const x0 = Math.min(...xs) - hx + 3, y0 = Math.min(...ys) - hx + 3, x1 = Math.max(...xs) + hx - 3, y1 = Math.max(...ys) + hx - 3;
  const id = String(o.id);
  const g = svg("g", { class: "overlay" + (opts.want.has(id) ? " live" : "") + (opts.chosen.includes(id) ? " chosen" : "") + (opts.hot.has(id) ? " marked" : ""), "data-id": id },
    svg("title", { text: o.title || o.label || id }),
    svg("rect", { x: x0.toFixed(1), y: y0.toFixed(1), width: (x1 - x0).toFixed(1), height: (y1 - y0).toFixed(1), rx: 6, class: "overlay-shape" }));
  if (o.label) {
    g.append(svg("text", { x: ((x0 + x1) / 2).toFixed(1), y: ((y0 + y1) / 2 + fonts.nameFs * 0.36).toFixed(1), "text-anchor": "middle",
      "font-size": (fonts.nameFs * 1.2).toFixed(1), class: "overlay-label", text: o.label }));
  }
  if (opts.onCell && opts.want.has(id)) opts.activate(g, id, o.title || o.label || id);
  return g;
}

export function renderBoard(board, { names = null, onCell = null, title = "Game board", targets = null, path = null,
  marked = null, ghosts = null, overlays = null, fit = 0, rotate = 0, minFont = 11, onInfo = null } = {}) {
  if (!board || !Array.isArray(board.cells)) return el("p", { class: "muted" }, "This view has no board to draw.");
  const L = layout(board);
  if (L.cells.length === 0) return el("p", { class: "muted" }, "The board is empty.");
  if (rotate === 180) for (const c of L.cells) { c.cx = -c.cx; c.cy = -c.cy; }
  const byId = new Map(L.cells.map((c) => [String(c.cell.id), c]));
  const { node, scale } = root(L, extent(L), title, fit);
  // A font size in viewBox units drawn at `px` or more, and never under minFont.
  const fsz = (px) => Math.max(px, (minFont + 0.3) / scale);
  const fonts = { idFs: fsz(10), nameFs: fsz(11), pieceFs: fsz(10.5) };
  const opts = { names, onCell, onInfo, ghosts, want: new Set((targets || []).map(String)), chosen: (path || []).map(String),
    hot: new Set((marked || []).map(String)), activate: activator(onCell) };
  if (Array.isArray(board.edges)) node.append(edges(board, byId));
  for (const c of L.cells) node.append(drawCell(L, c, fonts, opts));
  for (const o of overlays || []) {
    const g = overlay(L, o, byId, fonts, opts);
    if (g) node.append(g);
  }
  return node;
}
