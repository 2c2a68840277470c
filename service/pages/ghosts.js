/* What vanished since the viewer last acted: the pieces of the board they saw that are no longer
 * anywhere on it, at the cells they stood on (drawn faded, "Removed since your last move").
 * Pure (no DOM): tests/js/ghosts.test.js checks it. */

export function piecesOf(board) {
  const out = {};
  for (const c of board.cells || []) if (c.pieces && c.pieces.length) out[c.id] = c.pieces.map((p) => ({ label: p.label, owner: p.owner, title: p.title, fill: p.fill, ink: p.ink, square: p.square, key: p.key, count: p.count, n: p.n }));
  return out;
}

/* Pieces of the seen board that are no longer anywhere on it, at the cells they were on. */
export function ghostsFor(seen, seq, board) {
  if (!seen || !seen.pieces || seen.seq >= seq) return null;
  const key = (p) => p.key || `${p.label}|${p.owner}`;
  const many = (p) => p.n || p.count || 1; // a token may stand for several pieces
  const count = (pieces) => {
    const m = new Map();
    for (const list of Object.values(pieces)) for (const p of list) m.set(key(p), (m.get(key(p)) || 0) + many(p));
    return m;
  };
  const now = piecesOf(board);
  const before = count(seen.pieces), after = count(now);
  const out = {};
  for (const [k, n] of before) {
    let missing = n - (after.get(k) || 0);
    if (missing <= 0) continue;
    for (const [cell, list] of Object.entries(seen.pieces)) {
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
