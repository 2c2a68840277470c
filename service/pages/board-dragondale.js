/* Dragon Dale on the board page: territories with full names and their effects on hover or tap,
 * routes drawn, hidden units as backs for others and by kind for their owner, trees, rune stones
 * and the Dragon as their own tokens; insight, hands, the Fury track and VP in panels. */

import { content } from "./content.js";
import { el } from "./dom.js";
import { playerPanel } from "./player-panel.js";
import { seatColour } from "./seats.js";
import { symbolKey } from "./symbols.js";
import { UNIT_SYMBOLS } from "./unit-symbols.js";

// The drawing of each territory kind; its name and effect are content (territories.json).
const FILL = { marsh: "#b9cdb0", mountain: "#cdc8c2", fog: "#e3e7ee", thicket: "#a9c79a", tunnel: "#d3bfa6",
  inner: "#cfe6fb", camp: "#efe4c2" };
let KINDS = {};
let CONTENT = null; // tribes.json: unit, card and stance names
const ready = Promise.all([content("dragondale", "tribes.json"), content("dragondale", "territories.json")]).then(([tribes, territories]) => {
  CONTENT = tribes;
  KINDS = Object.fromEntries(Object.entries(territories.kinds).map(([k, t]) => [k, { ...t, fill: FILL[k] || "#eeeeee" }]));
}).catch((e) => console.warn("Dragon Dale's content did not load:", e));

const cap = (s) => String(s).replace(/_/g, " ").replace(/\b\w/g, (m) => m.toUpperCase());
function tribeName(key) { return (CONTENT && CONTENT.tribes && CONTENT.tribes[key] && CONTENT.tribes[key].name) || cap(key); }
function unitName(tribe, type) {
  const t = CONTENT && CONTENT.tribes && CONTENT.tribes[tribe];
  return (t && t.units && t.units[type] && t.units[type].name) || cap(type);
}
function cardName(id) {
  if (!CONTENT || !CONTENT.cards) return id;
  for (const list of Object.values(CONTENT.cards)) for (const c of list) if (c.id === id) return c.name;
  return id;
}

/* A short name for a small (phone) board: "Marsh 1", "Camp A", "Ash". */
const SHORT = { marsh: "Marsh", mountain: "Mount", fog: "Fog", thicket: "Thicket", tunnel: "Tunnel" };
function shortName(view, id, kind) {
  const m = /^([a-z]+?)(\d+)$/.exec(id);
  if (kind === "camp") {
    const t = (view.board.tribes || []).find((x) => x.camp === id);
    return t ? `Camp ${t.name}` : cap(id);
  }
  if (m && SHORT[kind]) return `${SHORT[kind]} ${m[2]}`;
  return cap(id);
}

function territoryName(view, id) {
  const cell = view.board.board.cells.find((c) => c.id === id);
  const kind = cell ? cell.kind : null;
  const m = /^([a-z]+?)(\d+)$/.exec(id);
  if (kind === "camp") {
    const t = (view.board.tribes || []).find((x) => x.camp === id);
    return t ? `Encampment of the ${t.name}` : `Encampment ${cap(id.replace(/^camp_?/, ""))}`;
  }
  if (kind === "inner") return `${cap(id)} (Dragon territory)`;
  if (m && KINDS[kind]) return `${KINDS[kind].name} ${m[2]}`;
  return cap(id);
}


/* A tribe's units in territory `id`, grouped by kind (or unknown to the viewer). */
function groupsAt(t, id) {
  const groups = new Map();
  for (const u of t.units || []) {
    if (u.at !== id) continue;
    const known = u.type !== null && u.type !== undefined;
    const key = known ? `${u.type}${u.hidden ? ":h" : ""}` : "?";
    const g = groups.get(key) || { type: known ? u.type : null, hidden: u.hidden, n: 0 };
    g.n++;
    groups.set(key, g);
  }
  return groups;
}

/* On a small board, one token per tribe: the count (its symbol when all are one kind), and "?"
 * when the viewer does not know them all. */
function tribeToken(t, groups, ctx) {
  const n = [...groups.values()].reduce((a, g) => a + g.n, 0);
  const unknown = groups.has("?");
  const parts = [...groups.values()].map((g) => (g.type === null ? `${g.n} hidden` : `${unitName(t.tribe, g.type)} ×${g.n}`)).join(", ");
  const one = groups.size === 1 && !unknown ? [...groups.values()][0].type : null;
  return { label: `${unknown ? "?" : ""}${n}`, owner: t.seat, dashed: unknown, key: `${t.tribe}|units`, n, symbol: one ? UNIT_SYMBOLS.dragondale[one] : null,
    title: `${t.name} (${ctx.names[t.seat] || "seat " + t.seat}): ${parts}` };
}

function unitTokens(v, id, ctx) {
  const pieces = [];
  for (const t of v.tribes || []) {
    const groups = groupsAt(t, id);
    if (ctx.compact && groups.size) { pieces.push(tribeToken(t, groups, ctx)); continue; }
    const who = ctx.names[t.seat] || `seat ${t.seat}`;
    for (const g of groups.values()) {
      if (g.type === null) {
        pieces.push({ label: "?", count: g.n, owner: t.seat, dashed: true, key: `${t.tribe}|units`, title: `${g.n} hidden unit${g.n > 1 ? "s" : ""} of the ${t.name} (${who}): only their owner knows what they are` });
        continue;
      }
      const nm = unitName(t.tribe, g.type);
      pieces.push({ label: nm, count: g.n, owner: t.seat, dashed: g.hidden, key: `${t.tribe}|units`, symbol: UNIT_SYMBOLS.dragondale[g.type],
        title: `${nm} ×${g.n}, ${t.name} (${who})${g.hidden ? " — hidden: the other tribes see only the back" : " — revealed"}` });
    }
  }
  return pieces;
}

/* The Dragon, rune stones and trees in territory `c`: on a small board, their symbols alone. */
function daleTokens(v, c, treesAt, ctx) {
  const id = String(c.id);
  const pieces = [];
  const word = (w) => (ctx.compact ? "" : w);
  if (v.dragon && v.dragon.at === id) pieces.push({ label: word("Dragon"), symbol: "dragon", owner: null, fill: "#7a0c0c", square: true, title: "The Dragon: it moves through the Dragon territories; an encounter with it is resolved first." });
  for (const p of c.pieces || []) {
    if (!String(p.label || "").startsWith("Rune stone")) continue;
    const held = Number.isInteger(p.owner);
    pieces.push({ label: word("Rune stone"), symbol: "rune", owner: null, fill: "#d9dee3", ink: "#111", stroke: held ? seatColour(p.owner) : null, square: true,
      title: held ? `Rune stone, conquered by ${ctx.names[p.owner] || "seat " + p.owner} (1 VP while held)` : "Rune stone (1 VP to the tribe that holds the territory alone)" });
  }
  for (const t of treesAt[id] || []) {
    const by = Number.isInteger(t.by) ? ` by ${ctx.names[t.by] || "seat " + t.by}` : "";
    pieces.push({ label: word("Tree"), symbol: "tree", owner: null, fill: "#2e6b2e", ink: "#fff", square: true,
      title: `Dragon tree ${t.id.replace("tree", "")}: ${t.state}${by}${t.poisoned ? ", poisoned" : ""}${t.protected ? ", protected" : ""}${t.underside ? `; underside ${t.underside}` : ""}` });
  }
  return pieces;
}

function territory(view, c, treesAt, ctx) {
  const v = view.board;
  const id = String(c.id);
  const k = KINDS[c.kind] || { name: c.kind, fill: FILL[c.kind] || "#eeeeee", text: "" };
  const pieces = [...unitTokens(v, id, ctx), ...daleTokens(v, c, treesAt, ctx)];
  const marks = c.dragon && c.kind !== "inner" ? " Dragon's route." : "";
  const insight = (c.pieces || []).filter((p) => String(p.label || "").startsWith("insight:")).map((p) => tribeName(String(p.label).slice(8)));
  const notes = insight.length ? `\nInsight tokens here: ${insight.join(", ")}` : "";
  const name = territoryName(view, id);
  // A camp's full name ("Encampment of the Vikings") is in its tip: two lines of it left no
  // room for a tribe's seven units.
  return { ...c, name: ctx.compact || c.kind === "camp" ? shortName(view, id, c.kind) : name, mark: "", hideId: ctx.compact, fill: k.fill, ring: c.kind === "camp" ? ringOf(v, id) : null,
    tip: `${name} — ${k.name}: ${k.text}${marks}${notes}${ruleNotes(c)}`, pieces };
}

function board(view, ctx) {
  const v = view.board;
  const treesAt = {};
  for (const t of v.trees || []) for (const where of t.in || []) (treesAt[where] = treesAt[where] || []).push(t);
  return { board: { ...v.board, cells: v.board.cells.map((c) => territory(view, c, treesAt, ctx)) }, overlays: [] };
}

function ringOf(v, id) {
  const t = (v.tribes || []).find((x) => x.camp === id);
  return t ? seatColour(t.seat) : null;
}

/* The printed marks of a territory, from the view's label: rune, Dragon arrows, reward, "1st". */
function ruleNotes(c) {
  const label = String(c.label || "");
  const out = [];
  const rune = /\[(\w+)\]/.exec(label);
  if (rune) out.push(`Rune: ${cap(rune[1])}`);
  const arrows = [...label.matchAll(/(\w+)->(\w+)/g)].map((m) => `${cap(m[1])} → ${m[2]}`);
  if (arrows.length) out.push(`Dragon arrows: ${arrows.join(", ")}`);
  if (label.includes("(reward)")) out.push("Exploration reward: gain 1 insight, BOOST, or look at a hidden token or the Dragon Movement pile (if you had no unit here)");
  if (label.includes("(1st)")) out.push("Starting encampment (1st)");
  return out.length ? "\n" + out.join("\n") : "";
}

/* Each tribe's unit kinds at this table, and the Dragon, trees and rune stones, as their symbols. */
function pieceKey(view) {
  const entries = [];
  for (const t of view.board.tribes || []) {
    const units = (CONTENT && CONTENT.tribes && CONTENT.tribes[t.tribe] && CONTENT.tribes[t.tribe].units) || {};
    for (const type of Object.keys(units)) entries.push({ symbol: UNIT_SYMBOLS.dragondale[type], name: `${unitName(t.tribe, type)} (${tribeName(t.tribe)})` });
  }
  entries.push({ symbol: "dragon", name: "Dragon" }, { symbol: "tree", name: "Tree" },
    { symbol: "rune", name: "Rune stone", text: "ringed in the colour of the tribe that conquered it" });
  return symbolKey(entries, "Pieces");
}

function legend(view) {
  const kinds = new Set(view.board.board.cells.map((c) => c.kind));
  const items = Object.entries(KINDS).filter(([k]) => kinds.has(k)).map(([, k]) =>
    el("li", {}, el("span", { class: "tile-swatch", style: `background:${k.fill}` }, ""), el("b", {}, k.name), " — ", k.text));
  items.push(el("li", {}, "On a small screen: one token per tribe with its count (?3: three units, some hidden from you), with its kind's symbol when they are all one kind. Tap a territory for its name, effect and pieces."));
  items.push(el("li", {}, "A token ", el("b", {}, "? ×3"), " is three hidden units seen from their back; a dashed token is hidden from the other tribes. Hover or tap a territory for its effect and marks."));
  return el("div", {}, pieceKey(view), el("ul", { class: "tile-legend" }, items));
}

function panels(view, ctx) {
  const v = view.board;
  const dom = v.dominance || [];
  const out = (v.tribes || []).map((t) => {
    const own = t.seat === ctx.seat;
    const ins = (t.insight || []).map((k) => (k.type ? `${cap(k.type)} (${tribeName(k.owner)})` : `hidden (${tribeName(k.owner)})`));
    const facts = [
      ["VP", t.vp], ["Fury", t.fury], ["Turn order", `${(v.order || []).indexOf(t.seat) + 1} of ${(v.order || []).length}`],
      ["Dominance", dom.includes(t.tribe) ? `${dom.indexOf(t.tribe) + 1} of ${dom.length}` : "—"],
      ["Hand", own && t.hand ? (t.hand.length ? t.hand.map(cardName).join(", ") : "empty") : `${t.hand_count} card${t.hand_count === 1 ? "" : "s"}`],
      ["Library", `${t.library_count}`], ["Ideas", `${t.ideas_count}${t.ideas_top ? ` (top: ${cardName(t.ideas_top)})` : ""}`],
      ["Insight tokens", ins.length ? ins.join(", ") : "none"],
    ];
    if (own && t.stances) facts.push(["Your stances", Object.entries(t.stances).map(([u, s]) => `${unitName(t.tribe, u)}: ${cap(s)}`).join(", ") || "none"]);
    if (t.revealed_stances && t.revealed_stances.length) facts.push(["Revealed stances", t.revealed_stances.map(cap).join(", ")]);
    if (own) {
      const units = {};
      for (const u of t.units || []) units[u.at] = [...(units[u.at] || []), unitName(t.tribe, u.type)];
      facts.push(["Your units", Object.entries(units).map(([at, us]) => `${territoryName(view, at)}: ${us.join(", ")}`).join("; ")]);
    }
    return playerPanel(ctx, t.seat, t.name, facts, null, own);
  });
  const fury = v.fury_track || {};
  const rows = (fury.spaces || []).map((s) => el("tr", {}, el("td", {}, s.level), el("td", {}, s.revealed ? cap(s.card) : "face down"),
    el("td", {}, (s.tribes || []).map(tribeName).join(", ")), el("td", {}, s.insight ? tribeName(s.insight) : "")));
  const d = v.dragon || {};
  const holder = Number.isInteger(d.stone) ? ctx.names[d.stone] || `seat ${d.stone}` : "—";
  out.push(el("section", { class: "player-panel shared-panel" },
    el("h3", {}, "The Dragon and the Fury track"),
    el("dl", { class: "kv" }, el("dt", {}, "Dragon at"), el("dd", {}, d.at ? territoryName(view, d.at) : "—"),
      el("dt", {}, "Dragon Stone"), el("dd", {}, holder), el("dt", {}, "Dragon Movement pile"), el("dd", {}, `${d.deck_count} cards`),
      el("dt", {}, "Insight bag"), el("dd", {}, `${v.bag_count} tokens`),
      el("dt", {}, "Insight on the board"), el("dd", {}, boardInsight(view))),
    el("div", { class: "table-wrap" }, el("table", { class: "kv-table" },
      el("thead", {}, el("tr", {}, ["Level", "Fury card", "Tribes", "Insight"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows)))));
  return out;
}

/* The insight tokens lying in territories, by territory (the tribes whose tokens they are). */
function boardInsight(view) {
  const out = [];
  for (const c of view.board.board.cells) {
    const who = (c.pieces || []).filter((p) => String(p.label || "").startsWith("insight:")).map((p) => tribeName(String(p.label).slice(8)));
    if (who.length) out.push(`${territoryName(view, c.id)}: ${who.join(", ")}`);
  }
  return out.length ? out.join("; ") : "none";
}

function status(view) { return `Turn ${view.board.turn_no || "—"}`; }

function home(view, seat) {
  const t = (view.board.tribes || []).find((x) => x.seat === seat);
  return t ? [t.camp] : [];
}

function cellsOf(cmd, view) {
  const a = cmd.args || {};
  const t = cmd.type.split(".")[1];
  if (t === "explore") return a.dir === "out" ? [a.target, ...(a.via || [])] : [...(a.via || []), a.target];
  if (t === "take" || t === "pay" || t === "reveal" || t === "stance" || t === "special" || t === "empower") return [];
  return null;
}

/* Words for the replay's list of what changed: territories by name, and a cell's pieces ("celts:
 * hidden", "insight:vikings", "tree2:altered") as a player calls them. */
function words(view) {
  const piece = ({ label }) => {
    const [a, b] = String(label).split(":");
    if (b === undefined) return a === "Dragon" ? "The Dragon" : a;
    if (a === "insight") return `${tribeName(b)} insight token`;
    const tree = /^tree(\d+)$/.exec(a);
    if (tree) return `Dragon tree ${tree[1]} (${b.replace(/_/g, " ")})`;
    return b === "hidden" ? `Hidden ${tribeName(a)} unit` : `${tribeName(a)} ${unitName(a, b)}`;
  };
  return { cell: (id) => territoryName(view, id), piece };
}

export const skin = { board, legend, panels, home, cellsOf, status, ready, words, rules: "/rules/dragondale", tribeName, territoryName };
