/* The board page: view, legal commands, notation box, log, and live updates over SSE. */
"use strict";

(() => {
  const { el, clear, api, commandId, seatChip, whoseTurn, outcomeText, statusBadge, kvPanel, renderBoard, seatLegend, logEntry } = BL;
  const $ = (id) => document.getElementById(id);

  const gid = BL.gameIdFromPath();
  // A seat link just opened (not a token kept from before): a signed-in viewer claims the seat.
  const fromLink = new URLSearchParams(location.hash.replace(/^#/, "")).has("token");
  const S = {
    token: BL.takeToken(gid),
    role: "spectator", // "seat" | "admin" | "spectator"
    seat: null,
    summary: null,
    view: null,
    legal: null,
    events: new Map(), // seq -> envelope as this viewer sees it
    loadedTo: 0, // the log is loaded up to this seq
    busy: false,
  };
  $("replay-link").href = `/games/${encodeURIComponent(gid)}/replay`;

  function showError(box, err, prefix) {
    clear(box).append(el("div", { class: "msg error" }, prefix ? prefix + " " : "", err.code ? el("code", {}, err.code) : null, err.code ? ": " : "", err.message));
  }

  /* ---- rendering ----------------------------------------------------------------------- */

  function names() {
    const out = {};
    for (const s of (S.summary && S.summary.seats) || []) out[s.seat] = s.name;
    return out;
  }

  function renderSummary() {
    const s = S.summary;
    if (!s) return;
    document.title = `${s.game} ${s.id} — boardlog`;
    $("title").textContent = `${s.game} · ${s.id}`;
    clear($("status")).append(statusBadge(s.status));
    $("turn").textContent = s.status === "active" ? whoseTurn(s) : "—";
    $("seq").textContent = String(s.seq);
    const you = $("your-seat");
    clear(you);
    if (S.role === "seat") you.append(seatChip(s, S.seat));
    else you.textContent = S.role === "admin" ? "admin (no seat)" : "spectator";
    const out = outcomeText(s, s.outcome);
    $("outcome-box").classList.toggle("hidden", !out);
    $("outcome").textContent = out;
    clear($("legend")).append(seatLegend(s));
  }

  function renderView() {
    const v = S.view;
    if (!v) return;
    const board = v.board || {};
    const onCell = S.role === "seat" ? (cell) => addToText(String(cell.id)) : null;
    clear($("board")).append(renderBoard(board.board, { names: names(), onCell, title: `${v.game} board at seq ${v.seq}` }));
    $("board-hint").textContent = "Each cell shows its id for text notation; pieces are coloured by seat." +
      (onCell ? " Click a cell to add its id to the notation box." : "");
    const rest = {};
    for (const [k, val] of Object.entries(board)) if (k !== "board") rest[k] = val;
    const parts = [kvPanel(rest)];
    if (v.prompt) parts.push(el("h3", {}, "Prompt"), kvPanel(v.prompt, 0, "prompt"));
    BL.replaceKeepingOpen($("details"), ...parts);
  }

  function addToText(id) {
    const input = $("text-command");
    input.value = input.value && !input.value.endsWith(" ") ? `${input.value} ${id}` : input.value + id;
    input.focus();
  }

  function renderControls() {
    $("controls").classList.toggle("hidden", S.role !== "seat");
    $("admin").classList.toggle("hidden", S.role !== "admin");
    $("spectator").classList.toggle("hidden", S.role !== "spectator");
    if (S.role !== "seat") return;
    const s = S.summary;
    const line = $("prompt-line");
    clear(line);
    if (!s) return;
    if (s.status !== "active") {
      line.textContent = `The game is ${s.status}. ${outcomeText(s, s.outcome)}`;
    } else if (s.prompt && s.prompt.seats.includes(S.seat)) {
      line.append(el("strong", {}, "Your turn"), `: ${s.prompt.kind}.`);
    } else {
      line.textContent = `Waiting for ${whoseTurn(s)}.`;
    }
    const box = clear($("commands"));
    const cmds = (S.legal && S.legal.commands) || [];
    $("legal-filter-box").classList.toggle("hidden", cmds.length <= 24);
    const needle = $("legal-filter").value.trim().toLowerCase();
    let shown = 0;
    for (const c of cmds) {
      const label = c.text || `${c.type} ${JSON.stringify(c.args)}`;
      if (needle && !label.toLowerCase().includes(needle)) continue;
      shown++;
      box.append(el("button", { type: "button", class: "cmd", "data-type": c.type, title: `${c.type} ${JSON.stringify(c.args)}`,
        onclick: () => send({ type: c.type, args: c.args, expect: S.legal.seq }, label) }, label));
    }
    if (!cmds.length) box.append(el("span", { class: "muted" }, s.status === "active" ? "No legal commands for you right now." : "No more commands: the game has ended."));
    else if (!shown) box.append(el("span", { class: "muted" }, "No legal command matches the filter."));
    for (const b of box.querySelectorAll("button")) b.disabled = S.busy;
    $("send-text").disabled = S.busy || s.status !== "active";
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

  function renderAll() {
    renderSummary();
    renderView();
    renderControls();
    renderLog();
  }

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
      // A long game's log runs to tens of thousands of events: start from its last 200
      // (the replay page steps through all of it).
      const head = await api(`/v1/games/${gid}`);
      S.loadedTo = Math.max(0, head.data.seq - 200);
    }
    const jobs = [
      api(`/v1/games/${gid}`),
      api(`/v1/games/${gid}/view`, { token: t }),
      api(`/v1/games/${gid}/events?from=${S.loadedTo + 1}`, { token: t }),
      S.role === "seat" ? api(`/v1/games/${gid}/legal`, { token: t }) : Promise.resolve(null),
    ];
    const [summary, view, events, legal] = await Promise.all(jobs);
    if (!S.summary || summary.data.seq >= S.summary.seq) S.summary = summary.data;
    if (!S.view || view.data.seq >= S.view.seq) S.view = view.data;
    for (const e of events.data.events) {
      S.events.set(e.seq, e);
      S.loadedTo = Math.max(S.loadedTo, e.seq);
    }
    if (legal) S.legal = legal.data;
    clear($("page-msg"));
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
        S.role = "admin";
      } else if (e.status === 401) {
        BL.forgetToken(gid);
        S.token = null;
        clear($("token-msg")).append(el("div", { class: "msg warn" },
          "The link's token is not valid for this game, so you are watching as a spectator. Check that you opened the whole private link."));
        return identifyBySession();
      } else {
        throw e;
      }
    }
    if (S.role === "seat" && fromLink) await claim();
  }

  async function identifyBySession() {
    let seat;
    try {
      seat = (await api(`/v1/games/${gid}/seat`)).data.seat;
    } catch (e) {
      if (e.status === 401 || e.status === 404) return; // not signed in, or no seat here
      throw e;
    }
    S.role = "seat";
    S.seat = seat;
    S.legal = (await api(`/v1/games/${gid}/legal`)).data;
    $("leave").textContent = "Forget me on this computer (signs it out)";
  }

  /* The seat of the link becomes the signed-in player's: a new tab, a bookmark or another
   * device then finds it by the session. Not signed in: the token alone plays, as before. */
  async function claim() {
    const box = $("token-msg");
    try {
      const { data } = await api(`/v1/games/${gid}/claim`, { method: "POST", body: { token: S.token } });
      if (data.claimed) {
        clear(box).append(el("div", { class: "msg ok" },
          "This seat is now yours: it opens on any device where you are signed in, without the link."));
      }
    } catch (e) {
      if (e.status === 401 && e.code === "sign_in_required") return;
      const text = e.code === "seat_claimed" ? "This seat belongs to another player: you can play it with this link, but it will not follow you to your other devices."
        : e.code === "already_seated" ? "You already hold another seat of this game, so this one was not added to your games."
          : null;
      if (text) clear(box).append(el("div", { class: "msg warn" }, text));
      else showError(box, e, "Could not claim this seat:");
    }
  }

  /* ---- commands ------------------------------------------------------------------------ */

  async function send(body, label) {
    if (S.busy) return;
    const msg = $("cmd-msg");
    S.busy = true;
    renderControls();
    clear(msg).append(el("div", { class: "msg info" }, `Sending ${label}…`));
    const id = commandId();
    try {
      let { status, data } = await api(`/v1/games/${gid}/commands?wait=1`, { method: "POST", token: S.token, body: { id, ...body } });
      // 202: still queued when the wait ran out; ask for the result until it is there.
      for (let i = 0; status === 202 && i < 40; i++) {
        await new Promise((r) => setTimeout(r, 500));
        ({ status, data } = await api(`/v1/games/${gid}/commands/${encodeURIComponent(id)}`));
      }
      if (status === 202) {
        clear(msg).append(el("div", { class: "msg warn" }, `${label}: still queued; the log will show it when a worker takes it.`));
      } else if (data && data.status === "accepted") {
        const [a, b] = data.seq;
        clear(msg).append(el("div", { class: "msg ok" }, `Accepted: ${label} (seq ${a === b ? a : a + "–" + b}).`));
        if (body.text !== undefined) $("text-command").value = "";
        await catchUp(b);
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
      renderControls();
    }
  }

  /* Refresh until the read model shows `seq` (the projector is a moment behind the append). */
  async function catchUp(seq) {
    for (let i = 0; i < 25; i++) {
      await refresh();
      if (S.view && S.view.seq >= seq && S.summary && S.summary.seq >= seq) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  $("text-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("text-command").value.trim();
    if (!text) {
      clear($("cmd-msg")).append(el("div", { class: "msg error" }, "Type a command first, e.g. the text of a legal command button."));
      return;
    }
    send({ text }, `“${text}”`);
  });
  $("legal-filter").addEventListener("input", renderControls);

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
      const resp = await fetch(`/v1/games/${gid}/export`, { headers: { Authorization: "Bearer " + S.token }, cache: "no-store" });
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
      showError($("admin-msg"), e);
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

  /* The browser reconnects an EventSource by itself after a dropped connection, but gives up
     for good when the reconnect gets an error answer (a 503 while Redis restarts, a 502 from a
     proxy while the API restarts): then open a new one, after 1 s doubling to 30 s. */
  let es = null;
  let retryMs = 1000;
  let leaving = false;
  function listen() {
    if (leaving) return;
    const live = $("live");
    es = new EventSource(`/v1/games/${encodeURIComponent(gid)}/stream`);
    es.addEventListener("open", () => {
      live.textContent = "live"; live.className = "live on"; retryMs = 1000; delete live.dataset.retry;
    });
    es.addEventListener("error", () => {
      live.textContent = "reconnecting…"; live.className = "live off";
      if (es.readyState === EventSource.CLOSED) {
        live.dataset.retry = String(retryMs);  // the page's own retry, after the browser gave up
        setTimeout(listen, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      }
    });
    es.addEventListener("summary", (ev) => {
      let s;
      try { s = JSON.parse(ev.data); } catch (e) { return; }
      live.textContent = "live"; live.className = "live on";
      const known = S.summary;
      if (!known || s.seq !== known.seq || s.status !== known.status || (S.view && S.view.seq < s.seq)) {
        if (!known || s.seq >= known.seq) { S.summary = s; renderSummary(); }
        refresh().catch((e) => showError($("page-msg"), e, "Could not refresh:"));
      }
    });
  }
  window.addEventListener("pagehide", () => { leaving = true; if (es) es.close(); });

  (async () => {
    try {
      await identify();
      await refresh();
      listen();
    } catch (e) {
      showError($("page-msg"), e, "Could not load the game:");
    }
  })();
})();
