/* Who the viewer of a board is (a seat by its link's token or by the signed-in player's
 * session, the referee, the admin, or a spectator), and what signing in offers them here:
 * keeping the link's seat or the referee's role on their account. */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { forgetToken } from "./seat-token.js";
import { signedIn, signedOut } from "./signed-in.js";
import { $, S, gid, hintedSeat, names, showError } from "./board-state.js";

/* Who the viewer is. With a token: its seat (legal answers), the admin (legal says
 * seat_required) or nobody valid (bad_token: drop it). Without one: the seat the signed-in
 * player holds here, asked of the server (the session cookie, which no script reads, is the
 * credential), else a spectator. */
export async function identify() {
  if (!S.token) return identifyBySession();
  try {
    const [legal, view] = await Promise.all([
      api(`/v1/games/${gid}/legal`, { token: S.token }),
      api(`/v1/games/${gid}/view`, { token: S.token }),
    ]);
    S.role = "seat";
    S.seat = view.data.seat;
    S.legal = legal.data;
  } catch (e) {
    if (e.code === "seat_required") {
      // No seat: the admin, or the game's referee (whose view holds every seat's board).
      const mine = await api(`/v1/games/${gid}/view`, { token: S.token });
      S.role = mine.data.referee ? "referee" : "admin";
    } else if (e.status === 401) {
      forgetToken(gid);
      S.token = null;
      S.badToken = true;
      clear($("token-msg")).append(el("div", { class: "msg warn" },
        "The link's token is not valid for this game, so you are watching as a spectator. Check that you opened the whole private link."));
      return identifyBySession();
    } else {
      throw e;
    }
  }
}

async function identifyBySession() {
  if (!signedIn()) return; // a visitor: nobody to ask about
  let mine;
  try {
    mine = (await api(`/v1/games/${gid}/seat`)).data;
  } catch (e) {
    if (e.status === 401) signedOut(); // the session ended elsewhere
    if (e.status === 401 || e.status === 404) return; // not signed in, or no seat here
    throw e;
  }
  // The player the game names as its referee: the same page as a referee token's.
  if (mine.role === "referee") { S.role = "referee"; return; }
  S.role = "seat";
  S.seat = mine.seat;
  S.legal = (await api(`/v1/games/${gid}/legal`)).data;
  $("leave").textContent = "Forget me on this computer (signs it out)";
}

/* A visitor not signed in is told, at the top, what signing in does here: keep the seat of
 * the link they play with, or play the seat a mail's link named; back here after. */
export function offerSignIn() {
  if (signedIn() || (S.summary && S.summary.imported)) return;
  const box = $("token-msg");
  const back = el("a", { href: "/signin?next=" + encodeURIComponent(location.pathname), id: "seat-signin" }, "");
  const n = names();
  if (S.role === "seat") {
    back.textContent = "Sign up or sign in";
    clear(box).append(el("div", { class: "msg info", id: "keep-seat" }, `You play ${n[S.seat] || "seat " + S.seat} with this link, in this tab only. `,
      back, " to keep the seat on your account: it then opens on any device, without the link."));
  } else if (S.role === "spectator" && S.summary && S.summary.status !== "finished") {
    const seat = Number.isInteger(hintedSeat) && n[hintedSeat] ? n[hintedSeat] : null;
    back.textContent = seat ? `Sign in to play as ${seat}` : "Sign in to play your seat";
    // after a link's bad token, its warning stays: the sign-in line goes under it
    (S.badToken ? box : clear(box)).append(el("div", { class: "msg info", id: "spectator-signin" }, "You are viewing as a spectator. ", back, "."));
  }
}

/* The referee token's holder, signed in: one click makes the role their account's, so the
 * referee's notices reach their targets and the console opens on any device. */
export function offerRefereeClaim() {
  if (!signedIn() || !S.token || S.role !== "referee") return;
  const box = $("token-msg");
  const keep = el("button", { type: "button", class: "secondary small", id: "keep-referee" }, "Keep the referee's role on my account");
  keep.addEventListener("click", async () => {
    try {
      await api(`/v1/games/${gid}/claim`, { method: "POST", body: { token: S.token } });
      clear(box).append(el("div", { class: "msg ok" }, "You are this game's referee on your account: the console opens on any device where you are signed in, and disputes are sent to your notices."));
    } catch (e) {
      showError(box, e, "Could not keep the role:");
    }
  });
  clear(box).append(el("div", { class: "msg info" }, "You referee this game with this link, in this tab only. ", keep));
}

/* The link's seat, played by its token, offered to the signed-in player in one click. Only
 * the click keeps it: a browser signed in by someone else's link (or a link someone else
 * sent) gives no seat away by being opened. Nothing is offered for a seat already theirs. */
export async function offerSeatClaim() {
  if (!signedIn() || !S.token || S.role !== "seat") return;
  let mine = null;
  try {
    mine = (await api(`/v1/games/${gid}/seat`)).data;
  } catch (e) {
    if (e.status === 401) signedOut(); // the session ended elsewhere
    if (e.status !== 404) return; // no offer now: the seat plays by its token all the same
  }
  if (mine && mine.role === "seat" && mine.seat === S.seat) return;
  const keep = el("button", { type: "button", class: "secondary small", id: "keep-seat-claim" }, "Keep this seat on your account");
  keep.addEventListener("click", () => { keep.disabled = true; claim(); });
  clear($("token-msg")).append(el("div", { class: "msg info", id: "claim-offer" },
    `You play ${names()[S.seat] || "seat " + S.seat} with this link, in this tab only. `, keep));
}

/* The seat of the link becomes the signed-in player's: a new tab, a bookmark or another
 * device then finds it by the session. */
async function claim() {
  const box = $("token-msg");
  try {
    const { data } = await api(`/v1/games/${gid}/claim`, { method: "POST", body: { token: S.token } });
    if (data.role === "seat") {
      clear(box).append(el("div", { class: "msg ok" },
        "This seat is now yours: it opens on any device where you are signed in, without the link."));
    }
  } catch (e) {
    const text = e.code === "seat_claimed" ? "This seat belongs to another player: you can play it with this link, but it will not follow you to your other devices."
      : e.code === "already_seated" ? "You already hold another seat of this game, so this one was not added to your games."
        : null;
    if (text) clear(box).append(el("div", { class: "msg warn" }, text));
    else showError(box, e, "Could not claim this seat:");
  }
}
