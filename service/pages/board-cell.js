/* One cell of the board as SVG: its shape, the last move's wash, its id line and name, its
 * tokens (token-layout.js places them, board-tokens.js draws them), its step number while a
 * move is built, and what a hover, a tap and a screen reader are told of it. */

import { svg } from "./dom.js";
import { hexPoints } from "./board-geometry.js";
import { textOn } from "./seats.js";
import { drawTokens, tokenTitle } from "./board-tokens.js";
import { cellFrame, placeTokens } from "./token-layout.js";
import { nameWidth, safeFill, splitName } from "./text-fit.js";

/* Text that fits `room`: one line, else two (split at a space), squeezed where still too long. */
function fitText(x, y, str, fs, room, lines, attrs) {
  const g = svg("g", {});
  const line = (s, yy) => {
    const t = svg("text", { x: x.toFixed(1), y: yy.toFixed(1), "font-size": fs.toFixed(1), "text-anchor": "middle", ...attrs, text: s });
    if (nameWidth(s, fs) > room) { t.setAttribute("textLength", room.toFixed(1)); t.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
    return t;
  };
  if (lines === 1) g.append(line(str, y));
  else { const [a, b] = splitName(str); g.append(line(a, y - fs * 0.55), line(b, y + fs * 0.55)); }
  return g;
}

/* The cell's id, name (a label repeating the id is shown once) and pieces (ghosts faded). */
function cellWords(cell, ghosts) {
  const id = String(cell.id);
  let label = cell.label === undefined || cell.label === null ? "" : String(cell.label);
  if (label.startsWith(id + " ")) label = label.slice(id.length + 1).trim();
  const name = cell.name !== undefined ? String(cell.name || "") : (label && label !== id ? label : "");
  const pieces = [...(cell.pieces || []), ...((ghosts && ghosts[id]) || []).map((p) => ({ ...p, ghost: true }))];
  return { id, name, pieces };
}

/* The cell's outline for its kind, and the geometry token-layout.js works in. */
function cellShape(L, c, fill) {
  if (L.kind === "hex") {
    return { el: svg("polygon", { points: hexPoints(c.cx, c.cy, L.radius - 1, L.flat), fill, class: "cell-shape" }),
      geom: { kind: "hex", cx: c.cx, cy: c.cy, r: L.radius, flat: L.flat } };
  }
  if (L.kind === "areas") {
    return { el: svg("circle", { cx: c.cx.toFixed(1), cy: c.cy.toFixed(1), r: L.radius, fill, class: "cell-shape" }),
      geom: { kind: "areas", cx: c.cx, cy: c.cy, r: L.radius, bare: Boolean(c.cell.hideId && !c.cell.mark) } };
  }
  return { el: svg("rect", { x: (c.cx - c.hw + 0.5).toFixed(1), y: (c.cy - c.hh + 0.5).toFixed(1), width: 2 * c.hw - 1, height: 2 * c.hh - 1, fill, class: "cell-shape" }),
    geom: { kind: "grid", cx: c.cx, cy: c.cy, hw: c.hw, hh: c.hh } };
}

/* A ring in the cell (a summoning circle, a camp's owner) and the last move's wash. */
function decorations(L, c, shape, marked) {
  const out = [];
  if (c.cell.ring) {
    const ring = shape.cloneNode();
    ring.setAttribute("fill", "none");
    ring.setAttribute("class", "cell-ring");
    ring.setAttribute("stroke", safeFill(c.cell.ring, "#444"));
    if (ring.tagName === "polygon") ring.setAttribute("points", hexPoints(c.cx, c.cy, L.radius - 5, L.flat));
    else if (ring.tagName === "circle") ring.setAttribute("r", String(L.radius - 4));
    out.push(ring);
  }
  if (marked) {
    // The last move's cells: a yellow wash under the text and pieces, as chess sites do.
    const wash = shape.cloneNode();
    wash.setAttribute("class", "mark-wash");
    out.push(wash);
  }
  return out;
}

/* The id line and the name, where the frame put them. */
function texts(L, c, frame, fonts, ink) {
  const { cell } = c;
  const out = [];
  if (!cell.hideId || cell.mark) {
    const grid = L.kind === "grid";
    out.push(svg("text", { x: (grid ? c.cx - c.hw + 3 : c.cx).toFixed(1), y: frame.idY.toFixed(1), "font-size": fonts.idFs.toFixed(1),
      "text-anchor": grid ? "start" : "middle", class: "cell-id", fill: ink,
      text: cell.hideId ? cell.mark : cell.mark ? `${cell.id} ${cell.mark}` : String(cell.id) }));
  }
  if (frame.name) out.push(fitText(c.cx, frame.name.y, frame.name.text, fonts.nameFs, frame.name.room, frame.name.lines, { class: "cell-label", fill: ink }));
  return out;
}

function stepBadge(c, half, fs, step) {
  const bx = c.cx + c.hw - half * 0.45, by = c.cy - c.hh + half * 0.45;
  return [svg("circle", { cx: bx.toFixed(1), cy: by.toFixed(1), r: (fs * 0.85).toFixed(1), class: "step-badge" }),
    svg("text", { x: bx.toFixed(1), y: (by + fs * 0.36).toFixed(1), "text-anchor": "middle", "font-size": fs.toFixed(1), class: "step-num", text: String(step + 1) })];
}

/* The cell as a <g>, with `opts` the board's (names, ghosts, marks, the move being built). */
export function drawCell(L, c, fonts, opts) {
  const { id, name, pieces } = cellWords(c.cell, opts.ghosts);
  const hot = opts.hot.has(id);
  const g = svg("g", { class: "cell" + (hot ? " marked" : "") + (opts.chosen.includes(id) ? " chosen" : ""), "data-id": id });
  const pieceText = pieces.map((p) => (p.ghost ? "removed: " : "") + tokenTitle(p, p.label, opts.names)).join("; ");
  const tip = c.cell.tip || `${id}${name ? " — " + name : ""}`;
  g.append(svg("title", { text: `${tip}${pieceText ? "\n" + pieceText : ""}${hot ? "\n(touched by the last move)" : ""}` }));
  const fillDefault = L.kind === "areas" ? "#eef3e6" : "#f4f1e8";
  const fill = safeFill(c.cell.fill, fillDefault);
  const ink = textOn(/^#[0-9a-f]{6}$/i.test(fill) ? fill : fillDefault);
  const shape = cellShape(L, c, fill);
  if (c.cell.pattern) shape.el.setAttribute("data-pattern", c.cell.pattern);
  g.append(shape.el, ...decorations(L, c, shape.el, hot));
  const frame = cellFrame(shape.geom, fonts, { name, idLine: !c.cell.hideId || Boolean(c.cell.mark), tokens: pieces.length, square: pieces.some((p) => p.square) });
  g.append(...texts(L, c, frame, fonts, ink), drawTokens(placeTokens(pieces, frame.box), fonts.pieceFs, opts.names));
  const step = opts.chosen.indexOf(id);
  if (step >= 0) g.append(...stepBadge(c, L.kind === "grid" ? L.unit / 2 : L.radius, fonts.idFs, step));
  if (opts.onCell && opts.want.has(id)) opts.activate(g, id, `${id}${name ? ", " + name : ""}${pieceText ? ", " + pieceText : ""}`);
  // A tap shows what a hover would (phones have no hover): the cell, its effect, its pieces.
  if (opts.onInfo) g.addEventListener("click", () => opts.onInfo(id, `${tip}${pieceText ? "\n" + pieceText : ""}`));
  return g;
}
