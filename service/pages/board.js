/* The board page: the game's board drawn by its skin (board-<game>.js), player panels, the last
 * move marked, click to move built from the legal commands, the move list, and live updates. */

import { api, commandId } from "./api.js";
import { facing } from "./board-geometry.js";
import { renderBoard } from "./board-render.js";
import { BLConduct } from "./conduct.js";
import { gameTitle, gameTitles } from "./content.js";
import { clear, el, replaceKeepingOpen } from "./dom.js";
import "./header.js"; // the header every page shares
import { kvPanel, logEntry } from "./kv-panel.js";
import { argCells, plan as planMoves } from "./move-plan.js";
import { watchGame } from "./live.js";
import { BLMoves } from "./moves.js";
import { moveAt, outcomeText, whoseTurn } from "./sentences.js";
import { BLTalk } from "./talk.js";
import { BLEnd } from "./end.js";
import { update as updateBoardText } from "./boardtext.js";
import "./refereeinvite.js"; // a referee's invitation link, for the seat that made it
import { $, S, boardWidth, ctx, gid, myTurn, names, showError, skin } from "./board-state.js";
import { renderSummary } from "./board-summary.js";
import { mountAdmin } from "./board-admin.js";
import { ghostsFor, piecesOf } from "./ghosts.js";
import { keepReceipt } from "./receipts.js";
import { identify, offerRefereeClaim, offerSeatClaim, offerSignIn } from "./seat-claim.js";

$("replay-link").href = `/games/${encodeURIComponent(gid)}/replay`;
$("referee-replay").href = `/games/${encodeURIComponent(gid)}/replay?view=all`;
$("referee-audit").href = `/v1/games/${encodeURIComponent(gid)}/audit`;



/* ---- what the last moves touched, and what vanished since the viewer last acted ------ */

const seenKey = () => `boardlog.seen.${gid}.${S.role === "seat" ? S.seat : "watch"}`;
function loadSeen() {
  try { S.seen = JSON.parse(localStorage.getItem(seenKey()) || "null"); } catch (e) { S.seen = null; }
}
/* The viewer acted (or first opened the game): what is on the board now is what they saw. */
function markSeen(board) {
  if (!board || !S.view) return;
  S.seen = { seq: S.view.seq, pieces: piecesOf(board) };
  try { localStorage.setItem(seenKey(), JSON.stringify(S.seen)); } catch (e) { /* storage off */ }
}
/* Entries since the viewer's own last one (for a spectator: the last one), and their cells. */
function sinceMine() {
  const list = S.moves || [];
  if (!list.length) return { entries: [], cells: [] };
  let i = list.length - 1;
  if (S.role === "seat") {
    while (i >= 0 && list[i].seat !== S.seat) i--;
    const after = list.slice(i + 1);
    const shown = after.length ? after : [];
    return { entries: shown, cells: [...new Set(shown.flatMap((m) => m.cells || []))] };
  }
  const last = list[list.length - 1];
  return { entries: [], cells: last.cells || [] };
}

/* ---- click to move: each legal command as the targets it names, in order ------------- */

/* A move's error where the eye is (issue #40): on a phone the message box is the last thing in
 * the sticky "Your move" bar, which scrolls inside itself, so a typed move's error landed below
 * the screen and nothing seemed to happen. The box scrolls into sight (the bar's own scroll and
 * the page's); it is a role=alert live region, so a screen reader says it at once. */
function revealMessage(box) {
  const shown = box.lastElementChild || box;
  shown.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function cellsOfCommand(cmd, ids) {
  const sk = skin();
  const own = sk && sk.cellsOf ? sk.cellsOf(cmd, S.view, ctx()) : null;
  if (own) return own.filter((x) => ids.has(String(x))).map(String);
  return argCells(cmd, ids);
}

let decorated = null; // {board, overlays} of the current view, drawn by the skin
function plan() {
  const ids = new Set();
  if (decorated) {
    for (const c of decorated.board.cells || []) ids.add(String(c.id));
    for (const o of decorated.overlays || []) ids.add(String(o.id));
  }
  return planMoves((S.legal && S.legal.commands) || [], S.sel, (c) => cellsOfCommand(c, ids));
}

function pick(id) {
  if (!myTurn() || S.busy) return;
  const p = plan();
  if (!p.next.includes(id)) return;
  S.sel = [...S.sel, id];
  renderView();
  renderControls();
  // Keyboard: stay on the board at the next target, else go to the choices.
  const nextTarget = document.querySelector("#board .target");
  const firstChoice = document.querySelector("#commands button");
  (plan().next.length ? nextTarget : firstChoice || nextTarget)?.focus();
}
function undoStep() { S.sel = S.sel.slice(0, -1); renderView(); renderControls(); }
function clearSel() { S.sel = []; renderView(); renderControls(); }
$("sel-undo").addEventListener("click", undoStep);
$("sel-clear").addEventListener("click", clearSel);

/* ---- rendering ----------------------------------------------------------------------- */

$("referee-as").addEventListener("change", () => {
  const v = $("referee-as").value;
  S.asSeat = v === "" ? null : Number(v);
  renderView();
});
$("referee-export").addEventListener("click", () => $("export").click());

/* A what-if fork from the position shown: the answer's seat links are the forker's (each opens
   the fork as that seat); the first opens in this tab's place when followed. */
$("fork").addEventListener("click", async () => {
  const box = $("fork-msg");
  try {
    const at = S.view ? S.view.seq : undefined;
    const { data } = await api(`/v1/games/${gid}/forks`, { method: "POST", token: S.token, body: at ? { at } : {} });
    clear(box).append(el("div", { class: "msg ok" }, `Analysis game ${data.id} forked at seq ${data.fork.seq}: `,
      ...data.seats.filter((x) => x.token).flatMap((x, i) => [i ? ", " : "",
        el("a", { href: `/games/${encodeURIComponent(data.id)}#token=${x.token}`, class: "fork-seat" }, `play ${x.name}`)])));
  } catch (e) {
    showError(box, e, "No fork:");
  }
});

function renderView() {
  const shown = S.view;
  if (!shown) return;
  // The referee's view holds each seat's board beside the public one.
  const v = S.role === "referee" && S.asSeat !== null && shown.seat_boards ? { ...shown, board: shown.seat_boards[S.asSeat] } : shown;
  const board = v.board || {};
  const sk = skin();
  if (sk && board.board && Array.isArray(board.board.cells) && board.board.cells.length) {
    // A skin that fails leaves the plain board (still playable); the page says so on #board.
    try { decorated = sk.board(v, ctx()); $("board").dataset.skin = "ok"; } catch (e) { decorated = null; $("board").dataset.skin = "error"; console.error(e); }
  } else { decorated = null; $("board").dataset.skin = "none"; }
  const drawn = decorated ? decorated.board : board.board;
  const turn = myTurn() && !S.busy;
  const p = turn ? plan() : { next: [] };
  const since = sinceMine();
  if (!S.seen && drawn && Array.isArray(drawn.cells)) markSeen(drawn);
  const rotate = facing(sk, v, S.seat, drawn);
  const svgBoard = renderBoard(drawn, {
    names: names(), onCell: turn ? pick : null, title: `${gameTitle(v.game)} board at seq ${v.seq}`,
    targets: p.next, path: S.sel, marked: S.pointed ? S.pointed.cells : since.cells, ghosts: drawn ? ghostsFor(S.seen, S.view ? S.view.seq : 0, drawn) : null,
    overlays: decorated ? decorated.overlays : null, fit: sk ? boardWidth() : 0, rotate, onInfo: showInfo,
  });
  clear($("board")).append(svgBoard);
  $("board").dataset.rotate = String(rotate);
  $("board-hint").textContent = S.pointed ? `Washed in yellow: what ${S.pointed.heading || (S.pointed.move ? `move ${S.pointed.move}` : "this entry")} touched.` : turn && p.next.length
    ? (S.sel.length ? "Choose the next highlighted spot, or one of the choices in “Your move”." : "Highlighted spots start a move: click or tap one (or Tab to it and press Enter).")
    : since.cells.length ? "Washed in yellow: what the last moves touched. Faded pieces were removed since your last move." : "";
  // The legend and the players, from the skin; the raw view only for a game without one.
  const legendBox = $("legend-box");
  legendBox.classList.toggle("hidden", !(sk && sk.legend));
  if (sk && sk.legend) replaceKeepingOpen($("board-legend"), sk.legend(v, ctx()));
  $("rules-link").classList.toggle("hidden", !(sk && sk.rules));
  if (sk && sk.rules) $("rules-link").href = sk.rules;
  $("players-box").classList.toggle("hidden", !(sk && sk.panels));
  if (sk && sk.panels) replaceKeepingOpen($("players"), ...sk.panels(v, ctx()));
  $("details-box").classList.toggle("hidden", Boolean(sk));
  if (!sk) {
    const rest = {};
    for (const [k, val] of Object.entries(board)) if (k !== "board") rest[k] = val;
    const parts = [kvPanel(rest)];
    if (v.prompt) parts.push(el("h3", {}, "Prompt"), kvPanel(v.prompt, 0, "prompt"));
    replaceKeepingOpen($("details"), ...parts);
  }
  renderSince(since);
}

function showInfo(id, text) {
  const box = $("cell-info");
  box.classList.remove("hidden");
  clear(box).append(...text.split("\n").map((line, i) => el(i ? "div" : "strong", {}, line)));
}

function renderSince(since) {
  const box = $("since");
  const list = since.entries.filter((m) => m.text && m.n > 1); // not the set-up itself
  box.classList.toggle("hidden", !list.length || S.role !== "seat");
  clear(box);
  if (!list.length) return;
  box.append(el("strong", {}, "Since your last move: "),
    el("ul", {}, list.slice(-8).map((m) => el("li", {}, m.heading ? el("b", {}, `${m.heading}: `) : null, m.text))));
}

function label(c) { return c.sentence || c.text || `${c.type} ${JSON.stringify(c.args)}`; }

function cmdButton(c, extra = "") {
  // The sentence, with the notation under it (what to type, and what tells two choices apart).
  const both = c.sentence && c.text && c.sentence !== c.text;
  return el("button", { type: "button", class: "cmd" + extra + (both ? " two-line" : ""), "data-type": c.type, "data-text": c.text || "",
    title: `${c.text || ""}${both ? " — " + c.sentence : ""}`,
    onclick: () => (c.chain ? sendChain(c.chain) : send({ type: c.type, args: c.args, expect: S.legal.seq }, c.text || label(c))) },
  both ? [el("span", { class: "cmd-sentence" }, c.sentence), el("span", { class: "cmd-notation" }, c.text)] : label(c));
}

function promptText() {
  const v = S.view;
  if (v && v.prompt_text) return v.prompt_text;
  const kind = S.summary && S.summary.prompt ? S.summary.prompt.kind : "";
  return kind ? kind.replace(/_/g, " ") : "";
}

/* A target's name on its button: the overlay's label, an area's name, or the id and what is on it. */
function targetName(id) {
  if (!decorated) return id;
  const cell = (decorated.board.cells || []).find((c) => String(c.id) === id);
  const o = (decorated.overlays || []).find((q) => String(q.id) === id);
  if (o) return o.label || id;
  if (!cell) return id;
  if (decorated.board.kind === "areas" && cell.name) return cell.name;
  const first = cell.pieces && cell.pieces[0];
  const what = first ? first.label || first.name : cell.name;
  return what ? `${id} ${what}` : id;
}

/* "Your turn: ...", "Waiting for ...", or the game's end, over the move's controls. */
function renderPromptLine(s, turn) {
  const line = $("prompt-line");
  if (s.status !== "active") {
    line.textContent = `The game is ${s.status}. ${outcomeText(s, s.outcome)}`;
  } else if (turn) {
    const what = promptText();
    line.append(el("strong", {}, "Your turn"), what ? `: ${what}${/[.!?]$/.test(what) ? "" : "."}` : ".");
  } else {
    line.textContent = `Waiting for ${whoseTurn(s)}.`;
  }
}

/* Every legal command as a button, for those who prefer a list (and a filter when long). */
function renderAllCommands(cmds, waiting) {
  const all = clear($("all-commands"));
  $("all-sum").textContent = phone.matches ? `All commands, or type one (${cmds.length})` : `All legal commands (${cmds.length})`;
  $("all-box").classList.toggle("hidden", !cmds.length && (!phone.matches || waiting));
  $("legal-filter-box").classList.toggle("hidden", cmds.length <= 24);
  const needle = $("legal-filter").value.trim().toLowerCase();
  let shown = 0;
  for (const c of cmds) {
    if (needle && !`${label(c)} ${c.text || ""}`.toLowerCase().includes(needle)) continue;
    shown++;
    all.append(cmdButton(c));
  }
  if (cmds.length && !shown) all.append(el("span", { class: "muted" }, "No legal command matches the filter."));
  return all;
}

function renderControls() {
  $("controls").classList.toggle("hidden", S.role !== "seat");
  $("here").classList.toggle("hidden", S.role !== "seat");
  $("admin").classList.toggle("hidden", S.role !== "admin");
  $("referee").classList.toggle("hidden", S.role !== "referee");
  $("spectator").classList.toggle("hidden", S.role !== "spectator");
  const skip = $("skip");
  if (S.role === "seat") { skip.href = "#controls"; skip.textContent = "Skip to your move"; }
  if (S.role !== "seat") return;
  const s = S.summary;
  clear($("prompt-line"));
  if (!s) return;
  const turn = myTurn();
  renderPromptLine(s, turn);
  const box = clear($("commands"));
  const cmds = (S.legal && S.legal.commands) || [];
  const p = turn ? plan() : { complete: [], next: [], all: [] };
  // The command being built, with undo.
  $("selection").classList.toggle("hidden", !S.sel.length);
  clear($("sel-path")).append(...(S.sel.length ? [el("span", { class: "muted" }, "Chosen: "), el("span", { class: "notation" }, S.sel.map((x) => x.replace(/^spot:/, "spot ")).join(" → "))] : []));
  if (turn) {
    const done = S.sel.length ? p.complete : p.all.filter((x) => !x.cells.length);
    for (const x of done) box.append(cmdButton(x.c, S.sel.length ? " primary-choice" : ""));
    if (p.next.length) {
      box.append(el("span", { class: "pick-label muted" }, S.sel.length ? "then:" : done.length ? "or start at:" : "Start at:"));
      for (const id of p.next) {
        box.append(el("button", { type: "button", class: "secondary pick", "data-target": id, onclick: () => pick(id) }, targetName(id)));
      }
    }
  }
  // Waiting on the others, the prompt line says so: no empty list under it (on a phone the bar
  // over the board keeps to that one line).
  const waiting = s.status === "active" && !turn;
  $("controls").classList.toggle("waiting", waiting);
  if (!cmds.length && !waiting) box.append(el("span", { class: "muted" }, s.status === "active" ? "No legal commands for you right now." : "No more commands: the game has ended."));
  const all = renderAllCommands(cmds, waiting);
  for (const b of [...box.querySelectorAll("button"), ...all.querySelectorAll("button")]) b.disabled = S.busy;
  $("send-text").disabled = S.busy || s.status !== "active" || !turn;
  $("send-text").title = turn ? "" : "Not your turn";
}

function renderLog() {
  const list = $("log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  clear(list);
  const seqs = [...S.events.keys()].sort((a, b) => a - b);
  for (const q of seqs) list.append(logEntry(S.summary, S.events.get(q)));
  if (!seqs.length) list.append(el("li", { class: "log-entry muted" }, "Nothing yet."));
  if (atBottom || !renderLog.done) list.scrollTop = list.scrollHeight;
  renderLog.done = true;
}

let movesMounted = false;
function renderMoves() {
  try {
    if (!movesMounted) {
      // Pointing at an entry of the move list marks the cells that move touched.
      BLMoves.mount($("moves"), { gid, token: S.token, summary: S.summary,
        onSelect: (entry) => { S.pointed = entry && entry.cells && entry.cells.length ? entry : null; renderView(); } });
      $("moves").addEventListener("mouseleave", () => { if (S.pointed) { S.pointed = null; renderView(); } });
      movesMounted = true;
    } else BLMoves.refresh();
  } catch (e) { console.error(e); }
}

function renderAll() {
  renderSummary();
  renderView();
  renderControls();
  renderLog();
  renderMoves();
  if (BLTalk) BLTalk.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary }); // talk.js
  if (BLConduct) BLConduct.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary, moves: S.moves, send }); // conduct.js
  BLEnd.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary }); // end.js
  updateBoardText({ gid, token: S.token, seq: S.view ? S.view.seq : 0 }); // boardtext.js: "Board as text"
}

/* On a phone the action bar keeps to the prompt and the choices; the notation box moves into
 * the "all commands" fold under them (still one tap away for those who type). */
const phone = window.matchMedia("(max-width: 900px)");
function placeNotation() {
  const form = $("text-form");
  if (phone.matches && form.parentElement !== $("all-box")) $("all-box").append(form);
  else if (!phone.matches && form.parentElement === $("all-box")) $("all-box").before(form);
}
placeNotation();
phone.addEventListener("change", placeNotation);

let resizeTimer = null;
let lastWidth = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (Math.abs(boardWidth() - lastWidth) > 8) { lastWidth = boardWidth(); renderView(); } }, 150);
});

/* ---- loading ------------------------------------------------------------------------- */

// Loads are coalesced: a request during a load runs one more load when it finishes.
let loading = null, again = false;
function refresh() {
  if (loading) { again = true; return loading; }
  loading = (async () => {
    try {
      do {
        again = false;
        await load();
      } while (again);
    } finally {
      loading = null;
    }
  })();
  return loading;
}

async function load() {
  const t = S.token;
  if (S.loadedTo === 0) {
    // A long game's log runs to tens of thousands of events: the raw log starts from its
    // last 200 (the move list and the replay page hold all of it).
    const head = await api(`/v1/games/${gid}`);
    S.loadedTo = Math.max(0, head.data.seq - 200);
  }
  // After our own accepted move, the read models are asked for at least its seq (the server
  // waits for the projection, up to 2 s): the board is never older than the player's move.
  const fresh = S.minSeq ? `?min_seq=${S.minSeq}` : "";
  const jobs = [
    api(`/v1/games/${gid}${fresh}`),
    api(`/v1/games/${gid}/view${fresh}`, { token: t }),
    api(`/v1/games/${gid}/events?from=${S.loadedTo + 1}`, { token: t }),
    S.role === "seat" ? api(`/v1/games/${gid}/legal`, { token: t }) : Promise.resolve(null),
    api(`/v1/games/${gid}/moves?limit=40`, { token: t }).catch(() => null), // older servers: no move list
  ];
  const [summary, view, events, legal, moves] = await Promise.all(jobs);
  const before = S.legal ? S.legal.seq : null;
  if (!S.summary || summary.data.seq >= S.summary.seq) S.summary = summary.data;
  if (!S.view || view.data.seq >= S.view.seq) S.view = view.data;
  for (const e of events.data.events) {
    S.events.set(e.seq, e);
    S.loadedTo = Math.max(S.loadedTo, e.seq);
  }
  if (legal) S.legal = legal.data;
  if (legal && legal.data.seq !== before) S.sel = []; // the position changed: the half-built command is void
  if (moves && moves.data) S.moves = moves.data.entries || moves.data.moves || [];
  clear($("page-msg"));
  if (S.seen === null) loadSeen();
  const sk = skin();
  // Its game's content (names, card text) and the games' names, each fetched once.
  await Promise.all([sk && sk.ready, gameTitles()]);
  lastWidth = boardWidth();
  renderAll();
}

/* ---- commands ------------------------------------------------------------------------ */

/* A chained move (several steps picked on the board): each step in turn, the first with the
 * seq the choices were made at; a refusal stops the rest (the board shows where it stands). */
async function sendChain(chain) {
  for (let i = 0; i < chain.length; i++) {
    const c = chain[i];
    const body = { type: c.type, args: c.args, ...(i === 0 ? { expect: S.legal.seq } : {}) };
    if (!(await send(body, `${c.text} (${i + 1} of ${chain.length})`))) return;
  }
}

async function send(body, label) {
  if (S.busy) return false;
  let accepted = false;
  // The referee's commands (settling a dispute) answer in its own panel: it has no move box.
  const msg = S.role === "referee" ? $("referee-msg") : $("cmd-msg");
  S.busy = true;
  renderControls();
  clear(msg).append(el("div", { class: "msg info" }, `Sending ${label}…`));
  const id = commandId();
  const comment = BLTalk ? BLTalk.comment() : null; // talk.js: a message to go with this move
  try {
    let { status, data } = await api(`/v1/games/${gid}/commands?wait=1`, { method: "POST", token: S.token, body: { id, ...body, ...(comment ? { comment } : {}) } });
    // 202: still queued when the wait ran out; ask for the result until it is there.
    for (let i = 0; status === 202 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 500));
      ({ status, data } = await api(`/v1/games/${gid}/commands/${encodeURIComponent(id)}`, { token: S.token }));
    }
    if (status === 202) {
      clear(msg).append(el("div", { class: "msg warn" }, `${label}: still queued; the log will show it when a worker takes it.`));
    } else if (data && data.status === "accepted") {
      const [a, b] = data.seq;
      keepReceipt(data.receipt);
      const said = String(label).replace(/\.$/, "");
      const ok = el("div", { class: "msg ok" }, `Accepted: ${said}.`);
      clear(msg).append(ok);
      // On a phone the bar is small: the confirmation goes after a while (the move list keeps it).
      setTimeout(() => { if (ok.isConnected && phone.matches) ok.remove(); }, 5000);
      if (body.text !== undefined) $("text-command").value = "";
      S.sel = [];
      S.acted = true;
      accepted = true;
      if (comment) BLTalk.commentSent();
      await catchUp(b);
      // A move named as the move list numbers it (the seqs are the record's, in the receipt);
      // a step about the game (a ruling, a dispute) names in its label the move it is about.
      const mv = String(body.type || "").startsWith("boardlog.") ? null : moveAt(S.moves, a);
      if (mv) ok.textContent = `Accepted: ${said} (move ${mv.move}).`;
    } else {
      showError(msg, { code: data && data.code, message: (data && data.message) || "the command was not accepted" }, `${label}:`);
    }
  } catch (e) {
    showError(msg, e, `${label}:`);
    if (e.code === "seq_conflict") {
      msg.append(el("div", { class: "msg info" }, "The game moved on: the board is refreshed, please choose again."));
    }
    refresh();
  } finally {
    S.busy = false;
    if (S.acted && decorated) { markSeen(decorated.board); S.acted = false; }
    renderView();
    renderControls();
    if (!accepted) revealMessage(msg); // after the re-render, which may move the box
  }
  return accepted;
}

/* Refresh once the read models show `seq` (the projector is a moment behind the append):
 * `?min_seq` makes the server answer when they do, or 504 projection_behind after 2 s. */
async function catchUp(seq) {
  S.minSeq = Math.max(S.minSeq || 0, seq);
  try {
    for (let i = 0; i < 5; i++) {
      try {
        await refresh();
      } catch (e) {
        if (e.code !== "projection_behind") throw e;
      }
      if (S.view && S.view.seq >= seq && S.summary && S.summary.seq >= seq) return;
    }
  } finally {
    S.minSeq = 0;
  }
}

$("text-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("text-command").value.trim();
  if (!text) {
    clear($("cmd-msg")).append(el("div", { class: "msg error" }, "Type a command first, e.g. the notation on a choice's tooltip."));
    revealMessage($("cmd-msg"));
    return;
  }
  send({ text }, `“${text}”`);
});
$("legal-filter").addEventListener("input", renderControls);
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && S.sel.length) { ev.preventDefault(); undoStep(); }
});

mountAdmin(refresh);

/* ---- live updates -------------------------------------------------------------------- */

/* The game's summaries, pushed through the browser's one stream of its tabs' games
   (watchGame); each new seq or status reads the page's state again. */
function listen() {
  const live = $("live");
  watchGame(gid, {
    state(state, retryMs) {
      live.textContent = state === "live" ? "live" : "reconnecting…";
      live.className = state === "live" ? "live on" : "live off";
      if (state === "live") delete live.dataset.retry;
      else if (retryMs !== undefined) live.dataset.retry = String(retryMs); // the page's own retry
    },
    summary(text) {
      let s;
      try { s = JSON.parse(text); } catch (e) { return; }
      live.textContent = "live"; live.className = "live on";
      const known = S.summary;
      if (!known || s.seq !== known.seq || s.status !== known.status || (S.view && S.view.seq < s.seq)) {
        if (!known || s.seq >= known.seq) { S.summary = s; renderSummary(); }
        refresh().catch((e) => showError($("page-msg"), e, "Could not refresh:"));
      }
    },
  });
}

(async () => {
  try {
    await identify();
    await refresh();
    offerSignIn();
    offerRefereeClaim();
    await offerSeatClaim();
    listen();
  } catch (e) {
    showError($("page-msg"), e, "Could not load the game:");
  }
})();
