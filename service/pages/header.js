/* The header every page shares: "Sign in" for a visitor, "Me" and the count of games waiting on
 * a signed-in player, and the tab's title kept under that count. Runs once on import. */

import { api } from "./api.js";
import { gameTitle } from "./content.js";
import { el } from "./dom.js";
import { signedIn } from "./signed-in.js";

/* The header of every page, for a signed-in player: a link to their page with the count of
 * their games waiting on them, pushed by /v1/me/stream. Signed out (401), the header stays as
 * it is. */
async function headerCount() {
  const nav = document.querySelector("header.top nav");
  if (!nav) return;
  if (!signedIn()) { offerSignIn(nav); return; }
  let data;
  try {
    ({ data } = await api("/v1/me/games?waiting=1"));
  } catch (e) {
    // Not signed in: the header stays as it is. The service away: ask again later.
    if (e.status !== 401 && e.status !== 403) setTimeout(headerCount, HEADER_RETRY_MS);
    return;
  }
  showWaiting(nav, data);
  if (!("EventSource" in window)) {
    setTimeout(headerCount, HEADER_RETRY_MS);
    return;
  }
  // One stream a browser, not a tab: over HTTP/1.1 a browser holds six connections to a host
  // for all its tabs, and a board page's own stream takes one. The tab holding the lock reads
  // the stream and passes each count on; when it closes, another tab takes the lock.
  const channel = "BroadcastChannel" in window ? new BroadcastChannel("boardlog-waiting") : null;
  if (channel && navigator.locks) {
    channel.onmessage = (ev) => showWaiting(nav, ev.data);
    navigator.locks.request("boardlog-me-stream", () => follow(nav, channel));
  } else {
    follow(nav, null);
  }
}

/* A visitor's header: "Sign in", which leads back to this page (a board: its seat) after. */
function offerSignIn(nav) {
  if (location.pathname === "/signin" || nav.querySelector("#signin-link")) return;
  const back = location.pathname + location.search;
  nav.append(el("a", { href: "/signin?next=" + encodeURIComponent(back), id: "signin-link", class: "signin-link" }, "Sign in"));
}

/* Read /v1/me/stream until the player is signed out; the promise (and the lock) lasts that
 * long. EventSource reconnects by itself after a drop; a refusal (too many streams) closes it,
 * and it is opened again later. */
function follow(nav, channel) {
  return new Promise((done) => {
    const open = () => {
      const es = new EventSource("/v1/me/stream");
      es.addEventListener("waiting", (ev) => {
        const data = JSON.parse(ev.data);
        showWaiting(nav, data);
        if (channel) channel.postMessage(data);
      });
      es.onerror = () => {
        if (es.readyState !== EventSource.CLOSED) return;
        setTimeout(async () => {
          try {
            await api("/v1/me/games?waiting=1");
          } catch (e) {
            if (e.status === 401 || e.status === 403) { done(); return; }
          }
          open();
        }, HEADER_RETRY_MS);
      };
    };
    open();
  });
}

function showWaiting(nav, data) {
  let link = nav.querySelector('a[href="/me"]');
  if (!link) nav.append(link = el("a", { href: "/me" }, "Me"));
  const n = data.waiting;
  const words = `${n} game${n === 1 ? "" : "s"} waiting on you`;
  const badge = el("span", { class: "badge waiting-count" + (n ? "" : " hidden"), id: "waiting-count",
    title: words, "aria-label": words }, String(n));
  const old = link.querySelector("#waiting-count");
  if (old) old.replaceWith(badge);
  else link.append(badge);
  // The tab title counts the waiting games on every page ("(2) boardlog"), and a turn that
  // arrives while the page is out of sight is a browser notice, when the player allowed them.
  waitingNow = n;
  showTitle();
  if (waitingBefore !== null && n > waitingBefore && document.hidden && "Notification" in window
      && Notification.permission === "granted") {
    const game = data.games.find((g) => g.waiting_on_you ?? g.your_turn);
    new Notification(game && game.dispute ? "boardlog: a dispute waits for your ruling" : "boardlog: your turn", { body: game ? `${gameTitle(game.game)} ${game.id}${game.asked ? ": " + game.asked : ""}` : words, tag: "boardlog-turn" });
  }
  waitingBefore = n;
}
// How long a page waits before asking again when the service is away or refused its stream.
const HEADER_RETRY_MS = 10000;
let waitingBefore = null;
let waitingNow = 0;
let pageTitle = null;


/* A page's own title (a board's "(your move) …"), kept under the count of waiting games. */
export function setTitle(text) {
  pageTitle = text;
  showTitle();
}

function showTitle() {
  const base = pageTitle ?? document.title.replace(/^\(\d+\) /, "");
  document.title = (waitingNow ? `(${waitingNow}) ` : "") + base;
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", headerCount);
else headerCount();
