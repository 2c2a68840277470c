/* The board page's conduct panel: resign, offer a draw or an abandonment, take back one's last
 * move, accept or refuse what another seat proposes, and open or settle a dispute (the referee's
 * ruling view: the move replayed before and after, what a void draws again, a reason). Every action
 * is a boardlog.* command sent through the board's own send (POST /v1/games/{gid}/commands);
 * what is open comes from the summary's `conduct` (projections/readmodels.py). board.js calls
 * BLConduct.update after each render. All text goes in as text nodes (el), never HTML. */

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { seatName } from "./seats.js";
import { moveAt } from "./sentences.js";

const $ = (id) => document.getElementById(id);
const KIND = { draw: "a draw", abandon: "abandoning the game", takeback: "taking back their last move" };
let C = null;
let form = null;  // built once, so that an update while typing keeps what was typed

function name(seat) {
  return seatName(C.summary, seat);
}

/* A move as the move list names it ("move 12 (ann places a Gold Mine on d3.)"), from the
 * command's seq: the list's entries the board keeps (its latest 40), else by its seq. */
const TIMED_OUT = "boardlog.TurnTimedOut";
/* The TurnTimedOut of a timeout's entry (the platform's boardlog.timeout, which the move list
 * words "The deadline passes."), whose words say whose turn it was; null for any other entry. */
function timedOut(e) {
  return e && e.seat === null ? (e.events || []).find((x) => x.type === TIMED_OUT) || null : null;
}
function moveWords(e) {
  const t = timedOut(e);
  if (t) return t.text.replace(/\.$/, "");  // "ann ran out of time: the game waits for them"
  const text = (e.text || e.notation || "").replace(/\.$/, "");  // it goes inside parentheses
  return e.who && !text.startsWith(e.who) ? `${e.who}: ${text}` : text;
}
function moveName(seq) {
  const e = moveAt(C.moves, seq);
  return e ? `move ${e.move} (${moveWords(e)})` : `the move at seq ${seq}`;
}

function button(text, cls, onclick, title) {
  return el("button", { type: "button", class: `${cls} small conduct-btn`, onclick, ...(title ? { title } : {}) }, text);
}

function send(type, args, label) {
  return C.send({ type: `boardlog.${type}`, args }, label);
}

function proposalLine(c, me) {
  const p = c.proposal;
  if (!p) return null;
  const who = p.by === me ? "You propose" : `${name(p.by)} proposes`;
  const line = el("div", { class: "conduct-proposal", role: "status" },
    el("span", {}, `${who} ${p.kind === "takeback" ? `taking back ${p.by === me ? "your" : "their"} last move, ${moveName(p.to_seq + 1)}`
      : KIND[p.kind] || p.kind}.`),
    p.waiting.length ? el("span", { class: "muted" }, ` Waiting for ${p.waiting.map(name).join(", ")}.`) : null);
  if (me !== null && p.waiting.includes(me)) {
    line.append(" ", button("Accept", "primary", () => send("accept", { proposal: p.seq }, `accept ${KIND[p.kind]}`)),
      " ", button("Refuse", "secondary", () => send("refuse", { proposal: p.seq }, `refuse ${KIND[p.kind]}`)));
  } else if (me !== null && p.by === me) {
    line.append(" ", button("Withdraw", "secondary", () => send("refuse", { proposal: p.seq }, "withdraw the proposal")));
  }
  return line;
}

/* The open dispute as the ruling view reads it (GET /v1/games/{gid}/dispute: the move in
 * words, the seqs before and after it, the draws a void would make again), fetched once per
 * dispute; until it answers, or where the server has no such read, what the summary and the
 * move list say. */
const R = { seq: null, data: null };
function rulingData(d) {
  if (R.seq !== d.seq) {
    R.seq = d.seq;
    R.data = null;
    api(`/v1/games/${C.gid}/dispute`, { token: C.token })
      .then(({ data }) => { if (R.seq === d.seq && data && data.dispute === d.seq) { R.data = data; render(); } })
      .catch(() => {});  // the summary's own words stand
  }
  const entry = moveAt(C.moves, d.on);
  return R.data || { before_seq: d.on - 1, after_seq: entry ? entry.seq_to : d.on, redraws: null };
}

function replayLink(seq, text, id) {
  return el("a", { id, href: `/games/${encodeURIComponent(C.gid)}/replay?seq=${seq}&view=all` }, text);
}

/* What the referee (or a voting seat) weighs before ruling: the move replayed before and
 * after, what a void would draw again, and the reason every seat will read. */
let reason = null;  // kept across renders, so that what is typed stays
function ruling(d, isReferee) {
  const r = rulingData(d);
  if (!reason) {
    reason = el("textarea", { id: "ruling-reason", rows: "2", maxlength: "500", spellcheck: "true" });
    reason.addEventListener("input", () => { $("ruling-count").textContent = reason.value.length ? `${reason.value.length} / 500` : ""; });
  }
  const redraws = r.redraws === null ? null
    : r.redraws.length ? el("ul", { class: "ruling-redraws", id: "ruling-redraws" }, r.redraws.map((t) => el("li", {}, t)))
      : el("p", { class: "muted", id: "ruling-redraws" }, "Voiding draws nothing again: the move drew nothing random.");
  const box = el("div", { class: "ruling", role: "group", "aria-label": "Your ruling" },
    el("p", { class: "ruling-replay" }, "Replay it, everything shown: ", replayLink(r.before_seq, "the position before", "ruling-before"),
      " · ", replayLink(r.after_seq, "the move and what it changed (its draws)", "ruling-after")),
    redraws,
    el("label", { for: "ruling-reason" }, isReferee ? "Your reason (required; every seat reads it, 1 to 500 characters)"
      : "Your reason (optional; every seat reads it)"),
    reason,
    el("div", { class: "row" },
      button("Uphold", "secondary", () => rule(d, "upheld", isReferee)), " ",
      button("Void", "danger", () => rule(d, "voided", isReferee, r.redraws)),
      el("span", { class: "hint", id: "ruling-count" }, reason.value.length ? `${reason.value.length} / 500` : "")));
  return box;
}

async function rule(d, verdict, isReferee, redraws) {
  const text = reason.value.trim();
  const where = $(isReferee ? "referee-msg" : "cmd-msg");
  if (isReferee && !text) {
    clear(where).append(el("div", { class: "msg error" }, el("code", {}, "bad_reason"), ": write the reason for your ruling first: every seat reads it."));
    reason.focus();
    return;
  }
  if (verdict === "voided") {
    const again = redraws && redraws.length ? ` ${redraws.join("; ")}.` : "";
    if (!confirm(`Void ${moveName(d.on)}? The game returns to the position before it.${again}`)) return;
  }
  const args = { dispute: d.seq, verdict, ...(text ? { reason: text } : {}) };
  const ok = await send("resolve", args, `${verdict === "voided" ? "void" : "uphold"} ${moveName(d.on)}`);
  if (ok) reason.value = "";
}

function disputeLine(c, me, isReferee) {
  const d = (c.disputes || []).find((x) => x.verdict === null);
  if (!d) return null;
  const line = el("div", { class: "conduct-dispute", role: "status" },
    el("span", {}, `${name(d.by)} disputes ${moveName(d.on)}: `), el("q", {}, d.note),
    isReferee ? el("span", { class: "muted" }, ` You referee this game: uphold the move or void it (the game returns to the position before it), with your reason; the game waits meanwhile.`)
      : C.summary.refereed ? el("span", { class: "muted" }, ` The referee settles it; the game waits meanwhile.`)
      : el("span", { class: "muted" }, ` Every other seat settles it; the game waits meanwhile.`));
  const votes = d.votes || [];
  if (votes.length) line.append(el("span", { class: "muted" }, ` Votes: ${votes.map((v) => `${name(v.seat)} ${v.verdict}`).join(", ")}.`));
  const mayVote = isReferee || (me !== null && !C.summary.refereed && d.by !== me && !(c.resigned || []).includes(me));
  if (mayVote) line.append(ruling(d, isReferee));
  return line;
}

const OLDER = "older";

function disputeForm() {
  if (form) return form;
  const pick = el("select", { id: "dispute-move", required: "" });
  const seq = el("input", { type: "number", id: "dispute-seq", min: "1", step: "1", inputmode: "numeric" });
  const older = el("div", { class: "hidden" }, el("label", { for: "dispute-seq" }, "Its seq (the replay shows each move's)"), seq);
  const note = el("input", { type: "text", id: "dispute-note", maxlength: "1000", required: "", placeholder: "why" });
  pick.addEventListener("change", (ev) => {
    if (ev.isTrusted) chosen = pick.value;  // the seat's own choice stays; the default follows the game
    older.classList.toggle("hidden", pick.value !== OLDER);
    seq.required = pick.value === OLDER;
  });
  const f = el("form", { class: "dispute-form", autocomplete: "off" },
    el("label", { for: "dispute-move" }, "Move"), pick, older,
    el("label", { for: "dispute-note" }, "Note"), note,
    el("button", { type: "submit", class: "secondary small" }, "Open the dispute"));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const on = pick.value === OLDER ? Number(seq.value) : Number(pick.value);
    send("dispute", { seq: on, note: note.value }, `dispute ${moveName(on)}`).then((ok) => { if (ok) chosen = null; });
  });
  form = el("details", { class: "conduct-more" }, el("summary", {}, "Dispute a move"), f);
  return form;
}

/* The moves one may dispute, newest first: the other seats' game commands in the board's move
 * list not already undone (one's own is a take-back's; a platform command, such as a dispute,
 * has no notation and is not a move of the game), every timeout (a seat's own too: no choice
 * it made; docs/conduct.md), and a last choice for an older one by its seq. The platform's
 * answer for a seat whose turn timed out (a skip) is part of its timeout and not offered: it is
 * the entry that begins right after the timeout's TurnTimedOut. The newest is chosen, unless
 * the seat chose another: a list that grew while the form stayed open never leaves an old move
 * picked by default. */
let chosen = null;
function disputable(list, mine) {
  const bySeq = [...list].sort((a, b) => a.seq_from - b.seq_from);
  return bySeq.filter((e, i) => {
    if (!e.move || e.undone) return false;
    if (timedOut(e)) return true;
    const before = bySeq[i - 1];
    const t = timedOut(before);
    if (t && before.seq_to === t.seq && e.seq_from === t.seq + 1) return false;  // the skip played for it
    return e.seat !== null && e.seat !== undefined && e.seat !== mine && (e.notation || e.redacted);
  }).reverse();
}
function disputeChoices() {
  const pick = document.getElementById("dispute-move");
  if (!pick) return;
  const mine = C.role === "seat" ? C.seat : null;
  const moves = disputable(C.moves || [], mine);
  const want = [...moves.map((e) => [String(e.seq_from), `${e.move}. ${moveWords(e)}`]), [OLDER, "An older move, by its seq…"]];
  const have = [...pick.options].map((o) => [o.value, o.text]);
  if (JSON.stringify(want) === JSON.stringify(have)) return;
  clear(pick);
  for (const [value, text] of want) pick.append(el("option", { value }, text));
  pick.value = chosen !== null && want.some(([v]) => v === chosen) ? chosen : want[0][0];
  pick.dispatchEvent(new Event("change"));
}

function render() {
  const panel = $("conduct");
  const box = $("conduct-live");
  if (!panel || !box) return;
  // The panel is drawn again on every update of the game: one typing a reason keeps their place.
  const typing = reason && document.activeElement === reason ? [reason.selectionStart, reason.selectionEnd] : null;
  draw(panel, box);
  if (typing && reason.isConnected) { reason.focus(); reason.setSelectionRange(...typing); }
}

function draw(panel, box) {
  const s = C.summary;
  const c = s && s.conduct;
  clear(box);
  const seated = C.role === "seat" && C.seat !== null && C.seat !== undefined;
  const admin = C.role === "admin";
  const referee = C.role === "referee" && s.refereed;  // settles the disputes, sends no moves
  panel.classList.toggle("hidden", !c || !(seated || admin || referee) || s.status !== "active");
  const more = disputeForm();
  if (!more.isConnected) panel.append(more);
  disputeChoices();
  more.classList.add("hidden");
  if (!c || s.status !== "active") return;
  const me = seated ? C.seat : null;
  const resigned = me !== null && (c.resigned || []).includes(me);
  if ((c.resigned || []).length) box.append(el("p", { class: "muted" }, `Resigned: ${c.resigned.map(name).join(", ")} (the platform plays their default answers).`));
  const p = proposalLine(c, me);
  if (p) box.append(p);
  // Only the referee's token settles a refereed game's dispute (the admin's is refused).
  const d = disputeLine(c, me, referee);
  if (d) box.append(d);
  else if (referee) box.append(el("p", { class: "muted" }, "No dispute is open. A seat may open one on another seat's move or a step of the game; you uphold or void it here, with your reason."));
  if (!seated || resigned) return;
  const row = el("div", { class: "conduct-actions", role: "group", "aria-label": "Resign, agreements and take-backs" });
  if (!c.proposal) {
    if (c.takeback) row.append(button("Take back my last move", "secondary", () => send("takeback", {}, "take back my last move"),
      "Ask the others to undo your last command (refused once anything random was drawn or hidden shown)"));
    row.append(button("Offer a draw", "secondary", () => send("propose", { kind: "draw" }, "offer a draw")),
      button("Propose to abandon", "secondary", () => send("propose", { kind: "abandon" }, "propose to abandon")));
  }
  row.append(button("Resign", "danger", () => {
    if (confirm("Resign this game? You cannot come back.")) send("resign", {}, "resign");
  }));
  box.append(row);
  more.classList.toggle("hidden", (c.disputes || []).some((x) => x.verdict === null));
}

function update(ctx) {
  C = ctx;
  render();
}

export const BLConduct = { update };
