/* The replay page's state, shared by its modules: the game, the viewer's token and seat, the
 * mode (public, a seat's, everything), the steps and the one shown; and its small helpers. */

import { clear, el } from "./dom.js";
import { gameIdFromPath, takeToken } from "./seat-token.js";

export const $ = (id) => document.getElementById(id);

export const gid = gameIdFromPath();
export const S = {
  token: takeToken(gid), summary: null, mode: "public", entries: [], step: null, sub: null,
  data: null, seat: null, referee: false, mayAll: false, asked: 0,
};
export const enc = encodeURIComponent(gid);

export function names() {
  const out = {};
  for (const s of (S.summary && S.summary.seats) || []) out[s.seat] = s.name;
  return out;
}
export const nameOf = (seat) => (Number.isInteger(seat) ? names()[seat] || `seat ${seat}` : "");

export function showError(box, e, prefix) {
  clear(box).append(el("div", { class: "msg error" }, prefix ? prefix + " " : "", e.code ? el("code", {}, e.code) : null, e.code ? ": " : "", e.message));
}
