/* Nested data as readable HTML (the raw view of a game without a skin), and a raw log line. */

import { el } from "./dom.js";
import { seatColour } from "./seats.js";
import { describeEvent } from "./sentences.js";

function isPlain(v) { return v === null || typeof v !== "object"; }

/* Nested data as readable HTML: objects as definition lists, arrays of objects with
 * shared keys as tables, arrays of plain values as comma lists. */
export function kvPanel(value, depth = 0, path = "") {
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

export function logEntry(summary, e) {
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
