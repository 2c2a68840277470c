// The token layout (service/pages/token-layout.js) for every cell shape at desktop and phone
// sizes, with 1 to 12 tokens: no token over another, over the cell's id line or its name, or
// outside the cell; every piece shown or counted in the last "+n".
import { test } from "node:test";
import assert from "node:assert/strict";
import { cellFrame, placeTokens } from "../../service/pages/token-layout.js";

const SQ3 = Math.sqrt(3);
// The board's text is never drawn under 11 px: at a scale of s px a unit, a font is 11.3/s units at least.
const fonts = (scale) => ({ idFs: Math.max(10, 11.3 / scale), nameFs: Math.max(11, 11.3 / scale), pieceFs: Math.max(10.5, 11.3 / scale) });

// Each shape as the boards draw it, at the scales the browser draws them (desktop about natural
// size; on a 390 px phone a Factions board at 0.55, Rite's 5-player map at 0.45, Dragon Dale at 0.4).
const SHAPES = [
  { what: "grid square, desktop", shape: { kind: "grid", cx: 0, cy: 0, hw: 32, hh: 32 }, scale: 1, name: "Mana Pool" },
  { what: "grid square, phone", shape: { kind: "grid", cx: 0, cy: 0, hw: 32, hh: 32 }, scale: 0.55, name: "Gold Mine" },
  { what: "grid camp (4 squares wide), desktop", shape: { kind: "grid", cx: 0, cy: 0, hw: 128, hh: 32 }, scale: 1, name: "Base Camp" },
  { what: "grid camp (4 squares wide), phone", shape: { kind: "grid", cx: 0, cy: 0, hw: 128, hh: 32 }, scale: 0.55, name: "Base Camp" },
  { what: "pointy hex, desktop", shape: { kind: "hex", cx: 0, cy: 0, r: 72 / SQ3, flat: false }, scale: 1, name: "Firefly 3" },
  { what: "pointy hex, 5-player map", shape: { kind: "hex", cx: 0, cy: 0, r: 72 / SQ3, flat: false }, scale: 0.8, name: "Fire Element" },
  { what: "pointy hex, phone", shape: { kind: "hex", cx: 0, cy: 0, r: 72 / SQ3, flat: false }, scale: 0.45, name: "Summon" },
  { what: "flat hex, desktop", shape: { kind: "hex", cx: 0, cy: 0, r: 72 / SQ3, flat: true }, scale: 1, name: "Shrine" },
  { what: "flat hex, phone", shape: { kind: "hex", cx: 0, cy: 0, r: 72 / SQ3, flat: true }, scale: 0.45, name: "Shrine" },
  { what: "area, desktop", shape: { kind: "areas", cx: 0, cy: 0, r: 130 * 0.45 }, scale: 1, name: "Encampment of the Vikings" },
  { what: "area, phone (no id line)", shape: { kind: "areas", cx: 0, cy: 0, r: 130 * 0.45, bare: true }, scale: 0.4, name: "Marshland 2", idLine: false },
];

const LABELS = ["Knight", "?12", "KI 4\u2665", "Death B.", "Warriors", "T", "RS", "Dragon", "Firefly", "Ox", "CJ R4 2\u2665", "Rune stone"];
const piecesOf = (n, square) => LABELS.slice(0, n).map((label, i) => ({ label, owner: i % 4, square: square && i % 3 === 0 }));

function inside(shape, t) {
  const eps = 0.5;
  const x0 = t.x, y0 = t.y, x1 = t.x + t.w, y1 = t.y + t.h;
  if (shape.kind === "grid") {
    return x0 >= shape.cx - shape.hw - eps && x1 <= shape.cx + shape.hw + eps && y0 >= shape.cy - shape.hh - eps && y1 <= shape.cy + shape.hh + eps;
  }
  // A token's ends are rounded (a circle as high as it) or square with corners of radius 3.
  const rx = Math.min(t.p.square ? 3 : t.h / 2, t.w / 2, t.h / 2);
  const centres = [[x0 + rx, y0 + rx], [x1 - rx, y0 + rx], [x0 + rx, y1 - rx], [x1 - rx, y1 - rx]];
  if (shape.kind === "areas") return centres.every(([x, y]) => Math.hypot(x - shape.cx, y - shape.cy) + rx <= shape.r + eps);
  // A hexagon (drawn a unit inside its corner radius): each corner circle within every edge.
  const r = shape.r - 1;
  const normals = [0, 1, 2, 3, 4, 5].map((k) => (Math.PI / 180) * (60 * k + (shape.flat ? 30 : 0)));
  const apothem = (r * SQ3) / 2;
  return centres.every(([x, y]) => normals.every((a) => (x - shape.cx) * Math.cos(a) + (y - shape.cy) * Math.sin(a) + rx <= apothem + eps));
}

const overlap = (a0, a1, b0, b1) => Math.min(a1, b1) - Math.max(a0, b0);

for (const { what, shape, scale, name, idLine = true } of SHAPES) {
  for (const square of [false, true]) {
    test(`${what}${square ? ", square tokens" : ""}: 1-12 tokens clear of each other, the id line, the name and the edge`, () => {
      const f = fonts(scale);
      for (let n = 1; n <= 12; n++) {
        const pieces = piecesOf(n, square);
        const frame = cellFrame(shape, f, { name, idLine, tokens: n, square: pieces.some((p) => p.square) });
        const placed = placeTokens(pieces, frame.box);
        const at = `${what}, ${n} tokens`;
        assert.ok(placed.length >= 1, at);
        const counted = placed.reduce((a, t) => a + (t.more ? Number(t.label.slice(1)) : 1), 0);
        assert.equal(counted, n, `${at}: every piece shown or counted in "+n"`);
        assert.ok(!placed.some((t) => t.label === "+1"), `${at}: no "+1"`);
        for (const t of placed) {
          assert.ok(inside(shape, t), `${at}: "${t.label}" outside the cell (${JSON.stringify(t)})`);
          if (idLine) {
            const idTop = frame.idY - f.idFs * 0.93, idBottom = frame.idY + f.idFs * 0.3;
            assert.ok(overlap(t.y, t.y + t.h, idTop, idBottom) <= 0.5, `${at}: "${t.label}" over the id line`);
          }
          if (frame.name) {
            const lines = frame.name.lines;
            const top = frame.name.y - (lines === 2 ? f.nameFs * 0.55 : 0) - f.nameFs * 0.93;
            const bottom = frame.name.y + (lines === 2 ? f.nameFs * 0.55 : 0) + f.nameFs * 0.3;
            assert.ok(overlap(t.y, t.y + t.h, top, bottom) <= 0.5, `${at}: "${t.label}" over the name`);
          }
        }
        for (let i = 0; i < placed.length; i++) {
          for (let j = i + 1; j < placed.length; j++) {
            const a = placed[i], b = placed[j];
            const both = overlap(a.x, a.x + a.w, b.x, b.x + b.w) > 0.5 && overlap(a.y, a.y + a.h, b.y, b.y + b.h) > 0.5;
            assert.ok(!both, `${at}: "${a.label}" over "${b.label}"`);
          }
        }
      }
    });
  }
}

test("a name that does not leave one row of tokens is left out, and kept with no tokens", () => {
  const f = fonts(0.3); // very large text in a small square
  const shape = { kind: "grid", cx: 0, cy: 0, hw: 32, hh: 32 };
  assert.equal(cellFrame(shape, f, { name: "Mana Pool", tokens: 1 }).name, null);
  const roomy = cellFrame(shape, fonts(1), { name: "Mana Pool", tokens: 0 });
  assert.equal(roomy.name.text, "Mana Pool");
});

test("the name is centred in a phone's area without tokens, and below them with", () => {
  const shape = { kind: "areas", cx: 0, cy: 0, r: 58.5, bare: true };
  const f = fonts(0.4);
  const alone = cellFrame(shape, f, { name: "Ash", idLine: false, tokens: 0 });
  const held = cellFrame(shape, f, { name: "Ash", idLine: false, tokens: 2 });
  assert.ok(Math.abs(alone.name.y - f.nameFs * 0.36) < 1e-9);
  assert.ok(held.name.y > alone.name.y && held.box.cy < held.name.y);
});

test("a phone's crowded territory keeps its name and shows two tokens or more (Dragon Dale, 4 players, 390 px)", () => {
  // The 4-player map drawn 360 px wide on a 390 px phone: 0.39 px a unit.
  const f = fonts(0.3877);
  const shape = { kind: "areas", cx: 0, cy: 0, r: 58.5, bare: true };
  const tokens = [{ label: "?12" }, { label: "?9" }, { label: "?11" }, { label: "?10" }, { label: "D", square: true },
    { label: "RS", square: true }, { label: "T", square: true }, { label: "T", square: true }, { label: "?8" }];
  for (const name of ["Ash", "Marsh 1", "Mount 3", "Thicket 3", "Camp Vikings", "Camp Dark Faery"]) {
    for (let n = 2; n <= tokens.length; n++) {
      const pieces = tokens.slice(0, n);
      const frame = cellFrame(shape, f, { name, idLine: false, tokens: n, square: pieces.some((p) => p.square) });
      assert.equal(frame.name && frame.name.text, name, `${name}, ${n} tokens: the name is drawn`);
      assert.ok(placeTokens(pieces, frame.box).length >= 2, `${name}, ${n} tokens: two or more drawn`);
    }
  }
});
