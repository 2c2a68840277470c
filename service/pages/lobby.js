/* The lobby: the game types, open tables and games (filters: all, open tables, mine, finished),
 * and the new-game form: seats by name, for yourself, inviting a player or left open, and each
 * game's options as choices. */

import { Account } from "./account.js";
import { clear, el } from "./dom.js";
import "./header.js"; // the header every page shares
import { create, seatRow, showTypes, typeChanged } from "./lobby-form.js";
import { filters, list, loadGames, moreButton, setFilter, tbody } from "./lobby-list.js";
import { L, call } from "./lobby-state.js";

const gamesMsg = document.getElementById("games-msg");

document.getElementById("add-seat").addEventListener("click", () => { seatRow(L.me ? "open" : "name").focus(); });
document.getElementById("refresh").addEventListener("click", () => loadGames());
moreButton.addEventListener("click", () => loadGames(true));
document.getElementById("new-form").addEventListener("submit", create);
for (const b of filters) b.addEventListener("click", () => setFilter(b.dataset.filter));
document.getElementById("game-type").addEventListener("change", typeChanged);

async function start() {
  const q = new URLSearchParams(location.search);
  if (q.get("status") === "over") list.filter = "over";
  else if (["open", "mine"].includes(q.get("show"))) list.filter = q.get("show");
  for (const b of filters) b.setAttribute("aria-pressed", String(b.dataset.filter === list.filter));
  try {
    [L.me, { types: L.types }] = await Promise.all([Account.me(), call("/v1/game-types")]);
  } catch (e) {
    clear(gamesMsg).append(el("div", { class: "msg error" }, `Could not load the game types: ${e.message}`));
  }
  showTypes();
  seatRow("me");
  seatRow("open");
  await loadGames();
}

start();
// Keep the first page fresh (not once older list.pages are shown: that would drop them),
// and not while someone is moving through it with the keyboard.
setInterval(() => { if (!document.hidden && list.pages <= 1 && !tbody.contains(document.activeElement)) loadGames(); }, 15000);

