/* The board page opened from a referee's mailed invitation (/games/<id>#referee=<code>): the code
 * leaves the address bar at once (kept for this tab), and the referee accepts the role signed in,
 * by a click (mail scanners open links): POST /v1/games/{gid}/referee-invitation. The role then
 * belongs to their account, so the page opens as the referee's console on any device; the link
 * works for one account only (docs/referees-and-forks.md). */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { gameIdFromPath } from "./seat-token.js";
import { signedIn } from "./signed-in.js";

const gid = gameIdFromPath();
const key = `boardlog-referee-invite:${gid}`;

function takeCode() {
  const frag = new URLSearchParams(location.hash.replace(/^#/, ""));
  const fromHash = frag.get("referee");
  if (fromHash) {
    try { sessionStorage.setItem(key, fromHash); } catch (e) { /* storage off: this load only */ }
    frag.delete("referee");
    const rest = frag.toString();
    history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
    return fromHash;
  }
  try { return sessionStorage.getItem(key); } catch (e) { return null; }
}

function forget() {
  try { sessionStorage.removeItem(key); } catch (e) { /* storage off */ }
}

function offer(code) {
  const box = document.getElementById("referee-invite");
  if (!box) return;
  if (!signedIn()) {
    const back = el("a", { href: "/signin?next=" + encodeURIComponent(location.pathname), id: "referee-invite-signin" }, "Sign up or sign in");
    clear(box).append(el("div", { class: "msg info", id: "referee-invite-offer" },
      "You are invited to referee this game. ", back,
      ", then come back to this page in this tab to accept: the role becomes your account's, and the invitation works for one account only."));
    return;
  }
  const accept = el("button", { type: "button", class: "primary small", id: "accept-referee" }, "Accept the referee's role");
  accept.addEventListener("click", async () => {
    accept.disabled = true;
    try {
      await api(`/v1/games/${gid}/referee-invitation`, { method: "POST", body: { code } });
      forget();
      location.reload(); // the page opens again as the referee's console, found by the session
    } catch (e) {
      if (e.code === "invitation_used" || e.code === "no_invitation") forget();
      clear(box).append(el("div", { class: "msg warn", id: "referee-invite-refused" }, el("code", {}, e.code), ": ", e.message));
    }
  });
  clear(box).append(el("div", { class: "msg info", id: "referee-invite-offer" },
    "You are invited to referee this game: you would read every seat's secrets and settle disputes. ", accept));
}

const code = takeCode();
if (code) offer(code);
