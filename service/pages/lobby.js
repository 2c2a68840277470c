/* The lobby: the game types, open tables and games (filters: all, open tables, mine, finished),
 * and the new-game form: seats by name, for yourself, inviting a player or left open, and each
 * game's options as choices. */

import { Account } from "./account.js";
import { statusBadge } from "./chips.js";
import { BLClock } from "./clock.js";
import { clear, el } from "./dom.js";
import { outcomeText, when, whoseTurn } from "./sentences.js";
import "./header.js"; // the header every page shares

const call = (path, method, body) => Account.call(path, method, body);
const tbody = document.querySelector("#games tbody");
const filters = [...document.querySelectorAll("button.filter")];
const gamesMsg = document.getElementById("games-msg");
const actionMsg = document.getElementById("action-msg");  // what a join or cancel came to
const typeSel = document.getElementById("game-type");
const typeLine = document.getElementById("game-line");
const typesList = document.getElementById("types");
const seatsBox = document.getElementById("seats");
const seatsHint = document.getElementById("seats-hint");
const optionFields = document.getElementById("options-fields");
const rawBox = document.getElementById("raw-options");
const optionsBox = document.getElementById("options");
const newMsg = document.getElementById("new-msg");
const created = document.getElementById("created");
const createdLinks = document.getElementById("created-links");
const moreButton = document.getElementById("more-games");

let me = null;  // the signed-in player, or null
let types = [];  // GET /v1/game-types
let filter = "";  // "", "open", "mine", "over"
let loading = 0;
let next = null;  // the cursor of the page after the rows shown
let pages = 0;

const typeOf = (name) => types.find((t) => t.game === name);
const title = (name) => (typeOf(name) || {}).title || name;
const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;

/* 128 random bits, hex: a seat's contribution to its game's randomness. */
function entropy() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/* ---- the list ------------------------------------------------------------------------ */

function links(id) {
  return el("span", {},
    el("a", { href: `/games/${encodeURIComponent(id)}`, "aria-label": `board of ${id}` }, "Board"),
    el("a", { href: `/games/${encodeURIComponent(id)}/replay`, "aria-label": `replay of ${id}` }, "Replay"));
}

function gameCell(id, game) {
  return el("td", { "data-label": "Game" }, el("a", { href: `/games/${encodeURIComponent(id)}` }, title(game)),
    " ", el("span", { class: "mono muted" }, id));
}

/* An analysis game (a fork), a refereed one and an imported record say so in their row. */
function badged(cell, g) {
  if (g.analysis) cell.append(" ", el("span", { class: "badge analysis-badge", title: g.fork ? `forked from ${g.fork.game} at seq ${g.fork.seq}` : "" }, "analysis"));
  if (g.refereed) cell.append(" ", el("span", { class: "badge referee-badge" }, "refereed"));
  if (g.imported) cell.append(" ", el("span", { class: "badge imported-badge", title: `loaded by boardlog import (${g.imported.verdict}), for replay` }, "imported"));
  return cell;
}

function gameRow(g) {
  const turn = g.status === "active" ? whoseTurn(g) : outcomeText(g, g.outcome) || "—";
  return el("tr", { "data-game": g.id },
    badged(gameCell(g.id, g.game), g),
    el("td", { "data-label": "Players" }, g.seats.map((s) => s.name).join(", ")),
    el("td", { "data-label": "Status" }, statusBadge(g.status)),
    el("td", { "data-label": g.status === "active" ? "Whose turn" : "Result" }, turn),
    el("td", { "data-label": "Last activity" }, el("time", { datetime: g.updated, title: g.updated ? new Date(g.updated).toLocaleString() : "" }, when(g.updated))),
    el("td", { class: "links", "data-label": "Open" }, links(g.id)));
}

/* A row of /v1/me/games (the player's own view of a game). */
function myRow(g) {
  const asked = g.asked ? `: ${g.asked}` : "";
  const turn = g.your_turn ? `Your turn${asked}` : g.turn.length ? `${g.turn.join(", ")}${asked}` : "—";
  return el("tr", { "data-game": g.id },
    badged(gameCell(g.id, g.game), g),
    el("td", { "data-label": "Players" }, [g.name, ...g.opponents].join(", ")),
    el("td", { "data-label": "Status" }, statusBadge(g.status)),
    el("td", { "data-label": "Whose turn" }, turn),
    el("td", { "data-label": "Last activity" }, el("time", { datetime: g.since }, when(g.since))),
    el("td", { class: "links", "data-label": "Open" }, links(g.id)));
}

function optionsText(t) {
  const o = t.options || {};
  const parts = Object.entries(o).map(([k, v]) => (k === "clock" && v && typeof v === "object"
    ? `clock: ${BLClock.rule(v)}`
    : `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.join(", ") : v}`));
  return parts.length ? parts.join("; ") : "rulebook defaults";
}

function tableRow(t) {
  const seats = t.seats.map((s) => (s.name === null ? "(free seat)" : s.name)).join(", ");
  const action = el("span", { class: "table-action" });
  if (t.you !== null) action.append(el("span", { class: "badge you-badge" }, `you: seat ${t.you}`));
  else if (me) {
    action.append(el("button", { type: "button", "data-join": t.id, "aria-label": `join ${title(t.game)} table ${t.id}`,
      onclick: () => join(t) }, "Join"));
  } else action.append(el("a", { href: "/signin" }, "Sign in to join"));
  if (t.yours) {
    action.append(" ", el("button", { type: "button", class: "secondary", "aria-label": `cancel table ${t.id}`,
      onclick: () => cancel(t) }, "Cancel"));
  }
  const expires = new Date(t.expires * 1000);
  return el("tr", { "data-table": t.id },
    el("td", { "data-label": "Game" }, title(t.game), " ", el("span", { class: "mono muted" }, t.id)),
    el("td", { "data-label": "Players" }, seats),
    el("td", { "data-label": "Status" }, el("span", { class: "badge status-forming" }, "forming"), " ",
      plural(t.free.length, "free seat")),
    el("td", { "data-label": "Options" }, optionsText(t)),
    el("td", { "data-label": "Open until" }, el("time", { datetime: expires.toISOString(), title: expires.toLocaleString() },
      `open until ${expires.toLocaleDateString()}`), el("div", { class: "muted" }, `by ${t.creator}`)),
    el("td", { class: "links", "data-label": "Join" }, action));
}

function empty(text) {
  tbody.append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, text)));
}

async function join(t) {
  clear(actionMsg);
  try {
    const out = await call(`/v1/tables/${encodeURIComponent(t.id)}/join`, "POST", { entropy: entropy() });
    if (out.status === "started") {
      actionMsg.append(el("div", { class: "msg ok" }, `You took seat ${out.seat}: the game has started. `,
        el("a", { href: `/games/${encodeURIComponent(t.id)}`, id: "joined-board" }, "Open your seat's board")));
    } else {
      actionMsg.append(el("div", { class: "msg ok" }, `You took seat ${out.seat}. The game starts when `,
        plural(out.free, "more player joins", "more players join"), "."));
    }
  } catch (e) {
    actionMsg.append(el("div", { class: "msg error" }, el("code", {}, e.code), " ", e.message));
  }
  await loadGames();
}

async function cancel(t) {
  clear(actionMsg);
  try {
    await call(`/v1/tables/${encodeURIComponent(t.id)}/cancel`, "POST");
    actionMsg.append(el("div", { class: "msg ok" }, `Table ${t.id} cancelled.`));
  } catch (e) {
    actionMsg.append(el("div", { class: "msg error" }, el("code", {}, e.code), " ", e.message));
  }
  await loadGames();
}

/* The first page (more: false) or the page after the rows shown (more: true). */
async function loadGames(more) {
  const mine = ++loading;
  try {
    let tables = [];
    let rows = [];
    let nxt = null;
    if (filter === "mine") {
      if (!me) {
        if (mine !== loading) return null;
        clear(tbody);
        clear(gamesMsg);
        tbody.append(el("tr", {}, el("td", { colspan: 6 }, el("a", { href: "/signin" }, "Sign in"), " to see your games.")));
        moreButton.classList.add("hidden");
        return null;
      }
      tables = (await call("/v1/tables?mine=1")).tables;
      rows = (await call("/v1/me/games")).games.map(myRow);
    } else if (filter === "open") {
      tables = (await call("/v1/tables")).tables;
    } else {
      const params = new URLSearchParams();
      if (filter === "over") params.set("status", "finished");
      if (more === true && next) params.set("cursor", next);
      const q = params.toString() ? "?" + params : "";
      const [page, open] = await Promise.all([call("/v1/games" + q), filter || more === true ? null : call("/v1/tables")]);
      rows = page.games.map(gameRow);
      tables = open ? open.tables : [];
      nxt = page.next;
    }
    if (mine !== loading) return null;
    clear(gamesMsg);
    if (more !== true) {
      clear(tbody);
      pages = 0;
    }
    pages += 1;
    for (const t of tables) tbody.append(tableRow(t));
    for (const r of rows) tbody.append(r);
    if (pages === 1 && !tables.length && !rows.length) {
      empty({ open: "No open tables: create a game with an open seat.", mine: "You have no games yet.",
        over: "No finished games." }[filter] || "No games yet: create one.");
    }
    next = nxt;
    moreButton.classList.toggle("hidden", !next);
    return rows;
  } catch (e) {
    clear(gamesMsg).append(el("div", { class: "msg error" }, `Could not load the games: ${e.message}`));
    return null;
  }
}

function setFilter(value, push = true) {
  filter = value;
  for (const b of filters) b.setAttribute("aria-pressed", String(b.dataset.filter === value));
  if (push) {
    const u = new URL(location.href);
    u.searchParams.delete("status");
    u.searchParams.delete("show");
    if (value === "over") u.searchParams.set("status", "over");
    else if (value) u.searchParams.set("show", value);
    history.replaceState(null, "", u);
  }
  return loadGames();
}

/* ---- the game types ------------------------------------------------------------------ */

function showTypes() {
  clear(typesList);
  clear(typeSel);
  for (const t of types) {
    const players = t.min_seats === t.max_seats ? plural(t.min_seats, "player") : `${t.min_seats}-${t.max_seats} players`;
    typesList.append(el("li", { "data-type": t.game },
      el("strong", {}, t.title), " ", el("span", { class: "muted" }, `(${players})`), t.line ? " — " + t.line : "",
      " ", el("a", { href: "#new-game", onclick: () => { typeSel.value = t.game; typeChanged(); } }, `New ${t.title} game`)));
    typeSel.append(el("option", { value: t.game }, `${t.title} (${players})`));
  }
  typeChanged();
}

/* ---- the form ------------------------------------------------------------------------ */

const current = () => typeOf(typeSel.value);
const perSeat = () => ((current() || {}).options || []).filter((o) => o.kind === "per_seat");

const KINDS = [
  ["name", "Name (a secret link)"],
  ["me", "Me"],
  ["player", "Invite a player"],
  ["email", "Invite by email"],
  ["open", "Open seat"],
];

function seatRow(kind) {
  const i = seatsBox.children.length;
  const kindSel = el("select", { class: "seat-kind", id: `seat-kind-${i}`, "aria-label": `Seat ${i}: who` },
    KINDS.map(([v, label]) => el("option", { value: v, disabled: !me && v !== "name" }, label)));
  kindSel.value = me ? kind || "name" : "name";
  const input = el("input", { type: "text", name: "seat", maxlength: 40, autocomplete: "off", id: `seat-${i}`,
    "aria-label": `Seat ${i} name` });
  const choice = el("select", { class: "seat-choice", "aria-label": `Seat ${i} choice` });
  const remove = el("button", { type: "button", class: "secondary", "aria-label": `Remove seat ${i}` }, "Remove");
  const row = el("div", { class: "row seat-row" }, kindSel, input, choice, remove);
  remove.addEventListener("click", () => {
    if (seatsBox.children.length > 1) { row.remove(); renumber(); seatChoices(); }
  });
  kindSel.addEventListener("change", () => kindChanged(row));
  seatsBox.append(row);
  kindChanged(row);
  seatChoices();
  return input;
}

function kindChanged(row) {
  const kind = row.querySelector(".seat-kind").value;
  const input = row.querySelector("input");
  const i = [...seatsBox.children].indexOf(row);
  input.classList.toggle("hidden", kind === "open" || kind === "me");
  input.placeholder = kind === "player" ? "the player's name or id" : kind === "email" ? "their email address" : `name of seat ${i}`;
  input.setAttribute("aria-label", kind === "player" ? `Seat ${i}: player to invite` : kind === "email" ? `Seat ${i}: email to invite` : `Seat ${i} name`);
  input.type = kind === "email" ? "email" : "text";
  input.maxLength = kind === "email" ? 254 : 40;
  updateHint();
}

function renumber() {
  [...seatsBox.children].forEach((row, i) => {
    row.querySelector("input").id = `seat-${i}`;
    row.querySelector(".seat-kind").id = `seat-kind-${i}`;
    row.querySelector(".seat-kind").setAttribute("aria-label", `Seat ${i}: who`);
    row.querySelector(".seat-choice").setAttribute("aria-label", `Seat ${i} choice`);
    row.querySelector("button").setAttribute("aria-label", `Remove seat ${i}`);
    kindChanged(row);
  });
}

/* The per-seat option (factions, tribes) as a choice in each seat's row, defaulting to the
 * rulebook's for this many seats. */
function seatChoices() {
  const opt = perSeat()[0];
  const rows = [...seatsBox.children];
  const defaults = opt ? opt.defaults[String(rows.length)] || [] : [];
  rows.forEach((row, i) => {
    const sel = row.querySelector(".seat-choice");
    const keep = sel.dataset.touched ? sel.value : null;
    clear(sel);
    sel.classList.toggle("hidden", !opt);
    if (!opt) return;
    sel.setAttribute("aria-label", `Seat ${i}: ${opt.label.toLowerCase().replace(/s$/, "")}`);
    for (const c of opt.choices) sel.append(el("option", { value: c.value }, c.label));
    sel.value = keep || defaults[i] || opt.choices[i % opt.choices.length].value;
    sel.onchange = () => { sel.dataset.touched = "1"; };
  });
}

function updateHint() {
  const t = current();
  const n = seatsBox.children.length;
  const kinds = [...seatsBox.querySelectorAll(".seat-kind")].map((s) => s.value);
  let text = t ? `${t.title} takes ${t.min_seats === t.max_seats ? t.min_seats : `${t.min_seats} to ${t.max_seats}`} seats; ${plural(n, "seat")} now.` : "";
  if (!me) text += " Sign in to play a seat yourself, invite players or leave seats open.";
  else if (kinds.includes("open")) text += " With an open seat the game starts when every seat is taken.";
  seatsHint.textContent = text;
}

function typeChanged() {
  const t = current();
  typeLine.textContent = t ? t.line : "";
  clear(optionFields);
  const known = t && t.options !== null;
  rawBox.classList.toggle("hidden", !!known);
  if (known) {
    for (const o of t.options) {
      if (o.kind === "per_seat") {
        optionFields.append(el("div", { class: "hint" }, `${o.label}: one per seat, in each seat's row.` + (o.hint ? ` ${o.hint}` : ""),
          o.link ? [" (", el("a", { href: o.link.href }, o.link.text), ")."] : ""));
      } else if (o.kind === "bool") {
        optionFields.append(el("div", { class: "field row" },
          el("input", { type: "checkbox", id: `opt-${o.key}`, "data-option": o.key, checked: o.default }),
          el("label", { for: `opt-${o.key}`, style: "margin:0" }, o.label)));
      } else {
        const sel = el("select", { id: `opt-${o.key}`, "data-option": o.key },
          o.choices.map((c) => el("option", { value: String(c.value) }, c.label)));
        sel.value = String(o.default);
        optionFields.append(el("div", { class: "field" }, el("label", { for: `opt-${o.key}` }, o.label), sel));
      }
    }
  }
  seatChoices();
  updateHint();
}

/* The options the form says, only where they differ from the defaults (so an untouched form
 * asks for the rulebook's set-up), or the raw JSON box's object. */
function formOptions() {
  const t = current();
  if (!t || t.options === null) {
    const raw = optionsBox.value.trim();
    if (!raw) return {};
    let options;
    try { options = JSON.parse(raw); } catch (e) { throw new Error(`The options are not valid JSON: ${e.message}`); }
    if (!options || typeof options !== "object" || Array.isArray(options)) {
      throw new Error("The options must be a JSON object, like {\"key\": value}.");
    }
    return options;
  }
  const out = {};
  for (const o of t.options) {
    if (o.kind === "per_seat") {
      const chosen = [...seatsBox.querySelectorAll(".seat-choice")].map((s) => s.value);
      const defaults = o.defaults[String(chosen.length)];
      if (!defaults || chosen.join() !== defaults.join()) out[o.key] = chosen;
    } else if (o.kind === "bool") {
      const v = document.getElementById(`opt-${o.key}`).checked;
      if (v !== o.default) out[o.key] = v;
    } else {
      const raw = document.getElementById(`opt-${o.key}`).value;
      const c = o.choices.find((x) => String(x.value) === raw);
      if (c && c.value !== o.default) out[o.key] = c.value;
    }
  }
  return out;
}

/* The clock the form asks for (events/domain/platform/clock.py), or null for none. */
function formClock() {
  const perMove = document.getElementById("clock-per-move").value;
  if (!perMove) return null;
  const clock = { per_move: Number(perMove), on_timeout: document.getElementById("clock-timeout").value };
  const bank = document.getElementById("clock-bank").value;
  if (bank) [clock.bank, clock.increment] = bank.split(":").map(Number);
  const reminder = Number(document.getElementById("clock-reminder").value || 0);
  if (reminder && reminder < clock.per_move + (clock.bank || 0)) clock.reminder = reminder;
  return clock;
}
document.getElementById("clock-per-move").addEventListener("change", (ev) =>
  document.getElementById("clock-more").classList.toggle("hidden", !ev.target.value));

function formSeats() {
  return [...seatsBox.children].map((row, i) => {
    const kind = row.querySelector(".seat-kind").value;
    const text = row.querySelector("input").value.trim();
    if (kind === "open") return { open: true };
    if (kind === "me") return { player: me.id, entropy: entropy() };
    if (!text) throw new Error(kind === "player" ? `Seat ${i}: name the player to invite.` : kind === "email" ? `Seat ${i}: the address to invite.` : "Every seat needs a name.");
    if (kind === "email") {
      // A seat by name, its link mailed to the address once the game is made (and shown to nobody else).
      if (!/^[^@\s]+@[^@\s]+$/.test(text)) throw new Error(`Seat ${i}: ${text} is not an email address.`);
      invites[i] = text;
      return text.split("@")[0].replace(/[^\p{L}\p{N} ._-]/gu, "").slice(0, 40) || `seat ${i}`;
    }
    return kind === "player" ? { player: text } : text;
  });
}
let invites = {}; // seat -> the address its link is mailed to

/* Each seat invited by email: its link mailed to the address, never shown here. */
async function mailInvites(data) {
  for (const s of data.seats) {
    const to = invites[s.seat];
    if (!to || !s.token) continue;
    const item = createdLinks.querySelector(`li[data-seat="${s.seat}"]`);
    try {
      await call(`/v1/games/${encodeURIComponent(data.id)}/invitations`, "POST", { token: s.token, email: to });
      if (item) item.replaceWith(el("li", { "data-seat": s.seat, class: "invited" }, `Seat ${s.seat}: ${s.name} — invited: its link was mailed to ${to}`));
    } catch (e) {
      if (item) item.append(el("div", { class: "msg error" }, `The invitation to ${to} was not sent (${e.code}: ${e.message}): send them this link yourself.`));
    }
  }
}

function linkItem(label, url, extra) {
  const id = "link-" + Math.random().toString(36).slice(2);
  const input = el("input", { type: "text", readonly: true, value: url, id, class: "secret-link" });
  const copy = el("button", { type: "button", class: "secondary" }, "Copy");
  copy.addEventListener("click", async () => {
    input.select();
    try { await navigator.clipboard.writeText(url); copy.textContent = "Copied"; }
    catch (e) { document.execCommand && document.execCommand("copy"); copy.textContent = "Copied"; }
    setTimeout(() => { copy.textContent = "Copy"; }, 1500);
  });
  return el("li", extra || {}, el("label", { for: id }, label), el("div", { class: "row" }, input, copy));
}

function showCreated(data) {
  const base = location.origin;
  const forming = data.status === "forming";
  clear(createdLinks);
  document.getElementById("created-h").textContent = forming ? "Table open" : "Game created";
  // A forming table has no board yet: its link is the lobby's list of open tables.
  createdLinks.append(el("li", {}, forming ? "Table " : "Game ",
    el("a", { href: forming ? "/?show=open" : `/games/${data.id}`, class: "mono" }, data.id),
    ` (${title(data.game)})`, forming ? " — listed under Open tables until every seat is taken; the game is set up then, "
      + `and its board is at ${base}/games/${data.id}.` : ` — spectators can watch at ${base}/games/${data.id}`));
  for (const s of data.seats) {
    if (s.token) createdLinks.append(linkItem(`Seat ${s.seat}: ${s.name}`, `${base}/games/${data.id}#token=${s.token}`, { "data-seat": s.seat }));
    else if (s.player) createdLinks.append(el("li", { "data-seat": s.seat }, `Seat ${s.seat}: ${s.name} — `, s.player === me.name ? "yours" : `claimed for ${s.player}`, " (plays signed in, no link)"));
    else createdLinks.append(el("li", { "data-seat": s.seat }, `Seat ${s.seat}: open`));
  }
  createdLinks.append(linkItem("Admin link (abort, full log, export)", `${base}/games/${data.id}#token=${data.admin_token}`, { "data-admin": "1" }));
  document.getElementById("links-note").classList.toggle("hidden", false);
  created.classList.remove("hidden");
  created.focus();
}

async function create(ev) {
  ev.preventDefault();
  clear(newMsg);
  let seats, options;
  invites = {};
  try {
    seats = formSeats();
    options = formOptions();
    const clock = formClock();
    if (clock) options = { ...options, clock };
  } catch (e) {
    newMsg.append(el("div", { class: "msg error" }, e.message));
    return;
  }
  const button = document.getElementById("create");
  button.disabled = true;
  try {
    const data = await call("/v1/games", "POST", { game: typeSel.value, seats, options });
    showCreated(data);
    await mailInvites(data);
    // The list is a projection, a moment behind the creation: look again until the game is in it.
    for (let i = 0; i < 20; i++) {
      await loadGames();
      if (data.status === "forming" || tbody.querySelector(`tr[data-game="${data.id}"]`) || filter) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (e) {
    newMsg.append(el("div", { class: "msg error" }, el("code", {}, e.code), " ", e.message));
  } finally {
    button.disabled = false;
  }
}

document.getElementById("add-seat").addEventListener("click", () => { seatRow(me ? "open" : "name").focus(); });
document.getElementById("refresh").addEventListener("click", () => loadGames());
moreButton.addEventListener("click", () => loadGames(true));
document.getElementById("new-form").addEventListener("submit", create);
for (const b of filters) b.addEventListener("click", () => setFilter(b.dataset.filter));
typeSel.addEventListener("change", typeChanged);

async function start() {
  const q = new URLSearchParams(location.search);
  if (q.get("status") === "over") filter = "over";
  else if (["open", "mine"].includes(q.get("show"))) filter = q.get("show");
  for (const b of filters) b.setAttribute("aria-pressed", String(b.dataset.filter === filter));
  try {
    [me, { types }] = await Promise.all([Account.me(), call("/v1/game-types")]);
  } catch (e) {
    clear(gamesMsg).append(el("div", { class: "msg error" }, `Could not load the game types: ${e.message}`));
  }
  showTypes();
  seatRow("me");
  seatRow("open");
  await loadGames();
}

start();
// Keep the first page fresh (not once older pages are shown: that would drop them),
// and not while someone is moving through it with the keyboard.
setInterval(() => { if (!document.hidden && pages <= 1 && !tbody.contains(document.activeElement)) loadGames(); }, 15000);
