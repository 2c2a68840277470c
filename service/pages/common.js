/* boardlog pages: shared helpers (API calls, seat tokens, board SVG, key/value panels).
 * Plain browser JavaScript, no build step. Everything from the server is put into the
 * page as text (textContent / setAttribute), never as HTML.
 */
"use strict";

const BL = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  // Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
  const SEAT_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#444444"];

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

  /* fetch JSON; throws ApiError carrying the API's {"error": {code, message}} (or a
   * command result's {status, code, message}) for any non-2xx answer. */
  async function api(path, { method = "GET", token = null, body = undefined } = {}) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let resp;
    try {
      resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
    } catch (e) {
      throw new ApiError(0, "network", "The server could not be reached: " + e.message, null);
    }
    let data = null;
    const text = await resp.text();
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = null; }
    }
    if (!resp.ok) {
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

  function textOn(hex) {
    const m = /^#([0-9a-f]{6})$/i.exec(hex || "");
    if (!m) return "#111";
    const n = parseInt(m[1], 16);
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const L = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
    return L > 0.23 ? "#111" : "#fff";
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

  function whoseTurn(summary) {
    if (!summary || !summary.prompt) return "—";
    const names = summary.prompt.seats.map((s) => seatName(summary, s));
    return names.length ? `${names.join(", ")} (${summary.prompt.kind})` : summary.prompt.kind;
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

  /* Tokens for the pieces of one cell, in up to `maxRows` rows inside a box centred on
   * (cx, cy); when they do not all fit, the last token says how many more there are
   * (every piece is still listed in the cell's tooltip). */
  function pieceTokens(pieces, cx, cy, width, names, maxRows = 2) {
    const g = svg("g", { class: "pieces" });
    if (!pieces || !pieces.length) return g;
    const h = 16, gap = 2, charW = 6.1;
    const items = pieces.map((p) => {
      const label = p.label === undefined || p.label === null ? "" : String(p.label);
      return { p, label, w: Math.max(h, Math.min(width, label.length * charW + 10)) };
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
    let shown = rows;
    if (rows.length > maxRows) {
      shown = rows.slice(0, maxRows).map((r) => [...r]);
      const last = shown[shown.length - 1];
      const moreW = 30;
      let lw = widths[maxRows - 1];
      while (last.length > 1 && lw + gap + moreW > width) lw -= last.pop().w + gap;
      const count = items.length - shown.reduce((a, r) => a + r.length, 0);
      last.push({ more: true, label: `+${count}`, w: moreW });
    }
    let y = cy - (shown.length * h + (shown.length - 1) * gap) / 2;
    for (const row of shown) {
      const rw = row.reduce((a, it) => a + it.w, 0) + gap * (row.length - 1);
      let x = cx - rw / 2;
      for (const it of row) {
        const owner = !it.more && Number.isInteger(it.p.owner) ? it.p.owner : null;
        const colour = it.more ? "#ffffff" : seatColour(owner);
        const who = owner === null ? "no owner" : (names && names[owner]) || `seat ${owner}`;
        const maxChars = Math.max(1, Math.floor((it.w - 6) / charW));
        const text = it.label.length > maxChars ? it.label.slice(0, Math.max(1, maxChars - 1)) + "…" : it.label;
        g.append(svg("g", { class: it.more ? "piece more" : "piece", "data-owner": owner === null ? "" : owner },
          svg("title", { text: it.more ? `${it.label} more pieces: see the cell's tooltip` : `${it.label} (${who})` }),
          svg("rect", { x: x.toFixed(1), y: y.toFixed(1), width: it.w.toFixed(1), height: h, rx: h / 2,
            fill: colour, stroke: "#111", "stroke-width": 1, "stroke-dasharray": it.more ? "3 2" : null }),
          svg("text", { x: (x + it.w / 2).toFixed(1), y: (y + h / 2 + 3.5).toFixed(1), "text-anchor": "middle",
            class: "piece-label", fill: textOn(colour), text })));
        x += it.w + gap;
      }
      y += h + gap;
    }
    return g;
  }

  /* The generic board {"kind", "cells": [{id, x, y, label, fill, pieces}], "edges"} as an SVG.
   * `onCell(cell)` (optional) is called when a cell is activated (click or Enter). */
  function renderBoard(board, { names = null, onCell = null, title = "Game board" } = {}) {
    if (!board || !Array.isArray(board.cells)) {
      return el("p", { class: "muted" }, "This view has no board to draw.");
    }
    const L = layout(board);
    if (L.cells.length === 0) return el("p", { class: "muted" }, "The board is empty.");
    const byId = new Map(L.cells.map((c) => [String(c.cell.id), c]));
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    const half = L.kind === "grid" ? L.unit / 2 : L.radius;
    for (const c of L.cells) {
      minX = Math.min(minX, c.cx - half); maxX = Math.max(maxX, c.cx + half);
      minY = Math.min(minY, c.cy - half); maxY = Math.max(maxY, c.cy + half);
    }
    const pad = 8;
    const vbW = maxX - minX + 2 * pad, vbH = maxY - minY + 2 * pad;
    const root = svg("svg", {
      viewBox: `${(minX - pad).toFixed(1)} ${(minY - pad).toFixed(1)} ${vbW.toFixed(1)} ${vbH.toFixed(1)}`,
      class: `board board-${L.kind}`, role: "img", "aria-label": `${title}: ${L.kind} board, ${L.cells.length} cells`,
      preserveAspectRatio: "xMidYMid meet",
    });
    // About natural size (one unit = 64-110 px), fitted to the column but never below half
    // size: a very large board scrolls inside its box rather than becoming unreadable.
    root.style.width = "100%";
    root.style.maxWidth = (vbW * 1.35).toFixed(0) + "px";
    root.style.minWidth = Math.min(vbW * 0.5, 1400).toFixed(0) + "px";
    root.append(svg("title", { text: `${title} (${L.kind})` }));

    if (L.kind === "areas" && Array.isArray(board.edges)) {
      const eg = svg("g", { class: "edges" });
      for (const e of board.edges) {
        if (!Array.isArray(e) || e.length < 2) continue;
        const a = byId.get(String(e[0])), b = byId.get(String(e[1]));
        if (!a || !b) continue;
        eg.append(svg("line", { x1: a.cx.toFixed(1), y1: a.cy.toFixed(1), x2: b.cx.toFixed(1), y2: b.cy.toFixed(1), class: "edge" }));
      }
      root.append(eg);
    }

    for (const c of L.cells) {
      const cell = c.cell;
      const id = String(cell.id);
      let label = cell.label === undefined || cell.label === null ? "" : String(cell.label);
      // Labels often repeat the id ("d1 FEr5"): show the id once, the rest as the label.
      if (label.startsWith(id + " ")) label = label.slice(id.length + 1).trim();
      const g = svg("g", { class: "cell", "data-id": id });
      const pieceText = (cell.pieces || []).map((p) => `${p.label} (${Number.isInteger(p.owner) ? ((names && names[p.owner]) || "seat " + p.owner) : "no owner"})`).join(", ");
      g.append(svg("title", { text: `${id}${label && label !== id ? " — " + label : ""}${pieceText ? ": " + pieceText : ""}` }));
      let shapeW;
      const fillDefault = L.kind === "areas" ? "#eef3e6" : "#f4f1e8";
      const fill = safeFill(cell.fill, fillDefault);
      const ink = textOn(/^#[0-9a-f]{6}$/i.test(fill) ? fill : fillDefault);
      // Text that would not fit is squeezed to the room there is.
      const text = (x, y, cls, str, room, anchor = "middle") => {
        const t = svg("text", { x: x.toFixed(1), y: y.toFixed(1), "text-anchor": anchor, class: cls, fill: ink, text: str });
        const per = cls === "cell-id" ? 6.1 : 6.9;
        if (str.length * per > room) { t.setAttribute("textLength", room.toFixed(1)); t.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
        return t;
      };
      if (L.kind === "hex") {
        g.append(svg("polygon", { points: hexPoints(c.cx, c.cy, L.radius - 1, L.flat), fill, class: "cell-shape" }));
        shapeW = L.radius * 1.45;
        g.append(text(c.cx, c.cy - L.radius * 0.5, "cell-id", id, L.radius * 1.1));
        if (label && label !== id) g.append(text(c.cx, c.cy + L.radius * 0.66, "cell-label", label, L.radius * 1.3));
      } else if (L.kind === "areas") {
        g.append(svg("circle", { cx: c.cx.toFixed(1), cy: c.cy.toFixed(1), r: L.radius, fill, class: "cell-shape" }));
        shapeW = L.radius * 1.6;
        g.append(text(c.cx, c.cy - L.radius * 0.66, "cell-id", id, L.radius * 1.2));
        if (label && label !== id) g.append(text(c.cx, c.cy + L.radius * 0.8, "cell-label", label, L.radius * 1.1));
      } else {
        const s = L.unit;
        g.append(svg("rect", { x: (c.cx - s / 2 + 0.5).toFixed(1), y: (c.cy - s / 2 + 0.5).toFixed(1), width: s - 1, height: s - 1, fill, class: "cell-shape" }));
        shapeW = s - 6;
        g.append(text(c.cx - s / 2 + 3, c.cy - s / 2 + 11, "cell-id", id, s - 6, "start"));
        if (label && label !== id) g.append(text(c.cx + s / 2 - 3, c.cy + s / 2 - 4, "cell-label", label, s - 6, "end"));
      }
      g.append(pieceTokens(cell.pieces, c.cx, c.cy + (L.kind === "grid" ? 2 : 0), shapeW, names, L.kind === "areas" ? 3 : 2));
      if (onCell) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `cell ${id}${label && label !== id ? ", " + label : ""}${pieceText ? ", " + pieceText : ""}`);
        g.classList.add("clickable");
        g.addEventListener("click", () => onCell(cell));
        g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onCell(cell); } });
      }
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
   * their games waiting on them. Signed out (401), the header stays as it is. */
  async function headerCount() {
    const nav = document.querySelector("header.top nav");
    if (!nav) return;
    let data;
    try {
      ({ data } = await api("/v1/me/games?waiting=1"));
    } catch (e) {
      return; // not signed in, or the service away: the page works without the count
    }
    let link = nav.querySelector('a[href="/me"]');
    if (!link) nav.append(link = el("a", { href: "/me" }, "Me"));
    const n = data.waiting;
    link.append(el("span", {
      class: "badge waiting-count" + (n ? "" : " hidden"), id: "waiting-count",
      title: `${n} game${n === 1 ? "" : "s"} waiting on you`, "aria-label": `${n} game${n === 1 ? "" : "s"} waiting on you`,
    }, String(n)));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", headerCount);
  else headerCount();

  return {
    el, svg, clear, gameIdFromPath, takeToken, forgetToken, api, ApiError, commandId,
    seatColour, seatName, seatChip, whoseTurn, outcomeText, when, statusBadge, compact,
    kvPanel, replaceKeepingOpen, renderBoard, seatLegend, describeEvent, logEntry, layout,
  };
})();
