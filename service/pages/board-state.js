/* The board page's state, shared by its modules: the game, who the viewer is, what the page
 * last read (summary, view, legal commands, moves), the command being built; and the few
 * helpers every part of the page uses. */

import { clear, el } from "./dom.js";
import { takeToken, gameIdFromPath } from "./seat-token.js";
import { skins } from "./skins.js";

export const $ = (id) => document.getElementById(id);

export const gid = gameIdFromPath();
// A seat link pasted into a tab already on this game changes only the fragment: the page
// loads again as that seat. Opening a link never claims its seat: a signed-in viewer is
// offered to keep it, in one click (offerSeatClaim).
window.addEventListener("hashchange", () => {
  if (!new URLSearchParams(location.hash.replace(/^#/, "")).has("token")) return;
  takeToken(gid); // kept for this tab, and out of the address bar
  location.reload();
});
// A link may name the seat it is for (#seat=N, a mail's link: no secret in it), so that a
// visitor not signed in is told which seat signing in leads to.
export const hintedSeat = Number.parseInt(new URLSearchParams(location.hash.replace(/^#/, "")).get("seat"), 10);
export const S = {
  token: takeToken(gid),
  role: "spectator", // "seat" | "admin" | "referee" | "spectator"
  asSeat: null, // the referee: the seat whose board is drawn (null: the public board)
  seat: null,
  summary: null,
  view: null,
  legal: null,
  events: new Map(), // seq -> envelope as this viewer sees it
  loadedTo: 0, // the raw log is loaded up to this seq
  busy: false,
  sel: [], // the targets chosen so far for the command being built (click to move)
  moves: [], // the latest entries of the move list (GET /moves), oldest first
  seen: null, // the board as the viewer last acted on it: {seq, pieces: {cell: [piece]}}
  pointed: null, // the move-list entry the reader points at (its cells are marked meanwhile)
  badToken: false, // the link's token was refused: its warning stays above the sign-in line
};

export function showError(box, err, prefix) {
  clear(box).append(el("div", { class: "msg error" }, prefix ? prefix + " " : "", err.code ? el("code", {}, err.code) : null, err.code ? ": " : "", err.message));
}

export function names() {
  const out = {};
  for (const s of (S.summary && S.summary.seats) || []) out[s.seat] = s.name;
  return out;
}

export const skin = () => (S.view && skins[S.view.game]) || null;
export const myTurn = () => Boolean(S.role === "seat" && S.summary && S.summary.status === "active" && S.summary.prompt && S.summary.prompt.seats.includes(S.seat));
// What a skin knows of the page: the viewer, the names, the legal commands, and whether the
// board is drawn small (a phone), where it keeps to short labels and one token per player.
export const ctx = () => ({ seat: S.seat, names: names(), summary: S.summary, toPlay: (S.summary && S.summary.prompt && S.summary.prompt.seats) || [], legal: (S.legal && S.legal.commands) || [],
  width: boardWidth(), compact: boardWidth() < 560 });

/* The width the board may take, in px. */
export function boardWidth() {
  const box = $("board");
  return Math.max(200, box.clientWidth || box.parentElement.clientWidth - 32);
}
