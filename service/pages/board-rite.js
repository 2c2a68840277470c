/* Rite on the board page: tiles by name with a mark per kind and a legend, units as named
 * tokens with their card in the tooltip, and a panel per faction. Names and card text are the
 * game's content (rules/rite/content/texts.json, as the move descriptions read them). */

import { content } from "./content.js";
import { el } from "./dom.js";
import { playerPanel } from "./player-panel.js";
import { seatColour } from "./seats.js";
import { symbolKey } from "./symbols.js";
import { UNIT_SYMBOLS } from "./unit-symbols.js";

// Terrain in pale, low-saturation fills, so that no tile shares a colour with a faction's
// tokens (the seat colours are saturated); each kind also has its own mark. The words (names,
// card text) are the game's content, rules/rite/content/texts.json, fetched below.
const LOOK = {
  basic: { short: "", mark: "", fill: "#ece6d6" },
  firelord: { short: "Firelord", mark: "♨", fill: "#4a2c2a" },
  firefly: { short: "Firefly", mark: "✶", fill: "#f4efc3" },
  earth: { short: "Earth", mark: "▲", fill: "#a89a84" },
  fire: { short: "Fire El.", mark: "♦", fill: "#d6a596" },
  shrine: { short: "Shrine", mark: "✚", fill: "#dce7f1" },
  banner: { short: "Banner", mark: "⚑", fill: "#e2e4ee" },
  beacon: { short: "Beacon", mark: "☀", fill: "#fbe7cc" },
  tunnel: { short: "Tunnel", mark: "∩", fill: "#d6c6b3" },
  rune: { short: "Rune", mark: "◈", fill: "#dedede" },
  boneyard: { short: "Boneyard", mark: "☠", fill: "#c9c9c9" },
  summon: { short: "Summon", mark: "◎", fill: "#ffffff" },
  fog: { short: "Fog", mark: "☁", fill: "#ece3ee" },
  jungle: { short: "Jungle", mark: "♣", fill: "#cfe0c6" },
};
const TAGS = { EE: "earth", FE: "fire", FL: "firelord", FF: "firefly", shr: "shrine", ban: "banner", bea: "beacon",
  tun: "tunnel", run: "rune", bon: "boneyard", fog: "fog", jun: "jungle" };
// A token's label where the full name does not fit.
const SHORT = { lightbringer: "Light B.", firebringer: "Fire B.", wyrmling: "Wyrmling", deathbringer: "Death B.",
  necromancer: "Necro", chaosbringer: "Chaos B.", doppelganger: "Doppel.", ultimatosaur: "Ultima." };
// Two-letter codes for tokens on a small (phone) board; the legend lists them.
const CODE = { knight: "Kn", lightbringer: "LB", cleric: "Cl", angel: "An", fighter: "Fi", firebringer: "FB", sorcerer: "So",
  wyrmling: "Wy", warrior: "Wa", deathbringer: "DB", necromancer: "Ne", death: "De", thought: "Th", chaosbringer: "CB",
  doppelganger: "Do", hivemind: "HM", hatchling: "Ha", raptor: "Ra", rex: "Rx", ultimatosaur: "Ul", firefly: "Ff" };

// The content: texts.json (the words) and factions.json (costs, codes, objectives). The page
// draws once `ready` settles; without them (offline) the kinds show by their keys.
let TEXT = { factions: {}, tiles: {}, units: {}, powers: {} };
const COST = {}, CODES = {}, OBJECTIVE = {}, UNITS_OF = {};
const ready = Promise.all([content("rite", "texts.json"), content("rite", "factions.json")]).then(([texts, factions]) => {
  TEXT = texts;
  for (const [f, d] of Object.entries(factions.factions)) {
    CODES[d.code] = f;
    if (d.objective) OBJECTIVE[f] = d.objective;
    UNITS_OF[f] = d.units.map((u) => u.kind);
    for (const u of d.units) COST[u.kind] = u.commander ? "commander" : u.cost;
  }
  COST.firefly = factions.firefly.cost;
}).catch((e) => console.warn("Rite's content did not load:", e));

const cap = (s) => String(s).replace(/_/g, " ").replace(/\b\w/g, (m) => m.toUpperCase());
const factionName = (f) => TEXT.factions[f] || cap(f);
const powerName = (p) => TEXT.powers[p] || cap(p);
function tileInfo(kind) {
  const words = TEXT.tiles[kind] || {};
  return { short: kind, mark: "", fill: "#eeeeee", ...LOOK[kind], name: words.name || cap(kind), text: words.text || "" };
}

/* A tile's kind, number and state from the view's label ("d1 FEr5", "g1 SH", "c4 shr*"). */
function tile(cell) {
  const rest = String(cell.label || "").slice(String(cell.id).length).trim();
  const out = { kind: "basic", n: null, faction: null, active: rest.endsWith("*") };
  const tag = out.active ? rest.slice(0, -1) : rest;
  if (!tag) return out;
  let m;
  if ((m = /^(EE|FE)r(\d+)$/.exec(tag))) { out.kind = TAGS[m[1]]; out.n = Number(m[2]); } else if ((m = /^FF(\d+)$/.exec(tag))) { out.kind = "firefly"; out.n = Number(m[1]); } else if ((m = /^S([HGUCP])$/.exec(tag))) { out.kind = "summon"; out.faction = CODES[m[1]]; } else if (TAGS[tag]) out.kind = TAGS[tag];
  else out.kind = tag;
  return out;
}

/* A tile's whole name: "Fire Elemental tile (turned 5)", "Summoning tile of the Goblins". */
function tileName(t) {
  let full = tileInfo(t.kind).name;
  if (t.kind === "firefly") full = `Firefly tile ${t.n}`;
  if (t.kind === "earth" || t.kind === "fire") full += ` (turned ${t.n})`;
  if (t.kind === "summon" && t.faction) full = `Summoning tile of the ${factionName(t.faction)}`;
  return t.active ? `${full} (activated)` : full;
}

function unitCard(kind) {
  const u = TEXT.units[kind];
  if (!u && !CODE[kind]) return null;
  const name = u ? u.name : cap(kind);
  return { name, short: SHORT[kind] || name, cost: COST[kind] ?? "?", text: u ? u.ability : "" };
}

function seatOfFaction(view, faction) {
  const p = (view.board.players || []).find((x) => x.faction === faction);
  return p ? p.seat : null;
}

function board(view, ctx) {
  const b = view.board.board;
  const cells = b.cells.map((c) => {
    const t = tile(c);
    const info = tileInfo(t.kind);
    let name = t.kind === "firefly" ? `Firefly ${t.n}` : info.short;
    if (t.active) name += " ✓";
    const full = tileName(t);
    const owner = t.faction ? seatOfFaction(view, t.faction) : null;
    const pieces = (c.pieces || []).map((p) => {
      if (p.label === "rock") return { label: ctx.compact ? "" : "Rock", name: "Rock", symbol: "rock", owner: null, fill: "#555555", square: true, title: "Rock token: the tile is inaccessible until it is removed (1 energy, next to a friendly unit)." };
      if (p.label === "fire") return { label: ctx.compact ? "" : "Fire", name: "Fire", symbol: "flame", owner: null, fill: "#8c1c13", square: true, title: "Fire token: a non-commander unit entering it is defeated." };
      const card = unitCard(p.label);
      if (p.label === "firefly") return { label: ctx.compact ? "" : "Firefly", name: "Firefly", symbol: "firefly", owner: null, fill: "#f6e05e", ink: "#111", square: true, title: `${card.name} (volcano): ${card.text}` };
      const who = Number.isInteger(p.owner) ? ctx.names[p.owner] || `seat ${p.owner}` : "the volcano";
      const flipped = p.flipped ? ` — owned by ${ctx.names[p.owned_by] || "seat " + p.owned_by}, controlled by Chaos` : "";
      const under = p.under && p.under.length ? ` Underneath: ${p.under.map((k) => (unitCard(k) || { name: k }).name).join(", ")}.` : "";
      if (!card) return { ...p, title: `${p.label} (${who})` };
      // On a phone the unit's symbol alone; its name on a tap (the cell's tooltip) and in the legend.
      return { label: ctx.compact ? "" : card.short, name: card.short, symbol: UNIT_SYMBOLS.rite[p.label], owner: p.owner, key: `${p.label}|${p.owner}`, stroke: p.flipped ? "#CC79A7" : null,
        title: `${card.name} (${who}${flipped}) — cost ${card.cost}. ${card.text}${under}` };
    });
    return { ...c, name: ctx.compact ? "" : name, mark: info.mark, fill: info.fill, ring: owner !== null ? seatColour(owner) : null,
      tip: `${c.id} — ${full}${info.text ? ": " + info.text : ""}`, pieces };
  });
  return { board: { ...b, cells }, overlays: [] };
}

function legend(view, ctx) {
  const seen = new Set(view.board.board.cells.map((c) => tile(c).kind));
  const items = Object.keys(LOOK).filter((k) => seen.has(k)).map(tileInfo).map((t) =>
    el("li", { title: t.text }, el("span", { class: "tile-swatch", style: `background:${t.fill}` }, t.mark), el("b", {}, t.name), " — ", t.text));
  items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#555;color:#fff" }, "■"), el("b", {}, "Rock"), " — inaccessible until removed."));
  items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#8c1c13;color:#fff" }, "■"), el("b", {}, "Fire token"), " — defeats a non-commander unit that enters."));
  items.push(el("li", {}, el("span", { class: "tile-swatch", style: "background:#f6e05e" }, "■"), el("b", {}, "Firefly"), " — the volcano's unit."));
  items.push(el("li", {}, el("span", { class: "tile-swatch ring", style: `border-color:${seatColour(0)}` }, "◎"), "A ring in a faction's colour: that faction's summoning tile. ✓ marks an activated objective tile."));
  return el("div", {}, pieceKey(view), el("ul", { class: "tile-legend" }, items));
}

/* The units of the factions at this table, the Firefly, rocks and fire, as their symbols. */
function pieceKey(view) {
  const entries = [];
  for (const p of view.board.players || []) {
    for (const kind of UNITS_OF[p.faction] || []) {
      const card = unitCard(kind);
      if (card) entries.push({ symbol: UNIT_SYMBOLS.rite[kind], name: `${card.name} (${factionName(p.faction)})`, text: `cost ${card.cost}. ${card.text}` });
    }
  }
  entries.push({ symbol: "firefly", name: "Firefly", text: "the volcano's unit" }, { symbol: "rock", name: "Rock", text: "inaccessible until removed" },
    { symbol: "flame", name: "Fire token", text: "defeats a non-commander unit that enters" });
  return symbolKey(entries, "Pieces");
}

function objective(view, p) {
  const cells = view.board.board.cells.map(tile);
  const kind = OBJECTIVE[p.faction];
  if (kind) {
    const all = cells.filter((t) => t.kind === kind);
    const done = all.filter((t) => t.active).length;
    return `${done} of ${all.length} ${tileInfo(kind).name.toLowerCase()}s activated`;
  }
  if (p.faction === "chaos" && p.controlled_units_points) {
    const pts = Object.entries(p.controlled_units_points).map(([f, n]) => `${factionName(f)} ${n}`).join(", ");
    return `controlled units points ${pts} (needs ${p.controlled_target} of each)`;
  }
  if (p.faction === "primals") return `${p.consumed || 0} of 12 consumed units points`;
  return "—";
}

function panels(view, ctx) {
  const v = view.board;
  const order = v.turn_order || [];
  return (v.players || []).map((p) => {
    const you = p.seat === ctx.seat;
    const units = Object.entries(p.reserve || {}).map(([k, n]) => `${(unitCard(k) || { name: k }).name} ×${n}`).join(", ") || "none";
    const powers = (p.powers || []).map((c) => {
      const name = c.power ? powerName(c.power) : null;
      return el("li", { class: c.face_up ? "" : "muted" },
        `${c.number}: `, name ? el("b", {}, name) : "face down",
        c.face_up ? ` (${c.slots_left} use${c.slots_left === 1 ? "" : "s"} left)` : name ? (you ? " (face down; only you see it)" : " (face down; the others do not see it)") : "");
    });
    const pos = order.indexOf(p.seat);
    const facts = [
      ["Turn order", p.passed ? "passed" : pos >= 0 ? `${pos + 1} of ${order.length}` : "—"],
      ["Round energy", p.round_energy], ["Reserve energy", p.reserve_energy], ["Faction energy", p.faction_energy],
    ];
    if (p.faction === "goblins") facts.push(["Rage", p.rage]);
    facts.push(["Objective", objective(view, p)], ["On the board", `${p.on_board} unit${p.on_board === 1 ? "" : "s"}`], ["Reserve", units]);
    const hand = (v.hands || [])[p.seat];
    if (hand && hand.length) facts.push(["Tiles in hand", String(hand.length)]);
    return playerPanel(ctx, p.seat, factionName(p.faction), facts,
      el("div", {}, el("h4", {}, "Powers"), el("ul", { class: "powers" }, powers)), you);
  });
}

function status(view) {
  const v = view.board;
  const vol = v.volcano || {};
  return `Round ${v.round}${vol.last_die ? ` · last volcano roll ${vol.last_die}` : ""}`;
}

/* The viewer's side: its faction's summoning tiles. */
function home(view, seat) {
  const p = (view.board.players || []).find((x) => x.seat === seat);
  if (!p) return [];
  const code = Object.entries(CODES).find(([, f]) => f === p.faction);
  return view.board.board.cells.filter((c) => { const t = tile(c); return t.kind === "summon" && code && t.faction === p.faction; }).map((c) => c.id);
}

function cellsOf(cmd) {
  const a = cmd.args || {};
  const t = cmd.type.split(".")[1];
  if (t === "move" || t === "umove") return (a.path || []).flatMap((x) => String(x).split("+").slice(0, 1));
  if (t === "defeat") return [a.from, a.target].filter(Boolean);
  if (t === "pay") return [];
  return null; // the generic reading of the arguments
}

/* Words for the replay's list of what changed: units by their card name, the volcano's tokens,
 * and a tile by its name from the view's label ("d1 FEr5": the Fire Elemental tile, turned 5). */
function words() {
  const piece = ({ label }) => {
    if (label === "rock") return "Rock";
    if (label === "fire") return "Fire token";
    const card = unitCard(label);
    return card ? card.name : null;
  };
  return { piece, label: (id, raw) => tileName(tile({ id, label: raw ?? id })) };
}

export const skin = { board, legend, panels, home, cellsOf, status, ready, words, rules: "/rules/rite" };
