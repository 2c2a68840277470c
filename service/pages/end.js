/* The board page's end panel (issue #36 item 6): once a game is over, "You won" / "ann won" with
 * the game's reason and the final scores as the rules counted them, the replay from the start,
 * the record to download with its audit verdict, and "Play again" for a seat (POST .../rematch).
 * A seat whose rematch another seat asked for is told, and offered to join it. board.js calls
 * BLEnd.update after each render, as it does talk.js and conduct.js. */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { seatName } from "./seats.js";

const $ = (id) => document.getElementById(id);
// What is known of the game shown: its audit (asked once: a finished record never changes) and
// its rematch (asked for until there is one, so a seat is told when another asks).
const S = { ctx: null, audit: null, auditAsked: false, rematch: null, made: null, poll: null, loading: false, busy: false };
const POLL_MS = 4000;

function headline(s, seat) {
  const winners = (s.outcome && s.outcome.winners) || [];
  if (!winners.length) return s.status === "aborted" ? "The game was aborted" : "Nobody won";
  if (seat !== null && winners.includes(seat)) {
    const others = winners.filter((w) => w !== seat).map((w) => seatName(s, w));
    return others.length ? `You and ${others.join(", ")} won` : "You won";
  }
  return `${winners.map((w) => seatName(s, w)).join(" and ")} won`;
}

function scoresTable(s) {
  const scores = (s.outcome && s.outcome.scores) || [];
  if (!scores.length) return el("p", { class: "hint", id: "end-no-scores" }, "No final scores: the game ended before its rules counted them.");
  const winners = new Set((s.outcome && s.outcome.winners) || []);
  return el("table", { class: "end-scores", id: "end-scores" },
    el("caption", {}, "Final scores"),
    el("tbody", {}, scores.map((v, i) => el("tr", { class: winners.has(i) ? "won" : "" },
      el("th", { scope: "row" }, seatName(s, i)), el("td", {}, String(v))))));
}

function auditLine(gid) {
  const a = S.audit;
  const link = el("a", { href: `/v1/games/${encodeURIComponent(gid)}/audit` }, "audit");
  if (!a) return el("span", { id: "end-audit", class: "badge audit-wait" }, "audit: checking…");
  if (a.error) return el("span", { id: "end-audit", class: "badge audit-wait" }, "audit: ", link, ` not read (${a.error})`);
  const cls = a.verdict === "verified" ? "audit-ok" : a.verdict === "failed" ? "audit-fail" : "audit-wait";
  return el("span", { id: "end-audit", class: `badge ${cls}`, title: a.summary || "" }, link, `: ${a.verdict}`);
}

async function loadAudit(gid) {
  if (S.auditAsked) return;
  S.auditAsked = true;
  try {
    S.audit = (await api(`/v1/games/${encodeURIComponent(gid)}/audit`)).data;
  } catch (e) {
    S.audit = { error: e.code || "error" };
  }
  render();
}

/* The rematch, once one was asked for; asked again every few seconds until then. */
async function loadRematch(gid) {
  if (S.loading || S.poll || (S.rematch && S.rematch.ready)) return;
  S.loading = true;
  try {
    S.rematch = (await api(`/v1/games/${encodeURIComponent(gid)}/rematch`)).data;
    render();
  } catch (e) {
    if (e.status !== 404) console.warn(e);
  } finally {
    S.loading = false;
  }
  if (!(S.rematch && S.rematch.ready)) S.poll = setTimeout(() => { S.poll = null; loadRematch(gid); }, POLL_MS);
}

/* Play again, or join the rematch another seat asked for: the same request (one rematch a
 * game); a later caller holding their seat as a player is taken to it. */
async function playAgain() {
  const c = S.ctx;
  if (!c || S.busy) return;
  S.busy = true;
  render();
  try {
    const { data } = await api(`/v1/games/${encodeURIComponent(c.gid)}/rematch`, { method: "POST", token: c.token });
    S.made = data;
    S.rematch = { game: data.game, by: data.by, at: data.at, ready: true };
    if (!data.created && data.join) { location.href = data.join; return; }
  } catch (e) {
    S.made = { error: e };
  } finally {
    S.busy = false;
  }
  render();
}

function rematchPart(c) {
  const out = [];
  const m = S.made;
  const enc = (g) => encodeURIComponent(g);
  if (m && m.error) {
    out.push(el("div", { class: "msg error" }, el("code", {}, m.error.code || "error"), `: ${m.error.message}`));
  }
  if (m && !m.error && m.created) {
    const mine = (m.seats || []).find((x) => x.seat === c.seat);
    out.push(el("p", { id: "end-rematch", class: "msg ok" }, "You asked for a rematch: a new game with the same players and options; each player is told. ",
      el("a", { href: mine && mine.link ? mine.link : `/games/${enc(m.game)}`, id: "end-join" }, "Open your seat in it")));
    const share = (m.seats || []).filter((x) => x.link && x.seat !== c.seat);
    if (share.length) {
      out.push(el("p", { class: "hint" }, "Seats played by their link alone: send each its new link. ",
        ...share.flatMap((x, i) => [i ? ", " : "", el("a", { href: x.link, class: "end-share" }, `${x.name}'s seat`)])));
    }
  } else if (m && !m.error) {
    out.push(el("p", { id: "end-rematch", class: "msg info" }, `${m.by} asked for the rematch first, and their answer holds your seat's new link: ask them for it. `,
      el("a", { href: `/games/${enc(m.game)}`, id: "end-watch" }, "Watch it")));
  } else if (S.rematch) {
    out.push(el("p", { id: "end-rematch", class: "msg info" }, `${S.rematch.by} asked for a rematch: a new game with the same players and options. `,
      c.role === "seat" ? el("button", { type: "button", id: "end-join", disabled: S.busy ? "" : null, onclick: playAgain }, "Join the rematch")
        : el("a", { href: `/games/${enc(S.rematch.game)}`, id: "end-watch" }, "Watch it")));
  } else if (c.role === "seat") {
    out.push(el("button", { type: "button", id: "end-again", disabled: S.busy ? "" : null, onclick: playAgain },
      S.busy ? "Starting…" : "Play again"),
    el("span", { class: "hint" }, " a new game with the same players and options: each is invited to their seat."));
  }
  return out;
}

function render() {
  const c = S.ctx;
  const box = $("end");
  if (!box || !c) return;
  const s = c.summary;
  const over = s && s.status !== "active" && s.outcome;
  box.classList.toggle("hidden", !over);
  if (!over) return;
  const gid = encodeURIComponent(c.gid);
  const reason = s.outcome.reason || "";
  clear(box).append(
    el("h2", { id: "end-h" }, headline(s, c.role === "seat" ? c.seat : null)),
    reason ? el("p", { id: "end-reason", class: "end-reason" }, reason.charAt(0).toUpperCase() + reason.slice(1) + ".") : null,
    scoresTable(s),
    el("p", { class: "row end-links" },
      el("a", { href: `/games/${gid}/replay?seq=1`, id: "end-replay" }, "Replay from the start"),
      el("a", { href: `/v1/games/${gid}/export`, id: "end-record", download: `${c.gid}.jsonl` }, "Download the record"),
      auditLine(c.gid)),
    el("div", { class: "end-again" }, ...rematchPart(c)));
}

export const BLEnd = {
  update(ctx) {
    S.ctx = ctx;
    const over = ctx.summary && ctx.summary.status !== "active" && ctx.summary.outcome;
    render();
    if (over) { loadAudit(ctx.gid); loadRematch(ctx.gid); }
  },
};
