/* The lobby's new-game form: the game types, seats by name, for yourself, inviting a player or
 * left open, each game's options as choices, the clock, and the links of the game it made. */

import { clear, el } from "./dom.js";
import { L, call, entropy, plural, title, typeOf } from "./lobby-state.js";
import { list, loadGames, tbody } from "./lobby-list.js";

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


/* ---- the game types ------------------------------------------------------------------ */

export function showTypes() {
  clear(typesList);
  clear(typeSel);
  for (const t of L.types) {
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

export function seatRow(kind) {
  const i = seatsBox.children.length;
  const kindSel = el("select", { class: "seat-kind", id: `seat-kind-${i}`, "aria-label": `Seat ${i}: who` },
    KINDS.map(([v, label]) => el("option", { value: v, disabled: !L.me && v !== "name" }, label)));
  kindSel.value = L.me ? kind || "name" : "name";
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
  if (!L.me) text += " Sign in to play a seat yourself, invite players or leave seats open.";
  else if (kinds.includes("open")) text += " With an open seat the game starts when every seat is taken.";
  seatsHint.textContent = text;
}

export function typeChanged() {
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
    if (kind === "me") return { player: L.me.id, entropy: entropy() };
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
    else if (s.player) createdLinks.append(el("li", { "data-seat": s.seat }, `Seat ${s.seat}: ${s.name} — `, s.player === L.me.name ? "yours" : `claimed for ${s.player}`, " (plays signed in, no link)"));
    else createdLinks.append(el("li", { "data-seat": s.seat }, `Seat ${s.seat}: open`));
  }
  createdLinks.append(linkItem("Admin link (abort, full log, export)", `${base}/games/${data.id}#token=${data.admin_token}`, { "data-admin": "1" }));
  document.getElementById("links-note").classList.toggle("hidden", false);
  created.classList.remove("hidden");
  created.focus();
}

export async function create(ev) {
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
      if (data.status === "forming" || tbody.querySelector(`tr[data-game="${data.id}"]`) || list.filter) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (e) {
    newMsg.append(el("div", { class: "msg error" }, el("code", {}, e.code), " ", e.message));
  } finally {
    button.disabled = false;
  }
}
