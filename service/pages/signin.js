/* The sign-in page: sign in by a mailed link or a player key, sign up by a mailed link (or with a
 * key alone, shown once), then back to the page the visitor came from (`?next=`, or the mailed
 * link's `#next=`). A link's secret (#magic=, #signup=, #key=) is taken out of the address bar
 * and the history, and signs in only on a click: the page first shows whom it signs in as
 * ("Sign in as ann?"), so a link someone else made cannot sign this browser in by being opened.
 * A seat link held in this tab (a board's `#token=`) goes with a mailed link's request, so that
 * link keeps the seat for the player, whichever device opens it; a key keeps none (the board
 * offers the seat in a click). */

import { Account } from "./account.js";
import { clear, el } from "./dom.js";
import "./header.js"; // the header every page shares

const $ = (id) => document.getElementById(id);
const msg = $("signin-msg");
const done = $("signed-in");
const forms = $("signin-forms");
let session = null;

const frag = new URLSearchParams(location.hash.slice(1));
// Only a path of this site: never //host or a scheme (an open redirect).
const safe = (p) => (p && /^\/(?![/\\])/.test(p) ? p : null);
const next = safe(frag.get("next")) || safe(new URLSearchParams(location.search).get("next"));

/* The seat link this tab holds for the game `next` leads to (the board keeps it per tab). */
function heldSeat() {
  const m = next && next.match(/^\/games\/([^/?#]+)/);
  if (!m) return null;
  const game = decodeURIComponent(m[1]);
  let token = null;
  try { token = sessionStorage.getItem(`boardlog.token.${game}`); } catch (e) { /* storage off */ }
  return token ? { game, token } : null;
}

function signedIn(player, sessionId, claimed) {
  session = sessionId;
  $("who").textContent = player.name;
  forms.classList.add("hidden");
  $("signup").classList.add("hidden");
  done.classList.remove("hidden");
  if (claimed && claimed.error) Account.show(msg, "warn", `Signed in, but the seat was not kept: ${claimed.error.message}`);
  else clear(msg);
  if (next) {
    $("next-link").href = next;
    $("next-line").classList.remove("hidden");
    if (!(claimed && claimed.error)) location.replace(next);
  }
}

function askForKey() {
  $("confirm").classList.add("hidden");
  done.classList.add("hidden");
  forms.classList.remove("hidden");
  $("signup").classList.remove("hidden");
}

async function post(path, body, badLink) {
  try {
    const out = await Account.call(path, "POST", body);
    signedIn(out.player, out.session, out.claimed);
    return out;
  } catch (e) {
    Account.show(msg, "error", e.status === 401 ? badLink : e.message);
    askForKey();
    return null;
  }
}

/* A key signs in alone: back on the board, the seat this tab holds is offered in a click. */
async function signInWithKey(key, badKey) {
  try {
    const out = await Account.call("/v1/sessions", "POST", { key });
    signedIn(out.player, out.session, null);
    return true;
  } catch (e) {
    Account.show(msg, "error", e.status === 401 ? badKey : e.message);
    askForKey();
    return false;
  }
}

$("key-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const key = $("key").value.trim();
  if (key) signInWithKey(key, "That key is not a player key here.");
});

$("forget").addEventListener("click", async () => {
  try {
    if (session) await Account.call("/v1/me/sessions/" + encodeURIComponent(session), "DELETE");
    session = null;
    Account.show(msg, "ok", "Signed out: this computer no longer remembers you.");
    askForKey();
  } catch (e) {
    Account.show(msg, "error", e.message);
  }
});

/* What a mailed link's request carries besides the address: where to come back, the seat. */
function linkOptions() {
  const seat = heldSeat();
  return { ...(next ? { next } : {}), ...(seat ? { seat } : {}) };
}

$("mail-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const email = $("mail-address").value.trim();
  if (!email) { Account.show(msg, "error", "Type your email address first."); return; }
  try {
    await Account.call("/v1/signin-mail", "POST", { email, ...linkOptions() });
    Account.show(msg, "ok", `If a player has ${email}, a sign-in link is on its way (valid 15 minutes, once). Open it on this device or any other.`);
  } catch (e) {
    Account.show(msg, "error", `${e.code}: ${e.message}`);
  }
});

$("signup-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = $("signup-name").value.trim();
  const email = $("signup-email").value.trim();
  if (!name || !email) { Account.show(msg, "error", "Sign-up takes your name and your email address."); return; }
  try {
    await Account.call("/v1/signup", "POST", { name, email, ...linkOptions() });
    Account.show(msg, "ok", `Check your mail: a link to finish signing up is on its way to ${email} (valid 15 minutes, once).`);
  } catch (e) {
    Account.show(msg, "error", `${e.code}: ${e.message}`);
  }
});

/* A player with no email: the key is the only way in, so it is shown once, to be saved. */
let newKey = null;
$("keyonly-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = $("keyonly-name").value.trim();
  if (!name) { Account.show(msg, "error", "Type the name other players will see."); return; }
  try {
    const out = await Account.call("/v1/players", "POST", { name });
    newKey = out.key;
    $("new-key-text").textContent = out.key;
    $("keyonly-form").classList.add("hidden");
    $("new-key").classList.remove("hidden");
    clear(msg);
  } catch (e) {
    Account.show(msg, "error", `${e.code}: ${e.message}`);
  }
});
$("key-saved").addEventListener("change", () => { $("use-key").disabled = !$("key-saved").checked; });
$("copy-key").addEventListener("click", () => {
  if (newKey && navigator.clipboard) navigator.clipboard.writeText(newKey).catch(() => {});
});
$("use-key").addEventListener("click", async () => {
  if (!newKey) return;
  const key = newKey;
  newKey = null;
  $("new-key-text").textContent = "";
  await signInWithKey(key, "That key is not a player key here.");
});

const BAD = {
  signup: "That sign-up link is used or expired: sign up again below.",
  magic: "That sign-in link is used or expired: ask for another below.",
  key: "That sign-in link is not valid here.",
};
const USE = {
  signup: (secret) => post("/v1/signup/complete", { token: secret }, BAD.signup),
  magic: (secret) => post("/v1/sessions/magic", { token: secret }, BAD.magic),
  key: (secret) => signInWithKey(secret, BAD.key),
};

/* The link's secret, shown as whom it signs in ("Sign in as ann?") and used only on a click;
 * "Not now" forgets it. Nothing is used up by showing it (a mail scanner's visit neither). */
async function offer(kind, secret) {
  let seen;
  try {
    seen = await Account.call("/v1/sessions/preview", "POST", { [kind]: secret });
  } catch (e) {
    Account.show(msg, "error", e.status === 401 ? BAD[kind] : `${e.code}: ${e.message}`);
    askForKey();
    return;
  }
  const me = await Account.me().catch(() => null);
  forms.classList.add("hidden");
  $("signup").classList.add("hidden");
  done.classList.add("hidden");
  const verb = kind === "signup" ? "Finish signing up as" : "Sign in as";
  clear($("confirm-text")).append(verb + " ", el("strong", { text: seen.name }), "?",
    me ? ` (this browser is signed in as ${me.name} now)` : "");
  const kept = seen.keeps;
  const seatLine = $("confirm-seat");
  seatLine.classList.toggle("hidden", !kept);
  if (kept) {
    seatLine.textContent = (kept.role === "referee" ? "The referee's role" : `Seat ${kept.seat}`)
      + ` of game ${kept.game}, which you asked from, is kept on this account as you do.`;
  }
  const go = $("confirm-go");
  go.textContent = `${kind === "signup" ? "Sign up" : "Sign in"} as ${seen.name}`;
  go.disabled = false;
  go.onclick = async () => {
    go.disabled = true;
    $("confirm").classList.add("hidden");
    await USE[kind](secret);
  };
  $("confirm-no").onclick = () => {
    Account.show(msg, "info", "Nobody was signed in.");
    if (me) signedIn(me, me.session); else askForKey();
  };
  $("confirm").classList.remove("hidden");
  go.focus();
}

const found = ["signup", "magic", "key"].find((k) => frag.get(k));
if (found) {
  // Out of the address bar and the history: each is as good as the player.
  history.replaceState(null, "", location.pathname + (next ? "?next=" + encodeURIComponent(next) : ""));
  offer(found, frag.get(found));
} else {
  Account.me().then((me) => (me ? signedIn(me, me.session) : askForKey()))
    .catch((e) => Account.show(msg, "error", e.message));
}
