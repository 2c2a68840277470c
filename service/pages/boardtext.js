/* "Board as text" (issue #40): the position as the viewer may see it, in words, in a <pre> a
 * screen reader reads line by line and anyone can copy into a forum post. The text is
 * GET /v1/games/{gid}/view.txt, the very text the turn mail holds (one server function per game,
 * rules/<game>/textboard.py), so the page never words the board otherwise.
 *
 * An ES module. The board page's hook is one placeholder (<div id="board-text">) and one call
 * after each render: import("/static/boardtext.js").then((m) => m.update({ gid, token, seq })).
 * The text is fetched only while the fold is open (and again when the seq moves on). */

const PATH = (gid) => `/v1/games/${encodeURIComponent(gid)}/view.txt`;

const state = { gid: null, token: null, seq: 0, shown: -1, loading: null };

function build(home) {
  home.innerHTML = "";
  const box = document.createElement("details");
  box.id = "board-text-box";
  box.className = "board-text";
  const summary = document.createElement("summary");
  summary.textContent = "Board as text";
  const hint = document.createElement("p");
  hint.className = "hint";
  hint.textContent = "The position as you may see it, in words: for a screen reader, or to copy into a forum post.";
  const row = document.createElement("div");
  row.className = "row";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "secondary small";
  copy.id = "board-text-copy";
  copy.textContent = "Copy the text";
  const said = document.createElement("span");
  said.id = "board-text-status";
  said.className = "hint";
  said.setAttribute("role", "status");
  row.append(copy, said);
  const pre = document.createElement("pre");
  pre.id = "board-text-pre";
  pre.className = "board-text-pre";
  pre.tabIndex = 0; // a keyboard reaches it, to scroll and to select
  pre.setAttribute("aria-label", "The board as text");
  box.append(summary, hint, row, pre);
  home.append(box);
  box.addEventListener("toggle", () => { if (box.open) load(); });
  copy.addEventListener("click", () => copyText(pre, said));
  return box;
}

async function copyText(pre, said) {
  try {
    await navigator.clipboard.writeText(pre.textContent);
    said.textContent = "Copied.";
  } catch (e) {
    // No clipboard (plain http off localhost): select the text, so the reader copies it by hand.
    const range = document.createRange();
    range.selectNodeContents(pre);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    said.textContent = "Selected: copy it with your keyboard or menu.";
  }
}

async function load() {
  const box = document.getElementById("board-text-box");
  if (!box || !box.open || !state.gid || state.shown === state.seq) return;
  if (state.loading) return;
  const seq = state.seq;
  const pre = document.getElementById("board-text-pre");
  const said = document.getElementById("board-text-status");
  state.loading = (async () => {
    try {
      const headers = { Accept: "text/plain" };
      if (state.token) headers.Authorization = "Bearer " + state.token;
      const resp = await fetch(PATH(state.gid) + (seq ? `?min_seq=${seq}` : ""), { headers, cache: "no-store" });
      const body = await resp.text();
      if (!resp.ok) {
        let message = `${resp.status} ${resp.statusText}`;
        try { message = JSON.parse(body).error.message || message; } catch (e) { /* not JSON: the status says it */ }
        said.textContent = "The text could not be loaded: " + message;
        return;
      }
      pre.textContent = body;
      said.textContent = "";
      state.shown = seq;
    } catch (e) {
      said.textContent = "The server could not be reached: " + e.message;
    } finally {
      state.loading = null;
    }
    if (state.shown !== state.seq) load(); // the board moved on while this one loaded
  })();
}

/* Called by the board page after each render: the game, the viewer's seat token (null: the
 * session cookie or a spectator) and the seq of the view on screen. */
export function update({ gid, token = null, seq = 0 }) {
  const home = document.getElementById("board-text");
  if (!home) return;
  if (!document.getElementById("board-text-box")) build(home);
  if (gid !== state.gid || token !== state.token) state.shown = -1;
  Object.assign(state, { gid, token, seq });
  load();
}
