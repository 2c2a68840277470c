/* A cell's piece tokens drawn where token-layout.js placed them: the owner's colour, a symbol for
 * the unit's kind where the skin gives one (symbols.js), the label, and the full name on hover or
 * tap (its title, and the cell's aria-label). */

import { svg } from "./dom.js";
import { seatColour, textOn } from "./seats.js";
import { symbol } from "./symbols.js";
import { CHAR_W, safeFill } from "./text-fit.js";

/* What a token names in full: the skin's title, else its label and owner. */
export function tokenTitle(p, label, names) {
  const owner = Number.isInteger(p.owner) ? p.owner : null;
  const who = owner === null ? "" : ` (${(names && names[owner]) || `seat ${owner}`})`;
  return p.title || `${label}${who}`;
}

function tokenParts(t, fs) {
  const p = t.p;
  const owner = !t.more && Number.isInteger(p.owner) ? p.owner : null;
  const colour = t.more ? "#ffffff" : safeFill(p.fill, seatColour(owner));
  const ink = p.ink || textOn(colour);
  // The symbol at the token's start, or in its middle when it stands alone (a phone's Rite unit).
  const size = t.h - 2;
  const mark = !t.more && p.symbol ? symbol(p.symbol, { x: t.label ? t.x + 2 : t.x + (t.w - size) / 2, y: t.y + 1, size, ink }) : null;
  const textX = mark ? t.x + (t.h - 2) + (t.w - (t.h - 2)) / 2 : t.x + t.w / 2;
  const room = t.w - 6 - (mark ? t.h - 2 : 0);
  const squeeze = t.label.length * CHAR_W * fs > room;
  return {
    owner, mark,
    rect: svg("rect", { x: t.x.toFixed(1), y: t.y.toFixed(1), width: t.w.toFixed(1), height: t.h, rx: p.square ? 3 : t.h / 2,
      fill: colour, stroke: p.stroke || "#111", "stroke-width": p.stroke ? 2.5 : 1,
      "stroke-dasharray": t.more || p.dashed || p.ghost ? "4 2" : null }),
    text: t.label ? svg("text", { x: textX.toFixed(1), y: (t.y + t.h / 2 + fs * 0.36).toFixed(1), "text-anchor": "middle",
      class: "piece-label", "font-size": fs.toFixed(1), fill: ink, text: t.label,
      textLength: squeeze ? Math.max(1, room).toFixed(1) : null, lengthAdjust: squeeze ? "spacingAndGlyphs" : null }) : null,
  };
}

/* The tokens as one <g class="pieces">. */
export function drawTokens(placed, fs, names) {
  const g = svg("g", { class: "pieces" });
  for (const t of placed) {
    const { owner, rect, text, mark } = tokenParts(t, fs);
    const tip = t.more ? `${t.label} more pieces: see the cell's tooltip` : tokenTitle(t.p, t.label, names);
    const cls = t.more ? "piece more" : `piece${t.p.ghost ? " ghost" : ""}`;
    g.append(svg("g", { class: cls, "data-owner": owner === null ? "" : owner, "data-label": t.label },
      svg("title", { text: t.p.ghost ? `Removed since your last move: ${tip}` : tip }), rect, mark, text));
  }
  return g;
}
