/* A replay step's changes in words: what moved, was removed, added or turned, each cell's label
 * and terrain, the scores, in a skin's words (`w`: its piece, cell, label and terrain namers) and
 * the seats' names (`nameOf`). Pure (no DOM): tests/js/step-words.test.js checks it. */

export function pieceName(p, w = {}, nameOf = (seat) => `seat ${seat}`) {
  let name = w.piece ? w.piece(p) : null;
  if (!name) {
    const label = String(p.label || "piece").replace(/[:_]+/g, " ").trim();
    name = label.charAt(0).toUpperCase() + label.slice(1);
  }
  return Number.isInteger(p.owner) ? `${name} (${nameOf(p.owner)})` : name;
}

export function changeItems(ch, w = {}, nameOf = (seat) => `seat ${seat}`) {
  const out = [];
  const cell = (id) => (w.cell && w.cell(id)) || id;
  const piece = (p) => pieceName(p, w, nameOf);
  for (const m of ch.moved || []) out.push(["moved", `${piece(m)} moved ${cell(m.from)} → ${cell(m.to)}`]);
  for (const r of ch.removed || []) out.push(["removed", `${piece(r)} removed from ${cell(r.cell)}`]);
  for (const t of ch.turned || []) out.push(["turned", `${cell(t.cell)}: ${piece(t.from)} is now ${piece(t.to)}`]);
  // A cell's own label (the tile, a count on it) in the skin's words, else with its id dropped
  // where the label repeats it.
  const bare = (id, label) => {
    if (w.label) return w.label(id, label);
    const t = String(label ?? "");
    return t === id ? "" : t.startsWith(id + " ") ? t.slice(id.length + 1) : t;
  };
  for (const r of ch.relabelled || []) out.push(["relabelled", `${cell(r.cell)}: ${bare(r.cell, r.from) || "—"} → ${bare(r.cell, r.to) || "—"}`]);
  const ground = (code) => (w.terrain ? w.terrain(code) : code) || "—";
  for (const t of ch.terrain || []) out.push(["terrain", `${cell(t.cell)}: ${ground(t.from)} → ${ground(t.to)}`]);
  for (const s of ch.scores || []) {
    const d = s.after - s.before;
    out.push(["score", `${nameOf(s.seat)}: ${s.what} ${s.before} → ${s.after} (${d > 0 ? "+" : "−"}${Math.abs(d)})`]);
  }
  for (const a of ch.added || []) out.push(["added", `${piece(a)} added on ${cell(a.cell)}`]);
  return out;
}
