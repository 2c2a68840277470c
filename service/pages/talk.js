/* The board page's table talk (GET/POST /v1/games/{gid}/messages) and a seat's queue of
 * conditional moves (GET/PUT/DELETE /v1/games/{gid}/conditional). Every message is put in the
 * page as text (el makes text nodes), never as HTML. board.js calls BLTalk.update after each
 * render with who the viewer is and the game's seq. */

import { ApiError, api, commandId } from "./api.js";
import { clear, el } from "./dom.js";

const $ = (id) => document.getElementById(id);
const T = { gid: null, token: null, role: "spectator", seat: null, summary: null, seq: -1, status: null,
            after: 0, messages: [], muted: false, showMuted: false, pending: null };

function error(box, e) {
  clear(box).append(el("div", { class: "msg error" }, e.code ? el("code", {}, e.code) : null, e.code ? ": " : "", e.message));
}

function when(at) {
  const d = new Date(at);
  return isNaN(d) ? "" : d.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/* The move a message came with, numbered as the move list numbers it (the API's `move`). */
function moveOf(m) {
  return Number.isInteger(m.move) ? `move ${m.move}` : "a move";
}

function render() {
  const list = clear($("talk-list"));
  const folded = T.muted && !T.showMuted;
  $("talk-muted").classList.toggle("hidden", !folded);
  $("talk-list").classList.toggle("hidden", folded);
  $("talk-mute").textContent = T.muted ? "Unmute chat" : "Mute chat";
  const referee = T.role === "referee";
  $("talk-form").classList.toggle("hidden", T.role !== "seat" && !referee);
  // The referee posts as the referee (marked so in the list), sends no moves and mutes nothing.
  $("talk-with-move").parentElement.classList.toggle("hidden", referee);
  $("talk-mute").classList.toggle("hidden", referee);
  $("talk-label").textContent = referee ? "Your message as the referee (plain text, up to 2,000 characters; everyone watching reads it)"
    : "Your message (plain text, up to 2,000 characters; everyone watching reads it)";
  if (!T.messages.length) list.append(el("li", { class: "muted talk-empty" }, "No messages yet."));
  for (const m of T.messages) {
    const hidden = m.hidden !== null && m.hidden !== undefined;
    const item = el("li", { class: "talk-item" + (hidden ? " talk-hidden" : "") + (m.referee ? " talk-referee" : ""), "data-seq": m.seq },
      el("span", { class: "talk-who" }, m.referee ? m.who || refereeName() : m.who || `seat ${m.seat}`),
      el("span", { class: "talk-at muted" }, when(m.at), m.on ? ` · with ${moveOf(m)}` : ""),
      el("div", { class: "talk-text" }, hidden && m.text === null ? `(${m.hidden})` : m.text));
    if (hidden && m.text !== null) item.append(el("div", { class: "talk-note muted" }, `(${m.hidden}: only you, the admin, see it)`));
    if (T.role === "admin" && !hidden) {
      item.append(el("button", { type: "button", class: "secondary small talk-hide", onclick: () => hide(m.seq) }, "Hide"));
    }
    list.append(item);
  }
}

function refereeName() {
  const name = T.summary && T.summary.referee && T.summary.referee.name;
  return name ? `The referee (${name})` : "The referee";
}

async function loadMessages() {
  const { data } = await api(`/v1/games/${T.gid}/messages?after=${T.after}`, { token: T.token });
  for (const m of data.messages) {
    if (m.seq > T.after) { T.messages.push(m); T.after = m.seq; } // two loads at once add a message once
  }
  T.muted = data.muted === true;
  render();
}

async function reloadMessages() {
  T.after = 0;
  T.messages = [];
  await loadMessages();
}

async function post(ev) {
  ev.preventDefault();
  const text = $("talk-text").value;
  if (!text.trim()) { clear($("talk-msg")).append(el("div", { class: "msg error" }, "Write a message first.")); return; }
  if ($("talk-with-move").checked) {
    // Kept here until the seat's next move, which carries it as its "comment".
    T.pending = text;
    clear($("talk-msg")).append(el("div", { class: "msg info" }, "Your message goes with your next move."));
    return;
  }
  try {
    // The referee's message is their command (boardlog.post, marked the referee's by the API).
    const { data } = T.role === "referee"
      ? await api(`/v1/games/${T.gid}/commands?wait=1`, { method: "POST", token: T.token, body: { id: commandId(), type: "boardlog.post", args: { text } } })
      : await api(`/v1/games/${T.gid}/messages`, { method: "POST", token: T.token, body: { id: commandId(), text } });
    if (data.status && data.status !== "accepted" && data.status !== "queued") throw new ApiError(422, data.code, data.message);
    $("talk-text").value = "";
    counter();
    clear($("talk-msg"));
    await loadMessages();
  } catch (e) {
    error($("talk-msg"), e);
  }
}

async function hide(seq) {
  if (!confirm("Hide this message for everyone? It stays in the game's audited record.")) return;
  try {
    await api(`/v1/games/${T.gid}/messages/${seq}/hide`, { method: "POST", token: T.token, body: {} });
    await reloadMessages();
  } catch (e) {
    error($("talk-msg"), e);
  }
}

async function toggleMute() {
  try {
    const { data } = await api(`/v1/games/${T.gid}/messages/mute`, { method: "PUT", token: T.token, body: { muted: !T.muted } });
    T.muted = data.muted;
    T.showMuted = false;
    render();
  } catch (e) {
    error($("talk-msg"), e);
  }
}

function counter() {
  const n = $("talk-text").value.length;
  $("talk-count").textContent = n ? `${n} / 2000` : "";
}

/* ---- the queue of conditional moves (the seat's own) ----------------------------------- */

function linesOf(queue) {
  return queue.map((q) => (q.if ? `if ${q.if} then ${q.then}` : q.then)).join("\n");
}

function parseLines(text) {
  const out = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim().replace(/`/g, "");
    if (!line) continue;
    const m = line.match(/^if\s+(.+?)\s+then\s+(.+)$/i);
    out.push(m ? { if: m[1], then: m[2] } : { then: line });
  }
  return out;
}

/* The board page re-renders (and so reloads the queue) on every move: a load that set off
 * before a save, or while the seat is typing, must not overwrite the box. */
let queueGen = 0;
let queueDirty = false;

function renderQueue(data, keepText = false) {
  if (!keepText) { $("queue-text").value = linesOf(data.queue || []); queueDirty = false; }
  const box = clear($("queue-dropped"));
  $("queue-state").textContent = (data.queue || []).length ? `${data.queue.length} queued` : "nothing queued";
  if (data.dropped) {
    clear($("queue-msg")); // a "saved" line from before would read as if the queue still stood
    box.append(el("div", { class: "msg warn" }, `Your queued answers were dropped: ${data.dropped.reason}.`,
      data.dropped.last ? ` The last move was “${data.dropped.last}”.` : "",
      el("div", { class: "mono" }, linesOf(data.dropped.entries || []))));
  }
}

async function loadQueue() {
  const gen = queueGen;
  const { data } = await api(`/v1/games/${T.gid}/conditional`, { token: T.token });
  if (gen !== queueGen) return; // a save or clear answered meanwhile: its answer stands
  renderQueue(data, queueDirty);
}

async function saveQueue() {
  queueGen++;
  try {
    const { data } = await api(`/v1/games/${T.gid}/conditional`, { method: "PUT", token: T.token, body: { queue: parseLines($("queue-text").value) } });
    renderQueue(data);
    clear($("queue-msg")).append(el("div", { class: "msg ok" }, "Saved. Only you see this queue."));
  } catch (e) {
    error($("queue-msg"), e);
  }
}

async function clearQueue() {
  queueGen++;
  queueDirty = false;
  try {
    await api(`/v1/games/${T.gid}/conditional`, { method: "DELETE", token: T.token });
    await loadQueue();
    clear($("queue-msg")).append(el("div", { class: "msg ok" }, "The queue is cleared."));
  } catch (e) {
    error($("queue-msg"), e);
  }
}

let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  $("talk-form").addEventListener("submit", post);
  $("talk-text").addEventListener("input", counter);
  $("talk-mute").addEventListener("click", toggleMute);
  $("talk-unmute").addEventListener("click", () => { T.showMuted = true; render(); });
  $("queue-save").addEventListener("click", saveQueue);
  $("queue-text").addEventListener("input", () => { queueDirty = true; });
  $("queue-clear").addEventListener("click", clearQueue);
}

/* A queued answer of each game, in its own notation: the other seat's move, then this seat's. */
const QUEUE_EXAMPLES = {
  rite: "if move c4 d5 then fireball d5 d6",
  factions: "if end then activate MI",
  dragondale: "if explore in fog1 from camp_a then skip",
};

/* After each render of the board page: who is viewing, and the game's seq and status. */
function update({ gid, token, role, seat, summary }) {
  wire();
  const who = `${role}:${seat}:${token || ""}`;
  const changed = who !== `${T.role}:${T.seat}:${T.token || ""}`;
  T.gid = gid; T.token = token; T.role = role; T.seat = seat; T.summary = summary;
  $("queue").classList.toggle("hidden", role !== "seat" || !summary || summary.status !== "active");
  if (summary) $("queue-example").textContent = QUEUE_EXAMPLES[summary.game] || "if <their move> then <your answer>";
  const seq = summary ? summary.seq : -1;
  if (!changed && seq === T.seq) return;
  T.seq = seq;
  (changed ? reloadMessages() : loadMessages()).catch((e) => error($("talk-msg"), e));
  if (role === "seat" && summary && summary.status === "active") loadQueue().catch((e) => error($("queue-msg"), e));
}

/* board.js asks for the message to send with a move (its "comment"), and says when it went.
 * A message written with "with my next move" ticked goes with the move whether or not Post was
 * pressed: a player who ticked it and moved expects it sent (issue #40), and left in the box it
 * never reached the opponent. */
function comment() {
  if (T.role !== "seat") return null;
  return T.pending || tickedMessage();
}
function tickedMessage() {
  const text = $("talk-text").value;
  return $("talk-with-move").checked && text.trim() ? text : null;
}
function commentSent() {
  T.pending = null;
  $("talk-text").value = "";
  $("talk-with-move").checked = false;
  counter();
  clear($("talk-msg"));
}

export const BLTalk = { update, parseLines, comment, commentSent };
