/* Where a cell's id line, name and piece tokens go: ONE algorithm for grid squares, hexes and
 * areas (circles). Pure (no DOM): board-cell.js draws what it answers, and the node tests
 * (tests/js/token-layout.test.js) check that nothing overlaps for 1-12 tokens in every shape.
 *
 * The algorithm, for every shape:
 *  1. the shape says where its id line and its name sit (`metrics`);
 *  2. the tokens get the band between the id line's bottom (or the shape's top, with no id
 *     line) and the name's top (or the shape's bottom, with no name drawn);
 *  3. as many rows as fit the band (the shape's cap at most), their padding cut to fit one row
 *     when even that does not; where not even one row fits, the name is left out (the mark beside
 *     the id, the legend, the tooltip and a tap still say what the cell is);
 *  4. the rows are as wide as the shape is over the rows' height (a circle's or a hexagon's
 *     width narrows away from its middle), and tokens left over go in a last "+n" token. */

import { CHAR_W, nameLines } from "./text-fit.js";

export const GAP = 2; // between tokens and between rows
const SQ3 = Math.sqrt(3);

/* A shape: {kind: "grid" | "hex" | "areas", cx, cy, hw, hh (grid: half its width and height),
 * r (hex: corner radius, areas: the circle's), flat (hex), bare (an area with no id line, on a
 * phone)}. Fonts: {idFs, nameFs, pieceFs}. */
function metrics(shape, f) {
  const { kind, cy } = shape;
  if (kind === "hex") {
    const R = shape.r;
    return { room: R * 1.5, top: cy - R * 0.55, bottom: cy + R * 0.62, pad: 6, maxRows: 2, high: cy - R * 0.78, low: cy + R * 0.78 };
  }
  if (kind === "areas") {
    const R = shape.r;
    return { room: R * 1.7, top: cy - R * 0.6, bottom: cy + R * 0.7, pad: shape.bare ? 1 : 4, maxRows: 3, high: cy - R * 0.88, low: cy + R * 0.88 };
  }
  return { room: 2 * shape.hw - 4, top: cy - shape.hh + f.idFs * 0.95, bottom: cy + shape.hh - Math.max(4, f.nameFs * 0.3),
    pad: 6, maxRows: 12, high: cy - shape.hh + 2, low: cy + shape.hh - 2 };
}

/* The name's baseline (its first line's, for two) and the top of its drawn box. */
function namePlace(shape, m, f, lines, tokens) {
  const { kind, cy } = shape;
  let y = m.bottom - (kind === "grid" ? (lines === 2 ? f.nameFs * 0.55 : 0) : f.nameFs * 0.2);
  // A phone's area (a circle about 48 px across) holds its name as low as the circle leaves it
  // room; with no tokens, the name is centred.
  if (shape.bare) y = !tokens ? cy + f.nameFs * 0.36 : lines === 2 ? cy + shape.r * 0.8 - f.nameFs * 0.78 : cy + shape.r * 0.6 - f.nameFs * 0.23;
  const top = y - (lines === 2 ? f.nameFs * 0.55 : 0) - f.nameFs * 0.93;
  const bottom = y + (lines === 2 ? f.nameFs * 0.55 : 0) + f.nameFs * 0.3;
  return { y, top, bottom };
}

/* How wide a row of tokens may be between heights y0 and y1 inside the shape (`end`: the radius
 * of a token's rounded end, which lies nearest a curved edge). */
export function widthBetween(shape, y0, y1, end) {
  if (shape.kind === "grid") return 2 * shape.hw - 4;
  const R = shape.r;
  if (shape.kind === "areas") {
    const dy = Math.max(Math.abs(y0 + end - shape.cy), Math.abs(y1 - end - shape.cy));
    return 2 * (Math.sqrt(Math.max(0, (R - 1 - end) ** 2 - dy ** 2)) + end);
  }
  const dy = Math.max(Math.abs(y0 - shape.cy), Math.abs(y1 - shape.cy));
  const r = R - 1; // the hexagon is drawn a unit inside its corner radius
  const half = shape.flat ? r - dy / SQ3 : dy <= r / 2 ? (r * SQ3) / 2 : (r - dy) * SQ3;
  return Math.min(R * 1.5, 2 * (half - 3));
}

/* The rows that fit a band `band` high with tokens `fs` high plus `pad` (cut to 1 at least). */
function rowsIn(band, fs, pad, maxRows) {
  let rows = Math.floor((band + GAP) / (fs + pad + GAP));
  if (rows < 1) {
    pad = Math.max(1, band - fs);
    rows = Math.floor((band + GAP) / (fs + pad + GAP));
  }
  if (rows < 1) return null;
  rows = Math.min(rows, maxRows);
  pad = Math.max(1, Math.min(pad, (band - (rows - 1) * GAP) / rows - fs));
  return { rows, pad };
}

/* Of 1 to `most` rows in the band, the one that holds the most tokens of the least width (as
 * high as they are): more rows reach where a circle or a hexagon is narrower. The rows sit as
 * near the shape's middle as the band lets them, where it is widest. */
function bestRows(shape, [top, floor], fs, most, pad0, square) {
  let best = null;
  for (let rows = 1; rows <= most; rows++) {
    const pad = Math.max(1, Math.min(pad0, (floor - top - (rows - 1) * GAP) / rows - fs));
    const h = fs + pad;
    const height = rows * h + (rows - 1) * GAP;
    const cy = Math.min(Math.max(shape.cy, top + height / 2), Math.max(top + height / 2, floor - height / 2));
    const width = widthBetween(shape, cy - height / 2, cy + height / 2, square ? 3 : h / 2);
    const holds = rows * Math.max(1, Math.floor((width + GAP) / (h + GAP)));
    if (!best || holds > best.holds) best = { rows, pad, cy, width, holds };
  }
  return best;
}

/* Where a cell's text and tokens go. `name`: the cell's name ("" for none); `idLine`: whether
 * an id line is drawn; `tokens`: how many pieces; `square`: whether any token is square-ended.
 * Answers {idY, name: {text, lines, y} | null, box: {cx, cy, width, rows, pad, fs}}. */
export function cellFrame(shape, f, { name = "", idLine = true, tokens = 0, square = false } = {}) {
  const m = metrics(shape, f);
  const lines = nameLines(name, f.nameFs, m.room);
  const place = name ? namePlace(shape, m, f, lines, tokens) : null;
  const bandTop = idLine ? m.top + f.idFs * 0.3 + 1 : m.high;
  let written = Boolean(name) && place.top >= bandTop;
  let floor = written ? place.top - 1 : m.low;
  let fit = rowsIn(floor - bandTop, f.pieceFs, m.pad, m.maxRows);
  if (tokens && written && !fit) {
    written = false; // not even one row of tokens above the name: the name goes
    floor = m.low;
    fit = rowsIn(floor - bandTop, f.pieceFs, m.pad, m.maxRows);
  }
  const best = bestRows(shape, [bandTop, floor], f.pieceFs, fit ? fit.rows : 1, m.pad, square);
  return {
    idY: m.top,
    name: written ? { text: name, lines, y: place.y, room: m.room } : null,
    band: [bandTop, floor],
    box: { cx: shape.cx, fs: f.pieceFs, shape, ...best },
  };
}

/* Each token's label and natural width. A piece is {label, count, square, ...}. */
function measure(pieces, h, width, fs) {
  return pieces.map((p) => {
    let label = p.label === undefined || p.label === null ? "" : String(p.label);
    if (p.count > 1) label += ` ×${p.count}`;
    const extra = p.symbol ? h - 2 : 0; // a symbol's room before the label
    return { p, label, w: Math.max(h, Math.min(width, label.length * CHAR_W * fs + 8 + extra)) };
  });
}

const span = (row, least) => row.reduce((a, it) => a + least(it), 0) + GAP * (row.length - 1);

/* How wide a row from y to y + h may be: a square token at either end has corners of radius 3,
 * a round one ends in a half circle as high as the row. */
function rowWidth(box, y, h, row) {
  const square = row.length && ((row[0].p && row[0].p.square) || (row[row.length - 1].p && row[row.length - 1].p.square));
  return widthBetween(box.shape, y, y + h, square ? 3 : h / 2);
}

/* The tokens one after another in `k` rows centred on the box, each row as wide as the shape
 * is there; answers the rows (more than k when they do not all fit) and the first row's top. */
function wrap(items, box, k, h) {
  const top = box.cy - (k * h + (k - 1) * GAP) / 2;
  const rows = [];
  let row = [];
  for (const it of items) {
    const trial = [...row, it];
    const y = top + rows.length * (h + GAP);
    if (row.length && span(trial, (x) => x.w) > rowWidth(box, y, h, trial)) { rows.push(row); row = [it]; } else row = trial;
  }
  rows.push(row);
  return { rows, top };
}

/* Past the last row, the tokens left over go in it squeezed (to no less than 0.75 of their
 * width) when they fit so; else the last row ends in a "+n" token (or the one token left: a "+1"
 * says less in as much room), the tokens before it squeezed down to circles to leave it room,
 * as many as fit (none, in a phone's hexagon: "+n" alone, and the tooltip and a tap list them). */
function fold(rows, items, k, lastWidth, h, fs) {
  const legible = (it) => Math.max(h, 0.75 * it.w);
  const shown = rows.slice(0, k - 1);
  const tail = rows.slice(k - 1).flat();
  if (span(tail, legible) <= lastWidth(tail)) return [...shown, tail];
  const moreW = Math.max(h, `+${items.length}`.length * CHAR_W * fs + 8); // as wide as the widest count
  const more = (n) => ({ more: true, label: `+${n}`, w: moreW, least: h, p: {} });
  const last = [...rows[k - 1]];
  // the "+n" squeezes to a circle too
  while (last.length && span([...last, more(0)], () => h) > lastWidth([...last, more(0)])) last.pop();
  const count = items.length - shown.reduce((a, r) => a + r.length, 0) - last.length;
  last.push(count === 1 ? { ...items[items.length - 1] } : more(count));
  return [...shown, last.map((it) => ({ ...it, least: h }))];
}

/* Each token's box in a cell's `box` (from cellFrame): [{x, y, w, h, label, more, p}]: in as
 * few rows as hold them, up to the box's rows, centred on its middle. */
export function placeTokens(pieces, box) {
  if (!pieces || !pieces.length) return [];
  const { fs, rows: maxRows } = box;
  const h = fs + box.pad;
  const items = measure(pieces, h, box.width, fs);
  let k = 1, laid = wrap(items, box, 1, h);
  while (laid.rows.length > k && k < maxRows) laid = wrap(items, box, ++k, h);
  const widthOf = (i) => (row) => rowWidth(box, laid.top + i * (h + GAP), h, row);
  let rows = laid.rows;
  if (rows.length > k) rows = fold(rows, items, k, widthOf(k - 1), h, fs);
  const out = [];
  rows.forEach((row, i) => {
    const width = widthOf(i)(row);
    const over = span(row, (it) => it.w) - width;
    const give = row.reduce((a, it) => a + it.w - (it.least || Math.max(h, 0.75 * it.w)), 0);
    const cut = over > 0 && give > 0 ? Math.min(1, over / give) : 0;
    const sized = row.map((it) => ({ ...it, w: it.w - (it.w - (it.least || Math.max(h, 0.75 * it.w))) * cut }));
    let x = box.cx - span(sized, (it) => it.w) / 2;
    const y = laid.top + i * (h + GAP);
    for (const it of sized) {
      out.push({ x, y, w: it.w, h, label: it.label, more: Boolean(it.more), p: it.p || {} });
      x += it.w + GAP;
    }
  });
  return out;
}
