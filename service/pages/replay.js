/* The replay page (issue #21 item 5): the game step by step, one step a command with all its
 * events (the events are sub-steps one can open), on the game's own board (board-<game>.js, as
 * the board page draws it). Each step says who, when, the command in notation and in words, its
 * random draws (their indexes; once the seed is revealed, each re-derived from it) and what
 * changed: the cells are washed in yellow, a moved piece gets an arrow, a removed one stays as a
 * ghost, and the list says it in words with the numbers that went up or down.
 *
 * Reads GET /v1/games/{gid}/moves (every step, paged) and GET /v1/games/{gid}/replay?at=<step>
 * (&seq=<a sub-step's seq>, &full=1 for everything shown). The viewer replays as their seat (the
 * token of their link, kept in this tab), as a spectator, or, after the end or as the referee,
 * with everything shown. Everything from the server goes into the page as text. */

import { api } from "./api.js";
import { facing } from "./board-geometry.js";
import { renderBoard } from "./board-render.js";
import { seatLegend, statusBadge } from "./chips.js";
import { gameTitle, gameTitles } from "./content.js";
import { clear, el, replaceKeepingOpen, svg } from "./dom.js";
import { setTitle } from "./header.js";
import { kvPanel } from "./kv-panel.js";
import { watchGame } from "./live.js";
import { forgetToken } from "./seat-token.js";
import { seatColour } from "./seats.js";
import { outcomeText, when } from "./sentences.js";
import { skins } from "./skins.js";
import { $, S, enc, gid, names, nameOf, showError } from "./replay-state.js";
import { audit } from "./replay-audit.js";
import { whoAmI } from "./replay-viewer.js";
import { changeItems, pieceName } from "./step-words.js";

const slider = $("slider");
$("board-link").href = `/games/${enc}`;
$("audit-link").href = `/v1/games/${enc}/audit`;
$("export-link").href = `/v1/games/${enc}/export`;

/* ---- the steps ----------------------------------------------------------------------- */

// The public view asks with no credentials at all (no token, no session cookie: a signed-in
// seat's session would answer its own view); a seat's and everything (the referee's) with the
// token, or the session of a signed-in player.
const tokenFor = () => (S.mode === "public" ? null : S.token);
const asking = () => ({ token: tokenFor(), anonymous: S.mode === "public" });
const fullQ = () => (S.mode === "all" ? "&full=1" : "");

async function loadEntries() {
  // Newest page first, then back until the first step: the whole history, 500 a page.
  const byN = new Map();
  let before = null;
  let seq = 0;
  do {
    const q = `limit=500${before ? `&before=${before}` : ""}${fullQ()}`;
    const { data } = await api(`/v1/games/${enc}/moves?${q}`, asking());
    for (const e of data.entries) byN.set(e.n, e);
    seq = Math.max(seq, data.seq || 0);
    before = data.older;
  } while (before);
  S.entries = [...byN.values()].sort((a, b) => a.n - b.n);
  S.seq = seq;
  slider.max = String(Math.max(1, S.entries.length));
}

function stepOfSeq(seq) {
  const e = S.entries.find((x) => x.seq_from <= seq && seq <= x.seq_to);
  return e ? e.n : null;
}

function setUrl() {
  const u = new URL(location.href);
  u.search = "";
  if (S.step) u.searchParams.set("at", String(S.step));
  if (S.sub) u.searchParams.set("seq", String(S.sub));
  if (S.mode !== defaultMode()) u.searchParams.set("view", S.mode);
  u.hash = "";
  history.replaceState(null, "", u.pathname + u.search);
}

function defaultMode() { return S.seat !== null ? "seat" : S.referee ? "all" : "public"; }

function stepperState() {
  const n = S.step || 0, total = S.entries.length;
  slider.value = String(n || 1);
  const e = S.entries[n - 1];
  $("at-out").textContent = n ? `step ${n} of ${total}${e && e.move ? ` · move ${e.move}` : ""}` : `no step (1 to ${total})`;
  $("first").disabled = $("prev").disabled = !n || n <= 1;
  $("next").disabled = $("last").disabled = !n || n >= total;
  for (const li of $("log").children) {
    const k = Number(li.dataset.n);
    li.classList.toggle("current", k === n);
    li.classList.toggle("future", n > 0 && k > n);
    if (k === n) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  }
  const cur = $("log").querySelector("li.current");
  if (cur) {
    const list = $("log");
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}

/* Go to step `n` (its sub-step `sub`, a seq, when given). `raw` is the address's own value,
 * sent as it is, so that the page says what the API says of a bad one. */
async function go(n, sub = null, { raw = null, focus = null } = {}) {
  const mine = ++S.asked;
  const at = raw !== null ? raw : String(Math.max(1, Math.min(S.entries.length, Math.round(n))));
  // Where the reader is going, before the answer comes: two quick presses step twice.
  S.want = raw !== null ? null : Number(at);
  const q = `at=${encodeURIComponent(at)}${sub ? `&seq=${sub}` : ""}${fullQ()}`;
  try {
    const { data } = await api(`/v1/games/${enc}/replay?${q}`, asking());
    const sk = skins[data.view && data.view.game];
    if (sk && sk.ready) await sk.ready; // its game's content (names, card text), fetched once
    if (mine !== S.asked) return;
    clear($("page-msg"));
    S.step = data.step;
    S.sub = data.sub || null;
    S.data = data;
    S.mayAll = Boolean(data.viewer && data.viewer.may_full);
    setUrl();
    render();
    if (focus) $(focus).focus();
  } catch (e) {
    if (mine !== S.asked) return;
    if (e.status === 401 && S.token) {
      forgetToken(gid);
      S.token = null; S.seat = null; S.mode = "public";
      clear($("page-msg")).append(el("div", { class: "msg warn" }, "The link's token is not valid for this game: showing the public view."));
      await loadEntries();
      return go(n, sub, { raw });
    }
    S.want = null;
    if (e.code === "bad_step" || e.code === "bad_seq") return badPosition(e);
    showError($("page-msg"), e, "Could not load this step:");
  }
}

/* A bad ?at= (or ?seq=): say so, show no position, and offer the first and last steps. */
function badPosition(e) {
  S.step = null; S.sub = null; S.data = null;
  const total = S.entries.length;
  clear($("page-msg")).append(el("div", { class: "msg error", id: "bad-at" },
    el("strong", {}, "No such step. "), e.message, ` This replay has ${total} step${total === 1 ? "" : "s"}. `,
    el("button", { type: "button", class: "secondary small", onclick: () => go(1) }, "Go to the first step"), " ",
    el("button", { type: "button", class: "secondary small", onclick: () => go(total) }, "Go to the last step")));
  clear($("board")).append(el("p", { class: "muted" }, "No position is shown: the address names no step of this game."));
  $("board").removeAttribute("data-seq");
  for (const id of ["step-line", "step-draws", "step-changes", "step-event-list"]) clear($(id));
  stepperState();
}

/* ---- one step in words --------------------------------------------------------------- */

/* A piece and a cell in words: the skin's names where it gives them (Dragon Dale's territories,
 * each game's units, tiles and tokens), else the view's label tidied. */
function wordsFor(v) {
  const sk = v && skins[v.game];
  try { return (sk && sk.words && sk.words(v, ctxFor())) || {}; } catch (e) { console.error(e); return {}; }
}

function drawsBox(d, entry) {
  const box = clear($("step-draws"));
  if (!d || d.status === "none" || d.to === null || d.to <= d.from) {
    if (entry.draws && entry.draws.length) box.append(el("p", {}, "Random results: ", entry.draws.join(", ")));
    return;
  }
  const span = d.to - d.from;
  const range = span === 1 ? `draw #${d.from}` : `draws #${d.from} to #${d.to - 1}`;
  const own = entry.rng && entry.seq_from !== entry.rng.seq ? " (of the command these events came from)" : "";
  box.append(el("h3", {}, "Random draws"));
  if (d.status === "verified") {
    box.append(el("p", { class: "rp-ok" }, `✓ ${range}${own}: derived from the committed seed — the seed revealed at the end matches its commitment, and running the step again with it gives these very results.`),
      el("ul", { class: "rp-draw-list" }, d.noted.map((x) => el("li", { class: "mv-draw" }, x.text))));
  } else if (d.status === "failed") {
    box.append(el("p", { class: "rp-bad" }, `✗ ${range}${own}: ${d.why || "they do not follow from the revealed seed"}.`));
  } else {
    box.append(el("p", {}, `${range}${own} from the committed seed (${span} draw${span === 1 ? "" : "s"}): checkable when the game ends and the seed is revealed.`));
  }
  if (entry.draws && entry.draws.length) box.append(el("p", {}, "Results recorded: ", entry.draws.map((t) => el("span", { class: "mv-draw" }, t))));
}

/* Which step undid this one (a take-back accepted, a dispute voided: a step of its own, saying
   which moves it undid), a click away, by its number in the list. */
function undoneNote(e) {
  const by = S.entries.find((x) => x.seq_from <= e.undone && e.undone <= x.seq_to);
  const said = "a take-back or a voided dispute returned the game to before this move (it stays in the record, struck through).";
  if (!by) return el("p", { class: "rp-undone-note" }, `Undone: ${said}`);
  const link = el("a", { href: `?at=${by.n}`, id: "undone-by" }, by.move ? `move ${by.move}` : `step ${by.n}`);
  link.addEventListener("click", (ev) => { ev.preventDefault(); go(by.n); });
  return el("p", { class: "rp-undone-note" }, "Undone at ", link, `: ${by.text || said}`);
}

function renderStep() {
  const d = S.data, e = d.entry;
  const line = clear($("step-line"));
  const heading = e.seat === null || e.seat === undefined;
  line.classList.toggle("undone", Boolean(e.undone));
  line.append(...[
    el("p", { class: "rp-where" }, `Step ${d.step} of ${d.steps}`, e.move ? ` · move ${e.move}` : "", ` · seq ${e.seq_from}${e.seq_to !== e.seq_from ? "–" + e.seq_to : ""}`),
    el("p", { class: "rp-who" },
      heading ? el("b", { class: "rp-heading" }, e.heading || e.who || "") : el("b", { class: "mv-who", style: `border-color:${seatColour(e.seat)}` }, e.who || nameOf(e.seat)),
      e.at ? el("time", { datetime: e.at, title: e.at }, ` ${new Date(e.at).toLocaleString()} (${when(e.at)})`) : null),
    e.notation ? el("p", {}, "Command: ", el("code", { class: "mv-notation", id: "step-notation" }, e.notation)) : null,
    el("p", { class: "rp-text", id: "step-text" }, e.text || ""),
    e.redacted ? el("p", { class: "muted" }, "Part of this move is hidden from you.") : null,
    e.undone ? undoneNote(e) : null,
  ].filter(Boolean));
  const sub = $("step-sub");
  sub.classList.toggle("hidden", !S.sub);
  clear(sub);
  if (S.sub) {
    const ev = (e.events || []).find((x) => x.seq === S.sub);
    sub.append(el("span", {}, `Showing the board after event #${S.sub}${ev ? ": " + ev.text : ""} `),
      el("button", { type: "button", class: "secondary small", id: "whole-step", onclick: () => go(S.step, null, { focus: "step-h" }) }, "Show the whole step"));
  }
  drawsBox(d.draws, e);
  const items = changeItems(d.changes, wordsFor(d.view), nameOf);
  const ch = clear($("step-changes"));
  const li = ([k, t]) => el("li", { class: `rp-${k}` }, t);
  ch.append(el("h3", {}, S.sub ? "What this event changed" : "What changed"));
  if (!items.length) ch.append(el("p", { class: "muted" }, "Nothing you can see on the board changed."));
  else if (items.length <= 12) ch.append(el("ul", { class: "rp-change-list" }, items.map(li)));
  else {
    // A set-up or a big turn: the first few, the rest one click away.
    const cells = new Set((d.changes.cells || []).map(String)).size;
    ch.append(el("p", {}, `${items.length} changes on ${cells} cell${cells === 1 ? "" : "s"}.`),
      el("ul", { class: "rp-change-list" }, items.slice(0, 6).map(li)),
      el("details", { class: "rp-more" }, el("summary", {}, `${items.length - 6} more`), el("ul", { class: "rp-change-list" }, items.slice(6).map(li))));
  }
  const list = clear($("step-event-list"));
  const evs = e.events || [];
  $("step-events-sum").textContent = `${evs.length} event${evs.length === 1 ? "" : "s"} in this step (open one to see the board after it)`;
  for (const x of evs) {
    list.append(el("li", { class: (x.quiet ? "mv-quiet" : "") + (x.seq === S.sub ? " current" : ""), "data-seq": x.seq },
      el("button", { type: "button", class: "linklike", "aria-label": `Board after event ${x.seq}`, onclick: () => go(S.step, x.seq) }, `#${x.seq}`), " ", x.text));
  }
  if (S.sub) $("step-events").open = true;
}

/* ---- the board ------------------------------------------------------------------------ */

function boardWidth() {
  const box = $("board");
  return Math.max(200, box.clientWidth || box.parentElement.clientWidth - 32);
}

function ctxFor() {
  const w = boardWidth();
  return { seat: S.mode === "seat" ? S.seat : null, names: names(), summary: S.summary, toPlay: (S.data && S.data.view.prompt && S.data.view.prompt.seats) || [], legal: [], width: w, compact: w < 560 };
}

/* The removed pieces, drawn as the skin draws them: the skin's cells for a view holding just
 * those pieces, less what it draws for a view holding none (a skin may draw some pieces from
 * elsewhere in the view, as Dragon Dale draws units from its tribes); a removed piece the skin
 * does not draw from the cell goes as a plain token. */
function ghostsOf(v, removed, sk, ctx) {
  if (!removed.length) return null;
  const at = {};
  for (const r of removed) (at[r.cell] = at[r.cell] || []).push({ label: r.label, owner: r.owner });
  const drawn = (pieces) => {
    const cells = v.board.board.cells.map((c) => ({ ...c, pieces: pieces(c) }));
    if (!sk) return cells;
    try { return sk.board({ ...v, board: { ...v.board, board: { ...v.board.board, cells } } }, ctx).board.cells; } catch (e) { return cells; }
  };
  const withThem = drawn((c) => at[c.id] || []), without = sk ? drawn(() => []) : null;
  const sig = (p) => `${p.label}|${p.owner}|${p.title || ""}`;
  const out = {};
  withThem.forEach((c, i) => {
    if (!at[c.id]) return;
    const left = new Map();
    for (const p of (without ? without[i].pieces : []) || []) left.set(sig(p), (left.get(sig(p)) || 0) + 1);
    const extra = (c.pieces || []).filter((p) => { const k = sig(p), n = left.get(k) || 0; if (n) { left.set(k, n - 1); return false; } return true; });
    const w = wordsFor(v);
    for (const r of at[c.id].slice(extra.length)) extra.push({ label: pieceName({ label: r.label }, w, nameOf), owner: r.owner, title: `${pieceName(r, w, nameOf)}, removed in this step` });
    out[c.id] = extra;
  });
  return out;
}

/* An arrow from each moved piece's cell to where it went. */
function arrows(root, moved) {
  if (!moved.length) return;
  const centre = (id) => {
    const g = root.querySelector(`g.cell[data-id="${CSS.escape(String(id))}"] .cell-shape`);
    if (!g) return null;
    const b = g.getBBox();
    return [b.x + b.width / 2, b.y + b.height / 2, Math.min(b.width, b.height)];
  };
  const defs = svg("defs", {}, svg("marker", { id: "rp-head", viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "5", markerHeight: "5", orient: "auto-start-reverse" },
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "rp-arrow-head" })));
  root.append(defs);
  for (const m of moved) {
    const a = centre(m.from), b = centre(m.to);
    if (!a || !b) continue;
    // From the edge of the first cell's centre to short of the other's, so that the arrow
    // points at the piece without covering it.
    const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy) || 1;
    const cut = Math.min(a[2] * 0.3, len / 3);
    const ux = dx / len, uy = dy / len;
    root.append(svg("line", { x1: (a[0] + ux * cut).toFixed(1), y1: (a[1] + uy * cut).toFixed(1), x2: (b[0] - ux * cut).toFixed(1), y2: (b[1] - uy * cut).toFixed(1),
      class: "rp-arrow", "marker-end": "url(#rp-head)", "data-from": m.from, "data-to": m.to, "stroke-width": Math.max(2, a[2] / 22).toFixed(1) }));
  }
}

function renderBoardOf() {
  const d = S.data, v = d.view, board = v.board || {};
  const sk = skins[v.game] || null;
  const ctx = ctxFor();
  let drawn = board.board, overlays = null;
  const hasCells = board.board && Array.isArray(board.board.cells) && board.board.cells.length;
  if (sk && hasCells) {
    try { const dec = sk.board(v, ctx); drawn = dec.board; overlays = dec.overlays; $("board").dataset.skin = "ok"; } catch (e) { $("board").dataset.skin = "error"; console.error(e); }
  } else $("board").dataset.skin = "none";
  const changed = d.changes || {};
  const marked = [...new Set([...(S.sub ? [] : d.entry.cells || []), ...(changed.cells || [])])];
  // Replayed as a seat, the board faces that seat as its board page does.
  const rotate = S.mode === "seat" ? facing(sk, v, S.seat, drawn) : 0;
  const root = renderBoard(drawn, {
    names: names(), title: `${gameTitle(v.game)} board after step ${d.step} (seq ${d.seq})`, marked,
    ghosts: hasCells ? ghostsOf(v, changed.removed || [], sk, ctx) : null, overlays,
    fit: sk ? boardWidth() : 0, onInfo: showInfo, rotate,
  });
  clear($("board")).append(root);
  $("board").dataset.rotate = String(rotate);
  $("board").setAttribute("data-seq", String(d.seq));
  $("board").setAttribute("data-step", String(d.step));
  if (root.tagName && root.tagName.toLowerCase() === "svg") arrows(root, changed.moved || []);
  $("board-hint").textContent = marked.length
    ? `Washed in yellow: what ${S.sub ? "this event" : "this step"} touched or changed${(changed.moved || []).length ? "; an arrow shows each move" : ""}${(changed.removed || []).length ? "; faded pieces were removed" : ""}.`
    : "";
  $("legend-box").classList.toggle("hidden", !(sk && sk.legend));
  if (sk && sk.legend) replaceKeepingOpen($("board-legend"), sk.legend(v, ctx));
  $("rules-link").classList.toggle("hidden", !(sk && sk.rules));
  if (sk && sk.rules) $("rules-link").href = sk.rules;
  $("players-box").classList.toggle("hidden", !(sk && sk.panels));
  if (sk && sk.panels) replaceKeepingOpen($("players"), ...sk.panels(v, ctx));
  $("details-box").classList.toggle("hidden", Boolean(sk));
  if (!sk) {
    const rest = {};
    for (const [k, val] of Object.entries(board)) if (k !== "board") rest[k] = val;
    replaceKeepingOpen($("details"), kvPanel(rest));
  }
  const st = clear($("state-line"));
  const out = outcomeText(S.summary, v.outcome);
  st.append(statusBadge(v.status), " ", out || v.prompt_text || "");
  $("viewer").textContent = viewerWords(S.data.viewer || {});
}

/* Whose view the step shows, as the server says it answered (`viewer`), not as the page
 * guessed: a signed-in seat's replay read "a spectator (the public view)" while it showed the
 * seat's own secrets, for the page looked for a seat token only (issue #40). */
function viewerWords(viewer) {
  if (viewer.full) return `Everything shown: every seat's secrets (${S.referee ? "you are the game's referee" : "the game is over"}).`;
  if (!Number.isInteger(viewer.seat)) return "The public view (what spectators see).";
  const how = S.token ? "from your seat link" : "signed in as its player";
  return `As ${nameOf(viewer.seat)} (seat ${viewer.seat}) sees it: your seat's view, ${how}.`;
}

function showInfo(id, text) {
  const box = $("cell-info");
  box.classList.remove("hidden");
  clear(box).append(...text.split("\n").map((line, i) => el(i ? "div" : "strong", {}, line)));
}

function render() {
  renderStep();
  renderBoardOf();
  viewChoices();
  stepperState();
}

/* ---- the list of steps ----------------------------------------------------------------- */

/* The button that goes to a step, named as the move list names it: a move by its number, a chat
 * line, a table action or the game's own step with none (a step number there would read as a
 * move number and drift from the moves players quote). */
function stepButton(e) {
  return el("button", { type: "button", class: "linklike rp-jump", "aria-label": `Go to step ${e.n}` },
    Number.isInteger(e.move) ? `${e.move}.` : "›");
}

function renderList() {
  const list = clear($("log"));
  for (const e of S.entries) {
    const heading = e.seat === null || e.seat === undefined;
    const li = el("li", { class: "rp-entry" + (heading ? " mv-step" : "") + (e.undone ? " undone" : ""), "data-n": e.n, "data-seq": e.seq_to },
      stepButton(e), " ",
      heading ? (e.heading ? el("b", { class: "mv-heading" }, `${e.heading}: `) : null) : el("b", { class: "mv-who", style: `border-color:${seatColour(e.seat)}` }, e.who || ""),
      " ", el("span", { class: "rp-entry-text" }, heading || !e.who || !(e.text || "").startsWith(e.who + " ") ? e.text || "" : e.text.slice(e.who.length + 1)),
      e.notation ? el("code", { class: "mv-notation" }, e.notation) : null,
      ...(e.draws || []).map((t) => el("span", { class: "mv-draw" }, t)),
      e.undone ? el("span", { class: "badge muted-badge" }, "undone") : null);
    li.addEventListener("click", () => go(e.n));
    list.append(li);
  }
}

/* ---- whose eyes ------------------------------------------------------------------------- */

function viewChoices() {
  const sel = $("view-as");
  $("as-seat").disabled = S.seat === null;
  $("as-seat").textContent = S.seat === null ? "your seat (open your seat link)" : `your seat: ${nameOf(S.seat)}`;
  $("as-all").disabled = !S.mayAll;
  $("as-all").textContent = S.mayAll ? "everything shown" : "everything shown (after the end, or for the referee)";
  sel.value = S.mode;
}

$("view-as").addEventListener("change", async () => {
  const want = $("view-as").value;
  if (want === S.mode) return;
  S.mode = want;
  try {
    await loadEntries();
    renderList();
    const seq = S.data ? S.data.seq : null;
    await go(seq ? stepOfSeq(seq) || S.entries.length : S.entries.length);
  } catch (e) { showError($("page-msg"), e, "Could not change the view:"); }
});

/* ---- wiring ----------------------------------------------------------------------------- */

const stepBy = (k) => { const from = S.want || S.step; if (from) go(from + k); };
$("first").addEventListener("click", () => go(1));
$("prev").addEventListener("click", () => stepBy(-1));
$("next").addEventListener("click", () => stepBy(1));
$("last").addEventListener("click", () => go(S.entries.length));
slider.addEventListener("input", () => go(Number(slider.value)));
$("audit-again").addEventListener("click", audit);
document.addEventListener("keydown", (ev) => {
  const t = ev.target;
  if (t === slider || (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable))) return;
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const cur = S.want || S.step;
  if (ev.key === "ArrowLeft" && cur > 1) { ev.preventDefault(); stepBy(-1); }
  else if (ev.key === "ArrowRight" && cur && cur < S.entries.length) { ev.preventDefault(); stepBy(1); }
  else if (ev.key === "Home") { ev.preventDefault(); go(1); }
  else if (ev.key === "End") { ev.preventDefault(); go(S.entries.length); }
});
let resizeTimer = null;
window.addEventListener("resize", () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { if (S.data) renderBoardOf(); }, 150); });

function listen() {
  watchGame(gid, { state() {}, summary: async (text) => {
    let s;
    try { s = JSON.parse(text); } catch (e) { return; }
    if (!S.summary || s.seq <= (S.seq || 0)) return;
    const wasLast = S.step === S.entries.length;
    S.summary = s;
    try { await loadEntries(); } catch (e) { return; }
    renderList();
    if (s.status !== "active") { $("export-link").classList.remove("hidden"); audit(); }
    if (wasLast) go(S.entries.length); else stepperState();
  } });
}

(async () => {
  try {
    const { data } = await api(`/v1/games/${enc}`);
    S.summary = data;
    await gameTitles();
    setTitle(`Replay ${gameTitle(data.game)} ${data.id} — boardlog`);
    $("title").textContent = `Replay · ${gameTitle(data.game)} · ${data.id}`;
    clear($("legend")).append(seatLegend(data));
    $("export-link").classList.toggle("hidden", data.status === "active");
    await whoAmI();
    const params = new URLSearchParams(location.search);
    const asked = params.get("view");
    S.mode = asked === "all" || (asked === "public") ? asked : defaultMode();
    if (S.mode === "all" && data.status === "active" && !S.referee) S.mode = defaultMode();
    await loadEntries();
    renderList();
    const rawAt = params.get("at"), rawSeq = params.get("seq");
    if (rawAt !== null) await go(null, rawSeq && /^\d+$/.test(rawSeq) ? Number(rawSeq) : null, { raw: rawAt });
    else if (rawSeq !== null) {
      const n = /^\d+$/.test(rawSeq) ? stepOfSeq(Number(rawSeq)) : null;
      // A seq that ends its step is the whole step; another one, the sub-step at that event.
      if (n) await go(n, S.entries[n - 1].seq_to === Number(rawSeq) ? null : Number(rawSeq));
      else badPosition({ message: `'seq' is an event's seq, from 1 to ${S.seq}, not ${JSON.stringify(rawSeq.slice(0, 20))}.` });
    } else await go(S.entries.length);
    audit();
    listen();
  } catch (e) {
    showError($("page-msg"), e, "Could not load the game:");
  }
})();
