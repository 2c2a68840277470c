/* The lobby: the list of games and the new-game form. */
"use strict";

(() => {
  const { el, clear, api, statusBadge, whoseTurn, outcomeText, when } = BL;
  const tbody = document.querySelector("#games tbody");
  const filter = document.getElementById("status-filter");
  const gamesMsg = document.getElementById("games-msg");
  const typeSel = document.getElementById("game-type");
  const seatsBox = document.getElementById("seats");
  const optionsBox = document.getElementById("options");
  const newMsg = document.getElementById("new-msg");
  const created = document.getElementById("created");
  const createdLinks = document.getElementById("created-links");
  const moreButton = document.getElementById("more-games");

  const EXAMPLES = {
    rite: '{"factions": ["humans", "goblins"], "map": "premade", "volcano": true}',
    factions: '{"factions": ["zyan", "zermano"]}',
    dragondale: '{"tribes": ["vikings", "celts"], "experienced": true}',
    race: '{"target": 12}',
  };

  let loading = 0;
  let next = null;  // the cursor of the page after the rows shown
  let pages = 0;

  function gameRow(g) {
    const turn = g.status === "active" ? whoseTurn(g) : outcomeText(g, g.outcome) || "—";
    return el("tr", { "data-game": g.id },
      el("td", { "data-label": "Game" }, el("a", { href: `/games/${encodeURIComponent(g.id)}`, class: "mono" }, g.id)),
      el("td", { "data-label": "Type" }, g.game),
      el("td", { "data-label": "Status" }, statusBadge(g.status)),
      el("td", { "data-label": g.status === "active" ? "Whose turn" : "Result" }, turn),
      el("td", { class: "mono", "data-label": "Seq" }, String(g.seq)),
      el("td", { "data-label": "Last activity" }, el("time", { datetime: g.updated, title: g.updated ? new Date(g.updated).toLocaleString() : "" }, when(g.updated))),
      el("td", { class: "links", "data-label": "Open" }, el("span", {},
        el("a", { href: `/games/${encodeURIComponent(g.id)}`, "aria-label": `board of ${g.id}` }, "Board"),
        el("a", { href: `/games/${encodeURIComponent(g.id)}/replay`, "aria-label": `replay of ${g.id}` }, "Replay"))));
  }

  /* The first page (more: false) or the page after the rows shown (more: true). */
  async function loadGames(more) {
    const mine = ++loading;
    const params = new URLSearchParams();
    if (filter.value) params.set("status", filter.value);
    if (more === true && next) params.set("cursor", next);
    const q = params.toString() ? "?" + params : "";
    try {
      const { data } = await api("/v1/games" + q);
      if (mine !== loading) return data;
      clear(gamesMsg);
      if (more !== true) {
        clear(tbody);
        pages = 0;
      }
      pages += 1;
      if (pages === 1 && !data.games.length) {
        tbody.append(el("tr", {}, el("td", { colspan: 7, class: "muted" }, filter.value ? `No ${filter.value} games.` : "No games yet: create one.")));
      }
      for (const g of data.games) tbody.append(gameRow(g));
      next = data.next;
      moreButton.classList.toggle("hidden", !next);
      return data;
    } catch (e) {
      clear(gamesMsg).append(el("div", { class: "msg error" }, `Could not load the games: ${e.message}`));
      return null;
    }
  }

  function seatRow(name) {
    const i = seatsBox.children.length;
    const input = el("input", { type: "text", name: "seat", value: name || "", maxlength: 40, autocomplete: "off",
      id: `seat-${i}`, placeholder: `name of seat ${i}`, "aria-label": `Seat ${i} name` });
    const remove = el("button", { type: "button", class: "secondary", "aria-label": `Remove seat ${i}` }, "Remove");
    const row = el("div", { class: "row" }, input, remove);
    remove.addEventListener("click", () => {
      if (seatsBox.children.length > 1) { row.remove(); renumber(); }
    });
    seatsBox.append(row);
    return input;
  }

  function renumber() {
    [...seatsBox.children].forEach((row, i) => {
      const input = row.querySelector("input");
      input.id = `seat-${i}`;
      input.placeholder = `name of seat ${i}`;
      input.setAttribute("aria-label", `Seat ${i} name`);
      row.querySelector("button").setAttribute("aria-label", `Remove seat ${i}`);
    });
  }

  function showTypes(types) {
    const keep = typeSel.value;
    clear(typeSel);
    for (const t of types) typeSel.append(el("option", { value: t }, t));
    if (types.includes(keep)) typeSel.value = keep;
    updateExample();
  }

  function updateExample() {
    optionsBox.placeholder = EXAMPLES[typeSel.value] ? "e.g. " + EXAMPLES[typeSel.value] : "{}";
  }

  function linkItem(label, url, extra) {
    const id = "link-" + Math.random().toString(36).slice(2);
    const input = el("input", { type: "text", readonly: true, value: url, id, class: "secret-link" });
    const copy = el("button", { type: "button", class: "secondary" }, "Copy");
    copy.addEventListener("click", async () => {
      input.select();
      try { await navigator.clipboard.writeText(url); copy.textContent = "Copied"; }
      catch (e) { document.execCommand && document.execCommand("copy"); copy.textContent = "Copied"; }
      setTimeout(() => { copy.textContent = "Copy"; }, 1500);
    });
    return el("li", extra || {}, el("label", { for: id }, label), el("div", { class: "row" }, input, copy));
  }

  async function create(ev) {
    ev.preventDefault();
    clear(newMsg);
    const seats = [...seatsBox.querySelectorAll("input")].map((i) => i.value.trim());
    if (seats.some((s) => !s)) {
      newMsg.append(el("div", { class: "msg error" }, "Every seat needs a name."));
      return;
    }
    let options = {};
    const raw = optionsBox.value.trim();
    if (raw) {
      try { options = JSON.parse(raw); } catch (e) {
        newMsg.append(el("div", { class: "msg error" }, `The options are not valid JSON: ${e.message}`));
        return;
      }
      if (!options || typeof options !== "object" || Array.isArray(options)) {
        newMsg.append(el("div", { class: "msg error" }, "The options must be a JSON object, like {\"key\": value}."));
        return;
      }
    }
    const button = document.getElementById("create");
    button.disabled = true;
    try {
      const { data } = await api("/v1/games", { method: "POST", body: { game: typeSel.value, seats, options } });
      const base = location.origin;
      clear(createdLinks);
      createdLinks.append(el("li", {}, "Game ", el("a", { href: `/games/${data.id}`, class: "mono" }, data.id),
        ` (${data.game}) — spectators can watch at `, el("a", { href: `/games/${data.id}` }, `${base}/games/${data.id}`)));
      for (const s of data.seats) {
        createdLinks.append(linkItem(`Seat ${s.seat}: ${s.name}`, `${base}/games/${data.id}#token=${s.token}`, { "data-seat": s.seat }));
      }
      createdLinks.append(linkItem("Admin link (abort, full log, export)", `${base}/games/${data.id}#token=${data.admin_token}`, { "data-admin": "1" }));
      created.classList.remove("hidden");
      created.focus();
      // The list is a projection, a moment behind the creation: look again until the game is in it.
      for (let i = 0; i < 20; i++) {
        const listed = await loadGames();
        if (!listed || listed.games.some((g) => g.id === data.id) || filter.value === "over" || filter.value === "aborted") break;
        await new Promise((r) => setTimeout(r, 250));
      }
    } catch (e) {
      newMsg.append(el("div", { class: "msg error" }, el("code", {}, e.code), " ", e.message));
    } finally {
      button.disabled = false;
    }
  }

  document.getElementById("add-seat").addEventListener("click", () => seatRow("").focus());
  document.getElementById("refresh").addEventListener("click", () => loadGames());
  moreButton.addEventListener("click", () => loadGames(true));
  document.getElementById("new-form").addEventListener("submit", create);
  filter.addEventListener("change", () => {
    const u = new URL(location.href);
    if (filter.value) u.searchParams.set("status", filter.value); else u.searchParams.delete("status");
    history.replaceState(null, "", u);
    loadGames();
  });
  typeSel.addEventListener("change", updateExample);

  const initial = new URLSearchParams(location.search).get("status");
  if (initial && [...filter.options].some((o) => o.value === initial)) filter.value = initial;
  seatRow("");
  seatRow("");
  loadGames().then((data) => { if (data) showTypes(data.types); });
  // ... and not while someone is moving through it with the keyboard.
  // Keep the first page fresh (not once older pages are shown: that would drop them).
  setInterval(() => { if (!document.hidden && pages <= 1 && !tbody.contains(document.activeElement)) loadGames(); }, 15000);
})();
