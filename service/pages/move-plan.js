/* Click to move: which board cells each legal command names, in order, and so which cells a
 * player may click next and which commands a path of clicks completes. Pure (no DOM): the board
 * page gives it the legal commands, the drawn cells' ids and the path so far; the node tests
 * (tests/js/move-plan.test.js) check it. */

// The order a command's arguments are visited in: where a move starts before where it ends.
const ARG_ORDER = ["from", "via", "path", "unit", "at", "space", "to", "target", "option", "args"];

/* The cells (among `ids`) a command's arguments name, in order, none twice in a row: a string
 * argument is read word by word ("c4-c6", "g1:knight"), a list item by item. */
export function argCells(cmd, ids) {
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

/* Every choice: each command with its cells, and for a command a page may chain (GET .../legal's
 * `then`: a Factions step), each path of it, its notation the steps' joined by ", then ".
 * `cellsOf(cmd)` gives a command's cells (a skin's own reading, else argCells). */
export function choices(cmds, cellsOf) {
  const all = [];
  for (const c of cmds) {
    const cells = cellsOf(c);
    all.push({ c, cells });
    const walk = (nodes, chain, at) => {
      for (const n of nodes || []) {
        const more = [...chain, n];
        const path = [...at, ...cellsOf(n)];
        const text = more.map((x) => x.text).join(", then ");
        all.push({ c: { type: c.type, args: c.args, text, sentence: `${c.sentence || c.text} Then ${more.slice(1).map((x) => x.text).join(", then ")}.`, chain: more }, cells: path });
        walk(n.then, more, path);
      }
    };
    walk(c.then, [c], cells);
  }
  return all;
}

/* With the cells `sel` clicked so far: the choices they complete, and the cells that may come next. */
export function plan(cmds, sel, cellsOf) {
  const all = choices(cmds, cellsOf);
  const fits = all.filter((x) => x.cells.length >= sel.length && sel.every((id, i) => x.cells[i] === id));
  const complete = fits.filter((x) => x.cells.length === sel.length);
  const next = [...new Set(fits.filter((x) => x.cells.length > sel.length).map((x) => x.cells[sel.length]))];
  return { all, fits, complete, next };
}
