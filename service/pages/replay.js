/* The replay stepper: the view at any seq, the log with the current event highlighted, the audit. */
"use strict";

(() => {
  const { el, clear, api, statusBadge, kvPanel, renderBoard, seatLegend, logEntry, outcomeText, describeEvent } = BL;
  const $ = (id) => document.getElementById(id);

  const gid = BL.gameIdFromPath();
  const S = { token: BL.takeToken(gid), summary: null, head: 1, at: 1, events: new Map(), viewSeq: 0 };
  const slider = $("slider");

  $("board-link").href = `/games/${encodeURIComponent(gid)}`;
  $("audit-link").href = `/v1/games/${encodeURIComponent(gid)}/audit`;
  $("export-link").href = `/v1/games/${encodeURIComponent(gid)}/export`;

  function names() {
    const out = {};
    for (const s of (S.summary && S.summary.seats) || []) out[s.seat] = s.name;
    return out;
  }

  function showError(box, e, prefix) {
    clear(box).append(el("div", { class: "msg error" }, prefix ? prefix + " " : "", e.code ? el("code", {}, e.code) : null, e.code ? ": " : "", e.message));
  }

  /* ---- the stepper --------------------------------------------------------------------- */

  function clamp(n) { return Math.max(1, Math.min(S.head, n)); }

  let asked = 0;
  async function go(n, { focusLog = false } = {}) {
    n = clamp(Math.round(n));
    S.at = n;
    slider.value = String(n);
    $("at-out").textContent = `seq ${n} of ${S.head}`;
    $("first").disabled = $("prev").disabled = n <= 1;
    $("next").disabled = $("last").disabled = n >= S.head;
    const u = new URL(location.href);
    u.searchParams.set("at", String(n));
    u.hash = "";
    history.replaceState(null, "", u.pathname + u.search);
    highlight(focusLog);
    const mine = ++asked;
    try {
      const { data } = await api(`/v1/games/${gid}/view?at=${n}`, { token: S.token });
      if (mine !== asked) return; // a later step has been asked for meanwhile
      renderView(data);
    } catch (e) {
      if (mine !== asked) return;
      if (e.status === 401 && S.token) {
        BL.forgetToken(gid);
        S.token = null;
        clear($("page-msg")).append(el("div", { class: "msg warn" }, "The link's token is not valid for this game: showing the public view."));
        go(n);
        return;
      }
      showError($("page-msg"), e, "Could not load this position:");
    }
  }

  function renderView(v) {
    S.viewSeq = v.seq;
    const board = v.board || {};
    clear($("board")).append(renderBoard(board.board, { names: names(), title: `${v.game} board at seq ${v.seq}` }));
    $("board").setAttribute("data-seq", String(v.seq));
    clear($("status")).append(statusBadge(v.status));
    const s = S.summary;
    $("turn").textContent = v.prompt ? `${v.prompt.seats.map((q) => BL.seatName(s, q)).join(", ")} (${v.prompt.kind})` : "—";
    const out = outcomeText(s, v.outcome);
    $("outcome-box").classList.toggle("hidden", !out);
    $("outcome").textContent = out;
    const rest = {};
    for (const [k, val] of Object.entries(board)) if (k !== "board") rest[k] = val;
    const parts = [kvPanel(rest)];
    if (v.prompt) parts.push(el("h3", {}, "Prompt"), kvPanel(v.prompt, 0, "prompt"));
    BL.replaceKeepingOpen($("details"), ...parts);
    $("viewer").textContent = v.seat === null || v.seat === undefined
      ? "Showing the public view (what spectators see)."
      : `Showing the view of ${BL.seatName(s, v.seat)} (seat ${v.seat}), from your seat link.`;
  }

  function highlight(focusLog) {
    const list = $("log");
    let current = null;
    for (const li of list.children) {
      const q = Number(li.dataset.seq);
      li.classList.toggle("current", q === S.at);
      li.classList.toggle("future", q > S.at);
      if (q === S.at) { current = li; li.setAttribute("aria-current", "step"); } else li.removeAttribute("aria-current");
    }
    const e = S.events.get(S.at);
    const line = $("step-event");
    if (e) {
      const d = describeEvent(S.summary, e);
      line.textContent = `#${S.at}: ${d.who ? d.who + " — " : ""}${d.what}`;
    } else {
      line.textContent = `#${S.at}: (this event is hidden from you)`;
    }
    if (current) {
      // Scroll the log box only, never the whole page.
      const top = current.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
      if (focusLog) current.querySelector("button").focus();
    }
  }

  function renderLog() {
    const list = clear($("log"));
    const seqs = [...S.events.keys()].sort((a, b) => a - b);
    for (const q of seqs) {
      const li = logEntry(S.summary, S.events.get(q));
      // The seq is a button (keyboard, screen readers); a click anywhere on the row also jumps.
      const seqLabel = li.querySelector(".log-seq");
      const jump = el("button", { type: "button", class: "log-seq linklike", "aria-label": `Go to seq ${q}` }, `#${q}`);
      seqLabel.replaceWith(jump);
      li.addEventListener("click", () => go(q));
      list.append(li);
    }
  }

  async function loadEvents(from) {
    const { data } = await api(`/v1/games/${gid}/events?from=${from}`, { token: S.token });
    for (const e of data.events) S.events.set(e.seq, e);
  }

  /* ---- the audit ----------------------------------------------------------------------- */

  async function audit() {
    const badge = $("audit-badge");
    badge.className = "badge audit-badge audit-wait";
    badge.textContent = "checking…";
    try {
      const { data } = await api(`/v1/games/${gid}/audit`);
      badge.className = `badge audit-badge ${data.ok ? "audit-ok" : "audit-fail"}`;
      badge.textContent = data.ok ? "OK" : (data.seq ? `FAIL at seq ${data.seq}` : "FAIL");
      $("audit-reason").textContent = data.reason || (data.ok ? "the record checks out" : "");
      $("audit-more").textContent = `${data.events} events; checked: ${(data.checked || []).join(", ") || "nothing"}.`;
    } catch (e) {
      badge.className = "badge audit-badge audit-fail";
      badge.textContent = "unavailable";
      $("audit-reason").textContent = e.message;
    }
  }

  /* ---- wiring -------------------------------------------------------------------------- */

  $("first").addEventListener("click", () => go(1));
  $("prev").addEventListener("click", () => go(S.at - 1));
  $("next").addEventListener("click", () => go(S.at + 1));
  $("last").addEventListener("click", () => go(S.head));
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("audit-again").addEventListener("click", audit);
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t === slider || (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable))) return;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const step = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
    const inLog = t && t.closest && t.closest("#log");
    if (step !== undefined) { ev.preventDefault(); go(S.at + step, { focusLog: Boolean(inLog) }); }
    else if (ev.key === "Home") { ev.preventDefault(); go(1, { focusLog: Boolean(inLog) }); }
    else if (ev.key === "End") { ev.preventDefault(); go(S.head, { focusLog: Boolean(inLog) }); }
  });

  function setHead(head) {
    S.head = Math.max(1, head);
    slider.max = String(S.head);
  }

  function listen() {
    const es = new EventSource(`/v1/games/${encodeURIComponent(gid)}/stream`);
    es.addEventListener("summary", async (ev) => {
      let s;
      try { s = JSON.parse(ev.data); } catch (e) { return; }
      if (!S.summary || s.seq <= S.head) return;
      const wasLast = S.at === S.head;
      const from = S.head + 1;
      S.summary = s;
      setHead(s.seq);
      try { await loadEvents(from); } catch (e) { return; }
      renderLog();
      if (s.status !== "active") { $("export-link").classList.remove("hidden"); audit(); }
      go(wasLast ? S.head : S.at);
    });
    window.addEventListener("pagehide", () => es.close());
  }

  (async () => {
    try {
      const { data } = await api(`/v1/games/${gid}`);
      S.summary = data;
      document.title = `Replay ${data.game} ${data.id} — boardlog`;
      $("title").textContent = `Replay · ${data.game} · ${data.id}`;
      clear($("legend")).append(seatLegend(data));
      setHead(data.seq);
      $("export-link").classList.toggle("hidden", data.status === "active");
      try { await loadEvents(1); } catch (e) {
        if (e.status === 401 && S.token) { BL.forgetToken(gid); S.token = null; await loadEvents(1); } else throw e;
      }
      renderLog();
      const want = Number(new URLSearchParams(location.search).get("at"));
      await go(Number.isFinite(want) && want >= 1 ? want : S.head);
      audit();
      listen();
    } catch (e) {
      showError($("page-msg"), e, "Could not load the game:");
    }
  })();
})();
