/* Factions: Battlegrounds on the board page: the grid with a terrain legend, the set-up spots and
 * their tiles drawn and clickable during set-up (each tile choice drawn in place before the click
 * that places it), base camps and Resource Centers, units with name, rank and health, and their
 * card; a panel per player. */

import { content } from "./content.js";
import { el, svg } from "./dom.js";
import { playerPanel } from "./player-panel.js";
import { seatColour } from "./seats.js";
import { symbolKey } from "./symbols.js";
import { UNIT_SYMBOLS } from "./unit-symbols.js";

// The drawing of each terrain ("": no tile yet); its name and text are content (terrain.json).
const LOOK = { W: { mark: "≈", fill: "#bcd7ee" }, I: { mark: "◇", fill: "#eadfb4" }, P: { mark: "", fill: "#cfe3bd" },
  "": { mark: "", fill: "#e4e4e4" } };
const INVENTED = "Invented by this project, since the rulebook prints no Faction Overview Sheets and no 3- or 4-player diagrams: the 15 unit stat lines all nine factions share, 6 of the 7 spells and abilities, the Terrain Tiles' patterns, and the 3- and 4-player boards with their Resource Center pairs";
let TERRAIN = Object.fromEntries(Object.entries(LOOK).map(([k, l]) => [k, { ...l, name: k || "No tile yet", text: "" }]));
const ARCHETYPE = {}; // unit code -> its stat line
const ready = Promise.all([content("factions", "terrain.json"), content("factions", "factions.json")]).then(([d, f]) => {
  TERRAIN = Object.fromEntries(Object.entries(LOOK).map(([k, l]) => [k, { ...l, ...(k ? d.terrain[k] : d.empty) }]));
  for (const fac of Object.values(f.factions)) for (const u of fac.units) ARCHETYPE[u.code] = u.archetype;
}).catch((e) => console.warn("Factions' content did not load:", e));
const cap = (s) => String(s).replace(/\b\w/g, (m) => m.toUpperCase());
/* Where a card's figures come from (the view's `provenance`): the rulebook prints no faction
 * sheets, so most figures are this project's labelled reference stats. */
function refNote(c) {
  const p = c.provenance || {};
  if (!p.label) return "";
  const which = (p.reference || []).length ? ` (${p.reference.join(", ")})` : "";
  return ` [${p.label}${which}: the faction sheets are not published]`;
}

function cardText(c) {
  const stats = `cost ${c.cost}, rank ${c.rank}${c.captain ? " (Captain)" : ""}, move ${c.movement}, attack ${c.attack}, range ${c.range}, health ${c.health}` +
    `${c.aerial ? ", Aerial" : ""}${c.evade ? `, evade ${c.evade}` : ""}; makes ${c.makes}`;
  const powers = c.powers && c.powers.length ? `; powers: ${c.powers.join(", ")}` : "";
  return `${c.name} (${c.code}) — ${stats}${powers}${refNote(c)}`;
}

function width(b) { return Math.max(...b.cells.filter((c) => !String(c.id).startsWith("camp")).map((c) => c.x)) + 1; }
function height(b) { return Math.max(...b.cells.filter((c) => !String(c.id).startsWith("camp")).map((c) => c.y)) + 1; }

/* The cells of set-up spot n (1-based, row by row from the south-west, 2x2 spaces each). */
function spotCells(b, n) {
  const w = width(b), h = height(b);
  const tw = w / 2;
  const tx = (n - 1) % tw, ty = Math.floor((n - 1) / tw);
  const cols = "abcdefgh";
  const out = [];
  for (const dy of [0, 1]) for (const dx of [0, 1]) {
    const x = 2 * tx + dx, row = 2 * ty + dy; // row 0 is the south row ("1")
    if (x < w && row < h) out.push(`${cols[x]}${row + 1}`);
  }
  return out;
}

/* ---- a Terrain Tile choice seen before it is placed (issue #38 item 10) ----------------
 * Each panel carries the patterns of the tiles in its seat's hand while tiles are placed; the
 * viewer's own are drawn
 * ("ab/cd", north row first; turned 180° the string reads backwards: rules/factions/board.py).
 * Pointing at, focusing or (on a phone) being offered a `tile` choice draws its four terrains on
 * the spot, dashed, over the board; each choice button also holds the tile in small, turned as
 * the board is. */
let hand = {}; // tile number -> pattern, the viewer's own
let drawnOn = null; // the board the choices go on
function choiceOf(text) {
  const m = /^tile (\d+) (\d+) (0|180)$/.exec(String(text || "").trim());
  return m && hand[m[1]] ? { pattern: hand[m[1]], spot: Number(m[2]), rot: Number(m[3]) } : null;
}
/* The terrains a choice lays, in spotCells' order: south-west, south-east, north-west, north-east. */
function laid(c) {
  const p = c.rot === 180 ? [...c.pattern].reverse().join("") : c.pattern;
  return [p[3], p[4], p[0], p[1]];
}
function clearPreview() {
  for (const g of document.querySelectorAll("#board svg.board g.tile-preview")) g.remove();
}
function drawPreview(c) {
  clearPreview();
  const root = document.querySelector("#board svg.board");
  if (!root || !drawnOn) return;
  const g = svg("g", { class: "tile-preview", "pointer-events": "none", "data-spot": c.spot });
  const kinds = laid(c);
  spotCells(drawnOn, c.spot).forEach((id, i) => {
    const cell = root.querySelector(`g.cell[data-id="${id}"]`);
    const shape = cell && cell.querySelector("rect.cell-shape");
    if (!shape) return;
    const look = TERRAIN[kinds[i]] || TERRAIN[""];
    const [x, y, w, h] = ["x", "y", "width", "height"].map((k) => Number(shape.getAttribute(k)));
    g.append(svg("rect", { x, y, width: w, height: h, fill: look.fill, stroke: "#0b3d75", "stroke-width": 3,
      "stroke-dasharray": "6 3", class: "tile-preview-cell", "data-id": id, "data-terrain": kinds[i] }));
    // The terrain's mark as big as the square's id is drawn (never under the page's 11 px).
    const idText = cell.querySelector("text.cell-id");
    const fs = Number(idText ? idText.getAttribute("font-size") : 0) * 1.6 || h / 3;
    if (look.mark) g.append(svg("text", { x: x + w / 2, y: y + h / 2 + fs * 0.35, "text-anchor": "middle", "font-size": fs.toFixed(1), fill: "#0b3d75", text: look.mark }));
    // The square's id stays readable over the preview.
    if (idText) g.append(idText.cloneNode(true));
  });
  g.append(svg("title", { text: `Preview: ${kinds.map((k, i) => `${spotCells(drawnOn, c.spot)[i]} ${(TERRAIN[k] || TERRAIN[""]).name}`).join(", ")}` }));
  root.append(g);
}
/* The tile in small on its choice button: two rows of two squares, north up (or, on a board
 * turned for a north seat, as that board shows it). */
function mini(c) {
  const k = laid(c);
  const turned = (document.getElementById("board") || {}).dataset?.rotate === "180";
  const rows = turned ? [[k[1], k[0]], [k[3], k[2]]] : [[k[2], k[3]], [k[0], k[1]]];
  return el("span", { class: "tile-mini", "aria-hidden": "true", title: "the tile as it lies on the board",
    style: "display:inline-grid;grid-template-columns:12px 12px;gap:1px;margin-right:6px;vertical-align:middle;border:1px solid #0b3d75;background:#0b3d75" },
  rows.flat().map((x) => el("span", { "data-terrain": x, style: `width:12px;height:12px;background:${(TERRAIN[x] || TERRAIN[""]).fill}` })));
}
function decorate() {
  for (const b of document.querySelectorAll('button.cmd[data-type="factions.tile"]')) {
    const c = choiceOf(b.dataset.text);
    if (!c || b.querySelector(".tile-mini")) continue;
    (b.querySelector(".cmd-sentence") || b).prepend(mini(c));
  }
}
const tileButton = (e) => (e && e.target && e.target.closest ? e.target.closest('button.cmd[data-type="factions.tile"]') : null);
const focusedChoice = () => { const b = tileButton({ target: document.activeElement }); return b && choiceOf(b.dataset.text); };
document.addEventListener("mouseover", (e) => { const b = tileButton(e); const c = b && choiceOf(b.dataset.text); if (c) drawPreview(c); });
document.addEventListener("focusin", (e) => { const b = tileButton(e); const c = b && choiceOf(b.dataset.text); if (c) drawPreview(c); });
// Leaving a choice with the pointer returns to the focused one's preview, if any.
document.addEventListener("mouseout", (e) => { if (!tileButton(e)) return; const c = focusedChoice(); if (c) drawPreview(c); else clearPreview(); });
document.addEventListener("focusout", (e) => { if (tileButton(e) && !tileButton({ target: e.relatedTarget })) clearPreview(); });
// The choices and the board are rebuilt at every change: each new tile button gets its small
// tile, and the focused one (the page focuses the first choice once a spot is chosen, on a
// phone in the action bar too) its preview on the board drawn anew.
const watched = ["commands", "all-commands", "board"].map((id) => document.getElementById(id)).filter(Boolean);
const observer = new MutationObserver(() => {
  decorate();
  const c = focusedChoice();
  if (c && !document.querySelector("#board svg.board g.tile-preview")) drawPreview(c);
});
for (const box of watched) observer.observe(box, { childList: true, subtree: box.id !== "board" });

function board(view, ctx) {
  const v = view.board;
  const b = v.board;
  const me = (v.players || []).find((p) => p.seat === ctx.seat);
  hand = Object.fromEntries(((me && me.hand_tiles) || []).map((x) => [String(x.tile), x.pattern]));
  drawnOn = b;
  const cards = {};
  for (const p of v.players || []) for (const c of p.cards || []) cards[`${p.seat}:${c.code}`] = { ...c, faction: p.faction };
  const unitAt = {};
  for (const u of v.units || []) unitAt[u.space === "base" ? `camp${u.seat}` : u.space] = [...(unitAt[u.space === "base" ? `camp${u.seat}` : u.space] || []), u];
  const centers = {};
  for (const c of v.centers || []) centers[c.space] = c;
  const bw = width(b), bh = height(b);
  const cells = b.cells.map((c) => {
    const id = String(c.id);
    const camp = id.startsWith("camp");
    const t = TERRAIN[c.terrain || ""] || TERRAIN[""];
    const pieces = (unitAt[id] || []).map((u) => {
      const card = cards[`${u.seat}:${u.code}`];
      const hp = u.health + ((u.boost && u.boost.health) || 0) - u.damage;
      // The unit's symbol, code and health on the token (its name, rank and whole card in its
      // tooltip); a phone keeps to the symbol and health.
      const label = ctx.compact ? `${hp}♥` : `${u.code} ${hp}♥`;
      const state = [u.flying ? "flying" : "", u.activated ? "activated this round" : "", u.weak ? `weakened ${u.weak}` : ""].filter(Boolean).join(", ");
      return { label, owner: u.seat, dashed: u.activated, key: u.id, symbol: UNIT_SYMBOLS.factions[ARCHETYPE[u.code]],
        title: `${u.name}${card ? ` (rank ${card.rank})` : ""}, ${ctx.names[u.seat] || "seat " + u.seat}: ${hp} of ${u.health} health${u.damage ? ` (${u.damage} damage)` : ""}${state ? "; " + state : ""}. ${card ? cardText(card) : ""}` };
    });
    if (!camp && !unitAt[id] && c.pieces && c.pieces.length) pieces.push(...c.pieces);
    let name = "";
    const center = centers[id];
    const who = center && center.owner >= 0 ? ` (${ctx.names[center.owner] || "seat " + center.owner})` : "";
    if (center) {
      name = center.kind === "gold" ? "Gold Mine" : "Mana Pool"; // its holder: the ring's colour and the tooltip
    }
    if (camp) {
      const seat = Number(id.slice(4));
      // A camp holds every unit not yet on the Battleground: drawn along its side of the board,
      // four squares long (one square held one token and its "+n", and spilled over its edges).
      // One and a half squares deep, so that on a phone its id, a row of tokens and its name
      // each have a line (its centre is a square and a half off the board's edge).
      const offTopOrBottom = c.y < 0 || c.y > bh - 1;
      const along = Math.max(1, Math.min(4, (offTopOrBottom ? bw : bh) - 2));
      const span = offTopOrBottom ? [along, 1.5] : [1.5, along];
      return { ...c, span, name: "Base Camp", mark: "", fill: "#d9d4c7", ring: seatColour(seat),
        tip: `Base Camp of ${ctx.names[seat] || "seat " + seat}: units enter the Battleground from here and cannot be attacked here.`, pieces };
    }
    const home = Number.isInteger(c.home) && c.home >= 0 ? `; a Home Terrain Tile of ${ctx.names[c.home] || "seat " + c.home}` : "";
    return { ...c, name, mark: center ? (center.kind === "gold" ? "⛁" : "✦") : t.mark, fill: center ? (center.kind === "gold" ? "#f2d27a" : "#c6b8ee") : t.fill,
      ring: center && center.owner >= 0 ? seatColour(center.owner) : null,
      tip: `${id} — ${t.name}${home}${center ? `; ${name}${who || " (unclaimed)"}: ${center.kind === "gold" ? "generates gold" : "generates mana"} for who holds it` : ""}. ${t.text}`, pieces };
  });
  // Set-up: the spots still open, drawn as frames the player clicks.
  const overlays = [];
  const tiles = (ctx.legal || []).filter((c) => c.type === "factions.tile");
  const spots = [...new Set(tiles.map((c) => c.args.spot))].sort((a, b2) => a - b2);
  for (const n of spots) overlays.push({ id: `spot:${n}`, cells: spotCells(b, n), label: `Spot ${n}`, title: `Set-up spot ${n}: place a Terrain Tile here` });
  return { board: { ...b, cells }, overlays };
}

/* Each stat line at this table as its symbol, with the units of it the factions here field. */
function pieceKey(view) {
  const byLine = new Map();
  for (const p of view.board.players || []) {
    for (const c of p.cards || []) {
      const line = ARCHETYPE[c.code];
      if (line) byLine.set(line, [...(byLine.get(line) || []), `${c.name} (${c.code})`]);
    }
  }
  return symbolKey([...byLine].map(([line, names]) => ({ symbol: UNIT_SYMBOLS.factions[line], name: cap(line), text: names.join(", ") })), "Units");
}

function legend(view) {
  const items = ["W", "I", "P", ""].map((k) => {
    const t = TERRAIN[k];
    return el("li", {}, el("span", { class: "tile-swatch", style: `background:${t.fill}` }, t.mark), el("b", {}, t.name), " — ", t.text);
  });
  items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#f2d27a" }, "⛁"), el("b", {}, "Gold Mine"), " and ",
    el("span", { class: "tile-swatch", style: "background:#c6b8ee" }, "✦"), el("b", {}, "Mana Pool"), " — Resource Centers; a ring in a player's colour: claimed."));
  items.push(el("li", {}, "Placing a Terrain Tile: each choice shows the tile in small, and pointing at or focusing it draws it on its spot, dashed, before you place it."));
  items.push(el("li", {}, "Units show ", el("b", {}, "their symbol, code and health♥"), " (on a phone the symbol and health); a dashed token has activated this round. Hover or tap a unit for its name, rank and card."));
  return el("div", {}, pieceKey(view), el("ul", { class: "tile-legend" }, items));
}

function panels(view, ctx) {
  const v = view.board;
  const order = (v.advantages && v.advantages.order) || [];
  return (v.players || []).map((p) => {
    const names = {};
    for (const c of p.cards || []) names[c.code] = c.name;
    const list = (xs) => (xs && xs.length ? xs.map((x) => names[x] || x).join(", ") : "none");
    const onBoard = (v.units || []).filter((u) => u.seat === p.seat);
    const facts = [
      ["Gold", p.gold], ["Mana", p.mana], ["VP", `${p.vp} of ${v.target}`],
      ["Rank order", order.includes(p.seat) ? `${order.indexOf(p.seat) + 1} of ${order.length}` : "—"],
      ["Warband", list(p.warband)], ["Set aside", list(p.set_aside)], ["Eliminated", list(p.eliminated)],
      ["Units in play", onBoard.length ? onBoard.map((u) => `${u.name} (${u.space === "base" ? "Base Camp" : u.space})`).join(", ") : "none"],
    ];
    if (p.tiles_in_hand && p.tiles_in_hand.length) facts.push(["Terrain Tiles in hand", p.tiles_in_hand.join(", ")]);
    if (p.out) facts.push(["Out", "this player is out of the game"]);
    const rows = (p.cards || []).map((c) => {
      const label = c.provenance && c.provenance.label;
      return el("tr", {}, el("td", {}, c.code), el("td", {}, c.name, label ? el("span", { class: "badge muted-badge", title: refNote(c).trim() }, label) : null),
        el("td", {}, c.cost), el("td", {}, c.rank), el("td", {}, c.movement), el("td", {}, c.attack), el("td", {}, c.range), el("td", {}, c.health),
        el("td", {}, [c.aerial ? "Aerial" : "", ...(c.powers || [])].filter(Boolean).join(", ")));
    });
    const cardsBox = el("details", { class: "cards", "data-key": `cards-${p.seat}` },
      el("summary", {}, `Unit cards of ${p.name} (${(p.cards || []).length})`),
      el("p", { class: "hint" }, "Cards marked “reference stats” carry this project's figures where the rulebook prints none (it publishes no faction sheets); hover the mark for which."),
      el("div", { class: "table-wrap" }, el("table", { class: "kv-table" },
        el("thead", {}, el("tr", {}, ["Code", "Name", "Cost", "Rank", "Move", "Atk", "Rng", "HP", "Powers"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows))));
    return playerPanel(ctx, p.seat, p.name, facts, cardsBox, p.seat === ctx.seat);
  }).concat(
    // Under the players, always in sight: the sentence rules/factions/content.py's INVENTED holds
    // (tests/factions/test_invented.py keeps the two equal).
    el("p", { class: "hint invented" }, INVENTED, " (", el("a", { href: "/rules/factions/rulings#what-is-invented" }, "the rulings say which"), ")."));
}

function status(view) {
  const v = view.board;
  return `${v.phase === "play" ? `Round ${v.round}` : `Set-up: ${v.phase}`}${v.stage ? ` · ${v.stage}` : ""}`;
}

function home(view, seat) { return seat === null || seat === undefined ? [] : [`camp${seat}`]; }

function cellsOf(cmd, view, ctx) {
  const a = cmd.args || {};
  const t = cmd.type.split(".")[1];
  if (t === "tile") return [`spot:${a.spot}`];
  if (t === "activate") {
    const u = (view.board.units || []).find((x) => x.seat === ctx.seat && x.code === a.unit);
    if (u) return [u.space === "base" ? `camp${u.seat}` : u.space];
    return [];
  }
  if (t === "recruit" || t === "aside" || t === "choose") return [];
  return null;
}

/* Words for the replay's list of what changed: a unit by its card's name ("AC^-1": flying, 1
 * damage), a Resource Center from the cell's label ("d4 G", "c3 M1": held by seat 1), and a
 * terrain by name. */
function words(view, ctx) {
  const names = {};
  for (const p of view.board.players || []) for (const c of p.cards || []) names[`${p.seat}:${c.code}`] = c.name;
  const piece = ({ label, owner }) => {
    const m = /^([A-Za-z0-9]+?)(\^)?(?:-(\d+))?$/.exec(String(label));
    if (!m) return null;
    const name = names[`${owner}:${m[1]}`] || m[1];
    const state = [m[2] ? "flying" : "", m[3] ? `${m[3]} damage` : ""].filter(Boolean).join(", ");
    return state ? `${name} (${state})` : name;
  };
  const label = (id, raw) => {
    const m = /^\S+ ([GM])(\d*)$/.exec(String(raw ?? ""));
    if (!m) return String(raw ?? "") === id ? "" : raw;
    const kind = m[1] === "G" ? "Gold Mine" : "Mana Pool";
    return m[2] ? `${kind}, held by ${ctx.names[Number(m[2])] || "seat " + m[2]}` : kind;
  };
  return { piece, label, terrain: (code) => (TERRAIN[code || ""] || { name: code }).name };
}

export const skin = { board, legend, panels, home, cellsOf, status, ready, words, rules: "/rules/factions" };
