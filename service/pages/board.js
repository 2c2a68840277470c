/* The board page: the game's board drawn by its skin (board-<game>.js), player panels, the last
 * move marked, click to move built from the legal commands, the move list, and live updates. */
"use strict";

(() => {
  const { el, clear, api, commandId, seatChip, whoseTurn, outcomeText, statusBadge, kvPanel, renderBoard, seatLegend, logEntry } = BL;
  const $ = (id) => document.getElementById(id);

  const gid = BL.gameIdFromPath();
  // A seat link pasted into a tab already on this game changes only the fragment: the page
  // loads again as that seat. Opening a link never claims its seat: a signed-in viewer is
  // offered to keep it, in one click (offerSeatClaim).
  window.addEventListener("hashchange", () => {
    if (!new URLSearchParams(location.hash.replace(/^#/, "")).has("token")) return;
    BL.takeToken(gid); // kept for this tab, and out of the address bar
    location.reload();
  });
  // A link may name the seat it is for (#seat=N, a mail's link: no secret in it), so that a
  // visitor not signed in is told which seat signing in leads to.
  const hintedSeat = Number.parseInt(new URLSearchParams(location.hash.replace(/^#/, "")).get("seat"), 10);
  const S = {
    token: BL.takeToken(gid),
    role: "spectator", // "seat" | "admin" | "referee" | "spectator"
    asSeat: null, // the referee: the seat whose board is drawn (null: the public board)
    seat: null,
    summary: null,
    view: null,
    legal: null,
    events: new Map(), // seq -> envelope as this viewer sees it
    loadedTo: 0, // the raw log is loaded up to this seq
    busy: false,
    sel: [], // the targets chosen so far for the command being built (click to move)
    moves: [], // the latest entries of the move list (GET /moves), oldest first
    seen: null, // the board as the viewer last acted on it: {seq, pieces: {cell: [piece]}}
    pointed: null, // the move-list entry the reader points at (its cells are marked meanwhile)
    badToken: false, // the link's token was refused: its warning stays above the sign-in line
  };
  $("replay-link").href = `/games/${encodeURIComponent(gid)}/replay`;
  $("referee-replay").href = `/games/${encodeURIComponent(gid)}/replay?view=all`;
  $("referee-audit").href = `/v1/games/${encodeURIComponent(gid)}/audit`;

  function showError(box, err, prefix) {
    clear(box).append(el("div", { class: "msg error" }, prefix ? prefix + " " : "", err.code ? el("code", {}, err.code) : null, err.code ? ": " : "", err.message));
  }

  /* A move's error where the eye is (issue #40): on a phone the message box is the last thing in
   * the sticky "Your move" bar, which scrolls inside itself, so a typed move's error landed below
   * the screen and nothing seemed to happen. The box scrolls into sight (the bar's own scroll and
   * the page's); it is a role=alert live region, so a screen reader says it at once. */
  function revealMessage(box) {
    const shown = box.lastElementChild || box;
    shown.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function names() {
    const out = {};
    for (const s of (S.summary && S.summary.seats) || []) out[s.seat] = s.name;
    return out;
  }
  const skin = () => (S.view && BL.skins[S.view.game]) || null;
  const myTurn = () => Boolean(S.role === "seat" && S.summary && S.summary.status === "active" && S.summary.prompt && S.summary.prompt.seats.includes(S.seat));
  // What a skin knows of the page: the viewer, the names, the legal commands, and whether the
  // board is drawn small (a phone), where it keeps to short labels and one token per player.
  const ctx = () => ({ seat: S.seat, names: names(), summary: S.summary, legal: (S.legal && S.legal.commands) || [],
    width: boardWidth(), compact: boardWidth() < 560 });

  /* One player's panel: colour, name, faction or tribe, facts, and more below. */
  BL.playerPanel = (c, seat, title, facts, extra, you) => el("section", { class: "player-panel" + (you ? " mine" : ""), "data-seat": seat, style: `border-top-color:${BL.seatColour(seat)}` },
    el("h3", {}, el("span", { class: "swatch", style: `background:${BL.seatColour(seat)}`, "aria-hidden": "true" }),
      `${c.names[seat] || "seat " + seat}`, el("span", { class: "faction" }, ` · ${title}`), you ? el("span", { class: "badge you-badge" }, "you") : null,
      S.summary && S.summary.prompt && S.summary.prompt.seats.includes(seat) ? el("span", { class: "badge turn-badge" }, "to play") : null),
    el("dl", { class: "kv facts-kv" }, facts.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v === null || v === undefined ? "—" : String(v))])),
    extra);

  /* ---- receipts: each accepted command's signed receipt, kept in this browser ---------- */

  const receiptsKey = () => `boardlog.receipts.${gid}`;
  function receipts() {
    try { return JSON.parse(localStorage.getItem(receiptsKey()) || "[]"); } catch (e) { return []; }
  }
  function keepReceipt(r) {
    if (!r || typeof r.seq !== "number") return;
    const all = receipts().filter((x) => x.seq !== r.seq);
    all.push(r);
    all.sort((a, b) => a.seq - b.seq);
    try { localStorage.setItem(receiptsKey(), JSON.stringify(all)); } catch (e) { /* storage off or full */ }
    renderReceipts();
  }
  function renderReceipts() {
    const n = receipts().length;
    $("receipts-count").textContent = String(n);
    $("receipts-line").classList.toggle("hidden", n === 0);
  }
  $("receipts-link").addEventListener("click", (ev) => {
    ev.preventDefault();
    const blob = new Blob([JSON.stringify({ game: gid, receipts: receipts() }, null, 1)], { type: "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `${gid}-receipts.json` });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });
  renderReceipts();

  /* ---- what the last moves touched, and what vanished since the viewer last acted ------ */

  const seenKey = () => `boardlog.seen.${gid}.${S.role === "seat" ? S.seat : "watch"}`;
  function loadSeen() {
    try { S.seen = JSON.parse(localStorage.getItem(seenKey()) || "null"); } catch (e) { S.seen = null; }
  }
  function piecesOf(board) {
    const out = {};
    for (const c of board.cells || []) if (c.pieces && c.pieces.length) out[c.id] = c.pieces.map((p) => ({ label: p.label, owner: p.owner, title: p.title, fill: p.fill, ink: p.ink, square: p.square, key: p.key, count: p.count, n: p.n }));
    return out;
  }
  /* The viewer acted (or first opened the game): what is on the board now is what they saw. */
  function markSeen(board) {
    if (!board || !S.view) return;
    S.seen = { seq: S.view.seq, pieces: piecesOf(board) };
    try { localStorage.setItem(seenKey(), JSON.stringify(S.seen)); } catch (e) { /* storage off */ }
  }
  /* Pieces of the seen board that are no longer anywhere on it, at the cells they were on. */
  function ghostsFor(board) {
    if (!S.seen || !S.seen.pieces || !S.view || S.seen.seq >= S.view.seq) return null;
    const key = (p) => p.key || `${p.label}|${p.owner}`;
    const many = (p) => p.n || p.count || 1; // a token may stand for several pieces
    const count = (pieces) => {
      const m = new Map();
      for (const list of Object.values(pieces)) for (const p of list) m.set(key(p), (m.get(key(p)) || 0) + many(p));
      return m;
    };
    const now = piecesOf(board);
    const before = count(S.seen.pieces), after = count(now);
    const out = {};
    for (const [k, n] of before) {
      let missing = n - (after.get(k) || 0);
      if (missing <= 0) continue;
      for (const [cell, list] of Object.entries(S.seen.pieces)) {
        if (missing <= 0) break;
        for (const p of list) {
          if (key(p) !== k || missing <= 0) continue;
          const here = (now[cell] || []).filter((q) => key(q) === k).reduce((a, q) => a + many(q), 0);
          const had = list.filter((q) => key(q) === k).reduce((a, q) => a + many(q), 0);
          const gone = Math.min(missing, had - here);
          if (gone <= 0) continue;
          (out[cell] = out[cell] || []).push({ ...p, n: null, count: gone > 1 && !p.n ? gone : null });
          missing -= gone;
          break;
        }
      }
    }
    return Object.keys(out).length ? out : null;
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

  const ARG_ORDER = ["from", "via", "path", "unit", "at", "space", "to", "target", "option", "args"];
  function cellsOfCommand(cmd, ids) {
    const sk = skin();
    const own = sk && sk.cellsOf ? sk.cellsOf(cmd, S.view, ctx()) : null;
    if (own) return own.filter((x) => ids.has(String(x))).map(String);
    const a = cmd.args || {};
    const keys = [...ARG_ORDER.filter((k) => k in a), ...Object.keys(a).filter((k) => !ARG_ORDER.includes(k)).sort()];
    const out = [];
    const visit = (v) => {
      if (typeof v === "string") {
        for (const t of v.split(/[\s:+>,-]+/)) if (ids.has(t) && out[out.length - 1] !== t) out.push(t);
      } else if (Array.isArray(v)) v.forEach(visit);
    };
    for (const k of keys) visit(a[k]);
    return out;
  }

  let decorated = null; // {board, overlays} of the current view, drawn by the skin
  function plan() {
    const cmds = (S.legal && S.legal.commands) || [];
    const ids = new Set();
    if (decorated) {
      for (const c of decorated.board.cells || []) ids.add(String(c.id));
      for (const o of decorated.overlays || []) ids.add(String(o.id));
    }
    const all = [];
    for (const c of cmds) {
      const cells = cellsOfCommand(c, ids);
      all.push({ c, cells });
      // A command a page may chain (a Factions step, GET .../legal's `then`): each path of it is
      // one more choice, its cells the steps' cells in order, sent step by step (sendChain).
      const walk = (nodes, chain, at) => {
        for (const n of nodes || []) {
          const more = [...chain, n];
          const path = [...at, ...cellsOfCommand(n, ids)];
          const text = more.map((x) => x.text).join(", then ");
          all.push({ c: { type: c.type, args: c.args, text, sentence: `${c.sentence || c.text} Then ${more.slice(1).map((x) => x.text).join(", then ")}.`, chain: more }, cells: path });
          walk(n.then, more, path);
        }
      };
      walk(c.then, [c], cells);
    }
    const sel = S.sel;
    const fits = all.filter((x) => x.cells.length >= sel.length && sel.every((id, i) => x.cells[i] === id));
    const complete = fits.filter((x) => x.cells.length === sel.length);
    const next = [...new Set(fits.filter((x) => x.cells.length > sel.length).map((x) => x.cells[sel.length]))];
    return { all, fits, complete, next };
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

  function renderSummary() {
    const s = S.summary;
    if (!s) return;
    const game = BL.gameTitle(s.game);
    BL.setTitle(`${myTurn() ? "(your move) " : ""}${game} ${s.id} — boardlog`);
    $("title").textContent = `${game} · ${s.id}`;
    clear($("status")).append(statusBadge(s.status), ...provenanceBadges(s));
    $("turn").textContent = s.status === "active" ? whoseTurn(s) : "—";
    $("seq").textContent = String(s.seq);
    const you = $("your-seat");
    clear(you);
    if (S.role === "seat") you.append(seatChip(s, S.seat));
    else you.textContent = S.role === "admin" ? "admin (no seat)" : S.role === "referee" ? "referee (no seat)" : "spectator";
    if (S.role === "referee") refereeChoices(s);
    $("spectator-play").classList.toggle("hidden", !!s.imported);
    $("spectator-imported").classList.toggle("hidden", !s.imported);
    const out = outcomeText(s, s.outcome);
    $("outcome-box").classList.toggle("hidden", !out);
    $("outcome").textContent = out;
    clear($("legend")).append(seatLegend(s));
    const sk = skin();
    const line = sk && sk.status && S.view && S.view.board ? sk.status(S.view) : "";
    $("game-status-box").classList.toggle("hidden", !line);
    $("game-status").textContent = line;
    if (!S.clockTick) S.clockTick = BLClock.mount($("clock"), $("clock-box"), () => S.summary, names);
    else S.clockTick();
  }

  const REFEREE_APPOINTED = {
    mail: (n) => `The referee, ${n}, was invited by mail and holds the only referee link.`,
    player: (n) => `The referee, ${n}, is a player: only they, signed in, hold the role.`,
    creator: (n) => `The referee link for ${n} was handed to the game's creator.`,
  };

  /* An analysis game (a fork) links to the game and seq it was forked from; a refereed game
     names its referee, so every seat knows who may read everything. */
  function provenanceBadges(s) {
    const out = [];
    if (s.analysis && s.fork) {
      out.push(" ", el("a", { class: "badge analysis-badge", href: `/games/${encodeURIComponent(s.fork.game)}/replay?seq=${s.fork.seq}`,
        title: `an analysis game, forked from ${s.fork.game} at seq ${s.fork.seq}` }, `analysis · from ${s.fork.game} @ ${s.fork.seq}`));
    }
    if (s.refereed && s.referee) {
      // How the referee holds the role, as the game's first event says (docs/referees-and-forks.md).
      const how = REFEREE_APPOINTED[s.referee.appointed];
      out.push(" ", el("span", { class: "badge referee-badge", title: "the referee (not a seat) reads every seat's secrets" },
        `refereed by ${s.referee.name}`));
      if (how) out.push(" ", el("span", { class: "muted referee-appointed", id: "referee-appointed" }, how(s.referee.name)));
    }
    if (s.imported) {
      const i = s.imported;
      out.push(" ", el("span", { class: "badge imported-badge",
        title: `loaded by boardlog import on ${i.at} (${i.verdict}${i.key ? `, signed by key ${i.key}` : ""}): a record from another deployment, for replay; no seat plays it here` },
        `imported · ${i.verdict}`));
    }
    return out;
  }

  function boardWidth() {
    const box = $("board");
    return Math.max(200, box.clientWidth || box.parentElement.clientWidth - 32);
  }

  /* The referee picks whose board to draw: the public one or any seat's, secrets included. */
  function refereeChoices(s) {
    const sel = $("referee-as");
    if (sel.options.length) return;
    sel.append(el("option", { value: "" }, "spectator (public)"),
      ...s.seats.map((x) => el("option", { value: String(x.seat) }, `${x.name} (seat ${x.seat})`)));
  }
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
    const rotate = BL.facing(sk, v, S.seat, drawn);
    const svgBoard = renderBoard(drawn, {
      names: names(), onCell: turn ? pick : null, title: `${BL.gameTitle(v.game)} board at seq ${v.seq}`,
      targets: p.next, path: S.sel, marked: S.pointed ? S.pointed.cells : since.cells, ghosts: drawn ? ghostsFor(drawn) : null,
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
    if (sk && sk.legend) BL.replaceKeepingOpen($("board-legend"), sk.legend(v, ctx()));
    $("rules-link").classList.toggle("hidden", !(sk && sk.rules));
    if (sk && sk.rules) $("rules-link").href = sk.rules;
    $("players-box").classList.toggle("hidden", !(sk && sk.panels));
    if (sk && sk.panels) BL.replaceKeepingOpen($("players"), ...sk.panels(v, ctx()));
    $("details-box").classList.toggle("hidden", Boolean(sk));
    if (!sk) {
      const rest = {};
      for (const [k, val] of Object.entries(board)) if (k !== "board") rest[k] = val;
      const parts = [kvPanel(rest)];
      if (v.prompt) parts.push(el("h3", {}, "Prompt"), kvPanel(v.prompt, 0, "prompt"));
      BL.replaceKeepingOpen($("details"), ...parts);
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
    const line = $("prompt-line");
    clear(line);
    if (!s) return;
    const turn = myTurn();
    if (s.status !== "active") {
      line.textContent = `The game is ${s.status}. ${outcomeText(s, s.outcome)}`;
    } else if (turn) {
      const what = promptText();
      line.append(el("strong", {}, "Your turn"), what ? `: ${what}${/[.!?]$/.test(what) ? "" : "."}` : ".");
    } else {
      line.textContent = `Waiting for ${whoseTurn(s)}.`;
    }
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
        const cellName = (id) => {
          if (!decorated) return id;
          const cell = (decorated.board.cells || []).find((c) => String(c.id) === id);
          const o = (decorated.overlays || []).find((q) => String(q.id) === id);
          if (o) return o.label || id;
          if (!cell) return id;
          if (decorated.board.kind === "areas" && cell.name) return cell.name;
          const what = cell.pieces && cell.pieces[0] ? cell.pieces[0].label : cell.name;
          return what ? `${id} ${what}` : id;
        };
        box.append(el("span", { class: "pick-label muted" }, S.sel.length ? "then:" : done.length ? "or start at:" : "Start at:"));
        for (const id of p.next) {
          box.append(el("button", { type: "button", class: "secondary pick", "data-target": id, onclick: () => pick(id) }, cellName(id)));
        }
      }
    }
    // Waiting on the others, the prompt line says so: no empty list under it (on a phone the bar
    // over the board keeps to that one line).
    const waiting = s.status === "active" && !turn;
    $("controls").classList.toggle("waiting", waiting);
    if (!cmds.length && !waiting) box.append(el("span", { class: "muted" }, s.status === "active" ? "No legal commands for you right now." : "No more commands: the game has ended."));
    // Every legal command as a button, for those who prefer a list (and a filter when long).
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
    if (!window.BLMoves || typeof BLMoves.mount !== "function") {
      // Without the move list widget: the latest entries as plain lines (the event log below).
      const list = S.moves || [];
      clear($("moves")).append(list.length
        ? el("ol", { class: "moves-plain" }, list.map((m) => el("li", { "data-n": m.n },
          el("span", { class: "log-seq" }, `${m.n}.`), " ", m.heading ? el("b", {}, `${m.heading}: `) : null, m.text || m.notation || "")))
        : el("p", { class: "muted" }, "No moves yet."));
      return;
    }
    try {
      if (!movesMounted) {
        // Pointing at an entry of the move list marks the cells that move touched.
        BLMoves.mount($("moves"), { gid, token: S.token, summary: S.summary,
          onSelect: (entry) => { S.pointed = entry && entry.cells && entry.cells.length ? entry : null; renderView(); } });
        $("moves").addEventListener("mouseleave", () => { if (S.pointed) { S.pointed = null; renderView(); } });
        movesMounted = true;
      } else if (typeof BLMoves.refresh === "function") BLMoves.refresh();
    } catch (e) { console.error(e); }
  }

  function renderAll() {
    renderSummary();
    renderView();
    renderControls();
    renderLog();
    renderMoves();
    if (window.BLTalk) BLTalk.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary }); // talk.js
    if (window.BLConduct) BLConduct.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary, moves: S.moves, send }); // conduct.js
    if (window.BLEnd) BLEnd.update({ gid, token: S.token, role: S.role, seat: S.seat, summary: S.summary }); // end.js
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
    await Promise.all([sk && sk.ready, BL.gameTitles()]);
    lastWidth = boardWidth();
    renderAll();
  }

  /* Who the viewer is. With a token: its seat (legal answers), the admin (legal says
   * seat_required) or nobody valid (bad_token: drop it). Without one: the seat the signed-in
   * player holds here, asked of the server (the session cookie, which no script reads, is the
   * credential), else a spectator. */
  async function identify() {
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
        BL.forgetToken(gid);
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
    if (!BL.signedIn()) return; // a visitor: nobody to ask about
    let mine;
    try {
      mine = (await api(`/v1/games/${gid}/seat`)).data;
    } catch (e) {
      if (e.status === 401) BL.signedOut(); // the session ended elsewhere
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
  function offerSignIn() {
    if (BL.signedIn() || (S.summary && S.summary.imported)) return;
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
  function offerRefereeClaim() {
    if (!BL.signedIn() || !S.token || S.role !== "referee") return;
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
  async function offerSeatClaim() {
    if (!BL.signedIn() || !S.token || S.role !== "seat") return;
    let mine = null;
    try {
      mine = (await api(`/v1/games/${gid}/seat`)).data;
    } catch (e) {
      if (e.status === 401) BL.signedOut(); // the session ended elsewhere
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
    const comment = window.BLTalk ? BLTalk.comment() : null; // talk.js: a message to go with this move
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
        const mv = String(body.type || "").startsWith("boardlog.") ? null : BL.moveAt(S.moves, a);
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

  $("abort").addEventListener("click", async () => {
    if (!confirm("Abort this game for everyone? This cannot be undone.")) return;
    try {
      const { data } = await api(`/v1/games/${gid}/abort`, { method: "POST", token: S.token });
      clear($("admin-msg")).append(el("div", { class: "msg ok" }, `The game is aborted (${data.status}).`));
      refresh();
    } catch (e) {
      showError($("admin-msg"), e);
    }
  });

  $("export").addEventListener("click", async () => {
    try {
      // No token: the signed-in player's session (a cookie) is the credential.
      const resp = await fetch(`/v1/games/${gid}/export`, { headers: S.token ? { Authorization: "Bearer " + S.token } : {}, cache: "no-store" });
      if (!resp.ok) {
        const body = await resp.json().catch(() => ({}));
        const err = body.error || {};
        throw new BL.ApiError(resp.status, err.code || "http_" + resp.status, err.message || resp.statusText);
      }
      const url = URL.createObjectURL(await resp.blob());
      const a = el("a", { href: url, download: `${gid}.jsonl` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      showError(S.role === "referee" ? $("referee-msg") : $("admin-msg"), e);
    }
  });

  $("leave").addEventListener("click", async () => {
    BL.forgetToken(gid);
    if (S.role === "seat" && !S.token) {
      // The seat came with the session: forgetting it here signs this computer out.
      try {
        const { data } = await api("/v1/me");
        if (data.session) await api(`/v1/me/sessions/${encodeURIComponent(data.session)}`, { method: "DELETE" });
      } catch (e) {
        showError($("cmd-msg"), e, "Could not sign this computer out:");
        return;
      }
    }
    location.reload();
  });

  /* ---- live updates -------------------------------------------------------------------- */

  /* The game's summaries, pushed through the browser's one stream of its tabs' games
     (BL.watchGame); each new seq or status reads the page's state again. */
  function listen() {
    const live = $("live");
    BL.watchGame(gid, {
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
})();
