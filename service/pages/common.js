/* boardlog pages: shared helpers (API calls, seat tokens, board SVG, key/value panels).
 * Plain browser JavaScript, no build step. Everything from the server is put into the
 * page as text (textContent / setAttribute), never as HTML.
 */
"use strict";

const BL = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  // Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. The one place
  // the seat colours are defined (pages and styles take them from here: BL.SEAT_COLOURS,
  // BL.seatColour); each one's label colour is textOn's, checked at 4.5:1 by tests/browser/test_traps.py.
  const SEAT_COLOURS = Object.freeze(["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#444444"]);

  /* ---- small DOM helpers ------------------------------------------------------------ */

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, String(v));
    }
    for (const c of children.flat(Infinity)) if (c) node.append(c);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  /* ---- the game id and the seat token ------------------------------------------------ */

  function gameIdFromPath() {
    const m = location.pathname.match(/^\/games\/([^/]+)/);
    return m ? decodeURIComponent(m[1]) : null;
  }

  const tokenKey = (gid) => `boardlog.token.${gid}`;

  /* The seat (or admin) token: taken from `#token=` once, kept in sessionStorage for this
   * tab, and removed from the address bar so that a copied or shared URL never carries it.
   * It is only ever sent in the Authorization header. */
  function takeToken(gid) {
    const frag = new URLSearchParams(location.hash.replace(/^#/, ""));
    const fromHash = frag.get("token");
    if (fromHash) {
      try { sessionStorage.setItem(tokenKey(gid), fromHash); } catch (e) { /* storage off */ }
      frag.delete("token");
      const rest = frag.toString();
      history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
      return fromHash;
    }
    try { return sessionStorage.getItem(tokenKey(gid)); } catch (e) { return null; }
  }

  function forgetToken(gid) {
    try { sessionStorage.removeItem(tokenKey(gid)); } catch (e) { /* storage off */ }
  }

  /* ---- the API ----------------------------------------------------------------------- */

  class ApiError extends Error {
    constructor(status, code, message, body) {
      super(message);
      this.status = status;
      this.code = code;
      this.body = body;
    }
  }

  /* Whether this browser is signed in: the session cookie is HttpOnly, so the service sets a
   * readable hint beside it (no secret in it). Without it a page does not ask /v1/me, whose 401
   * would be an error in every visitor's console; a 401 there forgets it. */
  const SIGNED_IN = "boardlog_signed_in";
  function signedIn() { return document.cookie.split("; ").some((c) => c.startsWith(SIGNED_IN + "=")); }
  function signedOut() { document.cookie = `${SIGNED_IN}=; Max-Age=0; path=/; SameSite=Lax`; }
  const NOT_SIGNED_IN = () => new ApiError(401, "sign_in_required", "This browser is not signed in: sign in first.", null);
  const asksMe = (path, token) => !token && (path === "/v1/me" || path.startsWith("/v1/me/") || path.startsWith("/v1/me?"));

  /* fetch JSON; throws ApiError carrying the API's {"error": {code, message}} (or a
   * command result's {status, code, message}) for any non-2xx answer. */
  /* `anonymous`: ask as a visitor would, the session cookie left out (a signed-in player who
   * chose the public view must get the public view, not their seat's). */
  async function api(path, { method = "GET", token = null, body = undefined, anonymous = false } = {}) {
    if (asksMe(path, token) && !signedIn()) throw NOT_SIGNED_IN();
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    try {
      resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
        credentials: anonymous ? "omit" : "same-origin" });
    } catch (e) {
      throw new ApiError(0, "network", "The server could not be reached: " + e.message, null);
    }
    let data = null;
    const text = await resp.text();
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = null; }
    }
    if (!resp.ok) {
      if (resp.status === 401 && asksMe(path, token)) signedOut();
      const err = (data && data.error) || data || {};
      throw new ApiError(resp.status, err.code || "http_" + resp.status,
        err.message || `${resp.status} ${resp.statusText}`, data);
    }
    return { status: resp.status, data };
  }

  /* A command id: crypto.randomUUID where the page is a secure context, else a v4 uuid
   * from getRandomValues (plain http on a LAN address is not a secure context). */
  function commandId() {
    if (window.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /* ---- formatting -------------------------------------------------------------------- */

  function seatColour(seat) {
    if (seat === null || seat === undefined || seat < 0 || !Number.isInteger(seat)) return "#9aa0a6";
    return SEAT_COLOURS[seat % SEAT_COLOURS.length];
  }

  /* WCAG 2's relative luminance of a #rrggbb colour. */
  function luminance(hex) {
    const n = parseInt(hex.slice(1), 16);
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  }

  /* The label colour for text on `hex`: of white and near-black, the one with the higher
   * contrast. A fixed luminance threshold (0.23) put white on vermillion (#D55E00) at 3.87:1,
   * under WCAG's 4.5:1, where near-black reaches 4.88:1 (issue #40). */
  function textOn(hex) {
    if (!/^#[0-9a-f]{6}$/i.test(hex || "")) return "#111111";
    const L = luminance(hex);
    const onWhite = 1.05 / (L + 0.05), onDark = (L + 0.05) / (luminance("#111111") + 0.05);
    return onDark >= onWhite ? "#111111" : "#ffffff";
  }

  function seatName(summary, seat) {
    const s = summary && summary.seats ? summary.seats.find((x) => x.seat === seat) : null;
    return s ? s.name : `seat ${seat}`;
  }

  function seatChip(summary, seat) {
    const colour = seatColour(seat);
    return el("span", { class: "seat-chip", title: `seat ${seat}` },
      el("span", { class: "swatch", style: `background:${colour}`, "aria-hidden": "true" }),
      `${seatName(summary, seat)} (seat ${seat})`);
  }

  /* The move list entry of the command logged at `seq` (its CommandAccepted), among `moves`
     (a page of GET .../moves); null when the page does not hold it. */
  function moveAt(moves, seq) {
    return (moves || []).find((e) => e.move && e.seq_from === seq) || null;
  }

  /* Who is to act and what the game asks of them, as anyone may read it ("bob (Goblins): take an
     action, use a power or pass (round 2)"); a summary projected before it carried the text
     gives the seats and the prompt's kind. */
  function whoseTurn(summary) {
    if (!summary || !summary.prompt) return "—";
    const text = summary.prompt.text;
    if (text) return String(text).replace(/\.$/, "");
    const names = summary.prompt.seats.map((s) => seatName(summary, s));
    const kind = String(summary.prompt.kind || "").replace(/_/g, " ");
    return names.length ? `${names.join(", ")} (${kind})` : kind;
  }

  function outcomeText(summary, outcome) {
    if (!outcome) return "";
    const winners = (outcome.winners || []).map((s) => seatName(summary, s));
    let out = winners.length ? `Won by ${winners.join(", ")}` : "No winner";
    if (outcome.scores && outcome.scores.length) {
      out += "; scores " + outcome.scores.map((v, i) => `${seatName(summary, i)} ${v}`).join(", ");
    }
    if (outcome.reason) out += ` (${outcome.reason})`;
    return out;
  }

  function when(iso) {
    if (!iso) return "";
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return iso;
    const s = Math.round((Date.now() - t) / 1000);
    if (s < 5) return "just now";
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return `${Math.floor(s / 86400)} d ago`;
  }

  function statusBadge(status) {
    return el("span", { class: `badge status-${status}` }, status);
  }

  /* A JSON value as compact readable text (for log lines and small values). */
  function compact(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v !== "object") return String(v);
    return JSON.stringify(v);
  }

  /* ---- key/value panel ----------------------------------------------------------------- */

  function isPlain(v) { return v === null || typeof v !== "object"; }

  /* Nested data as readable HTML: objects as definition lists, arrays of objects with
   * shared keys as tables, arrays of plain values as comma lists. */
  function kvPanel(value, depth = 0, path = "") {
    if (isPlain(value)) return el("span", { class: "kv-value" }, value === null ? "—" : String(value));
    if (Array.isArray(value)) {
      if (value.length === 0) return el("span", { class: "kv-value muted" }, "none");
      if (value.every(isPlain)) return el("span", { class: "kv-value" }, value.map((v) => (v === null ? "—" : String(v))).join(", "));
      const objects = value.every((v) => v && typeof v === "object" && !Array.isArray(v));
      if (objects && depth < 4) {
        const cols = [];
        for (const row of value) for (const k of Object.keys(row)) if (!cols.includes(k)) cols.push(k);
        // A table when every cell is short and plain; else one collapsible block per item.
        const simple = (v) => isPlain(v) ? String(v).length <= 40
          : Array.isArray(v) && v.every(isPlain) && v.join(", ").length <= 60;
        if (cols.length <= 10 && value.every((row) => Object.values(row).every(simple))) {
          const show = (v) => v === undefined ? "" : v === null ? "—" : Array.isArray(v) ? (v.length ? v.join(", ") : "none") : String(v);
          return el("div", { class: "table-wrap" }, el("table", { class: "kv-table" },
            el("thead", {}, el("tr", {}, cols.map((c) => el("th", { scope: "col" }, c)))),
            el("tbody", {}, value.map((row) => el("tr", {}, cols.map((c) => el("td", {}, show(row[c]))))))));
        }
        return el("div", { class: "kv-items" }, value.map((row, i) => {
          const name = ["name", "id", "tribe", "faction", "seat"].filter((k) => k in row && isPlain(row[k])).map((k) => `${k} ${row[k]}`)[0];
          return el("details", { class: "kv-item", open: value.length <= 2 ? true : null, "data-key": `${path}[${i}]` },
            el("summary", {}, `#${i}${name ? " — " + name : ""}`), kvPanel(row, depth + 1, `${path}[${i}]`));
        }));
      }
      return el("span", { class: "kv-value mono" }, JSON.stringify(value));
    }
    const keys = Object.keys(value);
    if (keys.length === 0) return el("span", { class: "kv-value muted" }, "none");
    if (depth >= 4) return el("span", { class: "kv-value mono" }, JSON.stringify(value));
    return el("dl", { class: "kv" }, keys.map((k) => [el("dt", {}, k), el("dd", {}, kvPanel(value[k], depth + 1, `${path}.${k}`))]));
  }

  /* Replace a container's content, keeping which collapsible blocks the reader opened or closed. */
  function replaceKeepingOpen(container, ...nodes) {
    const was = new Map([...container.querySelectorAll("details[data-key]")].map((d) => [d.dataset.key, d.open]));
    clear(container).append(...nodes);
    for (const d of container.querySelectorAll("details[data-key]")) {
      if (was.has(d.dataset.key)) d.open = was.get(d.dataset.key);
    }
  }

  /* ---- the board as SVG ---------------------------------------------------------------- */

  const SQ3 = Math.sqrt(3);

  function nearestDistance(points) {
    let best = Infinity;
    for (let i = 0; i < points.length; i++) {
      for (let j = i + 1; j < points.length; j++) {
        const d = Math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]);
        if (d > 1e-6 && d < best) best = d;
      }
    }
    return Number.isFinite(best) ? best : 1;
  }

  /* Cell centres in pixels and a shape for each kind of board.
   * - grid: x, y are column and row; one unit is one square.
   * - hex: whole-number x, y are axial (q, r); otherwise x, y are already a plane layout
   *   (e.g. q + r/2, r * 0.866) and the nearest-neighbour distance is one hex. Pointy-top
   *   unless the board says "orientation": "flat" or the neighbours sit above each other.
   * - areas: x, y are a plane layout; areas are circles, joined by the edges. */
  function layout(board) {
    const cells = (board.cells || []).filter((c) => Number.isFinite(c.x) && Number.isFinite(c.y));
    const kind = board.kind;
    const out = { kind, cells: [], unit: 64 };
    if (cells.length === 0) return out;
    let pts = cells.map((c) => [c.x, c.y]);
    let flat = board.orientation === "flat";
    if (kind === "hex") {
      const axial = cells.every((c) => Number.isInteger(c.x) && Number.isInteger(c.y));
      if (axial) {
        pts = flat ? cells.map((c) => [c.x * SQ3 / 2, c.y + c.x / 2]) : cells.map((c) => [c.x + c.y / 2, c.y * SQ3 / 2]);
      }
      const d = nearestDistance(pts);
      pts = pts.map(([x, y]) => [x / d, y / d]);
      if (!axial && board.orientation !== "flat" && board.orientation !== "pointy") {
        // Neighbours straight above each other and none side by side: flat-top hexes.
        let side = false, above = false;
        for (let i = 0; i < pts.length && !side; i++) {
          for (let j = i + 1; j < pts.length; j++) {
            const dx = Math.abs(pts[i][0] - pts[j][0]), dy = Math.abs(pts[i][1] - pts[j][1]);
            if (Math.abs(Math.hypot(dx, dy) - 1) > 0.08) continue;
            if (dy < 0.08) { side = true; break; }
            if (dx < 0.08) above = true;
          }
        }
        flat = above && !side;
      }
      const S = 72; // distance between neighbouring centres, px
      out.unit = S;
      out.radius = S / SQ3; // corner radius so that neighbours share an edge
      out.flat = flat;
    } else if (kind === "areas") {
      const d = nearestDistance(pts);
      pts = pts.map(([x, y]) => [x / d, y / d]);
      out.unit = 130;
      out.radius = 130 * 0.45;
    } else {
      out.unit = 64;
    }
    out.cells = cells.map((c, i) => ({ cell: c, cx: pts[i][0] * out.unit, cy: pts[i][1] * out.unit }));
    return out;
  }

  function hexPoints(cx, cy, r, flat) {
    const pts = [];
    for (let k = 0; k < 6; k++) {
      const a = (Math.PI / 180) * (60 * k + (flat ? 0 : 30));
      pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
    }
    return pts.join(" ");
  }

  function safeFill(fill, fallback) {
    if (typeof fill !== "string" || !fill.trim()) return fallback;
    return /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([\d\s.,%]+\)|hsla?\([\d\s.,%deg]+\))$/i.test(fill.trim()) ? fill.trim() : fallback;
  }

  /* Text that fits `room` (viewBox units): one line, else two lines split at a space, else
   * squeezed to the room (the whole text is kept: nothing is cut off). */
  const CHAR_W = 0.58; // average glyph width of the system sans-serif, in ems
  // A cell's name is drawn at weight 600, wider: "Mana Pool" took 64 px of a 60 px square.
  const NAME_W = 0.64;
  // A name a little too long is drawn squeezed on one line; a longer one, on two.
  const SQUEEZE = 1.12;
  const nameWidth = (s, fs) => s.length * NAME_W * fs;
  function nameLines(str, fs, room) {
    return !str ? 0 : nameWidth(str, fs) <= room * SQUEEZE || !str.includes(" ") ? 1 : 2;
  }
  function fitText(x, y, str, fs, room, attrs = {}) {
    const g = svg("g", {});
    const line = (s, yy) => {
      const t = svg("text", { x: x.toFixed(1), y: yy.toFixed(1), "font-size": fs.toFixed(1), "text-anchor": "middle", ...attrs, text: s });
      if (nameWidth(s, fs) > room) { t.setAttribute("textLength", room.toFixed(1)); t.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
      return t;
    };
    if (nameLines(str, fs, room) === 1) { g.append(line(str, y)); return g; }
    const words = str.split(" ");
    let best = 1, bestW = Infinity;
    for (let k = 1; k < words.length; k++) {
      const w = Math.max(words.slice(0, k).join(" ").length, words.slice(k).join(" ").length);
      if (w < bestW) { bestW = w; best = k; }
    }
    g.append(line(words.slice(0, best).join(" "), y - fs * 0.55), line(words.slice(best).join(" "), y + fs * 0.55));
    return g;
  }

  /* Tokens for the pieces of one cell, in up to `maxRows` rows inside a box centred on
   * (cx, cy) (`above`: the box's bottom edge there). A piece is {label, owner, title, fill, ink,
   * square, dashed, ghost, count}; when they do not all fit, the last token says how many more
   * there are (every piece is still listed in the cell's tooltip). */
  // An area's tokens are a little flatter than a tile's: three rows fit between its id and name.
  const AREA_PAD = 4;
  // A phone's area is a circle with little room above its name: its tokens hug their text.
  const BARE_PAD = 1;

  function pieceTokens(pieces, cx, cy, width, names, maxRows = 2, fs = 11, pad = 6, above = false) {
    const g = svg("g", { class: "pieces" });
    if (!pieces || !pieces.length) return g;
    const h = fs + pad, gap = 2, charW = CHAR_W * fs;
    const items = pieces.map((p) => {
      let label = p.label === undefined || p.label === null ? "" : String(p.label);
      if (p.count > 1) label += ` ×${p.count}`;
      return { p, label, w: Math.max(h, Math.min(width, label.length * charW + 8)) };
    });
    const rows = [[]];
    const widths = [0];
    for (const it of items) {
      const r = rows.length - 1;
      if (rows[r].length && widths[r] + gap + it.w > width) { rows.push([]); widths.push(0); }
      const k = rows.length - 1;
      rows[k].push(it);
      widths[k] += (rows[k].length > 1 ? gap : 0) + it.w;
    }
    // Past the last row, the tokens left over go in it squeezed (their text narrowed with them,
    // to no less than 0.75 of its width) when they fit so; else the last row ends in a "+n"
    // token (or the one token left), the tokens before it squeezed down to a circle (a camp's
    // lone "Warriors ×3") to leave it room.
    const span = (row, least) => row.reduce((a, it) => a + least(it), 0) + gap * (row.length - 1);
    const legible = (it) => Math.max(h, 0.75 * it.w);
    let shown = rows;
    if (rows.length > maxRows) {
      shown = rows.slice(0, maxRows - 1);
      const tail = rows.slice(maxRows - 1).flat();
      if (span(tail, legible) <= width) {
        shown.push(tail);
      } else {
        const last = [...rows[maxRows - 1]];
        const more = `+${items.length}`; // as wide as the widest count can be
        const moreW = Math.max(h, more.length * charW + 8);
        while (last.length > 1 && span(last, () => h) + gap + moreW > width) last.pop();
        shown.push(last);
        const count = items.length - shown.reduce((a, r) => a + r.length, 0);
        // One token left over takes the room its "+1" would, itself: a "+1" in place of a tree
        // or a rune stone says less in as much room.
        last.push(count === 1 ? { ...items[items.length - 1] } : { more: true, label: `+${count}`, w: moreW, least: h });
        for (const it of last) it.least = h;
      }
      for (const row of shown) {
        const over = span(row, (it) => it.w) - width;
        const give = row.reduce((a, it) => a + it.w - (it.least || legible(it)), 0);
        if (over > 0 && give > 0) {
          const k = Math.min(1, over / give);
          for (let i = 0; i < row.length; i++) row[i] = { ...row[i], w: row[i].w - (row[i].w - (row[i].least || legible(row[i]))) * k };
        }
      }
    }
    const height = shown.length * h + (shown.length - 1) * gap;
    let y = above ? cy - height : cy - height / 2;
    for (const row of shown) {
      const rw = row.reduce((a, it) => a + it.w, 0) + gap * (row.length - 1);
      let x = cx - rw / 2;
      for (const it of row) {
        const p = it.p || {};
        const owner = !it.more && Number.isInteger(p.owner) ? p.owner : null;
        const colour = it.more ? "#ffffff" : safeFill(p.fill, seatColour(owner));
        const who = owner === null ? "" : ` (${(names && names[owner]) || `seat ${owner}`})`;
        const tip = it.more ? `${it.label} more pieces: see the cell's tooltip` : (p.title || `${it.label}${who}`);
        const cls = it.more ? "piece more" : `piece${p.ghost ? " ghost" : ""}`;
        g.append(svg("g", { class: cls, "data-owner": owner === null ? "" : owner, "data-label": it.label },
          svg("title", { text: p.ghost ? `Removed since your last move: ${tip}` : tip }),
          svg("rect", { x: x.toFixed(1), y: y.toFixed(1), width: it.w.toFixed(1), height: h, rx: p.square ? 3 : h / 2,
            fill: colour, stroke: p.stroke || "#111", "stroke-width": p.stroke ? 2.5 : 1,
            "stroke-dasharray": it.more || p.dashed || p.ghost ? "4 2" : null }),
          svg("text", { x: (x + it.w / 2).toFixed(1), y: (y + h / 2 + fs * 0.36).toFixed(1), "text-anchor": "middle",
            class: "piece-label", "font-size": fs.toFixed(1), fill: p.ink || textOn(colour), text: it.label,
            textLength: it.label.length * charW > it.w - 6 ? (it.w - 6).toFixed(1) : null,
            lengthAdjust: it.label.length * charW > it.w - 6 ? "spacingAndGlyphs" : null })));
        x += it.w + gap;
      }
      y += h + gap;
    }
    return g;
  }

  /* How far to turn a drawn board (0 or 180 degrees) so that a seat's home (the skin's `home`
   * cells) is at the bottom, as a player sits at the table; 0 for a spectator. */
  function facing(sk, view, seat, drawn) {
    if (!sk || !sk.home || seat === null || seat === undefined || !drawn || !Array.isArray(drawn.cells)) return 0;
    const homes = new Set(sk.home(view, seat).map(String));
    const cells = drawn.cells.filter((c) => Number.isFinite(c.y));
    const ys = cells.map((c) => c.y);
    const mid = (Math.min(...ys) + Math.max(...ys)) / 2;
    const mine = cells.filter((c) => homes.has(String(c.id)));
    return mine.length && mine.reduce((a, c) => a + c.y, 0) / mine.length < mid - 1e-6 ? 180 : 0;
  }

  /* The board {"kind", "cells": [{id, x, y, label, fill, pieces}], "edges"} as an SVG. A game's
   * skin (board-<game>.js) may give each cell a readable `name`, a `mark` (a glyph), a `tip`, a
   * `ring` colour, on a grid a `span` [columns, rows] for a cell drawn wider or taller than one
   * square (centred on its x, y), and each piece a title and shape; `overlays` are extra clickable shapes over
   * groups of cells (e.g. the set-up spots of Factions). Options:
   *   onCell(id)  called when a target is activated (click, Enter or Space);
   *   targets     ids that may be chosen now (highlighted, and the only ones in the tab order);
   *   path        ids chosen so far (numbered); marked: ids the last move touched;
   *   ghosts      {cell id: [pieces]} removed since the viewer's last move, drawn faded;
   *   fit         the width in px the board may take: text is sized so that none is drawn
   *               under `minFont` px at that width; rotate: 0 or 180 (the viewer's side down);
   *   onInfo(id, text) called on any click of a cell, with what its tooltip says. */
  function renderBoard(board, { names = null, onCell = null, title = "Game board", targets = null, path = null,
    marked = null, ghosts = null, overlays = null, fit = 0, rotate = 0, minFont = 11, onInfo = null } = {}) {
    if (!board || !Array.isArray(board.cells)) {
      return el("p", { class: "muted" }, "This view has no board to draw.");
    }
    const L = layout(board);
    if (L.cells.length === 0) return el("p", { class: "muted" }, "The board is empty.");
    if (rotate === 180) for (const c of L.cells) { c.cx = -c.cx; c.cy = -c.cy; }
    const byId = new Map(L.cells.map((c) => [String(c.cell.id), c]));
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    const half = L.kind === "grid" ? L.unit / 2 : L.radius;
    // Half a cell's width and height in px: one square, or its span on a grid.
    const spanOf = (cell) => {
      const sp = L.kind === "grid" && Array.isArray(cell.span) ? cell.span.map(Number) : [1, 1];
      return sp.length === 2 && sp.every((n) => Number.isFinite(n) && n >= 1 && n <= 16) ? sp : [1, 1];
    };
    for (const c of L.cells) {
      const [sw, sh] = spanOf(c.cell);
      c.hw = L.kind === "grid" ? half * sw : half;
      c.hh = L.kind === "grid" ? half * sh : half;
      minX = Math.min(minX, c.cx - c.hw); maxX = Math.max(maxX, c.cx + c.hw);
      minY = Math.min(minY, c.cy - c.hh); maxY = Math.max(maxY, c.cy + c.hh);
    }
    const pad = 8;
    const vbW = maxX - minX + 2 * pad, vbH = maxY - minY + 2 * pad;
    const root = svg("svg", {
      viewBox: `${(minX - pad).toFixed(1)} ${(minY - pad).toFixed(1)} ${vbW.toFixed(1)} ${vbH.toFixed(1)}`,
      class: `board board-${L.kind}`, role: "group", "aria-label": `${title}: ${L.kind} board, ${L.cells.length} cells`,
      preserveAspectRatio: "xMidYMid meet",
    });
    // Fitted to the width given (never above 1.35x natural size); without one, about natural
    // size and never below half (a very large board scrolls inside its box).
    let scale = 1;
    if (fit > 0) {
      scale = Math.min(1.35, fit / vbW);
      root.style.width = (vbW * scale).toFixed(0) + "px";
    } else {
      root.style.width = "100%";
      root.style.maxWidth = (vbW * 1.35).toFixed(0) + "px";
      root.style.minWidth = Math.min(vbW * 0.5, 1400).toFixed(0) + "px";
      scale = 1; // about natural size: the base sizes (11 px and up) hold
    }
    // A font size in viewBox units that is drawn at `px` or more, and never under minFont.
    const fsz = (px) => Math.max(px, (minFont + 0.3) / scale);
    root.append(svg("title", { text: `${title} (${L.kind})` }));
    const want = new Set((targets || []).map(String));
    const chosen = (path || []).map(String);
    const hot = new Set((marked || []).map(String));

    if (Array.isArray(board.edges)) {
      const eg = svg("g", { class: "edges" });
      for (const e of board.edges) {
        if (!Array.isArray(e) || e.length < 2) continue;
        const a = byId.get(String(e[0])), b = byId.get(String(e[1]));
        if (!a || !b) continue;
        eg.append(svg("line", { x1: a.cx.toFixed(1), y1: a.cy.toFixed(1), x2: b.cx.toFixed(1), y2: b.cy.toFixed(1), class: "edge" }));
      }
      root.append(eg);
    }

    const activate = (g, id, label) => {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", label);
      g.classList.add("clickable", "target");
      g.addEventListener("click", () => onCell(id));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onCell(id); } });
    };

    const idFs = fsz(10), nameFs = fsz(11), pieceFs = fsz(10.5);
    for (const c of L.cells) {
      const cell = c.cell;
      const id = String(cell.id);
      let label = cell.label === undefined || cell.label === null ? "" : String(cell.label);
      // Labels often repeat the id ("d1 FEr5"): show the id once, the rest as the label.
      if (label.startsWith(id + " ")) label = label.slice(id.length + 1).trim();
      const name = cell.name !== undefined ? String(cell.name || "") : (label && label !== id ? label : "");
      const pieces = [...(cell.pieces || []), ...((ghosts && ghosts[id]) || []).map((p) => ({ ...p, ghost: true }))];
      const g = svg("g", { class: "cell" + (hot.has(id) ? " marked" : "") + (chosen.includes(id) ? " chosen" : ""), "data-id": id });
      const pieceText = pieces.map((p) => (p.ghost ? "removed: " : "") + (p.title || `${p.label}${Number.isInteger(p.owner) ? ` (${(names && names[p.owner]) || "seat " + p.owner})` : ""}`)).join("; ");
      const tip = cell.tip || `${id}${name ? " — " + name : ""}`;
      g.append(svg("title", { text: `${tip}${pieceText ? "\n" + pieceText : ""}${hot.has(id) ? "\n(touched by the last move)" : ""}` }));
      const fillDefault = L.kind === "areas" ? "#eef3e6" : "#f4f1e8";
      const fill = safeFill(cell.fill, fillDefault);
      const ink = textOn(/^#[0-9a-f]{6}$/i.test(fill) ? fill : fillDefault);
      let shapeW, shape, top, bottom;
      if (L.kind === "hex") {
        shape = svg("polygon", { points: hexPoints(c.cx, c.cy, L.radius - 1, L.flat), fill, class: "cell-shape" });
        shapeW = L.radius * 1.5;
        top = c.cy - L.radius * 0.55; bottom = c.cy + L.radius * 0.62;
      } else if (L.kind === "areas") {
        shape = svg("circle", { cx: c.cx.toFixed(1), cy: c.cy.toFixed(1), r: L.radius, fill, class: "cell-shape" });
        shapeW = L.radius * 1.7;
        top = c.cy - L.radius * 0.6; bottom = c.cy + L.radius * 0.7;
      } else {
        shape = svg("rect", { x: (c.cx - c.hw + 0.5).toFixed(1), y: (c.cy - c.hh + 0.5).toFixed(1), width: 2 * c.hw - 1, height: 2 * c.hh - 1, fill, class: "cell-shape" });
        shapeW = 2 * c.hw - 4;
        // The name's baseline clears the bottom edge by its descent (4 px at the base size).
        top = c.cy - c.hh + idFs * 0.95; bottom = c.cy + c.hh - Math.max(4, nameFs * 0.3);
      }
      if (cell.pattern) shape.setAttribute("data-pattern", cell.pattern);
      g.append(shape);
      if (cell.ring) {
        const ring = shape.cloneNode();
        ring.setAttribute("fill", "none");
        ring.setAttribute("class", "cell-ring");
        ring.setAttribute("stroke", safeFill(cell.ring, "#444"));
        if (ring.tagName === "polygon") ring.setAttribute("points", hexPoints(c.cx, c.cy, L.radius - 5, L.flat));
        else if (ring.tagName === "circle") ring.setAttribute("r", String(L.radius - 4));
        g.append(ring);
      }
      if (hot.has(id)) {
        // The last move's cells: a yellow wash under the text and pieces, as chess sites do.
        const wash = shape.cloneNode();
        wash.setAttribute("class", "mark-wash");
        g.append(wash);
      }
      const idText = cell.mark ? `${id} ${cell.mark}` : id;
      const anchorX = L.kind === "grid" ? c.cx - c.hw + 3 : c.cx;
      if (!cell.hideId || cell.mark) {
        g.append(svg("text", { x: anchorX.toFixed(1), y: top.toFixed(1), "font-size": idFs.toFixed(1), "text-anchor": L.kind === "grid" ? "start" : "middle",
          class: "cell-id", fill: ink, text: cell.hideId ? cell.mark : idText }));
      }
      // A grid square's name sits on its bottom edge: a two-line name is raised to stay inside.
      // Where it would reach up into the id line, or into the row of tokens the square holds (a
      // 4-player Factions board on a phone: 11 px text in 29 px squares), it is left out: the
      // mark beside the id and the legend say what the square is, its tooltip and a tap name it.
      const lines = nameLines(name, nameFs, shapeW);
      const crowded = L.kind === "grid" && bottom - (lines === 2 ? 1.9 : 0.8) * nameFs < top + idFs * 0.25 + (pieces.length ? pieceFs + 8 : 0);
      let written = crowded ? "" : name;
      const bare = L.kind === "areas" && cell.hideId && !cell.mark; // a phone's area: no id line
      let nameY = bottom - (L.kind === "grid" ? (lines === 2 ? nameFs * 0.55 : 0) : nameFs * 0.2);
      // A phone's area holds the name (often two lines at 11 px) and a row of tokens above it in
      // a circle about 48 px across: the name goes as low as the circle leaves it room (its last
      // line's descent at 0.8 of the radius, a one-line name's at 0.6, where the circle is
      // wider), the tokens between it and the top. With no tokens, the name is centred.
      const R = L.radius;
      if (bare) nameY = !pieces.length ? c.cy + nameFs * 0.36 : lines === 2 ? c.cy + R * 0.8 - nameFs * 0.78 : c.cy + R * 0.6 - nameFs * 0.23;
      // A grid square holds one row of tokens between its id and name; a taller span, more.
      let rows = L.kind === "areas" ? 3 : L.kind === "grid" ? Math.max(1, Math.floor((bottom - (written ? nameFs : 0) - top - 4) / (pieceFs + 8))) : 2;
      let pieceY = c.cy + (L.kind === "grid" ? 1 : 0);
      let pieceW = shapeW;
      let pad = bare ? BARE_PAD : L.kind === "areas" ? AREA_PAD : 6;
      if ((L.kind === "grid" || L.kind === "hex") && pieces.length) {
        // Centred, a cell's tokens clear its id line and its name at most sizes. In a phone's
        // 29 px square (a 4-player Factions board) they covered the id, and on a 5-player Rite
        // map a two-line name ("Firefly / 3") ran under them. There they go in the band between
        // the id line and the name (or the cell's bottom), in the rows that fit, their padding
        // cut to fit it (to 1 unit at the least); where not even that fits, the name is left
        // out (the mark beside the id, the legend, the tooltip and a tap say what the cell is).
        const idBottom = top + idFs * 0.3 + 1;
        const nameTop = nameY - (lines === 2 ? nameFs * 0.55 : 0) - nameFs * 0.93 - 1;
        const edge = L.kind === "grid" ? c.cy + c.hh - 2 : bottom;
        const boxH = rows * (pieceFs + pad) + (rows - 1) * 2;
        if (pieceY - boxH / 2 < idBottom || (written && pieceY + boxH / 2 > nameTop)) {
          if (written && nameTop - idBottom < pieceFs + 1) written = "";
          const floor = written ? nameTop : edge;
          const band = floor - idBottom;
          rows = Math.max(1, Math.min(rows, Math.floor((band + 2) / (pieceFs + 1 + 2))));
          pad = Math.max(1, Math.min(pad, (band - (rows - 1) * 2) / rows - pieceFs));
          pieceY = (idBottom + floor) / 2;
        }
      }
      if (written) g.append(fitText(c.cx, nameY, written, nameFs, shapeW, { class: "cell-label", fill: ink }));
      if (bare && pieces.length) {
        // The drawn name's top (a text's box reaches 0.93 of its size above the baseline), and
        // the rows of tokens that fit between it and 0.88 of the radius above the centre.
        const nameTop = nameY - (lines === 2 ? nameFs * 0.55 : 0) - nameFs * 0.93 - 2;
        const high = c.cy - R * 0.88;
        const h = pieceFs + BARE_PAD;
        rows = Math.max(1, Math.min(3, Math.floor((nameTop - high + 2) / (h + 2))));
        pieceY = nameTop;
        // As wide as leaves the rows' end tokens whole inside the circle, a unit clear of its
        // edge: a round token ends in a half circle as high as it, a square one in corners of
        // radius 3, nearest the edge at the top row's top or the bottom row's bottom (the width
        // at the row's middle let a square token's corners, and the "+n", stick out).
        const end = pieces.some((p) => p.square) ? 3 : h / 2;
        const rowsTop = nameTop - rows * h - (rows - 1) * 2;
        const dy = Math.max(Math.abs(rowsTop + end - c.cy), Math.abs(nameTop - end - c.cy));
        pieceW = 2 * (Math.sqrt(Math.max(0, (R - 1 - end) ** 2 - dy ** 2)) + end);
      } else if (L.kind === "areas") {
        // Between the id line (or the mark alone) and the name, in as many rows as fit there (a
        // camp of seven units drew its third row over its name); the rest go in the last "+n".
        const idBottom = top + idFs * 0.25;
        const nameTop = !name ? bottom : bottom - nameFs * 0.2 - (lines === 2 ? nameFs * 0.55 : 0) - nameFs * 0.75;
        const room = nameTop - idBottom - 4; // 2 units clear of each line
        rows = Math.max(1, Math.min(rows, Math.floor((room + 2) / (pieceFs + AREA_PAD + 2))));
        pieceY = (idBottom + nameTop) / 2;
      }
      g.append(pieceTokens(pieces, c.cx, pieceY, pieceW, names, rows, pieceFs, pad, bare));
      const step = chosen.indexOf(id);
      if (step >= 0) {
        const bx = c.cx + c.hw - half * 0.45, by = c.cy - c.hh + half * 0.45;
        g.append(svg("circle", { cx: bx.toFixed(1), cy: by.toFixed(1), r: (idFs * 0.85).toFixed(1), class: "step-badge" }),
          svg("text", { x: bx.toFixed(1), y: (by + idFs * 0.36).toFixed(1), "text-anchor": "middle", "font-size": idFs.toFixed(1), class: "step-num", text: String(step + 1) }));
      }
      if (onCell && want.has(id)) activate(g, id, `${id}${name ? ", " + name : ""}${pieceText ? ", " + pieceText : ""}`);
      // A tap shows what a hover would (phones have no hover): the cell, its effect, its pieces.
      if (onInfo) g.addEventListener("click", () => onInfo(id, `${tip}${pieceText ? "\n" + pieceText : ""}`));
      root.append(g);
    }

    for (const o of overlays || []) {
      const cs = (o.cells || []).map((x) => byId.get(String(x))).filter(Boolean);
      if (!cs.length) continue;
      const xs = cs.map((c) => c.cx), ys = cs.map((c) => c.cy);
      const hx = L.kind === "grid" ? L.unit / 2 : L.radius;
      const x0 = Math.min(...xs) - hx + 3, y0 = Math.min(...ys) - hx + 3, x1 = Math.max(...xs) + hx - 3, y1 = Math.max(...ys) + hx - 3;
      const id = String(o.id);
      const g = svg("g", { class: "overlay" + (want.has(id) ? " live" : "") + (chosen.includes(id) ? " chosen" : "") + (hot.has(id) ? " marked" : ""), "data-id": id },
        svg("title", { text: o.title || o.label || id }),
        svg("rect", { x: x0.toFixed(1), y: y0.toFixed(1), width: (x1 - x0).toFixed(1), height: (y1 - y0).toFixed(1), rx: 6, class: "overlay-shape" }));
      if (o.label) {
        const t = svg("text", { x: ((x0 + x1) / 2).toFixed(1), y: ((y0 + y1) / 2 + nameFs * 0.36).toFixed(1), "text-anchor": "middle", "font-size": (nameFs * 1.2).toFixed(1), class: "overlay-label", text: o.label });
        g.append(t);
      }
      if (onCell && want.has(id)) activate(g, id, o.title || o.label || id);
      root.append(g);
    }
    return root;
  }

  function seatLegend(summary) {
    if (!summary || !summary.seats) return el("span");
    return el("ul", { class: "legend", "aria-label": "Seats and their colours" },
      summary.seats.map((s) => el("li", {}, seatChip(summary, s.seat))));
  }

  /* ---- the log -------------------------------------------------------------------------- */

  /* One line for a log entry: the command's notation when it has one, else type + data. */
  function describeEvent(summary, e) {
    const who = e.seat === null || e.seat === undefined ? "" : seatName(summary, e.seat);
    if (e.type === "boardlog.CommandAccepted") {
      const d = e.data || {};
      const what = d.text || (d.type ? `${d.type} ${compact(d.args || {})}` : "command");
      return { who, what, kind: "command" };
    }
    if (e.type === "boardlog.GameCreated") {
      const d = e.data || {};
      const seats = (d.seats || []).map((s) => s.name).join(", ");
      return { who: "", what: `game created: ${d.game || "?"} for ${seats}`, kind: "platform" };
    }
    if (e.type === "boardlog.SeedRevealed") return { who: "", what: "seed revealed (the dice can now be audited)", kind: "platform" };
    if (e.type === "boardlog.GameAborted") return { who: "", what: `game aborted: ${(e.data || {}).reason || ""}`, kind: "platform" };
    const data = e.data && Object.keys(e.data).length ? " " + compact(e.data) : "";
    return { who, what: `${e.type}${data}`, kind: "event" };
  }

  function logEntry(summary, e) {
    const d = describeEvent(summary, e);
    const time = e.at ? new Date(e.at) : null;
    return el("li", { class: `log-entry log-${d.kind}`, "data-seq": e.seq, id: `ev-${e.seq}` },
      el("span", { class: "log-seq" }, `#${e.seq}`),
      el("span", { class: "log-body" },
        d.who ? el("span", { class: "log-who", style: `border-color:${seatColour(e.seat)}` }, d.who) : null,
        el("span", { class: d.kind === "command" ? "log-what notation" : "log-what" }, d.what),
        e.redacted ? el("span", { class: "badge muted-badge", title: "part of this entry is hidden from you" }, "hidden") : null),
      time ? el("time", { class: "log-time", datetime: e.at, title: time.toLocaleString() }, time.toLocaleTimeString()) : null);
  }

  /* The header of every page, for a signed-in player: a link to their page with the count of
   * their games waiting on them, pushed by /v1/me/stream. Signed out (401), the header stays as
   * it is. */
  async function headerCount() {
    const nav = document.querySelector("header.top nav");
    if (!nav) return;
    if (!signedIn()) { offerSignIn(nav); return; }
    let data;
    try {
      ({ data } = await api("/v1/me/games?waiting=1"));
    } catch (e) {
      // Not signed in: the header stays as it is. The service away: ask again later.
      if (e.status !== 401 && e.status !== 403) setTimeout(headerCount, HEADER_RETRY_MS);
      return;
    }
    showWaiting(nav, data);
    if (!("EventSource" in window)) {
      setTimeout(headerCount, HEADER_RETRY_MS);
      return;
    }
    // One stream a browser, not a tab: over HTTP/1.1 a browser holds six connections to a host
    // for all its tabs, and a board page's own stream takes one. The tab holding the lock reads
    // the stream and passes each count on; when it closes, another tab takes the lock.
    const channel = "BroadcastChannel" in window ? new BroadcastChannel("boardlog-waiting") : null;
    if (channel && navigator.locks) {
      channel.onmessage = (ev) => showWaiting(nav, ev.data);
      navigator.locks.request("boardlog-me-stream", () => follow(nav, channel));
    } else {
      follow(nav, null);
    }
  }

  /* A visitor's header: "Sign in", which leads back to this page (a board: its seat) after. */
  function offerSignIn(nav) {
    if (location.pathname === "/signin" || nav.querySelector("#signin-link")) return;
    const back = location.pathname + location.search;
    nav.append(el("a", { href: "/signin?next=" + encodeURIComponent(back), id: "signin-link", class: "signin-link" }, "Sign in"));
  }

  /* Read /v1/me/stream until the player is signed out; the promise (and the lock) lasts that
   * long. EventSource reconnects by itself after a drop; a refusal (too many streams) closes it,
   * and it is opened again later. */
  function follow(nav, channel) {
    return new Promise((done) => {
      const open = () => {
        const es = new EventSource("/v1/me/stream");
        es.addEventListener("waiting", (ev) => {
          const data = JSON.parse(ev.data);
          showWaiting(nav, data);
          if (channel) channel.postMessage(data);
        });
        es.onerror = () => {
          if (es.readyState !== EventSource.CLOSED) return;
          setTimeout(async () => {
            try {
              await api("/v1/me/games?waiting=1");
            } catch (e) {
              if (e.status === 401 || e.status === 403) { done(); return; }
            }
            open();
          }, HEADER_RETRY_MS);
        };
      };
      open();
    });
  }

  function showWaiting(nav, data) {
    let link = nav.querySelector('a[href="/me"]');
    if (!link) nav.append(link = el("a", { href: "/me" }, "Me"));
    const n = data.waiting;
    const words = `${n} game${n === 1 ? "" : "s"} waiting on you`;
    const badge = el("span", { class: "badge waiting-count" + (n ? "" : " hidden"), id: "waiting-count",
      title: words, "aria-label": words }, String(n));
    const old = link.querySelector("#waiting-count");
    if (old) old.replaceWith(badge);
    else link.append(badge);
    // The tab title counts the waiting games on every page ("(2) boardlog"), and a turn that
    // arrives while the page is out of sight is a browser notice, when the player allowed them.
    waitingNow = n;
    showTitle();
    if (waitingBefore !== null && n > waitingBefore && document.hidden && "Notification" in window
        && Notification.permission === "granted") {
      const game = data.games.find((g) => g.waiting_on_you ?? g.your_turn);
      new Notification(game && game.dispute ? "boardlog: a dispute waits for your ruling" : "boardlog: your turn", { body: game ? `${gameTitle(game.game)} ${game.id}${game.asked ? ": " + game.asked : ""}` : words, tag: "boardlog-turn" });
    }
    waitingBefore = n;
  }
  // How long a page waits before asking again when the service is away or refused its stream.
  const HEADER_RETRY_MS = 10000;
  let waitingBefore = null;
  let waitingNow = 0;
  let pageTitle = null;

  /* ---- live summaries of the games a browser's tabs show --------------------------------- */

  /* One stream a browser for every board and replay tab: over HTTP/1.1 a browser opens six
   * connections to a host in all, and with a stream a tab six open boards took them all (every
   * other request of the browser, a move or a page, then waited). The tab holding the lock
   * reads /v1/streams/games for every game the tabs ask for and passes each summary on; when it
   * closes, another tab takes the lock and opens the stream again. `on.summary(text)` gets each
   * summary's JSON, `on.state("live" | "reconnecting", retryMs?)` the stream's state (retryMs:
   * the page's own retry, after the browser gave up reconnecting by itself). */
  const STREAM_GAMES = 32; // /v1/streams/games takes this many
  // Past 32 games the leader opens a stream for each 32 more, up to this many streams (128
  // games): the rest of the browser's six connections stay free for its moves and pages.
  const MAX_STREAMS = 4;
  const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);
  let shared = null; // { channel, handlers: Map gid -> Set of `on`, state, lead }

  function watchGame(gid, on) {
    if (!("EventSource" in window)) return;
    if (!("BroadcastChannel" in window) || !navigator.locks) {
      const alone = liveStream(() => gid, (id, text) => on.summary(text), (state, retry) => on.state(state, retry));
      alone.changed();
      window.addEventListener("pagehide", () => alone.close());
      return;
    }
    if (!shared) startShared();
    let set = shared.handlers.get(gid);
    if (!set) shared.handlers.set(gid, set = new Set());
    set.add(on);
    if (shared.state) on.state(shared.state.state, shared.state.retry);
    announce();
  }

  function startShared() {
    const channel = new BroadcastChannel("boardlog-games");
    shared = { channel, handlers: new Map(), state: null, lead: null };
    channel.onmessage = (ev) => heard(ev.data);
    navigator.locks.request("boardlog-games-stream", lead);
    window.addEventListener("pagehide", () => {
      channel.postMessage({ t: "bye", tab: TAB });
      if (shared.lead) {
        shared.lead.close();
        channel.postMessage({ t: "state", state: "reconnecting" }); // until the next tab leads
      }
    });
  }

  function announce() {
    const m = { t: "want", tab: TAB, gids: [...shared.handlers.keys()] };
    shared.channel.postMessage(m);
    if (shared.lead) shared.lead.want(m); // a channel does not hear its own messages
  }

  function heard(m) {
    if (m.t === "summary") deliver(m.gid, m.data);
    else if (m.t === "state") showState(m);
    else if (m.t === "who") announce();
    else if (shared.lead && m.t === "want") shared.lead.want(m);
    else if (shared.lead && m.t === "bye") shared.lead.bye(m.tab);
  }

  function deliver(gid, text) {
    for (const on of shared.handlers.get(gid) || []) on.summary(text);
  }

  function showState(m) {
    shared.state = m;
    for (const set of shared.handlers.values()) for (const on of set) on.state(m.state, m.retry);
  }

  /* This tab reads the stream for every tab, for as long as it lives (the lock with it). */
  function lead() {
    return new Promise(() => {
      const wants = new Map(); // tab -> the games it shows
      const newest = new Map(); // game -> its newest summary, for a tab that asks for it later
      const say = (state, retry) => {
        const m = { t: "state", state, retry };
        shared.channel.postMessage(m);
        showState(m);
      };
      const all = () => [...new Set([...wants.values()].flat())].sort();
      const got = (gid, text) => {
        newest.set(gid, text);
        shared.channel.postMessage({ t: "summary", gid, data: text });
        deliver(gid, text);
      };
      // The tabs are told "live" once every stream is, and "reconnecting" while any one is.
      const states = [];
      const streams = [];
      const told = () => {
        const down = states.slice(0, streams.length).filter((s) => s && s.state !== "live");
        if (down.length) say("reconnecting", Math.max(0, ...down.map((s) => s.retry || 0)) || undefined);
        else if (states.slice(0, streams.length).every((s) => s)) say("live");
      };
      const stream = {
        changed() {
          const want = Math.min(MAX_STREAMS, Math.max(1, Math.ceil(all().length / STREAM_GAMES)));
          while (streams.length < want) {
            const k = streams.length;
            states[k] = null;
            streams.push(liveStream(() => all().slice(k * STREAM_GAMES, (k + 1) * STREAM_GAMES).join(","), got,
              (state, retry) => { states[k] = { state, retry }; told(); }));
          }
          while (streams.length > want) streams.pop().close();
          for (const one of streams) one.changed();
        },
        close() { for (const one of streams) one.close(); },
      };
      shared.lead = {
        want(m) {
          wants.set(m.tab, m.gids);
          for (const gid of m.gids) {
            const text = newest.get(gid);
            if (text === undefined) continue;
            shared.channel.postMessage({ t: "summary", gid, data: text });
            if (m.tab === TAB) deliver(gid, text);
          }
          if (shared.state) shared.channel.postMessage(shared.state);
          stream.changed();
        },
        bye(tab) { wants.delete(tab); stream.changed(); },
        close() { stream.close(); },
      };
      wants.set(TAB, [...shared.handlers.keys()]);
      shared.channel.postMessage({ t: "who" }); // the other tabs say which games they show
      stream.changed();
    });
  }

  /* /v1/streams/games for the games `ids()` names, opened again when they change (after a
   * short pause, so that a roll call's answers make one stream) and, once the browser gave up
   * reconnecting by itself (an error answer: a 503 while Redis restarts, a 502 from a proxy),
   * after 1 s doubling to 30 s. */
  function liveStream(ids, summary, state) {
    let es = null;
    let open = "";
    let retryMs = 1000;
    let retry = null;
    let pause = null;
    let closed = false;
    function connect() {
      if (es) es.close();
      es = null;
      clearTimeout(retry);
      open = ids();
      if (!open || closed) return;
      const mine = es = new EventSource("/v1/streams/games?ids=" + encodeURIComponent(open));
      mine.addEventListener("open", () => { retryMs = 1000; state("live"); });
      mine.addEventListener("error", () => {
        if (mine !== es) return;
        if (mine.readyState !== EventSource.CLOSED) { state("reconnecting"); return; }
        state("reconnecting", retryMs);
        retry = setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      });
      mine.addEventListener("summary", (ev) => {
        let gid;
        try { gid = JSON.parse(ev.data).id; } catch (e) { return; }
        summary(gid, ev.data);
      });
    }
    return {
      changed() {
        clearTimeout(pause);
        pause = setTimeout(() => { if (ids() !== open) connect(); }, 50);
      },
      close() { closed = true; clearTimeout(retry); clearTimeout(pause); if (es) es.close(); },
    };
  }

  /* A game's content file (rules/<game>/content/<name>: names, card text), cached by the browser. */
  function content(game, name) {
    return fetch(`/static/content/${game}/${name}`, { cache: "force-cache" }).then((r) => {
      if (!r.ok) throw new Error(`${game}/${name}: HTTP ${r.status}`);
      return r.json();
    });
  }

  /* Each game type's name as players know it ("Dragon Dale" for dragondale), from
   * GET /v1/game-types, asked once a page; `gameTitle` gives the code until the answer is in. */
  let titles = null;
  const titleOf = {};
  function gameTitles() {
    titles = titles || api("/v1/game-types").then(({ data }) => {
      for (const t of data.types || []) titleOf[t.game] = t.title;
      return titleOf;
    }).catch(() => { titles = null; return titleOf; });
    return titles;
  }
  const gameTitle = (game) => titleOf[game] || game;

  /* A page's own title (a board's "(your move) …"), kept under the count of waiting games. */
  function setTitle(text) {
    pageTitle = text;
    showTitle();
  }

  function showTitle() {
    const base = pageTitle ?? document.title.replace(/^\(\d+\) /, "");
    document.title = (waitingNow ? `(${waitingNow}) ` : "") + base;
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", headerCount);
  else headerCount();

  return {
    el, svg, clear, setTitle, content, gameTitles, gameTitle, watchGame, gameIdFromPath, takeToken, forgetToken, api, ApiError, commandId,
    signedIn, signedOut, asksMe, NOT_SIGNED_IN, moveAt, offerSignIn,
    SEAT_COLOURS, textOn, seatColour, seatName, seatChip, whoseTurn, outcomeText, when, statusBadge, compact,
    kvPanel, replaceKeepingOpen, renderBoard, facing, seatLegend, describeEvent, logEntry, layout,
    // Each game's drawing and panels (board-<game>.js registers itself here); none for a game without one.
    skins: {},
  };
})();
