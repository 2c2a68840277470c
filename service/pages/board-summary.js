/* The board page's summary panel and title: the game as players call it, its status and badges
 * (an analysis fork's origin, the referee and how they hold the role, an imported record), whose
 * turn, the viewer's seat, the outcome, the seats' colours, the game's own status line and the
 * clock. */

import { seatChip, seatLegend, statusBadge } from "./chips.js";
import { BLClock } from "./clock.js";
import { gameTitle } from "./content.js";
import { clear, el } from "./dom.js";
import { setTitle } from "./header.js";
import { headline, outcomeText, whoseTurn } from "./sentences.js";
import { $, S, myTurn, names, skin } from "./board-state.js";

export function renderSummary() {
  const s = S.summary;
  if (!s) return;
  // The game as players call it; its id and seq stay in the address, the API and (for the
  // referee, who quotes them in rulings) the facts below.
  const name = headline(S.view, s, gameTitle(s.game));
  setTitle(`${myTurn() ? "(your move) " : ""}${name} — boardlog`);
  $("title").textContent = name;
  clear($("status")).append(statusBadge(s.status), ...provenanceBadges(s));
  $("turn").textContent = s.status === "active" ? whoseTurn(s) : "—";
  $("seq").textContent = String(s.seq);
  $("seq-box").classList.toggle("hidden", S.role !== "referee");
  const you = $("your-seat");
  clear(you);
  if (S.role === "seat") you.append(seatChip(s, S.seat));
  else you.textContent = S.role === "admin" ? "admin (no seat)" : S.role === "referee" ? "referee (no seat)" : "spectator";
  if (S.role === "referee") refereeChoices(s);
  $("spectator-play").classList.toggle("hidden", !!s.imported);
  $("spectator-imported").classList.toggle("hidden", !s.imported);
  const out = outcomeText(s, s.outcome);
  $("outcome-box").classList.toggle("hidden", !out);
  $("outcome").textContent = out;
  clear($("legend")).append(seatLegend(s));
  const sk = skin();
  const line = sk && sk.status && S.view && S.view.board ? sk.status(S.view) : "";
  $("game-status-box").classList.toggle("hidden", !line);
  $("game-status").textContent = line;
  if (!S.clockTick) S.clockTick = BLClock.mount($("clock"), $("clock-box"), () => S.summary, names);
  else S.clockTick();
}

const REFEREE_APPOINTED = {
  mail: (n) => `The referee, ${n}, was invited by mail and holds the only referee link.`,
  player: (n) => `The referee, ${n}, is a player: only they, signed in, hold the role.`,
  creator: (n) => `The referee link for ${n} was handed to the game's creator.`,
};

/* An analysis game (a fork) links to the game and seq it was forked from; a refereed game
   names its referee, so every seat knows who may read everything. */
function provenanceBadges(s) {
  const out = [];
  if (s.analysis && s.fork) {
    out.push(" ", el("a", { class: "badge analysis-badge", href: `/games/${encodeURIComponent(s.fork.game)}/replay?seq=${s.fork.seq}`,
      title: `an analysis game, forked from ${s.fork.game} at seq ${s.fork.seq}` }, `analysis · from ${s.fork.game} @ ${s.fork.seq}`));
  }
  if (s.refereed && s.referee) {
    // How the referee holds the role, as the game's first event says (docs/referees-and-forks.md).
    const how = REFEREE_APPOINTED[s.referee.appointed];
    out.push(" ", el("span", { class: "badge referee-badge", title: "the referee (not a seat) reads every seat's secrets" },
      `refereed by ${s.referee.name}`));
    if (how) out.push(" ", el("span", { class: "muted referee-appointed", id: "referee-appointed" }, how(s.referee.name)));
  }
  if (s.imported) {
    const i = s.imported;
    out.push(" ", el("span", { class: "badge imported-badge",
      title: `loaded by boardlog import on ${i.at} (${i.verdict}${i.key ? `, signed by key ${i.key}` : ""}): a record from another deployment, for replay; no seat plays it here` },
      `imported · ${i.verdict}`));
  }
  return out;
}


/* The referee picks whose board to draw: the public one or any seat's, secrets included. */
function refereeChoices(s) {
  const sel = $("referee-as");
  if (sel.options.length) return;
  sel.append(el("option", { value: "" }, "spectator (public)"),
    ...s.seats.map((x) => el("option", { value: String(x.seat) }, `${x.name} (seat ${x.seat})`)));
}
