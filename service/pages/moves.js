/* The move list widget (issue #14 item 5): one entry per command, in words (only moves numbered:
 * chat and table actions stand unnumbered at their place, issue #40), with its
 * random results, expandable to its events; the game's own steps (the volcano, the end of a
 * round) under their headings. Reads GET /v1/games/{gid}/moves, newest page first, and loads
 * older pages on demand ("Earlier moves" / "All moves"), so the whole history is reachable.
 *
 *   BLMoves.mount(container, {gid, token, summary, onChange, onSelect}) -> Promise
 *   BLMoves.refresh()           fetch what is new (call it on each new seq)
 *   BLMoves.last()              the newest entry (or null)
 *   BLMoves.lastMove(except)    the newest command entry by a seat other than `except`
 *   BLMoves.since(seat)         the command entries by other seats after `seat`'s last command
 *   BLMoves.entries()           every loaded entry, oldest first
 * onChange(entries) runs after each load; onSelect(entry) when the reader points at an entry
 * (hover, focus or click), so the board can mark its cells. Everything from the server goes
 * into the page as text, never as HTML.
 */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { seatColour } from "./seats.js";

const PAGE = 50;
const M = {
  container: null, gid: null, token: null, summary: null, onChange: null, onSelect: null,
  byN: new Map(), total: 0, seq: 0, older: null, busy: null, error: null, open: new Set(),
};

function sorted() {
  return [...M.byN.values()].sort((a, b) => a.n - b.n);
}

function query(before, limit) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (before !== null && before !== undefined) q.set("before", String(before));
  return `/v1/games/${encodeURIComponent(M.gid)}/moves?${q}`;
}

async function fetchPage(before, limit = PAGE) {
  const { data } = await api(query(before, limit), { token: M.token });
  for (const e of data.entries) M.byN.set(e.n, e);
  M.total = data.total;
  M.seq = data.seq;
  return data;
}

function lowest() {
  let lo = null;
  for (const n of M.byN.keys()) lo = lo === null || n < lo ? n : lo;
  return lo;
}

/* The newest page, then pages back until they meet what is loaded already (a long absence
 * can leave more than one page of new entries). */
async function loadNew() {
  const known = M.byN.size ? Math.max(...M.byN.keys()) : 0;
  let page = await fetchPage(null);
  while (known && page.older !== null && page.older > known + 1) page = await fetchPage(page.older);
  const lo = lowest();
  M.older = lo !== null && lo > 1 ? lo : null;
}

async function loadOlder(all = false) {
  do {
    const lo = lowest();
    if (lo === null || lo <= 1) break;
    await fetchPage(lo, all ? 500 : PAGE);
  } while (all);
  const lo = lowest();
  M.older = lo !== null && lo > 1 ? lo : null;
}

function run(task) {
  // One load at a time; a refresh asked for meanwhile runs once the current one ends.
  const next = (M.busy || Promise.resolve()).then(async () => {
    try {
      await task();
      M.error = null;
    } catch (e) {
      M.error = e;
    }
    render();
    if (M.onChange) M.onChange(sorted());
  });
  M.busy = next;
  return next;
}

function select(entry) {
  if (M.onSelect) M.onSelect(entry);
}

/* The entry's sentence, its player's name (when it opens the sentence, as it mostly does)
 * marked in the seat's colour rather than written twice. */
function sentence(e, heading) {
  const text = e.text || "";
  if (heading || !e.who) return [el("span", { class: "mv-text" }, text)];
  const who = el("span", { class: "mv-who", style: `border-color:${seatColour(e.seat)}` }, e.who);
  if (text.startsWith(e.who + " ") || text.startsWith(e.who + "'")) {
    return [el("span", { class: "mv-text" }, who, text.slice(e.who.length))];
  }
  return [who, el("span", { class: "mv-text" }, text)];
}

/* A move's number, which opens the replay at this move (its board before and after, its
 * events); a chat line or a table action has none (the server numbers only moves), so the
 * numbers players quote are the moves'. */
function moveNumber(e) {
  if (!Number.isInteger(e.move)) return el("span", { class: "mv-num mv-aside", "aria-hidden": "true" }, "");
  return el("a", { class: "mv-num", title: `move ${e.move}: replay it`, href: `/games/${encodeURIComponent(M.gid)}/replay?at=${e.n}` }, `${e.move}.`);
}

function entryNode(e) {
  const heading = e.seat === null || e.seat === undefined;
  const attrs = {
    class: "mv-entry" + (heading ? " mv-step" : "") + (e.undone ? " undone" : ""), "data-n": e.n, "data-seq": e.seq_to,
    id: `mv-${e.n}`, tabindex: "-1",
  };
  const li = el("li", attrs);
  const head = el("div", { class: "mv-line" },
    heading ? el("span", { class: "mv-num mv-heading" }, e.heading || "") : moveNumber(e),
    ...sentence(e, heading),
    e.notation ? el("code", { class: "mv-notation", title: "notation" }, e.notation) : null,
    e.redacted ? el("span", { class: "badge muted-badge", title: "part of this move is hidden from you" }, "hidden") : null,
    e.queued ? el("span", { class: "badge muted-badge", title: "played from the seat's queue of conditional moves" }, "queued") : null,
    e.undone ? el("span", { class: "badge muted-badge", title: "undone by the take-back or voided dispute further down the list; it stays in the record" }, "undone") : null,
    ...(e.draws || []).map((d) => el("span", { class: "mv-draw", title: "random result" }, d)));
  li.append(head);
  const extra = (e.events || []).filter((x) => x.text !== e.text);
  if (extra.length) {
    const box = el("details", { class: "mv-events" },
      el("summary", {}, `${extra.length} event${extra.length === 1 ? "" : "s"}`),
      el("ol", { class: "mv-event-list" }, extra.map((x) =>
        el("li", { "data-seq": x.seq, class: x.quiet ? "mv-quiet" : null },
          el("span", { class: "mv-seq" }, `#${x.seq}`), " ", x.text))));
    if (M.open.has(e.n)) box.open = true;
    box.addEventListener("toggle", () => { if (box.open) M.open.add(e.n); else M.open.delete(e.n); });
    li.append(box);
  }
  li.addEventListener("mouseenter", () => select(e));
  li.addEventListener("focusin", () => select(e));
  li.addEventListener("click", () => select(e));
  return li;
}

function render() {
  const c = M.container;
  if (!c) return;
  const list = c.querySelector(".mv-list");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  clear(list);
  const entries = sorted();
  for (const e of entries) list.append(entryNode(e));
  if (!entries.length) list.append(el("li", { class: "mv-entry muted" }, M.error ? "" : "No moves yet."));
  const more = c.querySelector(".mv-more");
  more.classList.toggle("hidden", M.older === null);
  const loadedMoves = entries.filter((e) => Number.isInteger(e.move)).length;
  c.querySelector(".mv-count").textContent = M.older === null
    ? `${loadedMoves} move${loadedMoves === 1 ? "" : "s"}`
    : `the latest ${entries.length} of ${M.total} entries`;
  const msg = c.querySelector(".mv-msg");
  clear(msg);
  if (M.error) msg.append(el("div", { class: "msg error" }, `The move list could not be loaded: ${M.error.message}`));
  if (atBottom) list.scrollTop = list.scrollHeight;
}

function stylesheet() {
  // The widget brings its own styles, so a page needs only the script.
  if (document.querySelector('link[href="/static/moves.css"]')) return;
  document.head.append(el("link", { rel: "stylesheet", href: "/static/moves.css" }));
}

function mount(container, { gid, token = null, summary = null, onChange = null, onSelect = null } = {}) {
  stylesheet();
  Object.assign(M, { container, gid, token, summary, onChange, onSelect });
  M.byN = new Map();
  M.open = new Set();
  clear(container);
  container.classList.add("mv");
  container.append(
    el("div", { class: "mv-bar" },
      el("span", { class: "mv-count", role: "status", "aria-live": "polite" }, "loading…"),
      el("span", { class: "mv-more hidden" },
        el("button", { type: "button", class: "secondary small", onclick: () => run(() => loadOlder(false)) }, "Earlier moves"),
        el("button", { type: "button", class: "secondary small", onclick: () => run(() => loadOlder(true)) }, "All moves"))),
    el("ol", { class: "mv-list", "aria-label": "Moves" }),
    el("div", { class: "mv-msg", role: "alert" }));
  return refresh();
}

function refresh() {
  if (!M.container) return Promise.resolve();
  return run(loadNew);
}

function last() {
  const all = sorted();
  return all.length ? all[all.length - 1] : null;
}

function isMove(e) {
  return e.seat !== null && e.seat !== undefined;
}

function lastMove(except = null) {
  const all = sorted();
  for (let i = all.length - 1; i >= 0; i--) if (isMove(all[i]) && all[i].seat !== except) return all[i];
  return null;
}

function since(seat) {
  const all = sorted();
  let i = all.length - 1;
  while (i >= 0 && !(isMove(all[i]) && all[i].seat === seat)) i--;
  return all.slice(i + 1).filter((e) => !isMove(e) || e.seat !== seat);
}

export const BLMoves = { mount, refresh, last, lastMove, since, entries: sorted };
