/* The player's page: their name, their games (those waiting on them first: a dispute waiting on
 * their ruling in a game they referee, then their turns) and their signed-in devices, each with
 * "sign out". */

import { Account } from "./account.js";
import { statusBadge } from "./chips.js";
import { BLClock } from "./clock.js";
import { gameTitle, gameTitles } from "./content.js";
import { clear, el } from "./dom.js";
import { when } from "./sentences.js";
import "./header.js"; // the header every page shares

const msg = document.getElementById("me-msg");
const panel = document.getElementById("sessions-panel");
const rows = document.querySelector("#sessions tbody");
const gamesPanel = document.getElementById("games-panel");
const gameRows = document.querySelector("#my-games tbody");

function at(seconds) {
  return new Date(seconds * 1000).toLocaleString();
}

function signedOut() {
  document.getElementById("title").textContent = "Me";
  panel.classList.add("hidden");
  gamesPanel.classList.add("hidden");
  clear(msg);
  msg.append(el("div", { class: "msg info" }, "You are not signed in on this computer. Open your sign-in link, or ",
    el("a", { href: "/signin", text: "sign in with your key" }), "."));
}

async function signOut(path) {
  try {
    await Account.call(path, "DELETE");
    await load();
  } catch (e) {
    Account.show(msg, "error", e.message);
  }
}

// A device as a person names it ("Chrome on Linux"); the full user agent stays in the tooltip.
const BROWSERS = [["Edg/", "Edge"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]];
const SYSTEMS = [["Android", "Android"], ["iPhone", "iPhone"], ["iPad", "iPad"], ["Windows", "Windows"],
  ["Mac OS", "macOS"], ["CrOS", "ChromeOS"], ["Linux", "Linux"]];

function device(ua) {
  if (!ua) return "an unknown device";
  const browser = (BROWSERS.find(([k]) => ua.includes(k)) || [null, "a browser"])[1];
  const system = (SYSTEMS.find(([k]) => ua.includes(k)) || [null, null])[1];
  return system ? `${browser} on ${system}` : browser;
}

function row(s) {
  const label = s.current ? "Sign out this device" : "Sign out";
  return el("tr", { class: s.current ? "you" : null },
    el("td", { "data-label": "Device", title: s.user_agent || "" },
      // One child beside the label: the phone layout is a two-column grid.
      el("span", {}, device(s.user_agent),
        s.current ? el("span", { class: "badge muted-badge", text: "this device" }) : null)),
    el("td", { "data-label": "Signed in", text: at(s.created) }),
    el("td", { "data-label": "Last seen", text: at(s.last_seen) }),
    el("td", { "data-label": "" }, el("button", {
      type: "button", class: "secondary", text: label,
      onclick: () => signOut("/v1/me/sessions/" + encodeURIComponent(s.id)),
    })));
}

/* A game the player referees: the seats it is between, and a dispute waiting on their ruling. */
function refereeTurn(g, over) {
  if (g.dispute) {
    return el("span", {}, el("strong", { text: "Your ruling" }),
      el("span", { class: "asked", text: `: ${g.dispute.by || "a seat"} disputes a move: ` }),
      g.dispute.note ? el("q", { class: "asked", text: g.dispute.note }) : null);
  }
  return el("span", { text: over ? "—" : `no dispute; to play: ${g.turn.join(", ") || "—"}` });
}

function gameRow(g) {
  const path = "/games/" + encodeURIComponent(g.id);
  const over = g.status !== "active";
  const referee = g.role === "referee";
  return el("tr", { class: (g.waiting_on_you ?? g.your_turn) ? "you" : null, "data-game": g.id, "data-role": g.role || "seat" },
    el("td", { "data-label": "Game" }, el("span", {},
      el("a", { href: path, text: `${gameTitle(g.game)} · ${g.id}` }),
      g.analysis ? el("span", {}, " ", el("span", { class: "badge analysis-badge", text: "analysis" })) : null,
      referee ? el("span", {}, " ", el("span", { class: "badge referee-badge", text: "you referee" }))
        : g.refereed ? el("span", {}, " ", el("span", { class: "badge referee-badge", text: "refereed" })) : null,
      over || referee ? el("span", {}, " · ", el("a", { href: path + "/replay" + (referee && !over ? "?view=all" : ""), text: "replay" })) : null)),
    el("td", { "data-label": referee ? "Between" : "Against", text: g.opponents.join(", ") || "—" }),
    el("td", { "data-label": "Turn" }, referee ? refereeTurn(g, over) : el("span", {}, g.your_turn ? el("strong", { text: "Your turn" })
      : el("span", { text: over ? "—" : g.turn.join(", ") || "—" }),
      !over && g.asked ? el("span", { class: "asked", text: `: ${g.asked}` }) : null,
      !over && (g.deadline || typeof g.left_ms === "number")
        ? el("span", { class: "clock-left", "data-deadline": g.deadline || "", text: " · " + BLClock.seatText(g.deadline, g.left_ms, g.away) })
        : null)),
    el("td", { "data-label": "Since", title: g.since, text: when(g.since) }),
    el("td", { "data-label": "Status" }, statusBadge(g.status)));
}

/* An open table the player opened or sits at, after their games: it has no board yet. */
function tableRow(t) {
  const others = t.seats.filter((s) => s.seat !== t.you).map((s) => (s.name === null ? "(free seat)" : s.name));
  const free = t.free.length;
  return el("tr", { "data-table": t.id },
    el("td", { "data-label": "Game" }, el("a", { href: "/?show=mine", text: `${gameTitle(t.game)} · ${t.id}` })),
    el("td", { "data-label": "Against", text: others.join(", ") || "—" }),
    el("td", { "data-label": "Turn", text: `waiting for ${free} more player${free === 1 ? "" : "s"}` }),
    el("td", { "data-label": "Since", title: new Date(t.created * 1000).toISOString(), text: when(new Date(t.created * 1000).toISOString()) }),
    el("td", { "data-label": "Status" }, statusBadge("forming")));
}

async function loadGames() {
  const [{ games }, { tables }] = await Promise.all([Account.call("/v1/me/games"), Account.call("/v1/tables?mine=1"), gameTitles()]);
  clear(gameRows);
  if (games.length || tables.length) gameRows.append(...games.map(gameRow), ...tables.map(tableRow));
  else gameRows.append(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "No games yet: open a seat link while signed in and keep the seat on your account, or be named a game's referee, and the game is listed here." })));
  gamesPanel.classList.remove("hidden");
}

/* The vacation: its state, start (a number of days) and end. */
const vacationPanel = document.getElementById("vacation-panel");
const vacationMsg = document.getElementById("vacation-msg");

function showVacation(v) {
  const state = document.getElementById("vacation-state");
  state.textContent = v.on
    ? `On vacation since ${new Date(v.since).toLocaleString()}, until ${new Date(v.until).toLocaleString()} at the latest.`
    : `Not on vacation: ${v.left_days} of your ${v.allowance_days} days this year are left.`;
  document.getElementById("vacation-form").classList.toggle("hidden", v.on);
  document.getElementById("vacation-end").classList.toggle("hidden", !v.on);
  vacationPanel.classList.remove("hidden");
}

async function vacation(method, body) {
  clear(vacationMsg);
  try {
    showVacation(await Account.call("/v1/me/vacation", method, body));
    // Each game's clock stops (or runs again) a moment later, as its worker appends it.
    for (const ms of [0, 1500, 4000]) setTimeout(() => loadGames().catch(() => {}), ms);
  } catch (e) {
    Account.show(vacationMsg, "error", e.message);
  }
}

document.getElementById("vacation-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const days = Number(document.getElementById("vacation-days").value);
  vacation("POST", days > 0 ? { days } : {});
});
document.getElementById("vacation-end").addEventListener("click", () => vacation("DELETE"));
// The countdowns of the games list tick.
setInterval(() => {
  for (const span of document.querySelectorAll(".clock-left[data-deadline]")) {
    if (span.dataset.deadline) span.textContent = " · " + BLClock.seatText(span.dataset.deadline, null, false);
  }
}, 1000);

async function load() {
  const me = await Account.me();
  if (!me) return signedOut();
  document.getElementById("title").textContent = me.name;
  const { sessions } = await Account.call("/v1/me/sessions");
  clear(rows);
  rows.append(...sessions.map(row));
  clear(msg);
  panel.classList.remove("hidden");
  showVacation(await Account.call("/v1/me/vacation"));
  await loadGames();
}

/* A new key (asked for, or the one signing out everywhere issues): shown once, to be saved. */
const keyBox = document.getElementById("new-key");
function showKey(key) {
  document.getElementById("new-key-text").textContent = key;
  document.getElementById("key-saved").checked = false;
  document.getElementById("key-done").disabled = true;
  keyBox.classList.remove("hidden");
  keyBox.scrollIntoView();
}
document.getElementById("key-saved").addEventListener("change", (ev) => {
  document.getElementById("key-done").disabled = !ev.target.checked;
});
document.getElementById("copy-key").addEventListener("click", () => {
  const key = document.getElementById("new-key-text").textContent;
  if (key && navigator.clipboard) navigator.clipboard.writeText(key).catch(() => {});
});
document.getElementById("key-done").addEventListener("click", () => {
  document.getElementById("new-key-text").textContent = "";
  keyBox.classList.add("hidden");
});
document.getElementById("everywhere").addEventListener("click", async () => {
  try {
    const out = await Account.call("/v1/me/sessions", "DELETE");
    showKey(out.key);
    await load();
  } catch (e) {
    Account.show(msg, "error", e.message);
  }
});
document.getElementById("rotate-key").addEventListener("click", async () => {
  try {
    showKey((await Account.call("/v1/me/key", "POST")).key);
  } catch (e) {
    Account.show(msg, "error", e.message);
  }
});
load().catch((e) => Account.show(msg, "error", e.message));
