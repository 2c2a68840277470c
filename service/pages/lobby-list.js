/* The lobby's list: open tables and games, filtered (all, open tables, mine, finished), a page
 * at a time, with joining and cancelling a table. */

import { statusBadge } from "./chips.js";
import { BLClock } from "./clock.js";
import { clear, el } from "./dom.js";
import { outcomeText, when, whoseTurn } from "./sentences.js";
import { L, call, entropy, plural, title } from "./lobby-state.js";

export const tbody = document.querySelector("#games tbody");
export const filters = [...document.querySelectorAll("button.filter")];
const gamesMsg = document.getElementById("games-msg");
const actionMsg = document.getElementById("action-msg");  // what a join or cancel came to
export const moreButton = document.getElementById("more-games");

export const list = { filter: "", pages: 0 }; // the filter ("", "open", "mine", "over"), the pages shown
let loading = 0;
let next = null;  // the cursor of the page after the rows shown

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
  else if (L.me) {
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
export async function loadGames(more) {
  const mine = ++loading;
  try {
    let tables = [];
    let rows = [];
    let nxt = null;
    if (list.filter === "mine") {
      if (!L.me) {
        if (mine !== loading) return null;
        clear(tbody);
        clear(gamesMsg);
        tbody.append(el("tr", {}, el("td", { colspan: 6 }, el("a", { href: "/signin" }, "Sign in"), " to see your games.")));
        moreButton.classList.add("hidden");
        return null;
      }
      tables = (await call("/v1/tables?mine=1")).tables;
      rows = (await call("/v1/me/games")).games.map(myRow);
    } else if (list.filter === "open") {
      tables = (await call("/v1/tables")).tables;
    } else {
      const params = new URLSearchParams();
      if (list.filter === "over") params.set("status", "finished");
      if (more === true && next) params.set("cursor", next);
      const q = params.toString() ? "?" + params : "";
      const [page, open] = await Promise.all([call("/v1/games" + q), list.filter || more === true ? null : call("/v1/tables")]);
      rows = page.games.map(gameRow);
      tables = open ? open.tables : [];
      nxt = page.next;
    }
    if (mine !== loading) return null;
    clear(gamesMsg);
    if (more !== true) {
      clear(tbody);
      list.pages = 0;
    }
    list.pages += 1;
    for (const t of tables) tbody.append(tableRow(t));
    for (const r of rows) tbody.append(r);
    if (list.pages === 1 && !tables.length && !rows.length) {
      empty({ open: "No open tables: create a game with an open seat.", mine: "You have no games yet.",
        over: "No finished games." }[list.filter] || "No games yet: create one.");
    }
    next = nxt;
    moreButton.classList.toggle("hidden", !next);
    return rows;
  } catch (e) {
    clear(gamesMsg).append(el("div", { class: "msg error" }, `Could not load the games: ${e.message}`));
    return null;
  }
}

export function setFilter(value, push = true) {
  list.filter = value;
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

